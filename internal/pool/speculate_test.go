package pool

import (
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestSpeculateLoop: for random jumps of next and 1 to 4 workers,
// Speculate's outputs and ran flags are the sequential loop's, a job the
// loop skips is never reported as run, and no worker index runs two jobs
// at once.
func TestSpeculateLoop(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(42, 1))
	for trial := range 200 {
		n := rng.IntN(12)
		jumps := make([]int, n) // next(i) = i + jumps[i], a function of i and its output
		for i := range jumps {
			jumps[i] = 1 + rng.IntN(4)
		}
		out := func(i int) int { return i*i + 7 }
		next := func(i, r int) int {
			if r != out(i) {
				t.Errorf("next(%d) given %d, want %d", i, r, out(i))
			}
			return i + jumps[i]
		}
		wantOut, wantRan := make([]int, n), make([]bool, n)
		for i := 0; i < n; i = next(i, wantOut[i]) {
			wantOut[i], wantRan[i] = out(i), true
		}
		for workers := 1; workers <= 4; workers++ {
			var busy [4]atomic.Bool
			run := func(w, i int, skipped func() bool) int {
				if w < 0 || w >= workers || !busy[w].CompareAndSwap(false, true) {
					t.Errorf("worker %d of %d runs job %d while busy or out of range", w, workers, i)
					return -1
				}
				defer busy[w].Store(false)
				// Take a little while, stopping early when skipped: the
				// output returned then is garbage, to be discarded.
				for range steps(i) {
					if skipped() {
						return -2
					}
					time.Sleep(time.Microsecond)
				}
				return out(i)
			}
			got, ran := Speculate(n, workers, run, next)
			if !reflect.DeepEqual(got, wantOut) || !reflect.DeepEqual(ran, wantRan) {
				t.Errorf("trial %d, %d workers, jumps %v: out %v ran %v, want %v %v", trial, workers, jumps, got, ran, wantOut, wantRan)
			}
		}
	}
}

// steps is job i's length in steps of run, varied so that jobs finish out
// of order.
func steps(i int) int { return (i * 7919) % 13 }

// TestSpeculateAhead: with two workers the job after the one in hand runs
// at once with it (job 0 waits for job 1 to start), and when the loop
// skips it, the running job sees skipped() turn true.
func TestSpeculateAhead(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	sawSkip := make(chan bool, 1)
	run := func(_, i int, skipped func() bool) string {
		switch i {
		case 0:
			select {
			case <-started:
				return "0 after 1 started"
			case <-time.After(10 * time.Second):
				return "1 never started"
			}
		case 1:
			close(started)
			deadline := time.Now().Add(10 * time.Second)
			for !skipped() && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			sawSkip <- skipped()
			return "skipped"
		}
		return "ran"
	}
	out, ran := Speculate(3, 2, run, func(i int, _ string) int { return i + 2 })
	if want := []string{"0 after 1 started", "", "ran"}; !reflect.DeepEqual(out, want) || !reflect.DeepEqual(ran, []bool{true, false, true}) {
		t.Errorf("out %q ran %v, want %q [true false true]", out, ran, want)
	}
	if !<-sawSkip {
		t.Error("job 1, skipped by the loop, never saw skipped() turn true")
	}
}

// TestSpeculateNextMustAdvance: a next that does not advance panics
// rather than looping for ever.
func TestSpeculateNextMustAdvance(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%d workers: no panic", workers)
				}
			}()
			Speculate(3, workers, func(_, i int, _ func() bool) int { return i }, func(i, _ int) int { return i })
		}()
	}
}

// TestFork: every function runs once, and two functions that each wait
// for the other to start run at once (with GOMAXPROCS ≥ 2; below, Fork
// runs them in turn on the caller).
func TestFork(t *testing.T) {
	t.Parallel()
	var runs [5]atomic.Int32
	fs := make([]func(), len(runs))
	for i := range fs {
		fs[i] = func() { runs[i].Add(1) }
	}
	Fork(fs...)
	Fork()
	for i := range runs {
		if n := runs[i].Load(); n != 1 {
			t.Errorf("function %d ran %d times, want once", i, n)
		}
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("GOMAXPROCS < 2: Fork runs its functions in turn")
	}
	a, b := make(chan struct{}), make(chan struct{})
	var met [2]bool
	meet := func(mine, other chan struct{}, i int) func() {
		return func() {
			close(mine)
			select {
			case <-other:
				met[i] = true
			case <-time.After(10 * time.Second):
			}
		}
	}
	Fork(meet(a, b, 0), meet(b, a, 1))
	if !met[0] || !met[1] {
		t.Errorf("Fork ran %v, want both at once", met)
	}
}
