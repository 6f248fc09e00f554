package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/meanfield"
)

// lawScaled is the published rule of thumb for the edge: T(1−λ)² ≈ 0.9(k−2).
func lawScaled(k int) float64 { return 0.9 * float64(k-2) }

func runEdge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "edge", "edge [--dispatchers LIST] [--load LIST] [flags]   (plain herd runs this)")
	dispatchers := fs.String("dispatchers", "2,3,4,5,6,8,10", "dispatchers k, integers ≥ 1 (list)")
	load := fs.String("load", "0.8,0.9,0.95", "loads λ per server, in (0, 1) (list)")
	relTol := fs.Float64("tolerance", 1e-4, "relative precision of the edge in T")
	sizes := addSizesFlag(fs, "job sizes of the model")
	branchFrom := fs.Float64("branch-from", meanfield.DefaultEdgeBranchFrom, "T(1−λ)² at which the balanced state is sought and followed down from, in (0.02, 1000]; raise it when sizes are heavy-tailed")
	out := addOutputFlags(fs, "edges computed")
	plotFile := fs.String("plot", "", "also draw edge_scaled against k, one series per load, with the law 0.9(k−2), into FILE.png or FILE.svg")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := out.check()
	if err != nil {
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
	if !(*relTol > 0 && *relTol < 0.1) {
		return usagef("--tolerance %v: want a number in (0, 0.1)", *relTol)
	}
	_, svc, err := modelSizes(*sizes)
	if err != nil {
		return err
	}
	if !(*branchFrom > meanfield.DefaultEdgeMinScaled && *branchFrom <= 1000) {
		return usagef("--branch-from %v: want T(1−λ)² in (%g, 1000]", *branchFrom, meanfield.DefaultEdgeMinScaled)
	}
	var settings []meanfield.EdgeSettings
	for _, lam := range loads {
		for _, k := range ks {
			s := meanfield.EdgeSettings{Dispatchers: k, Load: lam, RelTol: *relTol, Service: svc, BranchFrom: *branchFrom}
			if err := s.Validate(); err != nil {
				return usagef("%v", err)
			}
			settings = append(settings, s)
		}
	}
	results := make([]meanfield.EdgeResult, len(settings))
	errs := make([]error, len(settings))
	prog := newProgress(e.stderr, "edge", "edges")
	// Longest first: an edge's cost grows with its refresh period, about
	// k/(1−λ)², so starting those first keeps the workers busy to the end.
	// Results are stored by index: the order does not reach the output.
	order := make([]int, len(settings))
	for i := range order {
		order[i] = i
	}
	cost := func(s meanfield.EdgeSettings) float64 { return float64(s.Dispatchers) / ((1 - s.Load) * (1 - s.Load)) }
	sort.SliceStable(order, func(a, b int) bool { return cost(settings[order[a]]) > cost(settings[order[b]]) })
	started := parallel(ctx, len(settings), *out.workers, func(j int) {
		i := order[j]
		results[i], errs[i] = meanfield.Edge(settings[i])
	}, prog.update)
	done := make([]bool, len(settings))
	for j, ok := range started {
		done[order[j]] = ok
	}
	prog.finish()

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
			{Name: "saddle_eigenvalue", Digits: 3}, {Name: "maps"},
		},
	}
	addSizes(t, svc, true)
	worst := map[float64]float64{}
	worstK := map[float64]int{}
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
		row := []any{s.Dispatchers, s.Load, nil, nil, nil, lawCell, nil, r.Crossing, nil, nil, nil, nil, r.Maps}
		if r.Found {
			row[2], row[3] = r.Refresh, r.Scaled
			if r.BranchScaled > 0 {
				row[4] = r.BranchScaled
			}
			if law > 0 {
				ratio := r.Scaled / law
				row[6] = ratio
				if dev := math.Abs(ratio - 1); dev >= worst[s.Load] {
					worst[s.Load], worstK[s.Load] = dev, s.Dispatchers
				}
			}
			if !math.IsNaN(r.NodeRadius) {
				row[8] = r.NodeRadius
			}
			if r.Herd.Period > 0 {
				row[9], row[10] = r.Herd.Period, r.Herd.BoardMean
			}
			if !math.IsNaN(r.SaddleEigenvalue) {
				row[11] = r.SaddleEigenvalue
			}
		}
		t.AddRow(row...)
	}
	for _, lam := range loads {
		if _, ok := worst[lam]; ok {
			t.Notes = append(t.Notes, fmt.Sprintf("λ = %g: largest deviation from the law 0.9(k−2): %+.1f%% (k = %d)",
				lam, 100*signedDev(results, settings, done, lam, worstK[lam]), worstK[lam]))
		}
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

func signedDev(results []meanfield.EdgeResult, settings []meanfield.EdgeSettings, done []bool, lam float64, k int) float64 {
	for i, s := range settings {
		if done[i] && s.Load == lam && s.Dispatchers == k {
			return results[i].Scaled/lawScaled(k) - 1
		}
	}
	return math.NaN()
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
			if done[i] && s.Load == lam && results[i].Found {
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
