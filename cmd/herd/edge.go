package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/progress"
	"herd/compare/sweep"
	"herd/fleet"
	"herd/meanfield"
)

// edgeOutput is where herd edge's answer goes, and how it is computed.
type edgeOutput struct {
	format, plot, progress string
	workers                int
	confirm                bool
	confirmMaps            int                    // the check's maps a run, with confirm
	base                   meanfield.EdgeSettings // the settings every search shares
	ks                     []int
	loads                  []float64
	// expansion marks the (λ, k) of the grid, in EdgeGrid's order,
	// answered by the heavy-traffic expansion instead of the exact search
	// (--method).
	expansion []bool
	// servers is --servers: none for N → ∞, else the finite fleets' N
	// (runEdgeFinite), with each prediction's run length, runs per
	// period, master seed and how the servers run (--refreshes, --runs,
	// --seed, --particles).
	servers []int
	finiteRun
	// modelEdge is --model-edge: the map's edge as given (0: computed).
	modelEdge float64
	// checkpoint is --checkpoint FILE ("": none), checkpointEvery
	// --checkpoint-every, checkpointArgs the command it is for.
	checkpoint      string
	checkpointEvery time.Duration
	checkpointArgs  []string
}

// Edge methods (--method).
const (
	methodAuto      = "auto"
	methodExact     = "exact"
	methodExpansion = "expansion"
)

// autoExactMax is the highest load --method auto answers by the exact
// search; above it, by the heavy-traffic expansion (its maps cost about
// (1−λ)⁻³ each: k = 5 at λ = 0.99 takes minutes on two cores).
const autoExactMax = 0.99

func runEdge(ctx context.Context, e *env, args []string) error {
	settings, o, err := parseEdge(e, args)
	if err != nil {
		return err
	}
	if len(o.servers) > 0 {
		return runEdgeFinite(ctx, e, settings, o)
	}
	if w := exactWarning(settings, o, o.workers); w != "" {
		fmt.Fprintln(e.stderr, "herd edge: "+w)
	}
	exact, anchors := splitEdges(settings, o)
	limits := startMapLimits(settings, o, stopOn(ctx))
	searches := append(exact, anchors...)
	cp, err := openEdgeCheckpoint(e, o, searches)
	if err != nil {
		return err
	}
	confirmMaps := 0
	if o.confirm {
		confirmMaps = o.confirmMaps
	}
	all := computeEdges(ctx, e, "edge", o.progress, searches, o.workers, confirmMaps, cp.ended)
	if err := cp.close(ctx, e); err != nil {
		return err
	}
	pts := all[:len(exact)]
	exps, expErrs := edgeExpansions(ctx, limits, all)
	rows := mergeEdgeRows(settings, o, pts, exps, expErrs)
	t, failures := edgeTable(rows, pts, o)
	err = writeTable(ctx, e, t, o.format, func() error {
		if o.plot == "" {
			return nil
		}
		return plotEdge(o.plot, rows, o.ks, o.loads)
	})
	if err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("%d edge(s) failed: %s", len(failures), failures[0])
	}
	return nil
}

