package sim_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"herd/compare"
	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// replicate runs c with a fixed master seed and fails the test on error.
func replicate(t *testing.T, c sim.Config, runs int) sim.Summary {
	t.Helper()
	s, err := sim.Replicate(context.Background(), c, runs, 20261129, runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// within checks that a simulated mean agrees with an exact value to within
// compare.Band(runs) standard errors (from independent replications):
// t(1 − compare.FalseAlarm/2, runs − 1), a false alarm once in 1,000 checks
// of a correct simulator.
func within(t *testing.T, name string, got sim.Stat, want float64) {
	t.Helper()
	z := compare.Band(got.N)
	diff := got.Mean - want
	if !(math.Abs(diff) <= z*got.SE) {
		t.Errorf("%s: got %.5g ± %.2g (s.e., %d runs), want %.5g: off by %.2g = %.1f s.e. (band %.3g s.e., t with %d d.f.)",
			name, got.Mean, got.SE, got.N, want, diff, diff/got.SE, z, got.N-1)
	} else {
		t.Logf("%s: got %.5g ± %.2g, want %.5g (%.1f s.e.)", name, got.Mean, got.SE, want, diff/got.SE)
	}
}

func must(v float64, err error) float64 {
	if err != nil {
		panic(err)
	}
	return v
}

func gim1(r meanfield.GIM1Result, err error) float64 {
	if err != nil {
		panic(err)
	}
	return r.Response
}

// The band. The former one, 4 standard errors "once in 16,000", assumed a
// normal law; with the s.e. estimated from 8 runs (7 d.f.) it was a false
// alarm in 0.52% of checks, with 12 runs in 0.21%. within uses herd
// validate's band, t(0.9995, runs − 1): 0.1% per check, 5.41 s.e. for 8
// runs, 4.44 for 12.

func TestClosedForms(t *testing.T) {
	t.Parallel()
	h2 := func(c float64) fleet.Sizes { return fleet.Sizes{Kind: fleet.H2, Param: c} }
	rr := fleet.Policy{Kind: fleet.RoundRobin}
	cases := []struct {
		name string
		c    sim.Config
		runs int
		want float64
	}{
		// M/M/1 (Kleinrock 1975, §3.2): 1/(1−λ).
		{"random λ=0.5 = M/M/1", sim.Config{Servers: 100, Load: 0.5, Horizon: 4000}, 8, must(meanfield.MM1Response(0.5))},
		{"random λ=0.9 = M/M/1", sim.Config{Servers: 100, Load: 0.9, Horizon: 20000}, 8, must(meanfield.MM1Response(0.9))},
		// Pollaczek–Khinchine with E[S²] = 1 + C: 50.5 at C = 10, λ = 0.9 (validation.md).
		{"random h2:10 = P-K", sim.Config{Servers: 100, Load: 0.9, Sizes: h2(10), Horizon: 20000}, 12, must(meanfield.PKResponse(0.9, 11))},
		// M/D/1 by P-K with E[S²] = 1.
		{"random det = M/D/1", sim.Config{Servers: 100, Load: 0.9, Sizes: fleet.Sizes{Kind: fleet.Det}, Horizon: 10000}, 8, must(meanfield.PKResponse(0.9, 1))},
		// M/E_4/1 by P-K with E[S²] = 1 + 1/K = 1.25.
		{"random erlang:4 = P-K", sim.Config{Servers: 100, Load: 0.9, Sizes: fleet.Sizes{Kind: fleet.Erlang, Param: 4}, Horizon: 10000}, 8, must(meanfield.PKResponse(0.9, 1.25))},
		// Round robin with one dispatcher: each server sees Erlang-N gaps, E_N/M/1
		// (issue 2: 7.588 for N = 2, 5.660 for N = 10, 5.227 for N = 100 at λ = 0.9).
		{"rr N=2 = E_2/M/1", sim.Config{Servers: 2, Load: 0.9, Policy: rr, Horizon: 400000}, 8, gim1(meanfield.ErlangM1(2, 0.9))},
		{"rr N=10 = E_10/M/1", sim.Config{Servers: 10, Load: 0.9, Policy: rr, Horizon: 100000}, 8, gim1(meanfield.ErlangM1(10, 0.9))},
		{"rr N=100 = E_100/M/1", sim.Config{Servers: 100, Load: 0.9, Policy: rr, Horizon: 10000}, 8, gim1(meanfield.ErlangM1(100, 0.9))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			within(t, tc.name, replicate(t, tc.c, tc.runs).Response, tc.want)
		})
	}
}

// supermarketBiasN is the finite-N bias of live best of two (distinct
// probes, as herd simulates) at λ = 0.9: N·(x_N − x_∞) measured with herd
// sim at N = 100, 200 and 400 (32 runs each, 8·10⁸ server-time units per
// N): 3.174 ± 0.064, 2.834 ± 0.169, 3.379 ± 0.266; a weighted fit of c/N
// gives c = 3.14 ± 0.06 with χ² = 4.4 on 2 d.f. (a 1/N law fits). At
// N = 1,000 the bias is 0.0031 (validate's allowance, compare/checks.go).
const supermarketBiasN = 3.14

// Live best of two at N = 1,000 agrees with the supermarket fixed point
// (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher 2001: 2.614 at
// λ = 0.9; published simulation 2.616 ± 0.012) plus its measured finite-N
// bias c/N, within the t band. (It was "within 0.5%", 0.013: the band,
// 5.41 s.e. of 8 runs of 20,000, is about 0.009.)
func TestLiveBestOfTwoSupermarket(t *testing.T) {
	t.Parallel()
	want := must(meanfield.SupermarketResponse(2, 0.9)) + supermarketBiasN/1000
	s := replicate(t, sim.Config{Servers: 1000, Load: 0.9, Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}, Horizon: 20000}, 8)
	within(t, "live sq2, N = 1000, vs supermarket + c/N", s.Response, want)
}

// Live best of two sampled with replacement, as in the mean-field
// literature: the mean number of jobs per server at λ = 0.9 for small N is
// known from exact simulation (the table quoted in issue 2). Little's law
// gives jobs per server = λ × mean time in system.
func TestLiveBestOfTwoWithReplacement(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n       int
		want    float64
		horizon float64
	}{
		{10, 2.8003, 200000}, // published exact-simulation table (issue 2)
		{20, 2.5662, 100000}, // same table
		{50, 2.4350, 40000},  // same table
		{100, 2.3931, 20000}, // same table
	}
	for _, tc := range cases {
		t.Run("N="+itoa(tc.n), func(t *testing.T) {
			t.Parallel()
			c := sim.Config{Servers: tc.n, Load: 0.9, Horizon: tc.horizon,
				Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2, WithReplacement: true}}
			s := replicate(t, c, 8)
			jobs := sim.Stat{Mean: 0.9 * s.Response.Mean, SE: 0.9 * s.Response.SE, N: s.Response.N}
			within(t, "jobs per server", jobs, tc.want)
		})
	}
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
