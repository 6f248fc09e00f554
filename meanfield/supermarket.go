package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/fixedpoint"
)

// SupermarketDrift writes into dst the right-hand side of the supermarket
// model SQ(d) with live information at per-server load λ = load,
//
//	ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1}),  i ≥ 1,
//
// for the tails s (s[0] = s_0 = 1, the share of servers holding at least i
// jobs; levels past the end of s are 0), and returns dst. dst[0] = 0: s_0
// is constant. The first term is the rate at which an arrival, sampling d
// servers with replacement and joining the shortest, lands on a queue of
// length exactly i − 1; the second the rate at which a queue of length
// exactly i completes a job (Vvedenskaya, Dobrushin & Karpelevich 1996,
// eq. (1.4); Mitzenmacher 2001, §3, eq. (1)). dst must have the length of s
// (it panics otherwise); it may not alias s.
func SupermarketDrift(dst, s []float64, d int, load float64) []float64 {
	if len(dst) != len(s) {
		panic(fmt.Sprintf("meanfield: SupermarketDrift: len(dst) = %d, len(s) = %d", len(dst), len(s)))
	}
	if len(s) == 0 {
		return dst
	}
	dst[0] = 0
	supermarketDrift(dst[1:], s[1:], d, load)
	return dst
}

// supermarketDrift is the drift on y = (s_1, …, s_n), with s_0 = 1 and
// s_{n+1} = 0.
func supermarketDrift(dy, y []float64, d int, load float64) {
	prev := 1.0 // s_{i−1}^d
	n := len(y)
	for i, si := range y {
		pi := ipow(si, d)
		next := 0.0
		if i+1 < n {
			next = y[i+1]
		}
		dy[i] = load*(prev-pi) - (si - next)
		prev = pi
	}
}

// ipow returns x^d for d ≥ 1 by repeated squaring.
func ipow(x float64, d int) float64 {
	r := 1.0
	for d > 0 {
		if d&1 == 1 {
			r *= x
		}
		x *= x
		d >>= 1
	}
	return r
}

// Defaults of SupermarketTransient.
const (
	DefaultSupermarketTol      = 1e-10
	DefaultSupermarketCut      = 1e-15
	DefaultSupermarketMaxSteps = 1_000_000

	maxSupermarketTime = 1e9
)

// SupermarketTransient integrates the supermarket model SQ(d) with live
// information (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher
// 2001) from a given state over a finite time, by the ordinary differential
// equations
//
//	ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1}),  i ≥ 1,  s_0 = 1
//
// (SupermarketDrift); s_i is the share of servers holding at least i jobs
// and time is in mean service times. Its long-time limit is the fixed point
// of SupermarketTails; for d = 1 the equations are the forward equations of
// the M/M/1 queue written for its tails.
//
// # Method
//
// The explicit Runge–Kutta pair RK5(4) of Dormand & Prince (1980)
// (fixedpoint.DormandPrince, with its step-size control), in the FSAL
// arrangement of Hairer, Nørsett & Wanner (1993, §II.5, Table 5.2,
// the code DOPRI5), propagating the fifth-order solution (local
// extrapolation). The local error estimate is the difference of the two
// embedded solutions, measured in the maximum norm
//
//	err = max_i |e_i| / (Tol + Tol·max(|y_i|, |ŷ_i|))
//
// (HNW §II.4, eq. (4.10)–(4.11), with the maximum in place of the root mean
// square so that the many tiny tail levels do not dilute the error of the
// first ones); a step is accepted when err ≤ 1, and the next step is
// h·min(5, max(0.2, 0.9·err^(−1/5))), with no growth right after a
// rejection (HNW eq. (4.13)). The first step follows HNW §II.4, "Starting
// step size". The system is not stiff (its Jacobian is bounded by about
// 2 + 2dλ in norm), so an explicit method is efficient; near the fixed
// point the step size settles at the stability limit.
//
// # Truncation
//
// The tail vector is cut adaptively: before every step it is extended
// until its last level is below Cut, and levels beyond the cut are 0; a
// step after which the last level reaches Cut is retried on a vector
// longer by a quarter (at least 4 levels). The cut loses the arrivals that would join a queue of length n (the last
// level kept), at rate λ s_n^d; levels that fall back below Cut are
// dropped again (keeping one), losing their value. Both losses, in jobs
// per server, are summed into SupermarketTransientResult.Truncation, an
// absolute bound on the effect of the cut on QueueMean.
//
// # References
//
//   - J. R. Dormand, P. J. Prince, A family of embedded Runge–Kutta
//     formulae, J. Comput. Appl. Math. 6(1):19–26, 1980.
//   - E. Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential
//     Equations I: Nonstiff Problems, 2nd ed., Springer, 1993, §II.4
//     (step size control), §II.5 (Dormand–Prince coefficients).
//   - N. D. Vvedenskaya, R. L. Dobrushin, F. I. Karpelevich, Queueing
//     system with selection of the shortest of two queues: an asymptotic
//     approach, Problems of Information Transmission 32(1):15–27, 1996.
//   - M. Mitzenmacher, The power of two choices in randomized load
//     balancing, IEEE TPDS 12(10):1094–1104, 2001.
type SupermarketTransient struct {
	// D is the number of servers sampled per job (with replacement), ≥ 1.
	D int
	// Load is the per-server arrival rate λ, in (0, 1).
	Load float64
	// Tol is the absolute and relative local error tolerance per step, in
	// [1e-14, 1e-3]. Zero means DefaultSupermarketTol.
	Tol float64
	// Cut is the truncation level of the tails, in [1e-300, 1e-6]. Zero
	// means DefaultSupermarketCut.
	Cut float64
	// MaxSteps bounds the number of steps tried (accepted and rejected);
	// ≥ 0, zero means DefaultSupermarketMaxSteps.
	MaxSteps int
}

