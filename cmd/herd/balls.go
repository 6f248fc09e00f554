package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/progress"
	"herd/fleet"
	"herd/sim"
)

// ballsOpts are herd balls' flags.
type ballsOpts struct {
	bins, balls, policy, fdRule, batch, plot *string
	progress                                 *string
	fdCap, runs                              *int
	seed                                     *uint64
	out                                      *outputFlags
}

func addBallsFlags(fs *pflag.FlagSet) *ballsOpts {
	o := &ballsOpts{}
	o.bins = fs.String("bins", "1024", "number of bins n, "+ballsRangeHelp.bins+" (list)")
	o.balls = fs.String("balls", "n", "number of balls m: an integer ≥ 1, n for m = n, or cn (e.g. 16n) for m = c·n, the heavily loaded setting (list; m ≤ 2147483647)")
	o.policy = fs.String("policy", "uniform,greedy:2,left:2,firstdiff:2", "rule: uniform, greedy:D (D probes with replacement), left:D (Vöcking), firstdiff:D; D ≤ "+strconv.Itoa(sim.MaxProbes)+" (list)")
	o.fdRule = fs.String("firstdiff-rule", "allowance", "how firstdiff:D limits its probes: allowance (D probes per ball earned, mean ≤ D exactly) or cap:C (each ball up to C probes; C a whole number or in terms of d and n: d, 2d, d^2, 4d^2, n) (list; firstdiff rows only)")
	o.batch = fs.String("batch", "1", "probes see the loads as of the last multiple of B balls; 1 is exact (list)")
	o.fdCap = fs.Int("firstdiff-cap", 0, "under the allowance, most probes one firstdiff ball may make (0: the number of bins); the mean is at most D in any case")
	o.runs = runsFlag(fs, 32, "row", 1, false)
	o.seed = seedFlag(fs)
	o.out = addOutputFlags(fs, "runs simulated")
	o.progress = addBallsProgressFlag(fs)
	o.plot = plotFlag(fs, "max_load_mean with its 95% interval (t, runs − 1 d.f.) against n (log axis), one series per policy (needs a --bins list),")
	return o
}

// ballsLists are herd balls' lists, parsed.
type ballsLists struct {
	ns, bs []int
	ms     []ballCount
	pols   []fleet.Policy
	rules  []sim.FirstDiffRule
}

// lists parses and checks the flags, in the order herd balls has always
// checked them.
func (o *ballsOpts) lists() (*ballsLists, error) {
	l := &ballsLists{}
	var err error
	if l.ns, err = intList("bins", *o.bins, 1); err != nil {
		return nil, err
	}
	for _, n := range l.ns {
		if err := checkBalls(n, 0); err != nil {
			return nil, err
		}
	}
	if l.ms, err = parsedList("balls", *o.balls, parseBallCount); err != nil {
		return nil, err
	}
	if l.pols, err = parsedList("policy", *o.policy, fleet.ParseBallsPolicy); err != nil {
		return nil, err
	}
	for _, p := range l.pols {
		if p.D > sim.MaxProbes {
			return nil, usagef("--policy %s: want D ≤ %d (a ball costs D probes)", fleet.BallsPolicyName(p), sim.MaxProbes)
		}
	}
	if l.rules, err = parsedList("firstdiff-rule", *o.fdRule, sim.ParseFirstDiffRule); err != nil {
		return nil, err
	}
	if l.bs, err = intList("batch", *o.batch, 1); err != nil {
		return nil, err
	}
	fd := slices.ContainsFunc(l.pols, func(p fleet.Policy) bool { return p.Kind == fleet.FirstDiff })
	if err := idleFlag("firstdiff-rule", (len(l.rules) > 1 || l.rules[0].PerBall) && !fd, "no --policy is firstdiff:D"); err != nil {
		return nil, err
	}
	if err := idleFlag("firstdiff-cap", *o.fdCap > 0 && !fd, "no --policy is firstdiff:D"); err != nil {
		return nil, err
	}
	switch {
	case *o.runs < 1 || *o.runs > maxSweepRuns:
		return nil, usagef("--runs %d: want an integer in [1, %d]", *o.runs, maxSweepRuns)
	case *o.fdCap < 0:
		return nil, usagef("--firstdiff-cap %d: want an integer ≥ 0 (0: the number of bins)", *o.fdCap)
	}
	if err := checkPlotPath(*o.plot); err != nil {
		return nil, err
	}
	if *o.plot != "" && len(l.ns) < 2 {
		return nil, usagef("--plot needs a --bins list (max load is drawn against n)")
	}
	return l, nil
}

