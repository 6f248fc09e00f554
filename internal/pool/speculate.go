package pool

import "sync/atomic"

// Speculate returns what the sequential loop
//
//	for i := 0; i < n; i = next(i, out[i]) { out[i] = run(0, i, never) }
//
// computes (never reports false), ran[i] marking the jobs that loop runs,
// on at most workers goroutines. next must return an index above i (n or
// more ends the loop). With workers > 1 the jobs after the one the loop is
// at start at once on the other workers, in index order; a job the loop
// skips is not started, or, when already running, sees skipped() turn
// true and may stop early: its output is discarded (out[i] is the zero R,
// ran[i] false). run receives its worker's index w in [0, workers), so
// that it may use state of that worker's own, and its output must depend
// on its job alone; next is called on the caller's goroutine, in the
// loop's order. So out and ran are the loop's whatever the number of
// workers and the scheduling.
func Speculate[R any](n, workers int, run func(w, i int, skipped func() bool) R, next func(i int, r R) int) (out []R, ran []bool) {
	out = make([]R, n)
	ran = make([]bool, n)
	step := func(i int) int {
		ran[i] = true
		j := next(i, out[i])
		if j <= i {
			panic("pool: Speculate's next does not advance")
		}
		return j
	}
	if workers <= 1 || n <= 1 {
		never := func() bool { return false }
		for i := 0; i < n; i = step(i) {
			out[i] = run(0, i, never)
		}
		return out, ran
	}
	skip := make([]atomic.Bool, n)
	done := make([]chan struct{}, n) // closed when job i ran or was passed over
	for i := range done {
		done[i] = make(chan struct{})
	}
	var taken atomic.Int64
	wait := start(min(workers, n), func(w int) {
		for {
			i := int(taken.Add(1) - 1)
			if i >= n {
				return
			}
			if !skip[i].Load() {
				out[i] = run(w, i, skip[i].Load)
			}
			close(done[i])
		}
	})
	for i := 0; i < n; {
		<-done[i]
		j := step(i)
		for s := i + 1; s < min(j, n); s++ {
			skip[s].Store(true)
		}
		i = j
	}
	wait()
	var zero R
	for i := range out {
		if !ran[i] {
			out[i] = zero
		}
	}
	return out, ran
}
