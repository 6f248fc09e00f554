package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
)

// Default flags of herd law: the fit over eight k from 3 to 16 at loads whose
// edges take seconds, the same three as the ladder towards λ = 1, and the limit
// map for λ → 1 itself (law_limit.go). --full-ladder restores the loads the
// issue names (edges at λ ≥ 0.975 take minutes each).
const (
	lawDefaultDispatchers = "3,4,5,6,8,10,12,16"
	lawDefaultLoads       = "0.8,0.9,0.95"
	lawDefaultLadder      = "0.8,0.9,0.95"
	lawFullLoads          = "0.8,0.9,0.95,0.99"
	lawFullLadder         = "0.9,0.95,0.975,0.99"
)

// Columns of the herd law table (one table, rows of several kinds; cells a
// kind does not use are missing).
var lawColumns = []table.Column{
	{Name: "row"}, {Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "order"},
	{Name: "x", Digits: 5}, {Name: "x_se", Digits: 2}, {Name: "law", Digits: 3}, {Name: "ratio", Digits: 4},
	{Name: "a", Digits: 4}, {Name: "a_se", Digits: 2}, {Name: "b", Digits: 4}, {Name: "b_se", Digits: 2},
	{Name: "corr_ab", Digits: 3}, {Name: "max_residual", Digits: 3}, {Name: "max_residual_k"},
	{Name: "rms_residual", Digits: 3}, {Name: "misfit", Digits: 3}, {Name: "points"},
	{Name: "law_from"}, {Name: "law_to"}, {Name: "limit_in_band"},
}

// lawOutput is where herd law's answer goes, and how it is computed.
type lawOutput struct {
	format, plot, progress string
	workers                int
	ladder                 string  // --ladder as given, for the table's meta
	limitStep              float64 // grid step of the limit map; 0: skipped
	// sizes are the job sizes, one Law each (exp unless --sizes); sized
	// is true when --sizes was given: the table then has the sizes and
	// scv columns and the pooled fits.
	sizes []meanfield.Service
	sized bool
}

func runLaw(ctx context.Context, e *env, args []string) error {
	s, o, err := parseLaw(e, args)
	if err != nil {
		return err
	}
	// One LawSettings per sizes; their edges one after the other.
	per := make([]compare.LawSettings, len(o.sizes))
	var settings []meanfield.EdgeSettings
	for i, svc := range o.sizes {
		per[i] = s
		per[i].Service = svc
		settings = append(settings, per[i].Edges()...)
	}
	for _, es := range settings {
		if err := checkEdge(es.Dispatchers, es.Load); err != nil {
			return err
		}
		if err := es.Validate(); err != nil {
			return usagef("--dispatchers %d, --load/--ladder %g: %v", es.Dispatchers, es.Load, err)
		}
	}
	pts := computeEdges(ctx, e, "law", o.progress, settings, o.workers, 0, nil)
	n := len(settings) / len(o.sizes)
	laws := make([]compare.Law, len(o.sizes))
	for i := range laws {
		laws[i] = compare.AnalyseLaw(per[i], pts[i*n:(i+1)*n])
	}
	if o.limitStep != 0 { // the heavy-traffic limit map (law_limit.go), once: x*(k, C) = C·x*(k)
		mr, merr, mdone := lawMapLimits(ctx, s.Dispatchers, o.limitStep, o.workers)
		for i := range laws {
			laws[i].AddScaledMapLimits(s.Dispatchers, mr, merr, mdone, s.Band)
		}
	}
	var p compare.LawSizes
	if o.sized {
		p = compare.PoolLaws(laws)
	} else { // exp alone, as before --sizes: no headings, no pooled rows
		l := laws[0]
		p = compare.LawSizes{Laws: laws, Rows: l.Rows, Notes: l.Notes, Warnings: l.Warnings, Failures: l.Failures}
	}
	t := lawTable(s, p, o)
	err = writeTable(ctx, e, t, o.format, func() error {
		switch {
		case o.plot == "":
			return nil
		case o.sized:
			return plotLawSizes(o.plot, s.Dispatchers, p)
		}
		return plotLaw(o.plot, s.Dispatchers, laws[0])
	})
	if err != nil {
		return err
	}
	if len(p.Failures) > 0 {
		return fmt.Errorf("%d edge(s) failed: %s", len(p.Failures), p.Failures[0])
	}
	for _, l := range laws {
		for _, f := range l.Fits {
			if f != nil {
				return nil
			}
		}
	}
	return fmt.Errorf("no load has the %d edges a fit needs (see the warnings): nothing was fitted", lawMinDispatchers)
}

