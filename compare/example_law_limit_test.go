package compare_test

import (
	"fmt"

	"herd/compare"
)

// ExampleMapLimit computes the heavy-traffic edge x*(3) directly from the
// limit map, on grids h = 0.08 and 0.04 extrapolated to h = 0 (the default
// grids, 0.04 and 0.02, give 0.95236 ± 0.0002).
func ExampleMapLimit() {
	r, err := compare.MapLimit(3, compare.MapLimitSettings{Step: 0.08})
	if err != nil {
		panic(err)
	}
	fmt.Printf("x*(3) = %.3f, error below 0.002: %v\n", r.Value, r.Err < 2e-3)
	// Output: x*(3) = 0.952, error below 0.002: true
}
