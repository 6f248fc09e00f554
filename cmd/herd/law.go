package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
)

// Default flags of herd law: the fit over k = 3 … 16 at loads whose edges
// take seconds, a ladder of two of them towards λ = 1, and the limit map for
// λ → 1 itself (law_limit.go). --full-ladder restores the loads the issue
// names (edges at λ ≥ 0.975 take minutes each).
const (
	lawDefaultDispatchers = "3,4,5,6,7,8,9,10,11,12,13,14,15,16"
	lawDefaultLoads       = "0.8,0.9,0.95"
	lawDefaultLadder      = "0.9,0.95"
	lawFullLoads          = "0.8,0.9,0.95,0.99"
	lawFullLadder         = "0.9,0.95,0.975,0.99"
)

// Columns of the herd law table (one table, rows of several kinds; cells a
// kind does not use are missing).
var lawColumns = []table.Column{
	{Name: "row"}, {Name: "dispatchers"}, {Name: "load"}, {Name: "order"},
	{Name: "x", Digits: 5}, {Name: "x_se", Digits: 2}, {Name: "law", Digits: 3}, {Name: "ratio", Digits: 4},
	{Name: "a", Digits: 4}, {Name: "a_se", Digits: 2}, {Name: "b", Digits: 4}, {Name: "b_se", Digits: 2},
	{Name: "corr_ab", Digits: 3}, {Name: "max_residual", Digits: 3}, {Name: "max_residual_k"},
	{Name: "rms_residual", Digits: 3}, {Name: "misfit", Digits: 3}, {Name: "points"},
	{Name: "law_from"}, {Name: "law_to"}, {Name: "limit_in_band"},
}