// parseLaw reads herd law's flags into its settings, each list checked
// before any work.
func parseLaw(e *env, args []string) (compare.LawSettings, lawOutput, error) {
	var s compare.LawSettings
	var o lawOutput
	fs := newFlags(e, "law", "law [--dispatchers LIST] [--load LIST] [--ladder LIST] [flags]")
	dispatchers := dispatchersList(fs, lawDefaultDispatchers, "integers ≥ 1; the fits need at least 3 with an edge")
	load := loadList(fs, lawDefaultLoads, "in (0, 1); x_edge = a(k − b) is fitted at each")
	ladder := fs.String("ladder", lawDefaultLadder, "loads λ, in (0, 1), from which x*(k) = lim_{λ→1} x_edge is extrapolated in 1 − λ (list of at least 2)")
	order := fs.Int("order", 0, "highest order of the extrapolation polynomial in 1 − λ, in [1, ladder size − 1]; 0 means ladder size − 1")
	band := fs.Float64("band", 0.1, "relative band of the verdict: the edge x is 'within' the law when |x/(C·0.9(k−2)) − 1| ≤ band (C = 1 for exp), in (0, 1)")
	sizes := sizesFlag(fs, "job sizes of the edges, each judged against C·0.9(k−2) with C its squared coefficient of variation (x/C fitted per load and sizes, and pooled over the sizes)", sizesValues+" (list)")
	relTol := addToleranceFlag(fs)
	limitStep := fs.Float64("limit-step", compare.DefaultMapLimitStep, "grid step of the heavy-traffic limit map in scaled queue units q = (1−λ)Q (x*(k) from steps h and h/2, extrapolated), in [0.001, 0.5]; 0 skips the limit map")
	out := addOutputFlags(fs, "edges computed")
	plotFile := plotFlag(fs, "x_edge against k per load with the fitted lines, the extrapolated limit and the limit map's x*(k) with error bars and their lines, and the law (with --sizes: x_edge/C per load and sizes, the fit_sizes lines, the limit map's x*(k) and the law),")
	progMode := addProgressFlag(fs)
	full := fs.Bool("full-ladder", false, "default --load to "+lawFullLoads+" and --ladder to "+lawFullLadder+" (slow: each edge at λ ≥ 0.975 costs thousands of maps)")
	if err := parse(fs, args); err != nil {
		return s, o, err
	}
	if *full && !fs.Changed("load") {
		*load = lawFullLoads
	}
	if *full && !fs.Changed("ladder") {
		*ladder = lawFullLadder
	}
	fmtName, err := out.check()
	if err != nil {
		return s, o, err
	}
	if err := checkProgressMode(*progMode); err != nil {
		return s, o, err
	}
	o = lawOutput{format: fmtName, plot: *plotFile, progress: *progMode, workers: *out.workers, ladder: *ladder, limitStep: *limitStep, sized: fs.Changed("sizes")}
	s = compare.LawSettings{Order: *order, Band: *band, RelTol: *relTol}
	if s.Dispatchers, s.FitLoads, s.Ladder, err = lawLists(*dispatchers, *load, *ladder); err != nil {
		return s, o, err
	}
	if err := checkLawDispatchers(*dispatchers, s.Dispatchers); err != nil {
		return s, o, err
	}
	if o.sizes, err = lawSizes(*sizes); err != nil {
		return s, o, err
	}
	if *order != 0 && (*order < 1 || *order > len(s.Ladder)-1) {
		return s, o, usagef("--order %d: want an integer in [1, %d] (the ladder has %d loads), or 0 for %d", *order, len(s.Ladder)-1, len(s.Ladder), len(s.Ladder)-1)
	}
	if !(*band > 0 && *band < 1) {
		return s, o, usagef("--band %v: want a number in (0, 1)", *band)
	}
	if err := checkTolerance(*relTol); err != nil {
		return s, o, err
	}
	if *limitStep != 0 && !(*limitStep >= 1e-3 && *limitStep <= 0.5) {
		return s, o, usagef("--limit-step %v: want a number in [0.001, 0.5], or 0 to skip the limit map", *limitStep)
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return s, o, err
	}
	sort.Ints(s.Dispatchers)
	return s, o, nil
}

