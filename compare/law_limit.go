package compare

import (
	"fmt"
	"math"
	"strings"

	"herd/fleet"
	"herd/internal/pool"
	"herd/meanfield"
)

// MapLimitSettings controls MapLimit. The zero value means the defaults.
type MapLimitSettings struct {
	// Step is the coarse grid step h of the limit map, in [1e-3, 0.5]; the
	// fine grid has h/2. Zero means DefaultMapLimitStep.
	Step float64
	// RelTol is the relative width of each bisection bracket, in
	// [1e-8, 1e-2]. Zero means 1e-4 (the bracket then adds less than the
	// grid error to Err).
	RelTol float64
	// Variance is the limit map's departure variance, the job sizes'
	// squared coefficient of variation C (meanfield.Limit.Variance; zero
	// means 1, exponential sizes); Step is in units of it, so that the
	// grid error, like the edge, scales by C.
	Variance float64
	// Stop is passed to meanfield.LimitEdgeSettings.Stop (herd's Ctrl-C).
	Stop func() bool
	// Workers > 1 computes the two grids' edges at once (pool.Fork); they
	// are independent, so the result does not depend on it. Zero means 1.
	Workers int
}

// DefaultMapLimitStep is MapLimit's default coarse grid step: with its
// half, the Richardson error estimate is below 10⁻³ relative for k ≤ 16.
const DefaultMapLimitStep = 0.04

// MapLimitResult is the heavy-traffic edge x*(k) of the limit map
// (meanfield.Limit) on two grids and its Richardson extrapolation in the
// grid step.
type MapLimitResult struct {
	// Exists is false when the map is balanced down to x = 0.02 (k ≤ 2);
	// Value and Err are then NaN.
	Exists bool
	// Value is the grid-extrapolated edge Fine + (Fine − Coarse)/3 (the
	// discretisation is second order in h; limit_test.go in meanfield
	// measures it), Err its error estimate |Fine − Coarse|/3 combined in
	// quadrature with the two bisection brackets' half-widths.
	Value, Err float64
	// Coarse and Fine are the edges at steps h and h/2.
	Coarse, Fine meanfield.LimitEdgeResult
}

// LimitVariance is the departure variance of the limit map for the model's
// service law: its squared coefficient of variation C (1 for exponential
// sizes, C for h2:C, 1/K for Erlang-K, each exact; meanfield.Limit, "Other
// job sizes").
func LimitVariance(svc meanfield.Service) float64 {
	switch svc.Kind {
	case meanfield.ServiceH2:
		return svc.SCV
	case meanfield.ServiceErlang:
		return 1 / float64(svc.Phases)
	}
	return 1
}

// MapLimit computes x*(k) = lim_{λ→1} T_edge(1 − λ)² directly, as the edge
// of the heavy-traffic limit map (meanfield.Limit, meanfield.LimitEdge) on
// grids of step h and h/2, extrapolated to h = 0 (L. F. Richardson, The
// deferred approach to the limit, Phil. Trans. R. Soc. A 226, 1927).
func MapLimit(k int, s MapLimitSettings) (MapLimitResult, error) {
	nan := math.NaN()
	res := MapLimitResult{Value: nan, Err: nan}
	if s.Step == 0 {
		s.Step = DefaultMapLimitStep
	}
	if s.RelTol == 0 {
		s.RelTol = 1e-4
	}
	switch {
	case !(s.Step >= 1e-3 && s.Step <= 0.5):
		return res, fmt.Errorf("compare: map limit: Step = %v outside [1e-3, 0.5]", s.Step)
	case !(s.RelTol >= 1e-8 && s.RelTol <= 1e-2):
		return res, fmt.Errorf("compare: map limit: RelTol = %v outside [1e-8, 1e-2]", s.RelTol)
	case s.Workers < 0:
		return res, fmt.Errorf("compare: map limit: Workers = %d below 0", s.Workers)
	}
	v := s.Variance
	if v == 0 {
		v = 1
	}
	var errC, errF error
	coarse := func() {
		res.Coarse, errC = meanfield.LimitEdge(k, meanfield.LimitEdgeSettings{Step: v * s.Step, RelTol: s.RelTol, Variance: s.Variance, Stop: s.Stop})
	}
	fine := func() {
		res.Fine, errF = meanfield.LimitEdge(k, meanfield.LimitEdgeSettings{Step: v * s.Step / 2, RelTol: s.RelTol, Variance: s.Variance, Stop: s.Stop})
	}
	if s.Workers > 1 {
		pool.Fork(fine, coarse) // the fine grid costs about twice the coarse one: first
	} else {
		coarse()
		fine()
	}
	switch {
	case errC != nil:
		return res, fmt.Errorf("compare: map limit k = %d, h = %g: %w", k, s.Step, errC)
	case errF != nil:
		return res, fmt.Errorf("compare: map limit k = %d, h = %g: %w", k, s.Step/2, errF)
	}
	if res.Coarse.Exists != res.Fine.Exists {
		return res, fmt.Errorf("compare: map limit k = %d: an edge on one grid only (h = %g: %v, h = %g: %v)",
			k, s.Step, res.Coarse.Exists, s.Step/2, res.Fine.Exists)
	}
	if !res.Fine.Exists {
		return res, nil
	}
	d := res.Fine.Edge - res.Coarse.Edge
	res.Exists = true
	res.Value = res.Fine.Edge + d/3
	w1, w2 := (res.Coarse.Hi-res.Coarse.Lo)/2, (res.Fine.Hi-res.Fine.Lo)/2
	res.Err = math.Sqrt(d*d/9 + w1*w1 + w2*w2)
	return res, nil
}

