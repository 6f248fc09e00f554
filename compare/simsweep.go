package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// This file is the computing half of herd sim: a sweep's configurations
// (SimGrid) and runs (SimTasks), the tipping watch kept over each run, and
// each row's summary with the warnings a reader of the table must know.
// cmd/herd reads the flags into lists, checks each configuration, runs
// (or reads from shards) the runs and renders the rows.

// SimGrid are the lists of a simulator sweep: one configuration per
// combination of their values.
type SimGrid struct {
	Servers, Dispatchers []int
	Loads, Refreshes     []float64
	Policies             []fleet.Policy
	Tallies              []sim.Tally
	Sizes                []fleet.Sizes
	Starts               []fleet.Start
}

// Configs returns base with each combination of g's values set, in the
// order of nested loops over the lists as SimGrid declares them (servers
// outermost, starts innermost).
func (g SimGrid) Configs(base sim.Config) []sim.Config {
	cs := []sim.Config{base}
	cs = cross(cs, g.Servers, func(c *sim.Config, n int) { c.Servers = n })
	cs = cross(cs, g.Dispatchers, func(c *sim.Config, k int) { c.Dispatchers = k })
	cs = cross(cs, g.Loads, func(c *sim.Config, x float64) { c.Load = x })
	cs = cross(cs, g.Refreshes, func(c *sim.Config, T float64) { c.Refresh = T })
	cs = cross(cs, g.Policies, func(c *sim.Config, p fleet.Policy) { c.Policy = p })
	cs = cross(cs, g.Tallies, func(c *sim.Config, t sim.Tally) { c.Tally = t })
	cs = cross(cs, g.Sizes, func(c *sim.Config, z fleet.Sizes) { c.Sizes = z })
	return cross(cs, g.Starts, func(c *sim.Config, s fleet.Start) { c.Start = s })
}

// cross extends every configuration of cs (outer) by every value of vs
// (inner): nested loops over the lists, flattened, in the same order.
func cross[T any](cs []sim.Config, vs []T, set func(c *sim.Config, v T)) []sim.Config {
	out := make([]sim.Config, 0, len(cs)*len(vs))
	for _, c := range cs {
		for _, v := range vs {
			set(&c, v)
			out = append(out, c)
		}
	}
	return out
}

// SimTasks are a sweep's runs: runs of each configuration, in order, run
// i of c seeded by sim.Seed(master, c.Key(), i), so that no run's seed
// depends on the others or on which machine does it; ids[j] names task j
// ("KEY rep=i"), its identity in a sharded sweep.
func SimTasks(cfgs []sim.Config, runs int, master uint64) (tasks []sim.Task, ids []string) {
	for _, c := range cfgs {
		key := c.Key()
		for i := 0; i < runs; i++ {
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(master, key, i)})
			ids = append(ids, key+" rep="+strconv.Itoa(i))
		}
	}
	return tasks, ids
}

// WatchTips gives each task a TipWatch (NewTipWatch) as its Observe, in
// place, and returns the watches.
func WatchTips(tasks []sim.Task) []*TipWatch {
	w := make([]*TipWatch, len(tasks))
	for j := range tasks {
		w[j] = NewTipWatch(tasks[j].Config)
		tasks[j].Config.Observe = w[j].Observe
	}
	return w
}

// TipWatch runs the tipping detector (tipping.go: the board mean above
// max(3/(1−λ), 0.1·T) for 5 records in a row) over one run, without
// stopping it, and keeps the time at which it tipped. Observe is the
// run's sim.Config.Observe.
type TipWatch struct {
	d       *Detector
	Tipped  bool
	At      float64 // the board record's time (service times); NaN if not tipped
	drift   DriftWatch
	minSpan float64
}

// NewTipWatch returns a watch for a run of c.
func NewTipWatch(c sim.Config) *TipWatch {
	return &TipWatch{d: NewDetector(c.Load, c.Refresh, false), At: math.NaN(),
		drift: DriftWatch{Warmup: c.Warmup}, minSpan: DriftMinSpan(c.Load)}
}

// Observe feeds one board record to the detector; it never stops the run.
func (w *TipWatch) Observe(b sim.BoardStat) bool {
	w.d.Observe(b)
	w.drift.Add(b)
	if tipped, _ := w.d.Tipped(); tipped && !w.Tipped {
		w.Tipped, w.At = true, b.Time
	}
	return true
}

