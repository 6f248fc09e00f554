package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/sweep"
	"herd/meanfield"
)

// bracketFlags are the flags herd bracket and herd scaling share.
type bracketFlags struct {
	servers, grid           *string
	dispatchers             *int
	load, resolution, model *float64
	halfWidth               *float64
	runs, refreshes, cut    *int
	seed                    *uint64
	out, points, plot, from *string
	outFlags                *outputFlags
	fs                      *pflag.FlagSet
	sizes                   *string
	progress                *string
}

func addBracketFlags(fs *pflag.FlagSet) *bracketFlags {
	return &bracketFlags{
		servers:     serversList(fs, "25,100,400,1600", "integers ≥ dispatchers; one bracket each"),
		dispatchers: dispatchersFlag(fs, 5, modelRangeHelp.dispatchers+" (least loaded with own tallies; 1 needs --grid)"),
		load:        loadFlag(fs, 0.9, edgeLoadHelp),
		runs:        runsFlag(fs, 6, "refresh period", 2, false),
		refreshes:   refreshesFlag(fs, 1000, " (a run stops when it tips), integer ≥ 10"),
		cut:         fs.Int("cut", 300, "the shorter run length also reported, in refreshes, at most --refreshes (default: 300, or --refreshes if fewer)"),
		resolution:  fs.Float64("resolution", 0.05, "bisect until no gap inside the bracket exceeds this, in T(1−λ)²"),
		halfWidth:   fs.Float64("half-width", 0, fmt.Sprintf("after the bracket, run points in full until half_scaled's 95%% interval is at most this wide, in T(1−λ)² (at most %d points more; they count for half_scaled alone, the bracket stays the search's); not given: the bracket's points alone", compare.HalfMaxPoints)),
		grid:        fs.String("grid", "", "fixed list of T(1−λ)² to run (no extension or bisection); default: adaptive around the model's edge"),
		model:       fs.Float64("model-edge", 0, "the refresh map's edge T_edge(1−λ)² at these --dispatchers, --load and --sizes, if already known (herd edge's edge_scaled): the adaptive search starts around it and model_scaled reports it; 0 computes it, once for all --servers"),
		seed:        seedFlag(fs),
		out:         fs.String("out", "", "record every finished run in FILE as it finishes; a rerun with the same flags skips what is recorded (resume)"),
		points:      fs.String("points", "", "write the per-T tipping table (CSV) to FILE"),
		plot:        plotFlag(fs, "the brackets against N with the model's edge"),
		outFlags:    addOutputFlags(fs, "runs simulated"),
		fs:          fs,
		sizes:       addSizesFlag(fs, "job sizes of the simulator and the model's edge"),
		progress:    addBracketProgressFlag(fs),
	}
}

// settings validates the flags and returns one BracketSettings per N.
func (f *bracketFlags) settings() ([]compare.BracketSettings, error) {
	ns, err := intList("servers", *f.servers, 1)
	if err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	var grid []float64
	if *f.grid != "" {
		grid, err = floatList("grid", *f.grid, positive, "a number > 0 (T(1−λ)²)")
		if err != nil {
			return nil, err
		}
	}
	if err := checkBracket(ns, *f.dispatchers, *f.load, *f.runs, *f.refreshes, grid, *f.model); err != nil {
		return nil, err
	}
	sizes, _, err := modelSizes(*f.sizes)
	if err != nil {
		return nil, err
	}
	var out []compare.BracketSettings
	for _, n := range ns {
		if n < *f.dispatchers {
			return nil, usagef("--servers %d: want at least --dispatchers = %d", n, *f.dispatchers)
		}
		out = append(out, compare.BracketSettings{
			Servers: n, Dispatchers: *f.dispatchers, Load: *f.load, Runs: *f.runs,
			Refreshes: *f.refreshes, Cut: *f.cut, Resolution: *f.resolution,
			Grid: grid, Fixed: grid != nil, Seed: *f.seed, Workers: *f.outFlags.workers,
			Sizes: sizes, ModelScaled: *f.model, HalfWidth: *f.halfWidth,
		})
	}
	return out, nil
}

