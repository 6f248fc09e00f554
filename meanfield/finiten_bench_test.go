package meanfield

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFiniteEdge times one finite-fleet edge (FiniteEdge, package doc,
// §8, (8.6)) from the map's edge (Edge's, so no edge search is timed),
// seed 1, with the defaults of herd edge --servers (6 runs of 1,000
// periods per point, 3 bisections): at k = 5, λ = 0.9, N = 100 on one
// worker and on two (_w2; the same result), and the costliest
// exponential cell of issue 45's table, k = 10, λ = 0.95, N = 25, on two
// (herd edge --servers 25 took 9.07 s with its edge search on an idle
// 2-core machine on 2026-12-07; N = 100, 400, 1,600: 8.48, 7.78, 8.02 s;
// the other (k, λ) of the table 1.9–17.8 s for their four N together).
// Issue 45's goal is under 10 s
// per cell with exponential sizes on a 2-core machine. Select it with
// -bench 'FiniteEdge'.
func BenchmarkFiniteEdge(b *testing.B) {
	cases := []struct {
		name    string
		k, n, w int
		load    float64
		model   float64
	}{
		{"k5_l0.9_n100", 5, 100, 1, 0.9, 2.899220489371815},
		{"k5_l0.9_n100_w2", 5, 100, 2, 0.9, 2.899220489371815},
		{"k10_l0.95_n25_w2", 10, 25, 2, 0.95, 6.823156390595234},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var r FiniteEdgeResult
			var err error
			for b.Loop() {
				r, err = FiniteEdge(FiniteEdgeSettings{Dispatchers: c.k, Load: c.load, Servers: c.n, ModelScaled: c.model, Seed: 1, Workers: c.w})
				if err != nil {
					b.Fatal(err)
				}
			}
			if r.Status != Found {
				b.Fatalf("status %v", r.Status)
			}
			b.ReportMetric(float64(r.Maps), "maps")
			b.ReportMetric(r.Scaled, "edge")
		})
	}
}

// particleRun is one run of the particle map on maps of its own
// (particleMaps.run), as BenchmarkParticleMap times it: every load level's
// map is made by the run.
func particleRun(r Refresh, N int, rng *rand.Rand, runs int, theta float64, start []float64, response bool, stop func() bool) (tipAt, maps int, resp float64, err error) {
	return new(particleMaps).run(r, N, rng, runs, theta, start, response, stop)
}

// BenchmarkFleetPeriod times one refresh period of the two particle runs
// (package doc, §8.6) with h2:4 sizes at k = 10, λ = 0.9,
// T(1−λ)² = 30.2 (T = 3,020), from 50 periods on (the fleet balanced):
// the servers' runs at N = 100, 400 and 1,600 (about N·λ·T = 272,000 jobs
// a period at N = 100) and the particle map, whose period is one
// phase-type map at any N (and the draws; each op a run from the empty
// board). On an idle 2-core machine, 2026-12-07: servers 10.0, 37.1
// and 153 ms in lock-step at a noisy load, 10.8, 42.6 and 171 ms on the
// dispatchers' clocks (15.5, 60.6 and 245 with each server's arrivals
// sorted instead of merged), the particle map 10.8–11.0 ms (busy: 9–17,
// 37–57, 205–226 and 14–20 ms, lock-step). Select it with -bench
// 'FleetPeriod'.
func BenchmarkFleetPeriod(b *testing.B) {
	r := Refresh{Dispatchers: 10, Load: 0.9, Period: 30.2 / 0.01, Service: H2Service(4)}
	for _, n := range []int{100, 400, 1600} {
		b.Run(fmt.Sprintf("servers_n%d", n), func(b *testing.B) {
			f := newServerFleet(r, n, rand.New(rand.NewPCG(1, 2)))
			for range 50 {
				f.period(false)
			}
			for b.Loop() {
				f.period(false)
			}
			b.ReportMetric(f.mean(), "board_mean")
		})
	}
	b.Run("board_n100", func(b *testing.B) {
		const warm = 50
		pm := new(particleMaps)
		theta := max(3/(1-r.Load), 0.1*r.Period)
		start := r.Service.Lift(BoardEmpty())
		if _, _, _, err := pm.run(r, 100, rand.New(rand.NewPCG(1, 2)), warm, theta, start, false, nil); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			// A run of warm+1 periods on the maps kept from the first.
			if _, _, _, err := pm.run(r, 100, rand.New(rand.NewPCG(1, 2)), warm+1, theta, start, false, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N*(warm+1)), "ms/period")
	})
}
