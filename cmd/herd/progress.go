package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/sim"
)

// progress prints one line on stderr, rewritten in place, only when
// stderr is a terminal: "name: done/total unit, E elapsed, about L left".
// The estimate L is E·(cost left)/(cost done): by default every item
// costs the same; weigh gives each item its cost (a simulator run its
// expected number of jobs), so that an estimate over runs that differ a
// thousandfold in length is not misled by counts, and the line then also
// says what share of the cost is done.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	name, unit string
	start      time.Time
	last       time.Time
	shown      bool
	costs      []float64 // per item; nil: every item costs 1
	costDone   float64
	costAll    float64
	now        func() time.Time
}

func newProgress(w io.Writer, name, unit string) *progress {
	p := &progress{name: name, unit: unit, start: time.Now(), now: time.Now}
	if isTerminal(w) {
		p.w = w
	}
	return p
}

// weigh sets each item's cost (costs[i] for item i); items are then
// reported with notify, which says which item finished.
func (p *progress) weigh(costs []float64) *progress {
	p.costs = costs
	p.costAll = 0
	for _, c := range costs {
		p.costAll += c
	}
	return p
}

// runCosts are the costs of simulator runs, for weigh.
func runCosts(tasks []sim.Task) []float64 {
	c := make([]float64, len(tasks))
	for i, t := range tasks {
		c[i] = compare.RunCost(t.Config)
	}
	return c
}

// notify reports that item i finished (done of total); its signature is
// sim.RunAllNotify's.
func (p *progress) notify(i int, _ sim.Result, done, total int) {
	p.mu.Lock()
	if p.costs != nil && i < len(p.costs) {
		p.costDone += p.costs[i]
	}
	p.mu.Unlock()
	p.update(done, total)
}

// update reports done of total items finished; it is safe for concurrent
// use.
func (p *progress) update(done, total int) {
	p.show(done, total, func(now time.Time) string { return p.line(done, total, now) })
}

// show writes the line text(now) over the last one, at most every 250 ms
// until done = total; it is safe for concurrent use.
func (p *progress) show(done, total int, text func(now time.Time) string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	now := p.now()
	if done < total && now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", text(now))
}

