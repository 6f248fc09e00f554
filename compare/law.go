package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// LawFit is a least-squares fit of the straight line x = a·(k − b) to
// edges x(k) (x = T_edge(1−λ)², k the number of dispatchers): the form of
// the rule of thumb x ≈ 0.9(k − 2).
type LawFit struct {
	A, B     float64 // slope and intercept on the k axis
	ASE, BSE float64 // their standard errors
	// CorrAB is the correlation of the estimates of a and b.
	CorrAB float64
	// Weighted is true when the points were weighted by 1/σ² (FitLaw with
	// sigma); false for unit weights with standard errors from the
	// residuals.
	Weighted bool
	// Chi2 is Σ wᵢ rᵢ² (the residual sum of squares for unit weights) and
	// DoF = Points − 2.
	Chi2 float64
	DoF  int
	// Scale is the factor applied to the standard errors: √(Chi2/DoF) for
	// unit weights; max(1, √(Chi2/DoF)) for weighted fits (the Birge
	// ratio: stated errors are trusted unless the scatter says they are
	// too small).
	Scale float64
	// MaxResidual is the residual x − a(k − b) of largest magnitude, at
	// MaxResidualK; RMSResidual is √(Σ rᵢ²/Points).
	MaxResidual, MaxResidualK float64
	RMSResidual               float64
	Residuals                 []float64 // one per point used, in input order
	Points                    int
}

// ErrTooFewPoints is returned (wrapped) by FitLaw and HeavyTrafficLimit
// when fewer usable points are given than the method needs.
var ErrTooFewPoints = errors.New("compare: too few points")

// FitLaw fits x = a·(k − b) by weighted least squares. It fits the
// equivalent linear model x = c₀ + c₁k (c₁ = a, c₀ = −a·b) from the normal
// equations
//
//	[Σw   Σwk ] [c₀]   [Σwx ]
//	[Σwk  Σwk²] [c₁] = [Σwkx],
//
// whose inverse matrix C is the covariance of (c₀, c₁) when the weights
// are 1/σᵢ² (Draper & Smith, Applied Regression Analysis, 3rd ed., Wiley
// 1998, §9.2). Then a = c₁, b = −c₀/c₁, and by the delta method
//
//	var(b) = (var(c₀) + 2b·cov(c₀, c₁) + b²·var(c₁)) / c₁²,
//	cov(a, b) = −(cov(c₀, c₁) + b·var(c₁)) / c₁.
//
// With sigma nil every point has weight 1 and C is scaled by the residual
// variance s² = RSS/(n − 2), the ordinary least-squares standard errors
// (they measure how well the line is determined by the scatter about it).
// With sigma given, wᵢ = 1/σᵢ² and C is scaled by max(1, χ²/(n − 2)):
// the Birge ratio (R. T. Birge, The calculation of errors by the method of
// least squares, Phys. Rev. 40:207–227, 1932), so the standard errors are
// never smaller than the scatter supports.
//
// Points with a NaN x (or σ) are skipped. At least three points at two or
// more distinct k are needed; fewer return an error wrapping
// ErrTooFewPoints. k, x and a non-nil sigma must have the same length.
func FitLaw(k, x, sigma []float64) (LawFit, error) {
	if len(k) != len(x) || (sigma != nil && len(sigma) != len(x)) {
		panic("compare: FitLaw: lengths differ")
	}
	nan := math.NaN()
	fit := LawFit{A: nan, B: nan, ASE: nan, BSE: nan, CorrAB: nan, Chi2: nan, Scale: nan,
		MaxResidual: nan, MaxResidualK: nan, RMSResidual: nan, Weighted: sigma != nil}
	ks, xs, ws := lawPoints(k, x, sigma)
	n := len(xs)
	fit.Points = n
	if n < 3 {
		return fit, fmt.Errorf("%w: law fit: %d usable, need at least 3", ErrTooFewPoints, n)
	}
	var sw, sk, skk, sx, skx float64
	for i := range xs {
		w := ws[i]
		sw += w
		sk += w * ks[i]
		skk += w * ks[i] * ks[i]
		sx += w * xs[i]
		skx += w * ks[i] * xs[i]
	}
	// Centre k for a well-conditioned determinant: det = Σw·Σw(k−k̄)².
	kbar := sk / sw
	var sdd float64
	for i := range ks {
		d := ks[i] - kbar
		sdd += ws[i] * d * d
	}
	if !(sdd > 0) {
		return fit, fmt.Errorf("%w: law fit: all at k = %g", ErrTooFewPoints, kbar)
	}
	det := sw * sdd
	c1 := (sw*skx - sk*sx) / det
	c0 := (sx - c1*sk) / sw
	// The inverse of the normal matrix.
	v00 := skk / det
	v11 := sw / det
	v01 := -sk / det
	fit.residuals(ks, xs, ws, c0, c1)
	s2 := fit.Chi2 / float64(fit.DoF)
	if sigma != nil {
		s2 = max(1, s2)
	}
	fit.Scale = math.Sqrt(s2)
	v00, v11, v01 = s2*v00, s2*v11, s2*v01
	fit.A = c1
	if c1 == 0 {
		return fit, errors.New("compare: law fit: zero slope, the intercept on the k axis is undefined")
	}
	b := -c0 / c1
	fit.B = b
	fit.ASE = math.Sqrt(v11)
	varB := (v00 + 2*b*v01 + b*b*v11) / (c1 * c1)
	fit.BSE = math.Sqrt(max(varB, 0))
	covAB := -(v01 + b*v11) / c1
	if fit.ASE > 0 && fit.BSE > 0 {
		fit.CorrAB = covAB / (fit.ASE * fit.BSE)
	} else {
		fit.CorrAB = 0
	}
	return fit, nil
}

