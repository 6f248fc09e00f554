package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"herd/compare/progress"
	"herd/meanfield"
)

// finiteProgress is the progress of herd edge --servers' and herd point
// --servers' cells (--progress): progress.Items over the cells, whose
// heartbeat names the cell at work with the refresh periods its particle
// runs have simulated so far (the runs poll Stop before every period, so
// the count moves while one cell takes a minute), and once the cell has
// a pace, its time left (estimate, left).
type finiteProgress struct {
	items   *progress.Items
	periods []atomic.Int64
	// first is when cell i's first period began (Unix nanoseconds; 0
	// before), the start of its pace: a cell may first spend minutes on
	// the map's edge, which its periods do not measure.
	first []atomic.Int64
}

// newFiniteProgress starts reporting on stderr in mode on the cells
// labelled labels (name: the command; unit: what a cell is).
func newFiniteProgress(e *env, mode, name, unit string, labels []string) *finiteProgress {
	weights := make([]float64, len(labels))
	for i := range weights {
		weights[i] = 1
	}
	return &finiteProgress{items: progress.NewItems(e.stderr, isTerminal(e.stderr), progress.Mode(mode), name, unit, labels, weights),
		periods: make([]atomic.Int64, len(labels)), first: make([]atomic.Int64, len(labels))}
}

// begin opens cell i and returns its Stop: ctx's, counting the periods.
// total, when positive, is the most periods the cell runs (herd point
// --servers: runs × refreshes), from which its time left is kept up to
// date every 64 periods.
func (p *finiteProgress) begin(ctx context.Context, i int, total int64) func() bool {
	p.items.Begin(i)
	p.items.Live(i, func() string { return fmt.Sprintf("%d refresh periods simulated", p.periods[i].Load()) })
	return func() bool {
		n := p.periods[i].Add(1)
		if n == 1 {
			p.first[i].Store(time.Now().UnixNano())
		}
		if total > 0 && n%64 == 0 {
			p.estimate(i, max(total-n, 0))
		}
		return ctx.Err() != nil
	}
}

// estimate gives cell i's time left when at most periods more periods
// remain, at the pace of its periods so far (nothing before its first).
// Runs that tip stop early, so the estimate leans long.
func (p *finiteProgress) estimate(i int, periods int64) {
	done, first := p.periods[i].Load(), p.first[i].Load()
	if done == 0 || first == 0 {
		return
	}
	pace := float64(time.Now().UnixNano()-first) / float64(done)
	p.items.Estimate(i, time.Duration(pace*float64(periods)))
}

// edgeProgress is meanfield.FiniteEdgeSettings.Progress for cell i
// (herd edge --servers, herd scaling --predict): the time left is that of
// the fewest probes still to come, each as long as the longest so far (the
// probes that end the search lie near the edge, where runs last; below it
// they tip early), at the cell's pace. At k = 3, λ = 0.9, N = 100, h2:4 it
// said 23 s left at 30 s of a 59 s search (probes at full length: 64 s).
func (p *finiteProgress) edgeProgress(i int) func(meanfield.FiniteEdgeProgress) {
	var last, longest int64
	return func(r meanfield.FiniteEdgeProgress) {
		n := p.periods[i].Load()
		longest = min(max(longest, n-last), int64(r.ProbePeriods))
		last = n
		p.estimate(i, int64(r.Left)*longest)
	}
}

// end closes cell i with a one-word result.
func (p *finiteProgress) end(i int, result string) { p.items.End(i, result) }

// close stops the heartbeat.
func (p *finiteProgress) close() { p.items.Close() }
