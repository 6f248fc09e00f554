package main

import (
	"context"

	"herd/compare"
	"herd/compare/progress"
)

// parallel calls work(i) for i in [0, n) on the one worker pool
// (compare.NewPool) and reports which calls finished; progress, if set,
// is called serially after each finished call.
func parallel(ctx context.Context, n, workers int, work func(i int), progress func(done, total int)) []bool {
	var notify func(i, done, total int)
	if progress != nil {
		notify = func(_, done, total int) { progress(done, total) }
	}
	return compare.NewPool(ctx, workers, notify)(n, work)
}

// weightedPool is workerPool with the progress estimate weighted by
// costs[i], the relative cost of item i of the pool's work.
func weightedPool(ctx context.Context, workers int, p *progress.Line, costs []float64) compare.Pool {
	p.Weigh(costs)
	return compare.NewPool(ctx, workers, p.Notify)
}
