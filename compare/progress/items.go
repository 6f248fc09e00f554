package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Mode says where Items reports.
type Mode string

// The modes of Items.
const (
	Auto   Mode = "auto"   // item lines on a terminal, else heartbeat lines
	Always Mode = "always" // both
	Never  Mode = "never"  // nothing
)

// heartbeatEvery is the interval of the heartbeat line; tests shorten it.
var heartbeatEvery = 30 * time.Second

// startBeat calls heartbeat every heartbeatEvery on a goroutine counted in wg
// until the returned channel is closed.
func startBeat(wg *sync.WaitGroup, heartbeat func()) chan struct{} {
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				heartbeat()
			}
		}
	}()
	return stop
}

// Items reports a batch of long, weighted items (edges): one line per
// finished item with its wall time, the time elapsed and an estimate of
// the whole batch's time left, and a heartbeat every 30 s while items
// run: a line with the count, the time elapsed and the estimate, and a
// line per item at work. Mode Auto gives the item lines on a terminal and the
// heartbeat otherwise (a log); Always gives both; Never nothing. The
// estimate scales the elapsed time by the weight left over the weight
// done (weights model the relative cost of the items).
type Items struct {
	mu         sync.Mutex
	w          io.Writer
	lines      bool
	name, unit string
	labels     []string
	weights    []float64
	started    []time.Time
	finished   []bool
	status     []string
	live       []func() string
	est        []time.Time // when an item at work expects to end, by Estimate; zero: no estimate
	done, all  float64
	prior      func() float64 // seconds per unit of weight by a cost model; nil: none
	count      int
	start      time.Time
	stop       chan struct{}
	wg         sync.WaitGroup
}

// NewItems starts reporting on w items labelled labels, of weights
// weights; term says whether w is a terminal (mode Auto then shows
// lines, else heartbeats); Close stops it.
func NewItems(w io.Writer, term bool, mode Mode, name, unit string, labels []string, weights []float64) *Items {
	p := &Items{name: name, unit: unit, labels: labels, weights: weights, start: time.Now(),
		started: make([]time.Time, len(labels)), finished: make([]bool, len(labels)), status: make([]string, len(labels)),
		live: make([]func() string, len(labels)), est: make([]time.Time, len(labels))}
	for _, x := range weights {
		p.all += x
	}
	beat := false
	switch mode {
	case Always:
		p.lines, beat = true, true
	case Auto:
		p.lines, beat = term, !term
	}
	if p.lines || beat {
		p.w = w
	}
	if beat {
		p.stop = startBeat(&p.wg, p.heartbeat)
	}
	return p
}

// SetPrior gives a cost model's seconds per unit of weight, for the
// estimate before any item has finished (until then the time left is
// otherwise unknown): the whole batch's weight at that rate less the time
// elapsed, said to come from the cost model. After the first item ends,
// the estimate is the measured pace's. secondsPerWeight is called (once
// or more, under the reporter's lock) only when such an estimate is
// shown, so a dear one (a probe of the machine) costs nothing to a batch
// that ends before its first heartbeat.
func (p *Items) SetPrior(secondsPerWeight func() float64) {
	p.mu.Lock()
	p.prior = secondsPerWeight
	p.mu.Unlock()
}

// Begin records that item i started.
func (p *Items) Begin(i int) {
	p.mu.Lock()
	p.started[i] = time.Now()
	p.mu.Unlock()
}

// Status sets what item i is doing, which the heartbeat shows after its
// running time until the next Status or End (an edge's step and last
// run: one long edge otherwise shows only its time).
func (p *Items) Status(i int, s string) {
	p.mu.Lock()
	p.status[i] = s
	p.mu.Unlock()
}

// Live sets a note on item i that the heartbeat asks for anew each time
// it shows the item, after its Status (a count that moves between two
// Status calls: the maps of a run that takes minutes); nil removes it.
func (p *Items) Live(i int, f func() string) {
	p.mu.Lock()
	p.live[i] = f
	p.mu.Unlock()
}

// Estimate records the time item i, at work, expects to take from now
// (its own estimate, e.g. an edge search's maps left at its pace so far;
// zero or less withdraws it). The heartbeat shows it on the item's line,
// less the time since; once every item has started and each one at work
// has an estimate, the head line's time left is the longest of them.
func (p *Items) Estimate(i int, left time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.est[i] = time.Time{}
	if left > 0 {
		p.est[i] = time.Now().Add(left)
	}
}

// itemLeft is item i's own estimate of its time left, from now: false
// when it has none, or when the time it gave has passed (an estimate
// run out says nothing; "0s left" would be wrong).
func (p *Items) itemLeft(i int) (time.Duration, bool) {
	if p.est[i].IsZero() {
		return 0, false
	}
	d := time.Until(p.est[i])
	return d, d > 0
}

// End records that item i finished, with a one-word result.
func (p *Items) End(i int, result string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished[i] = true
	p.status[i] = ""
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
func (p *Items) left() string {
	if p.count == len(p.labels) {
		return ""
	}
	el := time.Since(p.start)
	if d, ok := p.atWorkLeft(); ok {
		return fmt.Sprintf(", about %s left", d.Round(time.Second))
	}
	if p.done <= 0 && p.prior != nil {
		if rate := p.prior(); rate > 0 {
			est := time.Duration(p.all * rate * float64(time.Second))
			if est <= el {
				return fmt.Sprintf(", past the cost model's estimate of %s", est.Round(time.Second))
			}
			return fmt.Sprintf(", about %s left by the cost model", (est - el).Round(time.Second))
		}
	}
	if p.done <= 0 {
		return ", time left unknown"
	}
	rest := time.Duration(float64(el) * (p.all - p.done) / p.done)
	return fmt.Sprintf(", about %s left", rest.Round(time.Second))
}

// atWorkLeft is the longest estimate of the items at work, when every
// item has started and each one at work has an estimate.
func (p *Items) atWorkLeft() (time.Duration, bool) {
	var most time.Duration
	for i, t := range p.started {
		if p.finished[i] {
			continue
		}
		d, ok := p.itemLeft(i)
		if t.IsZero() || !ok {
			return 0, false
		}
		most = max(most, d)
	}
	return most, true
}

// heartbeat prints a head line, "name: d/n unit done, E elapsed, about L
// left", and a line per item at work, "name: running LABEL for D (status;
// live note)": one line each, however many items run, so that no line of
// a log grows with the workers.
func (p *Items) heartbeat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d/%d %s done, %s elapsed%s\n", p.name, p.count, len(p.labels), p.unit,
		time.Since(p.start).Round(time.Second), p.left())
	for i, t := range p.started {
		if t.IsZero() || p.finished[i] {
			continue
		}
		fmt.Fprintf(&b, "%s: running %s for %s", p.name, p.labels[i], time.Since(t).Round(time.Second))
		var notes []string
		if p.status[i] != "" {
			notes = append(notes, p.status[i])
		}
		if f := p.live[i]; f != nil {
			if n := f(); n != "" {
				notes = append(notes, n)
			}
		}
		if d, ok := p.itemLeft(i); ok {
			notes = append(notes, fmt.Sprintf("about %s left", d.Round(time.Second)))
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteString("\n")
	}
	io.WriteString(p.w, b.String())
}

// Close stops the heartbeat.
func (p *Items) Close() {
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
}