// parseEdge reads herd edge's flags into its edge searches, one per
// (λ, k), each checked before any work.
func parseEdge(e *env, args []string) ([]meanfield.EdgeSettings, edgeOutput, error) {
	var o edgeOutput
	fs := newFlags(e, "edge", "edge [--dispatchers LIST] [--load LIST] [flags]   (plain herd runs this)")
	dispatchers := dispatchersList(fs, "2,3,4,5,6,8,10", "integers in [1, 256]")
	load := loadList(fs, "0.8,0.9,0.95", fmt.Sprintf("in [%g, 1); the exact search (--method) needs T = 0.9(k−2)/(1−λ)² ≤ %g where it starts", modelMinLoad, modelMaxRefresh))
	relTol := addToleranceFlag(fs)
	herdFull := fs.Bool("herd", false, "classify the herd below each edge fully (up to 400 maps; by default at most 40 maps and no more work than the edge search)")
	confirm := fs.Bool("confirm", false, "also check every edge by plain iteration from the low boards at T(1+1e-4) (one must reach the balanced state) and T(1−1e-4) (none may): columns above_reached, below_balanced and below_undecided")
	confirmMaps := fs.Int("confirm-maps", meanfield.DefaultConfirmMaxIter, fmt.Sprintf("with --confirm, the most maps each run of the check makes, in [%d, %d]; a run below the edge still unclassified after them is below_undecided", minConfirmMaps, maxConfirmMaps))
	progMode := addProgressFlag(fs)
	sizes := addSizesFlag(fs, "job sizes of the model")
	branchFrom := addBranchFromFlag(fs)
	out := addOutputFlags(fs, "edges computed")
	plotFile := plotFlag(fs, "edge_scaled against k, one series per load, with the law 0.9(k−2),")
	servers := serversList(fs, "", "integers in [2, 1e9]: instead of the map's edge, the edge at each N servers for herd bracket's start, detector and run length (--refreshes; the particle runs, --particles; go doc herd/meanfield, §8; the map's edge computed once for all N); not given: N → ∞")
	fr := addFiniteRunFlags(fs, "the edge is where a run from the empty board tips within them with probability ½ (as herd bracket --refreshes)",
		6, "per probed period (as herd bracket --runs; more runs narrow the prediction's interval)")
	modelEdge := fs.Float64("model-edge", 0, fmt.Sprintf("with --servers at one --dispatchers and --load: the refresh map's edge T_edge(1−λ)² there, if already known (herd edge's edge_scaled, herd bracket's model_scaled): the search starts from it and model_scaled reports it; 0 computes it (minutes with phase-type --sizes); in [0, %g]", float64(maxModelEdge)))
	cpFlags := addCheckpointFlags(fs)
	method := fs.String("method", methodAuto, fmt.Sprintf("exact (the refresh map's search), expansion (the heavy-traffic expansion x*(k) + c₁(1−λ) + c₂(1−λ)², an approximation with an error estimate, λ > %g) or auto (exact up to λ = %g, the expansion above)", compare.ExpansionLoads[2], autoExactMax))
	if err := parse(fs, args); err != nil {
		return nil, o, err
	}
	fmtName, err := out.check()
	if err != nil {
		return nil, o, err
	}
	if err := checkProgressMode(*progMode); err != nil {
		return nil, o, err
	}
	if fs.Changed("confirm-maps") && !*confirm {
		return nil, o, usagef("--confirm-maps needs --confirm")
	}
	if *confirmMaps < minConfirmMaps || *confirmMaps > maxConfirmMaps {
		return nil, o, usagef("--confirm-maps %d: want an integer in [%d, %d]", *confirmMaps, minConfirmMaps, maxConfirmMaps)
	}
	o = edgeOutput{format: fmtName, plot: *plotFile, progress: *progMode, workers: *out.workers, confirm: *confirm, confirmMaps: *confirmMaps,
		checkpoint: *cpFlags.path, checkpointEvery: *cpFlags.every, checkpointArgs: checkpointArgs(fs)}
	if err := cpFlags.check(fs, false); err != nil {
		return nil, o, err
	}
	if o.servers, err = edgeServers(fs, *servers); err != nil {
		return nil, o, err
	}
	if o.finiteRun, err = fr.check(fs); err != nil {
		return nil, o, err
	}
	if err := o.checkServers(o.servers...); err != nil {
		return nil, o, err
	}
	if o.ks, err = modelDispatchersList(*dispatchers); err != nil {
		return nil, o, err
	}
	if o.loads, err = floatList("load", *load, modelLoad, modelLoadWant); err != nil {
		return nil, o, err
	}
	if fs.Changed("model-edge") {
		switch {
		case len(o.servers) == 0:
			return nil, o, usagef("--model-edge needs --servers (it is the finite fleets' starting point)")
		case len(o.ks) != 1 || len(o.loads) != 1:
			return nil, o, usagef("--model-edge needs one --dispatchers and one --load, not %d and %d", len(o.ks), len(o.loads))
		case !(*modelEdge >= 0) || *modelEdge > maxModelEdge:
			return nil, o, usagef("--model-edge %v: want 0 (compute it) or a number in (0, %g] (T(1−λ)²)", *modelEdge, float64(maxModelEdge))
		}
		o.modelEdge = *modelEdge
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return nil, o, err
	}
	if err := checkTolerance(*relTol); err != nil {
		return nil, o, err
	}
	_, svc, err := modelSizes(*sizes)
	if err != nil {
		return nil, o, err
	}
	if err := checkBranchFrom(*branchFrom); err != nil {
		return nil, o, err
	}
	o.base = meanfield.EdgeSettings{RelTol: *relTol, Service: svc, BranchFrom: *branchFrom}
	if *herdFull {
		o.base.HerdFull, o.base.HerdMaps = true, 400
	}
	settings := compare.EdgeGrid(o.ks, o.loads, o.base)
	if o.expansion, err = edgeMethods(*method, settings); err != nil {
		return nil, o, err
	}
	// Workers left over by the edges run in parallel go inside each
	// search (the output does not depend on either).
	for i := range settings {
		settings[i].Workers = min(max(o.workers/len(settings), 1), 64)
	}
	return settings, o, checkEdgeSettings(settings, o.expansion)
}

// The range of --confirm-maps.
const (
	minConfirmMaps = 100
	maxConfirmMaps = 1_000_000
)

// edgeServers checks --servers: none when not given, else each N in
// [2, 1e9], without the flags only the map's edge search reads.
func edgeServers(fs *pflag.FlagSet, list string) ([]int, error) {
	if !fs.Changed("servers") {
		return nil, nil
	}
	ns, err := ints("servers", list, func(n int) bool { return n >= 2 && n <= 1e9 }, "an integer in [2, 1e9]")
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"plot", "confirm", "confirm-maps", "method", "herd", "tolerance", "branch-from"} {
		if fs.Changed(f) {
			return nil, usagef("--servers does not go with --%s", f)
		}
	}
	return ns, nil
}

