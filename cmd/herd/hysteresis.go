package main

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
	"herd/sim"
)

// hystPoint is one (T, start) of herd hysteresis.
type hystPoint struct {
	T     float64
	start sim.Start
	model meanfield.HerdAttractor
	mErr  error
	sim   sim.Summary
	hasS  bool
}

func runHysteresis(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "hysteresis", "hysteresis [--dispatchers K] [--load L] [--refresh LIST] [--starts LIST] [--servers N] [flags]")
	k := dispatchersFlag(fs, 5, modelRangeHelp.dispatchers+" for the model")
	load := loadFlag(fs, 0.9, modelRangeHelp.load)
	refresh := refreshList(fs, "300,500,1100,2000,3000", modelRangeHelp.refresh)
	starts := startFlag(fs, "starts", "balanced,half:0.1T", simStarts, modelRangeHelp.start)
	servers := serversFlag(fs, 0, "0 (model only) or "+simRangeHelp.servers+" to simulate too")
	tally := fs.String("tally", "own", "the fix to try: own (no fix), shared or scaled; the model covers own and shared (which is the k = 1 map as N → ∞)")
	partitioned := partitionedFlag(fs, " (the model: the k = 1 map as N → ∞)")
	runs := runsFlag(fs, 4, "point", 2, true)
	refreshes := refreshesFlag(fs, 200, " (a quarter is warm-up)")
	seed := seedFlag(fs)
	bistable := fs.Bool("bistable", true, "also compute the model's bistable range (balanced and herd coexist)")
	sizes := addSizesFlag(fs, "job sizes of the model and the simulator")
	plotFile := plotFlag(fs, "both branches against T (log axes), model lines and simulator points, bistable range shaded,")
	out := addOutputFlags(fs, "points computed")
	if err := parse(fs, args); err != nil {
		return err
	}
	fmtName, err := out.check()
	if err != nil {
		return err
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return err
	}
	switch {
	case *k < 1:
		return usagef("--dispatchers %d: want an integer ≥ 1", *k)
	case !inOpenUnit(*load):
		return usagef("--load %v: want a number in (0, 1)", *load)
	case *servers < 0:
		return usagef("--servers %d: want 0 (model only) or an integer ≥ 1", *servers)
	case *servers > 0 && *partitioned && *servers < *k:
		return usagef("--partitioned needs --servers ≥ --dispatchers, have %d < %d", *servers, *k)
	case *runs < 2 || *runs > maxSweepRuns:
		return usagef("--runs %d: want an integer in [2, %d]", *runs, maxSweepRuns)
	case *refreshes < 4:
		return usagef("--refreshes %d: want an integer ≥ 4", *refreshes)
	}
	ta, err := sim.ParseTally(*tally)
	if err != nil || ta == sim.TallyNone {
		return usagef("--tally %q: want own, shared or scaled", *tally)
	}
	ts, err := floatList("refresh", *refresh, positive, "a number > 0 (service times)")
	if err != nil {
		return err
	}
	sts, err := parsedList("starts", *starts, simStart("starts"))
	if err != nil {
		return err
	}
	simSizes, svc, err := modelSizes(*sizes)
	if err != nil {
		return err
	}
	// The model: own tallies as they are; shared tallies and partitions are
	// the k = 1 map as N → ∞; the scaled tally has no model.
	modelK := *k
	modelNote := ""
	hasModel := true
	switch {
	case ta == sim.TallyScaled:
		hasModel = false
		modelNote = "the scaled tally has no model here (see meanfield/hysteresis.go): simulator only"
	case ta == sim.TallyShared || *partitioned:
		modelK = 1
		modelNote = "shared tallies and partitions are the k = 1 refresh map as N → ∞"
	}

	if hasModel && *bistable {
		if err := checkEdge(modelK, *load); err != nil {
			return usagef("%v; the bistable range starts from the edge (--bistable=false skips it)", err)
		}
	}
	var pts []*hystPoint
	for _, T := range ts {
		if hasModel {
			if err := checkModel(modelK, *load, T); err != nil {
				return err
			}
		}
		for _, st := range sts {
			if hasModel {
				if _, err := modelStartRows("starts", st.String(), st.Value, st.PerRefresh, T); err != nil {
					return err
				}
			}
			if len(pts)*(*runs) >= maxSweepRuns {
				return usagef("--refresh and --starts give more than %d runs in all: shorten them", maxSweepRuns)
			}
			pts = append(pts, &hystPoint{T: T, start: st})
		}
	}
	// The simulations' runs, checked before the model starts.
	var tasks []sim.Task
	if *servers > 0 {
		for _, p := range pts {
			c := sim.Config{Servers: *servers, Dispatchers: *k, Load: *load, Refresh: p.T,
				Policy: sim.Policy{Kind: sim.LeastLoaded}, Tally: ta, Partitioned: *partitioned,
				Start: p.start, Horizon: float64(*refreshes) * p.T, Sizes: simSizes}
			if err := c.Validate(); err != nil {
				return simUsage(err, map[string]string{"Start": "starts", "Horizon": "refreshes"})
			}
			key := c.Key()
			for rep := 0; rep < *runs; rep++ {
				tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(*seed, key, rep)})
			}
		}
	}
	// Model points in parallel, then the simulations.
	var bis meanfield.BistableResult
	var bisErr error
	jobs := len(pts)
	if hasModel && *bistable {
		jobs++
	}
	prog := newProgress(e.stderr, "hysteresis", "model points")
	done := []bool{}
	if hasModel {
		done = parallel(ctx, jobs, *out.workers, func(i int) {
			if i == len(pts) {
				bis, bisErr = meanfield.Bistable(meanfield.BistableSettings{Dispatchers: modelK, Load: *load, Service: svc})
				return
			}
			p := pts[i]
			r := meanfield.Refresh{Dispatchers: modelK, Load: *load, Period: p.T, Service: svc}
			p.model, p.mErr = meanfield.FindHerdAttractor(r, svc.Lift(modelBoard(p.start, p.T)), meanfield.HerdSettings{})
		}, prog.update)
	}
	prog.finish()
	if *servers > 0 && ctx.Err() == nil {
		sp := newProgress(e.stderr, "hysteresis", "runs")
		res, sdone, _ := sim.RunAllNotify(ctx, tasks, *out.workers, sp.weigh(runCosts(tasks)).notify)
		sp.finish()
		for i, p := range pts {
			ok := true
			for _, d := range sdone[i**runs : (i+1)**runs] {
				ok = ok && d
			}
			if ok {
				p.sim, p.hasS = sim.Summarize(tasks[i**runs].Config, res[i**runs:(i+1)**runs]), true
			}
		}
	}

	t := &table.Table{
		Title: "herd hysteresis: the balanced and herd branches (least loaded with tallies) against T",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "dispatchers", Value: strconv.Itoa(*k)},
			{Key: "load", Value: strconv.FormatFloat(*load, 'g', -1, 64)},
			{Key: "tally", Value: ta.String()},
			{Key: "partitioned", Value: strconv.FormatBool(*partitioned)},
			{Key: "servers", Value: strconv.Itoa(*servers)},
			{Key: "runs", Value: strconv.Itoa(*runs)},
			{Key: "refreshes", Value: strconv.Itoa(*refreshes)},
			{Key: "seed", Value: strconv.FormatUint(*seed, 10)},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load"}, {Name: "refresh"}, {Name: "start"},
			{Name: "model_attractor"}, {Name: "model_herd"}, {Name: "model_board_mean", Digits: 5}, {Name: "model_response", Digits: 5},
			{Name: "servers"}, {Name: "sim_response_mean", Digits: 5}, {Name: "sim_response_se", Digits: 2}, {Name: "sim_board_mean", Digits: 5},
			{Name: "model_response_se", Digits: 2}, {Name: "model_truncation", Digits: 1}, {Name: "model_maps"},
		},
	}
	if modelNote != "" {
		t.Notes = append(t.Notes, modelNote)
	}
	addSizes(t, svc, false)
	for i, p := range pts {
		row := []any{*k, *load, p.T, p.start.String(), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}
		if hasModel && i < len(done) && done[i] {
			if p.mErr != nil && p.model.Status == meanfield.Unconverged {
				t.Warnings = append(t.Warnings, fmt.Sprintf("T = %g, start %s: the model did not settle: %v", p.T, p.start, p.mErr))
			}
			a := p.model
			row[4], row[5] = herdKind(a), a.Herd
			row[6], row[7] = finite(a.BoardMean), finite(a.Response)
			row[12], row[13], row[14] = finite(a.ResponseSE), a.Truncation, a.Maps
		}
		if p.hasS {
			row[8], row[9], row[10], row[11] = *servers, p.sim.Response.Mean, finite(p.sim.Response.SE), p.sim.Board.Mean
		}
		t.AddRow(row...)
	}
	var band *plotting.Band
	if hasModel && *bistable && len(done) > len(pts) && done[len(pts)] {
		if bisErr != nil {
			t.Warnings = append(t.Warnings, "bistable range: "+bisErr.Error())
		} else {
			t.Notes = append(t.Notes, bistableNote(bis))
			if !math.IsNaN(bis.Low) && !math.IsNaN(bis.High) {
				band = &plotting.Band{XMin: bis.Low, XMax: bis.High, Label: "bistable (model)"}
			}
		}
	}
	return writeTable(ctx, e, t, fmtName, func() error {
		if *plotFile == "" {
			return nil
		}
		return plotHysteresis(*plotFile, pts, band, hasModel, *servers)
	})
}

