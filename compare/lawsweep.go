package compare

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"herd/fleet"
	"herd/meanfield"
)

// LawSettings are the edges and fits of herd law: the edge x = T_edge(1−λ)²
// at every k and load, the fit x = a(k − b) at each of FitLoads, the
// heavy-traffic limit x*(k) extrapolated from the Ladder of loads, and the
// verdict on the law 0.9(k−2) within a relative Band. With job sizes of
// squared coefficient of variation C other than 1 (Service), the law is
// C·0.9(k−2) and the fits are of x/C: C is the limit map's departure
// variance (LimitVariance), by which the heavy-traffic edge scales exactly,
// x*(k, C) = C·x*(k) (meanfield.Limit, "Other job sizes").
type LawSettings struct {
	Dispatchers []int     // increasing, distinct
	FitLoads    []float64 // loads at which x = a(k − b) is fitted
	Ladder      []float64 // loads from which x* is extrapolated (at least 2)
	Order       int       // LimitSettings.MaxOrder (0: the ladder size − 1)
	Band        float64   // relative band of the verdict, in (0, 1)
	RelTol      float64   // relative precision of each edge in T
	// Service is the job sizes of every edge (the zero value:
	// exponential, C = 1).
	Service meanfield.Service
}

// Loads returns every load at which an edge is needed, FitLoads and
// Ladder together, increasing, each once.
func (s LawSettings) Loads() []float64 {
	loads := append(append([]float64(nil), s.FitLoads...), s.Ladder...)
	sort.Float64s(loads)
	var out []float64
	for _, x := range loads {
		if len(out) == 0 || x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// Edges returns the edge searches of s: one per (load, k), load outermost.
func (s LawSettings) Edges() []meanfield.EdgeSettings {
	return EdgeGrid(s.Dispatchers, s.Loads(), meanfield.EdgeSettings{RelTol: s.RelTol, Service: s.Service})
}

// Kinds of LawRow.
const (
	LawRowEdge          = "edge"
	LawRowFit           = "fit"
	LawRowExtrapolation = "extrapolation"
	LawRowFitLimit      = "fit_limit"
	LawRowVerdict       = "verdict"
	LawRowFitSizes      = "fit_sizes" // PoolLaws: x/C = a(k − b) over every sizes at one load
)

// LawRow is one row of herd law's table; which fields a row has depends
// on its Kind, and a missing float is NaN, a missing Dispatchers 0, a
// missing Order −1, a missing Fit nil and a missing LimitInBand "".
type LawRow struct {
	Kind string
	// Sizes and C are the job sizes of the row's Law and their squared
	// coefficient of variation (Law.C); Sizes is "" and C NaN on a fit_sizes row.
	Sizes       string
	C           float64
	Dispatchers int
	Load        float64
	Order       int
	X, XSE      float64 // the edge, its extrapolation or its limit, with its error
	Law, Ratio  float64 // C·0.9(k−2) (where positive) and X/Law
	Fit         *LawFit // fit and fit_limit rows: the fit of X/C
	Misfit      float64 // the fit's rms of residual/stated precision
	// LawFrom and LawTo bound the loads at which the edge is within the
	// band of the law (WithinBand); LimitInBand is InBand's verdict on
	// the limit.
	LawFrom, LawTo float64
	LimitInBand    string
}

func newLawRow(kind string, k int, load float64) LawRow {
	nan := math.NaN()
	return LawRow{Kind: kind, C: nan, Dispatchers: k, Load: load, Order: -1, X: nan, XSE: nan, Law: nan, Ratio: nan,
		Misfit: nan, LawFrom: nan, LawTo: nan}
}

// Law is herd law's answer for one job-size law: its rows, notes and
// warnings in table order, the edge searches that failed, and what its
// plot draws. X, XStar and MapXStar are edges (x, not x/C); Fits,
// LimitFit and MapFit are fits of x/C.
type Law struct {
	// Service is the job sizes (LawSettings.Service), C their squared
	// coefficient of variation, LimitVariance(Service).
	Service         meanfield.Service
	C               float64
	Rows            []LawRow
	Notes, Warnings []string
	Failures        []string
	Loads           []float64
	X               [][]float64 // X[i][j]: the edge at Loads[i], Dispatchers[j]; NaN when missing
	Fits            []*LawFit   // per load; nil where no fit
	XStar, XStarSE  []float64   // the limit per k and its error; NaN when missing
	LimitFit        *LawFit     // the fit of the limits; nil when none
	// MapXStar and MapXStarSE are x*(k) from the limit map and its error
	// per k (NaN when missing), MapFit their fit (nil when none); all nil
	// until AddMapLimits.
	MapXStar, MapXStarSE []float64
	MapFit               *LawFit
	sig                  [][]float64 // the stated precision of X, RelTol·X
	limits               []*Limit
	settings             LawSettings
	ks                   []float64
}

// AnalyseLaw fits, extrapolates and judges the edges pts of s.Edges()
// (Edges' points, in the same order).
func AnalyseLaw(s LawSettings, pts []EdgePoint) Law {
	l := Law{settings: s, Loads: s.Loads(), Service: s.Service, C: LimitVariance(s.Service)}
	for _, k := range s.Dispatchers {
		l.ks = append(l.ks, float64(k))
	}
	l.edges(pts)
	l.fits()
	l.heavyTraffic()
	l.limitFit()
	l.verdicts()
	l.Warnings = append(l.Warnings, l.Failures...)
	l.stamp(0)
	return l
}

// stamp sets the sizes and C of the rows from the from'th on.
func (l *Law) stamp(from int) {
	for i := from; i < len(l.Rows); i++ {
		l.Rows[i].Sizes, l.Rows[i].C = l.Service.String(), l.C
	}
}

// variance is C, 1 for a Law not made by AnalyseLaw.
func (l *Law) variance() float64 {
	if l.C == 0 {
		return 1
	}
	return l.C
}

// xName is what the fits are of: x_edge, or x_edge/C for sizes with
// C ≠ 1.
func (l *Law) xName() string {
	if l.variance() != 1 {
		return "x_edge/C"
	}
	return "x_edge"
}

// lawName is the law the edges are judged against: 0.9(k−2), or
// C·0.9(k−2) for sizes with C ≠ 1.
func (l *Law) lawName() string {
	if l.variance() != 1 {
		return "C·0.9(k−2)"
	}
	return "0.9(k−2)"
}

// scaled returns v/C, element by element (v itself for C = 1).
func (l *Law) scaled(v []float64) []float64 {
	c := l.variance()
	if c == 1 {
		return v
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x / c
	}
	return out
}

// edges records the edge of each (load, k), its row, and the searches
// that failed or found no edge.
func (l *Law) edges(pts []EdgePoint) {
	ks := l.settings.Dispatchers
	l.X, l.sig = make([][]float64, len(l.Loads)), make([][]float64, len(l.Loads))
	for i, lam := range l.Loads {
		l.X[i], l.sig[i] = make([]float64, len(ks)), make([]float64, len(ks))
		for j, k := range ks {
			l.X[i][j], l.sig[i][j] = math.NaN(), math.NaN()
			p := pts[i*len(ks)+j]
			if !p.Done {
				continue
			}
			if p.Err != nil {
				l.Failures = append(l.Failures, fmt.Sprintf("k=%d λ=%g: %v", p.Settings.Dispatchers, p.Settings.Load, p.Err))
				continue
			}
			row := newLawRow(LawRowEdge, k, lam)
			if law := fleet.LawScaled(k); law > 0 {
				row.Law = l.variance() * law
			}
			if r := p.Result; r.Status == meanfield.Found {
				l.X[i][j], l.sig[i][j] = r.Scaled, l.settings.RelTol*r.Scaled
				row.X, row.XSE, row.Ratio = r.Scaled, l.sig[i][j], r.Scaled/row.Law
			} else {
				l.Warnings = append(l.Warnings, fmt.Sprintf("k=%d λ=%g: no edge (a balanced state persists down to T(1−λ)² = %g); left out of the fits", k, lam, meanfield.DefaultEdgeMinScaled))
			}
			l.Rows = append(l.Rows, row)
		}
	}
}

// fits fits x/C = a(k − b) at each load, with its misfit against the
// stated precision: the rms of residual/σ over the points used,
// √(Σ(rᵢ/σᵢ)²/(n − 2)), σ the stated precision of x/C.
func (l *Law) fits() {
	l.Fits = make([]*LawFit, len(l.Loads))
	for i, lam := range l.Loads {
		f, misfit, err := fitMisfit(l.ks, l.scaled(l.X[i]), l.scaled(l.sig[i]))
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("λ=%g: no fit: %v", lam, err))
			continue
		}
		l.Fits[i] = &f
		row := newLawRow(LawRowFit, 0, lam)
		row.Fit, row.Misfit = &f, misfit
		l.Rows = append(l.Rows, row)
		l.Notes = append(l.Notes, fmt.Sprintf("λ = %g: %s = %s·(k − %s), %d points, largest residual %+.3g at k = %g",
			lam, l.xName(), pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK))
	}
}