// line is the progress line after done of total items at now.
func (p *progress) line(done, total int, now time.Time) string {
	el := now.Sub(p.start)
	cdone, call := float64(done), float64(total)
	share := ""
	if p.costs != nil {
		cdone, call = p.costDone, p.costAll
		if call > 0 {
			share = fmt.Sprintf(" (%.0f%% by cost)", 100*cdone/call)
		}
	}
	left := ""
	switch {
	case done >= total:
		left = ", all done"
	case cdone > 0:
		rest := time.Duration(float64(el) * (call - cdone) / cdone)
		left = fmt.Sprintf(", about %s left", rest.Round(time.Second))
	default:
		left = ", time left unknown until one finishes"
	}
	return fmt.Sprintf("%s: %d/%d %s%s, %s elapsed%s", p.name, done, total, p.unit, share, el.Round(time.Second), left)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// updateETA reports a search whose total grows as it finds more to do (a
// bracket's runs: total is the runs known so far). Its remaining time is
// not known in advance, so it gives none, rather than an estimate that
// says "0s left" every time the known work is done: it shows the runs
// done, those queued, and the time elapsed since start.
func (p *progress) updateETA(done, total int, start time.Time) {
	p.show(done, total, func(now time.Time) string { return growingLine(p.name, p.unit, done, total, now.Sub(start)) })
}

// growingLine is the line of a search whose total grows.
func growingLine(name, unit string, done, total int, el time.Duration) string {
	queued := ""
	if total > done {
		queued = fmt.Sprintf(" (%d more queued)", total-done)
	}
	return fmt.Sprintf("%s: %d %s done%s, %s elapsed; time left unknown (the search picks its next points from these results)",
		name, done, unit, queued, el.Round(time.Second))
}

// Progress modes of --progress.
const (
	progressAuto   = "auto"
	progressAlways = "always"
	progressNever  = "never"
)

// heartbeatEvery is the interval of the heartbeat line when stderr is not a
// terminal (a Slurm log, a file).
var heartbeatEvery = 30 * time.Second

// addProgressFlag defines --progress, with one help text for every command
// that computes edges one by one (herd edge, herd law).
func addProgressFlag(fs *pflag.FlagSet) *string {
	return fs.String("progress", progressAuto, "progress on stderr: auto (a line per edge on a terminal, else a heartbeat line every 30 s), always (both), never")
}

// checkProgressMode validates --progress.
func checkProgressMode(mode string) error {
	switch mode {
	case progressAuto, progressAlways, progressNever:
		return nil
	}
	return usagef("--progress %q: want auto, always or never", mode)
}

// isTerminal reports whether w is a terminal (fileIsTerminal: a
// terminal's ioctl where the system has one, so /dev/null is not).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}

// itemProgress reports a batch of long, weighted items (edges): one line per
// finished item with its wall time, the time elapsed and an estimate of the
// time left, and a heartbeat line every heartbeatEvery while items run.
// Mode auto gives the item lines on a terminal and the heartbeat
// otherwise; always gives both; never nothing. The estimate scales the
// elapsed time by the weight left over the weight done (weights model the
// relative cost of the items). Safe for concurrent use.
type itemProgress struct {
	mu         sync.Mutex
	w          io.Writer
	lines      bool
	name, unit string
	labels     []string
	weights    []float64
	started    []time.Time
	finished   []bool
	done, all  float64
	count      int
	start      time.Time
	stop       chan struct{}
	wg         sync.WaitGroup
}

// newItemProgress starts reporting on w; close stops it.
func newItemProgress(w io.Writer, mode, name, unit string, labels []string, weights []float64) *itemProgress {
	p := &itemProgress{name: name, unit: unit, labels: labels, weights: weights, start: time.Now(),
		started: make([]time.Time, len(labels)), finished: make([]bool, len(labels))}
	for _, x := range weights {
		p.all += x
	}
	term := isTerminal(w)
	beat := false
	switch mode {
	case progressAlways:
		p.lines, beat = true, true
	case progressAuto:
		p.lines, beat = term, !term
	}
	if p.lines || beat {
		p.w = w
	}
	if beat {
		p.stop = make(chan struct{})
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			t := time.NewTicker(heartbeatEvery)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.heartbeat()
				}
			}
		}()
	}
	return p
}

// begin records that item i started.
func (p *itemProgress) begin(i int) {
	p.mu.Lock()
	p.started[i] = time.Now()
	p.mu.Unlock()
}

// end records that item i finished, with a one-word result.
func (p *itemProgress) end(i int, result string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished[i] = true
	p.done += p.weights[i]
	p.count++
	if p.w == nil || !p.lines {
		return
	}
	took := time.Since(p.started[i])
	fmt.Fprintf(p.w, "%s %d/%d: %s: %s in %s; %s elapsed%s\n", p.name, p.count, len(p.labels), p.labels[i], result,
		took.Round(100*time.Millisecond), time.Since(p.start).Round(time.Second), p.left())
}

// left returns ", about D left" (or "" when nothing is left or nothing
// done yet).
func (p *itemProgress) left() string {
	if p.count == len(p.labels) {
		return ""
	}
	if p.done <= 0 {
		return ", time left unknown"
	}
	el := time.Since(p.start)
	rest := time.Duration(float64(el) * (p.all - p.done) / p.done)
	return fmt.Sprintf(", about %s left", rest.Round(time.Second))
}

