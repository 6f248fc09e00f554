package fixedpoint

import (
	"math"
	"slices"
	"testing"
)

// TestSweepStarts checks Sweep's warm and cold starts without Bisect: each
// μ starts from the previous point when that point is on the branch (here:
// μ < 3), from nil otherwise, every μ is corrected, and the result keeps
// the points on the branch.
func TestSweepStarts(t *testing.T) {
	t.Parallel()
	var guesses [][]float64
	correct := func(mu float64, guess []float64, _ bool) (BranchPoint, bool, error) {
		guesses = append(guesses, guess)
		return BranchPoint{Mu: mu, X: []float64{10 * mu}}, mu < 3, nil
	}
	mus := []float64{2, 3.5, 2.5, 1}
	sw, err := Sweep(correct, nil, mus, &SweepSettings{Predict: func(last BranchPoint, mu float64) []float64 {
		return []float64{last.X[0] + mu}
	}})
	if err != nil {
		t.Fatal(err)
	}
	// Cold; from 2 (20 + 3.5); cold after the loss at 3.5; from 2.5 (25 + 1).
	want := [][]float64{nil, {23.5}, nil, {26}}
	for i := range want {
		if !slices.Equal(guesses[i], want[i]) {
			t.Errorf("guess at μ = %v: got %v, want %v", mus[i], guesses[i], want[i])
		}
	}
	if len(sw.Points) != 3 || sw.Steps != 4 || sw.Lost || sw.Last().Mu != 1 {
		t.Errorf("got %d points in %d steps, lost %v, last μ %v; want 3 in 4, false, 1", len(sw.Points), sw.Steps, sw.Lost, sw.Last().Mu)
	}
}

// TestGeometricGrid checks both directions, the clipped end and the empty
// grid.
func TestGeometricGrid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		from, to, r float64
		want        []float64
	}{
		{"up", 1, 5, 2, []float64{2, 4, 5}},
		{"down", 8, 1.5, 2, []float64{4, 2, 1.5}},
		{"exact end", 1, 4, 2, []float64{2, 4}},
		{"empty", 3, 3, 2, nil},
	} {
		if got := GeometricGrid(c.from, c.to, c.r); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	if err := (&SweepSettings{Bisect: math.NaN()}).Validate(); err == nil {
		t.Error("Bisect = NaN accepted")
	}
}

// TestSweepNothingOnBranch checks that a Bisect sweep whose first cold
// point is off the branch ends there: nothing to bisect from.
func TestSweepNothingOnBranch(t *testing.T) {
	t.Parallel()
	off := func(mu float64, _ []float64, _ bool) (BranchPoint, bool, error) {
		return BranchPoint{Mu: mu}, false, nil
	}
	sw, err := Sweep(off, nil, []float64{1, 2}, &SweepSettings{Bisect: 0.01})
	if err != nil || len(sw.Points) != 0 || !sw.Lost || sw.LostAt != 1 || sw.Steps != 1 {
		t.Errorf("got %d points, lost %v at %v after %d steps, error %v; want 0 points, lost at 1 after 1 step", len(sw.Points), sw.Lost, sw.LostAt, sw.Steps, err)
	}
}