// fitMisfit fits x = a(k − b) with unit weights (FitLaw) and returns its
// misfit against the stated precisions sig: √(Σ(rᵢ/σᵢ)²/(n − 2)) over the
// points used.
func fitMisfit(ks, xs, sig []float64) (LawFit, float64, error) {
	f, err := FitLaw(ks, xs, nil)
	if err != nil {
		return f, math.NaN(), err
	}
	var chi2 float64
	n := 0
	for j := range ks {
		if !math.IsNaN(xs[j]) {
			r := f.Residuals[n]
			chi2 += (r / sig[j]) * (r / sig[j])
			n++
		}
	}
	return f, math.Sqrt(chi2 / float64(f.DoF)), nil
}

// heavyTraffic extrapolates the edge of each k to λ → 1 from the ladder,
// with a row per order.
func (l *Law) heavyTraffic() {
	var ladderIdx []int
	for i, lam := range l.Loads {
		if containsFloat(l.settings.Ladder, lam) {
			ladderIdx = append(ladderIdx, i)
		}
	}
	ks := l.settings.Dispatchers
	l.limits = make([]*Limit, len(ks))
	l.XStar, l.XStarSE = make([]float64, len(ks)), make([]float64, len(ks))
	for j, k := range ks {
		l.XStar[j], l.XStarSE[j] = math.NaN(), math.NaN()
		var ll, lx, ls []float64
		for _, i := range ladderIdx {
			ll, lx, ls = append(ll, l.Loads[i]), append(lx, l.X[i][j]), append(ls, l.sig[i][j])
		}
		lim, err := HeavyTrafficLimit(ll, lx, ls, LimitSettings{MaxOrder: l.settings.Order})
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("k=%d: no heavy-traffic limit: %v", k, err))
			continue
		}
		l.limits[j] = &lim
		l.XStar[j], l.XStarSE[j] = lim.Value, lim.Err
		for p, v := range lim.Orders {
			row := newLawRow(LawRowExtrapolation, k, lim.Loads[p])
			row.Order, row.X = p, v
			l.Rows = append(l.Rows, row)
		}
		if !lim.Converging {
			m := lim.Order
			l.Warnings = append(l.Warnings, fmt.Sprintf("k=%d: extrapolation orders not settling (order %d−%d correction %.3g > order %d−%d correction %.3g): the error estimate is not reliable",
				k, m, m-1, math.Abs(lim.Orders[m]-lim.Orders[m-1]), m-1, m-2, math.Abs(lim.Orders[m-1]-lim.Orders[m-2])))
		}
	}
}

