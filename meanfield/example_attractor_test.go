package meanfield_test

import (
	"fmt"

	"herd/meanfield"
)

// The balanced fixed point at k = 5, λ = 0.9, T = 400 from the empty board
// (validation.md: mean board value 5.49).
func ExampleFindAttractor() {
	a, err := meanfield.FindAttractor(meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: 400}, meanfield.BoardEmpty(), meanfield.AttractorSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, period %d, balanced %v, board mean %.2f\n", a.Status, a.Period, a.Balanced, a.BoardMean)
	// Output:
	// fixed, period 1, balanced true, board mean 5.49
}

// The edge of the balanced state at k = 5, λ = 0.9 (validation.md: 2.90).
func ExampleEdge() {
	r, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: 5, Load: 0.9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("edge T(1−λ)² = %.2f, %s collision, herd below: period %d\n", r.Scaled, r.Crossing, r.Herd.Period)
	// Output:
	// edge T(1−λ)² = 2.90, border collision, herd below: period 2
}
