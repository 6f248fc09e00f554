package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"herd/cmd/internal/table"
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
	BoardMean      jfloat           `json:"board_mean"`
	QueueMean      jfloat           `json:"queue_mean"`
	Response       jfloat           `json:"response"`
	SpectralRadius jfloat           `json:"spectral_radius"`
	CutPhase       jfloat           `json:"cut_phase"`
	Iterations     int              `json:"iterations"`
	Truncation     jfloat           `json:"truncation"`
	Balanced       bool             `json:"balanced"`
	Residual       jfloat           `json:"residual"`
	// For an aperiodic herd: the batch-means standard errors of the orbit
	// averages, the maps averaged, and the drift of the board mean per map.
	BoardMeanSE jfloat `json:"board_mean_se"`
	ResponseSE  jfloat `json:"response_se"`
	Averaged    int    `json:"averaged"`
	Drift       jfloat `json:"drift"`
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
	return pointRun{Kind: a.Status, Period: a.Period, BoardMean: jfloat(bm), QueueMean: jfloat(a.QueueMean),
		Response: jfloat(a.Response), SpectralRadius: jfloat(a.SpectralRadius), CutPhase: jfloat(a.CutPhase),
		Iterations: a.Maps, Truncation: jfloat(a.Truncation), Balanced: a.Balanced, Residual: jfloat(a.Residual),
		BoardMeanSE: jfloat(a.BoardMeanSE), ResponseSE: jfloat(a.ResponseSE), Averaged: a.Averaged, Drift: jfloat(a.Drift)}
}

func (r pointRun) attractor() meanfield.HerdAttractor {
	return meanfield.HerdAttractor{Attractor: meanfield.Attractor{Status: r.Kind, Period: r.Period, BoardMean: float64(r.BoardMean), QueueMean: float64(r.QueueMean),
		Response: float64(r.Response), SpectralRadius: float64(r.SpectralRadius), CutPhase: float64(r.CutPhase),
		Stats: meanfield.Stats{Maps: r.Iterations}, Truncation: float64(r.Truncation), Balanced: r.Balanced, Residual: float64(r.Residual)},
		BoardMeanSE: float64(r.BoardMeanSE), ResponseSE: float64(r.ResponseSE), Averaged: r.Averaged, Drift: float64(r.Drift)}
}

// pointAttractor finds the attractor of one point with
// FindHerdAttractor, whose classification (herd hysteresis uses the same)
// recognises an orbit that stays in the herd regime without settling as
// aperiodic, with orbit averages and their standard errors. A fixed point
// or cycle, or an orbit that establishes nothing, is then found again by
// FindAttractor from the same start, as before, for the spectral radius
// of a fixed point and the last map of an unconverged orbit.
func pointAttractor(r meanfield.Refresh, start []float64, maxIter int, tol float64) (meanfield.HerdAttractor, error) {
	if tol < 1 {
		h, err := meanfield.FindHerdAttractor(r, start, meanfield.HerdSettings{AttractorSettings: meanfield.AttractorSettings{MaxIter: maxIter, Tol: tol}})
		if err != nil && !errors.Is(err, meanfield.ErrNotConverged) {
			return h, err
		}
		if h.Status == meanfield.Aperiodic {
			h.SpectralRadius = math.NaN()
			return h, nil
		}
	}
	a, err := meanfield.FindAttractor(r, start, meanfield.AttractorSettings{MaxIter: maxIter, Tol: tol, Spectrum: true})
	return meanfield.HerdAttractor{Attractor: a}, err
}

