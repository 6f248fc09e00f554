package meanfield

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// cfRelDiff returns |got − want|/|want| (|got − want| when want is 0).
func cfRelDiff(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// cfSigmaByIteration is an independent witness for GI/M/1 roots: the plain
// fixed-point iteration σ ← A*(1 − σ) from σ = 0 increases monotonically to
// the smallest root in [0, 1], which is the GI/M/1 root when λ < 1
// (Kleinrock 1975, Vol. 1, §6.4). It stops when a step no longer changes σ.
func cfSigmaByIteration(lst func(float64) float64) float64 {
	sigma := 0.0
	for range 1_000_000 {
		next := lst(1 - sigma)
		if next == sigma {
			break
		}
		sigma = next
	}
	return sigma
}

func cfErlangLST(n int, load float64) func(float64) float64 {
	return func(s float64) float64 {
		return math.Pow(float64(n)*load/(float64(n)*load+s), float64(n))
	}
}

func TestClosedFormMM1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		load            float64
		response, queue float64
	}{
		// validation.md, closed forms: M/M/1 1/(1−λ) = 10 at λ = 0.9;
		// queue λ/(1−λ) = 9.
		{name: "load=0.9", load: 0.9, response: 10, queue: 9},
		// 1/(1−λ) and λ/(1−λ) at λ = 0.5.
		{name: "load=0.5", load: 0.5, response: 2, queue: 1},
		// 1/(1−λ) and λ/(1−λ) at λ = 0.99.
		{name: "load=0.99", load: 0.99, response: 100, queue: 99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := MM1Response(tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if d := cfRelDiff(r, tc.response); d > 1e-13 {
				t.Errorf("MM1Response(%v) = %v, want %v (relative difference %g)", tc.load, r, tc.response, d)
			}
			q, err := MM1Queue(tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if d := cfRelDiff(q, tc.queue); d > 1e-13 {
				t.Errorf("MM1Queue(%v) = %v, want %v (relative difference %g)", tc.load, q, tc.queue, d)
			}
			// Little's law: E[Q] = λ E[T].
			if d := cfRelDiff(q, tc.load*r); d > 1e-15 {
				t.Errorf("Little: MM1Queue = %v, λ·MM1Response = %v (relative difference %g)", q, tc.load*r, d)
			}
		})
	}
}

func TestClosedFormValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		call  func() error
		param string // the parameter the message must name
	}{
		{"MM1Response/load=0", func() error { _, err := MM1Response(0); return err }, "load"},
		{"MM1Response/load=1", func() error { _, err := MM1Response(1); return err }, "load"},
		{"MM1Queue/load=-0.1", func() error { _, err := MM1Queue(-0.1); return err }, "load"},
		{"MM1Queue/load=NaN", func() error { _, err := MM1Queue(math.NaN()); return err }, "load"},
		{"SupermarketTails/d=0", func() error { _, err := SupermarketTails(0, 0.9, 0); return err }, "choices d"},
		{"SupermarketTails/load=1.5", func() error { _, err := SupermarketTails(2, 1.5, 0); return err }, "load"},
		{"SupermarketTails/tol=1", func() error { _, err := SupermarketTails(2, 0.9, 1); return err }, "tol"},
		{"SupermarketTails/tol=-1", func() error { _, err := SupermarketTails(2, 0.9, -1); return err }, "tol"},
		// d = 1 at λ = 1 − 10⁻⁷ needs log(10⁻¹⁶)/log(λ) ≈ 3.7e8 levels.
		{"SupermarketTails/too-long", func() error { _, err := SupermarketTails(1, 1-1e-7, 0); return err }, "levels"},
		{"SupermarketResponse/d=-1", func() error { _, err := SupermarketResponse(-1, 0.9); return err }, "choices d"},
		{"SupermarketResponse/load=1", func() error { _, err := SupermarketResponse(2, 1); return err }, "load"},
		{"GIM1/load=1", func() error { _, err := GIM1(cfErlangLST(2, 1), 1); return err }, "load"},
		{"ErlangM1/n=0", func() error { _, err := ErlangM1(0, 0.9); return err }, "phases n"},
		{"ErlangM1/load=0", func() error { _, err := ErlangM1(2, 0); return err }, "load"},
		{"DM1/load=1", func() error { _, err := DM1(1); return err }, "load"},
		{"SecondMomentH2/C=0.5", func() error { _, err := SecondMomentH2(0.5); return err }, "C"},
		{"SecondMomentH2/C=NaN", func() error { _, err := SecondMomentH2(math.NaN()); return err }, "C"},
		{"SecondMomentPareto/alpha=1", func() error { _, err := SecondMomentPareto(1); return err }, "α"},
		{"SecondMomentPareto/alpha=0.5", func() error { _, err := SecondMomentPareto(0.5); return err }, "α"},
		{"PKResponse/load=1", func() error { _, err := PKResponse(1, 2); return err }, "load"},
		{"PKResponse/moment=0.5", func() error { _, err := PKResponse(0.9, 0.5); return err }, "E[S²]"},
		{"PKResponse/moment=NaN", func() error { _, err := PKResponse(0.9, math.NaN()); return err }, "E[S²]"},
		{"SupermarketRoundRobinCrossing/d=1", func() error { _, err := SupermarketRoundRobinCrossing(1); return err }, "choices d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.call()
			if err == nil {
				t.Fatal("got nil error, want a validation error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "meanfield: ") || !strings.Contains(msg, tc.param) {
				t.Errorf("error %q: want prefix %q naming %q", msg, "meanfield: ", tc.param)
			}
			if errors.Is(err, ErrNotConverged) {
				t.Errorf("error %q wraps ErrNotConverged, want a validation error", msg)
			}
		})
	}
}

