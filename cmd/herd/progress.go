package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress prints "cmd: done/total unit" on stderr, only when stderr is a
// terminal, at most ten times a second.
type progress struct {
	w          io.Writer
	name, unit string
	last       time.Time
	shown      bool
}

func newProgress(w io.Writer, name, unit string) *progress {
	p := &progress{name: name, unit: unit}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.w = w
		}
	}
	return p
}

// update is safe to call from RunAll's progress callback (it is serialised there).
func (p *progress) update(done, total int) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	fmt.Fprintf(p.w, "\r%s: %d/%d %s", p.name, done, total, p.unit)
}

func (p *progress) finish() {
	if p.w != nil && p.shown {
		fmt.Fprintln(p.w)
	}
}

// updateETA also shows the time elapsed since start and an estimate of the
// time remaining (the total may grow as work is discovered).
func (p *progress) updateETA(done, total int, start time.Time) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	p.shown = true
	el := now.Sub(start)
	eta := "?"
	if done > 0 {
		eta = (time.Duration(float64(el) / float64(done) * float64(total-done))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r%s: %d/%d %s, %s elapsed, about %s left   ", p.name, done, total, p.unit, el.Round(time.Second), eta)
}
