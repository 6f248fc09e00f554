package compare

import "math"

// TipHalf is the T(1−λ)² at which a run from the balanced start tips
// within the full run length with probability ½ (T_½, the quantity that
// meanfield.FiniteEdge predicts), estimated from a bracket's points: a
// logistic regression of the runs' outcomes on x = T(1−λ)²,
// logit P(tip) = b·(x − x_½), the median effective dose of bioassay (D. J.
// Finney, Probit Analysis, 3rd ed., Cambridge, 1971). It maximises Firth's
// penalised likelihood, the likelihood times the Jeffreys prior
// det(I)^½ (D. Firth, Biometrika 80(1):27–38, 1993), which stays finite
// where the runs separate (every run below some T tipped and none above
// it, common with 6 runs a point across a steep edge) and there the plain
// maximum-likelihood slope is infinite; the 95% interval is the penalised
// profile likelihood's: the x_½ at which twice the penalised
// log-likelihood, maximised over the slope, has dropped by χ²₁(0.95) =
// 3.841 (G. Heinze and M. Schemper, Statistics in Medicine 21:2409–2419,
// 2002). Its coverage is checked on synthetic brackets (TestTipHalfCoverage).
//
// The bracket's ends are single points at which all runs tipped or at most
// one did, so with few runs a point they move with each point's luck; the
// fit pools every point. Points far from the edge, where all or none of
// the runs tip, weigh little (a run's weight is p(1 − p)), so the logistic
// shape matters only across the transition. Runs left unfinished by
// sequential stopping are not counted (PointStat); which runs those are
// depends only on the point's earlier outcomes, so the likelihood is the
// same as if the number of runs had been fixed in advance.
type TipHalf struct {
	// Scaled is x_½, Lower and Upper its 95% interval; NaN where the
	// points do not determine them (Why says so).
	Scaled, Lower, Upper float64
	// Slope is b, the change of logit P(tip) per unit of T(1−λ)².
	Slope float64
	// Why is empty when Scaled is set, else the reason it is not; a
	// one-sided interval leaves Why empty and the open end NaN.
	Why string
}

// NoTipHalf is the TipHalf of no estimate: every number NaN, why the
// reason.
func NoTipHalf(why string) TipHalf {
	return TipHalf{Scaled: math.NaN(), Lower: math.NaN(), Upper: math.NaN(), Slope: math.NaN(), Why: why}
}

// Bounded reports an estimate inside a 95% interval bounded at both ends
// (false for the zero TipHalf, and where the points leave an end open).
func (h TipHalf) Bounded() bool { return h.Lower < h.Scaled && h.Scaled < h.Upper }

// tipChi95 is the 95% point of χ² on one degree of freedom.
const tipChi95 = 3.841458820694124

// tipObs is one point's runs for the fit: x, runs, tipped.
type tipObs struct {
	x    float64
	n, k float64
}

// FitTipHalf fits TipHalf to the points' full-length outcomes (Tipped of
// Runs).
func FitTipHalf(points []PointStat) TipHalf {
	out := NoTipHalf("")
	var obs []tipObs
	var n, k, xc float64
	for _, p := range points {
		if p.Runs == 0 {
			continue
		}
		o := tipObs{x: p.Scaled, n: float64(p.Runs), k: float64(p.Tipped)}
		obs = append(obs, o)
		n += o.n
		k += o.k
		xc += o.x * o.n
	}
	switch {
	case len(obs) < 2:
		out.Why = "fewer than two points with finished runs"
		return out
	case k == 0 || k == n:
		out.Why = "every run tipped, or none did"
		return out
	}
	xc /= n // centre x for the steps
	a, b, ok := tipFirth(obs, xc)
	switch {
	case !ok:
		out.Why = "the logistic fit did not converge"
		return out
	case !(b < 0):
		out.Why = "the fitted share of tipped runs does not fall as T grows"
		return out
	}
	out.Slope = b
	out.Scaled = xc - a/b
	lmax := tipPen(obs, a, b, xc)
	// The profile interval: walk out from x_½ by doubling steps until twice
	// the profile's drop exceeds the χ² point, then bisect. An end the data
	// do not bound (the profile never drops that far) is NaN.
	drop := func(m float64) float64 { return 2*(lmax-tipProfile(obs, m, xc, b)) - tipChi95 }
	var span float64 // the points' reach from x_½ (> 0: the fit needs two x)
	for _, o := range obs {
		span = max(span, math.Abs(o.x-out.Scaled))
	}
	end := func(dir float64) float64 {
		in := out.Scaled
		for step := span / 64; step > 0 && step <= 64*span; step *= 2 {
			m := out.Scaled + dir*step
			if drop(m) <= 0 {
				in = m
				continue
			}
			for math.Abs(m-in) > 1e-7*span {
				c := (in + m) / 2
				if drop(c) > 0 {
					m = c
				} else {
					in = c
				}
			}
			return (in + m) / 2
		}
		return math.NaN()
	}
	out.Lower, out.Upper = end(-1), end(1)
	return out
}

