package sim

import (
	"math"
	"testing"

	"herd/fleet"
)

// The histogram's quantile is within half a bin (0.4%) of the sample's.
func TestResponseHistQuantile(t *testing.T) {
	r := newRNG(7)
	xs := make([]float64, 20000)
	h := newResponseHist()
	for i := range xs {
		xs[i] = r.ExpFloat64() * 3
		h.add(xs[i])
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		got, want := h.quantile(q), quantileOf(xs, q)
		if math.Abs(got/want-1) > TailBinError {
			t.Errorf("q=%g: histogram %g, sample %g: off by more than half a bin", q, got, want)
		}
	}
	if !math.IsNaN(newResponseHist().quantile(0.99)) {
		t.Error("empty histogram: quantile not NaN")
	}
	// Out-of-range times land in the end bins instead of outside the array.
	h.add(1e-300)
	h.add(1e300)
}

// Random dispatching with exponential sizes is N independent M/M/1
// queues: the time in system is exponential with rate 1 − λ, so its 99th
// percentile is ln(100)/(1 − λ). Runs' p99 must agree within Student-t
// bounds (99.9%, runs − 1 d.f.) plus the histogram's half bin.
func TestTailMM1(t *testing.T) {
	const load = 0.8
	c := Config{Servers: 50, Load: load, Policy: fleet.Policy{Kind: fleet.Random}, Horizon: 40000, Tail: true}
	s, err := Replicate(t.Context(), c, 8, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Log(100) / (1 - load)
	const t999 = 5.408 // Student-t 0.9995 quantile, 7 d.f.
	tol := t999*s.ResponseP99.SE + TailBinError*want
	if d := math.Abs(s.ResponseP99.Mean - want); d > tol {
		t.Errorf("p99 %g ± %g, want %g (off by %g > %g)", s.ResponseP99.Mean, s.ResponseP99.SE, want, d, tol)
	}
	// Tail changes no draw: the mean is the same as without it.
	c.Tail = false
	s2, err := Replicate(t.Context(), c, 8, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Response != s.Response || s2.ResponseP99 != (Stat{}) {
		t.Errorf("Tail changed the run: response %v vs %v, p99 without Tail %v", s.Response, s2.Response, s2.ResponseP99)
	}
}
