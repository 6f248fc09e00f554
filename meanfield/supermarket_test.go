package meanfield

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSupermarketResponseIssue4 checks the live SQ(2) mean times of issue 4
// (1.26569, 2.61406, 5.43200, quoted to 5 decimals) from the closed form,
// and that the transient from the empty system reaches the same value.
func TestSupermarketResponseIssue4(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		load    float64
		want    float64 // issue 4, rounded to 5 decimals
		horizon float64 // long enough to relax to 1e-9 (measured)
	}{
		{"λ=0.5", 0.5, 1.26569, 200},
		{"λ=0.9", 0.9, 2.61406, 400},
		{"λ=0.99", 0.99, 5.43200, 4000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SupermarketResponse(2, tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(got - tc.want); d > 5e-6 { // half a unit in the 5th decimal
				t.Errorf("closed form: got %.9f, want %.5f (diff %.2g)", got, tc.want, d)
			}
			res, err := SupermarketTransient{D: 2, Load: tc.load}.Run(nil, tc.horizon)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(res.Response - got); d > 1e-8 {
				t.Errorf("transient at t = %v: got %.12f, closed form %.12f (diff %.2g)", tc.horizon, res.Response, got, d)
			}
			fp, err := SupermarketTails(2, tc.load, 0)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i := range max(len(fp), len(res.Tails)) {
				var a, b float64
				if i < len(fp) {
					a = fp[i]
				}
				if i < len(res.Tails) {
					b = res.Tails[i]
				}
				worst = max(worst, math.Abs(a-b))
			}
			if worst > 1e-8 {
				t.Errorf("tails at t = %v differ from the fixed point by %.2g", tc.horizon, worst)
			}
			t.Logf("λ = %v: closed form %.7f, transient %.7f, %d steps (%d rejected), truncation %.1g", tc.load, got, res.Response, res.Steps, res.Rejected, res.Truncation)
		})
	}
}

// TestSupermarketDriftFixedPoint checks that the drift vanishes at the
// closed-form fixed point s_i = λ^((d^i−1)/(d−1)) (VDK 1996).
func TestSupermarketDriftFixedPoint(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 2, 3, 5} {
		for _, load := range []float64{0.5, 0.9} {
			s, err := SupermarketTails(d, load, 1e-300)
			if err != nil {
				t.Fatal(err)
			}
			ds := SupermarketDrift(make([]float64, len(s)), s, d, load)
			var worst float64
			for _, v := range ds {
				worst = max(worst, math.Abs(v))
			}
			// The last level loses s_{n+1} < 1e-300; the rest is rounding.
			if worst > 1e-15 {
				t.Errorf("d = %d, λ = %v: max |ds/dt| = %.2g at the fixed point", d, load, worst)
			}
		}
	}
}