// lawPoints returns the usable points of FitLaw and their weights: 1, or
// 1/σ² with sigma; a point with a NaN or infinite x, a NaN k, or a σ not
// in (0, ∞) is skipped.
func lawPoints(k, x, sigma []float64) (ks, xs, ws []float64) {
	for i := range x {
		w := 1.0
		if sigma != nil {
			if !(sigma[i] > 0) || math.IsInf(sigma[i], 0) {
				continue
			}
			w = 1 / (sigma[i] * sigma[i])
		}
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(k[i]) {
			continue
		}
		ks, xs, ws = append(ks, k[i]), append(xs, x[i]), append(ws, w)
	}
	return ks, xs, ws
}

// residuals sets the fit's residuals about the line x = c₀ + c₁k, the
// largest, their weighted sum of squares χ² with its degrees of freedom,
// and their rms.
func (fit *LawFit) residuals(ks, xs, ws []float64, c0, c1 float64) {
	n := len(xs)
	var chi2, rss float64
	fit.Residuals = make([]float64, n)
	maxAbs := -1.0
	for i := range xs {
		r := xs[i] - (c0 + c1*ks[i])
		fit.Residuals[i] = r
		chi2 += ws[i] * r * r
		rss += r * r
		if math.Abs(r) > maxAbs {
			maxAbs = math.Abs(r)
			fit.MaxResidual, fit.MaxResidualK = r, ks[i]
		}
	}
	fit.DoF = n - 2
	fit.Chi2 = chi2
	fit.RMSResidual = math.Sqrt(rss / float64(n))
}

// LimitSettings controls HeavyTrafficLimit. The zero value means the
// defaults.
type LimitSettings struct {
	// MaxOrder is the highest order m of the polynomial in h = 1 − λ, in
	// [1, n − 1] for n loads. Zero means n − 1 (every load used).
	MaxOrder int
}

