package meanfield

import "testing"

// BenchmarkMapKernels times one board-only map (as the edge search makes
// them) near the edges of issue 43's and 44's goals, with the AVX2 kernels
// (simd_amd64.s) and, suffixed _go, with the Go loops they replace: the
// same board to the bit (TestMapsBitExactAVX2), the time is the kernels'
// gain. On the 2-core AMD EPYC of 2026-12-06, ms a map with and without:
// 9.0 and 15.9 (k = 16), 64.5 and 107.4 (λ = 0.99), 37.6 and 43.3 (h2:4;
// the phase map's drain step gains least).
func BenchmarkMapKernels(b *testing.B) {
	cases := []struct {
		name string
		k    int
		load float64
		T    float64
		svc  Service
		warm int
	}{
		{"k16_l0.95_T4509", 16, 0.95, 4509, ExpService(), 20},
		{"k5_l0.99_T28067", 5, 0.99, 28067, ExpService(), 20},
		{"h2_4_k5_l0.9_T1129", 5, 0.9, 1129, H2Service(4), 20},
	}
	for _, c := range cases {
		for _, on := range []bool{true, false} {
			name := c.name
			if !on {
				name += "_go"
			}
			b.Run(name, func(b *testing.B) {
				if on && !useAVX2 {
					b.Skip("no AVX2 kernels on this machine or build")
				}
				withAVX2(on, func() {
					m, err := NewRefreshMap(Refresh{Dispatchers: c.k, Load: c.load, Period: c.T, Service: c.svc})
					if err != nil {
						b.Fatal(err)
					}
					m.boardOnly = true
					p := benchBoard(b, m, BoardEmpty(), c.warm)
					dst := make([]float64, 0, 4*len(p)+1024)
					for b.Loop() {
						if _, err := m.Apply(dst, p); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}
