package fixedpoint

import (
	"fmt"
	"math"
)

// IterateSettings controls Iterate. The zero value gives the defaults.
type IterateSettings struct {
	// Tol: stop when ‖F(x_n) − x_n‖∞ ≤ Tol. Zero means 1e-10.
	Tol float64
	// MaxIter is the largest number of map steps. Zero means 1000.
	MaxIter int
	// Damping is β in x_{n+1} = (1−β)x_n + βF(x_n), in (0, 1]. Zero means 1
	// (plain iteration).
	Damping float64
	// MaxPeriod is the largest period p checked for a periodic orbit. Zero
	// means 8; a negative value disables the check.
	MaxPeriod int
	// PeriodTol: the iterates are on a period-p orbit when
	// ‖x_{n+1} − x_{n+1−p}‖∞ ≤ PeriodTol. Zero means Tol.
	PeriodTol float64
	// PeriodSep: an orbit of period p counts only when its points are at
	// least PeriodSep apart, ‖x_{n+1} − x_{n+1−d}‖∞ ≥ PeriodSep for
	// 1 ≤ d < p. This keeps a fixed point approached with a multiplier near
	// −1 from passing for a period-2 orbit. Zero means sqrt(PeriodTol).
	PeriodSep float64
	// History records the residual of every step in Result.History.
	History bool
}

// Validate reports whether the settings are usable.
func (s *IterateSettings) Validate() error {
	if err := checkNonNeg("IterateSettings.Tol", s.Tol); err != nil {
		return err
	}
	if err := checkCount("IterateSettings.MaxIter", s.MaxIter); err != nil {
		return err
	}
	if !(s.Damping >= 0 && s.Damping <= 1) {
		return fmt.Errorf("fixedpoint: IterateSettings.Damping = %v, want 0 (default 1) or a value in (0, 1]", s.Damping)
	}
	if err := checkNonNeg("IterateSettings.PeriodTol", s.PeriodTol); err != nil {
		return err
	}
	return checkNonNeg("IterateSettings.PeriodSep", s.PeriodSep)
}

// Iterate runs the damped fixed-point iteration
//
//	x_{n+1} = (1−β)·x_n + β·F(x_n)
//
// from x0 until the residual ‖F(x_n) − x_n‖∞ is at most Tol (Status
// Converged), the iterates close up on a periodic orbit (Status Periodic),
// an iterate is not finite (Diverged), or MaxIter steps are taken
// (NotConverged). It converges linearly when the spectral radius of
// (1−β)I + βDF at the fixed point is below one.
//
// Periodic orbits are detected from a ring of the last MaxPeriod+1
// iterates: after each step the smallest p in 2..MaxPeriod with
// ‖x_{n+1} − x_{n+1−p}‖∞ ≤ PeriodTol and all points of the candidate orbit
// at least PeriodSep apart is reported as Result.Period, with the orbit in
// Result.Orbit. With β < 1 the orbit is one of the damped map, not of F.
//
// On convergence Result.X = x_{n+1}; the error is nil exactly when Status
// is Converged and wraps ErrNotConverged otherwise (or the map's error).
// s may be nil.
func Iterate(p Problem, x0 []float64, s *IterateSettings) (*Result, error) {
	p.check("Iterate", x0)
	if s == nil {
		s = &IterateSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	tol := orDefault(s.Tol, 1e-10)
	maxIter := orDefaultInt(s.MaxIter, 1000)
	beta := orDefault(s.Damping, 1)
	maxPeriod := orDefaultInt(s.MaxPeriod, 8)
	if maxPeriod < 0 {
		maxPeriod = 0
	}
	ptol := orDefault(s.PeriodTol, tol)
	psep := orDefault(s.PeriodSep, math.Sqrt(ptol))

	n := len(x0)
	f := &counter{f: p.F}
	res := &Result{}
	o := NewOrbit(maxPeriod, clone(x0), distInf)
	fx := make([]float64, n)

	for it := 0; it < maxIter; it++ {
		x := o.Back(0)
		if err := f.eval(fx, x); err != nil {
			res.X, res.Status, res.Iterations, res.Evaluations = clone(x), MapFailed, it, f.evals
			return res, fmt.Errorf("fixedpoint: iterate: map at step %d: %w", it, err)
		}
		r := distInf(fx, x)
		res.Residual = r
		if s.History {
			res.History = append(res.History, r)
		}
		if !finite(r) {
			res.X, res.Status, res.Iterations, res.Evaluations = clone(fx), Diverged, it+1, f.evals
			return res, fmt.Errorf("fixedpoint: iterate: non-finite iterate at step %d: %w", it+1, ErrNotConverged)
		}
		xn := o.Spare()
		if xn == nil {
			xn = make([]float64, n)
		}
		for i := range xn {
			// x_{n+1} = (1−β)x_n + βF(x_n), written as x_n + β(F(x_n) − x_n).
			if beta == 1 {
				xn[i] = fx[i]
			} else {
				xn[i] = x[i] + beta*(fx[i]-x[i])
			}
		}
		o.Push(xn)
		if r <= tol {
			res.X, res.Status, res.Iterations, res.Evaluations = clone(xn), Converged, it+1, f.evals
			return res, nil
		}
		if per := o.Period(ptol, psep, 2); per > 0 {
			res.X, res.Status, res.Iterations, res.Evaluations = clone(xn), Periodic, it+1, f.evals
			res.Period = per
			for d := per - 1; d >= 0; d-- {
				res.Orbit = append(res.Orbit, clone(o.Back(d)))
			}
			return res, fmt.Errorf("fixedpoint: iterate: period-%d orbit after %d steps: %w", per, it+1, ErrNotConverged)
		}
	}
	res.X, res.Status, res.Iterations, res.Evaluations = clone(o.Back(0)), NotConverged, maxIter, f.evals
	return res, fmt.Errorf("fixedpoint: iterate: residual %.3g after %d steps: %w", res.Residual, maxIter, ErrNotConverged)
}
