package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/fixedpoint"
)

// Boards whose length changes from map to map. A board is a truncated
// distribution: the maps keep their queue rows adaptively (Refresh to a
// truncation mass, PeriodicUpdate to MaxRows), so successive boards of one
// orbit, or the boards of two periods, differ in length. Everything in
// this package that compares boards or solves on them goes through this
// file, with one convention: a board is read as zero beyond its last row.
//
//   - l1 is the distance of two boards of any lengths, the norm of the
//     fixedpoint.Orbit of FindAttractor, FindHerdAttractor and
//     PeriodicUpdate.Solve.
//   - truncatedProblem is the refresh map at a board as a
//     fixedpoint.Problem of fixed dimension, for the spectra: the board's
//     rows holding mass, with its tail held (refreshProblem).
//   - rescaleBoard carries a board from one period to another (b →
//     round(b·T'/T)), the predictor of Bistable's and HerdBranch's sweeps
//     (through Service.rescaleState); Edge's secant predictor through two
//     boards, fixedpoint.Extrapolate, reads boards the same way.

// l1 returns Σ|p_i − q_i|, the shorter board read as zero beyond its end.
func l1(p, q []float64) float64 {
	if len(p) < len(q) {
		p, q = q, p
	}
	var d float64
	for i, x := range q {
		d += math.Abs(p[i] - x)
	}
	for _, x := range p[len(q):] {
		d += math.Abs(x)
	}
	return d
}

// rescaleBoard maps a board at period from to period to by b → round(b·to/from),
// the continuation start of a herd whose queues scale with T.
func rescaleBoard(p []float64, from, to float64) []float64 {
	f := to / from
	top := int(math.Round(float64(len(p)-1) * f))
	q := make([]float64, top+1)
	var s float64
	for b, x := range p {
		q[int(math.Round(float64(b)*f))] += x
		s += x
	}
	for i := range q {
		q[i] /= s
	}
	return q
}

// truncatedProblem returns the refresh map of m at the board p as a
// fixedpoint.Problem of fixed dimension n (refreshProblem) and the point
// x = p's first n rows: n is the number of rows up to the last holding at
// least rowMin (at least 2), and the rows of p beyond, followed by eight
// zero rows, are held. It fails for a board of one row, which has no
// unit-mass direction to perturb.
func truncatedProblem(m *RefreshMap, p []float64, rowMin float64, maps *int) (fixedpoint.Problem, []float64, error) {
	n := len(p)
	for n > 2 && p[n-1] < rowMin {
		n--
	}
	if n < 2 {
		return fixedpoint.Problem{}, nil, errors.New("meanfield: spectrum: the board has one row")
	}
	base := make([]float64, len(p)+8)
	copy(base, p)
	return refreshProblem(m, base, n, maps), append([]float64(nil), p[:n]...), nil
}

// refreshProblem wraps a RefreshMap as a fixedpoint.Problem on the first
// n rows of boards near base: a point y ∈ R^n stands for the board y
// followed by base's rows n, n+1, … (held fixed), and F(y) is the first n
// rows of the map's image. Choose n so that base's rows below n are well
// above the finite-difference displacement (≈1.5e-8): the rows beyond,
// carrying a negligible mass, cannot then be pushed negative, which the
// map would reject (and clipping them would corrupt the derivative). Entries
// still negative are read as 0. Problem.Kink locates the window boundaries
// exactly (see refreshKink). Use it with fixedpoint.SumZero(n).
func refreshProblem(m *RefreshMap, base []float64, n int, maps *int) fixedpoint.Problem {
	buf := append([]float64(nil), base...)
	var out []float64
	f := func(dst, x []float64) error {
		for i, e := range x {
			buf[i] = max(e, 0)
		}
		res, err := m.Apply(out, buf)
		*maps++
		if err != nil {
			return err
		}
		out = res.Next
		clear(dst)
		copy(dst, res.Next)
		return nil
	}
	set := m.Settings()
	return fixedpoint.Problem{F: f, Kink: func(x, d []float64) float64 {
		if svc := set.Service; svc.PhaseCount() > 1 {
			x, d = svc.Board(x), svc.Board(d) // the windows see the board only
		}
		return refreshKink(set.Dispatchers, set.Load, set.Period, x, d)
	}}
}

// refreshKink returns the largest t > 0 such that the segment
// {x + s·d : 0 < s < t} of boards crosses no window boundary τ_v = T
// (+Inf if none): the map is smooth on that segment. The boundaries are
// affine in the board,
//
//	τ_v(x) = (k/λ) Σ_{u<v} F_x(u),  F_x(u) = Σ_{b≤u} x_b (F = 1 past the top),
//
// so τ_v(x + s·d) = τ_v(x) + s·(k/λ) Σ_{u<v} D(u), D the cumulative sum of d
// (which is 0 past the top when Σd = 0). As τ_v is non-decreasing in v, the
// first boundary to reach T is τ_c or τ_{c+1}, c the cut window; all
// boundaries up to c+1 are checked.
func refreshKink(k int, lam, T float64, x, d []float64) float64 {
	c := float64(k) / lam
	var fx, fd, tau, slope float64
	best := math.Inf(1)
	n := len(x)
	for v := 0; ; v++ {
		// Boundary τ_v against T.
		if v > 0 && slope != 0 {
			if s := (T - tau) / slope; s > 0 && s < best {
				best = s
			}
		}
		if tau > T {
			break // τ_v > T: the cut window is v − 1, and v = c + 1 is done
		}
		if v < n {
			fx += x[v]
			fd += d[v]
		}
		wx, wd := fx, fd
		if v >= n-1 {
			wx, wd = 1, fd // past the top: F = 1, D = Σd
		}
		tau += c * wx
		slope += c * wd
		if v > 4*n+int(T/c)+8 {
			panic(fmt.Sprintf("meanfield: refreshKink: no window end before T = %v", T))
		}
	}
	return best
}
