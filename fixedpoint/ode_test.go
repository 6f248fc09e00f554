package fixedpoint

import (
	"errors"
	"math"
	"testing"
)

// TestDormandPrinceClosedForm integrates y' = −y and the damped rotation
// y' = (−0.1y₁ − y₂, y₁ − 0.1y₂) against their closed forms, and checks
// that the error falls with the tolerance.
func TestDormandPrinceClosedForm(t *testing.T) {
	t.Parallel()
	decay := func(dy, y []float64) { dy[0] = -y[0] }
	rot := func(dy, y []float64) { dy[0], dy[1] = -0.1*y[0]-y[1], y[0]-0.1*y[1] }
	const end = 10
	prev := math.Inf(1)
	for _, tol := range []float64{1e-6, 1e-9, 1e-12} {
		steps := 0
		count := func(_, _, _ []float64, _ float64) { steps++ }
		y, err := NewDormandPrince(decay).Integrate([]float64{1}, end, Adaptive{Tol: tol, MaxSteps: 10000, Accept: count})
		if err != nil || y.Time != end {
			t.Fatalf("tol %g: %v at t = %v", tol, err, y.Time)
		}
		errDecay := math.Abs(y.Y[0] - math.Exp(-end))
		z, err := NewDormandPrince(rot).Integrate([]float64{1, 0}, end, Adaptive{Tol: tol, MaxSteps: 10000})
		if err != nil {
			t.Fatal(err)
		}
		g := math.Exp(-0.1 * end)
		errRot := max(math.Abs(z.Y[0]-g*math.Cos(end)), math.Abs(z.Y[1]-g*math.Sin(end)))
		t.Logf("tol %g: %d steps (%d rejected), errors %.3g (decay), %.3g (rotation)", tol, steps, y.Rejected, errDecay, errRot)
		if errDecay > 100*tol || errRot > 100*tol {
			t.Errorf("tol %g: errors %.3g, %.3g above 100·tol", tol, errDecay, errRot)
		}
		if e := max(errDecay, errRot); !(e < prev) {
			t.Errorf("tol %g: error %.3g not below %.3g at the looser tolerance", tol, e, prev)
		} else {
			prev = e
		}
	}
}

// TestDormandPrinceOrder takes fixed steps on y' = −y: halving h divides
// the global error by about 2⁵ (a fifth-order solution), and the error
// estimate of one step is of the size of its true local error.
func TestDormandPrinceOrder(t *testing.T) {
	t.Parallel()
	run := func(h float64) float64 {
		w := NewDormandPrince(func(dy, y []float64) { dy[0] = -y[0] })
		y := []float64{1}
		w.Start(y)
		for i := 0; i < int(math.Round(1/h)); i++ {
			w.step(y, h, 1, 1)
			w.accept(y)
			if d := w.Derivative()[0]; d != -y[0] {
				t.Fatalf("FSAL derivative %v at y = %v", d, y[0])
			}
		}
		return math.Abs(y[0] - math.Exp(-1))
	}
	e1, e2 := run(0.1), run(0.05)
	if r := e1 / e2; r < 25 || r > 40 {
		t.Errorf("error ratio %.3g on halving h (%.3g, %.3g), want ≈ 32", r, e1, e2)
	}
	w := NewDormandPrince(func(dy, y []float64) { dy[0] = -y[0] })
	y := []float64{1}
	w.Start(y)
	w.step(y, 0.5, 1, 1)
	local := math.Abs(w.ynew[0] - math.Exp(-0.5))
	if est := math.Abs(w.errv[0]); !(est > local && est < 100*local) || y[0] != 1 {
		t.Errorf("estimate %.3g, local error %.3g of the fifth-order step; y %v", est, local, y[0])
	}
	if w.Evaluations() != 7 {
		t.Errorf("%d evaluations for one step, want 7 (FSAL: 1 + 6)", w.Evaluations())
	}
}

