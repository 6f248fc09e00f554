package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
	"herd/sim"
)

// simRow is one flag combination.
type simRow struct {
	cfg  sim.Config
	runs int
}

func runSim(ctx context.Context, e *env, args []string) error {
	return runSimSweep(ctx, e, args, nil)
}

// simRun is one run's result as a part file keeps it: what Summarize
// reads (sim.Result less its trace, which herd sim never keeps).
type simRun struct {
	ResponseMean jfloat `json:"response_mean"`
	Jobs         int64  `json:"jobs"`
	Arrivals     int64  `json:"arrivals"`
	BoardMean    jfloat `json:"board_mean"`
	Records      int    `json:"records"`
	ProbesMean   jfloat `json:"probes_mean"`
	End          jfloat `json:"end"`
	Stopped      bool   `json:"stopped"`
	// Tipped: compare's tipping detector called the run tipped, at the
	// board record of time TipTime (service times).
	Tipped  bool   `json:"tipped"`
	TipTime jfloat `json:"tip_time"`
	// Drift: compare's drift test on the board records after the warm-up.
	Drift compare.Drift `json:"drift"`
}

func toSimRun(r sim.Result, w *tipWatch) simRun {
	return simRun{ResponseMean: jfloat(r.ResponseMean), Jobs: r.Jobs, Arrivals: r.Arrivals,
		BoardMean: jfloat(r.BoardMean), Records: r.Records, ProbesMean: jfloat(r.ProbesMean),
		End: jfloat(r.End), Stopped: r.Stopped, Tipped: w.tipped, TipTime: jfloat(w.at), Drift: w.drift.Test(w.minSpan)}
}

// tipWatch runs compare's tipping detector (model.md §4: the board mean
// above max(3/(1−λ), 0.1·T) for 5 records in a row) over one run, without
// stopping it, and keeps the time at which it tipped.
type tipWatch struct {
	d       *compare.Detector
	tipped  bool
	at      float64
	drift   compare.DriftWatch
	minSpan float64
}

func newTipWatch(c sim.Config) *tipWatch {
	return &tipWatch{d: compare.NewDetector(c.Load, c.Refresh, false), at: math.NaN(),
		drift: compare.DriftWatch{Warmup: c.Warmup}, minSpan: compare.DriftMinSpan(c.Load)}
}

func (w *tipWatch) observe(b sim.BoardStat) bool {
	w.d.Observe(b)
	w.drift.Add(b)
	if tipped, _ := w.d.Tipped(); tipped && !w.tipped {
		w.tipped, w.at = true, b.Time
	}
	return true
}

func (r simRun) result() sim.Result {
	return sim.Result{ResponseMean: float64(r.ResponseMean), Jobs: r.Jobs, Arrivals: r.Arrivals,
		BoardMean: float64(r.BoardMean), Records: r.Records, ProbesMean: float64(r.ProbesMean),
		End: float64(r.End), Stopped: r.Stopped}
}

