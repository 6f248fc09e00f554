package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/sweep"
	"herd/meanfield"
)

func runPoint(ctx context.Context, e *env, args []string) error {
	return runPointSweep(ctx, e, args, nil)
}

// pointRun is one point's attractor as a part file keeps it: the fields
// herd point prints.
type pointRun struct {
	Kind           meanfield.Status `json:"kind"`
	Period         int              `json:"period"`
	BoardMean      sweep.Float      `json:"board_mean"`
	QueueMean      sweep.Float      `json:"queue_mean"`
	Response       sweep.Float      `json:"response"`
	SpectralRadius sweep.Float      `json:"spectral_radius"`
	CutPhase       sweep.Float      `json:"cut_phase"`
	Iterations     int              `json:"iterations"`
	Truncation     sweep.Float      `json:"truncation"`
	Balanced       bool             `json:"balanced"`
	Residual       sweep.Float      `json:"residual"`
	// For an aperiodic herd: the batch-means standard errors of the orbit
	// averages, the maps averaged, and the drift of the board mean per map.
	BoardMeanSE sweep.Float `json:"board_mean_se"`
	ResponseSE  sweep.Float `json:"response_se"`
	Averaged    int         `json:"averaged"`
	Drift       sweep.Float `json:"drift"`
}

// toPointRun keeps what herd point prints of a. For an attractor that is
// not established, every column describes the last map: board_mean is the
// mean of the board it produced (a.Board, the board whose distance from
// the one before is the residual), not of its input.
func toPointRun(a meanfield.HerdAttractor) pointRun {
	bm := a.BoardMean
	if a.Status == meanfield.Unconverged {
		bm = 0
		for b, x := range a.Board {
			bm += float64(b) * x
		}
	}
	return pointRun{Kind: a.Status, Period: a.Period, BoardMean: sweep.Float(bm), QueueMean: sweep.Float(a.QueueMean),
		Response: sweep.Float(a.Response), SpectralRadius: sweep.Float(a.SpectralRadius), CutPhase: sweep.Float(a.CutPhase),
		Iterations: a.Maps, Truncation: sweep.Float(a.Truncation), Balanced: a.Balanced, Residual: sweep.Float(a.Residual),
		BoardMeanSE: sweep.Float(a.BoardMeanSE), ResponseSE: sweep.Float(a.ResponseSE), Averaged: a.Averaged, Drift: sweep.Float(a.Drift)}
}

func (r pointRun) attractor() meanfield.HerdAttractor {
	return meanfield.HerdAttractor{Attractor: meanfield.Attractor{Status: r.Kind, Period: r.Period, BoardMean: float64(r.BoardMean), QueueMean: float64(r.QueueMean),
		Response: float64(r.Response), SpectralRadius: float64(r.SpectralRadius), CutPhase: float64(r.CutPhase),
		Stats: meanfield.Stats{Maps: r.Iterations}, Truncation: float64(r.Truncation), Balanced: r.Balanced, Residual: float64(r.Residual)},
		BoardMeanSE: float64(r.BoardMeanSE), ResponseSE: float64(r.ResponseSE), Averaged: r.Averaged, Drift: float64(r.Drift)}
}

// pointJob is one point of herd point: the map, its start board and the
// start as given.
type pointJob struct {
	compare.PointJob
	start startState
}

// pointOutput is where herd point's answer goes, and how it is computed.
type pointOutput struct {
	format   string
	progress string
	workers  int
	settings compare.PointSettings
	svc      meanfield.Service
	// checkpoint is --checkpoint ("": none) and every --checkpoint-every;
	// sharded is set under --shards.
	checkpoint string
	every      time.Duration
	sharded    bool
	// servers is --servers: 0 for N → ∞, else the finite fleet's N
	// (runPointFinite), with its particle runs' length, count and master
	// seed and how its servers run (--refreshes, --runs, --seed,
	// --particles).
	servers int
	finiteRun
}

