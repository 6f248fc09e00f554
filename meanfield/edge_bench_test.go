package meanfield

import "testing"

// BenchmarkEdge times one full edge computation (issue 3: under 1 s at
// λ = 0.9) and reports the refresh-map applications it used.
func BenchmarkEdge(b *testing.B) {
	cases := []struct {
		name string
		k    int
		load float64
	}{
		{"k5_l0.9", 5, 0.9},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var r EdgeResult
			var err error
			b.ReportAllocs()
			for b.Loop() {
				r, err = Edge(EdgeSettings{Dispatchers: c.k, Load: c.load})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Maps), "maps")
			b.ReportMetric(r.Scaled, "edge_scaled")
		})
	}
}
