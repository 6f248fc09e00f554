package main

import (
	"context"

	"herd/compare"
	"herd/compare/progress"
	"herd/sim"
)

// parallel calls work(i) for i in [0, n) on sim.Parallel, the one worker
// pool, and reports which calls finished. Work writes its result by index,
// so the output never depends on the number of workers. When ctx is
// cancelled no new call starts and parallel returns once the calls in
// flight have returned (they cannot be interrupted; a call that returns
// after the cancellation counts as not finished), so the caller reads
// results no worker still writes. progress, if set, is called serially
// after each finished call.
func parallel(ctx context.Context, n, workers int, work func(i int), progress func(done, total int)) []bool {
	var fin func(int, struct{}, int)
	if progress != nil {
		fin = func(_ int, _ struct{}, d int) { progress(d, n) }
	}
	_, done := sim.Parallel(ctx, n, workers, func(i int) (struct{}, bool) {
		work(i)
		return struct{}{}, ctx.Err() == nil
	}, fin)
	return done
}

// weightedPool is workerPool with the progress estimate weighted by
// costs[i], the relative cost of item i of the pool's work.
func weightedPool(ctx context.Context, workers int, p *progress.Line, costs []float64) compare.Pool {
	p.Weigh(costs)
	return func(n int, work func(i int)) []bool {
		_, done := sim.Parallel(ctx, n, workers, func(i int) (struct{}, bool) {
			work(i)
			return struct{}{}, ctx.Err() == nil
		}, func(i int, _ struct{}, d int) { p.Notify(i, d, n) })
		return done
	}
}
