package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/meanfield"
	"herd/sim"
)

// planInput is herd plan's fleet, in the operator's units and in herd's.
type planInput struct {
	fleet            compare.PlanFleet
	refresh, service time.Duration
	rate             float64 // requests per second over the fleet; 0 when --load was given
	sizes            planSizes
	runs, refreshes  int
	bracket          bool
	seed             uint64
	workers          int
	format, plot     string
	progress         string
}

// seconds converts a time in mean service times to seconds.
func (in planInput) seconds(t float64) float64 { return t * in.service.Seconds() }

// planFlagSet defines herd plan's flags.
type planFlagSet struct {
	servers, dispatchers        *int
	refresh, service            *durationValue
	rate                        *string
	load                        *float64
	sizes, sizesFile, sizesUnit *string
	policy, tally               *string
	partitioned, noBracket      *bool
	runs, refreshes             *int
	seed                        *uint64
	plot, progress              *string
	out                         *outputFlags
}

func addPlanFlags(fs *pflag.FlagSet) planFlagSet {
	refresh, service := &durationValue{}, &durationValue{}
	fs.Var(refresh, "refresh", "how often the dispatchers' view of the backends' queues is refreshed (metrics scrape, health-report or weight-update interval), a Go duration: 100ms, 1s, 15s; required")
	fs.Var(service, "service", "mean service time of one request on a backend, a Go duration: 50ms; required unless --sizes-file gives it")
	return planFlagSet{
		refresh:     refresh,
		service:     service,
		servers:     fs.Int("servers", 0, "backends N, integer in [1, 100000]; required"),
		dispatchers: fs.Int("dispatchers", 0, "dispatchers k (proxy replicas, routers, load-balancer instances), integer in [1, 256] and at most --servers; required"),
		load:        fs.Float64("load", 0, "utilisation λ of the backends, in [1e-06, 1): busy time per backend per unit time; give it or --rate"),
		rate:        fs.String("rate", "", "requests per unit time over the whole fleet: 3200/s (per s, ms, min or h); give it or --load"),
		sizes:       fs.String("sizes", "exp", "request-size law of mean --service: exp, h2:C (a long tail: squared coefficient of variation C in [1, 10000]), erlang:K (K in [1, 64], more regular than exp)"),
		sizesFile:   fs.String("sizes-file", "", "a file of observed service times, one per line (in --sizes-unit): herd fits a law to their mean and squared coefficient of variation, shows the fit and warns when their tail is heavier; instead of --sizes"),
		sizesUnit:   fs.String("sizes-unit", "1ms", "the unit of the numbers in --sizes-file, a Go duration"),
		policy:      fs.String("policy", "ll", "how a dispatcher picks a backend: ll (least loaded / least requests / least connections on its view), p2c (power of two choices), sqd:D (best of D), rr (round robin), random"),
		tally:       fs.String("tally", "own", "what a dispatcher adds to the stale view between refreshes: own (its own in-flight requests since the refresh, as Envoy, NGINX and YARP least-request do), none, shared (every dispatcher's)"),
		partitioned: fs.Bool("partitioned", false, "each dispatcher sends only to its own block of N/k backends"),
		runs:        fs.Int("runs", 4, "simulator runs per option at --servers N, integer in [2, 1000] (intervals are Student-t with runs − 1 d.f.)"),
		refreshes:   fs.Int("refreshes", compare.PlanSimRefreshes, fmt.Sprintf("length of each simulator run in refresh periods (at least %g mean service times), integer in [10, 100000]", float64(compare.PlanSimMinHorizon))),
		noBracket:   fs.Bool("no-bracket", false, "skip bracketing the edge with the simulator at --servers N (least loaded with own tallies only)"),
		seed:        seedFlag(fs),
		plot:        plotFlag(fs, "the model's mean response time (ms) against the refresh period from a quiet start and after a surge, with the fleet's refresh marked,"),
		progress:    addProgressFlag(fs),
		out:         addOutputFlags(fs, "simulator runs and model points"),
	}
}

