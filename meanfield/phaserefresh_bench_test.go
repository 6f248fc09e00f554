package meanfield

import "testing"

// BenchmarkPhaseRefreshApply times one application of the phase-type map
// on balanced states (k = 5, λ = 0.9, T = 300; h2:2 at T = 800) and on a herd state
// (T = 800, one map on from half:300), per service family; h2:30 near
// its k = 3 edge (T = 2,900, 12 maps on from empty), issue 17's costliest
// map; and, board only as the edge search makes them, h2:10 at its k = 5
// edge (T = 2,812, 30 maps on from empty): 37.5 ms with the drain stepped,
// 30.5 ms by kernels (phasedrainkernel.go), 16.4 ms with the drain beside
// the window walk on two cores (25.2 ms on one), 2026-12-07.
func BenchmarkPhaseRefreshApply(b *testing.B) {
	cases := []struct {
		name      string
		r         Refresh
		x0        []float64
		pre       int
		boardOnly bool
	}{
		{"exp_T300", Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, BoardEmpty(), 30, false},
		{"h2_2_T800_balanced", Refresh{Dispatchers: 5, Load: 0.9, Period: 800, Service: H2Service(2)}, BoardEmpty(), 20, false},
		{"erlang_4_T300", Refresh{Dispatchers: 5, Load: 0.9, Period: 300, Service: ErlangService(4)}, BoardEmpty(), 30, false},
		{"h2_10_T800_herd", Refresh{Dispatchers: 5, Load: 0.9, Period: 800, Service: H2Service(10)}, BoardHalf(300), 1, false},
		{"h2_30_T2900_balanced", Refresh{Dispatchers: 3, Load: 0.9, Period: 2900, Service: H2Service(30)}, BoardEmpty(), 12, false},
		{"h2_10_T2812_boardonly", Refresh{Dispatchers: 5, Load: 0.9, Period: 2812, Service: H2Service(10)}, BoardEmpty(), 30, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m, err := NewRefreshMap(c.r)
			if err != nil {
				b.Fatal(err)
			}
			m.boardOnly = c.boardOnly
			x := c.r.Service.Lift(c.x0)
			for i := 0; i < c.pre; i++ {
				res, err := m.Apply(nil, x)
				if err != nil {
					b.Fatal(err)
				}
				x = res.Next
			}
			var dst []float64
			b.ReportAllocs()
			for b.Loop() {
				res, err := m.Apply(dst, x)
				if err != nil {
					b.Fatal(err)
				}
				dst = res.Next
			}
		})
	}
}

// BenchmarkPhaseEdge times one edge computation with h2 sizes at k = 5,
// λ = 0.9 (issue 17: under 10 s on 2 cores) and reports the maps it used
// and the edge; suffixed _w2, with two workers (the same result, its
// independent runs on two cores).
func BenchmarkPhaseEdge(b *testing.B) {
	for _, svc := range []Service{H2Service(2)} {
		for _, w := range []int{1, 2} {
			name := "k5_l0.9_" + svc.String()
			if w > 1 {
				name += "_w2"
			}
			b.Run(name, func(b *testing.B) {
				var r EdgeResult
				var err error
				b.ReportAllocs()
				for b.Loop() {
					r, err = Edge(EdgeSettings{Dispatchers: 5, Load: 0.9, Service: svc, Workers: w})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Maps), "maps")
				b.ReportMetric(r.Scaled, "edge_scaled")
			})
		}
	}
}
