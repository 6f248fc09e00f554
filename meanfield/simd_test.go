package meanfield

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withAVX2 runs f with the AVX2 kernels on (on) or off, restoring the
// machine's setting after.
func withAVX2(on bool, f func()) {
	was := useAVX2
	useAVX2 = on && was
	defer func() { useAVX2 = was }()
	f()
}

// needAVX2 skips a test of the kernels where the processor has none (or
// under the purego tag): there the Go loops are all that run. It also
// skips where the compiler fuses the Go loops' multiply-adds (GOAMD64=v3):
// the kernels, which do not, cannot match them to the bit there.
func needAVX2(t *testing.T) {
	t.Helper()
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build: the Go loops alone run")
	}
	if mulAdd(1+0x1p-30, 1+0x1p-30, -(1+0x1p-29)) != 0 {
		t.Skip("this build fuses multiply-adds in Go (GOAMD64=v3?): the unfused kernels differ in the last bits by design")
	}
}

// mulAdd is x·y + z as the compiler makes it in this build. With
// x = y = 1 + 2⁻³⁰ and z = −(1 + 2⁻²⁹) it is 0 rounded and 2⁻⁶⁰ fused.
//
//go:noinline
func mulAdd(x, y, z float64) float64 { return x*y + z }

// bitsEqual fails t unless a and b are equal to the bit.
func bitsEqual(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: lengths %d and %d", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: entry %d of %d: %v (AVX2) ≠ %v (Go)", what, i, len(a), a[i], b[i])
		}
	}
}

// randVec returns n values spread over many magnitudes, some zero and
// some negative, so that any change in the order of the operations shows
// in the last bits.
func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch r.IntN(8) {
		case 0:
			v[i] = 0
		case 1:
			v[i] = -r.Float64()
		default:
			v[i] = r.Float64() * math.Pow(10, -12*r.Float64())
		}
	}
	return v
}

// TestKernelsBitExact checks each AVX2 kernel against the Go loop it
// replaces, to the bit, over lengths that cover every remainder of its
// blocks: the kernels promise the same operations in the same order.
func TestKernelsBitExact(t *testing.T) {
	needAVX2(t)
	r := rand.New(rand.NewPCG(7, 43))
	for _, K := range []int{1, 2, 3, 5, 17, 64, 130} {
		for _, n := range []int{1, 3, 4, 15, 16, 17, 33, 64, 100, 131, 300} {
			x, g := randVec(r, n), randVec(r, K)
			base := randVec(r, n+K-1)
			// In two ranges split anywhere: the ends' runs of outputs
			// start and stop at any place of their groups of four.
			cut := r.IntN(n + K)
			var got, want []float64
			for _, on := range []bool{true, false} {
				dst := append([]float64(nil), base...)
				withAVX2(on, func() {
					convolveRange(dst, x, g, 0, cut)
					convolveRange(dst, x, g, cut, len(dst))
				})
				if on {
					got = dst
				} else {
					want = dst
				}
			}
			bitsEqual(t, "convolveRange", got, want)
		}
	}
	// chainLow's slices: every remainder of the eight- and four-row
	// passes (top − 2 rows of the stencil, top = split + j).
	for _, k := range []int{1, 2, 5, 16} {
		for split := 1; split <= 21; split++ {
			R := split + k
			cur := randVec(r, (k+1)*R)
			d, a := r.Float64(), r.Float64()
			got := randVec(r, (k+1)*R)
			want := append([]float64(nil), got...)
			chainSlicesAVX2(&got[0], &cur[0], R, split, 1, k, d, a)
			for j := 1; j <= k; j++ {
				top := split + j
				cj, cm, nx := cur[j*R:], cur[(j-1)*R:], want[j*R:]
				nx[0] = d * (cj[0] + cj[1])
				for q := 1; q <= top-2; q++ {
					nx[q] = d*cj[q+1] + a*cm[q-1]
				}
				nx[top-1] = a * cm[top-2]
			}
			bitsEqual(t, "chainSlicesAVX2", got, want)
		}
	}
	for _, n := range []int{0, 1, 3, 4, 5, 8, 31, 100} {
		c, m := randVec(r, n), randVec(r, n)
		d, a := r.Float64(), r.Float64()
		got, want := make([]float64, n), make([]float64, n)
		withAVX2(true, func() { stencil2(got, c, m, d, a) })
		withAVX2(false, func() { stencil2(want, c, m, d, a) })
		bitsEqual(t, "stencil2", got, want)
	}
	// The h2 drain's step with its weighted sum (stepAccLin) and without
	// (stepAcc), on odd and even level counts.
	for _, n := range []int{1, 2, 3, 4, 5, 8, 31, 100} {
		var pat [12]float64
		c := drainCoef2{w: r.Float64(), s0: r.Float64(), s1: r.Float64(), a0: r.Float64(), a1: r.Float64(),
			e0: r.Float64(), e1: r.Float64(), inv: 1 / (1 + r.Float64()), pat: &pat}
		pat = [12]float64{c.s0, c.s1, c.s0, c.s1, c.a0, c.a1, c.a0, c.a1, c.e0, c.e1, c.e0, c.e1}
		g, acc0, cf := randVec(r, 2*n), randVec(r, 2*n), randVec(r, n)
		var res [2][]float64
		for i, on := range []bool{true, false} {
			ng, acc := make([]float64, 2*n), append([]float64(nil), acc0...)
			ng2, acc2 := make([]float64, 2*n), append([]float64(nil), acc0...)
			withAVX2(on, func() {
				prev, f := c.stepAccLin(ng, acc, g, cf)
				prev2 := c.stepAcc(ng2, acc2, g)
				res[i] = append(append(append(append(ng, acc...), ng2...), acc2...), prev, f, prev2)
			})
		}
		bitsEqual(t, "drainCoef2 steps", res[0], res[1])
	}
}