// checkEdgeSettings checks each search before any work: an exact one's
// (k, λ) and settings, an expansion's anchors' loads (it makes no map at
// its own load).
func checkEdgeSettings(settings []meanfield.EdgeSettings, expansion []bool) error {
	for i, s := range settings {
		if expansion[i] {
			for _, lam := range compare.ExpansionLoads {
				if err := checkEdge(s.Dispatchers, lam); err != nil {
					return err
				}
			}
			continue
		}
		if err := checkEdge(s.Dispatchers, s.Load); err != nil {
			return err
		}
		if err := s.Validate(); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// edgeCells is one row of the herd edge table, by column; a nil cell is
// missing.
type edgeCells struct {
	dispatchers                                             int
	load                                                    float64
	method                                                  string
	edgeRefresh, edgeScaled, edgeError, branchScaled, law   any
	ratio                                                   any
	crossing                                                any
	nodeRadius, herdKind, herdPeriod, herdBoardMean, saddle any
	maps                                                    any
	gaps                                                    any
	aboveReached, belowBalanced, belowUndecided             any
}

func (c edgeCells) row(confirm bool) []any {
	row := []any{c.dispatchers, c.load, c.method, c.edgeRefresh, c.edgeScaled, c.edgeError, c.branchScaled, c.law,
		c.ratio, c.crossing, c.nodeRadius, c.herdKind, c.herdPeriod, c.herdBoardMean, c.saddle, c.maps, c.gaps}
	if confirm {
		row = append(row, c.aboveReached, c.belowBalanced, c.belowUndecided)
	}
	return row
}

// newEdgeCells is the row of one edge search that finished without error.
func newEdgeCells(p compare.EdgePoint) edgeCells {
	s, r := p.Settings, p.Result
	c := edgeCells{dispatchers: s.Dispatchers, load: s.Load, method: methodExact, crossing: r.Crossing, maps: r.Maps}
	law := fleet.LawScaled(s.Dispatchers)
	if s.Dispatchers >= 2 {
		c.law = law // the law is for k ≥ 2; one dispatcher never tips
	}
	if r.Status == meanfield.Found {
		c.edgeRefresh, c.edgeScaled = r.Refresh, r.Scaled
		if r.BranchScaled > 0 {
			c.branchScaled = r.BranchScaled
		}
		if law > 0 {
			c.ratio = r.Scaled / law
		}
		c.nodeRadius, c.saddle = finite(r.NodeRadius), finite(r.SaddleEigenvalue)
		switch {
		case r.Herd.Period > 0:
			c.herdKind, c.herdPeriod, c.herdBoardMean = r.Herd.Status.String(), r.Herd.Period, r.Herd.BoardMean
		case r.Herd.Status == meanfield.Aperiodic:
			c.herdKind, c.herdBoardMean = r.Herd.Status.String(), r.Herd.BoardMean
		}
		if len(r.Gaps) > 0 {
			c.gaps = formatGaps(r.Gaps)
		}
	}
	if ch := p.Check; ch != nil {
		c.aboveReached = "none"
		if ch.AboveStart >= 0 {
			c.aboveReached = []string{"empty", "one", "three"}[ch.AboveStart]
		}
		c.belowBalanced, c.belowUndecided = ch.BelowBalanced, ch.BelowUndecided
	}
	return c
}

// edgeTable is herd edge's table of rows, and the searches that failed;
// pts are the exact searches (for the law's deviations).
func edgeTable(rows []edgeRow, pts []compare.EdgePoint, o edgeOutput) (*table.Table, []string) {
	t := &table.Table{
		Title: "herd edge: where the balanced state of k dispatchers with own tallies tips (refresh map, N → ∞)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "tolerance", Value: strconv.FormatFloat(o.base.RelTol, 'g', -1, 64)},
			{Key: "protocol", Value: "lowest T at which iteration from empty, all-at-1 and all-at-3 boards reaches a balanced fixed point"},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "method"}, {Name: "edge_refresh", Digits: 6},
			{Name: "edge_scaled", Digits: 5}, {Name: "edge_error", Digits: 2}, {Name: "branch_scaled", Digits: 5}, {Name: "law_scaled", Digits: 3},
			{Name: "ratio", Digits: 4}, {Name: "crossing"}, {Name: "node_radius", Digits: 3},
			{Name: "herd"}, {Name: "herd_period"}, {Name: "herd_board_mean", Digits: 5},
			{Name: "saddle_eigenvalue", Digits: 3}, {Name: "maps"}, {Name: "gaps"},
		},
	}
	if o.confirm {
		t.Columns = append(t.Columns, table.Column{Name: "above_reached"}, table.Column{Name: "below_balanced"}, table.Column{Name: "below_undecided"})
		t.Notes = append(t.Notes, fmt.Sprintf("confirmation by plain iteration: above_reached is the first low board (empty, one = all at 1, three = all at 3) reaching the balanced state at T_edge(1+1e-4); below_balanced how many of the three reach it at T_edge(1−1e-4), below_undecided how many are still unclassified after %d maps (0 and 0 confirm)", o.confirmMaps))
	}
	addSizes(t, o.base.Service, true)
	var failures []string
	for _, r := range rows {
		switch {
		case r.failure != "":
			failures = append(failures, r.failure)
		case r.cells != nil:
			t.AddRow(r.cells.row(o.confirm)...)
		}
		if r.note != "" {
			t.Notes = append(t.Notes, r.note)
		}
	}
	if slices.Contains(o.expansion, true) {
		t.Notes = append(t.Notes, expansionNote)
	}
	for _, d := range compare.LawDeviations(pts, o.loads) {
		t.Notes = append(t.Notes, deviationNote(d))
	}
	t.Warnings = failures
	return t, failures
}

// deviationNote is the footer's account of one load's deviation from the
// law.
func deviationNote(d compare.LawDeviation) string {
	note := fmt.Sprintf("λ = %g: largest deviation from the law 0.9(k−2): ", d.Load)
	switch {
	case len(d.None) > 0 && d.Any:
		return note + fmt.Sprintf("no edge at all for k = %s, where the law predicts one; among edges found %+.1f%% (k = %d)", joinInts(d.None), 100*d.Worst, d.WorstK)
	case len(d.None) > 0:
		return note + fmt.Sprintf("no edge at all for k = %s, where the law predicts one", joinInts(d.None))
	}
	return note + fmt.Sprintf("%+.1f%% (k = %d)", 100*d.Worst, d.WorstK)
}

