package meanfield_test

import (
	"fmt"

	"herd/fleet"
	"herd/meanfield"
)

// The herd from half the servers at 0.1T (k = 5, λ = 0.9; validation.md:
// herd mean ≈ 0.40·T; herd's own 100-server simulator measures 441.5 ± 0.3
// at T = 1,100, where the published 449 is disputed: compare/validation.md).
func ExampleHerdBranch() {
	br, err := meanfield.HerdBranch(meanfield.BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{1100}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range br.Points {
		a := p.Attractor
		fmt.Printf("T = %g from %s: %s, period %d, herd %v, board mean %.3f·T, response %.1f\n",
			p.Mu, p.Start, a.Status, a.Period, p.Attractor.Herd, a.BoardMean/p.Mu, a.Response)
	}
	// Output:
	// T = 1100 from half:0.1T: periodic, period 2, herd true, board mean 0.400·T, response 441.4
}

// The herd at T = 300 drifts instead of settling: it is classified
// aperiodic, with window averages (validation.md: herd mean ≈ 0.40·T).
func ExampleFindHerdAttractor() {
	r := meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: 300}
	a, err := meanfield.FindHerdAttractor(r, meanfield.HerdStartBoard(fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 300), meanfield.HerdSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s near period %d, herd %v, board mean %.2f·T over %d maps\n", a.Status, a.NearPeriod, a.Herd, a.BoardMean/300, a.Averaged)
	// Output:
	// aperiodic near period 2, herd true, board mean 0.40·T over 256 maps
}

// The smallest half-loaded backlog that tips k = 5, λ = 0.9 at T = 1,100
// (validation.md, simulation: 0.1T tips, 0.05T recovers).
func ExampleMinTipBacklog() {
	r, err := meanfield.MinTipBacklog(meanfield.TipSettings{Dispatchers: 5, Load: 0.9, Refresh: 1100, Tol: 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("tips from half:%.2fT\n", r.Fraction)
	// Output:
	// tips from half:0.07T
}
