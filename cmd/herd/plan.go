package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/compare/progress"
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

// asPrinted is a refresh period t (service times) as herd plan prints the
// flag that suggests it (fmtDuration), read back as --refresh reads it.
func (in planInput) asPrinted(t float64) float64 {
	return printedDuration(in.seconds(t)).Seconds() / in.service.Seconds()
}

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
	pol, err := compare.ParsePlanPolicy(*f.policy)
	if err != nil {
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

// planExactBudget is the longest exact edge search herd plan makes, by
// exactWarning's estimate; a dearer one is answered by the heavy-traffic
// limit map instead (labelled as an approximation).
const planExactBudget = 60 * time.Second

// computePlan does herd plan's work (compare.Plan) with progress on
// stderr, one job through compare.PlanStages (the simulator's runs with
// the share of their cost done and the time left, the bracket's total
// growing as it goes); the edge's exact search is herd edge's, on the
// worker pool.
func computePlan(ctx context.Context, e *env, in planInput) compare.PlanResult {
	stages := progress.NewStages(e.stderr, isTerminal(e.stderr), progress.Mode(in.progress), "plan", "fleet", []string{"plan"})
	prog := progress.NewTally(stages, 0)
	defer func() {
		prog.Finish()
		stages.Close()
	}()
	s := compare.PlanSettings{Fleet: in.fleet, Runs: in.runs, Refreshes: in.refreshes, Bracket: in.bracket, Seed: in.seed, Workers: in.workers, AsPrinted: in.asPrinted,
		ExactEdge: func(s meanfield.EdgeSettings) (compare.EdgePoint, bool) {
			// Priced on two cores whatever --workers, so that the
			// answer does not depend on it.
			cost := time.Duration(compare.EdgeCostSized(s) * exactCostSeconds * float64(time.Second))
			if s.Load > autoExactMax || cost > planExactBudget {
				return compare.EdgePoint{}, false
			}
			return computeEdges(ctx, e, "plan", "never", []meanfield.EdgeSettings{s}, in.workers, 0, nil)[0], true
		}}
	return compare.Plan(ctx, s, compare.PlanHooks{Stage: func(i int) { prog.Stage(compare.PlanStages[i]) }, Weigh: prog.Weigh, RunDone: prog.Done, Bracket: prog.Growing})
}
