package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestParallelWaitsOnCancel: after a cancellation, parallel returns only
// once the calls in flight have returned, so the caller may read the
// results (herd hysteresis' plot did, while a worker still wrote them:
// a data race that go test -race reports). A pool that returns at once
// leaves a call running: inFlight is then 1 and the read below races.
func TestParallelWaitsOnCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	results := make([]int, 4)
	var inFlight, started atomic.Int32
	go func() {
		for started.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	done := parallel(ctx, len(results), 2, func(i int) {
		inFlight.Add(1)
		started.Add(1)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond)
		results[i] = i + 1
		inFlight.Add(-1)
	}, nil)
	if n := inFlight.Load(); n != 0 {
		t.Errorf("parallel returned with %d calls in flight, want 0", n)
	}
	sum := 0
	for i, r := range results {
		sum += r
		if done[i] {
			t.Errorf("call %d reported finished, though it returned after the cancellation", i)
		}
	}
	if sum == 0 {
		t.Errorf("no call wrote its result before parallel returned")
	}
}
