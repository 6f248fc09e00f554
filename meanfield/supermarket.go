package meanfield

import (
	"fmt"
	"math"
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
// The explicit Runge–Kutta pair RK5(4) of Dormand & Prince (1980), in the
// FSAL arrangement of Hairer, Nørsett & Wanner (1993, §II.5, Table 5.2,
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

// Dormand–Prince RK5(4) coefficients (Dormand & Prince 1980; HNW 1993,
// Table 5.2). c_i are the nodes, a_ij the stage weights, b_i the weights of
// the fifth-order solution (equal to the seventh stage row, FSAL) and
// e_i = b_i − b*_i the weights of the error estimate.
const (
	dpC2, dpC3, dpC4, dpC5 = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9

	dpA21 = 1.0 / 5
	dpA31 = 3.0 / 40
	dpA32 = 9.0 / 40
	dpA41 = 44.0 / 45
	dpA42 = -56.0 / 15
	dpA43 = 32.0 / 9
	dpA51 = 19372.0 / 6561
	dpA52 = -25360.0 / 2187
	dpA53 = 64448.0 / 6561
	dpA54 = -212.0 / 729
	dpA61 = 9017.0 / 3168
	dpA62 = -355.0 / 33
	dpA63 = 46732.0 / 5247
	dpA64 = 49.0 / 176
	dpA65 = -5103.0 / 18656
	dpA71 = 35.0 / 384
	dpA73 = 500.0 / 1113
	dpA74 = 125.0 / 192
	dpA75 = -2187.0 / 6784
	dpA76 = 11.0 / 84

	dpE1 = 71.0 / 57600
	dpE3 = -71.0 / 16695
	dpE4 = 71.0 / 1920
	dpE5 = -17253.0 / 339200
	dpE6 = 22.0 / 525
	dpE7 = -1.0 / 40
)

// dopri5 is the workspace of one Dormand–Prince integration of
// y' = f(y) (autonomous) on vectors whose length may change between steps.
type dopri5 struct {
	f                          func(dy, y []float64)
	k1, k2, k3, k4, k5, k6, k7 []float64
	tmp, ynew, errv            []float64
	evals                      int
}

// resize sets the length of the workspace to n.
func (w *dopri5) resize(n int) {
	for _, p := range []*[]float64{&w.k1, &w.k2, &w.k3, &w.k4, &w.k5, &w.k6, &w.k7, &w.tmp, &w.ynew, &w.errv} {
		if cap(*p) < n {
			*p = append((*p)[:cap(*p)], make([]float64, n-cap(*p))...)
		}
		*p = (*p)[:n]
	}
}

func (w *dopri5) eval(dy, y []float64) {
	w.evals++
	w.f(dy, y)
}

// step takes one trial step of size h from y, whose derivative is in w.k1,
// leaving the fifth-order solution in w.ynew, its derivative in w.k7 and
// the error estimate in w.errv. It returns the scaled error (max norm).
func (w *dopri5) step(y []float64, h, atol, rtol float64) float64 {
	n := len(y)
	k1, k2, k3, k4, k5, k6, k7, tmp := w.k1, w.k2, w.k3, w.k4, w.k5, w.k6, w.k7, w.tmp
	for i := 0; i < n; i++ {
		tmp[i] = y[i] + h*dpA21*k1[i]
	}
	w.eval(k2, tmp)
	for i := 0; i < n; i++ {
		tmp[i] = y[i] + h*(dpA31*k1[i]+dpA32*k2[i])
	}
	w.eval(k3, tmp)
	for i := 0; i < n; i++ {
		tmp[i] = y[i] + h*(dpA41*k1[i]+dpA42*k2[i]+dpA43*k3[i])
	}
	w.eval(k4, tmp)
	for i := 0; i < n; i++ {
		tmp[i] = y[i] + h*(dpA51*k1[i]+dpA52*k2[i]+dpA53*k3[i]+dpA54*k4[i])
	}
	w.eval(k5, tmp)
	for i := 0; i < n; i++ {
		tmp[i] = y[i] + h*(dpA61*k1[i]+dpA62*k2[i]+dpA63*k3[i]+dpA64*k4[i]+dpA65*k5[i])
	}
	w.eval(k6, tmp)
	ynew := w.ynew
	for i := 0; i < n; i++ {
		ynew[i] = y[i] + h*(dpA71*k1[i]+dpA73*k3[i]+dpA74*k4[i]+dpA75*k5[i]+dpA76*k6[i])
	}
	w.eval(k7, ynew)
	var e float64
	for i := 0; i < n; i++ {
		ei := h * (dpE1*k1[i] + dpE3*k3[i] + dpE4*k4[i] + dpE5*k5[i] + dpE6*k6[i] + dpE7*k7[i])
		w.errv[i] = ei
		sc := atol + rtol*max(math.Abs(y[i]), math.Abs(ynew[i]))
		e = max(e, math.Abs(ei)/sc)
	}
	return e
}

// initialStep returns a first step size by the procedure of HNW 1993,
// §II.4 ("Starting step size"), for order p = 5, with the max norm. It
// uses w.k1 = f(y) and w.k2, w.tmp as scratch.
func (w *dopri5) initialStep(y []float64, atol, rtol, hmax float64) float64 {
	var d0, d1 float64
	for i, yi := range y {
		sc := atol + rtol*math.Abs(yi)
		d0 = max(d0, math.Abs(yi)/sc)
		d1 = max(d1, math.Abs(w.k1[i])/sc)
	}
	h0 := 1e-6
	if d0 >= 1e-5 && d1 >= 1e-5 {
		h0 = 0.01 * d0 / d1
	}
	h0 = min(h0, hmax)
	for i, yi := range y {
		w.tmp[i] = yi + h0*w.k1[i]
	}
	w.eval(w.k2, w.tmp)
	var d2 float64
	for i, yi := range y {
		sc := atol + rtol*math.Abs(yi)
		d2 = max(d2, math.Abs(w.k2[i]-w.k1[i])/sc)
	}
	d2 /= h0
	var h1 float64
	if max(d1, d2) <= 1e-15 {
		h1 = max(1e-6, h0*1e-3)
	} else {
		h1 = math.Pow(0.01/max(d1, d2), 1.0/5)
	}
	return min(100*h0, h1, hmax)
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
	r := &supermarketRun{s: s, y: append(make([]float64, 0, len(s0)+64), s0[1:]...)} // s_1 … s_n
	r.w = &dopri5{f: func(dy, y []float64) { supermarketDrift(dy, y, s.D, s.Load) }}
	now, err := r.integrate(t)
	r.finish(now)
	return r.res, err
}

// supermarketRun is the state of one SupermarketTransient.Run.
type supermarketRun struct {
	s   SupermarketTransient // with defaults
	y   []float64            // s_1 … s_n
	w   *dopri5
	res SupermarketTransientResult
}

// integrate advances y from time 0 to t by adaptive Dormand–Prince steps
// and returns the time reached.
func (r *supermarketRun) integrate(t float64) (float64, error) {
	s, w := r.s, r.w
	tol := s.Tol
	r.fit()
	w.resize(len(r.y))
	w.eval(w.k1, r.y)
	var h float64
	if t > 0 {
		h = w.initialStep(r.y, tol, tol, t)
	}
	now := 0.0
	noGrow := false
	tries := 0 // steps tried: accepted, rejected and retried
	for now < t {
		if tries >= s.MaxSteps {
			return now, fmt.Errorf("meanfield: supermarket transient: %d steps reached t = %.6g of %v: %w", tries, now, t, ErrNotConverged)
		}
		tries++
		last := false
		if now+h >= t || now+1.01*h >= t { // land on t exactly
			h = t - now
			last = true
		}
		e := w.step(r.y, h, tol, tol)
		if !(e <= 1) { // rejected (also NaN)
			r.res.Rejected++
			h = shrinkStep(h, e)
			noGrow = true
			if h < 1e-12*max(1, now) {
				return now, fmt.Errorf("meanfield: supermarket transient: step size %.3g underflows at t = %.6g: %w", h, now, ErrNotConverged)
			}
			continue
		}
		if r.outgrown() {
			continue
		}
		r.accept(h)
		if last {
			now = t
		} else {
			now += h
		}
		h = growStep(h, e, noGrow)
		noGrow = false
		if r.fit() {
			w.resize(len(r.y))
			w.eval(w.k1, r.y)
		}
	}
	return now, nil
}

// fit extends y until its last level is below Cut and drops trailing
// levels below Cut beyond the first such one; it reports whether the
// length changed.
func (r *supermarketRun) fit() bool {
	cut := r.s.Cut
	n0 := len(r.y)
	for len(r.y) == 0 || r.y[len(r.y)-1] >= cut {
		r.y = append(r.y, 0)
	}
	for len(r.y) >= 2 && r.y[len(r.y)-1] < cut && r.y[len(r.y)-2] < cut {
		r.res.Truncation += math.Abs(r.y[len(r.y)-1])
		r.y = r.y[:len(r.y)-1]
	}
	return len(r.y) != n0
}

// outgrown reports whether the tail outgrew the vector during the step
// just tried, and then extends it, so that the step is retried and the
// flux lost at the cut stays below λ·Cut^d.
func (r *supermarketRun) outgrown() bool {
	w, n := r.w, len(r.y)
	if w.ynew[n-1] < r.s.Cut {
		return false
	}
	for range max(4, n/4) {
		r.y = append(r.y, 0)
	}
	w.resize(len(r.y))
	w.eval(w.k1, r.y)
	r.res.Extensions++
	return true
}

// accept takes the step of length h just tried.
func (r *supermarketRun) accept(h float64) {
	w, y, n := r.w, r.y, len(r.y)
	r.res.Steps++
	// Lost arrivals at the cut, λ s_n^d, over the step (trapezoid).
	r.res.Truncation += h * r.s.Load * 0.5 * (math.Abs(ipow(y[n-1], r.s.D)) + math.Abs(ipow(w.ynew[n-1], r.s.D)))
	var esum float64
	for _, ei := range w.errv {
		esum += ei
	}
	r.res.ErrorEstimate += math.Abs(esum)
	copy(y, w.ynew)
	w.k1, w.k7 = w.k7, w.k1 // FSAL: f(y_new) is the next k1
}

// shrinkStep returns the step after a rejection with error ratio e.
func shrinkStep(h, e float64) float64 {
	if math.IsNaN(e) {
		return h * 0.2
	}
	return h * max(0.2, 0.9*math.Pow(e, -0.2))
}

// growStep returns the step after an accepted one with error ratio e (not
// above the step when the last try was rejected).
func growStep(h, e float64, noGrow bool) float64 {
	fac := 5.0
	if noGrow {
		fac = 1
	}
	return h * min(fac, max(0.2, 0.9*math.Pow(max(e, 1e-30), -0.2)))
}

// finish fills the result at the time reached.
func (r *supermarketRun) finish(now float64) {
	res, w := &r.res, r.w
	res.Time = now
	res.Tails = append(append(make([]float64, 0, len(r.y)+1), 1), r.y...)
	for _, v := range r.y {
		res.QueueMean += v
	}
	res.Response = res.QueueMean / r.s.Load
	w.eval(w.k1, r.y)
	for _, v := range w.k1 {
		res.Drift = max(res.Drift, math.Abs(v))
	}
	res.Evaluations = w.evals
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