// limitFit fits x*/C = a(k − b) to the limits: weights 1/x_se²,
// Birge-scaled.
func (l *Law) limitFit() {
	l.LimitFit = l.fitLimits(LawRowFitLimit, "limit", "λ → 1", l.ks, l.scaled(l.XStar), l.scaled(l.XStarSE))
}

// fitLimits fits x* = a(k − b) to limits xs ± se at ks, adds the fit's row
// (of kind) and a note (headed note), or a warning (headed warn) when no
// line can be fitted; it returns the fit, nil without one.
func (l *Law) fitLimits(kind, warn, note string, ks, xs, se []float64) *LawFit {
	f, err := FitLaw(ks, xs, se)
	if err != nil {
		l.Warnings = append(l.Warnings, fmt.Sprintf("%s: no fit: %v", warn, err))
		return nil
	}
	misfit := math.Sqrt(f.Chi2 / float64(f.DoF))
	row := newLawRow(kind, 0, math.NaN())
	row.Fit, row.Misfit = &f, misfit
	l.Rows = append(l.Rows, row)
	xs0 := "x*"
	if l.variance() != 1 {
		xs0 = "x*/C"
	}
	l.Notes = append(l.Notes, fmt.Sprintf("%s: %s = %s·(k − %s), %d points, largest residual %+.3g at k = %g (misfit %.3g)",
		note, xs0, pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK, misfit))
	return &f
}

