package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/progress"
	"herd/compare/sweep"
	"herd/fleet"
	"herd/sim"
)

func runSim(ctx context.Context, e *env, args []string) error {
	return runSimSweep(ctx, e, args, nil)
}

// simRun is one run's result as a part file keeps it: what Summarize
// reads (sim.Result less its trace, which herd sim never keeps).
type simRun struct {
	ResponseMean sweep.Float `json:"response_mean"`
	Jobs         int64       `json:"jobs"`
	Arrivals     int64       `json:"arrivals"`
	BoardMean    sweep.Float `json:"board_mean"`
	Records      int         `json:"records"`
	ProbesMean   sweep.Float `json:"probes_mean"`
	End          sweep.Float `json:"end"`
	Stopped      bool        `json:"stopped"`
	// Tipped: compare's tipping detector called the run tipped, at the
	// board record of time TipTime (service times).
	Tipped  bool        `json:"tipped"`
	TipTime sweep.Float `json:"tip_time"`
	// Drift: compare's drift test on the board records after the warm-up.
	Drift compare.Drift `json:"drift"`
}

func toSimRun(r sim.Result, w *compare.TipWatch) simRun {
	return simRun{ResponseMean: sweep.Float(r.ResponseMean), Jobs: r.Jobs, Arrivals: r.Arrivals,
		BoardMean: sweep.Float(r.BoardMean), Records: r.Records, ProbesMean: sweep.Float(r.ProbesMean),
		End: sweep.Float(r.End), Stopped: r.Stopped, Tipped: w.Tipped, TipTime: sweep.Float(w.At), Drift: w.Drift()}
}

func (r simRun) run() compare.SimRun {
	return compare.SimRun{Result: sim.Result{ResponseMean: float64(r.ResponseMean), Jobs: r.Jobs, Arrivals: r.Arrivals,
		BoardMean: float64(r.BoardMean), Records: r.Records, ProbesMean: float64(r.ProbesMean),
		End: float64(r.End), Stopped: r.Stopped}, Tipped: r.Tipped, TipTime: float64(r.TipTime), Drift: r.Drift}
}

// simOpts are herd sim's flags.
type simOpts struct {
	servers, dispatchers, load, refresh, policy, tally, sizes, start, horizon, warmup, plot *string
	progress                                                                                *string
	partitioned, withRepl                                                                   *bool
	fdCap, refreshes, runs                                                                  *int
	seed                                                                                    *uint64
	out                                                                                     *outputFlags
	shard                                                                                   *shardFlags
}

func addSimFlags(fs *pflag.FlagSet) *simOpts {
	o := &simOpts{}
	o.servers = serversList(fs, "100", simRangeHelp.servers)
	o.dispatchers = dispatchersList(fs, "1", simRangeHelp.dispatchers)
	o.load = loadList(fs, "0.9", "in (0, 1)")
	o.refresh = refreshList(fs, "0", "≥ 0; 0 is a live board")
	o.policy = fs.String("policy", "random", "dispatch rule: random, rr, ll, sqd:D, sq2, left:D, firstdiff:D, oracle; "+simRangeHelp.probes+" (list)")
	o.tally = fs.String("tally", "none", "board correction between refreshes: none, own, shared, scaled (own sends counted k times) (list; moot for random, rr, oracle and a live board)")
	o.partitioned = partitionedFlag(fs, "")
	o.withRepl = fs.Bool("with-replacement", false, "sqd:D samples its D probes with replacement (as the mean-field literature does)")
	o.fdCap = fs.Int("firstdiff-cap", 0, "most probes one firstdiff job may make (0: the servers it may probe)")
	o.sizes = sizesFlag(fs, "job sizes", "exp, det, h2:C (squared CV C in [1, 1e9], balanced means), erlang:K (K in [1, 1000] phases), pareto:A (shape A > 1) (list)")
	o.start = startFlag(fs, "start", "empty", simStarts, simRangeHelp.start)
	o.horizon = fs.String("horizon", "auto", fmt.Sprintf("simulated time per run, in mean service times (auto: %d, or %d refresh periods when the policy reads a stale board, whichever is longer); at most %.0e arrivals (load × servers × horizon) and %.0e board refreshes (horizon / refresh) per run", sim.MinHorizon, sim.HorizonRefreshes, sim.MaxRunJobs, sim.MaxRecords))
	o.refreshes = refreshesFlag(fs, 0, ": horizon = refreshes × T (overrides --horizon; needs --refresh > 0)")
	o.warmup = fs.String("warmup", "auto", "time discarded before measuring, in mean service times (auto: a quarter of the horizon)")
	o.runs = runsFlag(fs, 8, "row", 1, true)
	o.seed = seedFlag(fs)
	o.out = addOutputFlags(fs, "runs simulated")
	o.progress = addSimProgressFlag(fs)
	o.plot = plotFlag(fs, "response_mean with its 95% interval (t, runs − 1 d.f.) against the list-valued flag")
	o.shard = addShardFlags(fs, nil)
	return o
}

