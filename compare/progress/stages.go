package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Stage is one job's report to Stages: which job, the stage it is at, and
// how much of the stage's cost is done of its total (TotalKnown false:
// the total grows as the job goes, Done counts what is done so far).
type Stage struct {
	Job         int
	Name        string
	Done, Total float64
	TotalKnown  bool
	Finished    bool // the job's computation is done (its output follows)
}

// Stages shows several jobs at work at once (herd figures' figures): the
// jobs done out of all, the time elapsed, an estimate of the whole run's
// time left and, for each job at work, its stage, the share of the
// stage's cost done and an estimate of the stage's time left; and a line
// per job written. On a terminal this is one line rewritten in place at
// most four times a second (cut to 200 characters after the whole run's
// estimate, so that it stays one line); where a line cannot be rewritten
// (a log) it is printed as a heartbeat every 30 s, a head line and then
// one line per job at work, never cut. Mode Auto gives the rewritten line
// on a terminal and the heartbeat otherwise; Always both; Never nothing.
// Jobs are named "item ID" (figure 3) and counted as name (figures).
//
// The whole run's estimate is the cost known to be left over the rate so
// far, L = E·(cost left)/(cost done), summed over every job: the jobs
// share one pool, so it is the pool's rate that matters, not each job's.
// Cost done counts every stage with a known total, finished or at work;
// cost left, those at work. A stage not yet reported (a figure's model
// points while its runs go) is not in it, so the estimate may rise when
// one starts; nor is a stage whose total grows (a bracket's search),
// which the line then says. Before any cost is done the time left is
// unknown.
type Stages struct {
	mu         sync.Mutex
	w          io.Writer // nil: nothing shown
	live       bool      // the line is rewritten in place (a terminal)
	stop       chan struct{}
	wg         sync.WaitGroup
	name, item string
	ids        []string
	start      time.Time
	last       time.Time
	shown      bool // a progress line is on the screen
	done       int
	stage      []Stage     // latest report per job
	stageAt    []time.Time // when each job's stage began
	past       []float64   // per job, the cost done in its finished stages of known total
	now        func() time.Time
}

// NewStages starts reporting jobs ids on w in mode (term says whether w
// is a terminal); the line reads "name: d of n done, …; item ID: stage …".
// Close stops it.
func NewStages(w io.Writer, term bool, mode Mode, name, item string, ids []string) *Stages {
	p := &Stages{name: name, item: item, ids: ids, start: time.Now(), now: time.Now,
		stage: make([]Stage, len(ids)), stageAt: make([]time.Time, len(ids)), past: make([]float64, len(ids))}
	beat := false
	switch mode {
	case Always:
		p.live, beat = term, true
	case Auto:
		p.live, beat = term, !term
	}
	if p.live || beat {
		p.w = w
	}
	if beat {
		p.stop = startBeat(&p.wg, p.heartbeat)
	}
	return p
}

// heartbeat prints the head line and a line per job at work.
func (p *Stages) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	now := p.now()
	var b strings.Builder
	b.WriteString(p.head(now, true) + "\n")
	for _, l := range p.jobs(now) {
		b.WriteString(p.name + ": " + l + "\n")
	}
	io.WriteString(p.w, b.String())
}

// Update takes a job's report.
func (p *Stages) Update(r Stage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if old := p.stage[r.Job]; old.Name != r.Name {
		p.stageAt[r.Job] = now
		if old.TotalKnown && !old.Finished {
			p.past[r.Job] += old.Done // a finished stage's cost stays done
		}
	}
	p.stage[r.Job] = r
	if !p.live || now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(now))
}

// line is the rewritten line at now: the head (without saying what the
// estimate counts), then each job at work, cut to 200 characters (the
// head is never cut).
func (p *Stages) line(now time.Time) string {
	head := p.head(now, false)
	s := strings.Join(append([]string{head}, p.jobs(now)...), "; ")
	if r := []rune(s); len(r) > 200 && len(r) > len([]rune(head)) {
		s = string(r[:max(199, len([]rune(head)))]) + "…"
	}
	return s
}

// head is "name: d of n done, E elapsed" and the whole run's estimate;
// long adds what the estimate counts.
func (p *Stages) head(now time.Time, long bool) string {
	el := now.Sub(p.start)
	s := fmt.Sprintf("%s: %d of %d done, %s elapsed", p.name, p.done, len(p.ids), el.Round(time.Second))
	if p.done == len(p.ids) {
		return s
	}
	var done, left float64
	growing := false
	for i, r := range p.stage {
		done += p.past[i]
		if r.Finished {
			continue
		}
		switch {
		case r.Name != "" && !r.TotalKnown:
			growing = true
		case r.TotalKnown:
			done += r.Done
			left += max(r.Total-r.Done, 0)
		}
	}
	if !(done > 0) {
		return s + ", time left unknown until some work is done"
	}
	rest := time.Duration(float64(el) * left / done)
	s += fmt.Sprintf(", about %s left in all", rest.Round(time.Second))
	if !long {
		return s
	}
	s += " (the work known so far at the rate so far"
	if growing {
		s += "; searches whose total grows not counted"
	}
	return s + ")"
}

// jobs are the texts of the jobs at work, "item ID: stage …", in order.
func (p *Stages) jobs(now time.Time) []string {
	var out []string
	for i, r := range p.stage {
		if r.Name == "" || r.Finished {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s: %s", p.item, p.ids[i], stageText(r, now.Sub(p.stageAt[i]))))
	}
	return out
}

// stageText describes a stage that has run for el: its share done by cost
// and the time left, estimated as el·(total − done)/done; a stage whose
// total grows (a bracket's search) gets no estimate, only its count.
func stageText(r Stage, el time.Duration) string {
	if !r.TotalKnown {
		return fmt.Sprintf("%s, %d runs so far (the total grows as the search goes)", r.Name, int(r.Done))
	}
	if r.Done <= 0 || r.Total <= 0 {
		return r.Name + " starting"
	}
	frac := r.Done / r.Total
	if frac >= 1 {
		return fmt.Sprintf("%s done", r.Name)
	}
	left := time.Duration(float64(el) * (r.Total - r.Done) / r.Done)
	return fmt.Sprintf("%s %.0f%% by cost, about %s left", r.Name, 100*frac, left.Round(time.Second))
}

// Written reports that job i's output is written, what saying which
// ("fig3-round-robin: .svg, .png, .csv").
func (p *Stages) Written(i int, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r := p.stage[i]; r.TotalKnown && !r.Finished {
		p.past[i] += r.Done
	}
	p.stage[i].Finished = true
	if !p.live {
		return // a heartbeat reports the count
	}
	now := p.now()
	fmt.Fprintf(p.w, "\r\x1b[K%s: %s %s written (%s); %d of %d %s done, %s elapsed\n",
		p.name, p.item, p.ids[i], what, p.done, len(p.ids), p.name, now.Sub(p.start).Round(time.Second))
	p.shown = false
}

// Close ends the progress line and stops the heartbeat; it may be called
// more than once.
func (p *Stages) Close() {
	if p.stop != nil {
		select {
		case <-p.stop:
		default:
			close(p.stop)
		}
		p.wg.Wait()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
