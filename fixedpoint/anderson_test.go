package fixedpoint

import "testing"

// TestAndersonMixer: driven by hand on a linear contraction x = Ax + b in
// R³ with spectral radius 0.9, the mixer reaches the fixed point to 1e-10
// within 8 steps (Anderson on a linear map is GMRES: exact after n + 1
// steps up to rounding); the plain iteration gains a factor 0.9 a step.
func TestAndersonMixer(t *testing.T) {
	a := [3][3]float64{{0.9, 0.05, 0}, {0, 0.5, 0.1}, {0.02, 0, -0.6}}
	b := []float64{1, -2, 0.5}
	F := func(dst, x []float64) {
		for i := range dst {
			dst[i] = b[i]
			for j := range x {
				dst[i] += a[i][j] * x[j]
			}
		}
	}
	// The fixed point, by plain iteration to rounding.
	want := make([]float64, 3)
	g := make([]float64, 3)
	for range 2000 {
		F(g, want)
		copy(want, g)
	}
	mx := NewAndersonMixer(3, 5, 1e10)
	x := make([]float64, 3)
	steps := 0
	for ; steps < 50; steps++ {
		F(g, x)
		if normInf(sub(g, x)) <= 1e-10 {
			break
		}
		mx.Step(x, g)
	}
	if steps > 8 || normInf(sub(x, want)) > 1e-9 {
		t.Errorf("mixer: %d steps, x = %v, want %v", steps, x, want)
	}
	fresh := NewAndersonMixer(3, 5, 1e10)
	F(g, x)
	if fresh.Step(x, g) {
		t.Error("a new mixer's first step was accelerated")
	}
}

func sub(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}
