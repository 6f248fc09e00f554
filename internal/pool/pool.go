// Package pool is herd's one worker pool: a bounded set of goroutines that
// runs indexed work and keeps each result by its index, so that what a
// caller gets never depends on the number of workers or on scheduling.
// The simulator's replications, the model's searches and the command
// line's points all run on it. It imports no herd package, so the
// simulator (which must stay independent of the model) and the model can
// both use it.
package pool

import (
	"context"
	"sync"
)

// Parallel runs work(i) for i in [0, n) on at most workers goroutines (a
// bounded pool) and stores each result by index, so the results
// never depend on the number of workers. work reports false when it was
// cancelled midway; its result is then dropped and its goroutine takes no
// more work. When ctx is cancelled no new call starts, and Parallel
// returns only once every call in flight has returned: a caller may read
// what finished (done[i]) without racing work that still runs. finished,
// if set, is called serially after each call that completed, with the
// count done so far.
func Parallel[R any](ctx context.Context, n, workers int, work func(i int) (R, bool), finished func(i int, r R, done int)) (results []R, done []bool) {
	results = make([]R, n)
	done = make([]bool, n)
	var mu sync.Mutex
	next, count := 0, 0
	var wg sync.WaitGroup
	for w := 0; w < min(max(workers, 1), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n || ctx.Err() != nil {
					return
				}
				r, ok := work(i)
				if !ok {
					return
				}
				mu.Lock()
				results[i], done[i] = r, true
				count++
				if finished != nil {
					finished(i, r, count)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return results, done
}