// expand gives one configuration per combination of the lists (one rule
// only for a policy other than FirstDiff: the rule is moot), each checked
// and normalized.
func (o *ballsOpts) expand(l *ballsLists) ([]sim.BallsConfig, error) {
	var rows []sim.BallsConfig
	for _, n := range l.ns {
		for _, bc := range l.ms {
			m, err := bc.count(n)
			if err != nil {
				return nil, err
			}
			for _, p := range l.pols {
				pRules := l.rules
				if p.Kind != fleet.FirstDiff {
					pRules = l.rules[:1] // moot: one row
				}
				for _, r := range pRules {
					for _, b := range l.bs {
						c := sim.BallsConfig{Bins: n, Balls: m, Policy: p, Batch: b, FirstDiffCap: *o.fdCap, FirstDiffRule: r}
						if err := ballsUsage(c); err != nil {
							return nil, err
						}
						rows = append(rows, c.Normalized())
					}
				}
			}
		}
	}
	return rows, nil
}

// ballsUsage is c's validation error as a usage error naming the flag.
func ballsUsage(c sim.BallsConfig) error {
	err := c.Validate()
	switch {
	case err == nil:
		return nil
	case c.Policy.Kind == fleet.FirstDiff && c.FirstDiffRule.PerBall:
		return usagef("--firstdiff-rule %s with --policy %s and --bins %d: %s", c.FirstDiffRule, fleet.BallsPolicyName(c.Policy), c.Bins, flagOf(err))
	}
	return usagef("--policy: %s", flagOf(err))
}

// runBalls is herd balls: balls into bins under uniform, Greedy[d],
// Left[d] and FirstDiff[d] (under its allowance or a per-ball cap), with
// m = n or heavily loaded (m = c·n), and loads that may be B balls stale.
func runBalls(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "balls", "balls [flags]   (--bins, --balls, --policy, --firstdiff-rule and --batch take comma lists: one row per combination)")
	o := addBallsFlags(fs)
	if err := parse(fs, args); err != nil {
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
	prog := progress.NewLineMode(e.stderr, isTerminal(e.stderr), progress.Mode(*o.progress), "balls", "runs", nil)
	prog.Weigh(compare.BallsRunCosts(cfgs, *o.runs))
	sums, _, runErr := compare.BallsRows(ctx, cfgs, *o.runs, *o.seed, *o.out.workers, func(i int, _ sim.BallsResult, done, total int) {
		prog.Notify(i, done, total)
	})
	prog.Finish()
	t := o.table(l, sums)
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *o.plot == "" || len(sums) == 0 {
			return nil
		}
		p := compare.BallsPlot(sums, len(l.ms) > 1 || l.ms[0] != (ballCount{perBin: 1}), len(l.bs) > 1, len(l.rules) > 1)
		logAxes(p, false, true)
		return savePlot(*o.plot, p)
	})
	if err != nil {
		return err
	}
	return runErr
}