// lawMinDispatchers is how many dispatcher counts that can have an edge
// (k ≥ 3) the fit x = a(k − b) needs: two parameters and one degree of
// freedom to judge the fit (compare.FitLaw).
const lawMinDispatchers = 3

// checkLawDispatchers refuses a --dispatchers list that cannot give a fit
// at any load: k = 1 (one dispatcher's tally cures the herd) and k = 2
// (never tips) have no edge, so fewer than three counts k ≥ 3 leave
// nothing to fit, whatever the edges turn out to be.
func checkLawDispatchers(flag string, ks []int) error {
	n := 0
	for _, k := range ks {
		if k >= 3 {
			n++
		}
	}
	if n < lawMinDispatchers {
		return usagef("--dispatchers %s: the fit x = a(k − b) needs at least %d dispatcher counts k ≥ 3, have %d (k = 1 and 2 have no edge)", flag, lawMinDispatchers, n)
	}
	return nil
}

// lawLists parses herd law's lists: each without repeats, the ladder at
// least 2 loads.
func lawLists(dispatchers, load, ladder string) (ks []int, fitLoads, ladderLoads []float64, err error) {
	if ks, err = modelDispatchersList(dispatchers); err != nil {
		return
	}
	if fitLoads, err = floatList("load", load, modelLoad, modelLoadWant); err != nil {
		return
	}
	if ladderLoads, err = floatList("ladder", ladder, inOpenUnit, "a number in (0, 1)"); err != nil {
		return
	}
	if err = distinctInts("dispatchers", ks); err != nil {
		return
	}
	if err = distinctFloats("load", fitLoads); err != nil {
		return
	}
	if err = distinctFloats("ladder", ladderLoads); err != nil {
		return
	}
	if len(ladderLoads) < 2 {
		err = usagef("--ladder %s: want at least 2 loads", ladder)
	}
	return
}

// lawSizes parses --sizes: a comma list of distinct sizes the refresh map
// takes (modelSizes).
func lawSizes(list string) ([]meanfield.Service, error) {
	parts, err := splitList("sizes", list)
	if err != nil {
		return nil, err
	}
	var out []meanfield.Service
	seen := map[string]bool{} // looked up only
	for _, p := range parts {
		_, svc, err := modelSizes(p)
		if err != nil {
			return nil, err
		}
		name := svc.String()
		if seen[name] {
			return nil, usagef("--sizes: %s given twice", name)
		}
		seen[name] = true
		out = append(out, svc)
	}
	return out, nil
}

// lawSizesColumns are the columns herd law --sizes puts after row: the
// sizes and C, their squared coefficient of variation.
var lawSizesColumns = []table.Column{{Name: "sizes"}, {Name: "scv", Digits: 4}}

// lawTable is herd law's table.
func lawTable(s compare.LawSettings, p compare.LawSizes, o lawOutput) *table.Table {
	t := &table.Table{
		Title: "herd law: the edge against 0.9(k−2) — fit x_edge = a(k − b) per load, heavy-traffic limit x*(k) = lim_{λ→1} x_edge, verdict",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "tolerance", Value: strconv.FormatFloat(s.RelTol, 'g', -1, 64)},
			{Key: "ladder", Value: o.ladder},
			{Key: "order", Value: strconv.Itoa(s.Order)},
			{Key: "band", Value: strconv.FormatFloat(s.Band, 'g', -1, 64)},
			{Key: "limit_step", Value: strconv.FormatFloat(o.limitStep, 'g', -1, 64)},
			{Key: "fit_weights", Value: "per load: unit weights, s.e. from the residuals (misfit = rms of residual/stated precision); limit: 1/x_se², s.e. scaled by max(1, misfit)"},
			{Key: "x", Value: "T_edge(1−λ)², the refresh period at the edge of the balanced state in heavy-traffic units (herd edge's edge_scaled)"},
		},
		Columns: lawColumns,
	}
	if o.sized {
		t.Title = "herd law: the edge against C·0.9(k−2), C = scv the sizes' squared coefficient of variation — fit x_edge/C = a(k − b) per load and sizes and pooled over the sizes (fit_sizes), heavy-traffic limit x*(k) = lim_{λ→1} x_edge, verdict"
		var names []string
		for _, svc := range o.sizes {
			names = append(names, svc.String())
		}
		t.Meta = append(t.Meta, table.Field{Key: "sizes", Value: strings.Join(names, ",")},
			table.Field{Key: "fit_sizes", Value: "per load: x_edge/C of every sizes, unit weights, as the per-load fits"})
		t.Columns = append(append([]table.Column{lawColumns[0]}, lawSizesColumns...), lawColumns[1:]...)
	}
	for _, r := range p.Rows {
		cells := lawCells(r)
		if o.sized {
			var sizes any
			if r.Sizes != "" {
				sizes = r.Sizes
			}
			cells = append([]any{cells[0], sizes, r.C}, cells[1:]...)
		}
		t.AddRow(cells...)
	}
	t.Notes, t.Warnings = p.Notes, p.Warnings
	return t
}

