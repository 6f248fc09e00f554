package meanfield

import "math"

// gaussLegendre returns the n-point Gauss–Legendre nodes and weights on
// [0, 1], so that ∫₀¹ f ≈ Σ w_i f(x_i), exact for polynomials of degree
// 2n − 1. The nodes are the roots of the Legendre polynomial P_n found by
// Newton's method from Tricomi's initial guesses cos(π(i − 1/4)/(n + 1/2)),
// with P_n and P_n' from the three-term recurrence
//
//	(j+1) P_{j+1}(t) = (2j+1) t P_j(t) − j P_{j−1}(t),
//	P_n'(t) = n (t P_n(t) − P_{n−1}(t)) / (t² − 1),
//
// and weights 2/((1 − t²) P_n'(t)²) on [−1, 1] (Abramowitz & Stegun 1964,
// 25.4.29; Press et al., Numerical Recipes, 3rd ed., §4.6, gauleg).
func gaussLegendre(n int) (x, w []float64) {
	x = make([]float64, n)
	w = make([]float64, n)
	for i := 0; i < (n+1)/2; i++ {
		t := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for iter := 0; iter < 100; iter++ {
			p0, p1 := 1.0, t
			for j := 1; j < n; j++ {
				p0, p1 = p1, (float64(2*j+1)*t*p1-float64(j)*p0)/float64(j+1)
			}
			if n == 1 {
				p0, p1 = 1, t
			}
			dp = float64(n) * (t*p1 - p0) / (t*t - 1)
			dt := p1 / dp
			t -= dt
			if math.Abs(dt) < 1e-16 {
				break
			}
		}
		// Recompute the derivative at the converged root.
		p0, p1 := 1.0, t
		for j := 1; j < n; j++ {
			p0, p1 = p1, (float64(2*j+1)*t*p1-float64(j)*p0)/float64(j+1)
		}
		dp = float64(n) * (t*p1 - p0) / (t*t - 1)
		wt := 2 / ((1 - t*t) * dp * dp)
		// Map t ∈ [−1, 1] to [0, 1]; the weight halves.
		x[i], x[n-1-i] = (1-t)/2, (1+t)/2
		w[i], w[n-1-i] = wt/2, wt/2
	}
	return x, w
}
