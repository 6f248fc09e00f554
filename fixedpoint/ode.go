package fixedpoint

import (
	"fmt"
	"math"
)

// Dormand–Prince RK5(4) coefficients (Dormand & Prince 1980; HNW 1993,
// Table 5.2): a_ij the stage weights, b_i the weights of the fifth-order
// solution (equal to the seventh stage row, FSAL) and e_i = b_i − b*_i the
// weights of the error estimate. The system is autonomous, so the nodes
// c_i are not needed.
const (
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

// DormandPrince is the workspace of one integration of an autonomous
// system y' = f(y) by the explicit Runge–Kutta pair RK5(4) of Dormand &
// Prince (1980) in the FSAL arrangement of Hairer, Nørsett & Wanner (1993,
// §II.5, Table 5.2, the code DOPRI5), propagating the fifth-order solution
// (local extrapolation), with adaptive step-size control (Integrate), for
// meanfield's SupermarketTransient, whose tail vector is cut adaptively:
// the state may change length between steps. Errors are measured in the
// maximum norm
//
//	err = max_i |e_i| / (atol + rtol·max(|y_i|, |ŷ_i|))
//
// (HNW §II.4, eq. (4.10)–(4.11), with the maximum in place of the root
// mean square); a step is acceptable when err ≤ 1, and shrinkStep and
// growStep give the next step size.
//
// References: J. R. Dormand, P. J. Prince, A family of embedded
// Runge–Kutta formulae, J. Comput. Appl. Math. 6(1):19–26, 1980; E.
// Hairer, S. P. Nørsett, G. Wanner, Solving Ordinary Differential
// Equations I: Nonstiff Problems, 2nd ed., Springer, 1993, §II.4 (step
// size control), §II.5 (Dormand–Prince coefficients).
type DormandPrince struct {
	f                          func(dy, y []float64)
	k1, k2, k3, k4, k5, k6, k7 []float64
	tmp, ynew, errv            []float64
	evals                      int
}

// NewDormandPrince returns a workspace for y' = f(y); f writes f(y) into
// dy (of y's length) and must not retain either.
func NewDormandPrince(f func(dy, y []float64)) *DormandPrince {
	return &DormandPrince{f: f}
}

// resize sets the length of the workspace to n.
func (w *DormandPrince) resize(n int) {
	for _, p := range []*[]float64{&w.k1, &w.k2, &w.k3, &w.k4, &w.k5, &w.k6, &w.k7, &w.tmp, &w.ynew, &w.errv} {
		if cap(*p) < n {
			*p = append((*p)[:cap(*p)], make([]float64, n-cap(*p))...)
		}
		*p = (*p)[:n]
	}
}

func (w *DormandPrince) eval(dy, y []float64) {
	w.evals++
	w.f(dy, y)
}

// Start sizes the workspace to y and evaluates f(y) (Derivative), which
// the next step starts from: at the start, and whenever y has changed
// other than by a step.
func (w *DormandPrince) Start(y []float64) {
	w.resize(len(y))
	w.eval(w.k1, y)
}

// Derivative returns f(y) at the current point (valid after Start or a
// step; overwritten by the next).
func (w *DormandPrince) Derivative() []float64 { return w.k1 }

// Evaluations returns the number of evaluations of f so far.
func (w *DormandPrince) Evaluations() int { return w.evals }

// step takes one trial step of size h from y, whose derivative is in
// w.k1, leaving the fifth-order solution in w.ynew, its derivative in
// w.k7 and the embedded local error estimate e (the difference of the
// fifth- and fourth-order solutions) in w.errv, and returns the scaled
// error err (max norm; NaN when the step produced one). y is not
// changed: accept takes the step.
func (w *DormandPrince) step(y []float64, h, atol, rtol float64) float64 {
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

// accept takes the step last tried: y becomes its solution, and f of it,
// already evaluated as the seventh stage, the next derivative (FSAL).
func (w *DormandPrince) accept(y []float64) {
	copy(y, w.ynew)
	w.k1, w.k7 = w.k7, w.k1
}

// initialStep returns a first step size, at most hmax, by the procedure
// of HNW 1993, §II.4 ("Starting step size"), for order p = 5, with the
// max norm. It starts from w.k1 = f(y) (Start) and costs one evaluation
// of f, using w.k2 and w.tmp as scratch.
func (w *DormandPrince) initialStep(y []float64, atol, rtol, hmax float64) float64 {
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

// shrinkStep returns the step size after a step of size h rejected with
// scaled error e > 1 (or NaN): h·max(0.2, 0.9·e^(−1/5)), h/5 for NaN
// (HNW 1993, eq. (4.13)).
func shrinkStep(h, e float64) float64 {
	if math.IsNaN(e) {
		return h * 0.2
	}
	return h * max(0.2, 0.9*math.Pow(e, -0.2))
}

// growStep returns the step size after a step of size h accepted with
// scaled error e ≤ 1: h·min(5, max(0.2, 0.9·e^(−1/5))), with no growth
// (the factor at most 1) when the try before was rejected (HNW 1993,
// eq. (4.13)).
func growStep(h, e float64, noGrow bool) float64 {
	fac := 5.0
	if noGrow {
		fac = 1
	}
	return h * min(fac, max(0.2, 0.9*math.Pow(max(e, 1e-30), -0.2)))
}

// Adaptive controls DormandPrince.Integrate: the tolerance, the budget of
// steps, and the hooks of a caller whose state is a truncated vector that
// grows and shrinks as the solution spreads (each may be nil).
type Adaptive struct {
	// Tol is the absolute and relative local error tolerance per step.
	Tol float64
	// MaxSteps bounds the steps tried: accepted, rejected and retried.
	MaxSteps int
	// Fit refits the state before the first step and after every
	// accepted one, returning it (for example cut anew); when its length
	// changes, the workspace restarts on it (Start).
	Fit func(y []float64) []float64
	// Retry is asked after every trial step that met Tol, with the
	// solution next it reached: nil accepts the step; a state returned
	// (y lengthened, because the solution outgrew it) is one the step is
	// retried from.
	Retry func(y, next []float64) []float64
	// Accept is called before every accepted step of size h is taken,
	// with the points y before and next after it and the step's embedded
	// local error estimate errv.
	Accept func(y, next, errv []float64, h float64)
}

// Integrated is where DormandPrince.Integrate ended.
type Integrated struct {
	// Y is the state at Time: the start vector advanced, or the last one
	// Fit or Retry returned.
	Y []float64
	// Time is the time reached: the end time, or less after an error.
	Time float64
	// Rejected counts the steps rejected for their error.
	Rejected int
}

// StepError is what DormandPrince.Integrate's error (which also wraps
// ErrNotConverged) holds when it stops before the end time: MaxSteps
// steps were tried (Step 0), or the step size Step underflowed (below
// 1e-12 of the time reached, or of 1).
type StepError struct {
	Tried     int
	Time, End float64
	Step      float64
}

// Error describes where the integration stopped.
func (e *StepError) Error() string {
	if e.Step > 0 {
		return fmt.Sprintf("fixedpoint: step size %.3g underflows at t = %.6g", e.Step, e.Time)
	}
	return fmt.Sprintf("fixedpoint: %d steps reached t = %.6g of %v", e.Tried, e.Time, e.End)
}

// Integrate advances y from time 0 to t ≥ 0 by adaptive steps (HNW 1993,
// §II.4): the first step by initialStep, a step accepted when its scaled
// error is at most 1, the next step size by growStep or shrinkStep, and
// the last step shortened to land on t exactly. It overwrites y (and the
// states Fit and Retry return) and returns the state reached, with an
// error wrapping ErrNotConverged and a *StepError when the steps ran out
// or their size underflowed.
func (w *DormandPrince) Integrate(y []float64, t float64, a Adaptive) (Integrated, error) {
	if a.Fit != nil {
		y = a.Fit(y)
	}
	w.Start(y)
	var h float64
	if t > 0 {
		h = w.initialStep(y, a.Tol, a.Tol, t)
	}
	out := Integrated{Y: y}
	noGrow := false
	tried := 0
	for out.Time < t {
		if tried >= a.MaxSteps {
			return out, fmt.Errorf("%w: %w", &StepError{Tried: tried, Time: out.Time, End: t}, ErrNotConverged)
		}
		tried++
		last := false
		if out.Time+h >= t || out.Time+1.01*h >= t { // land on t exactly
			h = t - out.Time
			last = true
		}
		e := w.step(out.Y, h, a.Tol, a.Tol)
		if !(e <= 1) { // rejected (also NaN)
			out.Rejected++
			h = shrinkStep(h, e)
			noGrow = true
			if h < 1e-12*max(1, out.Time) {
				return out, fmt.Errorf("%w: %w", &StepError{Tried: tried, Time: out.Time, End: t, Step: h}, ErrNotConverged)
			}
			continue
		}
		if a.Retry != nil {
			if longer := a.Retry(out.Y, w.ynew); longer != nil {
				out.Y = longer
				w.Start(out.Y)
				continue
			}
		}
		if a.Accept != nil {
			a.Accept(out.Y, w.ynew, w.errv, h)
		}
		w.accept(out.Y)
		if last {
			out.Time = t
		} else {
			out.Time += h
		}
		h = growStep(h, e, noGrow)
		noGrow = false
		if a.Fit != nil {
			n := len(out.Y)
			if out.Y = a.Fit(out.Y); len(out.Y) != n {
				w.Start(out.Y)
			}
		}
	}
	return out, nil
}