// formatGaps writes gaps as "lo–hi" ranges of T(1−λ)², joined by "; ".
func formatGaps(gaps []meanfield.EdgeGap) string {
	parts := make([]string, len(gaps))
	for i, g := range gaps {
		parts[i] = strconv.FormatFloat(g.Lo, 'f', 3, 64) + "–" + strconv.FormatFloat(g.Hi, 'f', 3, 64)
	}
	return strings.Join(parts, "; ")
}

func plotEdge(path string, rows []edgeRow, ks []int, loads []float64) error {
	fig := plotting.Figure{
		Title:  "edge of the balanced state (refresh map, N → ∞)",
		XLabel: "dispatchers k",
		YLabel: "T_edge (1−λ)²",
	}
	for _, lam := range loads {
		name := "λ = " + strconv.FormatFloat(lam, 'g', -1, 64)
		exact := plotting.Series{Name: name}
		expansion := plotting.Series{Name: name + " (expansion, an approximation)"}
		for _, r := range rows {
			c := r.cells
			if c == nil || c.load != lam {
				continue
			}
			x, ok := c.edgeScaled.(float64)
			if !ok {
				continue
			}
			if c.method == methodExpansion {
				expansion.X = append(expansion.X, float64(c.dispatchers))
				expansion.Y = append(expansion.Y, x)
				expansion.YErr = append(expansion.YErr, c.edgeError.(float64))
				continue
			}
			exact.X = append(exact.X, float64(c.dispatchers))
			exact.Y = append(exact.Y, x)
		}
		if len(exact.X) > 0 || len(expansion.X) == 0 {
			fig.Series = append(fig.Series, exact)
		}
		if len(expansion.X) > 0 {
			fig.Series = append(fig.Series, expansion)
		}
	}
	fig.Series = append(fig.Series, lawSeries(ks))
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// lawSeries is the law 0.9(k−2) at ks, as edge and law plots draw it.
func lawSeries(ks []int) plotting.Series {
	law := plotting.Series{Name: "law 0.9(k−2)", Line: true}
	for _, k := range ks {
		law.X = append(law.X, float64(k))
		law.Y = append(law.Y, fleet.LawScaled(k))
	}
	return law
}

// computeEdges computes the edges of settings (compare.Edges) on the
// worker pool, with progress on stderr in mode (progress.Auto, …): the one
// schedule of herd edge and herd law. ended, when not nil, is called with
// each search's index as it ends (herd edge's checkpoint).
func computeEdges(ctx context.Context, e *env, name, mode string, settings []meanfield.EdgeSettings, workers, confirmMaps int, ended func(i int)) []compare.EdgePoint {
	labels := make([]string, len(settings))
	weights := make([]float64, len(settings))
	for i, s := range settings {
		labels[i] = fmt.Sprintf("k=%d λ=%g", s.Dispatchers, s.Load)
		if s.Service.Kind != meanfield.ServiceExp {
			labels[i] += " sizes " + s.Service.String() // herd law --sizes runs several
		}
		weights[i] = compare.EdgeCostSized(s)
	}
	// A search in progress ends within a map of Ctrl-C (it is then left
	// out as unfinished), not only the edges not yet started.
	stop := stopOn(ctx)
	settings = slices.Clone(settings)
	for i := range settings {
		settings[i].Stop = stop
	}
	prog := progress.NewItems(e.stderr, isTerminal(e.stderr), progress.Mode(mode), name, "edges", labels, weights)
	// Before the first edge ends, the estimate is the cost model's
	// (machineCostSeconds, spread over the workers), probed only when shown.
	prog.SetPrior(func() float64 { return machineCostSeconds() * 2 / float64(max(workers, 2)) })
	// The maps each search has made and those at its last status: the
	// heartbeat shows the difference, so one run of minutes is seen to
	// move.
	made := make([]atomic.Int64, len(settings))
	atStatus := make([]atomic.Int64, len(settings))
	// Begin and Status of one search come one at a time (from the
	// goroutine running it, or its herd's).
	began := make([]time.Time, len(settings))
	checks := make([]checkRuns, len(settings))
	herds := make([]herdPace, len(settings))
	pts := compare.Edges(settings, confirmMaps, workerPool(ctx, workers, nil), compare.EdgeHooks{
		Begin: func(i int) {
			began[i] = time.Now()
			prog.Begin(i)
			prog.Live(i, func() string {
				notes := []string{mapsSince(made[i].Load() - atStatus[i].Load()), checks[i].String()}
				return strings.Join(slices.DeleteFunc(notes, func(s string) bool { return s == "" }), "; ")
			})
		},
		CheckMapped: func(i, run int, r meanfield.MapReport) {
			now := time.Now()
			checks[i].setAt(run, r, now)
			if d := checks[i].left(now, settings[i].Workers); d > 0 {
				prog.Estimate(i, d)
			}
		},
		Status: func(i int, p meanfield.EdgeProgress) {
			n := made[i].Load()
			atStatus[i].Store(n)
			prog.Status(i, edgeStep(p))
			if d := herds[i].left(p, time.Now()); p.HerdMaps > 0 {
				prog.Estimate(i, d)
				return
			}
			prog.Estimate(i, searchLeft(p.MapsLeft, p.Maps, time.Since(began[i])))
		},
		Mapped: func(i int) { made[i].Add(1) },
		End: func(i int, p compare.EdgePoint) {
			prog.End(i, edgeStatus(p))
			if ended != nil {
				ended(i)
			}
		},
	})
	prog.Close()
	return pts
}

// edgeStep is what an edge search is doing, as the heartbeat shows it:
// its step, its maps so far and its last run, e.g. "confirm, 1234 maps;
// last run T(1−λ)² = 9.5761: balanced".
func edgeStep(p meanfield.EdgeProgress) string {
	s := fmt.Sprintf("%s, %d maps", p.Step, p.Maps)
	if p.HerdMaps > 0 {
		return s + fmt.Sprintf("; the herd's %d maps, at most %d left", p.HerdMaps, p.HerdLeft)
	}
	if !p.Ran {
		return s + "; from T(1−λ)² = " + strconv.FormatFloat(p.Scaled, 'f', 4, 64)
	}
	v := "not balanced"
	if p.Reached {
		v = "balanced"
	}
	return s + "; last run T(1−λ)² = " + strconv.FormatFloat(p.Scaled, 'f', 4, 64) + ": " + v
}

// searchLeft is an edge search's time left: the maps it estimates are
// left (meanfield.EdgeProgress.MapsLeft) at the pace of its maps so far
// (EdgeProgress.Maps, the runs it has used: with several workers the
// runs made ahead and cancelled take time too, so the pace counts only
// the maps that, like MapsLeft's, stay in the search), made in time
// took; 0 without an estimate.
func searchLeft(mapsLeft, maps int, took time.Duration) time.Duration {
	if mapsLeft <= 0 || maps <= 0 {
		return 0
	}
	return time.Duration(float64(took) * float64(mapsLeft) / float64(maps))
}

// herdPace times an edge search's herd classification (the reports with
// meanfield.EdgeProgress.HerdMaps), whose maps cost more than the
// search's and more as the herd's boards grow: it is used by one search's
// reports, which come one at a time.
type herdPace struct {
	at   time.Time // the last report's time, or the step's opening
	maps int       // the maps at that report
}

// left records report p at now and returns the classification's time
// left: HerdLeft maps at the cost of the maps since the last report (0
// for a report that opens a step or is not the herd's).
func (h *herdPace) left(p meanfield.EdgeProgress, now time.Time) time.Duration {
	defer func() { h.at, h.maps = now, p.HerdMaps }()
	if p.HerdMaps <= h.maps || h.at.IsZero() || p.Ran {
		return 0
	}
	per := now.Sub(h.at) / time.Duration(p.HerdMaps-h.maps)
	return time.Duration(p.HerdLeft) * per
}

// checkRuns is where the runs of an edge's check by plain iteration
// stand, as the heartbeat shows them (meanfield.ConfirmSettings.Mapped:
// run 0 the empty board above, 1–3 the low boards below, 4–5 the others
// above), with the time each run began (its first map's end) and took for
// its last map; safe for concurrent use.
type checkRuns struct {
	mu    sync.Mutex
	runs  [6]meanfield.MapReport
	began [6]time.Time
	at    [6]time.Time     // the end of the run's last map
	cost  [6]time.Duration // its last map's time
}

// setAt records run's report r, its map ending at now.
func (c *checkRuns) setAt(run int, r meanfield.MapReport, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[run] = r
	if c.began[run].IsZero() {
		c.began[run] = now
	} else {
		c.cost[run] = now.Sub(c.at[run])
	}
	c.at[run] = now
}

// left estimates the check's time left at now, on workers cores, from its
// runs below the edge, which take nearly all of it (each becomes a herd,
// classified after HerdNeed maps in a row in the herd regime, on boards of
// 10⁴ rows and more): a run in the herd regime still needs
// HerdNeed − HerdRun maps at its last map's cost; a run not yet begun, as
// long as the longest of those is projected to take in all. 0 (no
// estimate) until a run below has entered the herd regime. The runs above
// the edge are left out: how long a balanced run lingers by the node's
// ghost cannot be told in advance, so the estimate falls short by their
// time where they run longest (k = 5, λ = 0.99: 18 s left at 30 s, 14 s
// left at 60 s, done at 74 s, the run above at 489 maps).
func (c *checkRuns) left(now time.Time, workers int) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rems [3]time.Duration
	var longest, most time.Duration
	known := false
	for j, run := range []int{1, 2, 3} {
		r := c.runs[run]
		if r.HerdRun <= 0 || r.HerdNeed <= 0 || c.cost[run] <= 0 {
			continue
		}
		known = true
		rems[j] = time.Duration(max(r.HerdNeed-r.HerdRun, 0)) * c.cost[run]
		longest = max(longest, now.Sub(c.began[run])+rems[j])
		most = max(most, rems[j])
	}
	if !known {
		return 0
	}
	var sum time.Duration
	for j, run := range []int{1, 2, 3} {
		if c.runs[run].Maps == 0 {
			rems[j] = longest
		}
		sum += rems[j]
	}
	return max(most, sum/time.Duration(max(workers, 1)))
}

