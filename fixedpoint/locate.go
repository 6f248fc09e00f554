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
	for {
		width := out.Hi - out.Lo
		if width <= absTol+relTol*math.Max(math.Abs(out.Lo), math.Abs(out.Hi)) {
			out.Converged = true
			return out, nil
		}
		mid := out.Lo + width/2
		if mid <= out.Lo || mid >= out.Hi {
			// No float64 strictly inside: the bracket is as tight as it gets.
			out.Converged = true
			return out, nil
		}
		if len(out.Evaluations) >= maxEval {
			return out, fmt.Errorf("fixedpoint: locate: bracket [%v, %v] after %d evaluations: %w", out.Lo, out.Hi, len(out.Evaluations), ErrNotConverged)
		}
		if eval(mid) == out.ValueLo {
			out.Lo = mid
		} else {
			out.Hi = mid
		}
	}
}
