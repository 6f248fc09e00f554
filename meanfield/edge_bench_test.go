package meanfield

import "testing"

// BenchmarkEdge times one full edge computation and reports the
// refresh-map applications it used and the edge found. Issue 15's goals,
// on an idle 2-core machine: under 3 s for k ≤ 16 and λ ≤ 0.95, under
// 60 s for (k, λ) = (64, 0.9) and (5, 0.99). The last two cases took
// 14 s and 2.7 minutes (k = 64, λ = 0.9 and k = 5, λ = 0.99, two workers,
// idle 2-core AMD EPYC, `herd edge`, 2026-12-02); with the AVX2 kernels
// (simd_amd64.s) k = 5, λ = 0.99 takes 152 s against 260 s without, and
// k = 16, λ = 0.95 3.8 s against 6.7 s (2026-12-06); with the descent's
// closing trial first near a border (fixedpoint.FollowSettings.CloseFirst)
// k = 5, λ = 0.99 takes 133 s and 3,227 maps against 159 s and 3,661, and
// h2:10 at (5, 0.9) (BenchmarkEdgeGoals) 372 s and 2,883 maps against
// 497 s and 4,373, the same edges (2026-12-06); with the accelerated
// runs' steady test and their end when acceleration is off (edgeaccel.go)
// k = 5, λ = 0.99 takes 2,999 maps against 3,227 and h2:10 2,338 against
// 2,585, but the same wall time with two workers (122 s against 121 s,
// 333 s against 330 s: the maps saved were in failing follow trials,
// which the second worker already overlapped), 2026-12-06; with the
// geometric jump (edgeaccel.go, geoAdmit) k = 5, λ = 0.99 takes 2,437 maps
// against 2,999 and 47–51 s against 58–59 s (`herd edge`, two workers,
// the same idle machine, runs interleaved; this machine ran the same
// search in 122 s on an earlier day), k = 3 and 4 at λ = 0.99 6,325 and
// 4,572 maps against 6,934 and 5,518 (52 s against 57 s; 102 s against
// 99 s), the default table 14,889 maps against 14,851, h2 sizes
// unchanged (2026-12-06); with the chain kernel's eight-row passes,
// tailTerms' certified partial sums, the board-only herd and evolve's
// bounds on the rows a window writes (every board the same to the bit)
// k = 5, λ = 0.99 takes 37.9–38.1 s against 44.2–47.5 s and k = 16,
// λ = 0.97 10.8–12.1 s against 13.1–13.2 s (`herd edge`, two workers,
// interleaved, same day); with the full windows' closed form in the
// board-only maps (refreshballot.go: the same edges and map counts), at
// λ = 0.99 k = 4 takes 52.4 s against 60.4 s and k = 10 27.4 s against
// 44.3 s, and k = 14, 15, 16 at λ = 0.95 2.1 s together (`herd edge`,
// two workers, 2026-12-06). Select with -bench 'Edge/k5_l0.9$' and the
// like. Each case
// runs with one worker and, suffixed _w2, with two (EdgeSettings.Workers:
// the same result, its independent runs on two cores).
func BenchmarkEdge(b *testing.B) {
	cases := []struct {
		name string
		k    int
		load float64
	}{
		{"k5_l0.9", 5, 0.9},
		{"k16_l0.9", 16, 0.9},
		{"k5_l0.95", 5, 0.95},
		{"k10_l0.95", 10, 0.95},
		{"k5_l0.99", 5, 0.99},
		{"k64_l0.9", 64, 0.9},
	}
	for _, c := range cases {
		for _, w := range []int{1, 2} {
			name := c.name
			if w > 1 {
				name += "_w2"
			}
			b.Run(name, func(b *testing.B) {
				var r EdgeResult
				var cost [edgeSteps]stepCost
				var err error
				b.ReportAllocs()
				for b.Loop() {
					r, cost, err = edge(EdgeSettings{Dispatchers: c.k, Load: c.load, Workers: w})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Maps), "maps")
				b.ReportMetric(r.Scaled, "edge_scaled")
				for p, c := range cost {
					b.ReportMetric(float64(c.maps), "maps_"+stepNames[p])
				}
			})
		}
	}
}