// Kinds of the limit map's LawRows.
const (
	LawRowLimitMap    = "limit_map"
	LawRowFitLimitMap = "fit_limit_map"
)

// AddMapLimits appends the limit map's answers to l: a limit_map row per
// k of ks that finished (done[j]; errs[j] becomes a warning) with x*(k),
// its error, the law, the ratio and whether x* lies within band of the
// law; then the fit x* = a(k − b) on them (weights 1/x_se², Birge-scaled
// as fit_limit) and notes. It sets MapXStar, MapXStarSE and MapFit.
func (l *Law) AddMapLimits(ks []int, res []MapLimitResult, errs []error, done []bool, band float64) {
	fk := make([]float64, len(ks))
	xs := make([]float64, len(ks))
	se := make([]float64, len(ks))
	var parts []string
	for j, k := range ks {
		fk[j], xs[j], se[j] = float64(k), math.NaN(), math.NaN()
		if !done[j] {
			continue
		}
		if errs[j] != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("k=%d: limit map: %v", k, errs[j]))
			continue
		}
		if k > 64 {
			l.Warnings = append(l.Warnings, fmt.Sprintf("k=%d: the limit map's grid error is checked up to k = 64 only; above it the impulse (slope k − 1) spreads each grid cell over (k − 1)·h and x_se may be too small — compare with a smaller --limit-step", k))
		}
		row := newLawRow(LawRowLimitMap, k, math.NaN())
		law := fleet.LawScaled(k)
		if law > 0 {
			row.Law = law
		}
		if r := res[j]; r.Exists {
			xs[j], se[j] = r.Value, r.Err
			row.X, row.XSE = r.Value, r.Err
			if law > 0 {
				row.Ratio = r.Value / law
				row.LimitInBand = InBand(r.Value, r.Err, law, band)
			}
			parts = append(parts, fmt.Sprintf("k = %d: %s", k, pm(r.Value, r.Err)))
		} else {
			parts = append(parts, fmt.Sprintf("k = %d: none", k))
		}
		l.Rows = append(l.Rows, row)
	}
	l.MapXStar, l.MapXStarSE = xs, se
	if len(parts) == 0 {
		return
	}
	l.Notes = append(l.Notes, "limit map x*(k) (λ → 1 computed directly, no extrapolation in λ): "+strings.Join(parts, "; "))
	l.MapFit = l.fitLimits(LawRowFitLimitMap, "limit map", "limit map", fk, xs, se)
}

// AddScaledMapLimits is AddMapLimits for a Law of sizes with factor C
// (Law.C): res are the limit map's x*(k) for exponential sizes (variance
// 1). The limit edge scales exactly, x*(k, C) = C·x*(k) (meanfield.Limit,
// "Other job sizes"; MapLimitSettings.Step is in units of C, so MapLimit
// with Variance C and the same Step is the variance-1 answer times C, grid
// error included, up to the bisection brackets), so one limit map per k
// serves every sizes: the limit_map rows carry C·x*(k), C·x_se and the law
// C·0.9(k−2); ratio and limit_in_band are unchanged by the common factor,
// and the fit is of x*(k, C)/C = x*(k). MapXStar and MapXStarSE are scaled
// by C. A note says so. For C = 1 it is AddMapLimits.
func (l *Law) AddScaledMapLimits(ks []int, res []MapLimitResult, errs []error, done []bool, band float64) {
	from, notes := len(l.Rows), len(l.Notes)
	l.AddMapLimits(ks, res, errs, done, band)
	if c := l.variance(); c != 1 {
		for i := from; i < len(l.Rows); i++ {
			if r := &l.Rows[i]; r.Kind == LawRowLimitMap {
				r.X, r.XSE, r.Law = c*r.X, c*r.XSE, c*r.Law
			}
		}
		for j := range l.MapXStar {
			l.MapXStar[j], l.MapXStarSE[j] = c*l.MapXStar[j], c*l.MapXStarSE[j]
		}
		if len(l.Notes) > notes {
			note := fmt.Sprintf("limit_map rows are C·x*(k), C = %.4g: x*(k, C) = C·x*(k) exactly (meanfield.Limit, \"Other job sizes\"), so the map runs once per k with variance 1 and is scaled; the x*(k) below are the variance-1 values", c)
			l.Notes = append(l.Notes[:notes], append([]string{note}, l.Notes[notes:]...)...)
		}
	}
	l.stamp(from)
}