// String is the note, e.g. "check maps: above [35], below [410, 380 (12
// of 32 in the herd regime), 290]" ("" before the check's first map).
func (c *checkRuns) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	side := func(name string, runs ...int) string {
		var s []string
		for _, i := range runs {
			r := c.runs[i]
			if r.Maps == 0 {
				continue
			}
			n := strconv.Itoa(r.Maps)
			if r.HerdRun > 0 {
				n += fmt.Sprintf(" (%d of %d in the herd regime)", r.HerdRun, r.HerdNeed)
			}
			s = append(s, n)
		}
		if len(s) == 0 {
			return ""
		}
		return name + " [" + strings.Join(s, ", ") + "]"
	}
	parts := slices.DeleteFunc([]string{side("above", 0, 4, 5), side("below", 1, 2, 3)}, func(s string) bool { return s == "" })
	if len(parts) == 0 {
		return ""
	}
	return "check maps: " + strings.Join(parts, ", ")
}

// mapsSince is the heartbeat's note of the maps an edge search made since
// its last status ("" for none).
func mapsSince(n int64) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("%d maps since", n)
}

// edgeStatus is one edge's outcome as progress reports it.
func edgeStatus(p compare.EdgePoint) string {
	scaled := strconv.FormatFloat(p.Result.Scaled, 'f', 4, 64)
	switch {
	case errors.Is(p.Err, meanfield.ErrStopped) || errors.Is(p.Err, context.Canceled):
		return "stopped"
	case p.Err != nil:
		return "failed"
	case p.Check != nil && !p.Check.Confirmed():
		return "edge " + scaled + " NOT confirmed"
	case p.Check != nil:
		return "edge " + scaled + " confirmed"
	case p.Result.Status == meanfield.Found:
		return "edge " + scaled
	}
	return "none"
}