// verdicts judges the law C·0.9(k−2) at each k: the loads at which the
// edge is within the band, and whether the limit is.
func (l *Law) verdicts() {
	band := l.settings.Band
	for j, k := range l.settings.Dispatchers {
		law := l.variance() * fleet.LawScaled(k)
		row := newLawRow(LawRowVerdict, k, math.NaN())
		if law <= 0 {
			l.Rows = append(l.Rows, row)
			continue
		}
		row.Law = law
		col := make([]float64, len(l.Loads))
		for i := range l.Loads {
			col[i] = l.X[i][j]
		}
		rg := WithinBand(l.Loads, col, law, band)
		what := "none of the loads"
		if rg.Loads > 0 {
			row.LawFrom, row.LawTo = rg.From, rg.To
			what = fmt.Sprintf("λ ∈ [%g, %g]", rg.From, rg.To)
		}
		if lim := l.limits[j]; lim != nil {
			row.Order, row.X, row.XSE, row.Ratio = lim.Order, lim.Value, lim.Err, lim.Value/law
			row.LimitInBand = InBand(lim.Value, lim.Err, law, band)
			l.Notes = append(l.Notes, fmt.Sprintf("k = %d: edge within %g%% of %s = %.3g for %s; limit x* = %s within %g%%: %s",
				k, 100*band, l.lawName(), law, what, pm(lim.Value, lim.Err), 100*band, row.LimitInBand))
		} else {
			l.Notes = append(l.Notes, fmt.Sprintf("k = %d: edge within %g%% of %s = %.3g for %s; no limit", k, 100*band, l.lawName(), law, what))
		}
		l.Rows = append(l.Rows, row)
	}
}

// pm writes v ± e with e to two significant digits and v to the same
// decimal place.
func pm(v, e float64) string {
	if !(e > 0) || math.IsInf(e, 0) {
		return strconv.FormatFloat(v, 'g', 5, 64)
	}
	dec := max(0, 1-int(math.Floor(math.Log10(e))))
	return fmt.Sprintf("%.*f ± %.*f", dec, v, dec, e)
}

func containsFloat(v []float64, x float64) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// LawSizes is herd law over several job-size laws: one Law per sizes
// (each of the same LawSettings but Service), and per load the pooled fit
// x/C = a(k − b) over every sizes, the variability law x ≈ C·a(k − b).
type LawSizes struct {
	Laws []Law
	// Rows are each Law's rows in turn, then one fit_sizes row per load
	// with a pooled fit; Notes, Warnings and Failures are each Law's,
	// headed by its sizes, then the pooled ones.
	Rows                      []LawRow
	Notes, Warnings, Failures []string
	// Pooled is the pooled fit per load of Laws[0].Loads; nil where there
	// is none, and all nil with fewer than two sizes.
	Pooled []*LawFit
}

// PoolLaws gathers laws (one per sizes, AnalyseLaw of the same settings
// but Service, with their map limits if any) into one table, fits x/C =
// a(k − b) per load over the edges of every sizes together (unit weights,
// misfit as the per-load fits; with two or more sizes), and says where the
// law x ≈ C·0.9(k−2) holds within the band: per sizes, the edges (k, λ)
// whose ratio x/(C·0.9(k−2)) is within it and those outside; per load,
// the points within the band of the pooled line and those outside.
func PoolLaws(laws []Law) LawSizes {
	p := LawSizes{Laws: laws}
	if len(laws) == 0 {
		return p
	}
	for _, l := range laws {
		head := "sizes " + l.Service.String() + ": "
		p.Rows = append(p.Rows, l.Rows...)
		for _, n := range l.Notes {
			p.Notes = append(p.Notes, head+n)
		}
		for _, w := range l.Warnings {
			p.Warnings = append(p.Warnings, head+w)
		}
		for _, f := range l.Failures {
			p.Failures = append(p.Failures, head+f)
		}
	}
	band := laws[0].settings.Band
	loads := laws[0].Loads
	p.Pooled = make([]*LawFit, len(loads))
	if len(laws) >= 2 {
		for i, lam := range loads {
			p.pool(i, lam, band)
		}
	}
	for _, l := range laws {
		p.Notes = append(p.Notes, l.bandNote(band))
	}
	return p
}

