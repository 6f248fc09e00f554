package root

import (
	"math"
	"testing"
)

func TestBrent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		f    func(float64) float64
		a, b float64
		want float64
	}{
		// x² − 2 on [0, 2]: √2.
		{name: "sqrt2", f: func(x float64) float64 { return x*x - 2 }, a: 0, b: 2, want: math.Sqrt2},
		// cos x − x on [0, 1]: the Dottie number 0.7390851332151607
		// (OEIS A003957).
		{name: "dottie", f: func(x float64) float64 { return math.Cos(x) - x }, a: 0, b: 1, want: 0.7390851332151607},
		// A step function: the root is the jump at 1/3, found by bisection.
		{name: "step", f: func(x float64) float64 {
			if x < 1.0/3 {
				return -1
			}
			return 1
		}, a: 0, b: 1, want: 1.0 / 3},
		// (x − 1)³ on [0, 3]: a triple root, slow for interpolation.
		{name: "triple", f: func(x float64) float64 { return (x - 1) * (x - 1) * (x - 1) }, a: 0, b: 3, want: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x, ok := Brent(tc.f, tc.a, tc.b, tc.f(tc.a), tc.f(tc.b), 200)
			if !ok {
				t.Fatalf("Brent did not converge; last %v", x)
			}
			// Converged to 4ε|x| (plus the triple root's flat region,
			// where f underflows the tolerance: |x − 1| ≤ 1e-5).
			tol := 4 * 0x1p-52 * math.Abs(tc.want)
			if tc.name == "triple" {
				tol = 1e-5
			}
			if math.Abs(x-tc.want) > tol {
				t.Errorf("root = %v, want %v (difference %g)", x, tc.want, x-tc.want)
			}
		})
	}
	// Budget exhausted.
	if _, ok := Brent(func(x float64) float64 { return x - 0.3 }, 0, 1, -0.3, 0.7, 0); ok {
		t.Error("Brent with no evaluations left reported convergence")
	}
}
