package compare

import (
	"fmt"
	"testing"
)

// BenchmarkMapLimit times x*(k, C), the heavy-traffic limit map's edge on
// two grids (MapLimit with the defaults, as herd edge --method expansion
// and herd plan compute it), at k = 5, 16, 64 with C = 1 and 100, the two
// grids one after the other (w1) and at once (w2), and reports the maps of
// both grids. Issue 44's goal: each under 10 s on two idle cores.
func BenchmarkMapLimit(b *testing.B) {
	for _, c := range []struct {
		k int
		v float64
	}{{5, 1}, {5, 100}, {16, 1}, {16, 100}, {64, 1}, {64, 100}} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("k=%d/C=%g/w%d", c.k, c.v, w), func(b *testing.B) {
				var r MapLimitResult
				for b.Loop() {
					var err error
					if r, err = MapLimit(c.k, MapLimitSettings{Variance: c.v, Workers: w}); err != nil || !r.Exists {
						b.Fatalf("exists %v, err %v", r.Exists, err)
					}
				}
				b.ReportMetric(float64(r.Coarse.Maps+r.Fine.Maps), "maps")
				b.ReportMetric(r.Value, "x*")
			})
		}
	}
}