func runPlan(ctx context.Context, e *env, args []string) error {
	in, err := parsePlan(e, args)
	if err != nil {
		return err
	}
	r := computePlan(ctx, e, in)
	t := planTable(in, r)
	return writeTable(ctx, e, t, in.format, func() error {
		if in.plot == "" || ctx.Err() != nil {
			return nil
		}
		return plotPlan(ctx, in, r)
	})
}

// parsePlan reads and checks herd plan's flags, converting the fleet into
// herd's units.
func parsePlan(e *env, args []string) (planInput, error) {
	fs := newFlags(e, "plan", "plan --servers N --dispatchers K --refresh DUR --service DUR (--load L | --rate R/s) [flags]")
	f := addPlanFlags(fs)
	if err := parse(fs, args); err != nil {
		return planInput{}, err
	}
	var in planInput
	var err error
	if in.format, err = f.out.check(); err != nil {
		return in, err
	}
	if err := checkProgressMode(*f.progress); err != nil {
		return in, err
	}
	if err := checkPlotPath(*f.plot); err != nil {
		return in, err
	}
	in.workers, in.plot, in.progress, in.seed = *f.out.workers, *f.plot, *f.progress, *f.seed
	in.bracket = !*f.noBracket
	if err := requirePlanFlags(fs); err != nil {
		return in, err
	}
	if err := f.fleet(fs, &in); err != nil {
		return in, err
	}
	if in.runs, in.refreshes = *f.runs, *f.refreshes; in.runs < 2 || in.runs > 1000 {
		return in, usagef("--runs %d: want an integer in [2, 1000]", in.runs)
	}
	if in.refreshes < 10 || in.refreshes > 100000 {
		return in, usagef("--refreshes %d: want an integer in [10, 100000]", in.refreshes)
	}
	return in, nil
}

// requirePlanFlags names the required flags not given.
func requirePlanFlags(fs *pflag.FlagSet) error {
	for _, name := range []string{"servers", "dispatchers", "refresh"} {
		if !fs.Changed(name) {
			return usagef("--%s is required: %s", name, fs.Lookup(name).Usage)
		}
	}
	if !fs.Changed("service") && !fs.Changed("sizes-file") {
		return usagef("--service is required (or --sizes-file, whose mean it then is): %s", fs.Lookup("service").Usage)
	}
	switch {
	case fs.Changed("load") && fs.Changed("rate"):
		return usagef("--load and --rate both given: give one (the load is rate × service / servers)")
	case !fs.Changed("load") && !fs.Changed("rate"):
		return usagef("--load or --rate is required: the backends' utilisation λ, or the fleet's request rate (3200/s)")
	case fs.Changed("sizes") && fs.Changed("sizes-file"):
		return usagef("--sizes and --sizes-file both given: give one")
	case fs.Changed("sizes-unit") && !fs.Changed("sizes-file"):
		return usagef("--sizes-unit: no --sizes-file, so it would change nothing")
	}
	return nil
}

// fleet converts the fleet's flags into in.
func (f planFlagSet) fleet(fs *pflag.FlagSet, in *planInput) error {
	n, k := *f.servers, *f.dispatchers
	if n < 1 || n > 100000 {
		return usagef("--servers %d: want an integer in [1, 100000]", n)
	}
	if k < 1 || k > 256 {
		return usagef("--dispatchers %d: want an integer in [1, 256]", k)
	}
	if k > n {
		return usagef("--dispatchers %d: want at most --servers (%d)", k, n)
	}
	var err error
	in.refresh = f.refresh.d
	if err := f.sizesAndService(fs, in); err != nil {
		return err
	}
	lam := *f.load
	if fs.Changed("rate") {
		if in.rate, err = parseRate(*f.rate); err != nil {
			return err
		}
		if lam, err = planLoad(in.rate, in.service, n); err != nil {
			return err
		}
	} else if !modelLoad(lam) {
		return usagef("--load %v: want a utilisation in [%g, 1)", lam, modelMinLoad)
	}
	name := *f.policy
	if name == "p2c" { // the operators' name of best of two
		name = "sqd:2"
	}
	pol, err := sim.ParsePolicy(name)
	if err != nil || !planPolicy(pol) {
		return usagef("--policy %q: want ll, p2c, sqd:D (D in [2, 1024]), rr or random", *f.policy)
	}
	tally, err := sim.ParseTally(*f.tally)
	if err != nil {
		return usagef("--tally %q: want own, none, shared or scaled", *f.tally)
	}
	in.fleet = compare.PlanFleet{Servers: n, Dispatchers: k, Load: lam, Refresh: in.refresh.Seconds() / in.service.Seconds(),
		Sizes: in.sizes.sizes, Policy: pol, Tally: tally, Partitioned: *f.partitioned}
	if *f.partitioned && n < k {
		return usagef("--partitioned with --servers %d < --dispatchers %d: each dispatcher needs a block of at least one backend", n, k)
	}
	return planRefreshRange(in)
}

