package main

import (
	"context"
	"fmt"
	"strconv"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/progress"
	"herd/meanfield"
	"herd/sim"
)

// hysteresisOutput is where herd hysteresis's answer goes.
type hysteresisOutput struct {
	format, plot, progress string
	workers                int
}

func runHysteresis(ctx context.Context, e *env, args []string) error {
	s, o, err := parseHysteresis(e, args)
	if err != nil {
		return err
	}
	rows := s.Rows()
	// The simulations' runs, checked before the model starts.
	tasks, err := s.Tasks(rows)
	if err != nil {
		return simUsage(err, map[string]string{"Start": "starts", "Horizon": "refreshes"})
	}
	// Model points in parallel, then the simulations.
	costs := compare.HysteresisModelCosts(s, rows)
	var labels []string
	for _, r := range rows {
		labels = append(labels, fmt.Sprintf("T=%g start %s", r.Refresh, r.Start))
	}
	if s.Bistable {
		labels = append(labels, "bistable range")
	}
	prog := newAttractorProgress(e.stderr, isTerminal(e.stderr), o.progress, "hysteresis", "model points", labels, costs)
	s.Stop = stopOn(ctx)
	h := compare.HysteresisModel(s, rows, weightedPool(ctx, o.workers, prog.line, costs), compare.HysteresisHooks{
		Begin: func(j int) {
			if j == len(rows) { // the bistable range: edge searches, no maps to show
				prog.beat.Begin(j)
				return
			}
			prog.begin(j)
		},
		Mapped: prog.mapped, End: prog.end,
	})
	prog.close()
	if s.Servers > 0 && ctx.Err() == nil {
		sp := progress.NewLineMode(e.stderr, isTerminal(e.stderr), progress.Mode(o.progress), "hysteresis", "runs", nil)
		compare.HysteresisSim(ctx, s, &h, tasks, o.workers, weighRuns(sp, tasks))
		sp.Finish()
	}
	t := hysteresisTable(s, h)
	return writeTable(ctx, e, t, o.format, func() error {
		if o.plot == "" {
			return nil
		}
		return savePlot(o.plot, compare.HysteresisPlot(h, s.Servers))
	})
}

// parseHysteresis reads herd hysteresis's flags into the settings of its
// sweep, checking every point against the model's and the simulator's
// limits before any work.
func parseHysteresis(e *env, args []string) (compare.HysteresisSettings, hysteresisOutput, error) {
	var s compare.HysteresisSettings
	var o hysteresisOutput
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
	progMode := addHysteresisProgressFlag(fs)
	if err := parse(fs, args); err != nil {
		return s, o, err
	}
	fmtName, err := out.check()
	if err != nil {
		return s, o, err
	}
	if err := checkPlotPath(*plotFile); err != nil {
		return s, o, err
	}
	if err := checkProgressMode(*progMode); err != nil {
		return s, o, err
	}
	o = hysteresisOutput{format: fmtName, plot: *plotFile, progress: *progMode, workers: *out.workers}
	s = compare.HysteresisSettings{Dispatchers: *k, Load: *load, Partitioned: *partitioned, Bistable: *bistable,
		Servers: *servers, Runs: *runs, Refreshes: *refreshes, Seed: *seed}
	if err := checkHysteresisFlags(s); err != nil {
		return s, o, err
	}
	for _, name := range []string{"runs", "refreshes", "seed"} {
		if err := idleFlag(name, *servers == 0 && fs.Changed(name), "it sets the simulator's runs, and --servers is 0 (model only)"); err != nil {
			return s, o, err
		}
	}
	ta, err := sim.ParseTally(*tally)
	if err != nil || ta == sim.TallyNone {
		return s, o, usagef("--tally %q: want own, shared or scaled", *tally)
	}
	s.Tally = ta
	if ta == sim.TallyScaled && *servers == 0 {
		return s, o, usagef("--tally scaled: the model has no scaled tally, so with --servers 0 (model only) no row would have a value: give --servers N to simulate it")
	}
	if s.Refresh, err = floatList("refresh", *refresh, positive, "a number > 0 (service times)"); err != nil {
		return s, o, err
	}
	if s.Starts, err = parsedList("starts", *starts, simStart("starts")); err != nil {
		return s, o, err
	}
	if s.Sizes, s.Service, err = modelSizes(*sizes); err != nil {
		return s, o, err
	}
	return s, o, checkHysteresisPoints(s)
}

// checkHysteresisFlags checks herd hysteresis's single-valued flags.
func checkHysteresisFlags(s compare.HysteresisSettings) error {
	switch {
	case s.Dispatchers < 1:
		return usagef("--dispatchers %d: want an integer ≥ 1", s.Dispatchers)
	case !inOpenUnit(s.Load):
		return usagef("--load %v: want a number in (0, 1)", s.Load)
	case s.Servers < 0:
		return usagef("--servers %d: want 0 (model only) or an integer ≥ 1", s.Servers)
	case s.Servers > 0 && s.Partitioned && s.Servers < s.Dispatchers:
		return usagef("--partitioned needs --servers ≥ --dispatchers, have %d < %d", s.Servers, s.Dispatchers)
	case s.Runs < 2 || s.Runs > maxSweepRuns:
		return usagef("--runs %d: want an integer in [2, %d]", s.Runs, maxSweepRuns)
	case s.Refreshes < 4:
		return usagef("--refreshes %d: want an integer ≥ 4", s.Refreshes)
	}
	return nil
}

