// Package pool is herd's one worker pool: a bounded set of goroutines that
// runs indexed work and keeps each result by its index, so that what a
// caller gets never depends on the number of workers or on scheduling.
// The simulator's replications, the model's searches and the command
// line's points all run on it (Parallel); so do the model's sequential
// loops whose later steps start early on idle workers (Speculate),
// independent computations done at once (Fork), and the bracket's search,
// whose caller starts, pauses and resumes tasks as their events come in
// (Group). It imports no herd package, so the simulator (which must stay
// independent of the model) and the model can both use it.
package pool

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
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
	start(min(max(workers, 1), n), func(int) {
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
	})()
	return results, done
}

// Fork runs the independent computations fs at once and returns once all
// have returned. The caller and len(fs) − 1 goroutines take the fs in
// turn, each f run by whichever takes it first: on a machine with no idle
// core the caller runs them all itself, never waiting for a goroutine to
// be scheduled, and with GOMAXPROCS below 2 no goroutine starts. Callers
// give the fs disjoint outputs, so results do not depend on which
// goroutine ran what.
func Fork(fs ...func()) {
	if runtime.GOMAXPROCS(0) < 2 {
		for _, f := range fs {
			f()
		}
		return
	}
	var next atomic.Int64
	var done sync.WaitGroup // the fs that have returned
	done.Add(len(fs))
	take := func(int) {
		for i := int(next.Add(1) - 1); i < len(fs); i = int(next.Add(1) - 1) {
			fs[i]()
			done.Done()
		}
	}
	// The goroutines are not waited for: one that starts after every f
	// has been taken finds none left and ends.
	start(len(fs)-1, take)
	take(0)
	done.Wait()
}

// start runs body(w) for each worker w in [0, k) on a goroutine of its
// own and returns a function that waits until every body has returned:
// the one place where the pool's goroutines begin.
func start(k int, body func(w int)) (wait func()) {
	var wg sync.WaitGroup
	for w := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(w)
		}()
	}
	return wg.Wait
}
