package main

// Size limits of the commands' inputs, checked before anything is
// allocated. The simulator's own limits (servers, dispatchers, probes,
// start jobs, arrivals and board records per run, memory) live in
// sim.Config.Validate; this file turns its errors into the command line's
// words and checks the limits of the refresh map's inputs (herd point,
// herd hysteresis) and of herd balls, which compare gives with their
// reasons.

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"herd/compare"
	"herd/compare/sweep"
	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// simFlags names the herd sim flag behind each sim.Config field.
var simFlags = map[string]string{
	"Servers": "servers", "Dispatchers": "dispatchers", "Load": "load", "Refresh": "refresh",
	"Policy": "policy", "Tally": "tally", "Partitioned": "partitioned", "Sizes": "sizes",
	"Start": "start", "Horizon": "horizon", "Warmup": "warmup", "FirstDiffCap": "firstdiff-cap",
}

// simUsage rewrites a sim.Config validation error as a usage error naming
// the flag; rename maps a Config field to another flag where the command
// spells it differently (herd hysteresis: Start is --starts).
func simUsage(err error, rename map[string]string) error {
	var ce *sim.ConfigError
	if errors.As(err, &ce) {
		flag, ok := rename[ce.Field]
		if !ok {
			flag, ok = simFlags[ce.Field]
		}
		if ok {
			return usagef("--%s %s: %s", flag, ce.Value, ce.Msg)
		}
	}
	return usagef("%s", flagOf(err))
}

// The refresh map's inputs (herd point, herd hysteresis): compare's
// range, where each bound's reason is given.
const (
	modelMaxDispatchers = compare.ModelMaxDispatchers
	modelMinRefresh     = compare.ModelMinRefresh
	modelMaxRefresh     = compare.ModelMaxRefresh
	modelMinLoad        = compare.ModelMinLoad
	modelMaxStart       = compare.ModelMaxStart
	// maxModelEdge bounds herd bracket's --model-edge, in T(1−λ)², as
	// --branch-from bounds where the edge search starts.
	maxModelEdge = 1000
)

// modelRangeHelp is the limits text of the model commands' flags.
var modelRangeHelp = struct{ dispatchers, load, refresh, start string }{
	dispatchers: fmt.Sprintf("integer in [1, %d]", modelMaxDispatchers),
	load:        fmt.Sprintf("in [%g, 1)", modelMinLoad),
	refresh:     fmt.Sprintf("in [%g, %g]", modelMinRefresh, modelMaxRefresh),
	start:       fmt.Sprintf("queue lengths at most %d", modelMaxStart),
}

// modelLoad reports whether λ is in the refresh map's range
// [modelMinLoad, 1); modelLoadWant says so in a message.
func modelLoad(x float64) bool { return x >= modelMinLoad && x < 1 }

var modelLoadWant = fmt.Sprintf("a number in [%g, 1) (the refresh map's range)", modelMinLoad)

// checkModel checks k, λ and T for the refresh map, naming the flags.
func checkModel(k int, load, refresh float64) error {
	switch {
	case k < 1 || k > modelMaxDispatchers:
		return usagef("--dispatchers %d: want an integer in [1, %d] (the refresh map's range)", k, modelMaxDispatchers)
	case !(load >= modelMinLoad && load < 1):
		return usagef("--load %v: want a number in [%g, 1) (below, the map's truncation swamps the queue)", load, modelMinLoad)
	case !(refresh >= modelMinRefresh && refresh <= modelMaxRefresh):
		return usagef("--refresh %v: want a number in [%g, %g] service times (the refresh map's range)", refresh, modelMinRefresh, modelMaxRefresh)
	}
	return nil
}

// modelStartRows returns the queue length q of the start board st, written
// as name, at period refresh (st.Resolved), or a usage error naming flag
// when it is beyond modelMaxStart; it is computed in float64, so 1e308 is
// refused, never wrapped.
func modelStartRows(flag, name string, st fleet.Start, refresh float64) (int, error) {
	q := st.Resolved(refresh)
	if !(q >= 0 && q <= modelMaxStart) {
		return 0, usagef("--%s %s: a queue of %.3g jobs at T = %g, want at most %d (each map costs time in proportion to the queue)",
			flag, name, q, refresh, modelMaxStart)
	}
	return int(q), nil
}

