package meanfield

import (
	"fmt"
	"testing"
)

// BenchmarkLimitApply measures one application of the limit map (impulse
// plus the FFT Brownian step) on grids of n nodes.
func BenchmarkLimitApply(b *testing.B) {
	for _, c := range []struct {
		k int
		x float64
	}{{3, 1}, {16, 11}, {64, 55}, {256, 230}} {
		b.Run(fmt.Sprintf("k=%d", c.k), func(b *testing.B) {
			m, err := NewLimitMap(Limit{Dispatchers: c.k, Scaled: c.x})
			if err != nil {
				b.Fatal(err)
			}
			p := m.LimitBoardPoint()
			q := make([]float64, m.Nodes())
			for range 20 {
				q, _ = m.Apply(q, p)
				p, q = q, p
			}
			b.ReportAllocs()
			for b.Loop() {
				q, _ = m.Apply(q, p)
			}
			b.ReportMetric(float64(m.Nodes()), "nodes")
		})
	}
}

// BenchmarkLimitDense is the dense matrix–vector product the FFT replaces.
func BenchmarkLimitDense(b *testing.B) {
	for _, n := range []int{423, 1000, 2000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			kern, _ := rbmMatrix(n, 0.02, 1)
			w := make([]float64, n)
			dst := make([]float64, n)
			for i := range w {
				w[i] = 1 / float64(n)
			}
			for b.Loop() {
				clear(dst)
				for a, v := range w {
					row := kern[a*n : (a+1)*n]
					for j, kv := range row {
						dst[j] += v * kv
					}
				}
			}
		})
	}
}