// TestMapsBitExactAVX2 applies the exponential and phase-type maps with
// and without the AVX2 kernels, from low boards and a herd's, and requires
// every entry of the next board and every reported figure to agree to the
// bit: chainLow's slices and the drains' convolutions all take the
// kernels on these cases.
func TestMapsBitExactAVX2(t *testing.T) {
	needAVX2(t)
	cases := []struct {
		k    int
		load float64
		T    float64
		svc  Service
		p    []float64
		n    int
	}{
		{5, 0.9, 300, ExpService(), BoardEmpty(), 6},
		{16, 0.95, 4500, ExpService(), BoardEmpty(), 3},
		{3, 0.9, 200, ExpService(), BoardHalf(80), 3},
		{5, 0.99, 28000, ExpService(), BoardEmpty(), 2},
		{5, 0.9, 1130, H2Service(4), BoardEmpty(), 3},
		{5, 0.9, 1130, H2Service(4), BoardHalf(150), 2},
		{3, 0.9, 500, ErlangService(2), BoardEmpty(), 3},
	}
	for ci, c := range cases {
		var runs [2][]RefreshResult
		for i, on := range []bool{true, false} {
			withAVX2(on, func() {
				m, err := NewRefreshMap(Refresh{Dispatchers: c.k, Load: c.load, Period: c.T, Service: c.svc})
				if err != nil {
					t.Fatal(err)
				}
				// Board-only maps (the edge search's) take other loops.
				m.boardOnly = ci%2 == 1
				p := c.p
				for range c.n {
					res, err := m.Apply(nil, p)
					if err != nil {
						t.Fatal(err)
					}
					res.Next = append([]float64(nil), res.Next...)
					runs[i] = append(runs[i], res)
					p = res.Next
				}
			})
		}
		for j := range runs[0] {
			a, b := runs[0][j], runs[1][j]
			what := c.svc.String() + " map"
			bitsEqual(t, what+" board", a.Next, b.Next)
			bitsEqual(t, what+" figures", []float64{a.BoardMean, a.QueueMean, a.Response, a.KinkDistance, a.Truncation},
				[]float64{b.BoardMean, b.QueueMean, b.Response, b.KinkDistance, b.Truncation})
		}
	}
}
