package compare

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"herd/meanfield"
)

// LawSettings are the edges and fits of herd law: the edge x = T_edge(1−λ)²
// at every k and load, the fit x = a(k − b) at each of FitLoads, the
// heavy-traffic limit x*(k) extrapolated from the Ladder of loads, and the
// verdict on the law 0.9(k−2) within a relative Band.
type LawSettings struct {
	Dispatchers []int     // increasing, distinct
	FitLoads    []float64 // loads at which x = a(k − b) is fitted
	Ladder      []float64 // loads from which x* is extrapolated (at least 2)
	Order       int       // LimitSettings.MaxOrder (0: the ladder size − 1)
	Band        float64   // relative band of the verdict, in (0, 1)
	RelTol      float64   // relative precision of each edge in T
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
	return EdgeGrid(s.Dispatchers, s.Loads(), meanfield.EdgeSettings{RelTol: s.RelTol})
}

// Kinds of LawRow.
const (
	LawRowEdge          = "edge"
	LawRowFit           = "fit"
	LawRowExtrapolation = "extrapolation"
	LawRowFitLimit      = "fit_limit"
	LawRowVerdict       = "verdict"
)

// LawRow is one row of herd law's table; which fields a row has depends
// on its Kind, and a missing float is NaN, a missing Dispatchers 0, a
// missing Order −1, a missing Fit nil and a missing LimitInBand "".
type LawRow struct {
	Kind        string
	Dispatchers int
	Load        float64
	Order       int
	X, XSE      float64 // the edge, its extrapolation or its limit, with its error
	Law, Ratio  float64 // 0.9(k−2) (where positive) and X/Law
	Fit         *LawFit // fit and fit_limit rows
	Misfit      float64 // the fit's rms of residual/stated precision
	// LawFrom and LawTo bound the loads at which the edge is within the
	// band of the law (WithinBand); LimitInBand is InBand's verdict on
	// the limit.
	LawFrom, LawTo float64
	LimitInBand    string
}

func newLawRow(kind string, k int, load float64) LawRow {
	nan := math.NaN()
	return LawRow{Kind: kind, Dispatchers: k, Load: load, Order: -1, X: nan, XSE: nan, Law: nan, Ratio: nan,
		Misfit: nan, LawFrom: nan, LawTo: nan}
}

// Law is herd law's answer: its rows, notes and warnings in table order,
// the edge searches that failed, and what its plot draws.
type Law struct {
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
	l := Law{settings: s, Loads: s.Loads()}
	for _, k := range s.Dispatchers {
		l.ks = append(l.ks, float64(k))
	}
	l.edges(pts)
	l.fits()
	l.heavyTraffic()
	l.limitFit()
	l.verdicts()
	l.Warnings = append(l.Warnings, l.Failures...)
	return l
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
			if law := LawScaled(k); law > 0 {
				row.Law = law
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

// fits fits x = a(k − b) at each load, with its misfit against the
// stated precision: the rms of residual/σ over the points used,
// √(Σ(rᵢ/σᵢ)²/(n − 2)).
func (l *Law) fits() {
	l.Fits = make([]*LawFit, len(l.Loads))
	for i, lam := range l.Loads {
		f, err := FitLaw(l.ks, l.X[i], nil)
		if err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("λ=%g: no fit: %v", lam, err))
			continue
		}
		l.Fits[i] = &f
		var chi2 float64
		n := 0
		for j := range l.ks {
			if !math.IsNaN(l.X[i][j]) {
				r := f.Residuals[n]
				chi2 += (r / l.sig[i][j]) * (r / l.sig[i][j])
				n++
			}
		}
		row := newLawRow(LawRowFit, 0, lam)
		row.Fit, row.Misfit = &f, math.Sqrt(chi2/float64(f.DoF))
		l.Rows = append(l.Rows, row)
		l.Notes = append(l.Notes, fmt.Sprintf("λ = %g: x_edge = %s·(k − %s), %d points, largest residual %+.3g at k = %g",
			lam, pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK))
	}
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

// limitFit fits x* = a(k − b) to the limits: weights 1/x_se²,
// Birge-scaled.
func (l *Law) limitFit() {
	l.LimitFit = l.fitLimits(LawRowFitLimit, "limit", "λ → 1", l.ks, l.XStar, l.XStarSE)
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
	l.Notes = append(l.Notes, fmt.Sprintf("%s: x* = %s·(k − %s), %d points, largest residual %+.3g at k = %g (misfit %.3g)",
		note, pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK, misfit))
	return &f
}

// verdicts judges the law at each k: the loads at which the edge is
// within the band, and whether the limit is.
func (l *Law) verdicts() {
	band := l.settings.Band
	for j, k := range l.settings.Dispatchers {
		law := LawScaled(k)
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
			l.Notes = append(l.Notes, fmt.Sprintf("k = %d: edge within %g%% of 0.9(k−2) = %.3g for %s; limit x* = %s within %g%%: %s",
				k, 100*band, law, what, pm(lim.Value, lim.Err), 100*band, row.LimitInBand))
		} else {
			l.Notes = append(l.Notes, fmt.Sprintf("k = %d: edge within %g%% of 0.9(k−2) = %.3g for %s; no limit", k, 100*band, law, what))
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