// pool fits x/C = a(k − b) at load index i over every sizes, adds its
// fit_sizes row and a note saying which points lie within the band of the
// line, or a warning when there is no fit.
func (p *LawSizes) pool(i int, lam, band float64) {
	var ks, xs, sig []float64
	var who []string // the sizes of each point
	var names []string
	for _, l := range p.Laws {
		names = append(names, l.Service.String())
		xi, si := l.scaled(l.X[i]), l.scaled(l.sig[i])
		for j, k := range l.ks {
			ks, xs, sig, who = append(ks, k), append(xs, xi[j]), append(sig, si[j]), append(who, l.Service.String())
		}
	}
	f, misfit, err := fitMisfit(ks, xs, sig)
	if err != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("λ=%g, sizes pooled: no fit: %v", lam, err))
		return
	}
	p.Pooled[i] = &f
	row := newLawRow(LawRowFitSizes, 0, lam)
	row.Fit, row.Misfit = &f, misfit
	p.Rows = append(p.Rows, row)
	var outside []string
	maxAt := ""
	n := 0
	for j := range xs {
		if math.IsNaN(xs[j]) {
			continue
		}
		r := f.Residuals[n]
		n++
		if r == f.MaxResidual && ks[j] == f.MaxResidualK && maxAt == "" {
			maxAt = who[j]
		}
		if line := f.A * (ks[j] - f.B); !(math.Abs(r) <= band*math.Abs(line)) {
			at := fmt.Sprintf("k = %g %s", ks[j], who[j])
			if line != 0 {
				at += fmt.Sprintf(" (%+.1f%%)", 100*r/line)
			}
			outside = append(outside, at)
		}
	}
	within := fmt.Sprintf("within %g%% of the line at all %d points", 100*band, f.Points)
	if len(outside) > 0 {
		within = fmt.Sprintf("within %g%% of the line at %d of %d points; outside: %s", 100*band, f.Points-len(outside), f.Points, strings.Join(outside, ", "))
	}
	p.Notes = append(p.Notes, fmt.Sprintf("λ = %g, sizes %s pooled: x_edge/C = %s·(k − %s), %d points, largest residual %+.3g at k = %g (%s), misfit %.3g; %s",
		lam, strings.Join(names, ", "), pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK, maxAt, misfit, within))
}

// bandNote says at which edges (k, λ) of l the law C·0.9(k−2) holds within
// band, |x/(C·0.9(k−2)) − 1| ≤ band (the test of InBand and WithinBand),
// and lists those where it fails with their ratio.
func (l *Law) bandNote(band float64) string {
	var fails []string
	total, in := 0, 0
	for i, lam := range l.Loads {
		for j, k := range l.settings.Dispatchers {
			law := l.variance() * fleet.LawScaled(k)
			x := l.X[i][j]
			if law <= 0 || math.IsNaN(x) {
				continue
			}
			total++
			if math.Abs(x-law) <= band*law {
				in++
				continue
			}
			fails = append(fails, fmt.Sprintf("k = %d λ = %g (ratio %.3f)", k, lam, x/law))
		}
	}
	what := fmt.Sprintf("sizes %s (C = %.4g): x = T_edge(1−λ)² within %g%% of C·0.9(k−2)", l.Service, l.variance(), 100*band)
	switch {
	case total == 0:
		return what + ": no edges to judge"
	case in == total:
		return fmt.Sprintf("%s at all %d edges", what, total)
	case in == 0:
		return fmt.Sprintf("%s at none of the %d edges: %s", what, total, strings.Join(fails, ", "))
	}
	return fmt.Sprintf("%s at %d of %d edges; fails at %s", what, in, total, strings.Join(fails, ", "))
}