// lawCells is a row of the herd law table, by column (lawColumns).
func lawCells(r compare.LawRow) []any {
	var k, order, inBand any
	if r.Dispatchers > 0 {
		k = r.Dispatchers
	}
	if r.Order >= 0 {
		order = r.Order
	}
	if r.LimitInBand != "" {
		inBand = r.LimitInBand
	}
	row := []any{r.Kind, k, r.Load, order, r.X, r.XSE, r.Law, r.Ratio}
	if f := r.Fit; f != nil {
		return append(row, f.A, f.ASE, f.B, f.BSE, f.CorrAB, f.MaxResidual, f.MaxResidualK, f.RMSResidual, r.Misfit, f.Points,
			r.LawFrom, r.LawTo, inBand)
	}
	return append(row, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, r.LawFrom, r.LawTo, inBand)
}

func plotLaw(path string, ks []int, l compare.Law) error {
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
	for i, lam := range l.Loads {
		name := "λ = " + strconv.FormatFloat(lam, 'g', -1, 64)
		fig.Series = append(fig.Series, plotting.Series{Name: name, Group: name, X: fk, Y: l.X[i]})
		if l.Fits[i] != nil {
			fig.Series = append(fig.Series, line("", name, l.Fits[i]))
		}
	}
	fig.Series = append(fig.Series, plotting.Series{Name: "limit λ → 1 (extrapolated)", Group: "limit", X: fk, Y: l.XStar, YErr: l.XStarSE})
	if l.LimitFit != nil {
		fig.Series = append(fig.Series, line("", "limit", l.LimitFit))
	}
	if l.MapXStar != nil {
		fig.Series = append(fig.Series, plotting.Series{Name: "limit map x*(k)", Group: "limit map", X: fk, Y: l.MapXStar, YErr: l.MapXStarSE})
		if l.MapFit != nil {
			fig.Series = append(fig.Series, line("", "limit map", l.MapFit))
		}
	}
	fig.Series = append(fig.Series, lawSeries(ks))
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// plotLawSizes draws herd law --sizes: x/C against k per load and sizes
// (one colour per load, one glyph per series), the pooled line per load,
// the limit map's x*(k) (variance 1: x*(k, C)/C) and the law.
func plotLawSizes(path string, ks []int, p compare.LawSizes) error {
	fig := plotting.Figure{
		Title:  "edge/C against k: per load and sizes, pooled fits, limit map, law",
		XLabel: "dispatchers k",
		YLabel: "T_edge (1−λ)² / C",
	}
	fk := make([]float64, len(ks))
	for j, k := range ks {
		fk[j] = float64(k)
	}
	for i, lam := range p.Laws[0].Loads {
		group := "λ = " + strconv.FormatFloat(lam, 'g', -1, 64)
		for _, l := range p.Laws {
			y := make([]float64, len(ks))
			for j := range ks {
				y[j] = l.X[i][j] / l.C
			}
			fig.Series = append(fig.Series, plotting.Series{Name: group + ", " + l.Service.String(), Group: group, X: fk, Y: y})
		}
		if f := p.Pooled[i]; f != nil {
			line := plotting.Series{Group: group, Line: true}
			for _, k := range fk {
				line.X, line.Y = append(line.X, k), append(line.Y, f.A*(k-f.B))
			}
			fig.Series = append(fig.Series, line)
		}
	}
	if l := p.Laws[0]; l.MapXStar != nil {
		y, e := make([]float64, len(ks)), make([]float64, len(ks))
		for j := range ks {
			y[j], e[j] = l.MapXStar[j]/l.C, l.MapXStarSE[j]/l.C
		}
		fig.Series = append(fig.Series, plotting.Series{Name: "limit map x*(k)", Group: "limit map", Line: true, X: fk, Y: y, YErr: e})
	}
	fig.Series = append(fig.Series, lawSeries(ks))
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