// simLists are herd sim's lists, parsed, and its warm-up.
type simLists struct {
	compare.SimGrid
	horizon  float64 // --horizon; 0: auto (sim.Config.AutoHorizon)
	autoWarm bool
	warm     float64
}

// lists parses the list flags, in the order herd sim has always checked
// them.
func (o *simOpts) lists() (*simLists, error) {
	l := &simLists{}
	var err error
	if l.Servers, err = intList("servers", *o.servers, 1); err != nil {
		return nil, err
	}
	if l.Dispatchers, err = intList("dispatchers", *o.dispatchers, 1); err != nil {
		return nil, err
	}
	if l.Loads, err = floatList("load", *o.load, inOpenUnit, "a number in (0, 1)"); err != nil {
		return nil, err
	}
	if l.Refreshes, err = floatList("refresh", *o.refresh, nonNegative, "a number ≥ 0 (0 is a live board)"); err != nil {
		return nil, err
	}
	if l.Policies, err = parsedList("policy", *o.policy, fleet.ParsePolicy); err != nil {
		return nil, err
	}
	if l.Tallies, err = parsedList("tally", *o.tally, sim.ParseTally); err != nil {
		return nil, err
	}
	if l.Sizes, err = parsedList("sizes", *o.sizes, fleet.ParseSizes); err != nil {
		return nil, err
	}
	if l.Starts, err = parsedList("start", *o.start, simStart("start")); err != nil {
		return nil, err
	}
	return l, o.scalars(l)
}

// scalars checks the single-valued flags and reads --warmup.
func (o *simOpts) scalars(l *simLists) error {
	switch {
	case *o.runs < 1 || *o.runs > maxSweepRuns:
		return usagef("--runs %d: want an integer in [1, %d]", *o.runs, maxSweepRuns)
	case *o.refreshes < 0:
		return usagef("--refreshes %d: want an integer ≥ 0", *o.refreshes)
	case *o.fdCap < 0:
		return usagef("--firstdiff-cap %d: want an integer ≥ 0", *o.fdCap)
	}
	hasKind := func(k fleet.PolicyKind) bool {
		return slices.ContainsFunc(l.Policies, func(p fleet.Policy) bool { return p.Kind == k })
	}
	if err := idleFlag("with-replacement", *o.withRepl && !hasKind(fleet.BestOfD), "no --policy samples (sqd:D, sq2)"); err != nil {
		return err
	}
	if err := idleFlag("firstdiff-cap", *o.fdCap > 0 && !hasKind(fleet.FirstDiff), "no --policy is firstdiff:D"); err != nil {
		return err
	}
	if err := checkPlotPath(*o.plot); err != nil {
		return err
	}
	if *o.plot != "" && len(l.Servers) < 2 && len(l.Dispatchers) < 2 && len(l.Loads) < 2 && len(l.Refreshes) < 2 {
		return usagef("--plot needs a list-valued numeric flag (--refresh, --load, --servers or --dispatchers)")
	}
	if *o.horizon != "auto" {
		h, err := strconv.ParseFloat(*o.horizon, 64)
		if err != nil || !(h > 0) || math.IsInf(h, 0) {
			return usagef("--horizon %s: want auto or a number > 0 (service times)", *o.horizon)
		}
		l.horizon = h
	}
	l.autoWarm = *o.warmup == "auto"
	if !l.autoWarm {
		w, err := strconv.ParseFloat(*o.warmup, 64)
		if err != nil || !(w >= 0) || math.IsInf(w, 0) {
			return usagef("--warmup %s: want auto or a number ≥ 0 (service times)", *o.warmup)
		}
		l.warm = w
	}
	return nil
}