// runPointSweep is herd point; with merged set (herd merge) its points are
// taken from a sharded sweep's parts instead of computed.
func runPointSweep(ctx context.Context, e *env, args []string, merged *mergedRuns) error {
	fs := newFlags(e, "point", "point --dispatchers K --load L --refresh T [--start S] [flags]   (lists allowed: one row per combination)")
	dispatchers := dispatchersList(fs, "5", modelRangeHelp.dispatchers)
	load := loadList(fs, "0.9", modelRangeHelp.load)
	refresh := refreshList(fs, "", modelRangeHelp.refresh+"; required")
	start := startFlag(fs, "start", "empty", pointStarts, modelRangeHelp.start)
	maxIter := fs.Int("max-iter", 5000, "most refresh-map applications before giving up")
	tol := fs.Float64("tol", 1e-10, "convergence: L1 distance between a board and the one a period earlier")
	sizes := addSizesFlag(fs, "job sizes of the model")
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
	if *refresh == "" {
		return usagef("--refresh is required: the board refresh period T > 0 in service times")
	}
	ks, err := intList("dispatchers", *dispatchers, 1)
	if err != nil {
		return err
	}
	loads, err := floatList("load", *load, inOpenUnit, "a number in (0, 1)")
	if err != nil {
		return err
	}
	ts, err := floatList("refresh", *refresh, positive, "a number > 0 (service times)")
	if err != nil {
		return err
	}
	starts, err := parsedList("start", *start, pointStarts.parser("start"))
	if err != nil {
		return err
	}
	_, svc, err := modelSizes(*sizes)
	if err != nil {
		return err
	}
	switch {
	case *maxIter < 1:
		return usagef("--max-iter %d: want an integer ≥ 1", *maxIter)
	case !(*tol > 0) || math.IsInf(*tol, 0):
		return usagef("--tol %v: want a number > 0", *tol)
	}

	type job struct {
		r     meanfield.Refresh
		start startState
		rows  int
	}
	var jobs []job
	for _, k := range ks {
		for _, lam := range loads {
			for _, T := range ts {
				if err := checkModel(k, lam, T); err != nil {
					return err
				}
				for _, st := range starts {
					r := meanfield.Refresh{Dispatchers: k, Load: lam, Period: T, Service: svc}
					if err := r.Validate(); err != nil {
						return usagef("%v", err)
					}
					q, err := st.rows(T)
					if err != nil {
						return err
					}
					if len(jobs) >= maxSweepRuns {
						return usagef("the lists give more than %d points: shorten them", maxSweepRuns)
					}
					jobs = append(jobs, job{r, st, q})
				}
			}
		}
	}
	sw := &sweep{e: e, command: "point", fs: fs, flags: shard, merged: merged}
	for _, j := range jobs {
		sw.ids = append(sw.ids, fmt.Sprintf("point dispatchers=%d load=%s refresh=%s start=%s",
			j.r.Dispatchers, strconv.FormatFloat(j.r.Load, 'g', -1, 64), strconv.FormatFloat(j.r.Period, 'g', -1, 64), j.start.name)+sizesID(svc))
	}
	// A point whose map fails (not merely unconverged) stops the command
	// before any output, as it always has; a shard with one writes no part.
	got, done, handled, runErr := runSweep(ctx, sw, func(ctx context.Context, idx []int, put func(int, pointRun)) error {
		res := make([]meanfield.HerdAttractor, len(idx))
		errs := make([]error, len(idx))
		prog := newProgress(e.stderr, "point", "points")
		ok := parallel(ctx, len(idx), *out.workers, func(k int) {
			j := jobs[idx[k]]
			res[k], errs[k] = pointAttractor(j.r, svc.Lift(j.start.board(j.r.Load, j.rows)), *maxIter, *tol)
		}, prog.update)
		prog.finish()
		for k, i := range idx {
			if !ok[k] {
				continue
			}
			if errs[k] != nil && !errors.Is(errs[k], meanfield.ErrNotConverged) {
				return errs[k]
			}
			put(i, toPointRun(res[k]))
		}
		return ctx.Err()
	})
	if handled || (runErr != nil && ctx.Err() == nil) {
		return runErr
	}

	t := &table.Table{
		Title: "herd point: the refresh map's attractor from a start board (k dispatchers with own tallies, N → ∞)",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "max_iter", Value: strconv.Itoa(*maxIter)},
			{Key: "tol", Value: strconv.FormatFloat(*tol, 'g', -1, 64)},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load"}, {Name: "refresh"}, {Name: "start"},
			{Name: "attractor"}, {Name: "board_mean", Digits: 6}, {Name: "queue_mean", Digits: 6},
			{Name: "response_mean", Digits: 6}, {Name: "spectral_radius", Digits: 3},
			{Name: "cut_phase", Digits: 4}, {Name: "iterations"}, {Name: "truncation", Digits: 1},
			{Name: "balanced"}, {Name: "residual", Digits: 1},
			{Name: "board_mean_se", Digits: 2}, {Name: "response_se", Digits: 2}, {Name: "averaged"}, {Name: "drift", Digits: 2},
		},
	}
	addSizes(t, svc, false)
	var failed []string
	aperiodic := 0
	for i, j := range jobs {
		if !done[i] {
			continue
		}
		a := got[i].attractor()
		if a.Status == meanfield.Unconverged {
			failed = append(failed, fmt.Sprintf("k=%d λ=%g T=%g start %s: no fixed point, cycle or stationary herd after %d maps (residual %.3g; the row describes the last map)",
				j.r.Dispatchers, j.r.Load, j.r.Period, j.start.name, a.Maps, a.Residual))
		}
		var radius any
		if !math.IsNaN(a.SpectralRadius) {
			radius = a.SpectralRadius
		}
		var bse, rse, avg, drift any
		if a.Status == meanfield.Aperiodic {
			bse, rse, avg, drift = a.BoardMeanSE, a.ResponseSE, a.Averaged, a.Drift
			aperiodic++
		}
		t.AddRow(j.r.Dispatchers, j.r.Load, j.r.Period, j.start.name, herdKind(a),
			a.BoardMean, a.QueueMean, a.Response, radius, a.CutPhase, a.Maps, a.Truncation,
			a.Balanced, a.Residual, bse, rse, avg, drift)
	}
	if aperiodic > 0 {
		t.Notes = append(t.Notes, "aperiodic: a herd that stays in the herd regime without settling (herd hysteresis's classification); its means are averages over the last `averaged` maps, with batch-means standard errors and the board mean's drift per map")
	}
	t.Warnings = failed
	if err := writeTable(ctx, e, t, fmtName, nil); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d point(s) did not converge: %s", len(failed), failed[0])
	}
	return nil
}