// check checks the single-valued flags and the output files' directories;
// the default --cut shrinks to a shorter --refreshes.
func (f *bracketFlags) check() error {
	if !f.fs.Changed("cut") && *f.cut > *f.refreshes {
		*f.cut = *f.refreshes // the default cut, 300, cannot exceed the runs
	}
	if err := checkProgressMode(*f.progress); err != nil {
		return err
	}
	switch {
	case *f.dispatchers < 1:
		return usagef("--dispatchers %d: want an integer ≥ 1", *f.dispatchers)
	case !inOpenUnit(*f.load):
		return usagef("--load %v: want a number in (0, 1)", *f.load)
	case *f.runs < 2:
		return usagef("--runs %d: want an integer ≥ 2", *f.runs)
	case *f.refreshes < 10:
		return usagef("--refreshes %d: want an integer ≥ 10", *f.refreshes)
	case *f.cut < 1 || *f.cut > *f.refreshes:
		return usagef("--cut %d: want an integer in [1, --refreshes = %d]", *f.cut, *f.refreshes)
	case *f.runs > maxSweepRuns:
		return usagef("--runs %d: want an integer in [2, %d]", *f.runs, maxSweepRuns)
	case !(*f.resolution > 0) || math.IsInf(*f.resolution, 0):
		return usagef("--resolution %v: want a number > 0 (in T(1−λ)²)", *f.resolution)
	case f.fs.Changed("half-width") && (!(*f.halfWidth > 0) || math.IsInf(*f.halfWidth, 0)):
		return usagef("--half-width %v: want a number > 0 (in T(1−λ)²)", *f.halfWidth)
	case f.fs.Changed("half-width") && f.fs.Changed("grid"):
		return usagef("--half-width does not go with --grid (a fixed grid adds no points)")
	case !(*f.model >= 0) || *f.model > maxModelEdge:
		return usagef("--model-edge %v: want 0 (compute it) or a number in (0, %g] (T(1−λ)²)", *f.model, float64(maxModelEdge))
	}
	if err := checkPlotPath(*f.plot); err != nil {
		return err
	}
	if *f.points != "" {
		return checkOutputDir("points", *f.points)
	}
	return nil
}

func runBracket(ctx context.Context, e *env, args []string) error {
	return runBracketSweep(ctx, e, args, nil)
}

// bracketRun is one bracket run as a part file keeps it (the rest of its
// compare.RunRecord is its identity).
type bracketRun struct {
	TippedAt int `json:"tipped_at"` // refresh at which it tipped; −1: survived
}

// runBracketSweep is herd bracket. With --grid its runs are a fixed list
// (each N, each grid value, each replication) that the sharding contract
// can split; with merged set (herd merge) they are taken from a sharded
// sweep's parts and the brackets are computed from them.
func runBracketSweep(ctx context.Context, e *env, args []string, merged *sweep.Merged) error {
	fs := newFlags(e, "bracket", "bracket [--servers LIST] [--dispatchers K] [--load L] [flags]")
	f := addBracketFlags(fs)
	fs.Lookup("out").Usage += "; with --shards, the directory of the part files instead"
	shard := addShardFlags(fs, f.out)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := f.outFlags.check()
	if err != nil {
		return err
	}
	if err := shard.check(fs); err != nil {
		return err
	}
	set, err := f.settings()
	if err != nil {
		return err
	}
	var results []compare.BracketResult
	var runErr error
	if fs.Changed("shards") || merged != nil {
		if *f.grid == "" {
			return usagef("--shards needs --grid: the adaptive bracket chooses each T from the runs before it, so its runs cannot be split")
		}
		var handled bool
		results, handled, runErr = bracketSweep(ctx, e, fs, shard, merged, set)
		if handled {
			return runErr
		}
	} else {
		results, runErr = brackets(ctx, e, f, set)
		if len(results) == 0 && runErr != nil && !errors.Is(runErr, errInterrupted) {
			return runErr // nothing to print: a bad --out or a failed first bracket
		}
	}
	t := bracketTable(results)
	f.modelNote(t)
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *f.points != "" {
			if err := writeCSVFile(*f.points, pointsTable(results)); err != nil {
				return fmt.Errorf("--points: %w", err)
			}
		}
		if *f.plot != "" {
			return savePlot(*f.plot, compare.BracketPlot(results, nil))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return runErr
}

// bracketSweep does fixed-grid brackets under the sharding contract. A
// shard simulates its own runs only (compare.RunShard) and records them;
// herd merge brackets with a store holding every run of the parts
// (compare.RunSet), so nothing is simulated and the brackets are exactly
// the unsharded ones.
func bracketSweep(ctx context.Context, e *env, fs *pflag.FlagSet, flags *shardFlags, merged *sweep.Merged, set []compare.BracketSettings) ([]compare.BracketResult, bool, error) {
	recs := compare.FixedGridRuns(set)
	sw := &sweepCmd{e: e, command: "bracket", fs: fs, flags: flags, merged: merged}
	for _, r := range recs {
		sw.ids = append(sw.ids, r.Key())
	}
	mode, _ := fs.GetString("progress")
	got, _, handled, err := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, bracketRun)) error {
		prog := newBracketProgress(e.stderr, isTerminal(e.stderr), mode, set)
		return compare.RunShard(ctx, set, recs, idx, func(i int, r compare.RunRecord) { put(i, bracketRun{TippedAt: r.TippedAt}) }, compare.BracketsHooks{
			Begin: prog.begin,
			End:   prog.end,
		})
	})
	if handled {
		return nil, true, err
	}
	// herd merge: the brackets from the parts' runs.
	st := compare.RunSet{}
	for i, r := range recs {
		r.TippedAt = got[i].TippedAt
		st[r.Key()] = r
	}
	results, err := bracketsFrom(ctx, e, mode, set, st)
	return results, false, err
}

