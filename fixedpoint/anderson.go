package fixedpoint

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// AndersonSettings controls Anderson. The zero value gives the defaults.
type AndersonSettings struct {
	// Tol: stop when ‖F(x_k) − x_k‖∞ ≤ Tol. Zero means 1e-10.
	Tol float64
	// MaxIter is the largest number of iterations (one map evaluation each,
	// plus retries after a failed accelerated step). Zero means 500.
	MaxIter int
	// Depth is the number m of past differences kept. Zero means 5.
	Depth int
	// Mixing is β in (0, 1]. Zero means 1.
	Mixing float64
	// MaxCond bounds the condition number of the least-squares matrix ΔF:
	// the oldest columns are dropped until cond(ΔF) ≤ MaxCond. Zero means 1e10.
	MaxCond float64
	// History records the residual of every iteration in Result.History.
	History bool
}

// Validate reports whether the settings are usable.
func (s *AndersonSettings) Validate() error {
	if err := checkNonNeg("AndersonSettings.Tol", s.Tol); err != nil {
		return err
	}
	if err := checkCount("AndersonSettings.MaxIter", s.MaxIter); err != nil {
		return err
	}
	if err := checkCount("AndersonSettings.Depth", s.Depth); err != nil {
		return err
	}
	if !(s.Mixing >= 0 && s.Mixing <= 1) {
		return fmt.Errorf("fixedpoint: AndersonSettings.Mixing = %v, want 0 (default 1) or a value in (0, 1]", s.Mixing)
	}
	if s.MaxCond != 0 && !(s.MaxCond > 1) {
		return fmt.Errorf("fixedpoint: AndersonSettings.MaxCond = %v, want 0 (default 1e10) or a value > 1", s.MaxCond)
	}
	return checkNonNeg("AndersonSettings.MaxCond", s.MaxCond)
}

// Anderson solves x = F(x) by Anderson acceleration (Anderson 1965) in the
// form of Walker & Ni (2011), Algorithm AA. With f_k = F(x_k) − x_k,
// Δf_i = f_{i+1} − f_i, Δx_i = x_{i+1} − x_i and the m_k = min(m, k) most
// recent differences as the columns of ΔF_k and ΔX_k,
//
//	γ_k     = argmin_γ ‖f_k − ΔF_k γ‖₂,
//	x_{k+1} = x_k + βf_k − (ΔX_k + βΔF_k) γ_k.
//
// The least-squares problem is solved by Householder QR (gonum/mat). The
// safeguard follows Walker & Ni §4: while the condition number of ΔF_k
// exceeds MaxCond, the oldest column is dropped; an accelerated step at
// which the map fails, or which gives a non-finite residual, is replaced by
// the plain step x_k + βf_k and the history is cleared (a restart).
//
// Result.X is F(x_k) at the last iterate. The error is nil exactly when
// Status is Converged. s may be nil.
func Anderson(p Problem, x0 []float64, s *AndersonSettings) (*Result, error) {
	p.check("Anderson", x0)
	if s == nil {
		s = &AndersonSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	tol := orDefault(s.Tol, 1e-10)
	maxIter := orDefaultInt(s.MaxIter, 500)
	m := orDefaultInt(s.Depth, 5)
	beta := orDefault(s.Mixing, 1)
	maxCond := orDefault(s.MaxCond, 1e10)

	n := len(x0)
	if m > n {
		// More than n differences in R^n are linearly dependent.
		m = n
	}
	f := &counter{f: p.F}
	res := &Result{}
	x := clone(x0)
	g := make([]float64, n)  // F(x_k)
	fk := make([]float64, n) // f_k
	xPrev := make([]float64, n)
	fPrev := make([]float64, n)
	// Histories of Δx and Δf, oldest first.
	var dX, dF [][]float64
	spare := make([][]float64, 0, 2*m+2)
	take := func() []float64 {
		if k := len(spare); k > 0 {
			v := spare[k-1]
			spare = spare[:k-1]
			return v
		}
		return make([]float64, n)
	}
	clear := func() {
		spare = append(spare, dX...)
		spare = append(spare, dF...)
		dX, dF = dX[:0], dF[:0]
	}
	gamma := make([]float64, m)
	var qr mat.QR
	var a mat.Dense
	haveFPrev := false
	accelerated := false

	for k := 0; k < maxIter; k++ {
		err := f.eval(g, x)
		r := 0.0
		if err == nil {
			for i := range fk {
				fk[i] = g[i] - x[i]
			}
			r = normInf(fk)
		}
		if (err != nil || !finite(r)) && accelerated {
			// Safeguard: retreat to the plain step from x_{k-1} and restart.
			for i := range x {
				x[i] = xPrev[i] + beta*fPrev[i]
			}
			clear()
			haveFPrev = false
			accelerated = false
			continue
		}
		res.Iterations = k + 1
		if err != nil {
			res.X, res.Status, res.Evaluations = clone(x), MapFailed, f.evals
			return res, fmt.Errorf("fixedpoint: anderson: map at iteration %d: %w", k, err)
		}
		res.Residual = r
		if s.History {
			res.History = append(res.History, r)
		}
		if !finite(r) {
			res.X, res.Status, res.Evaluations = clone(g), Diverged, f.evals
			return res, fmt.Errorf("fixedpoint: anderson: non-finite residual at iteration %d: %w", k, ErrNotConverged)
		}
		if r <= tol {
			res.X, res.Status, res.Evaluations = clone(g), Converged, f.evals
			return res, nil
		}
		if haveFPrev {
			dx, df := take(), take()
			for i := range dx {
				dx[i] = x[i] - xPrev[i]
				df[i] = fk[i] - fPrev[i]
			}
			if len(dX) == m {
				spare = append(spare, dX[0], dF[0])
				dX, dF = dX[1:], dF[1:]
			}
			dX, dF = append(dX, dx), append(dF, df)
		}
		copy(xPrev, x)
		copy(fPrev, fk)
		haveFPrev = true

		// Least squares min ‖f_k − ΔF γ‖₂, dropping the oldest columns
		// while ΔF is ill-conditioned.
		mk := len(dX)
		for mk > 0 {
			a.Reset()
			a.ReuseAs(n, mk)
			for j := 0; j < mk; j++ {
				a.SetCol(j, dF[len(dF)-mk+j])
			}
			qr.Factorize(&a)
			if c := qr.Cond(); c <= maxCond {
				break
			}
			mk--
		}
		if mk < len(dX) {
			drop := len(dX) - mk
			spare = append(spare, dX[:drop]...)
			spare = append(spare, dF[:drop]...)
			dX, dF = dX[drop:], dF[drop:]
		}
		accelerated = false
		// Plain part x_k + βf_k.
		for i := range x {
			x[i] += beta * fk[i]
		}
		if mk > 0 {
			gv := mat.NewVecDense(mk, gamma[:mk])
			if err := qr.SolveVecTo(gv, false, mat.NewVecDense(n, fk)); err == nil {
				// x_{k+1} −= Σ_j γ_j (Δx_j + βΔf_j).
				for j := 0; j < mk; j++ {
					gj := gamma[j]
					dx, df := dX[j], dF[j]
					for i := range x {
						x[i] -= gj * (dx[i] + beta*df[i])
					}
				}
				accelerated = true
			} else {
				clear()
			}
		}
	}
	res.X, res.Status, res.Evaluations = clone(g), NotConverged, f.evals
	res.Iterations = maxIter
	return res, fmt.Errorf("fixedpoint: anderson: residual %.3g after %d iterations: %w", res.Residual, maxIter, ErrNotConverged)
}
