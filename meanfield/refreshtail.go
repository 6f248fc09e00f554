package meanfield

import "math"

// Tail windows. Inside the board's long tail a full window v lasts
// W_v = (k/λ)·F(v) = W + δ, δ = −(k/λ)·Σ_{b>v} p_b, only slightly less than
// the full window W = k/λ past the top, but each such window has a length
// of its own, so the chain ran in every one of them (at λ = 0.95, k = 10 a
// balanced board's tail reaches 10⁻¹⁴ at row 370 while T holds 273
// windows: none is past the top). With the auxiliary rate r fixed at W's
// (any r gives the conditioned chain, package doc, §2) the chain's steps do
// not depend on the window's length, only their weights do:
//
//	f_n(W + δ) = Pois(Λ(W+δ); n)/Pois(r(W+δ); k) = f_n(W)·e^{−δ}·(1 + δ/W)^{n−k}
//
// (Λ − r = 1), so the window operator is
//
//	O(W + δ) = Σ_n f_n(W + δ)·B_n = Σ_i δ^i·O_i,   O_i = Σ_n f_n(W)·t_{n−k,i}·B_n,
//
// with B_n the chain's slice k after n steps, t_{m,i} the coefficient of δ^i
// in e^{−δ}(1 + δ/W)^m. The terms O_i are built once per (W, budgets) from
// the same chain runs as the window operator (buildOp), and a tail window
// applies I of them. B_n x has mass b_n·‖x‖₁ exactly, b_n = Bin(n; k, a)
// (arrivals do not depend on the queue), so the series' remainder is at
// most ‖x‖₁·Σ_n b_n·|f_n(W+δ) − Σ_{i<I} f_n(W) t_{n−k,i} δ^i|: I is the
// fewest terms that bring it below taylorBudget·chainEps, and the bound is
// counted as truncation. Only board-only maps (RefreshMap.boardOnly) take
// this path: the quadrature of the time-averaged queue is not expanded.
const (
	taylorMaxTerms = 22
	taylorBudget   = 1    // the remainder's budget, in chainEps
	taylorMaxRel   = 0.08 // windows shorter than W by more than this fraction take the chain
	taylorEps      = 1e-8 // the terms' uniformisation cut, in Tol (below every window's chainEps)
)

// taylorOp holds the terms O_i for full windows near length w.
type taylorOp struct {
	valid            bool
	w                float64
	chainEps, pmfEps float64
	pl               winPlan // the full window W without nodes, cut at chainEps
	q0, n            int
	f, b             []float64   // f_n(W) and b_n, n = 0 … N
	t                [][]float64 // t[i][n] = t_{n−k,i} (0 for n < k)
	ops              [][]float64 // term i: column q at Σ_{q'<q}(q'+k+1), rows 0 … q+k
	sums             [][]float64 // term i: column sums
	g                []float64   // scratch: f_n(W + δ)
}

// tailTerms returns how many terms a full window of length w needs, or 0
// when the chain is to be used (the terms are not worth it or not enough).
func (m *RefreshMap) tailTerms(w float64) (int, float64) {
	tp := &m.tay
	W := float64(m.k) / m.set.Load
	delta := w - W
	if delta == 0 || -delta > taylorMaxRel*W {
		return 0, 0
	}
	// The terms depend on k, λ and the settings only (never on what the
	// map computed before): the result depends on the input alone.
	if eps := taylorEps * m.set.Tol; !tp.valid || tp.w != W || tp.chainEps != eps || tp.pmfEps != m.pmfEps {
		m.buildTaylor(W, eps)
	}
	// f_n(W + δ) = f_n(W)·e^{−δ}(1 + δ/W)^{n−k}, then the remainder after
	// each term.
	k := m.k
	tp.g = grow(tp.g, tp.n+1)
	ratio, pw := 1+delta/W, math.Exp(-delta)
	for n := k; n <= tp.n; n++ {
		tp.g[n] = tp.f[n] * pw
		pw *= ratio
	}
	budget := taylorBudget * m.chainEps
	pow := 1.0
	for I := 1; I <= taylorMaxTerms; I++ {
		// The remainder is the sum of b_n·|g_n| in n order. It is
		// decided first on four partial sums of the same terms: the
		// terms are not negative, so each sum is within γ_N ≈ N·2⁻⁵³ of
		// the exact one, relatively, and a four-way sum above
		// budget·(1 + remCert) proves the ordered sum above the budget
		// too. Only a term count that may pass sums in n order, whose
		// bits are the remainder's; the count and remainder are the
		// ordered sum's alone.
		if fast := tailRemStep(tp.g[k:tp.n+1], tp.f[k:tp.n+1], tp.t[I-1][k:tp.n+1], tp.b[k:tp.n+1], pow); fast > budget*(1+remCert) {
			pow *= delta
			continue
		}
		var rem float64
		for n := k; n <= tp.n; n++ {
			rem += tp.b[n] * math.Abs(tp.g[n])
		}
		if rem <= budget {
			return I, rem
		}
		pow *= delta
	}
	return 0, 0
}