// expand gives one configuration per combination of the lists, each
// checked and normalized.
func (o *simOpts) expand(l *simLists) ([]sim.Config, error) {
	g := l.SimGrid
	g.Policies = slices.Clone(g.Policies)
	for i, p := range g.Policies {
		g.Policies[i].WithReplacement = *o.withRepl && p.Kind == fleet.BestOfD
	}
	cs := g.Configs(sim.Config{Partitioned: *o.partitioned, Horizon: l.horizon, FirstDiffCap: *o.fdCap})
	var horizonFlag map[string]string // the flag behind Config.Horizon
	if *o.refreshes > 0 {
		horizonFlag = map[string]string{"Horizon": "refreshes"}
	}
	rows := make([]sim.Config, 0, len(cs))
	for _, c := range cs {
		c, err := o.complete(c, l)
		if err != nil {
			return nil, err
		}
		if err := c.Validate(); err != nil {
			return nil, simUsage(err, horizonFlag)
		}
		if len(rows)*(*o.runs) >= maxSweepRuns {
			return nil, usagef("--runs %d with %d or more rows: want at most %d runs in all (shorten the lists)", *o.runs, len(rows)+1, maxSweepRuns)
		}
		rows = append(rows, c.Normalized())
	}
	return rows, nil
}

// complete checks one combination and sets its horizon and warm-up.
func (o *simOpts) complete(c sim.Config, l *simLists) (sim.Config, error) {
	T := c.Refresh
	if c.Partitioned && c.Servers < c.Dispatchers {
		return c, usagef("--partitioned needs --servers ≥ --dispatchers, have %d < %d", c.Servers, c.Dispatchers)
	}
	if *o.refreshes > 0 {
		if T == 0 {
			return c, usagef("--refreshes needs --refresh > 0 (a live board has no periods)")
		}
		c.Horizon = float64(*o.refreshes) * T
		if math.IsInf(c.Horizon, 0) {
			return c, usagef("--refreshes %d with --refresh %v: horizon = refreshes × T overflows", *o.refreshes, T)
		}
	}
	if !l.autoWarm {
		if h := c.Normalized().Horizon; l.warm >= h {
			return c, usagef("--warmup %v: want less than the horizon (%v service times)", l.warm, h)
		}
		c.Warmup, c.NoWarmup = l.warm, l.warm == 0
	}
	if c.Start.PerRefresh && T == 0 {
		return c, usagef("--start %s is a multiple of T but --refresh is 0 (a live board)", c.Start)
	}
	return c, nil
}

// simulate does the sweep's runs (--runs per configuration, in order), or
// reads them from a sharded sweep's parts; handled: the command is done.
func (o *simOpts) simulate(ctx context.Context, e *env, fs *pflag.FlagSet, merged *sweep.Merged, cfgs []sim.Config) ([]compare.SimRun, []bool, bool, error) {
	tasks, ids := compare.SimTasks(cfgs, *o.runs, *o.seed)
	sw := &sweepCmd{e: e, command: "sim", fs: fs, flags: o.shard, ids: ids, merged: merged}
	got, done, handled, err := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, simRun)) error {
		sub := make([]sim.Task, len(idx))
		for j, i := range idx {
			sub[j] = tasks[i]
		}
		watch := compare.WatchTips(sub)
		prog := progress.NewLineMode(e.stderr, isTerminal(e.stderr), progress.Mode(*o.progress), "sim", "runs", nil)
		res, ok, err := sim.RunAllNotify(ctx, sub, *o.out.workers, weighRuns(prog, sub))
		prog.Finish()
		for j, i := range idx {
			if ok != nil && ok[j] {
				put(i, toSimRun(res[j], watch[j]))
			}
		}
		return err
	})
	if handled {
		return nil, nil, true, err
	}
	runs := make([]compare.SimRun, len(got))
	for i, r := range got {
		runs[i] = r.run()
	}
	return runs, done, false, err
}

