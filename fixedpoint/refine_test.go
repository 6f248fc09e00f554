package fixedpoint

import (
	"math"
	"testing"
)

// TestRefine: bisecting a known bracket of P(μ) = μ ≥ √2 converges to √2
// without evaluating either end again.
func TestRefine(t *testing.T) {
	t.Parallel()
	pred := func(mu float64) bool {
		if mu == 1 || mu == 2 {
			t.Errorf("end %v evaluated again", mu)
		}
		return mu >= math.Sqrt2
	}
	r, err := Refine(pred, 1, 2, false, &LocateSettings{RelTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Converged || r.ValueLo || !r.ValueHi || !(r.Lo < math.Sqrt2 && r.Hi >= math.Sqrt2) || r.Hi-r.Lo > 2e-10*r.Hi {
		t.Errorf("bracket [%v, %v] (converged %v), want a 1e-10 bracket of √2", r.Lo, r.Hi, r.Converged)
	}
	// 1/2^n ≤ 1e-10·√2 from width 1: n = 33 bisections (log₂(1/(1.41e-10)) = 32.7).
	if n := len(r.Evaluations); n != 33 {
		t.Errorf("%d evaluations, want 33", n)
	}
	if _, err := Refine(pred, 2, 1, false, nil); err == nil {
		t.Error("empty interval accepted")
	}
}

// TestExtrapolate: the secant predictor is exact on a linear branch and
// pads the shorter vector with zeros.
func TestExtrapolate(t *testing.T) {
	t.Parallel()
	// x(μ) = (μ, 2μ, 1 − μ) at μ = 1 and 2, extrapolated to 2.5; the first
	// point is given without its zero third entry's neighbour (len 2 → 3).
	x0 := []float64{1, 2}
	x1 := []float64{2, 4, 1}
	got := Extrapolate(nil, x0, x1, 1, 2, 2.5)
	want := []float64{2.5, 5, 1.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("x[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Extrapolate(nil, x0, x1, 2, 2, 3); got[0] != 2 || got[2] != 1 {
		t.Errorf("μ0 = μ1: %v, want a copy of x1", got)
	}
}

// TestBorderEstimate: g(μ) = 3(μ − 0.7) is zero at 0.7; a branch followed
// down from μ = 1 meets it there. Unusable inputs say so.
func TestBorderEstimate(t *testing.T) {
	t.Parallel()
	g := func(mu float64) float64 { return 3 * (mu - 0.7) }
	if mu, ok := BorderEstimate(1, g(1), 0.9, g(0.9)); !ok || math.Abs(mu-0.7) > 1e-14 {
		t.Errorf("got %v (%v), want 0.7", mu, ok)
	}
	for _, c := range [][4]float64{{1, 0.5, 0.9, 0.6}, {1, 0.5, 1, 0.4}, {1, 0.5, 0.9, -0.1}, {1, math.NaN(), 0.9, 0.1}} {
		if _, ok := BorderEstimate(c[0], c[1], c[2], c[3]); ok {
			t.Errorf("%v accepted", c)
		}
	}
}
