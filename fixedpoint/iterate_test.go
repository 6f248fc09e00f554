package fixedpoint

import (
	"errors"
	"math"
	"testing"
)

// padL1 is the L1 distance with the shorter vector padded with zeros.
func padL1(a, b []float64) float64 {
	var d float64
	for i := range max(len(a), len(b)) {
		var x, y float64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		d += math.Abs(x - y)
	}
	return d
}

// TestIterationFixedPoint iterates x ↦ x/2 + 1 to its fixed point 2: the
// run closes with period 1 after the map whose step is within Tol, the
// residuals Visit sees halve, and a jump to the fixed point itself is not
// taken for convergence (one plain map must confirm it).
func TestIterationFixedPoint(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	maps := 0
	half := func(dst, x []float64) ([]float64, error) {
		maps++
		return []float64{x[0]/2 + 1}, nil
	}
	var res []float64
	it := Iteration{Map: half, Tol: tol, Visit: func(r float64) (bool, error) { res = append(res, r); return false, nil }}
	o := NewOrbit(4, []float64{0}, padL1)
	per, err := it.Run(o, 0, 100)
	if err != nil || per != 1 {
		t.Fatalf("period %d, err %v", per, err)
	}
	// |x_{n+1} − x_n| = 2^−n from x_0 = 0: the first step ≤ 1e-9 is n = 30.
	if maps != 31 || len(res) != 30 || math.Abs(o.Back(0)[0]-2) > 2*tol || o.Distance(1) > tol {
		t.Errorf("%d maps, %d visits, x = %v, step %g", maps, len(res), o.Back(0)[0], o.Distance(1))
	}
	for i := 1; i < len(res); i++ {
		if res[i] != res[i-1]/2 {
			t.Fatalf("residual %d: %v after %v, want half", i, res[i], res[i-1])
		}
	}
	maps = 0
	jumps := 0
	it = Iteration{Map: half, Tol: tol, Jump: func(x, fx []float64) []float64 { jumps++; return []float64{2} }}
	if per, err := it.Run(NewOrbit(4, []float64{0}, padL1), 0, 100); per != 1 || err != nil || maps != 2 || jumps != 1 {
		t.Errorf("with a jump: period %d, err %v, %d maps, %d jumps; want 1, nil, 2, 1", per, err, maps, jumps)
	}
}

// TestIterationPeriodAndLength: the map x ↦ (3 − x_0, 0, …) lengthens its
// point by one each map up to the length 3; under the padded L1 distance
// it closes the 2-cycle 0 ↔ 3 after two maps, comparing the points (0, 0,
// 0) and (0) of different lengths.
func TestIterationPeriodAndLength(t *testing.T) {
	t.Parallel()
	flip := func(dst, x []float64) ([]float64, error) {
		out := make([]float64, min(len(x)+1, 3))
		out[0] = 3 - x[0]
		return out, nil
	}
	o := NewOrbit(4, []float64{0}, padL1)
	per, err := Iteration{Map: flip, Tol: 1e-12, Sep: 1e-6}.Run(o, 0, 50)
	if err != nil || per != 2 || o.Len() != 2 || len(o.Back(0)) != 3 || o.Back(0)[0] != 0 {
		t.Errorf("period %d after %d maps (err %v), newest %v; want period 2 after 2", per, o.Len(), err, o.Back(0))
	}
}

// TestIterationEnds: Run stops at maxIter counting from the maps made
// before, when Visit ends it (with or without an error), and on the map's
// error.
func TestIterationEnds(t *testing.T) {
	t.Parallel()
	maps := 0
	grow := func(dst, x []float64) ([]float64, error) {
		maps++
		if maps == 7 {
			return nil, errors.New("outside the domain")
		}
		return []float64{x[0] + 1}, nil
	}
	o := NewOrbit(2, []float64{0}, padL1)
	if per, err := (Iteration{Map: grow, Tol: 0.5}).Run(o, 5, 8); per != 0 || err != nil || maps != 3 {
		t.Errorf("maxIter: period %d, err %v, %d maps; want 0, nil, 3", per, err, maps)
	}
	stop := errors.New("stop")
	visits := 0
	it := Iteration{Map: grow, Tol: 0.5, Visit: func(float64) (bool, error) { visits++; return visits == 2, nil }}
	if per, err := it.Run(o, 0, 100); per != 0 || err != nil || maps != 5 {
		t.Errorf("Visit: period %d, err %v, %d maps; want 0, nil, 5", per, err, maps)
	}
	it.Visit = func(float64) (bool, error) { return false, nil }
	if _, err := it.Run(o, 0, 100); err == nil || err.Error() != "outside the domain" || maps != 7 {
		t.Errorf("map error: %v after %d maps", err, maps)
	}
	it.Visit = func(float64) (bool, error) { return false, stop }
	if _, err := it.Run(o, 0, 100); !errors.Is(err, stop) || maps != 8 {
		t.Errorf("Visit error: %v after %d maps", err, maps)
	}
}
