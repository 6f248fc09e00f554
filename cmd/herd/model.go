package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
	"herd/sim"
)

// modelPolicy is a policy of herd model: the mean-field counterpart of a
// simulator rule.
type modelPolicy struct {
	name string // random, rr, sqd, ll
	d    int
}

func parseModelPolicy(s string) (modelPolicy, error) {
	p, err := sim.ParsePolicy(s)
	if err != nil {
		return modelPolicy{}, err
	}
	switch p.Kind {
	case sim.Random:
		return modelPolicy{"random", 1}, nil
	case sim.RoundRobin:
		return modelPolicy{"rr", 1}, nil
	case sim.BestOfD:
		return modelPolicy{"sqd", p.D}, nil
	case sim.LeastLoaded:
		return modelPolicy{"ll", 1}, nil
	}
	return modelPolicy{}, fmt.Errorf("policy %q has no mean-field model here: want random, rr, sqd:D (sq2) or ll", s)
}

func (p modelPolicy) String() string {
	switch p.name {
	case "sqd":
		if p.d == 2 {
			return "sq2"
		}
		return "sqd:" + strconv.Itoa(p.d)
	}
	return p.name
}

func runModel(ctx context.Context, e *env, args []string) error {
	return runModelSweep(ctx, e, args, nil)
}

// modelRun is one model point as a part file keeps it.
type modelRun struct {
	Response   jfloat `json:"response"`
	Queue      jfloat `json:"queue"`
	Period     int    `json:"period"`
	Converged  bool   `json:"converged"`
	ResponseSE jfloat `json:"response_se"`
	Iterations int    `json:"iterations"`
	Err        string `json:"err,omitempty"` // a point that did not converge
}

// runModelSweep is herd model; with merged set (herd merge) its points are
// taken from a sharded sweep's parts instead of computed.
func runModelSweep(ctx context.Context, e *env, args []string, merged *mergedRuns) error {
	fs := newFlags(e, "model", "model --policy LIST --load LIST --refresh LIST [--servers LIST]   (one row per combination)")
	policy := fs.String("policy", "random,rr,sq2,ll", "random (M/M/1), rr (E_N/M/1; D/M/1 when --servers 0), sqd:D / sq2 (supermarket, or periodic-update SQ(D) sampling with replacement), ll (periodic-update least loaded) (list)")
	load := fs.String("load", "0.9", "load λ per server, in (0, 1) (list)")
	refresh := fs.String("refresh", "0", "board refresh period T in mean service times; 0 is a live board; in [0.01, 1e4] for sqd:D (then D ≤ 64) and ll (list)")
	servers := fs.String("servers", "0", "servers N for round robin (E_N/M/1); 0 means N → ∞ (D/M/1); other policies ignore it (list)")
	out := addOutputFlags(fs, "points computed")
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
	pols, err := parsedList("policy", *policy, parseModelPolicy)
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
	ns, err := intList("servers", *servers, 0)
	if err != nil {
		return err
	}
	type row struct {
		p       modelPolicy
		lam, T  float64
		n       int
		res     meanfield.ClassicResult
		err     error
		ignored bool
	}
	var rows []*row
	for _, p := range pols {
		for _, lam := range loads {
			for _, T := range ts {
				if err := checkClassic(p.name, p.d, T); err != nil {
					return err
				}
				for _, n := range ns {
					if len(rows) >= maxSweepRuns {
						return usagef("the lists give more than %d points: shorten them", maxSweepRuns)
					}
					rows = append(rows, &row{p: p, lam: lam, T: T, n: n})
				}
			}
		}
	}
	sw := &sweep{e: e, command: "model", fs: fs, flags: shard, merged: merged}
	for _, r := range rows {
		sw.ids = append(sw.ids, fmt.Sprintf("model policy=%s load=%s refresh=%s servers=%d",
			r.p, strconv.FormatFloat(r.lam, 'g', -1, 64), strconv.FormatFloat(r.T, 'g', -1, 64), r.n))
	}
	got, done, handled, runErr := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, modelRun)) error {
		res := make([]meanfield.ClassicResult, len(idx))
		errs := make([]error, len(idx))
		prog := newProgress(e.stderr, "model", "points")
		ok := parallel(ctx, len(idx), *out.workers, func(k int) {
			r := rows[idx[k]]
			res[k], errs[k] = meanfield.ClassicModel(r.p.name, r.p.d, r.lam, r.T, r.n)
		}, prog.update)
		prog.finish()
		for k, i := range idx {
			if !ok[k] {
				continue
			}
			if errs[k] != nil && !errors.Is(errs[k], meanfield.ErrNotConverged) {
				r := rows[i]
				return usagef("--policy %s --load %g --refresh %g: %v", r.p, r.lam, r.T, errs[k])
			}
			m := modelRun{Response: jfloat(res[k].ResponseMean), Queue: jfloat(res[k].QueueMean), Period: res[k].Period,
				Converged: res[k].Converged, ResponseSE: jfloat(res[k].ResponseSE), Iterations: res[k].Iterations}
			if errs[k] != nil {
				m.Err = errs[k].Error()
			}
			put(i, m)
		}
		return ctx.Err()
	})
	if handled || (runErr != nil && ctx.Err() == nil) {
		return runErr
	}
	for i, r := range rows {
		if done[i] {
			m := got[i]
			r.res = meanfield.ClassicResult{ResponseMean: float64(m.Response), QueueMean: float64(m.Queue), Period: m.Period,
				Converged: m.Converged, ResponseSE: float64(m.ResponseSE), Iterations: m.Iterations}
			if m.Err != "" {
				r.err = errors.New(m.Err)
			}
		}
	}

	t := &table.Table{
		Title: "herd model: classic mean-field models (N → ∞ unless round robin with --servers)",
		Meta:  []table.Field{{Key: "version", Value: version}},
		Columns: []table.Column{
			{Name: "policy"}, {Name: "load"}, {Name: "refresh"}, {Name: "servers"},
			{Name: "response_mean", Digits: 6}, {Name: "queue_mean", Digits: 6}, {Name: "period"},
			{Name: "converged"}, {Name: "response_se", Digits: 2}, {Name: "iterations"},
		},
	}
	var failed []string
	for i, r := range rows {
		if !done[i] {
			continue
		}
		if r.err != nil {
			failed = append(failed, fmt.Sprintf("%s λ=%g T=%g: %v", r.p, r.lam, r.T, r.err))
			continue
		}
		if !r.res.Converged {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s at λ = %g, T = %g: the period map has no fixed point or short cycle (irregular); the row is a long-run average with its standard error", r.p, r.lam, r.T))
		}
		t.AddRow(r.p.String(), r.lam, r.T, r.n, r.res.ResponseMean, r.res.QueueMean, r.res.Period,
			r.res.Converged, finite(r.res.ResponseSE), r.res.Iterations)
	}
	t.Warnings = append(t.Warnings, failed...)
	if err := writeTable(ctx, e, t, fmtName, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d point(s) did not converge: %s", len(failed), failed[0])
	}
	return nil
}

// workerPool is compare's Pool on the command line's worker pool: at most
// workers calls at once, none started after ctx is cancelled, progress
// after each call.
func workerPool(ctx context.Context, workers int, progress func(done, total int)) compare.Pool {
	return func(n int, work func(i int)) []bool {
		return parallel(ctx, n, workers, work, progress)
	}
}
