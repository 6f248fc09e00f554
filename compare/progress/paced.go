package progress

import (
	"io"
	"sync/atomic"
	"time"
)

// Paced reports a batch of items that each report as they go (the refresh
// map's attractor runs, map by map): Line, the one line over the batch on
// a terminal (modes Auto and Always), and Beat, the heartbeat (Auto off a
// terminal, and Always), whose line on an item at work is its note: what
// note makes of the item's last report and of the recent time between
// its reports (a moving average over about the last four; 0 before the
// second report, whose time includes the item's setup).
type Paced[R any] struct {
	Line *Line
	Beat *Items
	last []atomic.Pointer[pace[R]]
	note func(r *R, per time.Duration) string
}

// pace is an item's last report (nil before its first), when it came,
// and the recent time between reports.
type pace[R any] struct {
	r   *R
	at  time.Time
	per time.Duration
}

// NewPaced starts reporting on w items labelled labels, of relative costs
// costs (the Line's weights and the Beat's); term says whether w is a
// terminal; note writes an item's note (r nil before its first report).
func NewPaced[R any](w io.Writer, term bool, mode Mode, name, unit string, labels []string, costs []float64, note func(r *R, per time.Duration) string) *Paced[R] {
	p := &Paced[R]{last: make([]atomic.Pointer[pace[R]], len(labels)), note: note}
	p.Line = NewLine(w, term && mode != Never, name, unit)
	beat := Never
	if mode == Always || (mode == Auto && !term) {
		beat = Auto // off a terminal: the heartbeat alone
	}
	p.Beat = NewItems(w, false, beat, name, unit, labels, costs)
	return p
}

// Begin records that item i started, for the heartbeat.
func (p *Paced[R]) Begin(i int) {
	p.last[i].Store(&pace[R]{at: time.Now()})
	p.Beat.Begin(i)
	p.Beat.Live(i, func() string {
		m := p.last[i].Load()
		return p.note(m.r, m.per)
	})
}

// End records that item i finished.
func (p *Paced[R]) End(i int) { p.Beat.End(i, "done") }

// Report records item i's report, and the pace of its reports.
func (p *Paced[R]) Report(i int, r R) {
	now := time.Now()
	m := &pace[R]{r: &r, at: now}
	if prev := p.last[i].Load(); prev != nil && prev.r != nil {
		d := now.Sub(prev.at)
		m.per = d
		if prev.per > 0 {
			m.per = (3*prev.per + d) / 4
		}
	}
	p.last[i].Store(m)
}

// Close ends both reports.
func (p *Paced[R]) Close() {
	p.Beat.Close()
	p.Line.Finish()
}