// runPointSweep is herd point; with merged set (herd merge) its points are
// taken from a sharded sweep's parts instead of computed.
func runPointSweep(ctx context.Context, e *env, args []string, merged *sweep.Merged) error {
	fs, shard, jobs, o, err := parsePoint(e, args)
	if err != nil {
		return err
	}
	if o.servers > 0 && merged == nil {
		return runPointFinite(ctx, e, jobs, o)
	}
	sw := &sweepCmd{e: e, command: "point", fs: fs, flags: shard, merged: merged}
	compute := make([]compare.PointJob, len(jobs))
	for i, j := range jobs {
		compute[i] = j.PointJob
		sw.ids = append(sw.ids, fmt.Sprintf("point dispatchers=%d load=%s refresh=%s start=%s",
			j.Refresh.Dispatchers, strconv.FormatFloat(j.Refresh.Load, 'g', -1, 64), strconv.FormatFloat(j.Refresh.Period, 'g', -1, 64), j.start.name)+sizesID(o.svc))
	}
	var ck *checkpointer
	if o.checkpoint != "" && merged == nil {
		want := pointCheckpoint{Format: checkpointFormat, Version: version, Command: "point", Args: checkpointArgs(fs)}
		for _, id := range sw.ids {
			want.Points = append(want.Points, pointSaved{ID: id})
		}
		if ck, err = openCheckpoint(o.checkpoint, o.every, want, o.settings.CheckResume, e.stderr); err != nil {
			return err
		}
	}
	// A point whose map fails (not merely unconverged) stops the command
	// before any output, as it always has; a shard with one writes no part.
	got, done, handled, runErr := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, pointRun)) error {
		return computePoints(ctx, e, jobs, compute, o, ck, idx, put)
	})
	if handled || (runErr != nil && ctx.Err() == nil) {
		return runErr
	}
	t, failed := pointTable(jobs, got, done, o)
	if err := writeTable(ctx, e, t, o.format, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d point(s) did not converge: %s", len(failed), failed[0])
	}
	return nil
}

// computePoints computes the points idx of a sweep (those a checkpoint
// holds finished are taken from it) on the worker pool with progress, and
// puts each finished one; a point whose map fails ends the sweep with its
// error.
func computePoints(ctx context.Context, e *env, jobs []pointJob, compute []compare.PointJob, o pointOutput, ck *checkpointer, idx []int, put func(int, pointRun)) error {
	var todo []int
	for _, i := range idx {
		if r, ok := ck.finished(i); ok {
			put(i, r)
			continue
		}
		todo = append(todo, i)
	}
	costs := make([]float64, len(todo))
	labels := make([]string, len(todo))
	for k, i := range todo {
		costs[k] = compare.PointCost(compute[i])
		j := jobs[i]
		labels[k] = fmt.Sprintf("k=%d λ=%g T=%g start %s", j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, j.start.name)
	}
	prog := newPointProgress(e.stderr, isTerminal(e.stderr), o.progress, labels, costs)
	s := o.settings
	s.Stop = stopOn(ctx)
	s.Mapped = prog.mapped
	if ck != nil {
		ck.pointHooks(&s, todo)
	}
	pool := weightedPool(ctx, o.workers, prog.line, costs)
	res, errs, ok := compare.PointAttractors(compute, todo, s, func(n int, work func(int)) []bool {
		return pool(n, func(k int) {
			prog.begin(k)
			defer prog.end(k)
			work(k)
		})
	})
	prog.close()
	if ck != nil {
		ck.flush() // a failure has been reported
	}
	if ctx.Err() != nil && !o.sharded && slices.Contains(ok, false) {
		ck.interrupted(e.stderr)
	}
	for k, i := range todo {
		if !ok[k] {
			continue
		}
		if errs[k] != nil && !errors.Is(errs[k], meanfield.ErrNotConverged) {
			return errs[k]
		}
		put(i, toPointRun(res[k]))
	}
	return ctx.Err()
}