// tipPen is the penalised log-likelihood ℓ + ½·log det I of
// logit p = a + b·(x − xc), I the Fisher information of (a, b).
func tipPen(obs []tipObs, a, b, xc float64) float64 {
	var l, i00, i01, i11 float64
	for _, o := range obs {
		u := o.x - xc
		eta := a + b*u
		// log p = −log(1 + e^(−η)), log(1 − p) = −log(1 + e^η).
		l -= o.k*softplus(-eta) + (o.n-o.k)*softplus(eta)
		p := logistic(eta)
		w := o.n * p * (1 - p)
		i00 += w
		i01 += w * u
		i11 += w * u * u
	}
	return l + 0.5*math.Log(i00*i11-i01*i01)
}

// softplus is log(1 + e^x), without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// logistic is 1/(1 + e^(−x)).
func logistic(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// tipFirth maximises the penalised log-likelihood over (a, b): Fisher
// scoring on Firth's modified score U* = Σ (k − n·p + h·(½ − p))·(1, u),
// h the hat matrix's diagonal, with step halving on tipPen.
func tipFirth(obs []tipObs, xc float64) (a, b float64, ok bool) {
	var n, k float64
	for _, o := range obs {
		n += o.n
		k += o.k
	}
	a = math.Log(k / (n - k))
	l := tipPen(obs, a, b, xc)
	ps := make([]float64, len(obs)) // each point's p at (a, b)
	for range 500 {
		var i00, i01, i11 float64
		for j, o := range obs {
			u := o.x - xc
			p := logistic(a + b*u)
			ps[j] = p
			w := o.n * p * (1 - p)
			i00 += w
			i01 += w * u
			i11 += w * u * u
		}
		det := i00*i11 - i01*i01
		if !(det > 0) {
			return a, b, false
		}
		var g0, g1 float64
		for j, o := range obs {
			u := o.x - xc
			p := ps[j]
			w := o.n * p * (1 - p)
			h := w * (i11 - 2*i01*u + i00*u*u) / det
			r := o.k - o.n*p + h*(0.5-p)
			g0 += r
			g1 += r * u
		}
		da := (i11*g0 - i01*g1) / det
		db := (i00*g1 - i01*g0) / det
		// Converged when the step's predicted gain is below the
		// log-likelihood's rounding.
		if g0*da+g1*db < 1e-12*(1+math.Abs(l)) {
			return a, b, true
		}
		t := 1.0
		for range 60 {
			if l2 := tipPen(obs, a+t*da, b+t*db, xc); l2 >= l {
				a, b, l = a+t*da, b+t*db, l2
				break
			}
			t /= 2
		}
	}
	return a, b, false
}

// tipProfile is the penalised log-likelihood at x_½ = m maximised over the
// slope β (a = β·(xc − m)), by golden-section search on a bracket of its
// maximum found by stepping out from β = b0 or 0, whichever is higher.
func tipProfile(obs []tipObs, m, xc, b0 float64) float64 {
	f := func(beta float64) float64 { return tipPen(obs, beta*(xc-m), beta, xc) }
	c, fc := 0.0, f(0)
	if f0 := f(b0); f0 > fc {
		c, fc = b0, f0
	}
	step := 0.1 * (math.Abs(b0) + 1)
	lo, hi := c-step, c+step
	flo, fhi := f(lo), f(hi)
	for range 60 {
		switch {
		case flo > fc:
			hi, fhi, c, fc = c, fc, lo, flo
			lo = c - 2*(hi-c)
			flo = f(lo)
		case fhi > fc:
			lo, flo, c, fc = c, fc, hi, fhi
			hi = c + 2*(c-lo)
			fhi = f(hi)
		default:
			goto golden
		}
	}
golden:
	const r = 0.3819660112501051       // (3 − √5)/2
	for hi-lo > 1e-7*(1+math.Abs(c)) { // f's error is second order in β's
		var x float64
		if c-lo > hi-c {
			x = c - r*(c-lo)
		} else {
			x = c + r*(hi-c)
		}
		fx := f(x)
		if fx > fc {
			if x < c {
				hi = c
			} else {
				lo = c
			}
			c, fc = x, fx
		} else if x < c {
			lo = x
		} else {
			hi = x
		}
	}
	return fc
}