func herdKind(a meanfield.HerdAttractor) string { return compare.AttractorName(a) }

func bistableNote(b meanfield.BistableResult) string { return compare.BistableNote(b) }

func plotHysteresis(path string, pts []*hystPoint, band *plotting.Band, hasModel bool, servers int) error {
	fig := plotting.Figure{
		Title:  "the trap door: balanced and herd branches",
		XLabel: "refresh period T (service times)",
		YLabel: "mean time in system (service times)",
		LogX:   true, LogY: true,
	}
	order := []string{}
	lines := map[string]*plotting.Series{}
	dots := map[string]*plotting.Series{}
	for _, p := range pts {
		name := p.start.String()
		if _, ok := lines[name]; !ok {
			order = append(order, name)
			lines[name] = &plotting.Series{Name: "model, start " + name, Line: true, Group: name}
			dots[name] = &plotting.Series{Name: fmt.Sprintf("simulator N = %d, start %s", servers, name), Group: name}
		}
		if hasModel && !math.IsNaN(p.model.Response) && p.model.Response > 0 {
			lines[name].X = append(lines[name].X, p.T)
			lines[name].Y = append(lines[name].Y, p.model.Response)
		}
		if p.hasS {
			dots[name].X = append(dots[name].X, p.T)
			dots[name].Y = append(dots[name].Y, p.sim.Response.Mean)
			dots[name].YErr = append(dots[name].YErr, ci95(p.sim.Response.SE, p.sim.Response.N))
		}
	}
	for _, n := range order {
		if len(lines[n].X) > 0 {
			fig.Series = append(fig.Series, *lines[n])
		}
		if len(dots[n].X) > 0 {
			fig.Series = append(fig.Series, *dots[n])
		}
	}
	if band != nil {
		fig.Bands = []plotting.Band{*band}
	}
	if err := plotting.Save(fig, path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}