// TestIntegrateTruncated runs y' = −y + shift(y) (each component fed by
// the one before, y_0 by a unit source: the solution spreads like a
// queue's tail) on a vector that Fit and Retry keep just long enough, and
// checks it against the same system on a long fixed vector.
func TestIntegrateTruncated(t *testing.T) {
	t.Parallel()
	f := func(dy, y []float64) {
		prev := 1.0
		for i, v := range y {
			dy[i] = prev - v
			prev = v
		}
	}
	const end, cut = 3, 1e-12
	full, err := NewDormandPrince(f).Integrate(make([]float64, 40), end, Adaptive{Tol: 1e-10, MaxSteps: 10000})
	if err != nil {
		t.Fatal(err)
	}
	retries, fits := 0, 0
	a := Adaptive{Tol: 1e-10, MaxSteps: 10000,
		Fit: func(y []float64) []float64 {
			fits++
			for len(y) == 0 || math.Abs(y[len(y)-1]) >= cut {
				y = append(y, 0)
			}
			return y
		},
		Retry: func(y, next []float64) []float64 {
			if math.Abs(next[len(next)-1]) < cut {
				return nil
			}
			retries++
			return append(y, 0, 0, 0, 0)
		},
	}
	cutRun, err := NewDormandPrince(f).Integrate(nil, end, a)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cutRun.Y); n < 10 || n >= 40 || retries == 0 || fits < 2 {
		t.Fatalf("truncated run: %d levels, %d retries, %d fits", n, retries, fits)
	}
	for i, v := range full.Y {
		var c float64
		if i < len(cutRun.Y) {
			c = cutRun.Y[i]
		}
		if math.Abs(v-c) > 1e-9 {
			t.Errorf("level %d: truncated %.12g, full %.12g", i, c, v)
		}
	}
	// y_0 = 1 − e^−t in closed form.
	if d := math.Abs(full.Y[0] - (1 - math.Exp(-end))); d > 1e-9 {
		t.Errorf("y_0 off the closed form by %.3g", d)
	}
}

// TestIntegrateStops: the step budget and a step size that underflows
// (y' = y², whose solution 1/(1 − t) from y = 1 blows up at t = 1) end
// Integrate with a StepError at the time reached.
func TestIntegrateStops(t *testing.T) {
	t.Parallel()
	decay := func(dy, y []float64) { dy[0] = -y[0] }
	out, err := NewDormandPrince(decay).Integrate([]float64{1}, 100, Adaptive{Tol: 1e-10, MaxSteps: 5})
	var se *StepError
	if !errors.As(err, &se) || !errors.Is(err, ErrNotConverged) || se.Tried != 5 || se.Step != 0 || !(out.Time > 0 && out.Time < 100) || se.Time != out.Time {
		t.Errorf("budget: %v, time %v", err, out.Time)
	}
	blow := func(dy, y []float64) { dy[0] = y[0] * y[0] }
	out, err = NewDormandPrince(blow).Integrate([]float64{1}, 2, Adaptive{Tol: 1e-10, MaxSteps: 100000})
	if !errors.As(err, &se) || !(se.Step > 0 && se.Step < 1e-12) || !(out.Time > 0.99 && out.Time < 1) || out.Rejected == 0 {
		t.Errorf("underflow: %v, time %v, %d rejected", err, out.Time, out.Rejected)
	}
	if out, err := NewDormandPrince(decay).Integrate([]float64{2}, 0, Adaptive{Tol: 1e-10}); err != nil || out.Y[0] != 2 {
		t.Errorf("t = 0: %v, y %v", err, out.Y)
	}
}

// TestStepControl checks the step-size factors of HNW (4.13).
func TestStepControl(t *testing.T) {
	t.Parallel()
	cases := []struct{ got, want float64 }{
		{shrinkStep(1, math.NaN()), 0.2},
		{shrinkStep(1, 1e6), 0.2},
		{shrinkStep(2, 32), 2 * 0.9 / 2},
		{growStep(1, 0, false), 5},
		{growStep(1, 0, true), 1},
		{growStep(1, 1, false), 0.9},
	}
	for i, c := range cases {
		if math.Abs(c.got-c.want) > 1e-15 {
			t.Errorf("case %d: %v, want %v", i, c.got, c.want)
		}
	}
}
