package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/meanfield"
)

// lawScaled is the published rule of thumb for the edge: T(1−λ)² ≈ 0.9(k−2).
func lawScaled(k int) float64 { return 0.9 * float64(k-2) }

func runEdge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "edge", "edge [--dispatchers LIST] [--load LIST] [flags]   (plain herd runs this)")
	dispatchers := dispatchersList(fs, "2,3,4,5,6,8,10", "integers in [1, 256]")
	load := loadList(fs, "0.8,0.9,0.95", edgeLoadHelp)
	relTol := toleranceFlag(fs)
	herdFull := fs.Bool("herd", false, "classify the herd below each edge fully (up to 400 maps; by default at most 40 maps and no more work than the edge search)")
	confirm := fs.Bool("confirm", false, "also check every edge by plain iteration from the low boards at T(1+1e-4) (one must reach the balanced state) and T(1−1e-4) (none may): columns above_reached and below_balanced")
	progMode := addProgressFlag(fs)
	sizes := addSizesFlag(fs, "job sizes of the model")
	branchFrom := fs.Float64("branch-from", 0, "T(1−λ)² at which the footing search starts (it climbs by ×1.25 until every low board reaches the balanced state), 0 or in (0.02, 1000]; 0 means the law's estimate 0.9(k−2)")
	out := addOutputFlags(fs, "edges computed")
	plotFile := plotFlag(fs, "edge_scaled against k, one series per load, with the law 0.9(k−2),")
	if err := parse(fs, args); err != nil {
		return err
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
	loads, err := floatList("load", *load, inOpenUnit, "a number in (0, 1)")
	if err != nil {
		return err
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return err
	}
	if !(*relTol >= 1e-8 && *relTol < 0.1) {
		return usagef("--tolerance %v: want a number in [1e-8, 0.1)", *relTol)
	}
	_, svc, err := modelSizes(*sizes)
	if err != nil {
		return err
	}
	if *branchFrom != 0 && !(*branchFrom > meanfield.DefaultEdgeMinScaled && *branchFrom <= meanfield.DefaultEdgeMaxScaled) {
		return usagef("--branch-from %v: want 0 (the law's estimate) or T(1−λ)² in (%g, %g]", *branchFrom, meanfield.DefaultEdgeMinScaled, float64(meanfield.DefaultEdgeMaxScaled))
	}
	var settings []meanfield.EdgeSettings
	for _, lam := range loads {
		for _, k := range ks {
			s := meanfield.EdgeSettings{Dispatchers: k, Load: lam, RelTol: *relTol, Service: svc, BranchFrom: *branchFrom}
			if err := checkEdge(k, lam); err != nil {
				return err
			}
			if *herdFull {
				s.HerdFull, s.HerdMaps = true, 400
			}
			if err := s.Validate(); err != nil {
				return usagef("%v", err)
			}
			settings = append(settings, s)
		}
	}
	results, errs, checks, done := computeEdges(ctx, e, "edge", *progMode, settings, *out.workers, *confirm)

	t := &table.Table{
		Title: "herd edge: where the balanced state of k dispatchers with own tallies tips (refresh map, N → ∞)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "tolerance", Value: strconv.FormatFloat(*relTol, 'g', -1, 64)},
			{Key: "protocol", Value: "lowest T at which iteration from empty, all-at-1 and all-at-3 boards reaches a balanced fixed point"},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load"}, {Name: "edge_refresh", Digits: 6},
			{Name: "edge_scaled", Digits: 5}, {Name: "branch_scaled", Digits: 5}, {Name: "law_scaled", Digits: 3},
			{Name: "ratio", Digits: 4}, {Name: "crossing"}, {Name: "node_radius", Digits: 3},
			{Name: "herd_period"}, {Name: "herd_board_mean", Digits: 5},
			{Name: "saddle_eigenvalue", Digits: 3}, {Name: "maps"}, {Name: "gaps"},
		},
	}
	if *confirm {
		t.Columns = append(t.Columns, table.Column{Name: "above_reached"}, table.Column{Name: "below_balanced"})
		t.Notes = append(t.Notes, "confirmation by plain iteration: above_reached is the first low board (empty, one = all at 1, three = all at 3) reaching the balanced state at T_edge(1+1e-4); below_balanced how many of the three reach it at T_edge(1−1e-4) (0 confirms)")
	}
	addSizes(t, svc, true)
	dev := map[float64]lawDeviation{}
	var failures []string
	for i, s := range settings {
		if !done[i] {
			continue
		}
		if errs[i] != nil {
			failures = append(failures, fmt.Sprintf("k=%d λ=%g: %v", s.Dispatchers, s.Load, errs[i]))
			continue
		}
		r := results[i]
		law := lawScaled(s.Dispatchers)
		var lawCell any = law
		if s.Dispatchers < 2 {
			lawCell = nil // the law is for k ≥ 2; one dispatcher never tips
		}
		row := []any{s.Dispatchers, s.Load, nil, nil, nil, lawCell, nil, r.Crossing, nil, nil, nil, nil, r.Maps, nil}
		d := dev[s.Load]
		if r.Status == meanfield.Found {
			row[2], row[3] = r.Refresh, r.Scaled
			if r.BranchScaled > 0 {
				row[4] = r.BranchScaled
			}
			if law > 0 {
				ratio := r.Scaled / law
				row[6] = ratio
				if x := ratio - 1; !d.any || math.Abs(x) >= math.Abs(d.worst) {
					d.worst, d.worstK, d.any = x, s.Dispatchers, true
				}
			}
			if !math.IsNaN(r.NodeRadius) {
				row[8] = r.NodeRadius
			}
			switch {
			case r.Herd.Period > 0:
				row[9], row[10] = r.Herd.Period, r.Herd.BoardMean
			case r.Herd.Status == meanfield.Aperiodic:
				row[9], row[10] = "aperiodic", r.Herd.BoardMean
			}
			if !math.IsNaN(r.SaddleEigenvalue) {
				row[11] = r.SaddleEigenvalue
			}
			if len(r.Gaps) > 0 {
				row[13] = formatGaps(r.Gaps)
			}
		} else if law > 0 {
			// The law predicts an edge the model does not have: the largest
			// deviation there is, whatever the edges found elsewhere.
			d.none = append(d.none, s.Dispatchers)
		}
		dev[s.Load] = d
		if *confirm {
			row = append(row, nil, nil)
			if c := checks[i]; c != nil {
				row[14] = "none"
				if c.AboveStart >= 0 {
					row[14] = []string{"empty", "one", "three"}[c.AboveStart]
				}
				row[15] = c.BelowBalanced
			}
		}
		t.AddRow(row...)
	}
	for _, lam := range loads {
		d, ok := dev[lam]
		if !ok || (!d.any && len(d.none) == 0) {
			continue
		}
		note := fmt.Sprintf("λ = %g: largest deviation from the law 0.9(k−2): ", lam)
		switch {
		case len(d.none) > 0 && d.any:
			note += fmt.Sprintf("no edge at all for k = %s, where the law predicts one; among edges found %+.1f%% (k = %d)", joinInts(d.none), 100*d.worst, d.worstK)
		case len(d.none) > 0:
			note += fmt.Sprintf("no edge at all for k = %s, where the law predicts one", joinInts(d.none))
		default:
			note += fmt.Sprintf("%+.1f%% (k = %d)", 100*d.worst, d.worstK)
		}
		t.Notes = append(t.Notes, note)
	}
	t.Warnings = failures
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *plotFile == "" {
			return nil
		}
		return plotEdge(*plotFile, settings, results, done, ks, loads)
	})
	if err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d edge(s) failed: %s", len(failures), failures[0])
	}
	return nil
}

