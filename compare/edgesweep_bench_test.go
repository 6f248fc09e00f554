package compare

import (
	"context"
	"testing"

	"herd/internal/pool"
	"herd/meanfield"
)

// BenchmarkEdgeTable times herd edge's default table (k = 2, 3, 4, 5, 6, 8,
// 10 at λ = 0.8, 0.9, 0.95: 21 edges) on the command's schedule (Edges:
// costliest first, one edge per worker) with one worker and with two, and
// reports its refresh-map applications. Issue 15's goal: under 15 s on two
// cores of an idle machine.
func BenchmarkEdgeTable(b *testing.B) {
	var settings []meanfield.EdgeSettings
	for _, load := range []float64{0.8, 0.9, 0.95} {
		for _, k := range []int{2, 3, 4, 5, 6, 8, 10} {
			settings = append(settings, meanfield.EdgeSettings{Dispatchers: k, Load: load})
		}
	}
	for _, w := range []int{1, 2} {
		name := "w1"
		if w > 1 {
			name = "w2"
		}
		b.Run(name, func(b *testing.B) {
			var pts []EdgePoint
			for b.Loop() {
				pts = Edges(settings, 0, benchPool(w), EdgeHooks{})
			}
			maps := 0
			for _, p := range pts {
				if p.Err != nil {
					b.Fatal(p.Err)
				}
				maps += p.Result.Maps
			}
			b.ReportMetric(float64(maps), "maps")
		})
	}
}

// benchPool is herd's one worker pool (pool.Parallel) on w goroutines.
func benchPool(w int) Pool {
	return func(n int, work func(i int)) []bool {
		_, done := pool.Parallel(context.Background(), n, w, func(i int) (struct{}, bool) {
			work(i)
			return struct{}{}, true
		}, nil)
		return done
	}
}
