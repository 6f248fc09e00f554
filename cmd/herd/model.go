package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/sweep"
	"herd/meanfield"
)

func runModel(ctx context.Context, e *env, args []string) error {
	return runModelSweep(ctx, e, args, nil)
}

// modelRun is one model point as a part file keeps it.
type modelRun struct {
	Response   sweep.Float `json:"response"`
	Queue      sweep.Float `json:"queue"`
	Period     int         `json:"period"`
	Converged  bool        `json:"converged"`
	ResponseSE sweep.Float `json:"response_se"`
	Iterations int         `json:"iterations"`
	Err        string      `json:"err,omitempty"` // a point that did not converge
}

// runModelSweep is herd model; with merged set (herd merge) its points are
// taken from a sharded sweep's parts instead of computed.
func runModelSweep(ctx context.Context, e *env, args []string, merged *sweep.Merged) error {
	fs, shard, pts, fmtName, workers, err := parseModel(e, args)
	if err != nil {
		return err
	}
	sw := &sweepCmd{e: e, command: "model", fs: fs, flags: shard, merged: merged}
	for _, p := range pts {
		sw.ids = append(sw.ids, fmt.Sprintf("model policy=%s load=%s refresh=%s servers=%d",
			p.Policy, strconv.FormatFloat(p.Load, 'g', -1, 64), strconv.FormatFloat(p.Refresh, 'g', -1, 64), p.Servers))
	}
	got, done, handled, runErr := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, modelRun)) error {
		mode, _ := fs.GetString("progress")
		costs := make([]float64, len(idx))
		labels := make([]string, len(idx))
		for k, i := range idx {
			costs[k] = compare.ModelCost(pts[i])
			p := pts[i]
			labels[k] = fmt.Sprintf("%s λ=%g T=%g", p.Policy, p.Load, p.Refresh)
		}
		prog := newMapsProgress(e.stderr, isTerminal(e.stderr), mode, "model", labels, costs)
		res, errs, ok := compare.ModelResults(pts, idx, weightedPool(ctx, workers, prog.line, costs), stopOn(ctx), compare.ModelHooks{
			Begin: prog.begin, Mapped: prog.mapped, End: prog.end,
		})
		prog.close()
		for k, i := range idx {
			if !ok[k] {
				continue
			}
			if errs[k] != nil && !errors.Is(errs[k], meanfield.ErrNotConverged) {
				p := pts[i]
				return usagef("--policy %s --load %g --refresh %g: %v", p.Policy, p.Load, p.Refresh, errs[k])
			}
			put(i, newModelRun(res[k], errs[k]))
		}
		return ctx.Err()
	})
	if handled || (runErr != nil && ctx.Err() == nil) {
		return runErr
	}
	t, failed := modelTable(pts, got, done)
	if err := writeTable(ctx, e, t, fmtName, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d point(s) did not converge: %s", len(failed), failed[0])
	}
	return nil
}

