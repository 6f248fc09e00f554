//go:build amd64 && !purego

package meanfield

import "golang.org/x/sys/cpu"

// useAVX2 says whether the map's inner loops run as AVX2 kernels
// (simd_amd64.s). Each kernel does per lane the operations of the Go loop
// it replaces, in the same order (separate multiplies and adds, no fused
// multiply-add), so its result is the same to the bit; the Go loops run
// where the processor lacks AVX2 and under the purego build tag.
var useAVX2 = cpu.X86.HasAVX2

// convBlocksAVX2 adds to dst[0 … 16·nb) the outputs
// dst[i] += Σ_u kern[u]·x[i+u], u < K, each summed from zero in u order: the
// interior of convolveInterior, sixteen outputs a pass. K ≥ 1.
//
//go:noescape
func convBlocksAVX2(dst, x, kern *float64, nb, K int)

// stencilAVX2 sets n[q] = d·c[q] + a·m[q] for q < 4·nb: stencil2.
//
//go:noescape
func stencilAVX2(n, c, m *float64, nb int, d, a float64)

// chainSlicesAVX2 makes chainLow's step for the slices j0 ≤ j ≤ j1
// (j0 ≥ 1) of cur into nxt, slices at stride R, slice j on rows
// [0, split + j): nx[0] = d·(cj[0] + cj[1]), nx[q] = d·cj[q+1] +
// a·cm[q−1] for 1 ≤ q ≤ top − 2, nx[top−1] = a·cm[top−2].
//
//go:noescape
func chainSlicesAVX2(nxt, cur *float64, R, split, j0, j1 int, d, a float64)

// slice2AVX2 makes stepSlice2's middle rows two levels a pass for
// 2·nb levels, pat = [e0 e1 e0 e1 s0 s1 s0 s1 α0 α1 α0 α1]: comp =
// (e0·cu[t] + e1·cu[t+1])·inv, xb[t+i] = s_i·cb[t+i] + α_i·comp, plus
// a·mb[t+i] when mb is not nil.
//
//go:noescape
func slice2AVX2(xb, cb, cu, mb *float64, nb int, pat *[12]float64, inv, a float64)

// drainStepAVX2 makes drainCoef2.stepAcc's step two levels a pass for
// 2·nb levels from prev = 0, pat = [s0 s1 s0 s1 a0 a1 a0 a1 e0 e1 e0 e1],
// and returns the prev of the last level.
//
//go:noescape
func drainStepAVX2(ng, acc, src *float64, nb int, pat *[12]float64, w, inv float64) (prev float64)

// drainStepLinAVX2 is drainStepAVX2 for drainCoef2.stepAccLin: it also
// returns f = Σ_r cf[r]·(src[2r] + src[2r+1]) over the 2·nb levels, summed
// level by level from 0 like the Go loop.
//
//go:noescape
func drainStepLinAVX2(ng, acc, src, cf *float64, nb int, pat *[12]float64, w, inv float64) (prev, f float64)

// axpyAVX2 adds a·x[r] to dst[r] for r < 4·nb: axpy.
//
//go:noescape
func axpyAVX2(dst, x *float64, nb int, a float64)

// edgeDotsAVX2 adds to dst[t], t < n, the dot product of a + t·sa and
// b + t·sb over L0 + t·dL entries, each made as dot makes it.
//
//go:noescape
func edgeDotsAVX2(dst, a, b *float64, sa, sb, L0, dL, n int)

// edgeDots4AVX2 is edgeDotsAVX2 for 4·n outputs, four at a time (each
// output's sum unchanged).
//
//go:noescape
func edgeDots4AVX2(dst, a, b *float64, sa, sb, L0, dL, n int)
