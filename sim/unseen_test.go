package sim

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fleet"
)

// TestUnseenWork checks UnseenWork against the closed forms (exp,
// det, Pareto) and, for h2 and Erlang-K, against E[S; S > q] integrated
// numerically from each law's own density (q found here by bisection on
// P(S > q) = 1/n; trapezoids over [q, q + 60] and up to 60 slow means).
func TestUnseenWork(t *testing.T) {
	for _, n := range []float64{10, 1e3, 1e6} {
		exp := (math.Log(n) + 1) / n
		if u := UnseenWork(fleet.Sizes{Kind: fleet.Exp}, n); math.Abs(u-exp) > 1e-15*exp {
			t.Errorf("exp n=%g: %.17g, want (ln n + 1)/n = %.17g", n, u, exp)
		}
		if u := UnseenWork(fleet.Sizes{Kind: fleet.Det}, n); u != 0 {
			t.Errorf("det n=%g: %g, want 0", n, u)
		}
		for _, a := range []float64{1.1, 2.5, 1e300} {
			want := math.Pow(n, -(a-1)/a)
			if u := UnseenWork(fleet.Sizes{Kind: fleet.Pareto, Param: a}, n); math.Abs(u-want) > 1e-12*want {
				t.Errorf("pareto:%g n=%g: %.17g, want n^(−(A−1)/A) = %.17g", a, n, u, want)
			}
		}
		// h2:1 and erlang:1 are the exponential law.
		for _, z := range []fleet.Sizes{{Kind: fleet.H2, Param: 1}, {Kind: fleet.Erlang, Param: 1}} {
			if u := UnseenWork(z, n); math.Abs(u-exp) > 1e-9*exp {
				t.Errorf("%s n=%g: %.17g, want exp's %.17g", z, n, u, exp)
			}
		}
		for _, c := range []float64{2, 30, 1e4} {
			p2 := (1 - math.Sqrt((c-1)/(c+1))) / 2
			m1, m2 := 1/(2*(1-p2)), 1/(2*p2)
			dens := func(s float64) float64 { return (1-p2)/m1*math.Exp(-s/m1) + p2/m2*math.Exp(-s/m2) }
			surv := func(s float64) float64 { return (1-p2)*math.Exp(-s/m1) + p2*math.Exp(-s/m2) }
			checkUnseen(t, fleet.Sizes{Kind: fleet.H2, Param: c}, n, dens, surv, m2)
		}
		for _, k := range []float64{2, 4, 64} {
			g := distuv.Gamma{Alpha: k, Beta: k}
			checkUnseen(t, fleet.Sizes{Kind: fleet.Erlang, Param: k}, n, g.Prob, g.Survival, 1)
		}
	}
}

// checkUnseen compares UnseenWork(z, n) with ∫_q^∞ s·dens(s) ds, q the
// size exceeded with probability 1/n, scale the largest phase mean.
func checkUnseen(t *testing.T, z fleet.Sizes, n float64, dens, surv func(float64) float64, scale float64) {
	t.Helper()
	lo, hi := 0.0, 100*scale
	for range 200 {
		mid := (lo + hi) / 2
		if surv(mid) > 1/n {
			lo = mid
		} else {
			hi = mid
		}
	}
	q := (lo + hi) / 2
	trap := func(a, b float64) float64 {
		const steps = 1_000_000
		h := (b - a) / steps
		var sum float64
		for i := 0; i <= steps; i++ {
			s := a + float64(i)*h
			w := h
			if i == 0 || i == steps {
				w = h / 2
			}
			sum += w * s * dens(s)
		}
		return sum
	}
	want := trap(q, q+60)
	if scale > 1 {
		want += trap(q+60, q+60*scale)
	}
	if u := UnseenWork(z, n); math.Abs(u-want) > 1e-6*want {
		t.Errorf("%s n=%g: %.10g, want %.10g (trapezoids; q = %.6g)", z, n, u, want, q)
	}
}
