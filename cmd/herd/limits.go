package main

// Size limits of the commands' inputs, checked before anything is
// allocated. The simulator's own limits (servers, dispatchers, probes,
// start jobs, arrivals and board records per run, memory) live in
// sim.Config.Validate; this file turns its errors into the command line's
// words and holds the limits of the refresh map's inputs (herd point,
// herd hysteresis) and of herd balls.

import (
	"errors"
	"fmt"
	"math"
	"strconv"

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

// The refresh map's inputs (herd point, herd hysteresis).
const (
	// modelMaxDispatchers is meanfield's own bound on k (Refresh.Validate).
	modelMaxDispatchers = 256
	// modelMinRefresh: below T = 0.01 the map contracts so slowly that it
	// does not settle in the default 5,000 maps, and rounding shows (at
	// T = 10⁻³ the unconverged board reports a mean time below one
	// service time; at T ≤ 10⁻¹² the board collapses to one row).
	modelMinRefresh = 0.01
	// modelMaxRefresh is meanfield's bound on T.
	modelMaxRefresh = 1e6
	// modelMinLoad: the map drops up to its truncation tolerance (10⁻¹²)
	// of mass per application, so the mean queue is exact to about
	// 10⁻¹²/λ relative; λ ≥ 10⁻⁶ keeps that below 10⁻⁶ (at λ = 10⁻¹¹ the
	// board mean comes out 0).
	modelMinLoad = 1e-6
	// modelMaxStart bounds the queue length of a start board (its rows):
	// each map application costs time in proportion to the rows, and a
	// queue drains at only 1 − λ per service time.
	modelMaxStart = 100_000
)

// modelRangeHelp is the limits text of the model commands' flags.
var modelRangeHelp = struct{ dispatchers, load, refresh, start string }{
	dispatchers: fmt.Sprintf("integer in [1, %d]", modelMaxDispatchers),
	load:        fmt.Sprintf("in [%g, 1)", modelMinLoad),
	refresh:     fmt.Sprintf("in [%g, %g]", modelMinRefresh, modelMaxRefresh),
	start:       fmt.Sprintf("queue lengths at most %d", modelMaxStart),
}

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

// modelStartRows returns the queue length q of a start board given as v
// (times T when perT), or a usage error naming flag when it is beyond
// modelMaxStart; it is computed in float64, so 1e308 is refused, never
// wrapped.
func modelStartRows(flag, name string, v float64, perT bool, refresh float64) (int, error) {
	if perT {
		v *= refresh
	}
	q := math.Round(v)
	if !(q >= 0 && q <= modelMaxStart) {
		return 0, usagef("--%s %s: a queue of %.3g jobs at T = %g, want at most %d (each map costs time in proportion to the queue)",
			flag, name, q, refresh, modelMaxStart)
	}
	return int(q), nil
}

// herd balls.
const (
	// ballsMaxBins: a run keeps two int32 per bin (loads and the stale
	// view), so 2²⁷ bins take 1 GiB.
	ballsMaxBins = 1 << 27
	// ballsMaxBalls: about 10 ns per probe, so 10¹¹ balls are hours per run.
	ballsMaxBalls = 100_000_000_000
)

// checkBalls checks n bins and m balls (m = 0: m = n).
func checkBalls(n, m int) error {
	switch {
	case n > ballsMaxBins:
		return usagef("--bins %d: want an integer in [1, %d] (8 bytes per bin: %.3g GB)", n, ballsMaxBins, 8*float64(n)/1e9)
	case m > ballsMaxBalls:
		return usagef("--balls %d: want an integer in [1, %.0e] (time)", m, float64(ballsMaxBalls))
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
const maxSweepRuns = 1_000_000
