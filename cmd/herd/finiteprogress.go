package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"herd/compare/progress"
)

// finiteProgress is the progress of herd edge --servers' and herd point
// --servers' cells (--progress): progress.Items over the cells, whose
// heartbeat names the cell at work with the refresh periods its particle
// runs have simulated so far (the runs poll Stop before every period, so
// the count moves while one cell takes a minute).
type finiteProgress struct {
	items   *progress.Items
	periods []atomic.Int64
}

// newFiniteProgress starts reporting on stderr in mode on the cells
// labelled labels (name: the command; unit: what a cell is).
func newFiniteProgress(e *env, mode, name, unit string, labels []string) *finiteProgress {
	weights := make([]float64, len(labels))
	for i := range weights {
		weights[i] = 1
	}
	return &finiteProgress{items: progress.NewItems(e.stderr, isTerminal(e.stderr), progress.Mode(mode), name, unit, labels, weights),
		periods: make([]atomic.Int64, len(labels))}
}

// begin opens cell i and returns its Stop: ctx's, counting the periods.
func (p *finiteProgress) begin(ctx context.Context, i int) func() bool {
	p.items.Begin(i)
	p.items.Live(i, func() string { return fmt.Sprintf("%d refresh periods simulated", p.periods[i].Load()) })
	return func() bool {
		p.periods[i].Add(1)
		return ctx.Err() != nil
	}
}

// end closes cell i with a one-word result.
func (p *finiteProgress) end(i int, result string) { p.items.End(i, result) }

// close stops the heartbeat.
func (p *finiteProgress) close() { p.items.Close() }