// parsePoint reads herd point's flags into its points, one per
// (k, λ, T, start), each checked before any work.
func parsePoint(e *env, args []string) (*pflag.FlagSet, *shardFlags, []pointJob, pointOutput, error) {
	var o pointOutput
	fs := newFlags(e, "point", "point --dispatchers K --load L --refresh T [--start S] [flags]   (lists allowed: one row per combination)")
	dispatchers := dispatchersList(fs, "5", modelRangeHelp.dispatchers)
	load := loadList(fs, "0.9", modelRangeHelp.load)
	refresh := refreshList(fs, "", modelRangeHelp.refresh+"; required")
	start := startFlag(fs, "start", "empty", pointStarts, modelRangeHelp.start)
	iter := addIterationFlags(fs)
	sizes := addSizesFlag(fs, "job sizes of the model")
	out := addOutputFlags(fs, "points computed")
	progMode := addPointProgressFlag(fs)
	ckpt := addCheckpointFlags(fs)
	shard := addShardFlags(fs, nil)
	servers := fs.Int("servers", 0, "servers N, integer in [2, 1e9]: instead of the attractor, the balanced state at N servers from the empty board (linear noise, refined mean field and the particle runs, --particles; go doc herd/meanfield, §8); 0: N → ∞")
	fr := addFiniteRunFlags(fs, "the first tenth of each is discarded, and a run that tips (as herd bracket detects it) is left out of the mean", 8, "(their mean and its standard error)")
	if err := parse(fs, args); err != nil {
		return fs, shard, nil, o, err
	}
	var err error
	if o.finiteRun, err = fr.check(fs); err != nil {
		return fs, shard, nil, o, err
	}
	if fs.Changed("servers") {
		if *servers < 2 || *servers > 1e9 {
			return fs, shard, nil, o, usagef("--servers %d: want an integer in [2, 1e9]", *servers)
		}
		for _, f := range []string{"shards", "checkpoint", "start", "max-iter", "tol", "settle", "average"} {
			if fs.Changed(f) {
				return fs, shard, nil, o, usagef("--servers does not go with --%s (the finite fleet starts from the empty board, is not sharded, and runs its own fixed-point search and particle runs)", f)
			}
		}
		o.servers = *servers
		if err := o.checkServers(o.servers); err != nil {
			return fs, shard, nil, o, err
		}
	}
	o.sharded = fs.Changed("shards")
	if err := ckpt.check(fs, o.sharded); err != nil {
		return fs, shard, nil, o, err
	}
	o.checkpoint, o.every = *ckpt.path, *ckpt.every
	if err := checkProgressMode(*progMode); err != nil {
		return fs, shard, nil, o, err
	}
	o.progress = *progMode
	if err := shard.check(fs); err != nil {
		return fs, shard, nil, o, err
	}
	fmtName, err := out.check()
	if err != nil {
		return fs, shard, nil, o, err
	}
	o.format, o.workers = fmtName, *out.workers
	if *refresh == "" {
		return fs, shard, nil, o, usagef("--refresh is required: the board refresh period T > 0 in service times")
	}
	ks, err := modelDispatchersList(*dispatchers)
	if err != nil {
		return fs, shard, nil, o, err
	}
	loads, err := floatList("load", *load, modelLoad, modelLoadWant)
	if err != nil {
		return fs, shard, nil, o, err
	}
	ts, err := floatList("refresh", *refresh, positive, "a number > 0 (service times)")
	if err != nil {
		return fs, shard, nil, o, err
	}
	starts, err := parsedList("start", *start, pointStarts.parser("start"))
	if err != nil {
		return fs, shard, nil, o, err
	}
	if _, o.svc, err = modelSizes(*sizes); err != nil {
		return fs, shard, nil, o, err
	}
	if o.settings, err = iter.check(); err != nil {
		return fs, shard, nil, o, err
	}
	jobs, err := pointJobs(ks, loads, ts, starts, o.svc)
	return fs, shard, jobs, o, err
}

