package main

import (
	"context"
	"sync"
)

// parallel calls work(i) for i in [0, n) on at most workers goroutines
// (a bounded pool) and reports which calls finished. Work writes its result
// by index, so the output never depends on the number of workers. When ctx
// is cancelled no new call starts and parallel returns at once, without
// waiting for calls in flight (they cannot be interrupted; their results
// are dropped). progress, if set, is called serially after each call.
func parallel(ctx context.Context, n, workers int, work func(i int), progress func(done, total int)) []bool {
	done := make([]bool, n)
	if workers < 1 {
		workers = 1
	}
	var mu sync.Mutex
	next, finished := 0, 0
	all := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
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
				work(i)
				mu.Lock()
				if ctx.Err() == nil {
					done[i] = true
					finished++
					if progress != nil {
						progress(finished, n)
					}
				}
				mu.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]bool(nil), done...)
}
