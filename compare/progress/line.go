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
// is done.
type Line struct {
	mu         sync.Mutex
	w          io.Writer // nil: not a terminal, nothing shown
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

// Weigh sets each item's cost (costs[i] for item i); items are then
// reported with Notify, which says which item finished.
func (p *Line) Weigh(costs []float64) *Line {
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
	p.show(done, total, func(now time.Time) string { return p.line(done, total, now) })
}

// Growing reports a search whose total grows as it finds more to do (a
// bracket's runs: total is the runs known so far). Its remaining time is
// not known in advance, so the line gives none: it shows the items done,
// those queued, and the time elapsed since start.
func (p *Line) Growing(done, total int, start time.Time) {
	p.show(done, total, func(now time.Time) string { return growingLine(p.name, p.unit, done, total, now.Sub(start)) })
}

// Terminal returns the terminal the line is shown on, or nil, for a
// closing line of the caller's own.
func (p *Line) Terminal() io.Writer { return p.w }

// Finish ends the line (a newline after it, if one was shown).
func (p *Line) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
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
