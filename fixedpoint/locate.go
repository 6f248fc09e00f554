package fixedpoint

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoBracket is wrapped by the error Locate returns when the predicate
// takes the same value at every point of its scan.
var ErrNoBracket = errors.New("fixedpoint: predicate does not change on the scan grid")

// LocateSettings controls Locate. The zero value gives the defaults.
type LocateSettings struct {
	// AbsTol and RelTol: bisection stops when hi − lo ≤ AbsTol +
	// RelTol·max(|lo|, |hi|). If both are zero, AbsTol is 1e-9·(hi − lo) of
	// the initial interval.
	AbsTol, RelTol float64
	// Points is the number of equally spaced scan points, endpoints
	// included. Zero means 2 (the endpoints only).
	Points int
	// MaxEval bounds the number of predicate evaluations. Zero means
	// Points + 200.
	MaxEval int
}

// Validate reports whether the settings are usable.
func (s *LocateSettings) Validate() error {
	if err := checkNonNeg("LocateSettings.AbsTol", s.AbsTol); err != nil {
		return err
	}
	if err := checkNonNeg("LocateSettings.RelTol", s.RelTol); err != nil {
		return err
	}
	if s.Points == 1 || s.Points < 0 {
		return fmt.Errorf("fixedpoint: LocateSettings.Points = %d, want 0 (default 2) or ≥ 2", s.Points)
	}
	if err := checkCount("LocateSettings.MaxEval", s.MaxEval); err != nil {
		return err
	}
	if s.MaxEval != 0 && s.MaxEval < max(s.Points, 2) {
		return fmt.Errorf("fixedpoint: LocateSettings.MaxEval = %d is below the %d scan points", s.MaxEval, max(s.Points, 2))
	}
	return nil
}

// Evaluation is one predicate evaluation.
type Evaluation struct {
	Mu    float64
	Value bool
}

// LocateResult is a bracket [Lo, Hi] across which the predicate changes.
type LocateResult struct {
	Lo, Hi           float64
	ValueLo, ValueHi bool // P(Lo) and P(Hi); they differ
	// Evaluations lists every predicate evaluation in the order made; each
	// μ appears once.
	Evaluations []Evaluation
	// Converged reports whether the bracket met the tolerance.
	Converged bool
}

// Mid returns the midpoint of the bracket.
func (r *LocateResult) Mid() float64 { return r.Lo + (r.Hi-r.Lo)/2 }

// Locate finds where the predicate P changes value on [lo, hi]. It
// evaluates P on Points equally spaced points from lo to hi, takes the
// first adjacent pair (from lo) at which P differs, and bisects it until
// its width is at most AbsTol + RelTol·max(|lo|, |hi|), or the midpoint is
// no longer representable between the ends. Each μ is evaluated at most
// once, the bracket ends are never re-evaluated, and P may be expensive
// (for example a Newton solve and a spectrum): the cost is Points +
// ⌈log₂(width/tol)⌉ evaluations.
//
// If P is the same at every scan point the error wraps ErrNoBracket; if
// MaxEval is reached first, the current bracket is returned with an error
// wrapping ErrNotConverged. s may be nil.
func Locate(pred func(mu float64) bool, lo, hi float64, s *LocateSettings) (*LocateResult, error) {
	if pred == nil {
		panic("fixedpoint: Locate: nil predicate")
	}
	if s == nil {
		s = &LocateSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return nil, fmt.Errorf("fixedpoint: locate: interval [%v, %v] must be finite with lo < hi", lo, hi)
	}
	points := orDefaultInt(s.Points, 2)
	maxEval := orDefaultInt(s.MaxEval, points+200)
	absTol, relTol := s.AbsTol, s.RelTol
	if absTol == 0 && relTol == 0 {
		absTol = 1e-9 * (hi - lo)
	}
	out := &LocateResult{}
	eval := func(mu float64) bool {
		v := pred(mu)
		out.Evaluations = append(out.Evaluations, Evaluation{mu, v})
		return v
	}

	prevMu, prevV := lo, eval(lo)
	found := false
	for i := 1; i < points; i++ {
		mu := lo + (hi-lo)*float64(i)/float64(points-1)
		if i == points-1 {
			mu = hi
		}
		v := eval(mu)
		if v != prevV {
			out.Lo, out.Hi, out.ValueLo, out.ValueHi = prevMu, mu, prevV, v
			found = true
			break
		}
		prevMu, prevV = mu, v
	}
	if !found {
		return out, fmt.Errorf("fixedpoint: locate: P = %v at all %d points of [%v, %v]: %w", prevV, points, lo, hi, ErrNoBracket)
	}
	return out, refine(eval, out, absTol, relTol, maxEval)
}