// Validate reports the first setting out of range, naming the field.
func (s SupermarketTransient) Validate() error {
	switch {
	case s.D < 1:
		return fmt.Errorf("meanfield: SupermarketTransient.D = %d outside [1, ∞)", s.D)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: SupermarketTransient.Load = %v outside (0, 1)", s.Load)
	case s.Tol != 0 && !(s.Tol >= 1e-14 && s.Tol <= 1e-3):
		return fmt.Errorf("meanfield: SupermarketTransient.Tol = %v outside [1e-14, 1e-3] (0 means %g)", s.Tol, DefaultSupermarketTol)
	case s.Cut != 0 && !(s.Cut >= 1e-300 && s.Cut <= 1e-6):
		return fmt.Errorf("meanfield: SupermarketTransient.Cut = %v outside [1e-300, 1e-6] (0 means %g)", s.Cut, DefaultSupermarketCut)
	case s.MaxSteps < 0:
		return fmt.Errorf("meanfield: SupermarketTransient.MaxSteps = %d outside [0, ∞) (0 means %d)", s.MaxSteps, DefaultSupermarketMaxSteps)
	}
	return nil
}

func (s SupermarketTransient) withDefaults() SupermarketTransient {
	if s.Tol == 0 {
		s.Tol = DefaultSupermarketTol
	}
	if s.Cut == 0 {
		s.Cut = DefaultSupermarketCut
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = DefaultSupermarketMaxSteps
	}
	return s
}

// SupermarketTransientResult is the state of the supermarket model at the
// end of SupermarketTransient.Run.
type SupermarketTransientResult struct {
	// Time is the time reached: the requested t, or less when Run failed.
	Time float64
	// Tails are s_0 = 1, s_1, …, s_n at Time; levels beyond are cut (0).
	Tails []float64
	// QueueMean is the mean queue length Σ_{i≥1} s_i at Time.
	QueueMean float64
	// Response is QueueMean/λ: the mean time in system by Little's law once
	// the tails are stationary (Drift ≈ 0); during a transient it is only
	// the queue in time units.
	Response float64
	// Drift is max_i |ds_i/dt| at Time, a measure of distance from the
	// fixed point.
	Drift float64
	// Steps and Rejected count accepted and rejected Runge–Kutta steps;
	// Extensions counts steps retried because the tail outgrew the
	// vector; Evaluations counts drift evaluations.
	Steps, Rejected, Extensions, Evaluations int
	// ErrorEstimate is Σ over accepted steps of |Σ_i e_i|, the embedded
	// local error estimates of QueueMean. It estimates the global error of
	// QueueMean from above when errors do not grow, as here (the fixed
	// point attracts), and is conservative because the propagated solution
	// is the fifth-order one.
	ErrorEstimate float64
	// Truncation is the number of jobs per server lost to the cut of the
	// tail vector (see SupermarketTransient).
	Truncation float64
}

