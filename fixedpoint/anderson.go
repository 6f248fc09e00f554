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
	h := newAndersonHistory(n, m)
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
			h.reset()
			haveFPrev = false
			accelerated = false
			continue
		}
		res.Iterations = k + 1
		if done, err := andersonCheck(res, f, x, g, r, err, tol, s.History, k); done {
			return res, err
		}
		if haveFPrev {
			h.push(x, xPrev, fk, fPrev)
		}
		copy(xPrev, x)
		copy(fPrev, fk)
		haveFPrev = true
		accelerated = h.step(x, fk, beta, maxCond)
	}
	res.X, res.Status, res.Evaluations = clone(g), NotConverged, f.evals
	res.Iterations = maxIter
	return res, fmt.Errorf("fixedpoint: anderson: residual %.3g after %d iterations: %w", res.Residual, maxIter, ErrNotConverged)
}

// andersonCheck records iteration k's residual r (or the map's error) in
// res and reports whether Anderson ends there, with its error.
func andersonCheck(res *Result, f *counter, x, g []float64, r float64, err error, tol float64, history bool, k int) (bool, error) {
	if err != nil {
		res.X, res.Status, res.Evaluations = clone(x), MapFailed, f.evals
		return true, fmt.Errorf("fixedpoint: anderson: map at iteration %d: %w", k, err)
	}
	res.Residual = r
	if history {
		res.History = append(res.History, r)
	}
	if !finite(r) {
		res.X, res.Status, res.Evaluations = clone(g), Diverged, f.evals
		return true, fmt.Errorf("fixedpoint: anderson: non-finite residual at iteration %d: %w", k, ErrNotConverged)
	}
	if r <= tol {
		res.X, res.Status, res.Evaluations = clone(g), Converged, f.evals
		return true, nil
	}
	return false, nil
}

// andersonHistory holds Anderson's histories of Δx and Δf, oldest first,
// at most m of each, recycling their storage.
type andersonHistory struct {
	n, m   int
	dX, dF [][]float64
	spare  [][]float64
	gamma  []float64
	qr     mat.QR
	a      mat.Dense
}

func newAndersonHistory(n, m int) *andersonHistory {
	return &andersonHistory{n: n, m: m, spare: make([][]float64, 0, 2*m+2), gamma: make([]float64, m)}
}

func (h *andersonHistory) take() []float64 {
	if k := len(h.spare); k > 0 {
		v := h.spare[k-1]
		h.spare = h.spare[:k-1]
		return v
	}
	return make([]float64, h.n)
}

// reset clears the histories (a restart).
func (h *andersonHistory) reset() {
	h.spare = append(h.spare, h.dX...)
	h.spare = append(h.spare, h.dF...)
	h.dX, h.dF = h.dX[:0], h.dF[:0]
}

// push appends x − xPrev and fk − fPrev, dropping the oldest pair beyond m.
func (h *andersonHistory) push(x, xPrev, fk, fPrev []float64) {
	dx, df := h.take(), h.take()
	for i := range dx {
		dx[i] = x[i] - xPrev[i]
		df[i] = fk[i] - fPrev[i]
	}
	if len(h.dX) == h.m {
		h.spare = append(h.spare, h.dX[0], h.dF[0])
		h.dX, h.dF = h.dX[1:], h.dF[1:]
	}
	h.dX, h.dF = append(h.dX, dx), append(h.dF, df)
}

// condition factorises the newest columns of ΔF, dropping the oldest
// while ΔF is ill-conditioned (condition number above maxCond), and
// returns the number kept.
func (h *andersonHistory) condition(maxCond float64) int {
	mk := len(h.dX)
	for mk > 0 {
		h.a.Reset()
		h.a.ReuseAs(h.n, mk)
		for j := 0; j < mk; j++ {
			h.a.SetCol(j, h.dF[len(h.dF)-mk+j])
		}
		h.qr.Factorize(&h.a)
		if c := h.qr.Cond(); c <= maxCond {
			break
		}
		mk--
	}
	if mk < len(h.dX) {
		drop := len(h.dX) - mk
		h.spare = append(h.spare, h.dX[:drop]...)
		h.spare = append(h.spare, h.dF[:drop]...)
		h.dX, h.dF = h.dX[drop:], h.dF[drop:]
	}
	return mk
}

// step moves x to the next iterate: the plain step x_k + βf_k minus the
// least-squares combination Σ_j γ_j (Δx_j + βΔf_j) with γ minimising
// ‖f_k − ΔF γ‖₂. It reports whether the step was accelerated.
func (h *andersonHistory) step(x, fk []float64, beta, maxCond float64) bool {
	mk := h.condition(maxCond)
	// Plain part x_k + βf_k.
	for i := range x {
		x[i] += beta * fk[i]
	}
	if mk == 0 {
		return false
	}
	gv := mat.NewVecDense(mk, h.gamma[:mk])
	if err := h.qr.SolveVecTo(gv, false, mat.NewVecDense(h.n, fk)); err != nil {
		h.reset()
		return false
	}
	// x_{k+1} −= Σ_j γ_j (Δx_j + βΔf_j).
	for j := 0; j < mk; j++ {
		gj := h.gamma[j]
		dx, df := h.dX[j], h.dF[j]
		for i := range x {
			x[i] -= gj * (dx[i] + beta*df[i])
		}
	}
	return true
}

// AndersonMixer is Anderson's update (Anderson with Mixing 1) for a caller
// that drives the iteration itself and applies its own safeguards: given
// x_k and F(x_k) it returns x_{k+1} = F(x_k) − Σ_j γ_j ΔF_j with γ as in
// Anderson (the least-squares fit of the residual differences, the
// oldest dropped while their condition number exceeds maxCond). The
// vectors have a fixed length n.
type AndersonMixer struct {
	h            *andersonHistory
	xPrev, fPrev []float64
	fk           []float64
	have         bool
	maxCond      float64
}

// NewAndersonMixer returns a mixer for vectors of length n keeping depth
// past differences (at least 1), with condition bound maxCond > 1.
func NewAndersonMixer(n, depth int, maxCond float64) *AndersonMixer {
	depth = max(min(depth, n), 1)
	return &AndersonMixer{h: newAndersonHistory(n, depth), xPrev: make([]float64, n), fPrev: make([]float64, n),
		fk: make([]float64, n), maxCond: maxCond}
}

// Len returns the length of the vectors.
func (a *AndersonMixer) Len() int { return a.h.n }

// Reset forgets the history: the next Step is the plain step.
func (a *AndersonMixer) Reset() {
	a.h.reset()
	a.have = false
}

// Step overwrites x (x_k) with the next iterate, given g = F(x_k), and
// reports whether the step was accelerated (false: x = g, the plain step).
func (a *AndersonMixer) Step(x, g []float64) bool {
	for i := range a.fk {
		a.fk[i] = g[i] - x[i]
	}
	if a.have {
		a.h.push(x, a.xPrev, a.fk, a.fPrev)
	}
	copy(a.xPrev, x)
	copy(a.fPrev, a.fk)
	a.have = true
	return a.h.step(x, a.fk, 1, a.maxCond)
}