// parseModel reads herd model's flags into its points, one per
// (policy, λ, T, N), each checked before any work.
func parseModel(e *env, args []string) (fs *pflag.FlagSet, shard *shardFlags, pts []compare.ModelPoint, format string, workers int, err error) {
	fs = newFlags(e, "model", "model --policy LIST --load LIST --refresh LIST [--servers LIST]   (one row per combination)")
	policy := fs.String("policy", "random,rr,sq2,ll", "random (M/M/1), rr (E_N/M/1; D/M/1 when --servers 0), sqd:D / sq2 (supermarket, or periodic-update SQ(D) sampling with replacement), ll (periodic-update least loaded) (list)")
	load := loadList(fs, "0.9", "in (0, 1)")
	refresh := refreshList(fs, "0", "≥ 0; 0 is a live board; in [0.01, 1e4] for sqd:D (then D ≤ 64) and ll")
	servers := serversList(fs, "0", "for round robin (E_N/M/1); 0 means N → ∞ (D/M/1); other policies ignore it")
	out := addOutputFlags(fs, "points computed")
	prog := addModelProgressFlag(fs)
	shard = addShardFlags(fs, nil)
	if err = parse(fs, args); err != nil {
		return
	}
	if err = checkProgressMode(*prog); err != nil {
		return
	}
	if err = shard.check(fs); err != nil {
		return
	}
	if format, err = out.check(); err != nil {
		return
	}
	workers = *out.workers
	pols, err := parsedList("policy", *policy, compare.ParseModelPolicy)
	if err != nil {
		return
	}
	loads, err := floatList("load", *load, inOpenUnit, "a number in (0, 1)")
	if err != nil {
		return
	}
	ts, err := floatList("refresh", *refresh, nonNegative, "a number ≥ 0 (0 is a live board)")
	if err != nil {
		return
	}
	ns, err := intList("servers", *servers, 0)
	if err != nil {
		return
	}
	pts, err = compare.ModelGrid(pols, loads, ts, ns, func(i int, p compare.ModelPoint) error {
		if err := checkClassic(p.Policy, p.Refresh); err != nil {
			return err
		}
		if i >= maxSweepRuns {
			return usagef("the lists give more than %d points: shorten them", maxSweepRuns)
		}
		return nil
	})
	return
}

// newModelRun keeps what herd model prints of one point.
func newModelRun(r meanfield.ClassicResult, err error) modelRun {
	m := modelRun{Response: sweep.Float(r.ResponseMean), Queue: sweep.Float(r.QueueMean), Period: r.Period,
		Converged: r.Status == meanfield.FixedPoint || r.Status == meanfield.Periodic, ResponseSE: sweep.Float(r.ResponseSE), Iterations: r.Maps}
	if err != nil {
		m.Err = err.Error()
	}
	return m
}

// modelTable is herd model's table and the points that did not converge.
func modelTable(pts []compare.ModelPoint, got []modelRun, done []bool) (*table.Table, []string) {
	t := &table.Table{
		Title: "herd model: classic mean-field models (N → ∞ unless round robin with --servers)",
		Meta:  []table.Field{{Key: "version", Value: version}},
		Columns: []table.Column{
			{Name: "policy"}, {Name: "load", Exact: true}, {Name: "refresh", Exact: true}, {Name: "servers"},
			{Name: "response_mean", Digits: 6}, {Name: "queue_mean", Digits: 6}, {Name: "period"},
			{Name: "converged"}, {Name: "response_se", Digits: 2}, {Name: "iterations"},
		},
	}
	var failed []string
	for i, p := range pts {
		if !done[i] {
			continue
		}
		m := got[i]
		if m.Err != "" {
			failed = append(failed, fmt.Sprintf("%s λ=%g T=%g: %v", p.Policy, p.Load, p.Refresh, m.Err))
			continue
		}
		if !m.Converged {
			t.Warnings = append(t.Warnings, fmt.Sprintf("%s at λ = %g, T = %g: the period map has no fixed point or short cycle (irregular); the row is a long-run average with its standard error", p.Policy, p.Load, p.Refresh))
		}
		t.AddRow(p.Policy.String(), p.Load, p.Refresh, p.Servers, float64(m.Response), float64(m.Queue), m.Period,
			m.Converged, finite(float64(m.ResponseSE)), m.Iterations)
	}
	t.Warnings = append(t.Warnings, failed...)
	return t, failed
}

// stopOn is a Stop for the model's long computations (meanfield's
// Stop settings): true once ctx is cancelled (Ctrl-C).
func stopOn(ctx context.Context) func() bool {
	return func() bool { return ctx.Err() != nil }
}

// workerPool is compare's Pool on the command line's worker pool: at most
// workers calls at once, none started after ctx is cancelled, progress
// after each call.
func workerPool(ctx context.Context, workers int, progress func(done, total int)) compare.Pool {
	return func(n int, work func(i int)) []bool {
		return parallel(ctx, n, workers, work, progress)
	}
}