// checkHysteresisPoints checks every (T, start) against the model's
// limits (when there is a model) and the runs in all against the sweep's.
func checkHysteresisPoints(s compare.HysteresisSettings) error {
	modelK, hasModel, _ := s.Model()
	if hasModel && s.Bistable {
		if err := checkEdge(modelK, s.Load); err != nil {
			return usagef("%v; the bistable range starts from the edge (--bistable=false skips it)", err)
		}
	}
	n := 0
	for _, T := range s.Refresh {
		if hasModel {
			if err := checkModel(modelK, s.Load, T); err != nil {
				return err
			}
		}
		for _, st := range s.Starts {
			if hasModel {
				if _, err := modelStartRows("starts", st.String(), st, T); err != nil {
					return err
				}
			}
			if n*s.Runs >= maxSweepRuns {
				return usagef("--refresh and --starts give more than %d runs in all: shorten them", maxSweepRuns)
			}
			n++
		}
	}
	return nil
}

// hysteresisCells is one row of the herd hysteresis table, by column;
// a nil cell is missing.
type hysteresisCells struct {
	dispatchers                            int
	load, refresh                          float64
	start                                  string
	modelAttractor, modelHerd              any
	modelBoardMean, modelResponse          any
	servers, simResponse, simSE, simBoard  any
	modelResponseSE, modelTruncation, maps any
}

func (c hysteresisCells) row() []any {
	return []any{c.dispatchers, c.load, c.refresh, c.start,
		c.modelAttractor, c.modelHerd, c.modelBoardMean, c.modelResponse,
		c.servers, c.simResponse, c.simSE, c.simBoard,
		c.modelResponseSE, c.modelTruncation, c.maps}
}

// hysteresisTable is herd hysteresis's table.
func hysteresisTable(s compare.HysteresisSettings, h compare.Hysteresis) *table.Table {
	t := &table.Table{
		Title: "herd hysteresis: the balanced and herd branches (least loaded with tallies) against T",
		Meta: []table.Field{
			{Key: "version", Value: version},
			{Key: "dispatchers", Value: strconv.Itoa(s.Dispatchers)},
			{Key: "load", Value: strconv.FormatFloat(s.Load, 'g', -1, 64)},
			{Key: "tally", Value: s.Tally.String()},
			{Key: "partitioned", Value: strconv.FormatBool(s.Partitioned)},
			{Key: "servers", Value: strconv.Itoa(s.Servers)},
			{Key: "runs", Value: strconv.Itoa(s.Runs)},
			{Key: "refreshes", Value: strconv.Itoa(s.Refreshes)},
			{Key: "seed", Value: strconv.FormatUint(s.Seed, 10)},
		},
		Columns: []table.Column{
			{Name: "dispatchers"}, {Name: "load", Exact: true}, {Name: "refresh", Exact: true}, {Name: "start"},
			{Name: "model_attractor"}, {Name: "model_herd"}, {Name: "model_board_mean", Digits: 5}, {Name: "model_response", Digits: 5},
			{Name: "servers"}, {Name: "sim_response_mean", Digits: 5}, {Name: "sim_response_se", Digits: 2}, {Name: "sim_board_mean", Digits: 5},
			{Name: "model_response_se", Digits: 2}, {Name: "model_truncation", Digits: 1}, {Name: "model_maps"},
		},
	}
	if _, _, note := s.Model(); note != "" {
		t.Notes = append(t.Notes, note)
	}
	addSizes(t, s.Service, false)
	for _, r := range h.Rows {
		c := hysteresisCells{dispatchers: s.Dispatchers, load: s.Load, refresh: r.Refresh, start: r.Start.String()}
		if r.HasModel {
			if r.ModelErr != nil && r.Model.Status == meanfield.Unconverged {
				t.Warnings = append(t.Warnings, fmt.Sprintf("T = %g, start %s: the model did not settle: %v", r.Refresh, r.Start, r.ModelErr))
			}
			a := r.Model
			c.modelAttractor, c.modelHerd = herdKind(a), a.Herd
			c.modelBoardMean, c.modelResponse = finite(a.BoardMean), finite(a.Response)
			c.modelResponseSE, c.modelTruncation, c.maps = finite(a.ResponseSE), a.Truncation, a.Maps
		}
		if r.HasSim {
			c.servers, c.simResponse, c.simSE, c.simBoard = s.Servers, r.Sim.Response.Mean, finite(r.Sim.Response.SE), r.Sim.Board.Mean
		}
		t.AddRow(c.row()...)
	}
	switch {
	case !h.HasBistable:
	case h.BistableErr != nil:
		t.Warnings = append(t.Warnings, "bistable range: "+h.BistableErr.Error())
	default:
		t.Notes = append(t.Notes, bistableNote(h.Bistable))
	}
	return t
}

func herdKind(a meanfield.HerdAttractor) string { return compare.AttractorName(a) }

func bistableNote(b meanfield.BistableResult) string { return compare.BistableNote(b) }