// planPolicy reports whether herd plan weighs policy p.
func planPolicy(p sim.Policy) bool {
	switch p.Kind {
	case sim.LeastLoaded, sim.RoundRobin, sim.Random:
		return true
	case sim.BestOfD:
		return p.D >= 2
	}
	return false
}

// planRefreshRange checks that the refresh period in service times is
// one the model and simulator take: T in [0.01, 1e6].
func planRefreshRange(in *planInput) error {
	T := in.fleet.Refresh
	if T < compare.PlanMinRefresh || T > modelMaxRefresh {
		return usagef("--refresh %v is %.3g mean service times (--service %v): want between %g and %g of them", in.refresh, T, in.service, compare.PlanMinRefresh, float64(modelMaxRefresh))
	}
	if in.fleet.Servers > 1 {
		if err := in.fleet.Validate(); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// sizesAndService reads --sizes or --sizes-file, and --service.
func (f planFlagSet) sizesAndService(fs *pflag.FlagSet, in *planInput) error {
	svc := f.service.d
	if fs.Changed("sizes-file") {
		unit, err := parseDuration("sizes-unit", *f.sizesUnit)
		if err != nil {
			return err
		}
		in.sizes, err = sizesFromFile(*f.sizesFile, unit, svc)
		in.service = in.sizes.service
		return err
	}
	z, _, err := modelSizes(*f.sizes)
	if err != nil {
		return err
	}
	in.sizes, in.service = planSizes{sizes: z, service: svc}, svc
	return nil
}

// planOption is one row of herd plan: the fleet as it is or a change to
// it, from one start, with the model's answer and the simulator's runs.
type planOption struct {
	fix      compare.PlanFix // Name "now" for the fleet as it is
	start    compare.PlanStart
	model    compare.PlanModel
	modelErr error
	sim      compare.SimRow
	simDone  bool
}

// planEdge is the refresh map's edge for the fleet: T_edge in service
// times, how it was found, and its error where it is an approximation.
type planEdge struct {
	found           bool
	refresh, scaled float64
	method          string // "exact" or "limit"
	err             float64
	point           *compare.EdgePoint
	failure         error
}

// planResult is everything herd plan computed.
type planResult struct {
	model      compare.PlanModel
	modelErr   error
	edge       planEdge
	options    []planOption
	bracket    *compare.BracketResult
	bracketErr error
	noShorter  bool // no shorter refresh period is balanced
	stopped    bool
}

// planStages are herd plan's progress stages, in order.
var planStages = []string{"model", "edge", "changes", "simulator", "bracket"}

// computePlan does herd plan's work: the model, its edge, the changes to
// weigh, the simulator's runs of each and the bracket at N.
func computePlan(ctx context.Context, e *env, in planInput) planResult {
	stop := stopOn(ctx)
	prog := newPlanProgress(e, in.progress)
	defer prog.close()
	var r planResult
	prog.stage(0)
	r.model, r.modelErr = compare.PlanModelAt(in.fleet, stop)
	prog.stage(1)
	r.edge = planEdgeOf(ctx, e, in, stop)
	prog.stage(2)
	r.options = planOptions(in, r, stop)
	if ctx.Err() != nil {
		r.stopped = true
		return r
	}
	prog.stage(3)
	planSimulate(ctx, in, r.options, prog)
	if in.bracket && r.edge.found && planBracketable(in.fleet) && ctx.Err() == nil {
		prog.stage(4)
		r.bracket, r.bracketErr = planBracket(ctx, in, r.edge, prog)
	}
	r.stopped = ctx.Err() != nil
	return r
}

// planBracketable reports whether herd bracket's system is the fleet's:
// least loaded with own tallies, not partitioned.
func planBracketable(f compare.PlanFleet) bool {
	return f.Policy.Kind == sim.LeastLoaded && f.Tally == sim.TallyOwn && !f.Partitioned && f.Dispatchers >= 2
}

// planExactBudget is the longest exact edge search herd plan makes, by
// exactWarning's estimate; a dearer one is answered by the heavy-traffic
// limit map instead (labelled as an approximation).
const planExactBudget = 60 * time.Second

// planEdgeOf is the fleet's edge: herd edge's exact search at the same
// (k, λ, sizes) when it fits planExactBudget, else the limit map's x*(k)
// scaled by C, T_edge ≈ C·x*(k)/(1−λ)².
func planEdgeOf(ctx context.Context, e *env, in planInput, stop func() bool) planEdge {
	s, ok, err := compare.PlanEdgeSettings(in.fleet)
	if err != nil || !ok {
		return planEdge{failure: err}
	}
	s.RelTol = meanfield.DefaultEdgeRelTol
	s.Workers = min(max(in.workers, 1), 64)
	// Heavy tails cost more: the edge's T and the board's rows grow like
	// C, the windows' phases with them (measured: k = 5, λ = 0.9 took
	// about 1 s with exp sizes and 14 minutes with h2:10), so C³.
	c := math.Max(compare.LimitVariance(s.Service), 1)
	cost := time.Duration(compare.EdgeCost(s) * c * c * c * exactCostSeconds * 2 / float64(max(in.workers, 2)) * float64(time.Second))
	if s.Load > autoExactMax || cost > planExactBudget {
		return planLimitEdge(s, stop)
	}
	pts := computeEdges(ctx, e, "plan", progressNever(in.progress), []meanfield.EdgeSettings{s}, in.workers, false)
	p := pts[0]
	if p.Err != nil || p.Result.Status != meanfield.Found {
		return planEdge{failure: p.Err, point: &p}
	}
	return planEdge{found: true, refresh: p.Result.Refresh, scaled: p.Result.Scaled, method: methodExact, point: &p}
}

// planLimitEdge is the edge from the heavy-traffic limit map.
func planLimitEdge(s meanfield.EdgeSettings, stop func() bool) planEdge {
	l, err := compare.MapLimit(s.Dispatchers, compare.MapLimitSettings{Variance: compare.LimitVariance(s.Service), Stop: stop})
	if err != nil || !l.Exists {
		return planEdge{failure: err}
	}
	d := (1 - s.Load) * (1 - s.Load)
	return planEdge{found: true, refresh: l.Value / d, scaled: l.Value, method: "limit", err: l.Err}
}

// progressNever is the mode of the edge search's own progress inside herd
// plan: plan's stages already show it.
func progressNever(string) string { return "never" }

// planOptions lists the rows: the fleet from both starts, then each
// change the model or the simulator can weigh.
func planOptions(in planInput, r planResult, stop func() bool) []planOption {
	now := compare.PlanFix{Name: "now", Change: "(as it is)", Fleet: in.fleet}
	opts := []planOption{{fix: now, start: compare.PlanQuiet}, {fix: now, start: compare.PlanLoaded}}
	opts[0].model, opts[0].modelErr = r.model, r.modelErr
	opts[1].model, opts[1].modelErr = r.model, r.modelErr
	fixes := planSearchFixes(in, r, stop)
	fixes = append(fixes, compare.PlanFixes(in.fleet)...)
	for _, fx := range fixes {
		o := planOption{fix: fx, start: compare.PlanQuiet}
		o.model, o.modelErr = compare.PlanModelAt(fx.Fleet, stop)
		opts = append(opts, o)
	}
	return opts
}

// planSearchFixes are the changes found by a search on the model: a
// shorter refresh period, a longer one past the edge, fewer dispatchers.
// They apply where the model is the refresh map and the fleet is not
// balanced from both starts.
func planSearchFixes(in planInput, r planResult, stop func() bool) []compare.PlanFix {
	f := in.fleet
	if !r.model.Covered || r.model.State == "" || r.model.State == compare.PlanBalanced {
		return nil
	}
	var fixes []compare.PlanFix
	if T, err := compare.PlanShorterRefresh(f, stop); err == nil {
		g := f
		g.Refresh = T
		fixes = append(fixes, compare.PlanFix{Name: "shorter-refresh", Change: "--refresh " + fmtDuration(in.seconds(T)), Fleet: g,
			Note: "the longest refresh period (within 9%) at which the model is balanced from a quiet start and after a surge"})
	}
	if r.edge.found && r.model.State == compare.PlanHerd && 1.1*r.edge.refresh > f.Refresh && 1.1*r.edge.refresh <= modelMaxRefresh {
		g := f
		g.Refresh = 1.1 * r.edge.refresh
		fixes = append(fixes, compare.PlanFix{Name: "longer-refresh", Change: "--refresh " + fmtDuration(in.seconds(g.Refresh)), Fleet: g,
			Note: "10% past the edge: the balanced state exists, but a fleet-wide surge can still trap the fleet in the herd (bistable)"})
	}
	if k, err := compare.PlanFewerDispatchers(f, stop); err == nil && k > 0 {
		g := f
		g.Dispatchers = k
		fixes = append(fixes, compare.PlanFix{Name: "fewer-dispatchers", Change: "--dispatchers " + strconv.Itoa(k), Fleet: g,
			Note: "the most dispatchers at which the model is balanced from both starts at this refresh period"})
	}
	return fixes
}

// planSimulate runs every option's simulator runs at N, with a tipping
// watch on each.
func planSimulate(ctx context.Context, in planInput, opts []planOption, prog *planProgress) {
	var tasks []sim.Task
	for _, o := range opts {
		c := compare.PlanSimConfig(o.fix.Fleet, o.start, in.refreshes)
		key := c.Key()
		for i := 0; i < in.runs; i++ {
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(in.seed, key, i)})
		}
	}
	watch := make([]*compare.TipWatch, len(tasks))
	costs := make([]float64, len(tasks))
	for i := range tasks {
		watch[i] = compare.NewTipWatch(tasks[i].Config)
		tasks[i].Config.Observe = watch[i].Observe
		costs[i] = compare.RunCost(tasks[i].Config)
	}
	prog.weigh(costs)
	res, done, _ := sim.RunAllNotify(ctx, tasks, in.workers, func(i int, _ sim.Result, _, _ int) { prog.doneCost(costs[i]) })
	for j := range opts {
		runs := make([]compare.SimRun, 0, in.runs)
		ok := true
		for i := j * in.runs; i < (j+1)*in.runs; i++ {
			if done == nil || !done[i] {
				ok = false
				break
			}
			runs = append(runs, compare.SimRun{Result: res[i], Tipped: watch[i].Tipped, TipTime: watch[i].At, Drift: watch[i].Drift()})
		}
		if ok {
			opts[j].sim, opts[j].simDone = compare.SummarizeSimRow(tasks[j*in.runs].Config, runs), true
		}
	}
}

// planBracketResolution is the bracket's resolution in T(1−λ)² inside
// herd plan: twice herd bracket's default, for a check within seconds
// (with the run length of plan's simulations, --refreshes, where herd
// bracket's default is 1,000).
const planBracketResolution = 0.1

// planBracket brackets the edge at the fleet's N with herd bracket's
// detector and run length, around the model's edge.
func planBracket(ctx context.Context, in planInput, edge planEdge, prog *planProgress) (*compare.BracketResult, error) {
	f := in.fleet
	s := compare.BracketSettings{Servers: f.Servers, Dispatchers: f.Dispatchers, Load: f.Load, Sizes: f.Sizes,
		ModelScaled: edge.scaled, Resolution: planBracketResolution, Refreshes: in.refreshes, Cut: in.refreshes, Seed: in.seed, Workers: in.workers}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	b, err := compare.Bracket(ctx, s, nil, func(done, total int) { prog.growing(done, total) })
	if err != nil {
		return nil, err
	}
	if math.IsNaN(b.Lower) || math.IsNaN(b.Upper) {
		return &b, errors.New("the runs did not bracket the edge")
	}
	return &b, nil
}
