package compare

import (
	"context"
	"errors"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// HysteresisSettings are the points of herd hysteresis: the balanced and
// herd branches of k dispatchers (least loaded with tallies) against the
// refresh period T, one point per (T, start state), each as the refresh
// map's attractor and, with Servers > 0, as simulated runs; and the
// model's bistable range.
type HysteresisSettings struct {
	Dispatchers int
	Load        float64
	Refresh     []float64     // the periods T, in mean service times
	Starts      []fleet.Start // the start states, each at every T
	Tally       sim.Tally     // own, shared or scaled
	Partitioned bool
	Sizes       fleet.Sizes       // the job-size law the simulator draws from
	Service     meanfield.Service // the model's service law for Sizes
	// Bistable asks for the model's bistable range (meanfield.Bistable).
	// The model starts each row from meanfield.StartBoardAt of its start.
	Bistable bool
	// The simulator: Servers 0 means the model only; otherwise Runs runs
	// of Refreshes refresh periods each per point, seeds mixed from Seed.
	Servers, Runs, Refreshes int
	Seed                     uint64
	// Stop, when not nil, is polled after every map of the model's runs;
	// once it reports true they end (meanfield.ErrStopped) and their rows
	// are left without a model (herd's Ctrl-C).
	Stop func() bool
}

// Model returns the refresh map that stands for the settings: own tallies
// as they are (k); shared tallies and partitions are the k = 1 map as
// N → ∞; the scaled tally has no model (ok false). note says which, for
// the table ("" for own tallies).
func (s HysteresisSettings) Model() (k int, ok bool, note string) {
	switch {
	case s.Tally == sim.TallyScaled:
		return s.Dispatchers, false, "the scaled tally has no model here (see meanfield/hysteresis.go): simulator only"
	case s.Tally == sim.TallyShared || s.Partitioned:
		return 1, true, "shared tallies and partitions are the k = 1 refresh map as N → ∞"
	}
	return s.Dispatchers, true, ""
}

// HysteresisRow is one (T, start) of herd hysteresis: the model's
// attractor when it was computed (HasModel) and the simulator's summary
// when all its runs finished (HasSim).
type HysteresisRow struct {
	Refresh  float64
	Start    fleet.Start
	HasModel bool
	Model    meanfield.HerdAttractor
	ModelErr error // FindHerdAttractor's error, if any
	HasSim   bool
	Sim      sim.Summary
}

// Hysteresis is herd hysteresis's answer: one row per (T, start), T
// outermost, and the bistable range when it was asked for and computed
// (HasBistable; BistableErr when it failed).
type Hysteresis struct {
	Rows        []HysteresisRow
	HasBistable bool
	Bistable    meanfield.BistableResult
	BistableErr error
}

// Rows returns the points of s, one per (T, start), T outermost, with
// nothing computed yet.
func (s HysteresisSettings) Rows() []HysteresisRow {
	rows := make([]HysteresisRow, 0, len(s.Refresh)*len(s.Starts))
	for _, T := range s.Refresh {
		for _, st := range s.Starts {
			rows = append(rows, HysteresisRow{Refresh: T, Start: st})
		}
	}
	return rows
}

// SimConfig is the simulator's configuration at one row.
func (s HysteresisSettings) SimConfig(r HysteresisRow) sim.Config {
	return sim.Config{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Refresh: r.Refresh,
		Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: s.Tally, Partitioned: s.Partitioned,
		Start: r.Start, Horizon: float64(s.Refreshes) * r.Refresh, Sizes: s.Sizes}
}

// Tasks returns the simulator's runs, Runs per row in row order (none
// when Servers is 0), or the first configuration's Validate error.
func (s HysteresisSettings) Tasks(rows []HysteresisRow) ([]sim.Task, error) {
	if s.Servers == 0 {
		return nil, nil
	}
	var tasks []sim.Task
	for _, r := range rows {
		c := s.SimConfig(r)
		if err := c.Validate(); err != nil {
			return nil, err
		}
		key := c.Key()
		for rep := 0; rep < s.Runs; rep++ {
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(s.Seed, key, rep)})
		}
	}
	return tasks, nil
}

