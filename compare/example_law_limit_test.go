package compare_test

import (
	"fmt"

	"herd/compare"
)

// ExampleMapLimit computes the heavy-traffic edge x*(3) directly from the
// limit map, on grids h = 0.04 and 0.02 extrapolated to h = 0.
func ExampleMapLimit() {
	r, err := compare.MapLimit(3, compare.MapLimitSettings{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("x*(3) = %.3f, error below 0.001: %v\n", r.Value, r.Err < 1e-3)
	// Output: x*(3) = 0.952, error below 0.001: true
}
