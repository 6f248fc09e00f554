package compare

import (
	"fmt"
	"math"
)

// The heavy-traffic expansion of the edge: an approximation, labelled as
// such wherever it is printed, for loads above those at which the exact
// search (meanfield.Edge) fits its budget.
//
// In the heavy-traffic scaling x = T(1 − λ)² the edge tends to the limit
// map's x*(k) as λ → 1 (MapLimit; meanfield package doc, §6). Near the
// limit, in h = 1 − λ,
//
//	x(λ) ≈ x*(k) + c₁·h + c₂·h²,
//
// with c₁ and c₂ fitted exactly to the exact edges at the first two of
// ExpansionLoads and checked against the exact edge at the third, which
// the fit does not see. The error estimate at load λ is the larger of
// that held-out miss and the size of the last term kept, |c₂|h² (the
// usual gauge of a truncated expansion), with x*'s own error in
// quadrature. It is an estimate, not a bound. The held-out miss alone was
// too small: at k = 5 (x* = 2.81059 ± 0.0006; exact 2.89922, 2.81681,
// 2.80553 at λ = 0.9, 0.95, 0.97) the fit misses 0.97 by 3.5·10⁻⁴ but the
// exact edge at 0.99, 2.806721, by 9.9·10⁻⁴, so the approach to x* is not
// quadratic all the way; |c₂|h² = 1.5·10⁻³ there covers it. Against the
// exact edges at λ = 0.99 for k = 3, 4, 5, 6, 8, 10 (0.952976, 1.907880,
// 2.806721, 3.659515, 5.263945, 6.776719; herd edge --load 0.99
// --confirm) the expansion misses by 1.3·10⁻⁴, 3.0·10⁻⁴, 9.9·10⁻⁴,
// 2.4·10⁻³, 1.0·10⁻³ and 7.0·10⁻³, each within its estimate.

// ExpansionLoads are the loads of the exact edges behind the expansion:
// c₁ and c₂ are fitted to the first two, the third is held out to
// estimate the error. The expansion answers only above the third.
var ExpansionLoads = [3]float64{0.9, 0.95, 0.97}

// EdgeExpansion is the heavy-traffic expansion of one k's edge.
type EdgeExpansion struct {
	Dispatchers int
	// Exists is false when the limit map has no edge (k ≤ 2); the
	// expansion then has none either.
	Exists bool
	// XStar ± XStarErr is the limit map's edge x*(k) (MapLimit).
	XStar, XStarErr float64
	// C1 and C2 are the coefficients of h = 1 − λ and h².
	C1, C2 float64
	// Exact are the exact edges x at ExpansionLoads; Predicted is the
	// expansion at the held-out third load and HoldOutErr its miss,
	// |Predicted − Exact[2]|.
	Exact                 [3]float64
	Predicted, HoldOutErr float64
}

// NewEdgeExpansion fits the expansion of k's edge to the limit map's
// result and the exact scaled edges at ExpansionLoads (NaN where the
// exact search found none).
func NewEdgeExpansion(k int, limit MapLimitResult, exact [3]float64) (EdgeExpansion, error) {
	e := EdgeExpansion{Dispatchers: k, Exists: limit.Exists, XStar: limit.Value, XStarErr: limit.Err, Exact: exact}
	if !limit.Exists {
		return e, nil
	}
	for i, x := range exact {
		if !(x > 0) {
			return e, fmt.Errorf("compare: expansion at k = %d: no exact edge at λ = %g to fit it to", k, ExpansionLoads[i])
		}
	}
	// y_i = x_i − x* = c₁h_i + c₂h_i², solved for the first two loads.
	h1, h2 := 1-ExpansionLoads[0], 1-ExpansionLoads[1]
	y1, y2 := exact[0]-e.XStar, exact[1]-e.XStar
	det := h1 * h2 * (h2 - h1)
	e.C1 = (y1*h2*h2 - y2*h1*h1) / det
	e.C2 = (y2*h1 - y1*h2) / det
	e.Predicted = e.At(ExpansionLoads[2])
	e.HoldOutErr = math.Abs(e.Predicted - exact[2])
	return e, nil
}

// At is the expansion's x at load λ.
func (e EdgeExpansion) At(load float64) float64 {
	if !e.Exists {
		return math.NaN()
	}
	h := 1 - load
	return e.XStar + e.C1*h + e.C2*h*h
}

// Err is the expansion's error estimate in x at a load above the
// held-out one: the larger of the held-out miss and the last term's size
// |c₂|(1−λ)², with x*'s error in quadrature.
func (e EdgeExpansion) Err(load float64) float64 {
	if !e.Exists {
		return math.NaN()
	}
	h := 1 - load
	return math.Hypot(max(e.HoldOutErr, math.Abs(e.C2)*h*h), e.XStarErr)
}

// String describes the expansion for a table's notes.
func (e EdgeExpansion) String() string {
	if !e.Exists {
		return fmt.Sprintf("k = %d: the limit map has no edge (balanced down to x = 0.02), so neither has the expansion", e.Dispatchers)
	}
	return fmt.Sprintf("k = %d: x(λ) ≈ %.6g %+.5g(1−λ) %+.5g(1−λ)² (x* from the limit map ± %.2g; fitted to the exact edges %.6g at λ = %g and %.6g at %g; at %g, held out, it gives %.6g against the exact %.6g)",
		e.Dispatchers, e.XStar, e.C1, e.C2, e.XStarErr, e.Exact[0], ExpansionLoads[0], e.Exact[1], ExpansionLoads[1],
		ExpansionLoads[2], e.Predicted, e.Exact[2])
}