// runEdgeFinite is herd edge --servers LIST: for each (k, λ) the map's
// edge, computed once, and for each N the period at which a run of
// --refreshes periods (1,000) from the empty board tips with probability ½
// at N servers (meanfield.FiniteEdge; package doc, §8), from --runs runs
// per probed period (6) seeded from --seed (1), with the 95% interval of
// its hazard fit, and beside it herd bracket's logistic T_½ of the same
// runs (compare.FiniteTipHalf). Each row's maps count the map's edge
// search and its own particle runs, so a row is what FiniteEdge alone
// gives at its N.
func runEdgeFinite(ctx context.Context, e *env, settings []meanfield.EdgeSettings, o edgeOutput) error {
	ns := make([]string, len(o.servers))
	for i, n := range o.servers {
		ns[i] = strconv.Itoa(n)
	}
	t := &table.Table{
		Title: "herd edge --servers: the edge of the balanced state at N servers (particle runs, herd bracket's start, detector and run length)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "servers", Value: strings.Join(ns, ",")},
			{Key: "refreshes", Value: strconv.Itoa(o.refreshes)},
			{Key: "replications", Value: strconv.Itoa(o.runs)},
			{Key: "seed", Value: strconv.FormatUint(o.seed, 10)},
			{Key: "particles", Value: o.particles.String()},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "servers"}, {Name: "particles"}, {Name: "model_scaled", Digits: 5},
			{Name: "edge_scaled", Digits: 4}, {Name: "edge_lower", Digits: 4}, {Name: "edge_upper", Digits: 4},
			{Name: "edge_refresh", Digits: 5}, {Name: "hazard_fit"}, {Name: "hazard_slope", Digits: 3}, {Name: "points"}, {Name: "maps"},
			{Name: "half_scaled", Digits: 4}, {Name: "half_lower", Digits: 4}, {Name: "half_upper", Digits: 4},
		},
		Notes: []string{
			"edge_scaled: T(1−λ)² at which a run from the empty board tips within " + groupThousands(o.refreshes) + " refreshes with probability ½ (board mean above max(3/(1−λ), 0.1·T) for 5 refreshes), from a constant-hazard fit to the particle runs (particles: servers, the N servers themselves, each keeping its queue and job in service, each dispatcher filling the water on its own Poisson clock; board, the particle map, the next board N independent draws from the map's image at a noisy load); [edge_lower, edge_upper] its 95% interval (the search's own bracket where hazard_fit is false); model_scaled: the map's edge (N → ∞); maps: the map's edge search (made once per dispatchers and load) and the row's particle runs",
			"half_scaled: the same runs' T(1−λ)² of probability ½ by herd bracket's estimator (a logistic fit of the tipped runs against T(1−λ)² over the probes, Firth's penalised likelihood), with its 95% penalised profile-likelihood interval [half_lower, half_upper], to set beside herd bracket's half_scaled: the two fits are different curves (edge_scaled's, a hazard constant over a run and log-linear in T, also reads the tipping times) and need not agree; empty on a row without an edge, where the estimate would lie outside the probes, and at an interval end the probes do not bound (often so with few runs)",
		},
	}
	addSizes(t, o.base.Service, false)
	if o.modelEdge > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("model_scaled = %g is --model-edge as given, not computed", o.modelEdge))
	}
	type cell struct {
		j, n int // the (k, λ) of settings[j], N
	}
	var cells []cell
	var labels, ids []string // the progress's labels, the checkpoint's cells
	for j, s := range settings {
		for _, n := range o.servers {
			cells = append(cells, cell{j, n})
			label := fmt.Sprintf("k=%d λ=%g", s.Dispatchers, s.Load)
			id := label + fmt.Sprintf(" N=%d", n)
			if len(o.servers) > 1 {
				label = id
			}
			labels, ids = append(labels, label), append(ids, id)
		}
	}
	cp, journals, err := openFiniteCheckpoint(e, o, ids)
	if err != nil {
		return err
	}
	models := finiteModelEdges(ctx, e, settings, o)
	var failed []string
	if ctx.Err() != nil {
		t.Partial = true
		cells = nil
	}
	prog := newFiniteProgress(e, o.progress, "edge", "edges", labels)
	defer prog.close()
	for i, c := range cells {
		s, m := settings[c.j], models[c.j]
		if ctx.Err() != nil {
			t.Partial = true
			break
		}
		kind := o.particles.Resolve(s.Service, c.n).String()
		stop := prog.begin(ctx, i, 0)
		var r meanfield.FiniteEdgeResult
		err := m.err // the map has no edge here: no particle run
		if err == nil {
			r, err = meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: s.Service,
				Servers: c.n, Refreshes: o.refreshes, Replications: o.runs, ModelScaled: m.scaled, Seed: o.seed,
				Particles: o.particles, Workers: min(max(o.workers, 1), 64), Stop: stop, Progress: prog.edgeProgress(i),
				Journal: journals[i]})
			r.Maps += m.maps
		}
		if errors.Is(err, meanfield.ErrStopped) {
			prog.end(i, "stopped")
			t.Partial = true
			break
		}
		if err != nil {
			prog.end(i, "failed")
			failed = append(failed, fmt.Sprintf("k=%d λ=%g N=%d: %v", s.Dispatchers, s.Load, c.n, err))
			t.AddRow(s.Dispatchers, s.Load, c.n, kind, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
			continue
		}
		if r.Status != meanfield.Found {
			prog.end(i, "none")
			failed = append(failed, fmt.Sprintf("k=%d λ=%g N=%d: runs still tip at 1.64 times the map's edge, the search's last probe", s.Dispatchers, s.Load, c.n))
		} else {
			prog.end(i, "edge "+strconv.FormatFloat(r.Scaled, 'f', 4, 64))
		}
		h := compare.NoTipHalf("no edge")
		if r.Status == meanfield.Found {
			h = compare.FiniteTipHalf(r.Points)
		}
		slope := finite(r.HazardSlope)
		if !r.HazardFit {
			slope = nil // no fit, no slope (FiniteEdge leaves it 0)
		}
		t.AddRow(s.Dispatchers, s.Load, c.n, kind, r.ModelScaled, finite(r.Scaled), finite(r.Lower), finite(r.Upper),
			finite(r.Refresh), r.HazardFit, slope, len(r.Points), r.Maps, finite(h.Scaled), finite(h.Lower), finite(h.Upper))
		cp.ended(i)
	}
	t.Warnings = failed
	if err := cp.close(ctx, e); err != nil {
		return err
	}
	if err := writeTable(ctx, e, t, o.format, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d edge(s) failed: %s", len(failed), failed[0])
	}
	return ctx.Err()
}

