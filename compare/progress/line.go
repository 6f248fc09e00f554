package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Line prints one line, rewritten in place, only when its writer is a
// terminal: "name: done/total unit, E elapsed, about L left". Weigh gives
// each item its cost, and the line then also says what share of the cost
// is done. Made by NewLineMode, it also prints a heartbeat where a line
// cannot be rewritten (a log): see NewLineMode.
type Line struct {
	mu         sync.Mutex
	w          io.Writer // nil: not a terminal, nothing shown
	beat       io.Writer // the heartbeat's writer; nil: no heartbeat
	note       func() string
	stop       chan struct{}
	wg         sync.WaitGroup
	done       int       // the last report's items done
	total      int       // and its total
	reports    int       // reports since the line began (items finished here)
	growing    bool      // the last report was Growing's
	since      time.Time // Growing's start
	lastAt     time.Time // when the last report came
	beats      int       // heartbeats printed
	name, unit string
	start      time.Time
	last       time.Time
	shown      bool
	costs      []float64 // per item; nil: every item costs 1
	costDone   float64
	costAll    float64
	now        func() time.Time
}

// NewLine starts a line "name: done/total unit, …" on w, shown only if w
// is a terminal (term: the caller knows; a line rewritten in place needs
// one); its clock starts now.
func NewLine(w io.Writer, term bool, name, unit string) *Line {
	p := &Line{name: name, unit: unit, start: time.Now(), now: time.Now}
	if term {
		p.w = w
	}
	return p
}

// NewLineMode starts a line as NewLine does, in mode (--progress): Auto
// shows it on a terminal and prints a heartbeat instead where w is not
// one (a log, a batch job); Always both; Never nothing. The heartbeat is,
// every 30 s, the line's latest text as a line of its own, with the
// estimate a Growing line cannot give on a terminal (heartbeatGrowing),
// then the line note returns (what is at work), if note is set and
// returns one. Finish stops it.
func NewLineMode(w io.Writer, term bool, mode Mode, name, unit string, note func() string) *Line {
	p := NewLine(w, term && mode != Never, name, unit)
	if mode == Always || (mode == Auto && !term) {
		p.beat, p.note = w, note
		p.stop = startBeat(&p.wg, p.heartbeat)
	}
	return p
}

// SetHeartbeat sets the interval of the heartbeats (30 s) started after
// it and returns a function that restores it: for the tests of commands
// that print heartbeats, which cannot wait 30 s. It is not safe to call
// while other goroutines start progress reports.
func SetHeartbeat(d time.Duration) (restore func()) {
	old := heartbeatEvery
	heartbeatEvery = d
	return func() { heartbeatEvery = old }
}

// Weigh sets each item's cost (costs[i] for item i); items are then
// reported with Notify, which says which item finished.
func (p *Line) Weigh(costs []float64) *Line {
	p.mu.Lock() // a heartbeat (NewLineMode) may be running
	defer p.mu.Unlock()
	p.costs = costs
	p.costAll = 0
	for _, c := range costs {
		p.costAll += c
	}
	return p
}

// Notify reports that item i finished, done of total.
func (p *Line) Notify(i, done, total int) {
	p.mu.Lock()
	if p.costs != nil && i < len(p.costs) {
		p.costDone += p.costs[i]
	}
	p.mu.Unlock()
	p.Update(done, total)
}

// Update reports done of total items finished.
func (p *Line) Update(done, total int) {
	p.record(done, total, false, time.Time{})
	p.show(done, total, func(now time.Time) string { return p.line(done, total, now) })
}

// Growing reports a search whose total grows as it finds more to do (a
// bracket's runs: total is the runs known so far). Its remaining time is
// not known in advance, so the line gives none: it shows the items done,
// those queued, and the time elapsed since start.
//
// Each call is taken to report one item finished since the line began
// (a bracket's notify), for the heartbeat's estimate.
func (p *Line) Growing(done, total int, start time.Time) {
	p.record(done, total, true, start)
	p.show(done, total, func(now time.Time) string { return growingLine(p.name, p.unit, done, total, now.Sub(start)) })
}