// Run integrates the supermarket equations from the tails s0 over [0, t]
// and returns the state at t. s0 must start with s0[0] = 1 and be
// non-increasing in [0, 1]; nil means the empty system {1}. A result
// filled in up to the time reached comes with an error wrapping
// ErrNotConverged when MaxSteps steps do not reach t (or the step size
// underflows); invalid settings, tails or t (negative or above 1e9)
// return other errors.
func (s SupermarketTransient) Run(s0 []float64, t float64) (SupermarketTransientResult, error) {
	if err := s.Validate(); err != nil {
		return SupermarketTransientResult{}, err
	}
	if !(t >= 0 && t <= maxSupermarketTime) {
		return SupermarketTransientResult{}, fmt.Errorf("meanfield: transient time t = %v outside [0, %g]", t, maxSupermarketTime)
	}
	if s0 == nil {
		s0 = []float64{1}
	}
	if err := checkTails(s0); err != nil {
		return SupermarketTransientResult{}, err
	}
	s = s.withDefaults()
	r := &supermarketRun{s: s}
	w := fixedpoint.NewDormandPrince(func(dy, y []float64) { supermarketDrift(dy, y, s.D, s.Load) })
	y := append(make([]float64, 0, len(s0)+64), s0[1:]...) // s_1 … s_n
	end, err := w.Integrate(y, t, fixedpoint.Adaptive{Tol: s.Tol, MaxSteps: s.MaxSteps, Fit: r.fit, Retry: r.outgrown, Accept: r.accept})
	r.res.Rejected = end.Rejected
	r.finish(w, end)
	var se *fixedpoint.StepError
	switch {
	case errors.As(err, &se) && se.Step > 0:
		err = fmt.Errorf("meanfield: supermarket transient: step size %.3g underflows at t = %.6g: %w", se.Step, se.Time, ErrNotConverged)
	case errors.As(err, &se):
		err = fmt.Errorf("meanfield: supermarket transient: %d steps reached t = %.6g of %v: %w", se.Tried, se.Time, t, ErrNotConverged)
	}
	return r.res, err
}

// supermarketRun is the state of one SupermarketTransient.Run: the
// truncation of the tail vector s_1 … s_n, which grows and shrinks with
// the solution, and its accounting (SupermarketTransient, "Truncation").
type supermarketRun struct {
	s   SupermarketTransient // with defaults
	res SupermarketTransientResult
}

// fit extends y until its last level is below Cut and drops trailing
// levels below Cut beyond the first such one, and returns it.
func (r *supermarketRun) fit(y []float64) []float64 {
	cut := r.s.Cut
	for len(y) == 0 || y[len(y)-1] >= cut {
		y = append(y, 0)
	}
	for len(y) >= 2 && y[len(y)-1] < cut && y[len(y)-2] < cut {
		r.res.Truncation += math.Abs(y[len(y)-1])
		y = y[:len(y)-1]
	}
	return y
}

// outgrown reports whether the tail outgrew the vector during the step
// from y to next just tried, and then returns y extended, so that the
// step is retried and the flux lost at the cut stays below λ·Cut^d; nil
// otherwise.
func (r *supermarketRun) outgrown(y, next []float64) []float64 {
	n := len(y)
	if next[n-1] < r.s.Cut {
		return nil
	}
	for range max(4, n/4) {
		y = append(y, 0)
	}
	r.res.Extensions++
	return y
}

// accept accounts for the step of length h from y to next, with local
// error estimate errv, about to be taken.
func (r *supermarketRun) accept(y, next, errv []float64, h float64) {
	n := len(y)
	r.res.Steps++
	// Lost arrivals at the cut, λ s_n^d, over the step (trapezoid).
	r.res.Truncation += h * r.s.Load * 0.5 * (math.Abs(ipow(y[n-1], r.s.D)) + math.Abs(ipow(next[n-1], r.s.D)))
	var esum float64
	for _, ei := range errv {
		esum += ei
	}
	r.res.ErrorEstimate += math.Abs(esum)
}

// finish fills the result at the time reached.
func (r *supermarketRun) finish(w *fixedpoint.DormandPrince, end fixedpoint.Integrated) {
	res, y := &r.res, end.Y
	res.Time = end.Time
	res.Tails = append(append(make([]float64, 0, len(y)+1), 1), y...)
	for _, v := range y {
		res.QueueMean += v
	}
	res.Response = res.QueueMean / r.s.Load
	w.Start(y)
	for _, v := range w.Derivative() {
		res.Drift = max(res.Drift, math.Abs(v))
	}
	res.Evaluations = w.Evaluations()
}

// checkTails reports whether s is a valid tail vector: s[0] = 1 and
// 1 ≥ s_1 ≥ s_2 ≥ … ≥ 0.
func checkTails(s []float64) error {
	if len(s) == 0 || s[0] != 1 {
		return fmt.Errorf("meanfield: tails must start with s_0 = 1")
	}
	for i := 1; i < len(s); i++ {
		if !(s[i] >= 0 && s[i] <= s[i-1]) {
			return fmt.Errorf("meanfield: tail s_%d = %v outside [0, s_%d = %v]", i, s[i], i-1, s[i-1])
		}
	}
	return nil
}