// HysteresisModelCosts are the relative costs of HysteresisModel's pool
// items, for a progress estimate only: a row's attractor grows with its
// period T (as PointCost), and the bistable range, which searches the edge
// and scans the herd over the periods, counts as all the rows together.
func HysteresisModelCosts(s HysteresisSettings, rows []HysteresisRow) []float64 {
	var costs []float64
	all := 0.0
	for _, r := range rows {
		c := max(1, r.Refresh)
		costs = append(costs, c)
		all += c
	}
	if s.Bistable {
		costs = append(costs, all)
	}
	return costs
}

// HysteresisHooks report the model's jobs (rows, then the bistable range)
// starting, each map of a row's attractor run and their end, by job; any
// may be nil. They may be called from several goroutines at once.
type HysteresisHooks struct {
	Begin  func(job int)
	Mapped func(job int, r meanfield.MapReport)
	End    func(job int)
}

// HysteresisModel computes the model's attractor at every row
// (meanfield.FindHerdAttractor from the row's start board) and, with
// s.Bistable, the bistable range (meanfield.Bistable), all on pool. It
// does nothing when s has no model (Model).
func HysteresisModel(s HysteresisSettings, rows []HysteresisRow, pool Pool, hooks HysteresisHooks) Hysteresis {
	h := Hysteresis{Rows: rows}
	k, ok, _ := s.Model()
	if !ok {
		return h
	}
	jobs := len(rows)
	if s.Bistable {
		jobs++
	}
	model := make([]meanfield.HerdAttractor, len(rows))
	errs := make([]error, len(rows))
	var bis meanfield.BistableResult
	var bisErr error
	done := pool(jobs, func(i int) {
		if hooks.Begin != nil {
			hooks.Begin(i)
		}
		if hooks.End != nil {
			defer hooks.End(i)
		}
		if i == len(rows) {
			bis, bisErr = meanfield.Bistable(meanfield.BistableSettings{Dispatchers: k, Load: s.Load, Service: s.Service,
				Attractor: meanfield.HerdSettings{AttractorSettings: meanfield.AttractorSettings{Stop: s.Stop}}})
			return
		}
		r := meanfield.Refresh{Dispatchers: k, Load: s.Load, Period: rows[i].Refresh, Service: s.Service}
		as := meanfield.AttractorSettings{Stop: s.Stop}
		if hooks.Mapped != nil {
			as.Mapped = func(r meanfield.MapReport) { hooks.Mapped(i, r) }
		}
		model[i], errs[i] = meanfield.FindHerdAttractor(r, s.Service.Lift(meanfield.StartBoardAt(rows[i].Start, rows[i].Refresh)), meanfield.HerdSettings{AttractorSettings: as})
	})
	for i := range rows {
		if done[i] && !errors.Is(errs[i], meanfield.ErrStopped) {
			h.Rows[i].HasModel, h.Rows[i].Model, h.Rows[i].ModelErr = true, model[i], errs[i]
		}
	}
	if s.Bistable && done[len(rows)] && !errors.Is(bisErr, meanfield.ErrStopped) {
		h.HasBistable, h.Bistable, h.BistableErr = true, bis, bisErr
	}
	return h
}

// HysteresisSim runs tasks (Tasks) on at most workers goroutines and
// stores each row's summary when all its runs finished; progress, if set,
// is called after each run.
func HysteresisSim(ctx context.Context, s HysteresisSettings, h *Hysteresis, tasks []sim.Task, workers int, notify func(i int, r sim.Result, done, total int)) {
	res, done, _ := sim.RunAllNotify(ctx, tasks, workers, notify)
	for i := range h.Rows {
		lo, hi := i*s.Runs, (i+1)*s.Runs
		ok := true
		for _, d := range done[lo:hi] {
			ok = ok && d
		}
		if ok {
			h.Rows[i].Sim, h.Rows[i].HasSim = sim.Summarize(tasks[lo].Config, res[lo:hi]), true
		}
	}
}