// runSimSweep is herd sim; with merged set (herd merge) its runs are
// taken from a sharded sweep's parts instead of simulated.
func runSimSweep(ctx context.Context, e *env, args []string, merged *sweep.Merged) error {
	fs := newFlags(e, "sim", "sim [flags]   (numeric flags, --policy, --tally, --sizes and --start take comma lists: one row per combination)")
	o := addSimFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := o.shard.check(fs); err != nil {
		return err
	}
	fmtName, err := o.out.check()
	if err != nil {
		return err
	}
	if err := checkProgressMode(*o.progress); err != nil {
		return err
	}
	l, err := o.lists()
	if err != nil {
		return err
	}
	cfgs, err := o.expand(l)
	if err != nil {
		return err
	}
	runs, done, handled, runErr := o.simulate(ctx, e, fs, merged, cfgs)
	if handled {
		return runErr
	}
	t, sums := o.table(cfgs, runs, done)
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *o.plot == "" || len(sums) == 0 {
			return nil
		}
		return plotSim(*o.plot, sums, l)
	})
	if err != nil {
		return err
	}
	return runErr
}

// table renders the rows whose runs all finished, and returns the
// summaries with a mean time (for the plot).
func (o *simOpts) table(cfgs []sim.Config, runs []compare.SimRun, done []bool) (*table.Table, []sim.Summary) {
	t := &table.Table{
		Title: "herd sim: mean time in system (service times) on a stale board",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "seed", Value: strconv.FormatUint(*o.seed, 10)},
			{Key: "runs", Value: strconv.Itoa(*o.runs)},
			{Key: "horizon", Value: horizonMeta(*o.horizon, *o.refreshes)},
			{Key: "warmup", Value: *o.warmup},
			{Key: "with_replacement", Value: strconv.FormatBool(*o.withRepl)},
			{Key: "firstdiff_cap", Value: strconv.Itoa(*o.fdCap)},
		},
		Columns: []table.Column{
			{Name: "servers"}, {Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "refresh", Exact: true},
			{Name: "policy"}, {Name: "tally"}, {Name: "partitioned"}, {Name: "sizes"}, {Name: "start"},
			{Name: "runs"}, {Name: "response_mean", Digits: 5}, {Name: "response_se", Digits: 2},
			{Name: "board_mean", Digits: 5}, {Name: "jobs"},
			{Name: "board_se", Digits: 2}, {Name: "probes_mean", Digits: 4},
			{Name: "horizon"}, {Name: "warmup"}, {Name: "tipped"},
		},
	}
	var sums []sim.Summary
	t.Warnings = compare.SimSweepWarnings(cfgs, *o.runs)
	for _, row := range compare.SimRows(cfgs, runs, done, *o.runs) {
		t.Warnings = append(t.Warnings, row.Warnings...)
		if !row.NoJobs {
			sums = append(sums, row.Summary)
		}
		t.AddRow(simCells(row)...)
	}
	t.Notes = append(t.Notes, "tipped: runs that compare's tipping detector calls tipped (board mean above max(3/(1−λ), 0.1·T) for 5 board records in a row), at any time")
	return t, sums
}

// simCells is one row of herd sim's table. A run that measured no job (or
// took no board record) has no mean: its cells are empty, never 0 ± 0.
func simCells(r compare.SimRow) []any {
	c := r.Config
	var resp, respSE, board, boardSE, probes any = r.Response.Mean, r.Response.SE, r.Board.Mean, r.Board.SE, r.Probes.Mean
	if r.NoJobs {
		resp, respSE = nil, nil
	}
	if r.NoRecords {
		board, boardSE = nil, nil
	}
	if r.Arrivals == 0 {
		probes = nil
	}
	return []any{c.Servers, c.Dispatchers, c.Load, c.Refresh, compare.PolicyName(c.Policy), c.Tally.String(),
		c.Partitioned, c.Sizes.String(), c.Start.String(), r.Runs,
		resp, respSE, board, r.Jobs,
		boardSE, probes, c.Horizon, c.Warmup, r.Tipped}
}

func horizonMeta(h string, refreshes int) string {
	if refreshes > 0 {
		return strconv.Itoa(refreshes) + " refreshes"
	}
	if v, err := strconv.ParseFloat(h, 64); err == nil {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return h
}

// flagOf rewrites a sim validation error in the CLI's words.
func flagOf(err error) string {
	msg := err.Error()
	const prefix = "sim: invalid configuration: "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		msg = msg[len(prefix):]
	}
	return msg
}
