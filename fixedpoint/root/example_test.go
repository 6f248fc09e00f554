package root_test

import (
	"fmt"
	"math"

	"herd/fixedpoint/root"
)

// √2 as the point where x² ≥ 2 begins, bisected from [1, 2] to a width of
// 10⁻⁶ with the rule mid = (lo + hi)/2.
func ExampleBisect() {
	lo, hi, err := root.Bisect(func(x float64) (bool, error) { return x*x >= 2, nil }, 1, 2, root.Midpoint(1e-6, 0))
	fmt.Printf("%.6f %.6f %v\n", lo, hi, err)
	// Output: 1.414213 1.414214 <nil>
}

// Where 1/μ falls below 0.01, bracketed in log μ to 0.1% from [1, 10⁶]:
// the predicate 1/μ < 0.01 is false at 1 and true at 10⁶.
func ExampleGeometric() {
	lo, hi, err := root.Bisect(func(mu float64) (bool, error) { return 1/mu < 0.01, nil }, 1, 1e6, root.Geometric(1e-3))
	fmt.Printf("%.3f %.3f %v\n", lo, hi, err)
	// Output: 99.972 100.056 <nil>
}

// The Dottie number 0.7390851332… (OEIS A003957), the root of cos x − x
// in [0, 1], by Brent's method.
func ExampleBrent() {
	f := func(x float64) float64 { return math.Cos(x) - x }
	x, ok := root.Brent(f, 0, 1, f(0), f(1), 100)
	fmt.Printf("%.10f %v\n", x, ok)
	// Output: 0.7390851332 true
}
