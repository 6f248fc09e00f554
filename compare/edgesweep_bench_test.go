package compare

import (
	"sync"
	"testing"

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
				pts = Edges(settings, false, benchPool(w), EdgeHooks{})
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

// benchPool runs the work on w goroutines, taking the items in order.
func benchPool(w int) Pool {
	return func(n int, work func(i int)) []bool {
		var mu sync.Mutex
		next := 0
		var wg sync.WaitGroup
		for range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					if i >= n {
						return
					}
					work(i)
				}
			}()
		}
		wg.Wait()
		done := make([]bool, n)
		for i := range done {
			done[i] = true
		}
		return done
	}
}