// remCert is the relative margin by which tailRemStep's four-way sum must
// exceed the budget to prove that the sum in n order does: at least twice
// γ_N = N·2⁻⁵³/(1 − N·2⁻⁵³) for the N ≤ 10⁵ terms of any window plan
// (2.2·10⁻¹¹), with room to spare.
const remCert = 1e-9

// tailRemStep subtracts term I from the remainders, g[n] −= f[n]·t[n]·pow
// (the order of tailTerms' product), and returns Σ_n b[n]·|g[n]| summed in
// four interleaved partial sums, (s0 + s1) + (s2 + s3).
func tailRemStep(g, f, t, b []float64, pow float64) float64 {
	n := len(g)
	f, t, b = f[:n], t[:n], b[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		gg, ff, tt, bb := g[i:i+4:i+4], f[i:i+4:i+4], t[i:i+4:i+4], b[i:i+4:i+4]
		gg[0] -= ff[0] * tt[0] * pow
		gg[1] -= ff[1] * tt[1] * pow
		gg[2] -= ff[2] * tt[2] * pow
		gg[3] -= ff[3] * tt[3] * pow
		s0 += bb[0] * math.Abs(gg[0])
		s1 += bb[1] * math.Abs(gg[1])
		s2 += bb[2] * math.Abs(gg[2])
		s3 += bb[3] * math.Abs(gg[3])
	}
	for ; i < n; i++ {
		g[i] -= f[i] * t[i] * pow
		s0 += b[i] * math.Abs(g[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// buildTaylor builds the terms for windows near length W, their chain
// cut at eps (relative to the conditioning, as chainEps is).
func (m *RefreshMap) buildTaylor(W, eps float64) {
	tp := &m.tay
	pl := &tp.pl
	save := m.chainEps
	m.chainEps = eps
	m.plan(pl, W, W, 0)
	m.chainEps = save
	k, N := m.k, pl.n
	tp.w, tp.chainEps, tp.pmfEps, tp.q0, tp.n = W, eps, m.pmfEps, pl.q0, N
	tp.f = grow(tp.f, N+1)
	tp.b = grow(tp.b, N+1)
	lgk, _ := math.Lgamma(float64(k) + 1)
	for n := k; n <= N; n++ {
		tp.f[n] = pl.uw[n] * pl.endJ[k]
		lgn, _ := math.Lgamma(float64(n) + 1)
		lgm, _ := math.Lgamma(float64(n-k) + 1)
		tp.b[n] = math.Exp(lgn - lgk - lgm + float64(k)*math.Log(pl.a) + float64(n-k)*math.Log(pl.d))
	}
	// t_{m,i} = Σ_{j ≤ min(i, m)} C(m, j) W^{−j} (−1)^{i−j}/(i−j)!.
	if len(tp.t) < taylorMaxTerms {
		tp.t = make([][]float64, taylorMaxTerms)
		tp.ops = make([][]float64, taylorMaxTerms)
		tp.sums = make([][]float64, taylorMaxTerms)
	}
	var fact [taylorMaxTerms]float64 // (−1)^l / l!
	fact[0] = 1
	for l := 1; l < taylorMaxTerms; l++ {
		fact[l] = -fact[l-1] / float64(l)
	}
	for i := range taylorMaxTerms {
		tp.t[i] = grow(tp.t[i], N+1)
	}
	for n := k; n <= N; n++ {
		mm := n - k
		c := 1.0 // C(m, j)/W^j
		var cj [taylorMaxTerms]float64
		for j := 0; j < taylorMaxTerms; j++ {
			if j > mm {
				break
			}
			if j > 0 {
				c *= float64(mm-j+1) / (float64(j) * W)
			}
			cj[j] = c
		}
		for i := range taylorMaxTerms {
			var s float64
			for j := 0; j <= min(i, mm); j++ {
				s += cj[j] * fact[i-j]
			}
			tp.t[i][n] = s
		}
	}
	// The columns: the chain from each unit start, slice k at every step.
	q0 := pl.q0
	size := 0
	for q := 0; q < q0; q++ {
		size += q + k + 1
	}
	for i := range taylorMaxTerms {
		tp.ops[i] = grow(tp.ops[i], size)
		tp.sums[i] = grow(tp.sums[i], q0)
	}
	m.unit = grow(m.unit, q0)
	m.tmp2 = grow(m.tmp2, q0+k+1)
	off := 0
	for q := 0; q < q0; q++ {
		width := q + k + 1
		m.visit = func(step int, x []float64) {
			fn := tp.f[step]
			if fn == 0 {
				return
			}
			for i := range taylorMaxTerms {
				w := fn * tp.t[i][step]
				col := tp.ops[i][off : off+width]
				for r := range col {
					col[r] += w * x[r]
				}
			}
		}
		m.unit[q] = 1
		var nm [64]float64
		m.chainLow(pl, m.unit, q, q+1, m.tmp2, &nm)
		m.unit[q] = 0
		m.visit = nil
		for i := range taylorMaxTerms {
			var s float64
			for _, y := range tp.ops[i][off : off+width] {
				s += y
			}
			tp.sums[i][q] = s
		}
		off += width
	}
	tp.valid = true
}

// applyTail adds the image of rows [lo, split) of src under the first I
// terms at δ = w − W to out, and returns the mass in and out.
func (tp *taylorOp) applyTail(out, src []float64, lo, split, k, I int, delta float64) (massIn, massOut float64) {
	off := 0
	for q := 0; q < lo; q++ {
		off += q + k + 1
	}
	for q := lo; q < split; q++ {
		x := src[q]
		width := q + k + 1
		if x != 0 {
			massIn += x
			o := out[:width]
			c := x
			i := 0
			// Up to four terms a pass: fewer loads and stores of o.
			for ; i+3 < I; i += 4 {
				c1 := c * delta
				c2 := c1 * delta
				c3 := c2 * delta
				col0 := tp.ops[i][off : off+width]
				col1 := tp.ops[i+1][off : off+width]
				col2 := tp.ops[i+2][off : off+width]
				col3 := tp.ops[i+3][off : off+width]
				massOut += c*tp.sums[i][q] + c1*tp.sums[i+1][q] + c2*tp.sums[i+2][q] + c3*tp.sums[i+3][q]
				o := o[:len(col0)]
				col1, col2, col3 = col1[:len(col0)], col2[:len(col0)], col3[:len(col0)]
				r0 := 0
				if nb := len(col0) / 4; useAVX2 && nb > 0 {
					tail4AVX2(&o[0], &col0[0], &col1[0], &col2[0], &col3[0], nb, c, c1, c2, c3)
					r0 = 4 * nb
				}
				for r := r0; r < len(col0); r++ {
					o[r] += (c*col0[r] + c1*col1[r]) + (c2*col2[r] + c3*col3[r])
				}
				c = c3 * delta
			}
			for ; i+1 < I; i += 2 {
				c1 := c * delta
				col0 := tp.ops[i][off : off+width]
				col1 := tp.ops[i+1][off : off+width]
				massOut += c*tp.sums[i][q] + c1*tp.sums[i+1][q]
				o := o[:len(col0)]
				col1 = col1[:len(col0)]
				r0 := 0
				if nb := len(col0) / 4; useAVX2 && nb > 0 {
					tail2AVX2(&o[0], &col0[0], &col1[0], nb, c, c1)
					r0 = 4 * nb
				}
				for r := r0; r < len(col0); r++ {
					o[r] += c*col0[r] + c1*col1[r]
				}
				c = c1 * delta
			}
			if i < I {
				col := tp.ops[i][off : off+width]
				massOut += c * tp.sums[i][q]
				axpy(o, c, col)
			}
		}
		off += width
	}
	return massIn, massOut
}