// checkBalls checks n bins and m balls (m = 0: m = n).
func checkBalls(n, m int) error {
	switch {
	case n > compare.BallsMaxBins:
		return usagef("--bins %d: want an integer in [1, %d] (8 bytes per bin: %.3g GB)", n, compare.BallsMaxBins, 8*float64(n)/1e9)
	case m > compare.BallsMaxBalls:
		return usagef("--balls %d: want an integer in [1, %.0e] (time)", m, float64(compare.BallsMaxBalls))
	}
	return nil
}

// simRangeHelp is the limits text of herd sim's size flags.
var simRangeHelp = struct{ servers, dispatchers, probes, start string }{
	servers:     "integer in [1, " + strconv.Itoa(sim.MaxServers) + "]",
	dispatchers: "integer in [1, " + strconv.Itoa(sim.MaxDispatchers) + "]",
	probes:      "D ≤ " + strconv.Itoa(sim.MaxProbes),
	start:       "at most " + strconv.Itoa(sim.MaxStartJobs) + " jobs in all",
}

// maxSweepRuns bounds the runs one command does (rows × --runs): each is
// planned (its configuration, seed and identity, a few hundred bytes)
// before any starts.
const maxSweepRuns = sweep.MaxRuns

// ballsRangeHelp is the limits text of herd balls' size flags.
var ballsRangeHelp = struct{ bins, balls string }{
	bins:  "integer in [1, " + strconv.Itoa(compare.BallsMaxBins) + "]",
	balls: "integer in [1, 1e11]",
}

// edgeLoadHelp is the --load range of the commands that search for the
// edge: the search starts at T(1−λ)² = meanfield.EdgeFooting(k) (the law's
// estimate) and may not start above the map's T ≤ modelMaxRefresh.
var edgeLoadHelp = fmt.Sprintf("in [%g, 1), with T = 0.9(k−2)/(1−λ)² ≤ %g where the search starts", modelMinLoad, modelMaxRefresh)

// checkEdge checks one (k, λ) of an edge search before any work: k in
// the map's range, λ in [modelMinLoad, 1), and the search's first period
// T = EdgeFooting(k)/(1−λ)² within the map's T ≤ modelMaxRefresh.
func checkEdge(k int, load float64) error {
	switch {
	case k < 1 || k > modelMaxDispatchers:
		return usagef("--dispatchers %d: want an integer in [1, %d] (the refresh map's range)", k, modelMaxDispatchers)
	case !(load >= modelMinLoad && load < 1):
		return usagef("--load %v: want a number in [%g, 1)", load, modelMinLoad)
	}
	x := meanfield.EdgeFooting(k)
	if t := x / ((1 - load) * (1 - load)); t > modelMaxRefresh {
		return usagef("--load %v with --dispatchers %d: the edge search starts at T = %.3g (T(1−λ)² = %g), above the refresh map's T ≤ %g; want λ ≤ %.5f for k = %d",
			load, k, t, x, modelMaxRefresh, 1-math.Sqrt(x/modelMaxRefresh), k)
	}
	return nil
}

// checkBracket checks herd bracket's flags against the model's edge search
// (which every bracket starts from) and the simulator's limits at each
// --grid value (at T = 1 without a grid).
func checkBracket(ns []int, k int, load float64, runs, refreshes int, grid []float64, model float64) error {
	if err := checkEdge(k, load); err != nil {
		return err
	}
	if k == 1 && grid == nil {
		return usagef("--dispatchers 1: one dispatcher has no edge, so the adaptive bracket has nowhere to start: give --grid")
	}
	if runs := len(ns) * len(grid) * runs; runs > maxSweepRuns {
		return usagef("--servers, --grid and --runs give %d runs, want at most %d (shorten the lists)", runs, maxSweepRuns)
	}
	xs := grid
	switch {
	case xs == nil && model > 0:
		xs = []float64{0.8 * model, 1.7 * model} // the adaptive search's first grid
	case xs == nil:
		xs = []float64{(1 - load) * (1 - load)} // T = 1
	}
	for _, n := range ns {
		for _, x := range xs {
			c := compare.BracketSettings{Servers: n, Dispatchers: k, Load: load, Refreshes: refreshes}.RunConfig(x)
			if math.IsInf(c.Refresh, 0) || math.IsInf(c.Horizon, 0) {
				return usagef("--grid %g: T = grid/(1−λ)², times --refreshes %d, overflows", x, refreshes)
			}
			if err := c.Validate(); err != nil {
				var ce *sim.ConfigError
				if errors.As(err, &ce) && (ce.Field == "Refresh" || ce.Field == "Horizon") {
					return usagef("--grid %g at --servers %d, --refreshes %d: %s", x, n, refreshes, ce.Msg)
				}
				return simUsage(err, nil)
			}
		}
	}
	return nil
}

