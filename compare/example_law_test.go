package compare_test

import (
	"fmt"

	"herd/compare"
)

// The line through edges that follow x = 0.9(k − 2) exactly, with one
// edge 0.05 high.
func ExampleFitLaw() {
	ks := []float64{3, 4, 5, 6, 8, 10}
	xs := []float64{0.9, 1.8, 2.7 + 0.05, 3.6, 5.4, 7.2}
	f, err := compare.FitLaw(ks, xs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("a = %.3f ± %.3f, b = %.3f ± %.3f, largest residual %+.3f at k = %g\n",
		f.A, f.ASE, f.B, f.BSE, f.MaxResidual, f.MaxResidualK)
	// Output:
	// a = 0.899 ± 0.004, b = 1.984 ± 0.020, largest residual +0.040 at k = 5
}

// A sequence x(λ) = 1 + 0.5(1 − λ) − 2(1 − λ)² on the default ladder: the
// quadratic through the three loads nearest 1 removes both corrections.
func ExampleHeavyTrafficLimit() {
	loads := []float64{0.9, 0.95, 0.975, 0.99}
	xs := make([]float64, len(loads))
	for i, l := range loads {
		h := 1 - l
		xs[i] = 1 + 0.5*h - 2*h*h
	}
	lim, err := compare.HeavyTrafficLimit(loads, xs, nil, compare.LimitSettings{MaxOrder: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("orders %.5f, limit %.5f ± %.1g\n", lim.Orders, lim.Value, lim.Err)
	// Output:
	// orders [1.00480 1.00050 1.00000], limit 1.00000 ± 0.004
}