// runSimSweep is herd sim; with merged set (herd merge) its runs are
// taken from a sharded sweep's parts instead of simulated.
func runSimSweep(ctx context.Context, e *env, args []string, merged *mergedRuns) error {
	fs := newFlags(e, "sim", "sim [flags]   (numeric flags, --policy, --tally, --sizes and --start take comma lists: one row per combination)")
	servers := fs.String("servers", "100", "number of servers N, "+simRangeHelp.servers+" (list)")
	dispatchers := fs.String("dispatchers", "1", "number of dispatchers k, "+simRangeHelp.dispatchers+" (list)")
	load := fs.String("load", "0.9", "load λ: arrivals per server per mean service time, in (0, 1) (list)")
	refresh := fs.String("refresh", "0", "board refresh period T in mean service times; 0 is a live board (list)")
	policy := fs.String("policy", "random", "dispatch rule: random, rr, ll, sqd:D, sq2, left:D, firstdiff:D, oracle; "+simRangeHelp.probes+" (list)")
	tally := fs.String("tally", "none", "board correction between refreshes: none, own, shared, scaled (own sends counted k times) (list; moot for random, rr, oracle and a live board)")
	partitioned := fs.Bool("partitioned", false, "each dispatcher owns a contiguous block of N/k servers")
	withRepl := fs.Bool("with-replacement", false, "sqd:D samples its D probes with replacement (as the mean-field literature does)")
	fdCap := fs.Int("firstdiff-cap", 0, "most probes one firstdiff job may make (0: the servers it may probe)")
	sizes := fs.String("sizes", "exp", "job sizes, mean 1: exp, det, h2:C (squared CV C ≥ 1), pareto:A (shape A > 1) (list)")
	start := fs.String("start", "empty", "start state: empty, balanced:Q, half:B, spread:M, single:B; numbers may be multiples of T, e.g. half:0.1T; "+simRangeHelp.start+" (list)")
	horizon := fs.Float64("horizon", 20000, fmt.Sprintf("simulated time per run, in mean service times; at most %.0e arrivals (load × servers × horizon) and %.0e board refreshes (horizon / refresh) per run", sim.MaxRunJobs, sim.MaxRecords))
	refreshes := fs.Int("refreshes", 0, "board periods per run: horizon = refreshes × T (overrides --horizon; needs --refresh > 0)")
	warmup := fs.String("warmup", "auto", "time discarded before measuring, in mean service times (auto: a quarter of the horizon)")
	runs := fs.Int("runs", 8, "independent replications per row, integer ≥ 1 (standard errors need ≥ 2); at most "+strconv.Itoa(maxSweepRuns)+" runs in all")
	seed := fs.Uint64("seed", 1, "master seed; each run's seed is derived from it and the run's parameters")
	out := addOutputFlags(fs, "runs simulated")
	plotFile := fs.String("plot", "", "also draw response_mean with its 95% interval (t, runs − 1 d.f.) against the list-valued flag into FILE.png, .svg, .pdf or .eps")
	shard := addShardFlags(fs, nil)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := shard.check(fs); err != nil {
		return err
	}

	fmtName, err := out.check()
	if err != nil {
		return err
	}
	ns, err := intList("servers", *servers, 1)
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
	ts, err := floatList("refresh", *refresh, nonNegative, "a number ≥ 0 (0 is a live board)")
	if err != nil {
		return err
	}
	pols, err := parsedList("policy", *policy, sim.ParsePolicy)
	if err != nil {
		return err
	}
	tallies, err := parsedList("tally", *tally, sim.ParseTally)
	if err != nil {
		return err
	}
	szs, err := parsedList("sizes", *sizes, sim.ParseSizes)
	if err != nil {
		return err
	}
	starts, err := parsedList("start", *start, sim.ParseStart)
	if err != nil {
		return err
	}
	switch {
	case *runs < 1 || *runs > maxSweepRuns:
		return usagef("--runs %d: want an integer in [1, %d]", *runs, maxSweepRuns)
	case !(*horizon > 0) || math.IsInf(*horizon, 0):
		return usagef("--horizon %v: want a number > 0 (service times)", *horizon)
	case *refreshes < 0:
		return usagef("--refreshes %d: want an integer ≥ 0", *refreshes)
	case *fdCap < 0:
		return usagef("--firstdiff-cap %d: want an integer ≥ 0", *fdCap)
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return err
	}
	if *plotFile != "" && len(ns) < 2 && len(ks) < 2 && len(loads) < 2 && len(ts) < 2 {
		return usagef("--plot needs a list-valued numeric flag (--refresh, --load, --servers or --dispatchers)")
	}
	autoWarm := *warmup == "auto"
	var warm float64
	if !autoWarm {
		warm, err = strconv.ParseFloat(*warmup, 64)
		if err != nil || !(warm >= 0) || math.IsInf(warm, 0) {
			return usagef("--warmup %s: want auto or a number ≥ 0 (service times)", *warmup)
		}
	}

	var horizonFlag map[string]string // the flag behind Config.Horizon
	if *refreshes > 0 {
		horizonFlag = map[string]string{"Horizon": "refreshes"}
	}
	var rows []simRow
	for _, n := range ns {
		for _, k := range ks {
			if *partitioned && n < k {
				return usagef("--partitioned needs --servers ≥ --dispatchers, have %d < %d", n, k)
			}
			for _, lam := range loads {
				for _, T := range ts {
					for _, pol := range pols {
						pol.WithReplacement = *withRepl && pol.Kind == sim.BestOfD
						for _, ta := range tallies {
							for _, sz := range szs {
								for _, st := range starts {
									c := sim.Config{
										Servers: n, Dispatchers: k, Load: lam, Refresh: T,
										Policy: pol, Tally: ta, Partitioned: *partitioned,
										Sizes: sz, Start: st, Horizon: *horizon,
										FirstDiffCap: *fdCap,
									}
									if *refreshes > 0 {
										if T == 0 {
											return usagef("--refreshes needs --refresh > 0 (a live board has no periods)")
										}
										c.Horizon = float64(*refreshes) * T
										if math.IsInf(c.Horizon, 0) {
											return usagef("--refreshes %d with --refresh %v: horizon = refreshes × T overflows", *refreshes, T)
										}
									}
									if !autoWarm {
										if warm >= c.Horizon {
											return usagef("--warmup %v: want less than the horizon (%v service times)", warm, c.Horizon)
										}
										c.Warmup, c.NoWarmup = warm, warm == 0
									}
									if st.PerRefresh && T == 0 {
										return usagef("--start %s is a multiple of T but --refresh is 0 (a live board)", st)
									}
									if err := c.Validate(); err != nil {
										return simUsage(err, horizonFlag)
									}
									if len(rows)*(*runs) >= maxSweepRuns {
										return usagef("--runs %d with %d or more rows: want at most %d runs in all (shorten the lists)", *runs, len(rows)+1, maxSweepRuns)
									}
									rows = append(rows, simRow{cfg: c.Normalized(), runs: *runs})
								}
							}
						}
					}
				}
			}
		}
	}

	var tasks []sim.Task
	sw := &sweep{e: e, command: "sim", fs: fs, flags: shard, merged: merged}
	for _, r := range rows {
		key := r.cfg.Key()
		for i := 0; i < r.runs; i++ {
			tasks = append(tasks, sim.Task{Config: r.cfg, Seed: sim.Seed(*seed, key, i)})
			sw.ids = append(sw.ids, key+" rep="+strconv.Itoa(i))
		}
	}
	got, done, handled, runErr := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, simRun)) error {
		sub := make([]sim.Task, len(idx))
		watch := make([]*tipWatch, len(idx))
		for j, i := range idx {
			sub[j] = tasks[i]
			watch[j] = newTipWatch(sub[j].Config)
			sub[j].Config.Observe = watch[j].observe
		}
		prog := newProgress(e.stderr, "sim", "runs")
		res, ok, err := sim.RunAll(ctx, sub, *out.workers, prog.update)
		prog.finish()
		for j, i := range idx {
			if ok != nil && ok[j] {
				put(i, toSimRun(res[j], watch[j]))
			}
		}
		return err
	})
	if handled {
		return runErr
	}
	results := make([]sim.Result, len(got))
	for i, r := range got {
		results[i] = r.result()
	}

	t := &table.Table{
		Title: "herd sim: mean time in system (service times) on a stale board",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "seed", Value: strconv.FormatUint(*seed, 10)},
			{Key: "runs", Value: strconv.Itoa(*runs)},
			{Key: "horizon", Value: horizonMeta(*horizon, *refreshes)},
			{Key: "warmup", Value: *warmup},
			{Key: "with_replacement", Value: strconv.FormatBool(*withRepl)},
			{Key: "firstdiff_cap", Value: strconv.Itoa(*fdCap)},
		},
		Columns: []table.Column{
			{Name: "servers"}, {Name: "dispatchers"}, {Name: "load"}, {Name: "refresh"},
			{Name: "policy"}, {Name: "tally"}, {Name: "partitioned"}, {Name: "sizes"}, {Name: "start"},
			{Name: "runs"}, {Name: "response_mean", Digits: 5}, {Name: "response_se", Digits: 2},
			{Name: "board_mean", Digits: 5}, {Name: "jobs"},
			{Name: "board_se", Digits: 2}, {Name: "probes_mean", Digits: 4},
			{Name: "horizon"}, {Name: "warmup"}, {Name: "tipped"},
		},
	}
	var sums []sim.Summary
	var runWarn []string
	ti := 0
	for _, r := range rows {
		res := results[ti : ti+r.runs]
		complete := true
		for _, d := range done[ti : ti+r.runs] {
			complete = complete && d
		}
		runsOf := got[ti : ti+r.runs]
		ti += r.runs
		if !complete {
			continue
		}
		s := sim.Summarize(r.cfg, res)
		tipped := 0
		for _, g := range runsOf {
			if g.Tipped {
				tipped++
			}
		}
		runWarn = append(runWarn, tipWarnings(s.Config, runsOf)...)
		runWarn = append(runWarn, compare.DriftWarning(rowName(s.Config), driftsOf(runsOf), s.Config.Warmup, s.Config.Horizon)...)
		runWarn = append(runWarn, spreadWarning(s.Config, res)...)
		c := s.Config
		// A run that measured no job (or took no board record) has no mean:
		// its cells are empty, never 0 ± 0.
		var resp, respSE, board, boardSE any = s.Response.Mean, s.Response.SE, s.Board.Mean, s.Board.SE
		noJobs, noRecords := false, false
		for _, x := range res {
			noJobs = noJobs || x.Jobs == 0
			noRecords = noRecords || x.Records == 0
		}
		if noJobs {
			resp, respSE = nil, nil
			runWarn = append(runWarn, fmt.Sprintf("%s: a run measured no job (expected λ·N·(horizon − warmup) = %.3g): no mean time; lengthen --horizon",
				c.Key(), c.Load*float64(c.Servers)*(c.Horizon-c.Warmup)))
		} else {
			sums = append(sums, s)
		}
		if noRecords {
			board, boardSE = nil, nil
		}
		var probes any = s.Probes.Mean
		if s.Arrivals == 0 {
			probes = nil
		}
		t.AddRow(c.Servers, c.Dispatchers, c.Load, c.Refresh, policyName(c.Policy), c.Tally.String(),
			c.Partitioned, c.Sizes.String(), c.Start.String(), s.Runs,
			resp, respSE, board, s.Jobs,
			boardSE, probes, c.Horizon, c.Warmup, tipped)
	}
	t.Warnings = append(simWarnings(rows, *runs), runWarn...)
	t.Notes = append(t.Notes, "tipped: runs that compare's tipping detector calls tipped (board mean above max(3/(1−λ), 0.1·T) for 5 board records in a row), at any time")
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *plotFile == "" || len(sums) == 0 {
			return nil
		}
		return plotSim(*plotFile, sums, ns, ks, loads, ts)
	})
	if err != nil {
		return err
	}
	return runErr
}

