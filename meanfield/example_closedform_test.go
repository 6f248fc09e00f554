package meanfield_test

import (
	"fmt"
	"log"
	"math"

	"herd/meanfield"
)

// The closed forms at load λ = 0.9 for the policies of validation.md: random
// (M/M/1), live best of two with infinitely many servers, round robin over n
// servers (E_n/M/1) and over infinitely many (D/M/1).
func Example() {
	const load = 0.9
	random, err := meanfield.MM1Response(load)
	if err != nil {
		log.Fatal(err)
	}
	sq2, err := meanfield.SupermarketResponse(2, load)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("random (M/M/1)        %.3f\n", random)
	fmt.Printf("best of two, live     %.3f\n", sq2)
	for _, n := range []int{2, 10, 100} {
		rr, err := meanfield.ErlangM1(n, load)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("round robin, n = %-5d %.3f\n", n, rr.Response)
	}
	rr, err := meanfield.DM1(load)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("round robin, n = ∞     %.3f\n", rr.Response)
	// Output:
	// random (M/M/1)        10.000
	// best of two, live     2.614
	// round robin, n = 2     7.588
	// round robin, n = 10    5.660
	// round robin, n = 100   5.227
	// round robin, n = ∞     5.179
}

func ExampleDM1() {
	r, err := meanfield.DM1(0.9)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("σ = %.6f, mean time in system %.6f, residual below 1e-15: %t\n",
		r.Sigma, r.Response, r.Residual < 1e-15)
	// Output:
	// σ = 0.806900, mean time in system 5.178659, residual below 1e-15: true
}

func ExampleSupermarketTails() {
	s, err := meanfield.SupermarketTails(2, 0.9, 1e-3)
	if err != nil {
		log.Fatal(err)
	}
	for i, si := range s {
		fmt.Printf("s_%d = %.6f\n", i, si)
	}
	// Output:
	// s_0 = 1.000000
	// s_1 = 0.900000
	// s_2 = 0.729000
	// s_3 = 0.478297
	// s_4 = 0.205891
	// s_5 = 0.038152
	// s_6 = 0.001310
}

// GIM1 takes any interarrival transform with mean 1/λ. Here the
// interarrival time is hyperexponential, more variable than Poisson, so the
// queue is worse than M/M/1.
func ExampleGIM1() {
	const load = 0.9
	// Phases of rate 1.5λ and 0.75λ, each with probability 1/2: the mean
	// is (1/1.5 + 1/0.75)/(2λ) = 1/λ.
	a1, a2 := 1.5*load, 0.75*load
	lst := func(s float64) float64 {
		return 0.5*a1/(a1+s) + 0.5*a2/(a2+s)
	}
	r, err := meanfield.GIM1(lst, load)
	if err != nil {
		log.Fatal(err)
	}
	mm1, _ := meanfield.MM1Response(load)
	fmt.Printf("H2/M/1 %.4f, M/M/1 %.4f\n", r.Response, mm1)
	// Output:
	// H2/M/1 11.0197, M/M/1 10.0000
}

func ExamplePKResponse() {
	const load = 0.9
	for _, c := range []float64{10, 30} {
		m, err := meanfield.SecondMomentH2(c)
		if err != nil {
			log.Fatal(err)
		}
		t, err := meanfield.PKResponse(load, m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("h2:%v  %.1f\n", c, t)
	}
	m, _ := meanfield.SecondMomentPareto(1.8)
	t, _ := meanfield.PKResponse(load, m)
	fmt.Printf("pareto:1.8 infinite: %t\n", math.IsInf(t, 1))
	// Output:
	// h2:10  50.5
	// h2:30  140.5
	// pareto:1.8 infinite: true
}

func ExampleSupermarketRoundRobinCrossing() {
	c, err := meanfield.SupermarketRoundRobinCrossing(2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("live best of two beats round robin above λ = %.4f (mean time %.4f)\n", c.Load, c.Response)
	// Output:
	// live best of two beats round robin above λ = 0.5186 (mean time 1.2885)
}