// brackets runs the brackets one N after another (each spreads its runs
// over the workers), recording runs in --out as they finish.
func brackets(ctx context.Context, e *env, f *bracketFlags, set []compare.BracketSettings) ([]compare.BracketResult, error) {
	var st compare.Store // nil without --out, not a nil *RunLog
	if *f.out != "" {
		store, err := openFileStore(*f.out)
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		defer store.Close()
		st = store
	}
	return bracketsFrom(ctx, e, *f.progress, set, st)
}

// bracketsFrom runs the brackets one N after another (compare.Brackets)
// with runs recorded in (and taken from) st, if set, with progress in
// mode (--progress) per N and the model's edge computed as herd edge does.
func bracketsFrom(ctx context.Context, e *env, mode string, set []compare.BracketSettings, st compare.Store) ([]compare.BracketResult, error) {
	prog := newBracketProgress(e.stderr, isTerminal(e.stderr), mode, set)
	results, err := compare.Brackets(ctx, set, st, compare.BracketsHooks{
		ModelEdge: func(s compare.BracketSettings) (float64, error) { return bracketModelEdge(ctx, e, mode, s) },
		Begin:     prog.begin,
		End:       prog.end,
	})
	switch {
	case errors.Is(err, context.Canceled):
		return results, errInterrupted
	case errors.Is(err, compare.ErrNoModelEdge):
		s := set[len(results)]
		return results, usagef("--dispatchers %d --load %g: the refresh map has no edge here, so the adaptive bracket has nowhere to start: give --grid", s.Dispatchers, s.Load)
	}
	return results, err
}

// bracketModelEdge is the model's edge for the brackets of s's k, λ and
// sizes, as compare.Bracket would compute it (the same EdgeSettings but
// for Workers, which do not change it), with herd edge's progress in mode
// (--progress) and its stop within a map of Ctrl-C: NaN where the map
// has no edge, or (with a Grid) where the search does not converge.
func bracketModelEdge(ctx context.Context, e *env, mode string, s compare.BracketSettings) (float64, error) {
	svc, err := compare.ModelService(s.Sizes)
	if err != nil {
		return 0, err
	}
	w := max(1, s.Workers)
	es := meanfield.EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: svc, Workers: w}
	p := computeEdges(ctx, e, "bracket: the model's edge", mode, []meanfield.EdgeSettings{es}, w, 0, nil)[0]
	if ctx.Err() != nil {
		return 0, errInterrupted
	}
	return compare.ModelScaledOf(p.Result, p.Err, s.Grid != nil)
}

// modelNote says so when model_scaled is --model-edge as given.
func (f *bracketFlags) modelNote(t *table.Table) {
	if *f.model > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("model_scaled = %g is --model-edge as given, not computed", *f.model))
	}
}