// table renders the finished rows.
func (o *ballsOpts) table(l *ballsLists, sums []sim.BallsSummary) *table.Table {
	capMeta := "bins"
	if *o.fdCap > 0 {
		capMeta = strconv.Itoa(*o.fdCap)
	}
	t := &table.Table{
		Title: "herd balls: maximum load of m balls in n bins",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "seed", Value: strconv.FormatUint(*o.seed, 10)},
			{Key: "runs", Value: strconv.Itoa(*o.runs)},
			{Key: "greedy", Value: "D independent uniform probes (with replacement), least loaded, ties uniformly at random"},
			{Key: "left", Value: "D contiguous groups, one uniform probe each, ties to the leftmost group"},
			{Key: "firstdiff", Value: "independent uniform probes (with replacement) until a load differs from the first probe's; the smaller of those two, else the first probe"},
			{Key: "firstdiff_allowance", Value: "D probes per ball earned (mean ≤ D exactly); at most " + capMeta + " probes per ball"},
			{Key: "firstdiff_cap", Value: "cap:C: each ball up to C probes (probe_cap), no allowance"},
		},
		Columns: []table.Column{
			{Name: "bins"}, {Name: "balls"}, {Name: "policy"}, {Name: "rule"}, {Name: "probe_cap"}, {Name: "batch"}, {Name: "runs"},
			{Name: "max_load_mean", Digits: 4}, {Name: "max_load_se", Digits: 2}, {Name: "gap_mean", Digits: 4}, {Name: "gap_se", Digits: 2},
			{Name: "probes_mean", Digits: 4}, {Name: "probes_se", Digits: 2}, {Name: "probes_max"}, {Name: "max_load_dist"},
		},
	}
	for _, s := range sums {
		c := s.Config
		rule, probeCap := ruleCells(c)
		t.AddRow(c.Bins, c.Balls, fleet.BallsPolicyName(c.Policy), rule, probeCap, c.Batch, s.Runs,
			s.MaxLoad.Mean, s.MaxLoad.SE, s.Gap.Mean, s.Gap.SE, s.Probes.Mean, s.Probes.SE, s.ProbesMax, distString(s.Dist))
	}
	if *o.runs < 2 {
		t.Warnings = append(t.Warnings, "one run per row: no standard error (use --runs ≥ 2)")
	}
	if *o.fdCap > 0 && !slices.ContainsFunc(l.rules, func(r sim.FirstDiffRule) bool { return !r.PerBall }) {
		t.Warnings = append(t.Warnings, "--firstdiff-cap applies to the allowance rule only: the cap:C rows ignore it")
	}
	return t
}

// ballCount is one --balls item: m itself, or m = perBin·n.
type ballCount struct{ m, perBin int }

// parseBallCount reads an integer m ≥ 1, n, or cn with c an integer ≥ 1.
func parseBallCount(s string) (ballCount, error) {
	if c, ok := strings.CutSuffix(s, "n"); ok {
		if c == "" {
			return ballCount{perBin: 1}, nil
		}
		v, err := strconv.Atoi(c)
		if err != nil || v < 1 || c[0] == '+' {
			return ballCount{}, fmt.Errorf("%q: want an integer ≥ 1, n, or cn with c an integer ≥ 1 (e.g. 16n)", s)
		}
		return ballCount{perBin: v}, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return ballCount{}, fmt.Errorf("%s: want an integer ≥ 1, n, or cn with c an integer ≥ 1 (e.g. 16n)", s)
	}
	return ballCount{m: v}, nil
}

// count is m for n bins; m must fit the loads (int32).
func (b ballCount) count(n int) (int, error) {
	if b.perBin == 0 {
		if b.m > 1<<31-1 {
			return 0, usagef("--balls %d: want at most 2147483647", b.m)
		}
		return b.m, nil
	}
	if b.perBin > (1<<31-1)/n {
		return 0, usagef("--balls %dn with --bins %d: m = c·n must be at most 2147483647", b.perBin, n)
	}
	return b.perBin * n, nil
}

// ruleCells are the rule and probe_cap cells of a row: FirstDiff's rule
// and the most probes one of its balls may make; "-" and D for Greedy[D]
// and Left[D]; "-" and 0 for uniform.
func ruleCells(c sim.BallsConfig) (string, int) {
	switch c.Policy.Kind {
	case fleet.FirstDiff:
		return c.FirstDiffRule.String(), c.FirstDiffCap
	case fleet.Random:
		return "-", 0
	}
	return "-", c.Policy.D
}

// distString writes the maximum loads seen and their runs: "3:20 4:12".
func distString(d []sim.LoadCount) string {
	parts := make([]string, len(d))
	for i, lc := range d {
		parts[i] = strconv.Itoa(lc.Load) + ":" + strconv.Itoa(lc.Runs)
	}
	return strings.Join(parts, " ")
}
