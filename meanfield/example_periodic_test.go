package meanfield_test

import (
	"fmt"
	"log"

	"herd/fleet"
	"herd/meanfield"
)

// The supermarket model SQ(2) at λ = 0.9 relaxing from the empty system to
// the fixed point of Vvedenskaya, Dobrushin & Karpelevich (mean time
// 2.614).
func ExampleSupermarketTransient() {
	live, err := meanfield.SupermarketResponse(2, 0.9)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range []float64{10, 50, 400} {
		r, err := meanfield.SupermarketTransient{D: 2, Load: 0.9}.Run(nil, t)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("t = %-3v mean queue %.6f\n", t, r.QueueMean)
	}
	fmt.Printf("fixed point mean time %.6f\n", live)
	// Output:
	// t = 10  mean queue 1.792743
	// t = 50  mean queue 2.330763
	// t = 400 mean queue 2.352652
	// fixed point mean time 2.614057
}

// Best of two on a board refreshed every T = 10 service times, one
// dispatcher, λ = 0.9 (validation.md: a 100-server simulation gives 5.1).
func ExamplePeriodicUpdate_Solve() {
	r, err := meanfield.PeriodicUpdate{Policy: meanfield.UpdateSQD, D: 2, Load: 0.9, Period: 10}.Solve(nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("period %d, board mean %.3f, mean time %.3f\n", r.Period, r.BoardMean, r.Response)
	// Output:
	// period 1, board mean 4.597, mean time 5.059
}

// The model answers behind herd model --policy … --load 0.9.
func ExampleClassicModel() {
	for _, c := range []struct {
		policy  string
		refresh float64
		servers int
	}{
		{"random", 0, 0},
		{"rr", 0, 0},
		{"rr", 0, 100},
		{"sq2", 0, 0},
		{"sq2", 10, 0},
		{"ll", 2, 0},
	} {
		p, err := fleet.ParsePolicy(c.policy)
		if err != nil {
			log.Fatal(err)
		}
		r, err := meanfield.ClassicModel(meanfield.ClassicSettings{Policy: p, Load: 0.9, Refresh: c.refresh, Servers: c.servers})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-6s T=%-2v N=%-3d mean time %.3f (period %d)\n", p, c.refresh, c.servers, r.ResponseMean, r.Period)
	}
	// Output:
	// random T=0  N=0   mean time 10.000 (period 1)
	// rr     T=0  N=0   mean time 5.179 (period 1)
	// rr     T=0  N=100 mean time 5.227 (period 1)
	// sq2    T=0  N=0   mean time 2.614 (period 1)
	// sq2    T=10 N=0   mean time 5.059 (period 1)
	// ll     T=2  N=0   mean time 5.689 (period 1)
}
