package root

import (
	"errors"
	"reflect"
	"testing"
)

// TestLadder: a ladder is the loop x = step(x)'s points to the bit, from
// excluded, up to the first point step refuses.
func TestLadder(t *testing.T) {
	t.Parallel()
	up := Ladder(1.0, func(x float64) (float64, bool) { x *= 1.5; return x, x <= 10 })
	if want := []float64{1.5, 2.25, 3.375, 5.0625, 7.59375}; !reflect.DeepEqual(up, want) {
		t.Errorf("×1.5 from 1 to 10: %v, want %v", up, want)
	}
	// x/1.5 is not x·(1/1.5): the ladder applies step, nothing else.
	down := Ladder(0.7, func(x float64) (float64, bool) { x /= 1.5; return x, x >= 0.01 })
	x := 0.7
	for i, y := range down {
		if x /= 1.5; y != x {
			t.Errorf("÷1.5 point %d: %v, want %v", i, y, x)
		}
	}
	if x/1.5 >= 0.01 || len(down) == 0 {
		t.Errorf("÷1.5 from 0.7 to 0.01: %v ends early", down)
	}
	if got := Ladder(20.0, func(x float64) (float64, bool) { x *= 2; return x, x <= 10 }); len(got) != 0 {
		t.Errorf("first step refused: %v, want none", got)
	}
}

// TestWalk: Walk evaluates the points in order up to the first where the
// predicate holds, and no further; len(xs) when it holds at none.
func TestWalk(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 4, 8, 16}
	for _, c := range []struct {
		at   float64 // the predicate holds from here
		want int
	}{{0, 0}, {1, 0}, {3, 2}, {16, 4}, {17, 5}} {
		var seen []float64
		i, err := Walk(func(x float64) (bool, error) {
			seen = append(seen, x)
			return x >= c.at, nil
		}, xs)
		if err != nil || i != c.want || !reflect.DeepEqual(seen, xs[:min(c.want+1, len(xs))]) {
			t.Errorf("holds from %v: index %d after %v (%v), want %d after %v", c.at, i, seen, err, c.want, xs[:min(c.want+1, len(xs))])
		}
	}
	if i, err := Walk(func(float64) (bool, error) { return true, nil }, nil); i != 0 || err != nil {
		t.Errorf("no points: %d (%v), want 0", i, err)
	}
	stop := errors.New("stop")
	calls := 0
	i, err := Walk(func(x float64) (bool, error) {
		if calls++; x == 4 {
			return false, stop
		}
		return false, nil
	}, xs)
	if !errors.Is(err, stop) || i != 2 || calls != 3 {
		t.Errorf("error at 4: index %d after %d evaluations (%v), want 2 after 3 and the error", i, calls, err)
	}
}

// TestWalkBatched: WalkBatched makes Walk's evaluations in Walk's order,
// in one batch, and read sees them in that order; an error ends it at
// its point.
func TestWalkBatched(t *testing.T) {
	t.Parallel()
	xs := []float64{1, 2, 4, 8, 16}
	for _, at := range []float64{0, 3, 16, 17} {
		var want, got, read []evaluation[float64]
		wantI, _ := Walk(func(x float64) (bool, error) {
			want = append(want, evaluation[float64]{x, x >= at})
			return x >= at, nil
		}, xs)
		batches := 0
		i, err := WalkBatched(loopBatch(func(x float64) (bool, error) {
			got = append(got, evaluation[float64]{x, x >= at})
			return x >= at, nil
		}, &batches), func(x float64, r result) (bool, bool, error) {
			if r.evaluated {
				read = append(read, evaluation[float64]{x, r.in})
			}
			return readResult(x, r)
		}, xs)
		if err != nil || i != wantI || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(read, want) || batches != 1 {
			t.Errorf("holds from %v: index %d after %v, read %v, %d batches (%v); Walk: %d after %v", at, i, got, read, batches, err, wantI, want)
		}
	}
	stop := errors.New("stop")
	i, err := WalkBatched(loopBatch(func(x float64) (bool, error) {
		if x == 8 {
			return false, stop
		}
		return false, nil
	}, new(int)), readResult, xs)
	if !errors.Is(err, stop) || i != 3 {
		t.Errorf("error at 8: index %d (%v), want 3 and the error", i, err)
	}
	if i, err := WalkBatched(loopBatch(func(float64) (bool, error) { return true, nil }, new(int)), readResult, []float64{}); i != 0 || err != nil {
		t.Errorf("no points: %d (%v), want 0", i, err)
	}
}
