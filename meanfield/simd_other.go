//go:build !amd64 || purego

package meanfield

// useAVX2 is false off amd64 and under the purego build tag: the map's
// inner loops run in Go (simd_amd64.go).
var useAVX2 = false

// The kernels' stand-ins: never called while useAVX2 is false.

func convBlocksAVX2(dst, x, kern *float64, nb, K int)    { panic("meanfield: no AVX2") }
func stencilAVX2(n, c, m *float64, nb int, d, a float64) { panic("meanfield: no AVX2") }
func chainSlicesAVX2(nxt, cur *float64, R, split, j0, j1 int, d, a float64) {
	panic("meanfield: no AVX2")
}
func slice2AVX2(xb, cb, cu, mb *float64, nb int, pat *[12]float64, inv, a float64) {
	panic("meanfield: no AVX2")
}
func drainStepAVX2(ng, acc, src *float64, nb int, pat *[12]float64, w, inv float64) (prev float64) {
	panic("meanfield: no AVX2")
}
func drainStepLinAVX2(ng, acc, src, cf *float64, nb int, pat *[12]float64, w, inv float64) (prev, f float64) {
	panic("meanfield: no AVX2")
}
func axpyAVX2(dst, x *float64, nb int, a float64)            { panic("meanfield: no AVX2") }
func edgeDotsAVX2(dst, a, b *float64, sa, sb, L0, dL, n int) { panic("meanfield: no AVX2") }

func edgeDots4AVX2(dst, a, b *float64, sa, sb, L0, dL, n int) { panic("meanfield: no AVX2") }
