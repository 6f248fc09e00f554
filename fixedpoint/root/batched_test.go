package root

import (
	"errors"
	"reflect"
	"testing"
)

// result is a test batch's outcome at one point.
type result struct {
	evaluated, in bool
	err           error
}

// loopBatch is a batch evaluator that runs BisectBatched's loop on pred
// one point at a time, counting its batches.
func loopBatch[T any](pred func(x T) (bool, error), batches *int) func(xs []T, next func(int, bool) int) []result {
	return func(xs []T, next func(int, bool) int) []result {
		*batches++
		rs := make([]result, len(xs))
		for t := 0; t < len(xs); {
			in, err := pred(xs[t])
			rs[t] = result{true, in, err}
			if err != nil {
				break
			}
			t = next(t, in)
		}
		return rs
	}
}

func readResult[T any](_ T, r result) (bool, bool, error) { return r.evaluated, r.in, r.err }

// evaluation is one evaluation of the predicate.
type evaluation[T any] struct {
	x  T
	in bool
}

// checkBatched compares BisectBatched with Bisect on pred from (lo, hi)
// by split: the same evaluations in the same order (as both pred and read
// see them), the same ends, and two evaluations a batch but perhaps the
// last.
func checkBatched[T comparable](t *testing.T, name string, pred func(T) bool, lo, hi T, split Split[T]) {
	t.Helper()
	var want, got, read []evaluation[T]
	wantLo, wantHi, err := Bisect(func(x T) (bool, error) {
		want = append(want, evaluation[T]{x, pred(x)})
		return pred(x), nil
	}, lo, hi, split)
	if err != nil {
		t.Fatal(err)
	}
	batches := 0
	gotLo, gotHi, err := BisectBatched(loopBatch(func(x T) (bool, error) {
		got = append(got, evaluation[T]{x, pred(x)})
		return pred(x), nil
	}, &batches), func(x T, r result) (bool, bool, error) {
		if r.evaluated {
			read = append(read, evaluation[T]{x, r.in})
		}
		return readResult(x, r)
	}, lo, hi, split)
	if err != nil || gotLo != wantLo || gotHi != wantHi || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(read, want) {
		t.Errorf("%s: [%v, %v] after %v, read %v (%v); Bisect: [%v, %v] after %v", name, gotLo, gotHi, got, read, err, wantLo, wantHi, want)
	}
	if n := len(want); batches != (n+1)/2 {
		t.Errorf("%s: %d batches for %d evaluations, want %d", name, batches, n, (n+1)/2)
	}
}

// TestBisectBatched: BisectBatched makes Bisect's evaluations in the same
// order and ends with its bracket, two evaluations a batch, for each rule,
// with the predicate holding at either end and thresholds all over the
// bracket.
func TestBisectBatched(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{1.0001, 1.3, 1.5, 1.77, 1.999} {
		up := func(mu float64) bool { return mu >= x }
		down := func(mu float64) bool { return mu < x }
		checkBatched(t, "Finest", up, 1, 2, Finest(1e-6))
		checkBatched(t, "Finest/reversed", down, 2, 1, Finest(1e-6))
		checkBatched(t, "Finest/ulp", up, 1, 2, Finest(0))
		checkBatched(t, "Midpoint", up, 1, 2, Midpoint(0, 1e-10))
		checkBatched(t, "Geometric", up, 1, 2, Geometric(1e-3))
	}
	for _, n := range []int{1, 2, 3, 1000, 1999} {
		checkBatched(t, "Integer", func(m int) bool { return m >= n }, 0, 2000, Integer(1))
	}
	// 1/2^n ≤ 1e-6·2 from width 1: Finest(1e-6) makes at least 19
	// evaluations, so the batches above ran many levels.
	evals := 0
	BisectBatched(loopBatch(func(mu float64) (bool, error) { evals++; return mu >= 1.3, nil }, new(int)), readResult, 1, 2, Finest(1e-6))
	if evals < 19 {
		t.Errorf("%d evaluations, want at least 19", evals)
	}
}

// TestBisectBatchedError: an error of the predicate ends the bisection
// with the bracket as it stood, narrowed by the batch's points evaluated
// before it.
func TestBisectBatchedError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	for _, c := range []struct {
		at     int // the evaluation that fails
		lo, hi float64
	}{
		{1, 0, 1},    // the first midpoint fails: the bracket as given
		{2, 0, 0.5},  // after 1/2 holds
		{3, 0, 0.25}, // after 1/2 and 1/4 hold (the second batch's first)
	} {
		calls := 0
		lo, hi, err := BisectBatched(loopBatch(func(mu float64) (bool, error) {
			if calls++; calls == c.at {
				return false, stop
			}
			return true, nil
		}, new(int)), readResult, 0, 1, Midpoint(1e-9, 0))
		if !errors.Is(err, stop) || lo != c.lo || hi != c.hi || calls != c.at {
			t.Errorf("error at evaluation %d: [%v, %v] (%v) after %d evaluations, want [%v, %v] and the error", c.at, lo, hi, err, calls, c.lo, c.hi)
		}
	}
}