// lawDeviation is the footer's account of one load: the largest signed
// deviation edge/law − 1 among edges found, and the k for which the law
// predicts an edge (k ≥ 3) but the model finds none.
type lawDeviation struct {
	worst  float64
	worstK int
	any    bool
	none   []int
}

// edgeCost is the relative cost of one edge, for ordering and the time-left
// estimate: the search's maps scale about as k² and as 1/(1−λ)³ (map rows
// ∝ 1/(1−λ), windows ∝ T/k ∝ 1/(1−λ)², chain work per window ∝ k²).
func edgeCost(s meanfield.EdgeSettings) float64 {
	k := float64(max(s.Dispatchers, 3))
	return k * k / math.Pow(1-s.Load, 3)
}

// formatGaps writes gaps as "lo–hi" ranges of T(1−λ)², joined by "; ".
func formatGaps(gaps []meanfield.EdgeGap) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = strconv.FormatFloat(g.Lo, 'f', 3, 64) + "–" + strconv.FormatFloat(g.Hi, 'f', 3, 64)
	}
	return strings.Join(parts, "; ")
}

func plotEdge(path string, settings []meanfield.EdgeSettings, results []meanfield.EdgeResult, done []bool, ks []int, loads []float64) error {
	fig := plotting.Figure{
		Title:  "edge of the balanced state (refresh map, N → ∞)",
		XLabel: "dispatchers k",
		YLabel: "T_edge (1−λ)²",
	}
	for _, lam := range loads {
		sr := plotting.Series{Name: "λ = " + strconv.FormatFloat(lam, 'g', -1, 64)}
		for i, s := range settings {
			if done[i] && s.Load == lam && results[i].Status == meanfield.Found {
				sr.X = append(sr.X, float64(s.Dispatchers))
				sr.Y = append(sr.Y, results[i].Scaled)
			}
		}
		fig.Series = append(fig.Series, sr)
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

// computeEdges computes the edges of settings on the worker pool, longest
// first, with progress on stderr in mode (progressAuto, …), and with
// confirm each found edge's plain-iteration check: the one schedule of
// herd edge and herd law. Results are stored by index, so the order does
// not reach the output; done[i] is false for an edge not finished
// (Ctrl-C).
func computeEdges(ctx context.Context, e *env, name, mode string, settings []meanfield.EdgeSettings, workers int, confirm bool) (results []meanfield.EdgeResult, errs []error, checks []*meanfield.EdgeConfirmation, done []bool) {
	results = make([]meanfield.EdgeResult, len(settings))
	errs = make([]error, len(settings))
	checks = make([]*meanfield.EdgeConfirmation, len(settings))
	labels := make([]string, len(settings))
	weights := make([]float64, len(settings))
	for i, s := range settings {
		labels[i] = fmt.Sprintf("k=%d λ=%g", s.Dispatchers, s.Load)
		weights[i] = edgeCost(s)
	}
	prog := newItemProgress(e.stderr, mode, name, "edges", labels, weights)
	// Longest first: an edge's cost grows with k and 1/(1−λ) (edgeCost), so
	// starting those first keeps the workers busy to the end.
	order := make([]int, len(settings))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return weights[order[a]] > weights[order[b]] })
	started := parallel(ctx, len(settings), workers, func(j int) {
		i := order[j]
		prog.begin(i)
		results[i], errs[i] = meanfield.Edge(settings[i])
		if confirm && errs[i] == nil && results[i].Status == meanfield.Found {
			s := settings[i]
			c, err := meanfield.ConfirmEdge(meanfield.ConfirmSettings{Dispatchers: s.Dispatchers, Load: s.Load, Edge: results[i].Refresh, Rel: 1e-4, Service: s.Service})
			if err != nil {
				errs[i] = fmt.Errorf("confirmation: %w", err)
			} else {
				checks[i] = &c
			}
		}
		switch {
		case errs[i] != nil:
			prog.end(i, "failed")
		case checks[i] != nil && !checks[i].Confirmed():
			prog.end(i, "edge "+strconv.FormatFloat(results[i].Scaled, 'f', 4, 64)+" NOT confirmed")
		case checks[i] != nil:
			prog.end(i, "edge "+strconv.FormatFloat(results[i].Scaled, 'f', 4, 64)+" confirmed")
		case results[i].Status == meanfield.Found:
			prog.end(i, "edge "+strconv.FormatFloat(results[i].Scaled, 'f', 4, 64))
		default:
			prog.end(i, "none")
		}
	}, nil)
	prog.close()
	done = make([]bool, len(settings))
	for j, ok := range started {
		done[order[j]] = ok
	}
	return results, errs, checks, done
}