// Drift is the drift test on the run's board records after the warm-up.
func (w *TipWatch) Drift() Drift { return w.drift.Test(w.minSpan) }

// SimRun is one run of a sweep row: its result, its tipping watch's
// verdict and its drift test.
type SimRun struct {
	sim.Result
	Tipped  bool
	TipTime float64
	Drift   Drift
}

// SimRow is one row of a simulator sweep: the summary of its runs, how
// many tipped, whether a run measured no job (no mean time) or took no
// board record (no board mean), and the row's warnings.
type SimRow struct {
	sim.Summary
	Tipped            int
	NoJobs, NoRecords bool
	Warnings          []string
}

// SummarizeSimRow combines the runs of one row of c.
func SummarizeSimRow(c sim.Config, runs []SimRun) SimRow {
	res := make([]sim.Result, len(runs))
	for i, r := range runs {
		res[i] = r.Result
	}
	row := SimRow{Summary: sim.Summarize(c, res)}
	for _, r := range runs {
		if r.Tipped {
			row.Tipped++
		}
		row.NoJobs = row.NoJobs || r.Jobs == 0
		row.NoRecords = row.NoRecords || r.Records == 0
	}
	sc := row.Config
	drifts := make([]Drift, len(runs))
	for i, r := range runs {
		drifts[i] = r.Drift
	}
	row.Warnings = append(tipWarnings(sc, runs), DriftWarning(rowName(sc), drifts, sc.Warmup, sc.Horizon)...)
	row.Warnings = append(row.Warnings, SpreadWarning(sc, res)...)
	if row.NoJobs {
		row.Warnings = append(row.Warnings, fmt.Sprintf("%s: a run measured no job (expected λ·N·(horizon − warmup) = %.3g): no mean time; lengthen --horizon",
			sc.Key(), sc.Load*float64(sc.Servers)*(sc.Horizon-sc.Warmup)))
	}
	return row
}

// SimRows summarizes the rows of a sweep (SummarizeSimRow) whose runs all
// finished: runs[i*per:(i+1)*per] are cfgs[i]'s, done says which runs
// finished, and a row with one that did not is left out.
func SimRows(cfgs []sim.Config, runs []SimRun, done []bool, per int) []SimRow {
	var rows []SimRow
	for i, c := range cfgs {
		if slices.Contains(done[i*per:(i+1)*per], false) {
			continue
		}
		rows = append(rows, SummarizeSimRow(c, runs[i*per:(i+1)*per]))
	}
	return rows
}

// PolicyName is a policy as herd's tables write it: sqd:D sampled with
// replacement is "sqd:D+repl".
func PolicyName(p fleet.Policy) string {
	if p.WithReplacement {
		return p.String() + "+repl"
	}
	return p.String()
}

// SimSweepWarnings notes what a reader of a sweep's table must know
// before its rows: one run per row, sizes whose rare jobs carry enough of
// the work that a run samples its load by luck (unseenWarning, once per
// sizes, load and run length), and Pareto sizes' infinite moments (once
// per size and load).
func SimSweepWarnings(cfgs []sim.Config, runs int) []string {
	var w []string
	if runs < 2 {
		w = append(w, "one run per row: no standard error (use --runs ≥ 2)")
	}
	seen := map[string]bool{}
	for _, c := range cfgs {
		c = c.Normalized()
		jobs := c.Load * float64(c.Servers) * c.Horizon
		key := c.Sizes.String() + "@" + strconv.FormatFloat(c.Load, 'g', -1, 64) + "@" + strconv.FormatFloat(jobs, 'g', -1, 64)
		if !seen[key] {
			seen[key] = true
			if u, ok := unseenWarning(c, jobs); ok {
				w = append(w, u)
			}
		}
		if c.Sizes.Kind != fleet.Pareto {
			continue
		}
		key = c.Sizes.String() + "@" + strconv.FormatFloat(c.Load, 'g', -1, 64)
		if seen[key] {
			continue
		}
		seen[key] = true
		w = append(w, paretoWarnings(c)...)
	}
	return w
}

// unseenSlack is the share of the slack 1 − λ that the work of jobs rarer
// than one per run may reach before a table warns (unseenWarning).
const unseenSlack = 0.1

