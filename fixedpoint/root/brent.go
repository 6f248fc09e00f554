package root

import "math"

// Brent returns a root of f in the bracket [a, b], where fa = f(a) and
// fb = f(b) have opposite signs (or one is zero), to within
// 4ε|x| + 10⁻³⁰⁰, after at most maxEval further evaluations of f; ok is
// false if that budget runs out. It is Brent's procedure zero (R. P. Brent,
// Algorithms for Minimization without Derivatives, Prentice-Hall, 1973,
// Ch. 4, §4.6) in the arrangement of Press et al., Numerical Recipes,
// 3rd ed., 2007, §9.3 (zbrent): each step takes an inverse quadratic (or
// secant) step when it falls well inside the bracket and shrinks fast
// enough, and a bisection step otherwise. A NaN from f ends the search with
// ok false.
func Brent(f func(float64) float64, a, b, fa, fb float64, maxEval int) (x float64, ok bool) {
	const eps = 0x1p-52
	const tiny = 1e-300
	c, fc := b, fb
	var d, e float64
	for i := 0; i <= maxEval; i++ {
		if math.IsNaN(fb) {
			return b, false
		}
		if (fb > 0 && fc > 0) || (fb < 0 && fc < 0) {
			// Keep the root between b and c.
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			// b is the best estimate so far.
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol1 := 2*eps*math.Abs(b) + 0.5*tiny
		xm := 0.5 * (c - b)
		if math.Abs(xm) <= tol1 || fb == 0 {
			return b, true
		}
		if i == maxEval {
			break
		}
		if math.Abs(e) >= tol1 && math.Abs(fa) > math.Abs(fb) {
			// Attempt inverse quadratic interpolation (secant if a == c).
			s := fb / fa
			var p, q float64
			if a == c {
				p = 2 * xm * s
				q = 1 - s
			} else {
				q = fa / fc
				r := fb / fc
				p = s * (2*xm*q*(q-r) - (b-a)*(r-1))
				q = (q - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				q = -q
			}
			p = math.Abs(p)
			if 2*p < math.Min(3*xm*q-math.Abs(tol1*q), math.Abs(e*q)) {
				e = d // accept interpolation
				d = p / q
			} else {
				d = xm // interpolation failed; bisect
				e = d
			}
		} else {
			d = xm // bounds decreasing too slowly; bisect
			e = d
		}
		a, fa = b, fb
		if math.Abs(d) > tol1 {
			b += d
		} else {
			b += math.Copysign(tol1, xm)
		}
		fb = f(b)
	}
	return b, false
}