// pointJobs expands the lists into points, k outermost, checking each
// against the map's limits and their number against the sweep's.
func pointJobs(ks []int, loads, ts []float64, starts []startState, svc meanfield.Service) ([]pointJob, error) {
	var jobs []pointJob
	for _, k := range ks {
		for _, lam := range loads {
			for _, T := range ts {
				if err := checkModel(k, lam, T); err != nil {
					return nil, err
				}
				for _, st := range starts {
					r := meanfield.Refresh{Dispatchers: k, Load: lam, Period: T, Service: svc}
					if err := r.Validate(); err != nil {
						return nil, usagef("%v", err)
					}
					q, err := st.rows(T)
					if err != nil {
						return nil, err
					}
					if len(jobs) >= maxSweepRuns {
						return nil, usagef("the lists give more than %d points: shorten them", maxSweepRuns)
					}
					board := func() []float64 { return st.board(lam, q) }
					jobs = append(jobs, pointJob{compare.PointJob{Refresh: r, Board: board}, st})
				}
			}
		}
	}
	return jobs, nil
}

// pointTable is herd point's table and the points that did not converge.
func pointTable(jobs []pointJob, got []pointRun, done []bool, o pointOutput) (*table.Table, []string) {
	t := &table.Table{
		Title: "herd point: the refresh map's attractor from a start board (k dispatchers with own tallies, N → ∞)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "max_iter", Value: strconv.Itoa(o.settings.MaxIter)},
			{Key: "tol", Value: strconv.FormatFloat(o.settings.Tol, 'g', -1, 64)},
			{Key: "settle", Value: strconv.Itoa(o.settings.Settle)},
			{Key: "average", Value: strconv.Itoa(o.settings.Average)},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "refresh", Exact: true}, {Name: "start"},
			{Name: "attractor"}, {Name: "board_mean", Digits: 6}, {Name: "queue_mean", Digits: 6},
			{Name: "response_mean", Digits: 6}, {Name: "spectral_radius", Digits: 3},
			{Name: "cut_phase", Digits: 4}, {Name: "iterations"}, {Name: "truncation", Digits: 1},
			{Name: "balanced"}, {Name: "residual", Digits: 1},
			{Name: "board_mean_se", Digits: 2}, {Name: "response_se", Digits: 2}, {Name: "averaged"}, {Name: "drift", Digits: 2},
		},
	}
	addSizes(t, o.svc, false)
	var failed []string
	aperiodic := 0
	unresolved := map[string]bool{}
	for i, j := range jobs {
		if !done[i] {
			continue
		}
		a := got[i].attractor()
		if a.Status == meanfield.Unconverged {
			failed = append(failed, fmt.Sprintf("k=%d λ=%g T=%g start %s: no fixed point, cycle or stationary herd after %d maps (residual %.3g; the row describes the last map)",
				j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, j.start.name, a.Maps, a.Residual))
		}
		var bse, rse, avg, drift any
		if a.Status == meanfield.Aperiodic {
			bse, rse, avg, drift = a.BoardMeanSE, a.ResponseSE, a.Averaged, a.Drift
			aperiodic++
		}
		lam := j.Refresh.Load
		if x, sep := j.Refresh.Period*(1-lam)*(1-lam), meanfield.SeparableScaled(lam, o.svc); a.Balanced && x < sep {
			unresolved[fmt.Sprintf("λ = %g: T(1−λ)² < %.4g", lam, sep)] = true
		}
		t.AddRow(j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, j.start.name, herdKind(a),
			a.BoardMean, a.QueueMean, a.Response, finite(a.SpectralRadius), a.CutPhase, a.Maps, a.Truncation,
			a.Balanced, a.Residual, bse, rse, avg, drift)
	}
	if aperiodic > 0 {
		t.Notes = append(t.Notes, "aperiodic: a herd that stays in the herd regime without settling (herd hysteresis's classification); its means are averages over the last `averaged` maps, with batch-means standard errors and the board mean's drift per map")
	}
	if len(unresolved) > 0 {
		var where []string
		for w := range unresolved {
			where = append(where, w)
		}
		sort.Strings(where)
		t.Notes = append(t.Notes, "balanced = true is not conclusive where "+strings.Join(where, "; ")+
			": a state counts as balanced by its board mean, and at such short periods a herd's backlog (at least 0.3·T) is no larger than a balanced queue can be (meanfield.SeparableScaled)")
	}
	t.Warnings = failed
	return t, failed
}