// unseenWarning warns when the jobs rarer than one per run (a run draws
// about jobs = λ·N·horizon) carry work u = sim.UnseenWork(sizes, jobs) whose
// load λ·u exceeds unseenSlack of the slack 1 − λ: a run then samples a
// part of its load that moves the response by luck, its measured load and
// response come out low when it misses those jobs, and runs that all miss
// them agree (the standard error does not show it).
func unseenWarning(c sim.Config, jobs float64) (string, bool) {
	u := sim.UnseenWork(c.Sizes, jobs)
	if !(c.Load*u > unseenSlack*(1-c.Load)) {
		return "", false
	}
	msg := fmt.Sprintf("sizes %s at load %g: jobs rarer than one per run (a run draws about λ·N·horizon = %.3g jobs) carry %.3g%% of the work, a load λ·u = %.3g against the slack 1 − λ = %.3g: a run samples that load by luck, so its response comes out low when it misses them and the runs' standard error does not show it (more servers or a longer --horizon shrink it)",
		c.Sizes, c.Load, jobs, 100*u, c.Load*u, 1-c.Load)
	if c.Sizes.Kind == fleet.Pareto {
		if m2, err := meanfield.SecondMomentPareto(c.Sizes.Param); err == nil && !math.IsInf(m2, 0) {
			if pk, err := meanfield.PKResponse(c.Load, m2); err == nil {
				msg += fmt.Sprintf("; the Pollaczek–Khinchine mean time for random dispatching at load %g is %.4g", c.Load, pk)
			}
		}
	}
	return msg, true
}

// paretoWarnings are the warnings of Pareto sizes' infinite moments at c's
// load.
func paretoWarnings(c sim.Config) []string {
	var w []string
	if m2, err := meanfield.SecondMomentPareto(c.Sizes.Param); err != nil || math.IsInf(m2, 0) {
		w = append(w, fmt.Sprintf("sizes %s: E[S²] is infinite (A ≤ 2), so the Pollaczek–Khinchine mean time for random dispatching at load %g is infinite; finite runs report far less and do not converge", c.Sizes, c.Load))
	}
	if c.Sizes.Param <= 3 {
		// The M/G/1 waiting time has a finite variance only when
		// E[S³] is finite (Takács), i.e. A > 3 for Pareto sizes.
		w = append(w, fmt.Sprintf("sizes %s: E[S³] is infinite (A ≤ 3), so the time in system has infinite variance: run means converge more slowly than 1/√horizon and response_se understates the spread between seeds", c.Sizes))
	}
	return w
}

// rowName names a row in a warning.
func rowName(c sim.Config) string {
	return fmt.Sprintf("N=%d k=%d λ=%g T=%g %s tally %s sizes %s start %s", c.Servers, c.Dispatchers, c.Load, c.Refresh,
		PolicyName(c.Policy), c.Tally, c.Sizes, c.Start)
}

// tipWarnings warns when runs of a row tipped during measurement (the
// mean then mixes balanced and herded time and depends on the run
// length), or when some runs tipped and others did not; where the
// detector is blind (DetectorBlind), it says so instead.
func tipWarnings(c sim.Config, runs []SimRun) []string {
	if L, blind := DetectorBlind(c.Load, c.Refresh, c.Sizes); blind {
		held := "an infinite mean queue (E[S²] = ∞)"
		if !math.IsInf(L, 0) {
			held = fmt.Sprintf("%.3g jobs per server (Pollaczek–Khinchine)", L)
		}
		tipped := 0
		for _, r := range runs {
			if r.Tipped {
				tipped++
			}
		}
		return []string{fmt.Sprintf("%s: the tipping detector has lost its margin here: random dispatching, the worst working rule, holds %s with sizes %s at load %g, at least a third of its threshold max(3/(1−λ), 0.1·T) = %.3g, so a run it calls tipped (%d of %d) may be working normally; compare board_mean with the model's (herd point)",
			rowName(c), held, c.Sizes, c.Load, TipThreshold(c.Load, c.Refresh), tipped, len(runs))}
	}
	var during []string
	tipped := 0
	for _, r := range runs {
		if !r.Tipped {
			continue
		}
		tipped++
		if r.TipTime >= c.Warmup {
			during = append(during, strconv.FormatFloat(r.TipTime, 'g', 4, 64))
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

// SpreadWarning applies Grubbs' test (two-sided, 1%) to the run means: a
// run mean further from the others than a normal spread allows means that
// the standard error, computed as if the run means were normal, understates
// the uncertainty (a heavy tail, or a run in another state). Grubbs, F. E.,
// "Procedures for detecting outlying observations in samples",
// Technometrics 11(1), 1969.
func SpreadWarning(c sim.Config, res []sim.Result) []string {
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