// Limit is the heavy-traffic limit x* = lim_{λ→1} x(λ) extrapolated from a
// ladder of loads.
type Limit struct {
	// Value is the order-m extrapolation, Err its error estimate:
	// √(Correction² + Propagated²).
	Value, Err float64
	// Orders[p] is the order-p extrapolation: the value at h = 0 of the
	// polynomial of degree p through the p + 1 loads nearest to 1.
	// Orders[0] is the edge at the highest load.
	Orders []float64
	// Correction is the truncation error estimate: the larger of the last
	// two Richardson corrections, max(|Orders[m] − Orders[m−1]|,
	// |Orders[m−1] − Orders[m−2]|) (the first alone for m = 1). The last
	// one alone can be small by accident when the edges jitter about their
	// trend (it was 0.002 at k = 10 on the ladder 0.9, 0.925, 0.95 while
	// the one before was 0.27); the larger of two cannot, short of two
	// accidents.
	Correction float64
	// Propagated is the standard error of Value from the points' own σ:
	// √(Σ Lᵢ(0)² σᵢ²) with Lᵢ the Lagrange weights of the order-m
	// polynomial. Zero when sigma is nil.
	Propagated float64
	// Spread is max − min of Orders[1..m]: every extrapolation that
	// removes at least the (1 − λ) term.
	Spread float64
	// Converging is false when the last correction is larger than the one
	// before it (|Orders[m] − Orders[m−1]| > |Orders[m−1] − Orders[m−2]|,
	// checked for m ≥ 2): the table of orders is not settling and Err is
	// not to be trusted.
	Converging bool
	// Order is m; Loads are the loads used, nearest to 1 first.
	Order int
	Loads []float64
}

// HeavyTrafficLimit extrapolates x(λ) to λ → 1 in h = 1 − λ (polynomial
// extrapolation to h = 0, Richardson's deferred approach to the limit:
// L. F. Richardson, The deferred approach to the limit, Phil. Trans. R.
// Soc. A 226:299–361, 1927; as polynomial extrapolation by Neville's
// scheme, J. Stoer & R. Bulirsch, Introduction to Numerical Analysis, 3rd
// ed., Springer 2002, §3.4 and §3.5). It assumes x(λ) = x* + c₁h + c₂h² + …
// near h = 0. The order-p estimate is the value at h = 0 of the
// interpolating polynomial through the p + 1 loads nearest to 1, evaluated
// as the Lagrange sum Σ Lᵢ(0)xᵢ, Lᵢ(0) = Π_{j≠i} hⱼ/(hⱼ − hᵢ). The answer is
// the order-m estimate. Its error estimate comes from the spread of the
// orders: the usual a-posteriori estimate of the truncation error is the
// last correction |x_m − x_{m−1}| (Stoer & Bulirsch §3.5); this departs
// from it by taking the larger of the last two corrections (see
// Limit.Correction), combined in quadrature with the σᵢ propagated through
// the Lagrange weights.
//
// Loads must be distinct and in (0, 1); points with a NaN x are skipped.
// At least two usable loads are needed. sigma may be nil.
func HeavyTrafficLimit(loads, x, sigma []float64, s LimitSettings) (Limit, error) {
	if len(loads) != len(x) || (sigma != nil && len(sigma) != len(x)) {
		panic("compare: HeavyTrafficLimit: lengths differ")
	}
	nan := math.NaN()
	lim := Limit{Value: nan, Err: nan, Correction: nan, Propagated: nan, Spread: nan}
	pts, err := limitPoints(loads, x, sigma)
	if err != nil {
		return lim, err
	}
	n := len(pts)
	if n < 2 {
		return lim, fmt.Errorf("%w: heavy-traffic limit: %d usable load(s), need at least 2", ErrTooFewPoints, n)
	}
	m := s.MaxOrder
	if m == 0 {
		m = n - 1
	}
	if m < 1 || m > n-1 {
		return lim, fmt.Errorf("compare: heavy-traffic limit: LimitSettings.MaxOrder = %d outside [1, %d] (%d usable loads)", s.MaxOrder, n-1, n)
	}
	lim.Order = m
	for _, p := range pts[:m+1] {
		lim.Loads = append(lim.Loads, 1-p.h)
	}
	lim.Orders = make([]float64, m+1)
	for q := 0; q <= m; q++ {
		var v float64
		for i, l := range lagrangeAtZero(pts[:q+1]) {
			v += l * pts[i].x
		}
		lim.Orders[q] = v
	}
	var prop float64
	for i, l := range lagrangeAtZero(pts[:m+1]) {
		prop += l * l * pts[i].s * pts[i].s
	}
	lim.Propagated = math.Sqrt(prop)
	lim.Value = lim.Orders[m]
	last := math.Abs(lim.Orders[m] - lim.Orders[m-1])
	lim.Correction = last
	if m >= 2 {
		lim.Correction = max(last, math.Abs(lim.Orders[m-1]-lim.Orders[m-2]))
	}
	lim.Err = math.Hypot(lim.Correction, lim.Propagated)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range lim.Orders[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	lim.Spread = hi - lo
	lim.Converging = m < 2 || last <= math.Abs(lim.Orders[m-1]-lim.Orders[m-2])
	return lim, nil
}

// limitPoint is one usable load of HeavyTrafficLimit: h = 1 − λ, the
// edge x and its σ (0 when not given).
type limitPoint struct{ h, x, s float64 }

// limitPoints returns the usable points of HeavyTrafficLimit, nearest to
// λ = 1 first, or an error for a load outside (0, 1) or given twice.
func limitPoints(loads, x, sigma []float64) ([]limitPoint, error) {
	var pts []limitPoint
	for i, l := range loads {
		if !(l > 0 && l < 1) {
			return nil, fmt.Errorf("compare: heavy-traffic limit: load %v outside (0, 1)", l)
		}
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			continue
		}
		sd := 0.0
		if sigma != nil && !math.IsNaN(sigma[i]) {
			sd = sigma[i]
		}
		pts = append(pts, limitPoint{1 - l, x[i], sd})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].h < pts[j].h })
	for i := 1; i < len(pts); i++ {
		if pts[i].h == pts[i-1].h {
			return nil, fmt.Errorf("compare: heavy-traffic limit: load %v given twice", 1-pts[i].h)
		}
	}
	return pts, nil
}