func TestSupermarketTails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		d    int
		load float64
		tol  float64
		head []float64 // leading tails, when given
	}{
		// d = 1: s_i = λ^i (M/M/1).
		{name: "d=1/load=0.9", d: 1, load: 0.9, head: []float64{1, 0.9, 0.81, 0.729}},
		// d = 2: s_i = λ^(2^i − 1): 1, λ, λ³, λ⁷ (VDK fixed point).
		{name: "d=2/load=0.9", d: 2, load: 0.9, head: []float64{1, 0.9, 0.729, 0.4782969}},
		// d = 3: s_i = λ^((3^i − 1)/2): 1, λ, λ⁴, λ¹³.
		{name: "d=3/load=0.5", d: 3, load: 0.5, head: []float64{1, 0.5, 0.0625, 0x1p-13}},
		// d = 2 at λ = 0.5 cut at 10⁻⁶: 1, 2⁻¹, 2⁻³, 2⁻⁷, 2⁻¹⁵ (2⁻³¹ < 10⁻⁶).
		{name: "d=2/load=0.5/tol=1e-6", d: 2, load: 0.5, tol: 1e-6, head: []float64{1, 0.5, 0.125, 0x1p-7, 0x1p-15}},
		// d = 10 and λ = 0.99 (exponents 1, 11, 111, ...).
		{name: "d=10/load=0.99", d: 10, load: 0.99},
		// d = 2 near saturation.
		{name: "d=2/load=0.999", d: 2, load: 0.999},
		// d near the int64 limit: s_1 = λ, s_2 = λ^(1+d) underflows.
		{name: "d=2^62/load=0.9", d: 1 << 62, load: 0.9, head: []float64{1, 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := SupermarketTails(tc.d, tc.load, tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			tol := tc.tol
			if tol == 0 {
				tol = SupermarketCutoff
			}
			if len(s) < 2 || s[0] != 1 {
				t.Fatalf("tails %v: want s_0 = 1 and at least one more level", s)
			}
			for i, want := range tc.head {
				if i >= len(s) {
					t.Fatalf("got %d levels, want at least %d", len(s), len(tc.head))
				}
				if d := cfRelDiff(s[i], want); d > 1e-14 {
					t.Errorf("s_%d = %v, want %v (relative difference %g)", i, s[i], want, d)
				}
			}
			// Truncation: the last kept level is ≥ tol and the next,
			// s_{I+1} = λ s_I^d, is below it.
			last := s[len(s)-1]
			if next := tc.load * math.Pow(last, float64(tc.d)); last < tol || next >= tol {
				t.Errorf("truncation: last level %v, next %v, tol %v", last, next, tol)
			}
			// The recurrence s_{i+1} = λ s_i^d, which follows from
			// e_{i+1} = 1 + d·e_i, holds level by level.
			for i := 0; i+1 < len(s); i++ {
				want := tc.load * math.Pow(s[i], float64(tc.d))
				if d := cfRelDiff(s[i+1], want); d > 1e-12 {
					t.Errorf("s_%d = %v, λ s_%d^d = %v (relative difference %g)", i+1, s[i+1], i, want, d)
				}
			}
			// Fixed point of ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1})
			// (VDK 1996), with s = 0 beyond the cut.
			at := func(i int) float64 {
				if i < len(s) {
					return s[i]
				}
				return 0
			}
			for i := 1; i < len(s); i++ {
				fd := float64(tc.d)
				r := tc.load*(math.Pow(at(i-1), fd)-math.Pow(at(i), fd)) - (at(i) - at(i+1))
				if math.Abs(r) > 1e-14+2*tol {
					t.Errorf("drift at level %d = %g, want 0", i, r)
				}
			}
		})
	}
}

func TestSupermarketResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		d      int
		load   float64
		want   float64
		digits float64 // half a unit in the last stated digit; 0: relative 1e-13
	}{
		// validation.md, closed forms: best of 2, live, N → ∞: 2.614 at λ = 0.9.
		{name: "d=2/load=0.9/published", d: 2, load: 0.9, want: 2.614, digits: 0.5e-3},
		// Σ_{i≥1} λ^(2^i−2) at λ = 0.5: 1 + 2⁻² + 2⁻⁶ + 2⁻¹⁴ + 2⁻³⁰ + 2⁻⁶² (VDK fixed point).
		{name: "d=2/load=0.5", d: 2, load: 0.5, want: 1 + 0x1p-2 + 0x1p-6 + 0x1p-14 + 0x1p-30 + 0x1p-62},
		// Σ_{i≥1} λ^((3^i−1)/2 − 1) at λ = 0.5: 1 + 2⁻³ + 2⁻¹² + 2⁻³⁹ (VDK fixed point).
		{name: "d=3/load=0.5", d: 3, load: 0.5, want: 1 + 0x1p-3 + 0x1p-12 + 0x1p-39},
		// d = 1 is M/M/1: 1/(1−λ) = 10 at λ = 0.9.
		{name: "d=1/load=0.9", d: 1, load: 0.9, want: 10},
		// Huge d: only s_1 = λ survives, so E[T] = 1.
		{name: "d=2^62/load=0.9", d: 1 << 62, load: 0.9, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := SupermarketResponse(tc.d, tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if tc.digits > 0 {
				if diff := math.Abs(got - tc.want); diff > tc.digits {
					t.Errorf("SupermarketResponse(%d, %v) = %v, want %v to the stated digits (difference %g)", tc.d, tc.load, got, tc.want, diff)
				}
			} else if d := cfRelDiff(got, tc.want); d > 1e-13 {
				t.Errorf("SupermarketResponse(%d, %v) = %v, want %v (relative difference %g)", tc.d, tc.load, got, tc.want, d)
			}
		})
	}

	// Independent route: the recurrence s_{i+1} = λ s_i^d summed by hand
	// agrees with the Pow-based sum, for several d and λ.
	t.Run("recurrence", func(t *testing.T) {
		t.Parallel()
		for _, d := range []int{2, 3, 5} {
			for _, load := range []float64{0.3, 0.7, 0.9, 0.95, 0.99} {
				sum := 0.0
				for s := load; s >= SupermarketCutoff; s = load * math.Pow(s, float64(d)) {
					sum += s
				}
				want := sum / load
				got, err := SupermarketResponse(d, load)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cfRelDiff(got, want); diff > 1e-13 {
					t.Errorf("d=%d λ=%v: got %v, recurrence %v (relative difference %g)", d, load, got, want, diff)
				}
			}
		}
	})

	// d = 1 is M/M/1 exactly.
	t.Run("d=1-is-MM1", func(t *testing.T) {
		t.Parallel()
		for _, load := range []float64{0.1, 0.5, 0.9, 0.999999} {
			got, err := SupermarketResponse(1, load)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := MM1Response(load)
			if got != want {
				t.Errorf("λ=%v: SupermarketResponse(1) = %v, MM1Response = %v", load, got, want)
			}
		}
	})
}

