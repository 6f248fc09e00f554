package compare

import (
	"context"
	"errors"
	"math"
	"strconv"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// This file runs herd plan's work in order: the model of the fleet, its
// edge, the changes to weigh, the simulator's runs of every option at the
// fleet's N, and the bracket of the edge at N.

// PlanSettings are one herd plan run: the fleet and the simulator's
// effort.
type PlanSettings struct {
	Fleet           PlanFleet
	Runs, Refreshes int  // runs per option, each Refreshes periods long (PlanSimConfig)
	Bracket         bool // bracket the edge at N (where PlanBracketable)
	Seed            uint64
	Workers         int
	// ExactEdge computes the refresh map's edge of s by the exact search
	// (the caller's schedule and progress), or reports false where that
	// would cost more than the caller allows: the edge then comes from the
	// heavy-traffic limit map, labelled an approximation.
	ExactEdge func(s meanfield.EdgeSettings) (EdgePoint, bool)
	// AsPrinted, when not nil, rounds a refresh period the search suggests
	// (in service times) to the value the caller prints for it, so that the
	// suggested flag typed back reproduces the option's row to the bit
	// (the simulator's seeds follow the configuration's bits).
	AsPrinted func(T float64) float64
}

// PlanHooks report herd plan's progress; any may be nil.
type PlanHooks struct {
	Stage   func(i int)           // stage i of PlanStages begins
	Weigh   func(costs []float64) // the simulator's runs and their costs (RunCost)
	RunDone func(cost float64)    // one of them finished
	Bracket func(done, total int) // the bracket's runs so far (its total grows)
}

// PlanStages are herd plan's stages, in order.
var PlanStages = []string{"model", "edge", "changes", "simulator", "bracket"}

// PlanOption is one row of herd plan: the fleet as it is (Fix.Name "now")
// or a change to it, from one start, with the model's answer and the
// simulator's runs (SimDone false when they did not all finish).
type PlanOption struct {
	Fix      PlanFix
	Start    PlanStart
	Model    PlanModel
	ModelErr error
	Sim      SimRow
	SimDone  bool
}

// PlanEdge is the refresh map's edge for the fleet: T_edge in service
// times and T_edge(1−λ)², how it was found ("exact", or "limit": the
// heavy-traffic limit map, an approximation with error Err in x), or why
// there is none (Failure nil: the fleet's model has no edge).
type PlanEdge struct {
	Found           bool
	Refresh, Scaled float64
	Method          string
	Err             float64
	Point           *EdgePoint
	Failure         error
}

// PlanResult is everything herd plan computed.
type PlanResult struct {
	Model      PlanModel
	ModelErr   error
	Edge       PlanEdge
	Options    []PlanOption
	Bracket    *BracketResult
	BracketErr error
	Stopped    bool // ctx was cancelled: what is here is what finished
}

// Plan runs herd plan for s.
func Plan(ctx context.Context, s PlanSettings, h PlanHooks) PlanResult {
	stop := func() bool { return ctx.Err() != nil }
	stage := func(i int) {
		if h.Stage != nil {
			h.Stage(i)
		}
	}
	var r PlanResult
	stage(0)
	r.Model, r.ModelErr = PlanModelAt(s.Fleet, stop)
	stage(1)
	r.Edge = planEdge(s, stop)
	stage(2)
	r.Options = planOptions(s, r, stop)
	if ctx.Err() != nil {
		r.Stopped = true
		return r
	}
	stage(3)
	planSimulate(ctx, s, r.Options, h)
	if s.Bracket && r.Edge.Found && PlanBracketable(s.Fleet) && ctx.Err() == nil {
		stage(4)
		r.Bracket, r.BracketErr = planBracket(ctx, s, r.Edge, h)
	}
	r.Stopped = ctx.Err() != nil
	return r
}

// PlanBracketable reports whether herd bracket's system is the fleet's:
// least loaded with own tallies, k ≥ 2 dispatchers, not partitioned.
func PlanBracketable(f PlanFleet) bool {
	return f.Policy.Kind == fleet.LeastLoaded && f.Tally == sim.TallyOwn && !f.Partitioned && f.Dispatchers >= 2
}

// planEdge is the fleet's edge: the exact search where s.ExactEdge takes
// it, else the limit map's x*(k) for sizes of squared coefficient of
// variation C, T_edge ≈ C·x*(k)/(1−λ)² (meanfield.Limit.Variance).
func planEdge(s PlanSettings, stop func() bool) PlanEdge {
	es, ok, err := PlanEdgeSettings(s.Fleet)
	if err != nil || !ok {
		return PlanEdge{Failure: err}
	}
	es.RelTol = meanfield.DefaultEdgeRelTol
	es.Workers = min(max(s.Workers, 1), 64)
	if p, exact := s.ExactEdge(es); exact {
		if p.Err != nil || p.Result.Status != meanfield.Found {
			return PlanEdge{Failure: p.Err, Point: &p}
		}
		return PlanEdge{Found: true, Refresh: p.Result.Refresh, Scaled: p.Result.Scaled, Method: "exact", Point: &p}
	}
	l, err := MapLimit(es.Dispatchers, MapLimitSettings{Variance: LimitVariance(es.Service), Stop: stop, Workers: es.Workers})
	if err != nil || !l.Exists {
		return PlanEdge{Failure: err}
	}
	d := (1 - es.Load) * (1 - es.Load)
	return PlanEdge{Found: true, Refresh: l.Value / d, Scaled: l.Value, Method: "limit", Err: l.Err}
}

// planOptions lists the rows: the fleet from both starts, then each
// change the model or the simulator can weigh.
func planOptions(s PlanSettings, r PlanResult, stop func() bool) []PlanOption {
	now := PlanFix{Name: "now", Change: "(as it is)", Fleet: s.Fleet}
	opts := []PlanOption{{Fix: now, Start: PlanQuiet}, {Fix: now, Start: PlanLoaded}}
	for i := range opts {
		opts[i].Model, opts[i].ModelErr = r.Model, r.ModelErr
	}
	fixes := append(planSearchFixes(s.Fleet, r, s.AsPrinted, stop), PlanFixes(s.Fleet)...)
	for _, fx := range fixes {
		o := PlanOption{Fix: fx, Start: PlanQuiet}
		o.Model, o.ModelErr = PlanModelAt(fx.Fleet, stop)
		opts = append(opts, o)
	}
	return opts
}

// planSearchFixes are the changes found by a search on the model: a
// shorter refresh period, a longer one past the edge, fewer dispatchers.
// They apply where the model is the refresh map and the fleet is not
// balanced from both starts. A change's Change names its flag with the
// refresh period in service times; the caller writes it in its units
// (PlanFix.Fleet has the value, rounded by asPrinted when not nil).
func planSearchFixes(f PlanFleet, r PlanResult, asPrinted func(float64) float64, stop func() bool) []PlanFix {
	if !r.Model.Covered || r.Model.State == "" || r.Model.State == PlanBalanced {
		return nil
	}
	if asPrinted == nil {
		asPrinted = func(T float64) float64 { return T }
	}
	var fixes []PlanFix
	if T, err := PlanShorterRefresh(f, stop); err == nil {
		g := f
		g.Refresh = asPrinted(T)
		fixes = append(fixes, PlanFix{Name: "shorter-refresh", Change: "--refresh", Fleet: g,
			Note: "the longest refresh period (within 9%) at which the model is balanced from a quiet start and after a surge"})
	}
	if e := r.Edge; e.Found && r.Model.State == PlanHerd && 1.1*e.Refresh > f.Refresh && 1.1*e.Refresh <= PlanMaxRefresh {
		g := f
		g.Refresh = asPrinted(1.1 * e.Refresh)
		fixes = append(fixes, PlanFix{Name: "longer-refresh", Change: "--refresh", Fleet: g,
			Note: "10% past the edge: the balanced state exists, but a fleet-wide surge can still trap the fleet in the herd (bistable)"})
	}
	if k, err := PlanFewerDispatchers(f, stop); err == nil && k > 0 {
		g := f
		g.Dispatchers = k
		fixes = append(fixes, PlanFix{Name: "fewer-dispatchers", Change: "--dispatchers " + strconv.Itoa(k), Fleet: g,
			Note: "the most dispatchers at which the model is balanced from both starts at this refresh period"})
	}
	return fixes
}

// PlanMaxRefresh is the longest refresh period herd plan weighs, in mean
// service times: where the refresh map's range ends.
const PlanMaxRefresh = ModelMaxRefresh

// planSimulate runs every option's simulator runs at N, with a tipping
// watch on each; the runs' seeds come from s.Seed and each run's
// configuration, so the result does not depend on s.Workers.
func planSimulate(ctx context.Context, s PlanSettings, opts []PlanOption, h PlanHooks) {
	cfgs := make([]sim.Config, len(opts))
	for j, o := range opts {
		cfgs[j] = PlanSimConfig(o.Fix.Fleet, o.Start, s.Refreshes)
	}
	tasks, _ := SimTasks(cfgs, s.Runs, s.Seed)
	watch := WatchTips(tasks)
	costs := RunCosts(tasks)
	if h.Weigh != nil {
		h.Weigh(costs)
	}
	res, done, _ := sim.RunAllNotify(ctx, tasks, s.Workers, func(i int, _ sim.Result, _, _ int) {
		if h.RunDone != nil {
			h.RunDone(costs[i])
		}
	})
	for j := range opts {
		runs := make([]SimRun, 0, s.Runs)
		for i := j * s.Runs; i < (j+1)*s.Runs && done != nil && done[i]; i++ {
			runs = append(runs, SimRun{Result: res[i], Tipped: watch[i].Tipped, TipTime: watch[i].At, Drift: watch[i].Drift()})
		}
		if len(runs) == s.Runs {
			opts[j].Sim, opts[j].SimDone = SummarizeSimRow(tasks[j*s.Runs].Config, runs), true
		}
	}
}

// PlanBracketResolution is the bracket's resolution in T(1−λ)² inside
// herd plan: twice herd bracket's default, for a check within seconds,
// with the run length of plan's simulations (herd bracket's default is
// 1,000 refreshes).
const PlanBracketResolution = 0.1

// planBracket brackets the edge at the fleet's N with herd bracket's
// detector, around the model's edge.
func planBracket(ctx context.Context, s PlanSettings, edge PlanEdge, h PlanHooks) (*BracketResult, error) {
	f := s.Fleet
	bs := BracketSettings{Servers: f.Servers, Dispatchers: f.Dispatchers, Load: f.Load, Sizes: f.Sizes,
		ModelScaled: edge.Scaled, Resolution: PlanBracketResolution, Refreshes: s.Refreshes, Cut: s.Refreshes,
		Seed: s.Seed, Workers: s.Workers}
	if err := bs.Validate(); err != nil {
		return nil, err
	}
	b, err := Bracket(ctx, bs, nil, h.Bracket)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(b.Lower) || math.IsNaN(b.Upper) {
		return &b, errors.New("the runs did not bracket the edge")
	}
	return &b, nil
}