// Terminal returns the terminal the line is shown on, or nil, for a
// closing line of the caller's own.
func (p *Line) Terminal() io.Writer { return p.w }

// Logged returns the heartbeat's writer once it has printed a heartbeat,
// else nil: for a closing line of the caller's own in a log that was told
// the work was under way (a short one that printed none stays silent).
func (p *Line) Logged() io.Writer {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.beats == 0 {
		return nil
	}
	return p.beat
}

// Finish ends the line (a newline after it, if one was shown) and stops
// its heartbeat; a second call does nothing more.
func (p *Line) Finish() {
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

// record keeps a report for the heartbeat.
func (p *Line) record(done, total int, growing bool, since time.Time) {
	p.mu.Lock()
	p.done, p.total, p.growing, p.since, p.lastAt = done, total, growing, since, p.now()
	p.reports++
	p.mu.Unlock()
}

// heartbeat prints the line's latest text on a line of its own, and the
// note's line; over a line shown on the same writer it clears that first
// (the next report draws it again).
func (p *Line) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var text string
	switch {
	case p.reports == 0:
		text = fmt.Sprintf("%s: no %s finished yet, %s elapsed; time left unknown until one finishes", p.name, p.unit, now.Sub(p.start).Round(time.Second))
	case p.growing:
		text = heartbeatGrowing(p.name, p.unit, p.done, p.total, p.reports, now.Sub(p.since), now.Sub(p.lastAt))
	default:
		text = p.line(p.done, p.total, now)
	}
	if p.w == p.beat && p.shown {
		fmt.Fprint(p.beat, "\r\x1b[K")
		p.shown = false
	}
	text += "\n"
	if p.note != nil {
		if n := p.note(); n != "" {
			text += p.name + ": " + n + "\n"
		}
	}
	io.WriteString(p.beat, text)
	p.beats++
}

// show writes the line text(now) over the last one, at most every 250 ms
// until done = total.
func (p *Line) show(done, total int, text func(now time.Time) string) {
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
func (p *Line) line(done, total int, now time.Time) string {
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

// growingLine is the line of a search whose total grows.
func growingLine(name, unit string, done, total int, el time.Duration) string {
	queued := ""
	if total > done {
		queued = fmt.Sprintf(" (%d more queued)", total-done)
	}
	return fmt.Sprintf("%s: %d %s done%s, %s elapsed; time left unknown (the search picks its next points from these results)",
		name, done, unit, queued, el.Round(time.Second))
}

// heartbeatGrowing is a heartbeat's line on a search whose total grows
// (Growing), after reports items finished in el, the last ago: the items
// done and queued at the last report, and an estimate for those queued at
// the pace so far, el per reports items (the items done that were not
// finished here, a resumed run's, are not in the pace). The search may
// queue more after them, which no estimate can count, and the line says
// so; when none were queued at the last report, the search has queued its
// next from the results, and they are not known until one finishes.
func heartbeatGrowing(name, unit string, done, total, reports int, el, ago time.Duration) string {
	s := fmt.Sprintf("%s: %d %s done", name, done, unit)
	queued := total - done
	if queued > 0 {
		s += fmt.Sprintf(" (%d more queued)", queued)
	}
	s += fmt.Sprintf(", %s elapsed, the last finished %s ago", el.Round(time.Second), ago.Round(time.Second))
	if queued <= 0 || reports <= 0 {
		return s + "; time left unknown: the search queues its next from these results, counted when one finishes"
	}
	left := time.Duration(float64(el) * float64(queued) / float64(reports))
	return s + fmt.Sprintf("; about %s left for the %d queued at the pace so far, not counting any the search queues after them", left.Round(time.Second), queued)
}