func runLaw(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "law", "law [--dispatchers LIST] [--load LIST] [--ladder LIST] [flags]")
	dispatchers := fs.String("dispatchers", lawDefaultDispatchers, "dispatchers k, integers ≥ 1 (list); the fits need at least 3 with an edge")
	load := fs.String("load", lawDefaultLoads, "loads λ per server at which x_edge = a(k − b) is fitted, in (0, 1) (list)")
	ladder := fs.String("ladder", lawDefaultLadder, "loads λ, in (0, 1), from which x*(k) = lim_{λ→1} x_edge is extrapolated in 1 − λ (list of at least 2)")
	order := fs.Int("order", 0, "highest order of the extrapolation polynomial in 1 − λ, in [1, ladder size − 1]; 0 means ladder size − 1")
	band := fs.Float64("band", 0.1, "relative band of the verdict: the edge x is 'within' the law when |x/(0.9(k−2)) − 1| ≤ band, in (0, 1)")
	relTol := fs.Float64("tolerance", 1e-4, "relative precision of each edge in T (as herd edge)")
	limitStep := fs.Float64("limit-step", compare.DefaultMapLimitStep, "grid step of the heavy-traffic limit map in scaled queue units q = (1−λ)Q (x*(k) from steps h and h/2, extrapolated), in [0.001, 0.5]; 0 skips the limit map")
	out := addOutputFlags(fs, "edges computed")
	plotFile := fs.String("plot", "", "also draw x_edge against k per load with the fitted lines, the limit x*(k) with error bars and the law, into FILE.png, .svg, .pdf or .eps")
	progMode := addProgressFlag(fs)
	full := fs.Bool("full-ladder", false, "default --load to "+lawFullLoads+" and --ladder to "+lawFullLadder+" (slow: edges at λ ≥ 0.975 take minutes each)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *full && !fs.Changed("load") {
		*load = lawFullLoads
	}
	if *full && !fs.Changed("ladder") {
		*ladder = lawFullLadder
	}
	fmtName, err := out.check()
	if err != nil {
		return err
	}
	if err := checkProgressMode(*progMode); err != nil {
		return err
	}
	ks, err := intList("dispatchers", *dispatchers, 1)
	if err != nil {
		return err
	}
	fitLoads, err := floatList("load", *load, inOpenUnit, "a number in (0, 1)")
	if err != nil {
		return err
	}
	ladderLoads, err := floatList("ladder", *ladder, inOpenUnit, "a number in (0, 1)")
	if err != nil {
		return err
	}
	if err := distinctInts("dispatchers", ks); err != nil {
		return err
	}
	if err := distinctFloats("load", fitLoads); err != nil {
		return err
	}
	if err := distinctFloats("ladder", ladderLoads); err != nil {
		return err
	}
	if len(ladderLoads) < 2 {
		return usagef("--ladder %s: want at least 2 loads", *ladder)
	}
	if *order != 0 && (*order < 1 || *order > len(ladderLoads)-1) {
		return usagef("--order %d: want an integer in [1, %d] (the ladder has %d loads), or 0 for %d", *order, len(ladderLoads)-1, len(ladderLoads), len(ladderLoads)-1)
	}
	if !(*band > 0 && *band < 1) {
		return usagef("--band %v: want a number in (0, 1)", *band)
	}
	if !(*relTol > 0 && *relTol < 0.1) {
		return usagef("--tolerance %v: want a number in (0, 0.1)", *relTol)
	}
	if *limitStep != 0 && !(*limitStep >= 1e-3 && *limitStep <= 0.5) {
		return usagef("--limit-step %v: want a number in [0.001, 0.5], or 0 to skip the limit map", *limitStep)
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return err
	}
	// Every load at which an edge is needed, increasing.
	loads := append(append([]float64(nil), fitLoads...), ladderLoads...)
	sort.Float64s(loads)
	loads = dedupSorted(loads)
	sort.Ints(ks)

	var settings []meanfield.EdgeSettings
	for _, lam := range loads {
		for _, k := range ks {
			if err := checkEdge(k, lam); err != nil {
				return err
			}
			s := meanfield.EdgeSettings{Dispatchers: k, Load: lam, RelTol: *relTol}
			if err := s.Validate(); err != nil {
				return usagef("--dispatchers %d, --load/--ladder %g: %v", k, lam, err)
			}
			settings = append(settings, s)
		}
	}
	results, errs, _, done := computeEdges(ctx, e, "law", *progMode, settings, *out.workers, false)

	// x[i][j]: the edge T(1−λ)² at loads[i], ks[j]; NaN when not computed,
	// failed or not found. sig: its stated precision, RelTol·x.
	x := make([][]float64, len(loads))
	sig := make([][]float64, len(loads))
	t := &table.Table{
		Title: "herd law: the edge against 0.9(k−2) — fit x_edge = a(k − b) per load, heavy-traffic limit x*(k) = lim_{λ→1} x_edge, verdict",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "tolerance", Value: strconv.FormatFloat(*relTol, 'g', -1, 64)},
			{Key: "ladder", Value: *ladder},
			{Key: "order", Value: strconv.Itoa(*order)},
			{Key: "band", Value: strconv.FormatFloat(*band, 'g', -1, 64)},
			{Key: "limit_step", Value: strconv.FormatFloat(*limitStep, 'g', -1, 64)},
			{Key: "fit_weights", Value: "per load: unit weights, s.e. from the residuals (misfit = rms of residual/stated precision); limit: 1/x_se², s.e. scaled by max(1, misfit)"},
			{Key: "x", Value: "T_edge(1−λ)², the refresh period at the edge of the balanced state in heavy-traffic units (herd edge's edge_scaled)"},
		},
		Columns: lawColumns,
	}
	var failures []string
	idx := 0
	for i, lam := range loads {
		x[i] = make([]float64, len(ks))
		sig[i] = make([]float64, len(ks))
		for j, k := range ks {
			x[i][j], sig[i][j] = math.NaN(), math.NaN()
			s, r := settings[idx], results[idx]
			ok, err := done[idx], errs[idx]
			idx++
			if !ok {
				continue
			}
			if err != nil {
				failures = append(failures, fmt.Sprintf("k=%d λ=%g: %v", s.Dispatchers, s.Load, err))
				continue
			}
			law := lawScaled(k)
			row := []any{"edge", k, lam, nil, nil, nil, lawCell(law), nil}
			row = append(row, make([]any, len(lawColumns)-len(row))...)
			if r.Found {
				x[i][j], sig[i][j] = r.Scaled, *relTol*r.Scaled
				row[4], row[5] = r.Scaled, sig[i][j]
				if law > 0 {
					row[7] = r.Scaled / law
				}
			} else {
				t.Warnings = append(t.Warnings, fmt.Sprintf("k=%d λ=%g: no edge (a balanced state persists down to T(1−λ)² = %g); left out of the fits", k, lam, meanfield.DefaultEdgeMinScaled))
			}
			t.AddRow(row...)
		}
	}
	fk := make([]float64, len(ks))
	for j, k := range ks {
		fk[j] = float64(k)
	}

	// The fit at each load.
	fits := make([]*compare.LawFit, len(loads))
	for i, lam := range loads {
		f, err := compare.FitLaw(fk, x[i], nil)
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("λ=%g: no fit: %v", lam, err))
			continue
		}
		fits[i] = &f
		// Misfit against the stated precision: the rms of residual/σ over
		// the points used, √(Σ(rᵢ/σᵢ)²/(n − 2)).
		var chi2 float64
		n := 0
		for j := range ks {
			if !math.IsNaN(x[i][j]) {
				r := f.Residuals[n]
				chi2 += (r / sig[i][j]) * (r / sig[i][j])
				n++
			}
		}
		t.AddRow(fitRow("fit", lam, f, math.Sqrt(chi2/float64(f.DoF)))...)
		t.Notes = append(t.Notes, fmt.Sprintf("λ = %g: x_edge = %s·(k − %s), %d points, largest residual %+.3g at k = %g",
			lam, pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK))
	}

	// The heavy-traffic limit of each k, from the ladder.
	ladderIdx := make([]int, 0, len(ladderLoads))
	for i, lam := range loads {
		if containsFloat(ladderLoads, lam) {
			ladderIdx = append(ladderIdx, i)
		}
	}
	limits := make([]*compare.Limit, len(ks))
	xStar := make([]float64, len(ks))
	xStarSE := make([]float64, len(ks))
	for j, k := range ks {
		xStar[j], xStarSE[j] = math.NaN(), math.NaN()
		var ll, lx, ls []float64
		for _, i := range ladderIdx {
			ll, lx, ls = append(ll, loads[i]), append(lx, x[i][j]), append(ls, sig[i][j])
		}
		lim, err := compare.HeavyTrafficLimit(ll, lx, ls, compare.LimitSettings{MaxOrder: *order})
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("k=%d: no heavy-traffic limit: %v", k, err))
			continue
		}
		limits[j] = &lim
		xStar[j], xStarSE[j] = lim.Value, lim.Err
		for p, v := range lim.Orders {
			row := make([]any, len(lawColumns))
			row[0], row[1], row[2], row[3], row[4] = "extrapolation", k, lim.Loads[p], p, v
			t.AddRow(row...)
		}
		if !lim.Converging {
			m := lim.Order
			t.Warnings = append(t.Warnings, fmt.Sprintf("k=%d: extrapolation orders not settling (order %d−%d correction %.3g > order %d−%d correction %.3g): the error estimate is not reliable",
				k, m, m-1, math.Abs(lim.Orders[m]-lim.Orders[m-1]), m-1, m-2, math.Abs(lim.Orders[m-1]-lim.Orders[m-2])))
		}
	}

	// The same fit on the limits: weights 1/x_se², Birge-scaled.
	var limFit *compare.LawFit
	if f, err := compare.FitLaw(fk, xStar, xStarSE); err != nil {
		t.Warnings = append(t.Warnings, fmt.Sprintf("limit: no fit: %v", err))
	} else {
		limFit = &f
		t.AddRow(fitRow("fit_limit", nil, f, math.Sqrt(f.Chi2/float64(f.DoF)))...)
		t.Notes = append(t.Notes, fmt.Sprintf("λ → 1: x* = %s·(k − %s), %d points, largest residual %+.3g at k = %g (misfit %.3g)",
			pm(f.A, f.ASE), pm(f.B, f.BSE), f.Points, f.MaxResidual, f.MaxResidualK, math.Sqrt(f.Chi2/float64(f.DoF))))
	}

	// The verdict of each k.
	for j, k := range ks {
		law := lawScaled(k)
		row := make([]any, len(lawColumns))
		row[0], row[1], row[6] = "verdict", k, lawCell(law)
		if law <= 0 {
			t.AddRow(row...)
			continue
		}
		col := make([]float64, len(loads))
		for i := range loads {
			col[i] = x[i][j]
		}
		rg := compare.WithinBand(loads, col, law, *band)
		what := "none of the loads"
		if rg.Loads > 0 {
			row[18], row[19] = rg.From, rg.To
			what = fmt.Sprintf("λ ∈ [%g, %g]", rg.From, rg.To)
		}
		if lim := limits[j]; lim != nil {
			row[3], row[4], row[5], row[7] = lim.Order, lim.Value, lim.Err, lim.Value/law
			row[20] = compare.InBand(lim.Value, lim.Err, law, *band)
			t.Notes = append(t.Notes, fmt.Sprintf("k = %d: edge within %g%% of 0.9(k−2) = %.3g for %s; limit x* = %s within %g%%: %s",
				k, 100**band, law, what, pm(lim.Value, lim.Err), 100**band, row[20]))
		} else {
			t.Notes = append(t.Notes, fmt.Sprintf("k = %d: edge within %g%% of 0.9(k−2) = %.3g for %s; no limit", k, 100**band, law, what))
		}
		t.AddRow(row...)
	}
	if *limitStep != 0 { // the heavy-traffic limit map (law_limit.go)
		mr, merr, mdone := lawMapLimits(ctx, ks, *limitStep, *out.workers)
		addMapLimitRows(t, ks, mr, merr, mdone, *band)
	}
	t.Warnings = append(t.Warnings, failures...)
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *plotFile == "" {
			return nil
		}
		return plotLaw(*plotFile, ks, loads, x, fits, xStar, xStarSE, limFit)
	})
	if err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d edge(s) failed: %s", len(failures), failures[0])
	}
	return nil
}