// Range checks of the results herd merge reads back from part files: a
// value no run can produce (jobs = −5, a negative mean) marks the part
// corrupt.

// nonNeg reports whether x is a number ≥ 0 (+Inf allowed only if inf).
func nonNeg(x sweep.Float, inf bool) bool {
	f := float64(x)
	return f >= 0 && (inf || !math.IsInf(f, 0))
}

func (r simRun) Check() error {
	switch {
	case r.Jobs < 0 || r.Arrivals < 0 || r.Jobs > r.Arrivals:
		return fmt.Errorf("jobs %d, arrivals %d: want 0 ≤ jobs ≤ arrivals", r.Jobs, r.Arrivals)
	case r.Records < 0:
		return fmt.Errorf("records %d: want ≥ 0", r.Records)
	case !nonNeg(r.ResponseMean, false) || (r.Jobs > 0 && r.ResponseMean == 0):
		return fmt.Errorf("response_mean %v: want a finite number > 0 (0 with no job)", float64(r.ResponseMean))
	case !nonNeg(r.BoardMean, false) || !nonNeg(r.ProbesMean, false):
		return fmt.Errorf("board_mean %v, probes_mean %v: want finite numbers ≥ 0", float64(r.BoardMean), float64(r.ProbesMean))
	case !(r.End > 0) || math.IsInf(float64(r.End), 0):
		return fmt.Errorf("end %v: want a finite number > 0", float64(r.End))
	}
	return nil
}

func (r pointRun) Check() error {
	switch {
	case r.Kind != meanfield.FixedPoint && r.Kind != meanfield.Periodic && r.Kind != meanfield.Aperiodic && r.Kind != meanfield.Unconverged:
		return fmt.Errorf("kind %d: not an attractor kind", int(r.Kind))
	case r.Period < 0 || r.Iterations < 0:
		return fmt.Errorf("period %d, iterations %d: want ≥ 0", r.Period, r.Iterations)
	case r.Kind != meanfield.Unconverged && (!nonNeg(r.BoardMean, false) || !nonNeg(r.QueueMean, false) || !nonNeg(r.Response, false)):
		return fmt.Errorf("board_mean %v, queue_mean %v, response %v: want finite numbers ≥ 0",
			float64(r.BoardMean), float64(r.QueueMean), float64(r.Response))
	case !(r.Truncation >= 0 && r.Truncation <= 1):
		return fmt.Errorf("truncation %v: want a number in [0, 1]", float64(r.Truncation))
	}
	return nil
}

func (r bracketRun) Check() error {
	if r.TippedAt < -1 {
		return fmt.Errorf("tipped_at %d: want −1 (survived) or a refresh ≥ 0", r.TippedAt)
	}
	return nil
}

func (r modelRun) Check() error {
	switch {
	case r.Period < 0 || r.Iterations < 0:
		return fmt.Errorf("period %d, iterations %d: want ≥ 0", r.Period, r.Iterations)
	case r.Err == "" && (!(float64(r.Response) >= 0) || !(float64(r.Queue) >= 0)):
		return fmt.Errorf("response %v, queue %v: want numbers ≥ 0", float64(r.Response), float64(r.Queue))
	}
	return nil
}

// checkClassic checks a herd model policy against its model's range
// (compare.PeriodicMaxRefresh and PeriodicMaxD give the reasons).
func checkClassic(p fleet.Policy, refresh float64) error {
	if refresh == 0 || (p.Kind != fleet.BestOfD && p.Kind != fleet.LeastLoaded) {
		return nil
	}
	name := "ll" // the periodic-update model's name: ll or sqd, whatever D
	if p.Kind == fleet.BestOfD {
		name = "sqd"
	}
	switch {
	case refresh < modelMinRefresh || refresh > compare.PeriodicMaxRefresh:
		return usagef("--refresh %g: want 0 (a live board) or a number in [%g, %g] for the periodic-update model of --policy %s",
			refresh, modelMinRefresh, float64(compare.PeriodicMaxRefresh), name)
	case p.Kind == fleet.BestOfD && p.D > compare.PeriodicMaxD:
		return usagef("--policy sqd:%d: want D ≤ %d on a stale board (the periodic-update map; a live board takes any D)", p.D, compare.PeriodicMaxD)
	}
	return nil
}