func (p *itemProgress) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var running []string
	for i, t := range p.started {
		if !t.IsZero() && !p.finished[i] {
			running = append(running, fmt.Sprintf("%s for %s", p.labels[i], time.Since(t).Round(time.Second)))
		}
	}
	msg := fmt.Sprintf("%s: %d/%d %s done, %s elapsed%s", p.name, p.count, len(p.labels), p.unit,
		time.Since(p.start).Round(time.Second), p.left())
	if len(running) > 0 {
		msg += "; running " + strings.Join(running, ", ")
	}
	fmt.Fprintln(p.w, msg)
}

// close stops the heartbeat.
func (p *itemProgress) close() {
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
}

// figureProgress shows herd figures' progress on a terminal: one line,
// rewritten at most four times a second, with the figures done out of
// those chosen, the time elapsed and, for each figure at work, what it is
// doing, its share done weighted by cost (a simulator run weighs its
// expected number of jobs, so a run 1,000 times longer counts 1,000 times
// more) and an estimate of its time left; and a line per figure written,
// saying "figure i of n" and its files. Safe for concurrent use.
type figureProgress struct {
	mu      sync.Mutex
	w       io.Writer // nil: not a terminal, nothing shown
	figs    []compare.Figure
	start   time.Time
	last    time.Time
	shown   bool // a progress line is on the screen
	done    int
	stage   []compare.FigureProgress // latest report per figure
	stageAt []time.Time              // when each figure's stage began
	now     func() time.Time
}

func newFigureProgress(w io.Writer, figs []compare.Figure) *figureProgress {
	p := &figureProgress{figs: figs, start: time.Now(), now: time.Now,
		stage: make([]compare.FigureProgress, len(figs)), stageAt: make([]time.Time, len(figs))}
	if isTerminal(w) {
		p.w = w
	}
	return p
}

// update takes a report from compare.MakeFigures.
func (p *figureProgress) update(r compare.FigureProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.stage[r.Figure].Stage != r.Stage {
		p.stageAt[r.Figure] = now
	}
	p.stage[r.Figure] = r
	if p.w == nil || now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
}

// line is the progress line at now.
func (p *figureProgress) line(now time.Time) string {
	parts := []string{fmt.Sprintf("figures: %d of %d done, %s elapsed", p.done, len(p.figs), now.Sub(p.start).Round(time.Second))}
	for i, r := range p.stage {
		if r.Stage == "" || r.Finished {
			continue
		}
		parts = append(parts, fmt.Sprintf("figure %s: %s", p.figs[i].ID, stageText(r, now.Sub(p.stageAt[i]))))
	}
	s := strings.Join(parts, "; ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// stageText describes a stage that has run for el: its share done by cost
// and the time left, estimated as el·(total − done)/done; a stage whose
// total grows (a bracket's search) gets no estimate, only its count.
func stageText(r compare.FigureProgress, el time.Duration) string {
	if !r.TotalKnown {
		return fmt.Sprintf("%s, %d runs so far (the total grows as the search goes)", r.Stage, int(r.Done))
	}
	if r.Done <= 0 || r.Total <= 0 {
		return r.Stage + " starting"
	}
	frac := r.Done / r.Total
	if frac >= 1 {
		return fmt.Sprintf("%s done", r.Stage)
	}
	left := time.Duration(float64(el) * (r.Total - r.Done) / r.Done)
	return fmt.Sprintf("%s %.0f%% by cost, about %s left", r.Stage, 100*frac, left.Round(time.Second))
}

// written reports that figure i's files are written.
func (p *figureProgress) written(i int, plots []*compare.FigurePlot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.stage[i].Finished = true
	if p.w == nil {
		return
	}
	var stems []string
	for _, pl := range plots {
		stems = append(stems, pl.Stem)
	}
	now := p.now()
	fmt.Fprintf(p.w, "\r\x1b[Kfigures: figure %s written (%s: .svg, .png, .csv); %d of %d figures done, %s elapsed\n",
		p.figs[i].ID, strings.Join(stems, ", "), p.done, len(p.figs), now.Sub(p.start).Round(time.Second))
	p.shown = false
}

// close ends the progress line.
func (p *figureProgress) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