// fitRow is the table row of a law fit; load is a float64 or nil.
func fitRow(kind string, load any, f compare.LawFit, misfit float64) []any {
	row := make([]any, len(lawColumns))
	row[0], row[2] = kind, load
	row[8], row[9], row[10], row[11] = f.A, f.ASE, f.B, f.BSE
	row[12], row[13], row[14] = f.CorrAB, f.MaxResidual, f.MaxResidualK
	row[15], row[16], row[17] = f.RMSResidual, misfit, f.Points
	return row
}

// lawCell is the law's value as a cell: missing where it is not positive
// (k ≤ 2: one dispatcher never tips, and 0.9(k−2) = 0 at k = 2).
func lawCell(law float64) any {
	if law > 0 {
		return law
	}
	return nil
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

func plotLaw(path string, ks []int, loads []float64, x [][]float64, fits []*compare.LawFit, xStar, xStarSE []float64, limFit *compare.LawFit) error {
	fig := plotting.Figure{
		Title:  "edge against k: fits per load, heavy-traffic limit, law",
		XLabel: "dispatchers k",
		YLabel: "T_edge (1−λ)²",
	}
	fk := make([]float64, len(ks))
	for j, k := range ks {
		fk[j] = float64(k)
	}
	line := func(name, group string, f *compare.LawFit) plotting.Series {
		s := plotting.Series{Name: name, Group: group, Line: true}
		for _, k := range fk {
			s.X = append(s.X, k)
			s.Y = append(s.Y, f.A*(k-f.B))
		}
		return s
	}
	for i, lam := range loads {
		name := "λ = " + strconv.FormatFloat(lam, 'g', -1, 64)
		fig.Series = append(fig.Series, plotting.Series{Name: name, Group: name, X: fk, Y: x[i]})
		if fits[i] != nil {
			fig.Series = append(fig.Series, line("", name, fits[i]))
		}
	}
	fig.Series = append(fig.Series, plotting.Series{Name: "limit λ → 1", Group: "limit", X: fk, Y: xStar, YErr: xStarSE})
	if limFit != nil {
		fig.Series = append(fig.Series, line("", "limit", limFit))
	}
	law := plotting.Series{Name: "law 0.9(k−2)", Line: true}
	for _, k := range ks {
		law.X = append(law.X, float64(k))
		law.Y = append(law.Y, lawScaled(k))
	}
	fig.Series = append(fig.Series, law)
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

func distinctInts(flag string, v []int) error {
	seen := map[int]bool{} // looked up only
	for _, x := range v {
		if seen[x] {
			return usagef("--%s: %d given twice", flag, x)
		}
		seen[x] = true
	}
	return nil
}

func distinctFloats(flag string, v []float64) error {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return usagef("--%s: %s given twice", flag, strconv.FormatFloat(s[i], 'g', -1, 64))
		}
	}
	return nil
}

func dedupSorted(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if len(out) == 0 || x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func containsFloat(v []float64, x float64) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}