// TestSupermarketTransientMM1 checks d = 1 (the M/M/1 forward equations in
// tail form) against the exact M/M/1 transient by uniformisation (the
// periodic-update map with random dispatching propagates the board as one
// M/M/1 chain), and its limit λ/(1 − λ) (Kleinrock 1975, §3.2).
func TestSupermarketTransientMM1(t *testing.T) {
	t.Parallel()
	const load = 0.9
	for _, horizon := range []float64{1, 5, 20} {
		ode, err := SupermarketTransient{D: 1, Load: load, Tol: 1e-12}.Run(nil, horizon)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewPeriodicMap(PeriodicUpdate{Policy: UpdateRandom, Load: load, Period: horizon})
		if err != nil {
			t.Fatal(err)
		}
		st, err := m.Apply(nil, []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		var mean, tail, worst float64
		for q := len(st.Next) - 1; q >= 1; q-- {
			mean += float64(q) * st.Next[q]
		}
		// Compare tails s_i = P(q ≥ i).
		tails := make([]float64, len(st.Next)+1)
		for q := len(st.Next) - 1; q >= 0; q-- {
			tail += st.Next[q]
			tails[q] = tail
		}
		for i := range min(len(tails), len(ode.Tails)) {
			worst = max(worst, math.Abs(tails[i]-ode.Tails[i]))
		}
		if d := math.Abs(mean - ode.QueueMean); d > 1e-9 || worst > 1e-9 {
			t.Errorf("t = %v: ODE mean %.12f, uniformisation %.12f (diff %.2g), max tail diff %.2g", horizon, ode.QueueMean, mean, d, worst)
		}
	}
	res, err := SupermarketTransient{D: 1, Load: 0.5}.Run(nil, 400)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.5 / (1 - 0.5); math.Abs(res.QueueMean-want) > 1e-8 { // M/M/1 λ/(1 − λ)
		t.Errorf("d = 1, λ = 0.5, t = 400: queue %.12f, want %v", res.QueueMean, want)
	}
}

// TestSupermarketTransientTol shows step-size convergence: the change from
// halving Tol, and the error against a run at Tol = 1e-13, stay below the
// accumulated local error estimate.
func TestSupermarketTransientTol(t *testing.T) {
	t.Parallel()
	const load, horizon = 0.9, 20 // mid-transient from empty
	ref, err := SupermarketTransient{D: 2, Load: load, Tol: 1e-13}.Run(nil, horizon)
	if err != nil {
		t.Fatal(err)
	}
	prevSteps := 0
	for _, tol := range []float64{1e-4, 1e-6, 1e-8, 1e-10} {
		a, err := SupermarketTransient{D: 2, Load: load, Tol: tol}.Run(nil, horizon)
		if err != nil {
			t.Fatal(err)
		}
		b, err := SupermarketTransient{D: 2, Load: load, Tol: tol / 2}.Run(nil, horizon)
		if err != nil {
			t.Fatal(err)
		}
		half := math.Abs(a.QueueMean - b.QueueMean)
		truth := math.Abs(a.QueueMean - ref.QueueMean)
		if half > a.ErrorEstimate || truth > a.ErrorEstimate {
			t.Errorf("Tol %g: |Δ halving| = %.2g, |error| = %.2g, estimate %.2g", tol, half, truth, a.ErrorEstimate)
		}
		if a.Steps <= prevSteps {
			t.Errorf("Tol %g: %d steps, not more than at the looser Tol (%d)", tol, a.Steps, prevSteps)
		}
		prevSteps = a.Steps
		t.Logf("Tol %g: queue %.12f, steps %d, |Δ halving| %.2g, |error| %.2g, estimate %.2g", tol, a.QueueMean, a.Steps, half, truth, a.ErrorEstimate)
	}
}

// TestSupermarketTransientStart checks that the fixed point stays put and
// that a loaded start drains to it (truncation reported and small).
func TestSupermarketTransientStart(t *testing.T) {
	t.Parallel()
	fp, err := SupermarketTails(2, 0.9, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := SupermarketResponse(2, 0.9)
	res, err := SupermarketTransient{D: 2, Load: 0.9}.Run(fp, 50)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(res.Response - want); d > 1e-9 || res.Drift > 1e-9 {
		t.Errorf("from the fixed point: response %.12f, want %.12f; drift %.2g", res.Response, want, res.Drift)
	}
	loaded := make([]float64, 31) // every server holds 30 jobs
	for i := range loaded {
		loaded[i] = 1
	}
	res, err = SupermarketTransient{D: 2, Load: 0.9}.Run(loaded, 600)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(res.Response - want); d > 1e-8 || res.Truncation > 1e-9 {
		t.Errorf("from 30 jobs each: response %.12f, want %.12f; truncation %.2g", res.Response, want, res.Truncation)
	}
}

func TestSupermarketTransientValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    SupermarketTransient
		s0   []float64
		t    float64
		want string
	}{
		{"D", SupermarketTransient{D: 0, Load: 0.9}, nil, 1, "D = 0"},
		{"Load", SupermarketTransient{D: 2, Load: 1}, nil, 1, "Load = 1"},
		{"Tol", SupermarketTransient{D: 2, Load: 0.9, Tol: 0.1}, nil, 1, "Tol = 0.1"},
		{"Cut", SupermarketTransient{D: 2, Load: 0.9, Cut: 1e-3}, nil, 1, "Cut = 0.001"},
		{"MaxSteps", SupermarketTransient{D: 2, Load: 0.9, MaxSteps: -1}, nil, 1, "MaxSteps = -1"},
		{"t", SupermarketTransient{D: 2, Load: 0.9}, nil, -1, "t = -1"},
		{"s0[0]", SupermarketTransient{D: 2, Load: 0.9}, []float64{0.5}, 1, "s_0 = 1"},
		{"increasing", SupermarketTransient{D: 2, Load: 0.9}, []float64{1, 0.2, 0.3}, 1, "s_2"},
	}
	for _, tc := range cases {
		_, err := tc.s.Run(tc.s0, tc.t)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
	_, err := SupermarketTransient{D: 2, Load: 0.9, MaxSteps: 10}.Run(nil, 100)
	if !errors.Is(err, ErrNotConverged) {
		t.Errorf("MaxSteps 10: got %v, want ErrNotConverged", err)
	}
}
