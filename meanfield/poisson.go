package meanfield

import "math"

// poissonPMF writes into buf (reusing its storage) the Poisson(x)
// probabilities π(n) = e^{−x} xⁿ/n! for n = lo, lo+1, …, lo+len(pmf)−1 and
// returns lo and the slice. The support is cut where each omitted tail is
// below eps, using the ratio bounds
//
//	Σ_{i>n} π(i) ≤ π(n)·ρ/(1−ρ),  ρ = x/(n+1) < 1,
//	Σ_{i<n} π(i) ≤ π(n)·σ/(1−σ),  σ = n/x < 1,
//
// which hold because the ratios π(i+1)/π(i) = x/(i+1) decrease in i. The
// values are computed by the two-term recurrence outward from the mode
// m = ⌊x⌋ (stable: every term is smaller than its predecessor) starting from
// 1 and then normalised to sum to one over the support. Normalising avoids
// the absolute error of e^{−x}x^m/m! through lgamma (about 10⁻¹² relative at
// x = 3000) and makes every use of the vector mass-conserving; the price is a
// relative error below 2·eps, the omitted tails. This is the scheme of Fox
// and Glynn (Computing Poisson probabilities, Comm. ACM 31(4), 1988), with
// the tail cut by the ratio bounds above instead of their Chernoff-type
// bounds.
func poissonPMF(buf []float64, x, eps float64) (int, []float64) {
	buf = buf[:0]
	if !(x > 0) {
		return 0, append(buf, 1)
	}
	m, pm := poissonMode(x)
	// Walk down from the mode, storing π(n)/π(m) in reverse order.
	lo, buf := poissonDown(append(buf, 1), x, eps, m, pm, true)
	// Reverse so that buf[i] is π(lo+i)/π(m).
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	// Walk up from the mode.
	p := 1.0
	for n := m; ; n++ {
		rho := x / float64(n+1) // π(n+1)/π(n)
		if rho < 1 && tailBelow(pm*p*rho, rho, eps) {
			break
		}
		p *= rho
		buf = append(buf, p)
	}
	var s float64
	for _, v := range buf {
		s += v
	}
	inv := 1 / s
	for i := range buf {
		buf[i] *= inv
	}
	return lo, buf
}

// poissonMode returns the mode m = ⌊x⌋ of Poisson(x) and pm ≈ π(m), which
// only scales poissonPMF's tail tests.
func poissonMode(x float64) (int, float64) {
	m := int(math.Floor(x))
	lg, _ := math.Lgamma(float64(m) + 1)
	return m, math.Exp(-x + float64(m)*math.Log(x) - lg)
}

// tailBelow reports whether v/(1 − r) < eps, the geometric bound on a
// Poisson tail whose next term is v and whose ratio is r < 1. It divides
// only when v < eps: otherwise the quotient, of v by a number in (0, 1],
// is at least v, so the answer is no, as the division would say.
func tailBelow(v, r, eps float64) bool {
	return v < eps && v/(1-r) < eps
}

// poissonLo returns the bottom of the support of poissonPMF(x, eps), found
// by the same walk down from the mode, without the law.
func poissonLo(x, eps float64) int {
	if !(x > 0) {
		return 0
	}
	m, pm := poissonMode(x)
	lo, _ := poissonDown(nil, x, eps, m, pm, false)
	return lo
}

// poissonDown walks down from the mode m of Poisson(x) (pm ≈ π(m)) while
// the lower tail is at least eps, appending π(n)/π(m) to buf when keep is
// set, and returns the bottom of the support and buf.
func poissonDown(buf []float64, x, eps float64, m int, pm float64, keep bool) (int, []float64) {
	p := 1.0
	lo := m
	for lo > 0 {
		sigma := float64(lo) / x // π(lo−1)/π(lo)
		if sigma < 1 && tailBelow(pm*p*sigma, sigma, eps) {
			break
		}
		p *= sigma
		lo--
		if keep {
			buf = append(buf, p)
		}
	}
	return lo, buf
}

// poissonAt returns the single Poisson probability e^{−x} xⁿ/n! for small
// n, as the product e^{−x}·Π_{i≤n} x/i (relative error about n ulps; each
// partial product is itself a probability, so nothing overflows) while e^{−x}
// is representable, and through lgamma otherwise.
func poissonAt(x float64, n int) float64 {
	if n < 0 {
		return 0
	}
	if !(x > 0) {
		if n == 0 {
			return 1
		}
		return 0
	}
	if x < 700 {
		p := math.Exp(-x)
		for i := 1; i <= n; i++ {
			p *= x / float64(i)
		}
		return p
	}
	lg, _ := math.Lgamma(float64(n) + 1)
	return math.Exp(float64(n)*math.Log(x) - x - lg)
}

// binomialPMF writes into buf the Binomial(n, θ) probabilities for
// i = 0, …, n and returns the slice.
func binomialPMF(buf []float64, n int, theta float64) []float64 {
	buf = buf[:0]
	for i := 0; i <= n; i++ {
		buf = append(buf, 0)
	}
	switch {
	case theta <= 0:
		buf[0] = 1
		return buf
	case theta >= 1:
		buf[n] = 1
		return buf
	}
	// Log space keeps every term accurate (n is a dispatcher count, small).
	lt, l1t := math.Log(theta), math.Log1p(-theta)
	lgn, _ := math.Lgamma(float64(n) + 1)
	var s float64
	for i := 0; i <= n; i++ {
		lgi, _ := math.Lgamma(float64(i) + 1)
		lgr, _ := math.Lgamma(float64(n-i) + 1)
		buf[i] = math.Exp(lgn - lgi - lgr + float64(i)*lt + float64(n-i)*l1t)
		s += buf[i]
	}
	for i := range buf {
		buf[i] /= s
	}
	return buf
}