// finiteModel is the map's edge for herd edge --servers at one (k, λ):
// T_edge(1−λ)², the maps its search made, and why there is none (err,
// worded as meanfield.FiniteEdge words it).
type finiteModel struct {
	scaled float64
	maps   int
	err    error
}

// finiteModelEdges gives the map's edge for each of settings' (k, λ),
// --model-edge as given or computed by herd edge's own search (its
// progress, and its stop within a map of Ctrl-C), before any particle run.
func finiteModelEdges(ctx context.Context, e *env, settings []meanfield.EdgeSettings, o edgeOutput) []finiteModel {
	models := make([]finiteModel, len(settings))
	if o.modelEdge > 0 {
		for j := range models {
			models[j].scaled = o.modelEdge
		}
		return models
	}
	searches := make([]meanfield.EdgeSettings, len(settings))
	for j, s := range settings {
		searches[j] = meanfield.EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: s.Service, Workers: s.Workers, HerdMaps: -1}
	}
	for j, p := range computeEdges(ctx, e, "edge --servers: the map's edge", o.progress, searches, o.workers, 0, nil) {
		m := &models[j]
		m.maps = p.Result.Maps
		switch {
		case p.Err != nil:
			m.err = p.Err
		case p.Result.Status != meanfield.Found:
			m.err = fmt.Errorf("meanfield: finite edge: the map has no edge at k = %d, λ = %v", p.Settings.Dispatchers, p.Settings.Load)
		default:
			m.scaled = p.Result.Scaled
		}
	}
	return models
}

// groupThousands writes n ≥ 0 with commas between groups of three digits
// (1000 → "1,000"), as the tables' notes write counts.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// edgeCheckpointFormat names herd edge's checkpoint format. /2: the search's
// maps take the full windows' closed form (meanfield's refreshballot.go),
// which rounds otherwise than the chain that /1's runs and boards came from,
// so a /1 file would resume into a search neither build makes alone.
const edgeCheckpointFormat = "herd-edge-checkpoint/2"

// finiteCheckpointFormat names herd edge --servers' checkpoint format: each
// cell's finished particle runs (meanfield.FiniteJournal).
const finiteCheckpointFormat = "herd-edge-servers-checkpoint/1"

// journal is what edgeCheckpoint keeps of a search: meanfield's
// EdgeJournal or FiniteJournal.
type journal interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// edgeCheckpoint is herd edge's checkpoint (--checkpoint FILE) while its
// searches run: a sweep.Checkpointer whose points are the searches, each
// with its journal (meanfield.EdgeSettings.Journal, or with --servers
// FiniteEdgeSettings.Journal, encoded by its MarshalBinary) as its
// state, offered every --checkpoint-every and taken as each search ends
// and when the run ends or is interrupted. A search given its journal
// back makes no run twice and ends with the uninterrupted search's result,
// so stdout is the bytes of an uninterrupted command. A nil one is none.
type edgeCheckpoint struct {
	*sweep.Checkpointer[struct{}, []byte]
	journals []journal
	// holds says what the journals hold ("12 runs finished"), for the
	// messages on resuming and on interruption.
	holds func() string
	path  string
	every time.Duration
	done  chan struct{}
	wg    sync.WaitGroup
}