// Refine bisects a bracket whose end values are already known: P(lo) =
// valueLo and P(hi) = !valueLo, with lo < hi. It is Locate without the
// scan (neither end is evaluated again) and stops on the same tolerance
// (AbsTol + RelTol·max(|lo|, |hi|); 1e-9·(hi − lo) when both are zero);
// Points is ignored and MaxEval (zero: 200) bounds the evaluations made
// here. Use it when the ends come from earlier work, for example the last
// parameter at which a branch of fixed points existed and the first at
// which it did not. s may be nil.
func Refine(pred func(mu float64) bool, lo, hi float64, valueLo bool, s *LocateSettings) (*LocateResult, error) {
	if pred == nil {
		panic("fixedpoint: Refine: nil predicate")
	}
	if s == nil {
		s = &LocateSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return nil, fmt.Errorf("fixedpoint: refine: interval [%v, %v] must be finite with lo < hi", lo, hi)
	}
	absTol, relTol := s.AbsTol, s.RelTol
	if absTol == 0 && relTol == 0 {
		absTol = 1e-9 * (hi - lo)
	}
	out := &LocateResult{Lo: lo, Hi: hi, ValueLo: valueLo, ValueHi: !valueLo}
	eval := func(mu float64) bool {
		v := pred(mu)
		out.Evaluations = append(out.Evaluations, Evaluation{mu, v})
		return v
	}
	return out, refine(eval, out, absTol, relTol, orDefaultInt(s.MaxEval, 200))
}

// refine bisects out's bracket in place until the tolerance is met or
// maxEval evaluations (counted in out.Evaluations) have been made.
func refine(eval func(float64) bool, out *LocateResult, absTol, relTol float64, maxEval int) error {
	for {
		width := out.Hi - out.Lo
		if width <= absTol+relTol*math.Max(math.Abs(out.Lo), math.Abs(out.Hi)) {
			out.Converged = true
			return nil
		}
		mid := out.Lo + width/2
		if mid <= out.Lo || mid >= out.Hi {
			// No float64 strictly inside: the bracket is as tight as it gets.
			out.Converged = true
			return nil
		}
		if len(out.Evaluations) >= maxEval {
			return fmt.Errorf("fixedpoint: locate: bracket [%v, %v] after %d evaluations: %w", out.Lo, out.Hi, len(out.Evaluations), ErrNotConverged)
		}
		if eval(mid) == out.ValueLo {
			out.Lo = mid
		} else {
			out.Hi = mid
		}
	}
}

// Extrapolate writes into dst (grown as needed, and returned) the secant
// predictor of natural-parameter continuation, x(μ) ≈ x1 + (x1 − x0)·(μ −
// μ1)/(μ1 − μ0) (Allgower & Georg 2003, §2.1), for points x0 at μ0 and x1
// at μ1 of one branch. Vectors of different lengths are padded with zeros
// (the shorter is read as zero beyond its end), so truncated probability
// vectors may be extrapolated directly; the caller clips and renormalises
// where its state space needs it. μ0 = μ1 returns a copy of x1.
func Extrapolate(dst, x0, x1 []float64, mu0, mu1, mu float64) []float64 {
	n := max(len(x0), len(x1))
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	f := 0.0
	if mu1 != mu0 {
		f = (mu - mu1) / (mu1 - mu0)
	}
	for i := range dst {
		var a, b float64
		if i < len(x1) {
			a = x1[i]
		}
		if i < len(x0) {
			b = x0[i]
		}
		dst[i] = a + f*(a-b)
	}
	return dst
}

// BorderEstimate locates a border collision from two points of a branch
// of a piecewise-smooth map: g0 and g1 are the distances of the fixed
// point from the border (a kink of the map) at μ0 and μ1, on the same side
// and smooth in μ between, so that the collision is the root of g(μ). It
// returns the secant root μ1 − g1(μ1 − μ0)/(g1 − g0) (regula falsi; exact
// for g linear in μ, as it is to first order near a border collision: di
// Bernardo et al. 2008, ch. 3) and whether it is usable: g1 and g0 finite
// and non-negative, g1 < g0 (the branch approaches the border in the
// direction μ0 → μ1), μ0 ≠ μ1.
func BorderEstimate(mu0, g0, mu1, g1 float64) (float64, bool) {
	if !(finite(g0) && finite(g1) && g1 >= 0 && g1 < g0 && mu0 != mu1) {
		return math.NaN(), false
	}
	return mu1 - g1*(mu1-mu0)/(g1-g0), true
}
