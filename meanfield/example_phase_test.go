package meanfield_test

import (
	"fmt"

	"herd/meanfield"
)

// The refresh map with hyperexponential sizes (C = 4): three dispatchers
// at λ = 0.8 reach a balanced fixed point from the empty board, whose queues
// are longer than with exponential sizes (board mean 8.47 against 2.84,
// herd point at the same k, λ, T); the state is the joint law of (queue,
// phase of the job in service).
func ExampleService() {
	r := meanfield.Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: meanfield.H2Service(4)}
	a, err := meanfield.FindAttractor(r, r.Service.Lift(meanfield.BoardEmpty()), meanfield.AttractorSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s, balanced %t, board mean %.3f, response %.3f, %d phases\n",
		r.Service, a.Status, a.Balanced, a.BoardMean, a.Response, r.Service.PhaseCount())
	// Output: h2:4: fixed, balanced true, board mean 8.473, response 9.799, 2 phases
}
