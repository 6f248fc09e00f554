package meanfield

import (
	"fmt"
	"testing"
)

// BenchmarkFindHerdAttractor times the herd attractor from half:0.1T at
// k = 5, λ = 0.9 (validation.md's 5-dispatcher rows): an aperiodic herd at
// T = 300 (Settle + Average = 456 maps) and period-2 herds above.
func BenchmarkFindHerdAttractor(b *testing.B) {
	for _, T := range []float64{300, 1100, 3000} {
		b.Run(fmt.Sprintf("k5_l0.9_T%g", T), func(b *testing.B) {
			r := Refresh{Dispatchers: 5, Load: 0.9, Period: T}
			start := HerdStartBoard(DefaultHerdStart(), T)
			var a HerdAttractor
			b.ReportAllocs()
			for b.Loop() {
				var err error
				a, err = FindHerdAttractor(r, start, HerdSettings{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(a.Maps), "maps")
			b.ReportMetric(float64(a.Rows), "rows")
		})
	}
}

// BenchmarkBistable times the bistable range on short scans: k = 3 (the
// herd is lost at T ≈ 26, and the loss is bisected) and k = 5 (the herd
// reaches both ends of the scan), λ = 0.9.
func BenchmarkBistable(b *testing.B) {
	for _, s := range []BistableSettings{
		{Dispatchers: 3, Load: 0.9, MinScaled: 0.2, MaxScaled: 1.5, Step: 1.5},
		{Dispatchers: 5, Load: 0.9, MinScaled: 1.5, MaxScaled: 4, Step: 2, RelTol: 0.05},
	} {
		b.Run(fmt.Sprintf("k%d_l%g", s.Dispatchers, s.Load), func(b *testing.B) {
			var r BistableResult
			b.ReportAllocs()
			for b.Loop() {
				var err error
				r, err = Bistable(s)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Maps), "maps")
			b.ReportMetric(float64(r.Probes), "probes")
			b.ReportMetric(r.HerdLow, "herd_low")
		})
	}
}