func policyName(p sim.Policy) string {
	if p.WithReplacement {
		return p.String() + "+repl"
	}
	return p.String()
}

func horizonMeta(h float64, refreshes int) string {
	if refreshes > 0 {
		return strconv.Itoa(refreshes) + " refreshes"
	}
	return strconv.FormatFloat(h, 'g', -1, 64)
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

// simWarnings notes what a reader of the table must know.
func simWarnings(rows []simRow, runs int) []string {
	var w []string
	if runs < 2 {
		w = append(w, "one run per row: no standard error (use --runs ≥ 2)")
	}
	seen := map[string]bool{}
	for _, r := range rows {
		c := r.cfg
		if c.Sizes.Kind != sim.Pareto {
			continue
		}
		key := c.Sizes.String() + "@" + strconv.FormatFloat(c.Load, 'g', -1, 64)
		if seen[key] {
			continue
		}
		seen[key] = true
		m2, err := meanfield.SecondMomentPareto(c.Sizes.Param)
		pk := math.Inf(1)
		if err == nil && !math.IsInf(m2, 0) {
			pk, _ = meanfield.PKResponse(c.Load, m2)
		}
		if math.IsInf(pk, 0) {
			w = append(w, fmt.Sprintf("sizes %s: E[S²] is infinite (A ≤ 2), so the Pollaczek–Khinchine mean time for random dispatching at load %g is infinite; finite runs report far less and do not converge", c.Sizes, c.Load))
		} else {
			w = append(w, fmt.Sprintf("sizes %s: heavy tail; finite runs are biased low (rare giants are under-sampled); the Pollaczek–Khinchine mean time for random dispatching at load %g is %.4g", c.Sizes, c.Load, pk))
		}
		if c.Sizes.Param <= 3 {
			// The M/G/1 waiting time has a finite variance only when
			// E[S³] is finite (Takács), i.e. A > 3 for Pareto sizes.
			w = append(w, fmt.Sprintf("sizes %s: E[S³] is infinite (A ≤ 3), so the time in system has infinite variance: run means converge more slowly than 1/√horizon and response_se understates the spread between seeds", c.Sizes))
		}
	}
	return w
}

// rowName names a row in a warning.
func rowName(c sim.Config) string {
	return fmt.Sprintf("N=%d k=%d λ=%g T=%g %s tally %s sizes %s start %s", c.Servers, c.Dispatchers, c.Load, c.Refresh,
		policyName(c.Policy), c.Tally, c.Sizes, c.Start)
}

func driftsOf(runs []simRun) []compare.Drift {
	ds := make([]compare.Drift, len(runs))
	for i, r := range runs {
		ds[i] = r.Drift
	}
	return ds
}

// tipWarnings warns when runs of a row tipped during measurement (the
// mean then mixes balanced and herded time and depends on the run
// length), or when some runs tipped and others did not.
func tipWarnings(c sim.Config, runs []simRun) []string {
	var during []string
	tipped := 0
	for _, r := range runs {
		if !r.Tipped {
			continue
		}
		tipped++
		if float64(r.TipTime) >= c.Warmup {
			during = append(during, strconv.FormatFloat(float64(r.TipTime), 'g', 4, 64))
		}
	}
	switch {
	case len(during) > 0:
		return []string{fmt.Sprintf("%s: %d of %d runs tipped during measurement (at t = %s; measured from %g to %g): response_mean mixes balanced and herded time and grows with the run length; run longer (--refreshes) or see herd bracket",
			rowName(c), len(during), len(runs), strings.Join(during, ", "), c.Warmup, c.Horizon)}
	case tipped > 0 && tipped < len(runs):
		return []string{fmt.Sprintf("%s: %d of %d runs tipped before measurement, the others did not: the row averages two states", rowName(c), tipped, len(runs))}
	}
	return nil
}

// spreadWarning applies Grubbs' test (two-sided, 1%) to the run means: a
// run mean further from the others than a normal spread allows means that
// the standard error, computed as if the run means were normal, understates
// the uncertainty (a heavy tail, or a run in another state). Grubbs, F. E.,
// "Procedures for detecting outlying observations in samples",
// Technometrics 11(1), 1969.
func spreadWarning(c sim.Config, res []sim.Result) []string {
	n := len(res)
	if n < 3 {
		return nil
	}
	xs := make([]float64, n)
	for i, r := range res {
		xs[i] = r.ResponseMean
	}
	st := sim.NewStat(xs)
	sd := st.SE * math.Sqrt(float64(n))
	if !(sd > 0) {
		return nil
	}
	g, worst := 0.0, 0
	for i, x := range xs {
		if d := math.Abs(x-st.Mean) / sd; d > g {
			g, worst = d, i
		}
	}
	const alpha = 0.01
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(1 - alpha/(2*float64(n)))
	crit := float64(n-1) / math.Sqrt(float64(n)) * math.Sqrt(t*t/(float64(n-2)+t*t))
	if g <= crit {
		return nil
	}
	return []string{fmt.Sprintf("%s: run %d's mean %.4g lies %.2f standard deviations from the mean of the runs, more than a normal spread allows (Grubbs' test at 1%%: %.2f): the spread of run means is not that the s.e. %.2g assumes, and it understates the uncertainty",
		rowName(c), worst, xs[worst], g, crit, st.SE)}
}