// lagrangeAtZero returns the Lagrange weights Lᵢ(0) = Π_{j≠i} hⱼ/(hⱼ − hᵢ)
// of pts: the value at h = 0 of the polynomial through them is Σ Lᵢ(0)xᵢ.
func lagrangeAtZero(pts []limitPoint) []float64 {
	L := make([]float64, len(pts))
	for i := range pts {
		L[i] = 1
		for j := range pts {
			if j != i {
				L[i] *= pts[j].h / (pts[j].h - pts[i].h)
			}
		}
	}
	return L
}

// LawRange is where a law is within a relative band of the edge, over a
// list of loads.
type LawRange struct {
	// From and To are the lowest and highest load of the widest run of
	// consecutive loads (in increasing order) at which |x/law − 1| ≤ band;
	// NaN when there is none. Ties go to the run at higher loads.
	From, To float64
	// Loads is the number of loads in that run.
	Loads int
}

// WithinBand returns the widest run of consecutive loads (sorted
// increasingly; NaN edges break a run) where the law is within the
// relative band of the law: |x/law − 1| ≤ band, the same test as InBand
// (law > 0).
func WithinBand(loads, x []float64, law, band float64) LawRange {
	if len(loads) != len(x) {
		panic("compare: WithinBand: lengths differ")
	}
	idx := make([]int, len(loads))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return loads[idx[a]] < loads[idx[b]] })
	best := LawRange{From: math.NaN(), To: math.NaN()}
	bestWidth := -1.0
	start := -1
	for j := 0; j <= len(idx); j++ {
		in := j < len(idx) && math.Abs(x[idx[j]]-law) <= band*law
		if in && start < 0 {
			start = j
		}
		if !in && start >= 0 {
			from, to := loads[idx[start]], loads[idx[j-1]]
			if w := to - from; w >= bestWidth {
				best, bestWidth = LawRange{From: from, To: to, Loads: j - start}, w
			}
			start = -1
		}
	}
	return best
}

// Verdicts of InBand.
const (
	InBandYes       = "yes"       // the whole error bar is inside the band
	InBandNo        = "no"        // the whole error bar is outside
	InBandUndecided = "undecided" // the error bar straddles a band edge
)

// InBand says whether a value v ± e lies within the relative band of law:
// |v − law| ≤ band·|law|, taking the error bar [v − e, v + e] into account.
func InBand(v, e, law, band float64) string {
	lo, hi := law-band*math.Abs(law), law+band*math.Abs(law)
	switch {
	case v-e >= lo && v+e <= hi:
		return InBandYes
	case v+e < lo || v-e > hi:
		return InBandNo
	}
	return InBandUndecided
}
