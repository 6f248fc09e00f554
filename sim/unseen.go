package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fixedpoint/root"
	"herd/fleet"
)

// UnseenWork is the fraction of the mean job size carried by jobs rarer
// than one in n: E[S; S > q]/E[S] with P(S > q) = 1/n (n ≥ 1). A run that
// draws n jobs expects to see about one of them, so this is the part of
// the load it samples only by luck: its measured load, and a response
// convex in the load, come out low when it misses them, and runs that
// all miss them agree with each other (their standard error does not
// show it). Closed forms: exp (ln n + 1)/n; det 0 (no size exceeds 1);
// Pareto n^(−(A−1)/A); h2 and Erlang-K from their laws (the quantile by
// bisection on the survival function).
func UnseenWork(z fleet.Sizes, n float64) float64 {
	if !(n > 1) {
		return 1
	}
	switch z.Kind {
	case fleet.Det:
		return 0
	case fleet.Pareto:
		a := z.Param
		return math.Pow(n, -(a-1)/a)
	case fleet.H2:
		p, m1, m2 := z.H2Phases()
		ps := [2]float64{p, 1 - p}
		ms := [2]float64{m1, m2}
		surv := func(s float64) float64 {
			var f float64
			for i := range ps {
				f += ps[i] * math.Exp(-s/ms[i])
			}
			return f
		}
		q := quantileAbove(surv, 1/n, ms[1])
		var u float64
		for i := range ps {
			u += ps[i] * (q + ms[i]) * math.Exp(-q/ms[i])
		}
		return u
	case fleet.Erlang:
		k := z.Param
		g := distuv.Gamma{Alpha: k, Beta: k}
		q := quantileAbove(g.Survival, 1/n, 1)
		// s·f_K(s)/E[S] is the density of Gamma(K+1, K).
		return distuv.Gamma{Alpha: k + 1, Beta: k}.Survival(q)
	}
	lnN := math.Log(n)
	return (lnN + 1) / n
}

// quantileAbove returns q with surv(q) = p for a decreasing survival
// function with surv(0) = 1 > p > 0, by bisection to relative 1e-12
// (root.Midpoint); scale is a size at which to start looking.
func quantileAbove(surv func(float64) float64, p, scale float64) float64 {
	lo, hi := 0.0, scale
	for surv(hi) > p {
		lo, hi = hi, 2*hi
	}
	below := func(q float64) (bool, error) { return !(surv(q) > p), nil } // false at lo, true at hi
	_, hi, _ = root.Bisect(below, lo, hi, root.Midpoint(0, 1e-12))
	return hi
}
