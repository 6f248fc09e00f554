package fixedpoint

import (
	"fmt"
	"testing"
)

// Benchmarks on the Nyström-discretised Hammerstein equation (hammerstein),
// whose map costs one n×n matrix–vector product.
func BenchmarkSolvers(b *testing.B) {
	for _, n := range []int{50, 200} {
		p, want := hammerstein(n)
		x0 := uniform(n)
		methods := []struct {
			name  string
			solve func() (*Result, error)
		}{
			{"Iterate", func() (*Result, error) { return Iterate(p, x0, nil) }},
			{"Anderson", func() (*Result, error) { return Anderson(p, x0, nil) }},
			{"Newton", func() (*Result, error) { return Newton(p, x0, nil) }},
			{"NewtonKrylov", func() (*Result, error) { return NewtonKrylov(p, x0, nil) }},
		}
		for _, m := range methods {
			b.Run(fmt.Sprintf("%s/n=%d", m.name, n), func(b *testing.B) {
				b.ReportAllocs()
				var res *Result
				for b.Loop() {
					var err error
					res, err = m.solve()
					if err != nil {
						b.Fatal(err)
					}
				}
				if d := distInf(res.X, want); d > 1e-9 {
					b.Fatalf("error %.3g", d)
				}
				b.ReportMetric(float64(res.Evaluations), "maps/op")
			})
		}
	}
}

func BenchmarkSpectrum(b *testing.B) {
	const n = 200
	p, xs := hammerstein(n)
	b.Run("Eigenvalues/n=200", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Eigenvalues(p, xs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Arnoldi4/n=200", func(b *testing.B) {
		b.ReportAllocs()
		var res *ArnoldiResult
		for b.Loop() {
			var err error
			if res, err = Arnoldi(p, xs, 4, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(res.Evaluations), "maps/op")
	})
}
