package meanfield

// The low rows of a full window in closed form. In a full window of length
// w a server in the water receives exactly k jobs at k uniform times, and
// its services form a Poisson process of rate 1 whose events at q = 0 are
// lost. Given s service events (Pois(w; s)), the C(k + s, k) orders of the
// k arrivals (+1) and s services (−1) are equally likely, and the queue at
// the window's end is, by Lindley's recursion,
//
//	q' = max(q + k − s, M),  M = max over the suffixes of the ±1 steps
//
// (the empty suffix included, so M ≥ max(k − s, 0)). The reflection
// principle counts the orders with M ≤ y: for y ≥ max(k − s, 0)
//
//	P(M ≤ y) = 1 − C(k+s, k−y−1)/C(k+s, k) = 1 − ρ_y(s),
//	ρ_y(s) = Π_{i=0}^{y} (k − i)/(s + 1 + i),
//
// and 0 below; ρ_y(s) = 0 for y ≥ k, so M ≤ k. Hence the end law of a start
// law x on the low rows is
//
//	x'(y) = Σ_s Pois(w; s)·[x(y − k + s)·P(M ≤ y) + P(M = y)·Σ_{q < y−k+s} x(q)],
//
// every term nonnegative (P(M = y) = ρ_{y−1}(s) − ρ_y(s) above the bottom of
// M's support, (1 − ρ) at it). For y > k it is the plain convolution with
// the law of k − Pois(w) that the rows which cannot empty take (the plan's
// kernel, whose weights it uses, cut at the same pmfEps), so a window costs
// about (rows + k)·(terms of Pois(w)) instead of the uniformised chain's
// steps × k slices × rows. It is exact: it agrees with the chain to
// rounding, and moves no mass out of the rows (the chain's cut steps lose
// up to chainEps, counted as truncation). Only board-only maps with the
// shortcuts that change rounding take it (RefreshMap.boardOnly): the
// time-averaged queue needs the chain's intermediate steps.

// ballotTables holds P(M ≤ y) and P(M = y) for y = 0 … k and the service
// counts s = s0 … s0 + cols − 1, row y at y·cols: they depend on k and s
// only, so they serve every window whose Poisson law they cover.
type ballotTables struct {
	k, s0, cols int
	le, eq      []float64
}

// ensure makes the tables cover s = slo … shi, with a margin either side
// when it builds them (windows' lengths move slowly), so that their size
// follows the spread of Pois(w), not w (a window of 10⁶ service times
// needs a few thousand columns, not a million).
func (b *ballotTables) ensure(k, slo, shi int) {
	if b.k == k && b.cols > 0 && slo >= b.s0 && shi < b.s0+b.cols {
		return
	}
	margin := max(32, shi-slo)
	b.k, b.s0 = k, max(0, slo-margin)
	b.cols = shi + margin + 1 - b.s0
	b.le = grow(b.le, (k+1)*b.cols)
	b.eq = grow(b.eq, (k+1)*b.cols)
	for c := 0; c < b.cols; c++ {
		s := b.s0 + c
		y0 := max(k-s, 0)
		rho := 1.0 // ρ_{y−1}(s)
		for y := 0; y <= k; y++ {
			prev := rho
			rho *= float64(k-y) / float64(s+1+y) // 0 from y = k on
			if y < y0 {
				continue
			}
			b.le[y*b.cols+c] = 1 - rho
			b.eq[y*b.cols+c] = prev - rho // P(M ≤ y) − P(M ≤ y − 1)
			if y == y0 {
				b.eq[y*b.cols+c] = 1 - rho // the bottom of M's support
			}
		}
	}
}

// ballotLow moves rows [lo, split) of src through the full window planned
// in pl in closed form (above) and adds the end law to out (rows [0,
// split + k)); it returns the mass in and out.
func (m *RefreshMap) ballotLow(pl *winPlan, src []float64, lo, split int, out []float64) (massIn, massOut float64) {
	k := m.k
	// p[s − slo] = Pois(w; s), s = slo … shi: the kernel's weights at
	// shifts k − s (kern[i] at shift kmin + i), so a stretch of the
	// reversed kernel, its zeros at either end left out.
	kern := pl.kern
	i0, i1 := 0, len(kern)-1
	for i0 < i1 && kern[i0] == 0 {
		i0++
	}
	for i1 > i0 && kern[i1] == 0 {
		i1--
	}
	slo, shi := k-pl.kmin-i1, k-pl.kmin-i0
	p := pl.krev[len(kern)-1-i1 : len(kern)-i0]
	b := &m.ballot
	b.ensure(k, slo, shi)
	// cs[q] = Σ_{lo ≤ q' < q} src[q'] for q = lo … split.
	m.ballotCS = grow(m.ballotCS, split+1)
	cs := m.ballotCS
	for q := lo; q < split; q++ {
		cs[q+1] = cs[q] + src[q]
	}
	massIn = cs[split]
	for y := 0; y <= k && y < split+k; y++ {
		row := y*b.cols - b.s0 // le[row + s] is P(M ≤ y) at s
		le, eq := b.le[row+slo:row+shi+1], b.eq[row+slo:row+shi+1]
		// Sources q = y − k + s: none below lo (nor below M's support,
		// s < k − y); at or above split only the sum below q, massIn.
		sA, sB := max(lo-y+k, k-y, slo), min(shi+1, split-y+k)
		var acc float64
		if sA < sB {
			a, z := sA-slo, sB-slo
			acc = ballotDot(p[a:z], le[a:z], eq[a:z], src[y-k+sA:y-k+sB], cs[y-k+sA:y-k+sB])
		}
		if s0 := max(sB, sA); s0 <= shi {
			acc += dot(p[s0-slo:], eq[s0-slo:]) * massIn
		}
		out[y] += acc
		massOut += acc
	}
	// Rows y > k: the convolution of the sources with the kernel (output
	// i is row lo + kmin + i), as the rows that cannot empty take it.
	x := src[lo:split]
	n := len(x) + len(pl.krev) - 1
	from := k + 1 - lo - pl.kmin
	if from < n {
		m.ballotConv = grow(m.ballotConv, n)
		conv := m.ballotConv
		convolveRange(conv, x, pl.krev, from, n)
		for i := from; i < n; i++ {
			out[lo+pl.kmin+i] += conv[i]
			massOut += conv[i]
		}
	}
	return massIn, massOut
}

// ballotDot returns Σ_i p_i·(x_i·le_i + eq_i·c_i) with four partial sums
// (all of p's length).
func ballotDot(p, le, eq, x, c []float64) float64 {
	n := len(p)
	le, eq, x, c = le[:n], eq[:n], x[:n], c[:n]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += p[i] * (x[i]*le[i] + eq[i]*c[i])
		s1 += p[i+1] * (x[i+1]*le[i+1] + eq[i+1]*c[i+1])
		s2 += p[i+2] * (x[i+2]*le[i+2] + eq[i+2]*c[i+2])
		s3 += p[i+3] * (x[i+3]*le[i+3] + eq[i+3]*c[i+3])
	}
	for ; i < n; i++ {
		s0 += p[i] * (x[i]*le[i] + eq[i]*c[i])
	}
	return (s0 + s1) + (s2 + s3)
}
