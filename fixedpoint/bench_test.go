package fixedpoint

import "testing"

// BenchmarkSpectrum: on the Nyström-discretised Hammerstein equation
// (hammerstein), whose map costs one n×n matrix–vector product.
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