// runPointFinite is herd point --servers N: for each (k, λ, T) the
// balanced fixed point reached from the empty board, its linear-noise
// picture at N servers and the particle runs' mean time in system
// (meanfield.FiniteMean; package doc, §8).
func runPointFinite(ctx context.Context, e *env, jobs []pointJob, o pointOutput) error {
	run := meanfield.FiniteRun{Periods: o.refreshes, Replications: o.runs, Seed: o.seed, Particles: o.particles, Workers: min(max(o.workers, 1), 64)}
	t := &table.Table{
		Title: "herd point --servers: the balanced state of the refresh map at N servers (linear noise, refined mean field, particle runs)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "servers", Value: strconv.Itoa(o.servers)},
			{Key: "periods", Value: strconv.Itoa(o.refreshes)},
			{Key: "replications", Value: strconv.Itoa(o.runs)},
			{Key: "seed", Value: strconv.FormatUint(o.seed, 10)},
			{Key: "particles", Value: o.particles.ResolveMean(o.servers).String()},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "refresh", Exact: true}, {Name: "servers"},
			{Name: "board_mean", Digits: 6}, {Name: "board_mean_refined", Digits: 6}, {Name: "board_mean_sd", Digits: 3},
			{Name: "response_mean", Digits: 6}, {Name: "response_refined", Digits: 6},
			{Name: "response_particle", Digits: 5}, {Name: "response_particle_se", Digits: 2}, {Name: "particle_tipped"},
			{Name: "border", Digits: 4}, {Name: "border_sd", Digits: 4}, {Name: "border_z", Digits: 3},
			{Name: "cross_per_period", Digits: 3}, {Name: "spectral_radius", Digits: 3},
		},
		Notes: []string{
			"board_mean, response_mean: mean field (N → ∞); *_refined: plus the 1/N term of the refined mean field, valid only while border_z is large (the fluctuation stays within the node's window); response_particle: the mean time in system of the particle runs (meta particles: servers, the N servers themselves, each dispatcher filling the water on its own Poisson clock, the area under their queues over their arrivals; board, the particle map, N servers drawn each period from the map's image, the map's mean time in system at its boards), ± its standard error over runs that did not tip",
			"border: τ_{c+1} − T, the node's distance to its window's end; border_sd its standard deviation at N (linear noise); cross_per_period: P(the end falls before T) in one period",
		},
	}
	addSizes(t, o.svc, false)
	var failed []string
	labels := make([]string, len(jobs))
	for i, j := range jobs {
		labels[i] = fmt.Sprintf("k=%d λ=%g T=%g", j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period)
	}
	prog := newFiniteProgress(e, o.progress, "point", "points", labels)
	defer prog.close()
	for i, j := range jobs {
		if ctx.Err() != nil {
			t.Partial = true
			break
		}
		run.Stop = prog.begin(ctx, i, int64(o.runs)*int64(o.refreshes))
		f, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: j.Refresh, Servers: o.servers}, run)
		if errors.Is(err, meanfield.ErrStopped) {
			prog.end(i, "stopped")
			t.Partial = true
			break
		}
		if err != nil {
			prog.end(i, "failed")
			// The rows already computed are kept; this one is left empty.
			failed = append(failed, fmt.Sprintf("k=%d λ=%g T=%g: %v", j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, err))
			t.AddRow(j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, o.servers,
				nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
			continue
		}
		prog.end(i, "done")
		l := f.Linear
		t.AddRow(j.Refresh.Dispatchers, j.Refresh.Load, j.Refresh.Period, o.servers,
			l.BoardMean, l.RefinedBoardMean, l.BoardMeanSD, l.Response, l.RefinedResponse,
			finite(f.Response), finite(f.ResponseSE), f.Tipped,
			l.Border, l.BorderSD, l.BorderZ, l.CrossPerPeriod, l.SpectralRadius)
	}
	t.Warnings = failed
	if err := writeTable(ctx, e, t, o.format, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d point(s) failed: %s", len(failed), failed[0])
	}
	return ctx.Err()
}
