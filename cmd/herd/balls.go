package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/sim"
)

// runBalls is herd balls: balls into bins under uniform, Greedy[d],
// Left[d] and FirstDiff[d], with loads that may be B balls stale.
func runBalls(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "balls", "balls [flags]   (--bins, --balls, --policy and --batch take comma lists: one row per combination)")
	bins := fs.String("bins", "1024", "number of bins n, integer ≥ 1 (list)")
	balls := fs.String("balls", "n", "number of balls m, integer ≥ 1, or n for m = n (list)")
	policy := fs.String("policy", "uniform,greedy:2,left:2,firstdiff:2", "rule: uniform, greedy:D (D probes with replacement), left:D (Vöcking), firstdiff:D (list)")
	batch := fs.String("batch", "1", "probes see the loads as of the last multiple of B balls; 1 is exact (list)")
	fdCap := fs.Int("firstdiff-cap", 0, "most probes one firstdiff ball may make (0: the number of bins); the mean is at most D in any case")
	runs := fs.Int("runs", 32, "independent runs per row, integer ≥ 1 (standard errors need ≥ 2)")
	seed := fs.Uint64("seed", 1, "master seed; each run's seed is derived from it and the row's parameters")
	out := addOutputFlags(fs, "runs simulated")
	plotFile := fs.String("plot", "", "also draw max_load_mean with its 95% interval (t, runs − 1 d.f.) against n (log axis), one series per policy, into FILE.png or FILE.svg (needs a --bins list)")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := out.check()
	if err != nil {
		return err
	}
	ns, err := intList("bins", *bins, 1)
	if err != nil {
		return err
	}
	for _, n := range ns {
		if n > 1<<31-1 {
			return usagef("--bins %d: want an integer in [1, 2147483647]", n)
		}
	}
	var ms []int // nil: m = n
	if strings.TrimSpace(*balls) != "n" {
		if ms, err = intList("balls", *balls, 1); err != nil {
			return err
		}
	}
	pols, err := parsedList("policy", *policy, sim.ParseBallsPolicy)
	if err != nil {
		return err
	}
	bs, err := intList("batch", *batch, 1)
	if err != nil {
		return err
	}
	switch {
	case *runs < 1:
		return usagef("--runs %d: want an integer ≥ 1", *runs)
	case *fdCap < 0:
		return usagef("--firstdiff-cap %d: want an integer ≥ 0 (0: the number of bins)", *fdCap)
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return err
	}
	if *plotFile != "" && len(ns) < 2 {
		return usagef("--plot needs a --bins list (max load is drawn against n)")
	}

	var rows []sim.BallsConfig
	for _, n := range ns {
		mList := ms
		if mList == nil {
			mList = []int{n}
		}
		for _, m := range mList {
			for _, p := range pols {
				for _, b := range bs {
					c := sim.BallsConfig{Bins: n, Balls: m, Policy: p, Batch: b, FirstDiffCap: *fdCap}
					if err := c.Validate(); err != nil {
						return usagef("--policy: %s", flagOf(err))
					}
					rows = append(rows, c.Normalized())
				}
			}
		}
	}
	var tasks []sim.BallsTask
	for _, c := range rows {
		key := c.Key()
		for i := 0; i < *runs; i++ {
			tasks = append(tasks, sim.BallsTask{Config: c, Seed: sim.Seed(*seed, key, i)})
		}
	}
	prog := newProgress(e.stderr, "balls", "runs")
	results, done, runErr := sim.RunBallsAll(ctx, tasks, *out.workers, prog.update)
	prog.finish()

	capMeta := "bins"
	if *fdCap > 0 {
		capMeta = strconv.Itoa(*fdCap)
	}
	t := &table.Table{
		Title: "herd balls: maximum load of m balls in n bins",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "seed", Value: strconv.FormatUint(*seed, 10)},
			{Key: "runs", Value: strconv.Itoa(*runs)},
			{Key: "greedy", Value: "D independent uniform probes (with replacement), least loaded, ties uniformly at random"},
			{Key: "left", Value: "D contiguous groups, one uniform probe each, ties to the leftmost group"},
			{Key: "firstdiff_cap", Value: "allowance of D probes per ball (mean ≤ D exactly); at most " + capMeta + " probes per ball"},
		},
		Columns: []table.Column{
			{Name: "bins"}, {Name: "balls"}, {Name: "policy"}, {Name: "batch"}, {Name: "runs"},
			{Name: "max_load_mean", Digits: 4}, {Name: "max_load_se", Digits: 2}, {Name: "gap_mean", Digits: 4},
			{Name: "probes_mean", Digits: 4}, {Name: "probes_max"}, {Name: "max_load_dist"},
		},
	}
	var sums []sim.BallsSummary
	for i, c := range rows {
		lo, hi := i**runs, (i+1)**runs
		complete := true
		for _, d := range done[lo:hi] {
			complete = complete && d
		}
		if !complete {
			continue
		}
		s := sim.SummarizeBalls(c, results[lo:hi])
		sums = append(sums, s)
		t.AddRow(c.Bins, c.Balls, sim.BallsPolicyName(c.Policy), c.Batch, s.Runs,
			s.MaxLoad.Mean, s.MaxLoad.SE, s.Gap.Mean, s.Probes.Mean, s.ProbesMax, distString(s.Dist))
	}
	if *runs < 2 {
		t.Warnings = append(t.Warnings, "one run per row: no standard error (use --runs ≥ 2)")
	}
	err = writeTable(ctx, e, t, fmtName, func() error {
		if *plotFile == "" || len(sums) == 0 {
			return nil
		}
		return plotBalls(*plotFile, sums, ms != nil, len(bs) > 1)
	})
	if err != nil {
		return err
	}
	return runErr
}

// distString writes the maximum loads seen and their runs: "3:20 4:12".
func distString(d []sim.LoadCount) string {
	parts := make([]string, len(d))
	for i, lc := range d {
		parts[i] = strconv.Itoa(lc.Load) + ":" + strconv.Itoa(lc.Runs)
	}
	return strings.Join(parts, " ")
}

// plotBalls draws max_load_mean with its 95% interval (t, runs − 1 d.f.) against n on a log axis, one
// series per policy (and per m and B when those vary), in row order.
func plotBalls(path string, sums []sim.BallsSummary, byBalls, byBatch bool) error {
	var order []string
	series := map[string]*plotting.Series{}
	var ys []float64
	for _, s := range sums {
		c := s.Config
		key := sim.BallsPolicyName(c.Policy)
		if byBalls {
			key += ", m=" + strconv.Itoa(c.Balls)
		}
		if byBatch {
			key += ", B=" + strconv.Itoa(c.Batch)
		}
		sr, ok := series[key]
		if !ok {
			sr = &plotting.Series{Name: key}
			series[key] = sr
			order = append(order, key)
		}
		sr.X = append(sr.X, float64(c.Bins))
		sr.Y = append(sr.Y, s.MaxLoad.Mean)
		sr.YErr = append(sr.YErr, ci95(s.MaxLoad.SE, s.MaxLoad.N))
		ys = append(ys, s.MaxLoad.Mean)
	}
	fig := plotting.Figure{
		Title:  "herd balls",
		XLabel: "bins n",
		YLabel: "maximum load, mean with 95% interval (t, runs − 1)",
		LogX:   true,
		LogY:   plotting.SpansDecades(ys),
	}
	for _, k := range order {
		fig.Series = append(fig.Series, *series[k])
	}
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}
