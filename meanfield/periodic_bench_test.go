package meanfield

import "testing"

// BenchmarkSupermarket times the SQ(2) model at λ = 0.9: the closed-form
// fixed point (tails and mean time) and the transient from empty to
// t = 100. The common public mean-field tool takes 0.075 s and 0.05 s for
// these (plus 0.65 s start-up).
func BenchmarkSupermarket(b *testing.B) {
	b.Run("fixed_point", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := SupermarketTails(2, 0.9, 0); err != nil {
				b.Fatal(err)
			}
			if _, err := SupermarketResponse(2, 0.9); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("transient_t100", func(b *testing.B) {
		var r SupermarketTransientResult
		var err error
		b.ReportAllocs()
		for b.Loop() {
			r, err = SupermarketTransient{D: 2, Load: 0.9}.Run(nil, 100)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(r.Steps), "steps")
	})
}

// BenchmarkPeriodicUpdate times periodic-update SQ(2) at λ = 0.9, T = 10:
// one application of the map at its fixed point, and the full solve from
// the empty board (44 maps).
func BenchmarkPeriodicUpdate(b *testing.B) {
	u := PeriodicUpdate{Load: 0.9, Period: 10}
	fp, err := u.Solve(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("apply_T10", func(b *testing.B) {
		m, err := NewPeriodicMap(u)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]float64, 0, 2*len(fp.Board))
		var st PeriodicStep
		b.ReportAllocs()
		for b.Loop() {
			st, err = m.Apply(dst, fp.Board)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(st.Steps), "steps")
	})
	b.Run("solve_T10", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := u.Solve(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