func bracketTable(results []compare.BracketResult) *table.Table {
	t := &table.Table{
		Title: "herd bracket: the edge of the balanced state at N servers, as T(1−λ)² (least loaded + own tally, balanced start)",
		Meta:  []table.Field{{Key: "version", Value: version}},
		Columns: []table.Column{
			{Name: "servers"}, {Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "runs"}, {Name: "refreshes"},
			{Name: "lower_scaled", Digits: 4}, {Name: "upper_scaled", Digits: 4}, {Name: "model_scaled", Digits: 5},
			{Name: "lower_scaled_300", Digits: 4}, {Name: "upper_scaled_300", Digits: 4},
			{Name: "cut"}, {Name: "points"}, {Name: "resolution"}, {Name: "seed"},
			{Name: "half_scaled", Digits: 4}, {Name: "half_lower", Digits: 4}, {Name: "half_upper", Digits: 4},
		},
		Notes: []string{"half_scaled: T(1−λ)² at which a run tips within the full run length with probability ½ (what herd edge --servers predicts), from a logistic fit of the tipped runs against T(1−λ)² over all the points (Firth's penalised maximum likelihood, finite where the runs separate); [half_lower, half_upper] its 95% profile-likelihood interval (an end the points do not bound is empty); the bracket's ends are single points and move with each point's luck, half_scaled pools them all"},
	}
	for _, r := range results {
		s := r.Settings
		h := r.Half
		t.AddRow(s.Servers, s.Dispatchers, s.Load, s.Runs, s.Refreshes,
			finite(r.Lower), finite(r.Upper), finite(r.ModelScaled), finite(r.LowerCut), finite(r.UpperCut),
			s.Cut, len(r.Points), s.Resolution, int64(s.Seed), finite(h.Scaled), finite(h.Lower), finite(h.Upper))
		if math.IsNaN(r.Lower) || math.IsNaN(r.Upper) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("N = %d: the points do not determine both ends of the bracket (see --points)", s.Servers))
		}
		if h.Why != "" {
			t.Warnings = append(t.Warnings, fmt.Sprintf("N = %d: no half_scaled: %s", s.Servers, h.Why))
		}
	}
	halfWidthNotes(t, results)
	if len(results) > 0 && results[0].Settings.Cut != 300 {
		t.Notes = append(t.Notes, fmt.Sprintf("the *_300 columns use runs cut at %d refreshes", results[0].Settings.Cut))
	}
	return t
}

// halfWidthNotes says, under --half-width, how many points each bracket
// ran in full for T_½, and warns where its interval is still wider.
func halfWidthNotes(t *table.Table, results []compare.BracketResult) {
	if len(results) == 0 || results[0].Settings.HalfWidth <= 0 {
		return
	}
	w := results[0].Settings.HalfWidth
	var ns []string
	for _, r := range results {
		ns = append(ns, fmt.Sprintf("%d at N = %d", r.HalfPoints, r.Settings.Servers))
		if h := r.Half; !(h.Bounded() && h.Upper-h.Lower <= w) {
			t.Warnings = append(t.Warnings, fmt.Sprintf("N = %d: half_scaled's interval [%s, %s] is wider than --half-width %g after %d points run in full (at most %d added)",
				r.Settings.Servers, fstr4(h.Lower), fstr4(h.Upper), w, r.HalfPoints, compare.HalfMaxPoints))
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("--half-width %g: points run in full for half_scaled (at T_½ and where the fit puts the chance of a tip at 0.2 and 0.8; counted in points, not in the bracket): %s",
		w, strings.Join(ns, ", ")))
}

// fstr4 writes x to 4 decimals, "none" where it is NaN (an open end).
func fstr4(x float64) string {
	if math.IsNaN(x) {
		return "none"
	}
	return strconv.FormatFloat(x, 'f', 4, 64)
}

// pointsTable is the per-T tipping table of every bracket (--points).
func pointsTable(results []compare.BracketResult) *table.Table {
	t := &table.Table{}
	for _, name := range []string{"servers", "dispatchers", "load", "scaled", "refresh", "runs", "tipped", "tipped_fraction", "median_tip_refresh", "runs_cut", "tipped_cut", "tipped_fraction_cut", "cut"} {
		t.Columns = append(t.Columns, table.Column{Name: name})
	}
	for _, r := range results {
		s := r.Settings
		for _, p := range r.Points {
			frac, fracCut := p.TippedFraction()
			t.AddRow(s.Servers, s.Dispatchers, s.Load, p.Scaled, p.Refresh, p.Runs, p.Tipped, frac, p.MedianTip, p.RunsCut, p.TippedCut, fracCut, s.Cut)
		}
	}
	return t
}

// openFileStore opens the --out run log (compare.RunLog); a file that is
// not a run log is a usage error.
func openFileStore(path string) (*compare.RunLog, error) {
	s, err := compare.OpenRunLog(path)
	var nl *compare.NotRunLogError
	if errors.As(err, &nl) {
		return nil, usagef("%v", err)
	}
	return s, err
}