func TestGIM1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		load  float64
		lst   func(float64) float64
		sigma float64 // exact root
	}{
		// M/M/1: A*(s) = λ/(λ+s), σ = λ (Kleinrock 1975, §6.4).
		{name: "MM1/load=0.1", load: 0.1, lst: func(s float64) float64 { return 0.1 / (0.1 + s) }, sigma: 0.1},
		{name: "MM1/load=0.5", load: 0.5, lst: func(s float64) float64 { return 0.5 / (0.5 + s) }, sigma: 0.5},
		{name: "MM1/load=0.9", load: 0.9, lst: func(s float64) float64 { return 0.9 / (0.9 + s) }, sigma: 0.9},
		{name: "MM1/load=0.99", load: 0.99, lst: func(s float64) float64 { return 0.99 / (0.99 + s) }, sigma: 0.99},
		// E_2/M/1: dividing σ(a+1−σ)² = a², a = 2λ, by (σ − 1) leaves
		// σ² − (2a+1)σ + a² = 0, so σ = (4λ + 1 − √(8λ + 1))/2.
		{name: "E2M1/load=0.9", load: 0.9, lst: cfErlangLST(2, 0.9), sigma: (4*0.9 + 1 - math.Sqrt(8*0.9+1)) / 2},
		{name: "E2M1/load=0.3", load: 0.3, lst: cfErlangLST(2, 0.3), sigma: (4*0.3 + 1 - math.Sqrt(8*0.3+1)) / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := GIM1(tc.lst, tc.load)
			if err != nil {
				t.Fatal(err)
			}
			x, want := 1-r.Sigma, 1-tc.sigma
			if d := cfRelDiff(x, want); d > 1e-12 {
				t.Errorf("1 − σ = %v, want %v (relative difference %g)", x, want, d)
			}
			// The accuracy estimate is honest (it bounds the error) and small.
			if d := cfRelDiff(x, want); d > r.RelativeError || r.RelativeError > 1e-9 {
				t.Errorf("RelativeError = %g, actual %g", r.RelativeError, d)
			}
			if d := cfRelDiff(r.Response, 1/want); d > 1e-12 {
				t.Errorf("Response = %v, want 1/(1−σ) = %v (relative difference %g)", r.Response, 1/want, d)
			}
			if d := math.Abs(r.Waiting - (r.Response - 1)); d > 1e-12*r.Response {
				t.Errorf("Waiting = %v, Response − 1 = %v", r.Waiting, r.Response-1)
			}
			if res := math.Abs(tc.lst(1-r.Sigma) - r.Sigma); r.Residual > 1e-15 || res > 1e-15 {
				t.Errorf("Residual = %g, |A*(1−σ) − σ| = %g, want ≤ 1e-15", r.Residual, res)
			}
			if r.Maps < 1 || r.Maps > 100 {
				t.Errorf("Iterations = %d, want in [1, 100]", r.Maps)
			}
		})
	}
}

