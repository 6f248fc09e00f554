package plotting_test

import (
	"fmt"

	"herd/cmd/internal/plotting"
)

func ExampleSpansDecades() {
	meanTimes := []float64{1.3, 1.7, 2.9, 5.2}      // under one decade
	tail := []float64{1, 0.35, 0.12, 0.005, 2.7e-5} // nearly five decades
	fmt.Println(plotting.SpansDecades(meanTimes), plotting.SpansDecades(tail))
	// Output:
	// false true
}