// openEdgeCheckpoint opens --checkpoint's file for the searches and gives
// each its journal; nil without --checkpoint. A file made for another
// command is a usage error naming --checkpoint.
func openEdgeCheckpoint(e *env, o edgeOutput, searches []meanfield.EdgeSettings) (*edgeCheckpoint, error) {
	if o.checkpoint == "" {
		return nil, nil
	}
	ids := make([]string, len(searches))
	js := make([]*meanfield.EdgeJournal, len(searches))
	for i, s := range searches {
		ids[i] = fmt.Sprintf("k=%d λ=%g", s.Dispatchers, s.Load)
		js[i] = meanfield.NewEdgeJournal()
		js[i].Every = o.checkpointEvery
		searches[i].Journal = js[i]
	}
	holds := func() string {
		var runs, open, openMaps int
		for _, j := range js {
			n := j.Counts()
			runs += n.Runs + n.Herds
			open += n.Open
			for _, m := range n.OpenMaps {
				openMaps += m
			}
		}
		return fmt.Sprintf("%d runs finished and %d saved part way (%d maps)", runs, open, openMaps)
	}
	return openJournals(e, o, edgeCheckpointFormat, ids, toJournals(js), holds)
}

// openFiniteCheckpoint is openEdgeCheckpoint for herd edge --servers: one
// journal of finished particle runs per cell (ids), returned for the
// cells' FiniteEdgeSettings.Journal; nil without --checkpoint.
func openFiniteCheckpoint(e *env, o edgeOutput, ids []string) (*edgeCheckpoint, []*meanfield.FiniteJournal, error) {
	js := make([]*meanfield.FiniteJournal, len(ids))
	if o.checkpoint == "" {
		return nil, js, nil
	}
	for i := range js {
		js[i] = new(meanfield.FiniteJournal)
	}
	holds := func() string {
		runs := 0
		for _, j := range js {
			runs += j.Len()
		}
		return fmt.Sprintf("%d runs finished", runs)
	}
	c, err := openJournals(e, o, finiteCheckpointFormat, ids, toJournals(js), holds)
	return c, js, err
}

func toJournals[J journal](js []J) []journal {
	out := make([]journal, len(js))
	for i, j := range js {
		out[i] = j
	}
	return out
}

// openJournals opens --checkpoint's file, one point per search (ids),
// loads each search's journal from it, and saves them every
// --checkpoint-every until close.
func openJournals(e *env, o edgeOutput, format string, ids []string, journals []journal, holds func() string) (*edgeCheckpoint, error) {
	want := sweep.Checkpoint[struct{}, []byte]{Format: format, Version: version, Command: "edge", Args: o.checkpointArgs}
	for _, id := range ids {
		want.Points = append(want.Points, sweep.CheckpointPoint[struct{}, []byte]{ID: id})
	}
	f, err := sweep.OpenCheckpoint(sweep.CheckpointSettings[struct{}, []byte]{
		Path: o.checkpoint, Every: o.checkpointEvery, Want: want,
		Warn: func(err error) {
			fmt.Fprintf(e.stderr, "herd edge: --checkpoint %s: not written: %v (the run goes on)\n", o.checkpoint, err)
		},
	})
	if err != nil {
		return nil, usagef("--checkpoint %s: %v", o.checkpoint, err)
	}
	c := &edgeCheckpoint{Checkpointer: f, journals: journals, holds: holds, path: o.checkpoint, every: o.checkpointEvery, done: make(chan struct{})}
	for i, j := range journals {
		if st := f.State(i); st != nil {
			if err := j.UnmarshalBinary(*st); err != nil {
				return nil, usagef("--checkpoint %s: search %s: %v (delete it, or name another file, to start afresh)", o.checkpoint, ids[i], err)
			}
		}
	}
	if f.Resumed() {
		fmt.Fprintf(e.stderr, "herd edge: --checkpoint %s: resuming: %s\n", o.checkpoint, holds())
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tick := time.NewTicker(c.every)
		defer tick.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-tick.C:
				c.save(false)
			}
		}
	}()
	return c, nil
}

// save offers every search's journal to the file (all taken when
// stopping).
func (c *edgeCheckpoint) save(stopping bool) {
	for i := range c.journals {
		c.saveOne(i, stopping)
	}
}

// saveOne offers search i's journal to the file.
func (c *edgeCheckpoint) saveOne(i int, stopping bool) {
	c.Save(i, stopping, func() *[]byte {
		b, err := c.journals[i].MarshalBinary()
		if err != nil {
			return c.State(i) // plain data does not fail to encode; keep the last
		}
		return &b
	})
}

// ended takes search i's journal and writes the file, as the search
// ends (nil: no checkpoint).
func (c *edgeCheckpoint) ended(i int) {
	if c == nil {
		return
	}
	c.saveOne(i, true)
	c.Flush() // a failure is told once by the file's Warn; the run goes on
}

// close takes every journal, writes the file a last time and, when the
// run was interrupted, tells on stderr what it holds to resume from.
func (c *edgeCheckpoint) close(ctx context.Context, e *env) error {
	if c == nil {
		return nil
	}
	close(c.done)
	c.wg.Wait()
	c.save(true)
	if err := c.Flush(); err != nil {
		return fmt.Errorf("--checkpoint %s: %w", c.path, err)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(e.stderr, "herd edge: --checkpoint %s holds %s: the same command with --checkpoint %s resumes\n",
			c.path, c.holds(), c.path)
	}
	return nil
}