func TestGIM1NotConverged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		load float64
		lst  func(float64) float64
	}{
		// A transform that returns NaN.
		{name: "NaN", load: 0.9, lst: func(float64) float64 { return math.NaN() }},
		// A transform that returns +Inf.
		{name: "Inf", load: 0.9, lst: func(float64) float64 { return math.Inf(1) }},
		// Not a transform with mean 1/λ: A* ≡ 1 has no root below σ = 1.
		{name: "no-root", load: 0.9, lst: func(float64) float64 { return 1 }},
		// M/M/1 one part in 10⁸ below saturation: the root is lost in the
		// rounding of A* near 1 (see the GIM1 doc).
		{name: "rounding", load: 1 - 1e-8, lst: func(s float64) float64 { return (1 - 1e-8) / (1 - 1e-8 + s) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := GIM1(tc.lst, tc.load)
			if !errors.Is(err, ErrNotConverged) {
				t.Fatalf("GIM1: got %+v, %v; want an error wrapping ErrNotConverged", r, err)
			}
			if !strings.HasPrefix(err.Error(), "meanfield: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestErlangM1(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		load   float64
		want   float64 // mean time in system
		digits float64 // half a unit in the last stated digit; 0: relative 1e-12
	}{
		// E_1/M/1 is M/M/1: 1/(1−λ) = 10 at λ = 0.9.
		{name: "n=1/load=0.9", n: 1, load: 0.9, want: 10},
		// E_2/M/1: 1/(1−σ), σ = (4λ + 1 − √(8λ + 1))/2 (see TestGIM1).
		{name: "n=2/load=0.9/closed", n: 2, load: 0.9, want: 2 / (2 - (4*0.9 + 1 - math.Sqrt(8*0.9+1)))},
		{name: "n=2/load=0.5/closed", n: 2, load: 0.5, want: 2 / (2 - (4*0.5 + 1 - math.Sqrt(8*0.5+1)))},
		{name: "n=2/load=0.99/closed", n: 2, load: 0.99, want: 2 / (2 - (4*0.99 + 1 - math.Sqrt(8*0.99+1)))},
		// Known round-robin values at λ = 0.9 (the closed-form task brief;
		// validation.md: "with N servers E_N/M/1"): E_2 7.588, E_10 5.660,
		// E_100 5.227, to the stated digits.
		{name: "n=2/load=0.9/published", n: 2, load: 0.9, want: 7.588, digits: 0.5e-3},
		{name: "n=10/load=0.9/published", n: 10, load: 0.9, want: 5.660, digits: 0.5e-3},
		{name: "n=100/load=0.9/published", n: 100, load: 0.9, want: 5.227, digits: 0.5e-3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := ErlangM1(tc.n, tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if tc.digits > 0 {
				if diff := math.Abs(r.Response - tc.want); diff > tc.digits {
					t.Errorf("ErlangM1(%d, %v).Response = %v, want %v to the stated digits (difference %g)", tc.n, tc.load, r.Response, tc.want, diff)
				}
			} else if d := cfRelDiff(r.Response, tc.want); d > 1e-12 {
				t.Errorf("ErlangM1(%d, %v).Response = %v, want %v (relative difference %g)", tc.n, tc.load, r.Response, tc.want, d)
			}
		})
	}

	// E_1/M/1 is M/M/1 exactly: σ = λ.
	t.Run("n=1-is-MM1", func(t *testing.T) {
		t.Parallel()
		for _, load := range []float64{0.1, 0.5, 0.9, 0.999999} {
			r, err := ErlangM1(1, load)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := MM1Response(load)
			if r.Sigma != load || r.Response != want {
				t.Errorf("λ=%v: σ = %v, Response = %v; want σ = λ, Response = %v", load, r.Sigma, r.Response, want)
			}
		}
	})

	// Independent witness: fixed-point iteration of σ = A*(1 − σ) with
	// the plain power formula.
	t.Run("iteration", func(t *testing.T) {
		t.Parallel()
		for _, n := range []int{2, 3, 10, 100} {
			for _, load := range []float64{0.2, 0.5, 0.9} {
				r, err := ErlangM1(n, load)
				if err != nil {
					t.Fatal(err)
				}
				want := cfSigmaByIteration(cfErlangLST(n, load))
				if d := cfRelDiff(1-r.Sigma, 1-want); d > 1e-12 {
					t.Errorf("n=%d λ=%v: 1 − σ = %v, iteration %v (relative difference %g)", n, load, 1-r.Sigma, 1-want, d)
				}
			}
		}
	})
}

func TestDM1(t *testing.T) {
	t.Parallel()
	const load = 0.9
	r, err := DM1(load)
	if err != nil {
		t.Fatal(err)
	}
	lst := func(s float64) float64 { return math.Exp(-s / load) }

	t.Run("published", func(t *testing.T) {
		t.Parallel()
		// validation.md, closed forms: round robin, N → ∞ (D/M/1): 5.18 at λ = 0.9.
		if diff := math.Abs(r.Response - 5.18); diff > 0.5e-2 {
			t.Errorf("DM1(0.9).Response = %v, want 5.18 to the stated digits (difference %g)", r.Response, diff)
		}
	})

	t.Run("residual", func(t *testing.T) {
		t.Parallel()
		// σ = exp(−(1 − σ)/λ) to rounding.
		if res := math.Abs(lst(1-r.Sigma) - r.Sigma); res > 2e-16 || r.Residual > 2e-16 {
			t.Errorf("|A*(1−σ) − σ| = %g, Residual = %g, want ≤ 2e-16", res, r.Residual)
		}
	})

	t.Run("iteration", func(t *testing.T) {
		t.Parallel()
		// Independent witness: σ ← exp(−(1 − σ)/λ) from σ = 0.
		want := cfSigmaByIteration(lst)
		if d := cfRelDiff(1-r.Sigma, 1-want); d > 1e-13 {
			t.Errorf("1 − σ = %v, iteration %v (relative difference %g)", 1-r.Sigma, 1-want, d)
		}
	})

	t.Run("erlang-limit", func(t *testing.T) {
		t.Parallel()
		// E_n/M/1 decreases to D/M/1 as n → ∞ with E_n − D = c/n + O(1/n²):
		// n(E_n − D) settles, and the Richardson extrapolation
		// 2E_{2n} − E_n removes the 1/n term.
		prev := math.Inf(1)
		for _, n := range []int{1, 2, 3, 10, 100, 1000, 1_000_000} {
			e, err := ErlangM1(n, load)
			if err != nil {
				t.Fatal(err)
			}
			if !(e.Response < prev && e.Response > r.Response) {
				t.Errorf("E_%d/M/1 = %v: want below the previous %v and above D/M/1 %v", n, e.Response, prev, r.Response)
			}
			prev = e.Response
		}
		e1k, _ := ErlangM1(1000, load)
		e2k, _ := ErlangM1(2000, load)
		e1m, _ := ErlangM1(1_000_000, load)
		c1k, c1m := 1000*(e1k.Response-r.Response), 1e6*(e1m.Response-r.Response)
		if d := cfRelDiff(c1k, c1m); d > 1e-2 {
			t.Errorf("n(E_n − D) = %v at n = 1000, %v at n = 10⁶ (relative difference %g)", c1k, c1m, d)
		}
		if rich := 2*e2k.Response - e1k.Response; math.Abs(rich-r.Response) > 1e-5 {
			t.Errorf("2E_2000 − E_1000 = %v, D/M/1 = %v (difference %g)", rich, r.Response, rich-r.Response)
		}
	})

	t.Run("heavy-traffic", func(t *testing.T) {
		t.Parallel()
		// Kingman's heavy-traffic limit (Kingman 1961, "The single server
		// queue in heavy traffic", Proc. Cambridge Philos. Soc. 57):
		// E[W] ≈ (c_a² + c_s²)/(2(1 − λ)) with c_a² = 0 (deterministic
		// arrivals) and c_s² = 1, so (1 − λ)E[T] = 1/2 + O(1 − λ).
		for _, tc := range []struct {
			load, tol float64
		}{{0.999, 2e-3}, {0.999999, 2e-6}, {1 - 1e-8, 2e-8}} {
			h, err := DM1(tc.load)
			if err != nil {
				t.Fatal(err)
			}
			if got := (1 - tc.load) * h.Response; math.Abs(got-0.5) > tc.tol {
				t.Errorf("λ=%v: (1−λ)E[T] = %v, want 1/2 within %g", tc.load, got, tc.tol)
			}
		}
	})
}

func TestPKResponse(t *testing.T) {
	t.Parallel()
	h2 := func(c float64) float64 { m, _ := SecondMomentH2(c); return m }
	pareto := func(a float64) float64 { m, _ := SecondMomentPareto(a); return m }
	for _, tc := range []struct {
		name   string
		load   float64
		moment float64
		want   float64
	}{
		// validation.md, closed forms: P-K, h2 sizes, 1 + λ(1+C)/(2(1−λ)): C = 10 → 50.5.
		{name: "h2:10/load=0.9", load: 0.9, moment: h2(10), want: 50.5},
		// validation.md, closed forms: C = 30 → 140.5.
		{name: "h2:30/load=0.9", load: 0.9, moment: h2(30), want: 140.5},
		// h2:1 is exponential: M/M/1, 1/(1−λ) = 10.
		{name: "h2:1/load=0.9", load: 0.9, moment: h2(1), want: 10},
		// Exponential, E[S²] = 2: M/M/1, 1/(1−λ) = 10.
		{name: "exp/load=0.9", load: 0.9, moment: SecondMomentExp, want: 10},
		// M/D/1: 1 + λ/(2(1−λ)) = 5.5 at λ = 0.9.
		{name: "det/load=0.9", load: 0.9, moment: SecondMomentDet, want: 5.5},
		// Pareto α = 2.5: x_m = 0.6, E[S²] = 2.5·0.36/0.5 = 1.8; 1 + 0.9·1.8/0.2 = 9.1.
		{name: "pareto:2.5/load=0.9", load: 0.9, moment: pareto(2.5), want: 9.1},
		// Pareto α = 3: x_m = 2/3, E[S²] = 3·(4/9)/1 = 4/3; 1 + 0.5·(4/3)/1 = 5/3.
		{name: "pareto:3/load=0.5", load: 0.5, moment: pareto(3), want: 5.0 / 3},
		// Pareto α ≤ 2: infinite second moment, infinite mean response.
		{name: "pareto:2/load=0.9", load: 0.9, moment: pareto(2), want: math.Inf(1)},
		{name: "pareto:1.5/load=0.5", load: 0.5, moment: pareto(1.5), want: math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := PKResponse(tc.load, tc.moment)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsInf(tc.want, 1) {
				if !math.IsInf(got, 1) {
					t.Errorf("PKResponse(%v, %v) = %v, want +Inf", tc.load, tc.moment, got)
				}
				return
			}
			if d := cfRelDiff(got, tc.want); d > 1e-13 {
				t.Errorf("PKResponse(%v, %v) = %v, want %v (relative difference %g)", tc.load, tc.moment, got, tc.want, d)
			}
		})
	}

	// With exponential sizes P-K is M/M/1 for every load.
	t.Run("exp-is-MM1", func(t *testing.T) {
		t.Parallel()
		for _, load := range []float64{0.1, 0.5, 0.9, 0.99} {
			got, _ := PKResponse(load, SecondMomentExp)
			want, _ := MM1Response(load)
			if d := cfRelDiff(got, want); d > 1e-14 {
				t.Errorf("λ=%v: P-K %v, M/M/1 %v (relative difference %g)", load, got, want, d)
			}
		}
	})

	// The h2:C second moment from the phase parameters of the package doc,
	// §2: p = (1 + √((C−1)/(C+1)))/2, means 1/(2p) and 1/(2(1−p)),
	// E[S²] = Σ 2·prob·mean²; and the mean is 1.
	t.Run("h2-phases", func(t *testing.T) {
		t.Parallel()
		for _, c := range []float64{1, 2, 10, 30, 100} {
			p := (1 + math.Sqrt((c-1)/(c+1))) / 2
			m1, m2 := 1/(2*p), 1/(2*(1-p))
			mean := p*m1 + (1-p)*m2
			second := p*2*m1*m1 + (1-p)*2*m2*m2
			if math.Abs(mean-1) > 1e-14 {
				t.Errorf("C=%v: phase mean %v, want 1", c, mean)
			}
			if got := h2(c); cfRelDiff(got, second) > 1e-12 {
				t.Errorf("C=%v: SecondMomentH2 = %v, from phases %v", c, got, second)
			}
		}
	})
}

func TestSupermarketRoundRobinCrossing(t *testing.T) {
	t.Parallel()
	c, err := SupermarketRoundRobinCrossing(2)
	if err != nil {
		t.Fatal(err)
	}
	// validation.md, closed forms: round robin vs live best of two
	// (N → ∞): equal at λ ≈ 0.52.
	if c.Load < 0.51 || c.Load > 0.53 {
		t.Errorf("crossing load = %v, want in [0.51, 0.53]", c.Load)
	}
	sq, _ := SupermarketResponse(2, c.Load)
	if d := cfRelDiff(sq, c.Response); d > 1e-10 {
		t.Errorf("at the crossing SQ(2) = %v, round robin = %v", sq, c.Response)
	}
	// validation.md: round robin better below, best of two above.
	for _, tc := range []struct {
		name     string
		load     float64
		rrBetter bool
	}{
		{"below/0.1", 0.1, true},
		{"below/0.5", 0.5, true},
		{"below/crossing-0.001", c.Load - 1e-3, true},
		{"above/crossing+0.001", c.Load + 1e-3, false},
		{"above/0.6", 0.6, false},
		{"above/0.9", 0.9, false},
		{"above/0.99", 0.99, false},
	} {
		sq, _ := SupermarketResponse(2, tc.load)
		rr, err := DM1(tc.load)
		if err != nil {
			t.Fatal(err)
		}
		if got := rr.Response < sq; got != tc.rrBetter {
			t.Errorf("%s: λ=%v round robin %v, SQ(2) %v: round robin better = %v, want %v", tc.name, tc.load, rr.Response, sq, got, tc.rrBetter)
		}
	}

	// Large d crosses below the search bracket: reported, not guessed.
	if _, err := SupermarketRoundRobinCrossing(64); !errors.Is(err, ErrNotConverged) {
		t.Errorf("SupermarketRoundRobinCrossing(64): err = %v, want ErrNotConverged", err)
	}
}
