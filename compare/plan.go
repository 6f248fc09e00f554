package compare

import (
	"errors"
	"fmt"
	"math"

	"herd/fixedpoint"
	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// This file is the computing half of herd plan: an operator's fleet in
// herd's units (PlanFleet), what the model says of it (PlanModelAt), the
// changes that could take it out of the herd (PlanFixes) and the
// simulator's runs of each at the fleet's own N (PlanSimConfig). cmd/herd
// converts the operator's units, schedules the work and writes the answer.

// PlanFleet is a fleet in herd's units: N servers, k dispatchers, load λ,
// refresh period T in mean service times, the job sizes (mean 1), the
// dispatch rule, the tally and whether dispatchers own blocks of servers.
type PlanFleet struct {
	Servers, Dispatchers int
	Load, Refresh        float64
	Sizes                fleet.Sizes
	Policy               fleet.Policy
	Tally                sim.Tally
	Partitioned          bool
}

// ParsePlanPolicy reads a dispatch rule that herd plan weighs: least
// loaded, best of D ≥ 2, round robin or random, in fleet.ParsePolicy's
// words or the operators' p2c (power of two choices, sqd:2). The alias is
// herd plan's alone: herd sim, which speaks fleet's words, refuses it.
func ParsePlanPolicy(s string) (fleet.Policy, error) {
	if s == "p2c" {
		s = "sqd:2"
	}
	p, err := fleet.ParsePolicy(s)
	if err != nil {
		return p, err
	}
	switch {
	case p.Kind == fleet.LeastLoaded, p.Kind == fleet.RoundRobin, p.Kind == fleet.Random, p.Kind == fleet.BestOfD && p.D >= 2:
		return p, nil
	}
	return p, fmt.Errorf("compare: herd plan does not weigh policy %s", p)
}

// Validate checks f as herd sim would run it.
func (f PlanFleet) Validate() error {
	return f.simConfig(PlanQuiet, 10).Validate()
}

// Scaled is the fleet's T(1−λ)².
func (f PlanFleet) Scaled() float64 { return f.Refresh * (1 - f.Load) * (1 - f.Load) }

// String is the fleet as herd sim's flags name it.
func (f PlanFleet) String() string {
	s := fmt.Sprintf("N=%d k=%d λ=%g T=%g policy=%s tally=%s sizes=%s", f.Servers, f.Dispatchers, f.Load, f.Refresh, f.Policy, f.Tally, f.Sizes)
	if f.Partitioned {
		s += " partitioned"
	}
	return s
}

// Plan states (PlanModel.State).
const (
	PlanBalanced = "balanced" // both the quiet and the loaded start reach the balanced state
	PlanBistable = "bistable" // the quiet start reaches it, the loaded start stays in a herd
	PlanHerd     = "herd"     // not even the quiet start reaches it
)

// PlanModel is the model's answer for a fleet as N → ∞: which model, the
// state the fleet settles in from a quiet start (an empty board) and from
// a loaded one (half the servers at 0.1·T jobs,
// meanfield.DefaultHerdStart), and the mean time in system of each. A
// fleet no model here covers has Covered false and Why says why.
type PlanModel struct {
	Covered bool
	Why     string
	// Model names the model: "refresh map, k = K", "periodic-update
	// least loaded", "M/M/1", …
	Model string
	// State is PlanBalanced, PlanBistable or PlanHerd for the refresh map;
	// "" for a model of one state (the classic models).
	State string
	// Quiet and Loaded are the mean times in system from the two starts
	// (the same for a model of one state), in mean service times.
	Quiet, Loaded float64
	// Exact is false where a number is a long-run average of an orbit
	// that does not settle (with ResponseSE its batch-means error).
	Exact      bool
	ResponseSE float64
}

// planMapDispatchers is the k of the refresh map that is f's limit as
// N → ∞ (package doc of meanfield, §2: partitioned dispatchers and a
// shared tally reduce to k = 1), or 0 where the map does not apply.
func planMapDispatchers(f PlanFleet) int {
	if f.Policy.Kind != fleet.LeastLoaded {
		return 0
	}
	switch f.Tally {
	case sim.TallyOwn:
		if f.Partitioned {
			return 1
		}
		return f.Dispatchers
	case sim.TallyShared:
		return 1
	case sim.TallyScaled:
		if f.Dispatchers == 1 || f.Partitioned {
			return 1 // k × own sends with k = 1, or one dispatcher a block
		}
	}
	return 0
}

// PlanEdgeSettings is the edge search of f's refresh map (herd edge at the
// same k, λ and sizes), and false when f's model is not the refresh map
// or its k never tips (k = 1).
func PlanEdgeSettings(f PlanFleet) (meanfield.EdgeSettings, bool, error) {
	k := planMapDispatchers(f)
	if k < 2 {
		return meanfield.EdgeSettings{}, false, nil
	}
	svc, err := ModelService(f.Sizes)
	if err != nil {
		return meanfield.EdgeSettings{}, false, err
	}
	return meanfield.EdgeSettings{Dispatchers: k, Load: f.Load, Service: svc}, true, nil
}

// PlanModelAt is the model's answer for f (PlanModel), its maps stopped
// when stop reports true.
func PlanModelAt(f PlanFleet, stop func() bool) (PlanModel, error) {
	if k := planMapDispatchers(f); k > 0 {
		return planRefreshModel(f, k, stop)
	}
	switch f.Policy.Kind {
	case fleet.Random:
		return planRandom(f)
	case fleet.LeastLoaded:
		if f.Tally == sim.TallyNone {
			return planClassic(f, meanfield.ClassicSettings{Policy: f.Policy, Load: f.Load, Refresh: f.Refresh, Stop: stop}, "periodic-update least loaded (no tally)")
		}
		return PlanModel{Why: fmt.Sprintf("least loaded with --tally %s over %d dispatchers has no mean-field model here", f.Tally, f.Dispatchers)}, nil
	case fleet.BestOfD:
		if f.Tally == sim.TallyNone {
			return planClassic(f, meanfield.ClassicSettings{Policy: f.Policy, Load: f.Load, Refresh: f.Refresh, Stop: stop},
				fmt.Sprintf("periodic-update SQ(%d) (no tally)", f.Policy.D))
		}
		return PlanModel{Why: fmt.Sprintf("sqd:%d with --tally %s has no mean-field model here", f.Policy.D, f.Tally)}, nil
	case fleet.RoundRobin:
		if f.Dispatchers == 1 || f.Partitioned {
			n := f.Servers / f.Dispatchers
			return planClassic(f, meanfield.ClassicSettings{Policy: f.Policy, Load: f.Load, Servers: n}, fmt.Sprintf("E_%d/M/1 (round robin over %d servers)", n, n))
		}
		return PlanModel{Why: "round robin by several dispatchers over the same servers has no model here"}, nil
	}
	return PlanModel{Why: fmt.Sprintf("policy %s has no mean-field model here", f.Policy)}, nil
}

// PlanCurve is the model's answer for f (PlanModelAt) at points refresh
// periods spread evenly in log T from max(T/30, PlanMinRefresh) to
// min(max(4T, 2T_edge), PlanMaxRefresh), T being f's and T_edge edge's
// where found: the curve of mean response against the refresh period
// around the fleet (herd plan --plot). It stops at the first error.
func PlanCurve(f PlanFleet, edge PlanEdge, points int, stop func() bool) (refresh []float64, models []PlanModel, err error) {
	hi := f.Refresh * 4
	if edge.Found {
		hi = math.Max(hi, 2*edge.Refresh)
	}
	hi = math.Min(hi, PlanMaxRefresh)
	lo := math.Max(f.Refresh/30, PlanMinRefresh)
	for i := range points {
		g := f
		g.Refresh = lo * math.Pow(hi/lo, float64(i)/float64(points-1))
		m, err := PlanModelAt(g, stop)
		if err != nil {
			return refresh, models, err
		}
		refresh, models = append(refresh, g.Refresh), append(models, m)
	}
	return refresh, models, nil
}

// planRandom is random dispatching: N independent M/G/1 queues (the
// Pollaczek–Khinchine mean; M/M/1 for exponential sizes).
func planRandom(f PlanFleet) (PlanModel, error) {
	if f.Sizes.Kind == fleet.Exp {
		r, err := meanfield.MM1Response(f.Load)
		return PlanModel{Covered: true, Model: "M/M/1", Quiet: r, Loaded: r, Exact: true}, err
	}
	m2 := f.Sizes.SecondMoment()
	if math.IsInf(m2, 0) || math.IsNaN(m2) {
		return PlanModel{Why: fmt.Sprintf("sizes %s have no finite second moment", f.Sizes)}, nil
	}
	r, err := meanfield.PKResponse(f.Load, m2)
	return PlanModel{Covered: true, Model: "M/G/1 (Pollaczek–Khinchine)", Quiet: r, Loaded: r, Exact: true}, err
}

// planClassic is one of meanfield.ClassicModel's models, which have
// exponential sizes.
func planClassic(f PlanFleet, s meanfield.ClassicSettings, name string) (PlanModel, error) {
	if f.Sizes.Kind != fleet.Exp {
		return PlanModel{Why: name + " is modelled for exponential sizes only"}, nil
	}
	r, err := meanfield.ClassicModel(s)
	if err != nil {
		return PlanModel{}, err
	}
	return PlanModel{Covered: true, Model: name, Quiet: r.ResponseMean, Loaded: r.ResponseMean,
		Exact: r.Status != meanfield.Aperiodic, ResponseSE: r.ResponseSE}, nil
}

// planRefreshModel is the refresh map with k dispatchers from the quiet
// and the loaded start.
func planRefreshModel(f PlanFleet, k int, stop func() bool) (PlanModel, error) {
	svc, err := ModelService(f.Sizes)
	if err != nil {
		return PlanModel{Why: err.Error()}, nil
	}
	r := meanfield.Refresh{Dispatchers: k, Load: f.Load, Period: f.Refresh, Service: svc}
	s := PointSettings{MaxIter: meanfield.DefaultAttractorMaxIter, Tol: meanfield.DefaultPeriodicTol, Stop: stop}
	quiet, err := PointAttractor(r, svc.Lift(meanfield.BoardEmpty()), s)
	if err != nil {
		return PlanModel{}, err
	}
	loaded, err := PointAttractor(r, svc.Lift(meanfield.HerdStartBoard(PlanLoaded.Fleet(), f.Refresh)), s)
	if err != nil {
		return PlanModel{}, err
	}
	m := PlanModel{Covered: true, Model: fmt.Sprintf("refresh map, k = %d", k), Quiet: quiet.Response, Loaded: loaded.Response,
		Exact:      quiet.Status != meanfield.Aperiodic && loaded.Status != meanfield.Aperiodic,
		ResponseSE: math.Max(quiet.ResponseSE, loaded.ResponseSE)}
	switch {
	case !quiet.Balanced:
		m.State = PlanHerd
	case !loaded.Balanced:
		m.State = PlanBistable
	default:
		m.State = PlanBalanced
	}
	return m, nil
}

// PlanFix is one change to the fleet that herd plan weighs: its name,
// the flag that makes it, and the fleet it gives.
type PlanFix struct {
	Name   string // "shorter-refresh", "shared-tally", …
	Change string // e.g. "--tally shared"
	Fleet  PlanFleet
	// Note says what the change costs or risks, for the reader.
	Note string
}

// ErrNoSafeRefresh: no shorter refresh period down to the model's
// smallest reaches the balanced state from both starts.
var ErrNoSafeRefresh = errors.New("compare: no shorter refresh period is balanced")

// PlanMinRefresh is the shortest refresh period PlanShorterRefresh tries,
// in mean service times: where the refresh map's range starts.
const PlanMinRefresh = ModelMinRefresh

// PlanShorterRefresh is the longest refresh period below f's at which the
// model's fleet is balanced from both starts (PlanBalanced), to a factor
// 2^(1/8) ≈ 1.09: halvings from f's T until one is balanced, then three
// bisections of the last factor 2 in log T. It assumes, as the map shows
// for least loaded with tallies, that the balanced range of short periods
// is an interval from 0.
func PlanShorterRefresh(f PlanFleet, stop func() bool) (float64, error) {
	balanced := func(T float64) (bool, error) {
		g := f
		g.Refresh = T
		m, err := PlanModelAt(g, stop)
		return m.State == PlanBalanced, err
	}
	hi := f.Refresh // not balanced
	lo := hi / 2
	for ; ; lo /= 2 {
		if lo < PlanMinRefresh {
			return 0, ErrNoSafeRefresh
		}
		ok, err := balanced(lo)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		hi = lo
	}
	// Three bisections of the factor 2: log 2 / 8 < relTol = 0.09.
	lo, _, err := fixedpoint.BisectGeometric(balanced, lo, hi, 0.09)
	if err != nil {
		return 0, err
	}
	return lo, nil
}

// PlanFewerDispatchers is the largest k' < k at which the model's fleet is
// balanced from both starts at f's refresh period, and 0 where none is
// (k' = 1 is checked too).
func PlanFewerDispatchers(f PlanFleet, stop func() bool) (int, error) {
	for k := f.Dispatchers - 1; k >= 1; k-- {
		g := f
		g.Dispatchers = k
		m, err := PlanModelAt(g, stop)
		if err != nil {
			return 0, err
		}
		if m.Covered && m.State == PlanBalanced {
			return k, nil
		}
	}
	return 0, nil
}

// PlanFixes are the changes herd plan weighs for f, other than the ones
// that need a search (PlanShorterRefresh, a longer refresh past the edge,
// PlanFewerDispatchers): a shared tally, a tally scaled by k, partitioned
// dispatchers, least loaded and power of two, each where it differs from
// f.
func PlanFixes(f PlanFleet) []PlanFix {
	var fixes []PlanFix
	add := func(name, change, note string, g PlanFleet) {
		if g != f {
			fixes = append(fixes, PlanFix{Name: name, Change: change, Fleet: g, Note: note})
		}
	}
	if f.Dispatchers > 1 && (f.Policy.Kind == fleet.LeastLoaded || f.Policy.Kind == fleet.BestOfD) {
		g := f
		g.Tally = sim.TallyShared
		add("shared-tally", "--tally shared", "every dispatcher adds all dispatchers' sends: they must share a counter (or gossip sends) between refreshes", g)
		g = f
		g.Tally = sim.TallyScaled
		add("scaled-tally", "--tally scaled", "each dispatcher counts its own sends k times: no coordination, a guess that the others sent as many", g)
	}
	if f.Dispatchers > 1 && !f.Partitioned && f.Servers >= f.Dispatchers {
		g := f
		g.Partitioned = true
		add("partitioned", "--partitioned", fmt.Sprintf("each dispatcher owns a block of N/k = %d servers: a block's load is no longer shared with the others", f.Servers/f.Dispatchers), g)
	}
	if f.Policy.Kind != fleet.LeastLoaded {
		g := f
		g.Policy = fleet.Policy{Kind: fleet.LeastLoaded}
		add("least-loaded", "--policy ll", "each request to the least loaded backend on the view (with the same tally)", g)
	}
	if f.Policy.Kind != fleet.BestOfD || f.Policy.D != 2 {
		g := f
		g.Policy = fleet.Policy{Kind: fleet.BestOfD, D: 2}
		add("power-of-two", "--policy p2c", "two random servers per request, the less loaded on the board (with the same tally)", g)
	}
	return fixes
}

// PlanStart is a start of herd plan's runs: the quiet start (an empty
// board) or the loaded one (half the servers at 0.1·T jobs, the model's
// meanfield.DefaultHerdStart); Fleet gives its start state.
type PlanStart bool

// The two starts.
const (
	PlanQuiet  PlanStart = false
	PlanLoaded PlanStart = true
)

// Fleet returns the start state of s: empty for the quiet start, the
// model's herd start half:0.1T (meanfield.DefaultHerdStart) for the
// loaded one, so that the simulator and the model start alike.
func (s PlanStart) Fleet() fleet.Start {
	if s == PlanLoaded {
		return meanfield.DefaultHerdStart()
	}
	return fleet.Start{Kind: fleet.StartEmpty}
}

// PlanSimRefreshes is the default run length of herd plan's simulations,
// in refresh periods (at least PlanSimMinHorizon service times).
const PlanSimRefreshes = 300

// PlanSimMinHorizon is the shortest run herd plan simulates, in mean
// service times, so that short refresh periods still measure many jobs.
const PlanSimMinHorizon = 5000

// PlanSimConfig is the simulator's run of f from start, refreshes
// refresh periods long (at least PlanSimMinHorizon), measuring the 99th
// percentile of the response time too.
func PlanSimConfig(f PlanFleet, start PlanStart, refreshes int) sim.Config {
	return f.simConfig(start, refreshes)
}

func (f PlanFleet) simConfig(start PlanStart, refreshes int) sim.Config {
	return sim.Config{Servers: f.Servers, Dispatchers: f.Dispatchers, Load: f.Load, Refresh: f.Refresh,
		Policy: f.Policy, Tally: f.Tally, Partitioned: f.Partitioned, Sizes: f.Sizes, Start: start.Fleet(), Tail: true,
		Horizon: math.Max(float64(refreshes)*f.Refresh, PlanSimMinHorizon)}
}
