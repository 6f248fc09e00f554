package meanfield

import (
	"errors"
	"fmt"
	"math"
	"time"

	"herd/fleet"
)

// ClassicResult is the mean-field answer of ClassicModel.
type ClassicResult struct {
	// ResponseMean is the mean time in system, in mean service times.
	ResponseMean float64
	// QueueMean is the mean number of jobs per server, λ·ResponseMean by
	// Little's law (for periodic updates: the time average over a
	// period, averaged over the cycle).
	QueueMean float64
	// Period is 1 for a stationary state or a fixed point of the
	// periodic-update map, P ≥ 2 for a cycle of P refresh periods, and 0
	// for an irregular attractor whose long-run average is reported
	// (least loaded at long refresh periods).
	Period int
	// Status is FixedPoint (a stationary state or a fixed point), Periodic
	// (a cycle), Aperiodic (that irregular case) or, with an error,
	// Unconverged.
	Status Status
	// ResponseSE is the batch-means standard error of ResponseMean for an
	// irregular attractor, 0 otherwise.
	ResponseSE float64
	// Batches is the number of batch means behind ResponseSE (0 when it
	// is 0).
	Batches int
	// Stats.Maps counts map applications (for round robin: evaluations of
	// the transform; 0 for the other closed forms).
	Stats
}

// ClassicSettings chooses one of ClassicModel's models. The zero value of
// Refresh and Servers means their limits (live information, N → ∞).
type ClassicSettings struct {
	// Policy is fleet.Random, fleet.RoundRobin, fleet.BestOfD with D ≥ 1
	// choices (with replacement or not: the same as N → ∞) or
	// fleet.LeastLoaded.
	Policy fleet.Policy
	// Load is λ, in (0, 1).
	Load float64
	// Refresh is the refresh period T, in [0, ∞) (at most 1e4 for the
	// periodic-update models); 0 means live information.
	Refresh float64
	// Servers is N for round robin, at least 0; 0 means N → ∞.
	Servers int
	// Stop, when not nil, is polled after every map of a periodic-update
	// model (PeriodicUpdate.Stop); once it reports true ClassicModel ends
	// with an error wrapping ErrStopped.
	Stop func() bool `json:"-"`
	// Mapped, when not nil, is passed to a periodic-update model
	// (PeriodicUpdate.Mapped): the maps made and the most it will make.
	Mapped func(maps, maxMaps int) `json:"-"`
}

// ClassicModel returns the infinite-server model's answer for the classic
// policies of the CLI (herd model --policy random|rr|sqd:D|ll --load L
// --refresh T [--servers N]), one dispatcher without tally:
//
//   - random: each server is an M/M/1 queue, 1/(1 − λ) (MM1Response),
//     whatever refresh and servers.
//   - rr: round robin over servers ≥ 1 servers is E_N/M/1 (ErlangM1);
//     servers = 0 means N → ∞, D/M/1 (DM1). refresh is ignored.
//   - sqd:D with D ≥ 1: refresh = 0 is the supermarket model with live
//     information (SupermarketResponse); refresh > 0 is the periodic-update
//     SQ(D) map of PeriodicUpdate, solved from the empty board.
//   - ll: refresh = 0 returns 1 (QueueMean λ): with infinitely many
//     servers and live information a share 1 − λ > 0 of servers is idle,
//     so every job starts service at once; this limit is degenerate (the
//     100-server simulation gives 1.07). refresh > 0 is the periodic-update
//     least-loaded map, solved from the empty board; where it has no fixed
//     point or short cycle (λ = 0.9: T ≳ 5) the result is the long-run
//     average over the second half of DefaultPeriodicMaxIterLL maps, with
//     Period 0, Status Aperiodic and a batch-means ResponseSE.
//
// servers matters only for rr; the other models are mean-field limits.
// ClassicModel returns an error for a policy without a model here (see
// HasClassicModel), a load outside (0, 1), a negative or non-finite
// refresh (or above 1e4 for the periodic-update models), D < 1 for sqd:D,
// servers < 0, and the errors of the underlying solvers (ErrNotConverged
// for an unconverged sqd map).
func ClassicModel(s ClassicSettings) (ClassicResult, error) {
	start := time.Now()
	r, err := classicModel(s.Policy, s.Load, s.Refresh, s.Servers, s.Stop, s.Mapped)
	r.Runtime = time.Since(start)
	return r, err
}

// classicModel is ClassicModel with the settings spelled out.
func classicModel(policy fleet.Policy, load, refresh float64, servers int, stop func() bool, mapped func(maps, maxMaps int)) (ClassicResult, error) {
	if err := closedFormLoadErr(load); err != nil {
		return ClassicResult{}, err
	}
	if !(refresh >= 0) || math.IsInf(refresh, 1) {
		return ClassicResult{}, fmt.Errorf("meanfield: refresh period T = %v outside [0, ∞)", refresh)
	}
	if servers < 0 {
		return ClassicResult{}, fmt.Errorf("meanfield: servers N = %d outside [0, ∞) (0 means N → ∞)", servers)
	}
	closed := func(resp float64) ClassicResult {
		return ClassicResult{ResponseMean: resp, QueueMean: load * resp, Period: 1, Status: FixedPoint}
	}
	periodic := func(u PeriodicUpdate) (ClassicResult, error) {
		u.Stop, u.Mapped = stop, mapped
		r, err := u.Solve(nil)
		res := ClassicResult{
			ResponseMean: r.Response, QueueMean: r.QueueMean, Period: r.Period,
			Status: r.Status, ResponseSE: r.ResponseSE, Batches: r.Batches, Stats: r.Stats,
		}
		if err != nil && !(u.Policy == UpdateLeastLoaded && errors.Is(err, ErrNotConverged) && r.Averaged > 0) {
			return res, err
		}
		if res.Status == Unconverged {
			res.Status = Aperiodic // the long-run average of an irregular attractor
		}
		return res, nil
	}
	switch policy.Kind {
	case fleet.Random:
		return closed(1 / (1 - load)), nil
	case fleet.RoundRobin:
		var r GIM1Result
		var err error
		if servers == 0 {
			r, err = DM1(load)
		} else {
			r, err = ErlangM1(servers, load)
		}
		if err != nil {
			return ClassicResult{}, err
		}
		res := closed(r.Response)
		res.Stats = r.Stats
		return res, nil
	case fleet.BestOfD:
		if policy.D < 1 {
			return ClassicResult{}, fmt.Errorf("meanfield: choices d = %d outside [1, ∞)", policy.D)
		}
		if refresh == 0 {
			r, err := SupermarketResponse(policy.D, load)
			if err != nil {
				return ClassicResult{}, err
			}
			return closed(r), nil
		}
		return periodic(periodicUpdate(policy, load, refresh))
	case fleet.LeastLoaded:
		if refresh == 0 {
			return closed(1), nil
		}
		return periodic(periodicUpdate(policy, load, refresh))
	}
	return ClassicResult{}, fmt.Errorf("meanfield: policy %s not one of random, rr, sqd:D, ll", policy)
}

// HasClassicModel reports whether ClassicModel has a model of policy p:
// random, round robin, best of D and least loaded (D is checked by
// ClassicModel).
func HasClassicModel(p fleet.Policy) bool {
	switch p.Kind {
	case fleet.Random, fleet.RoundRobin, fleet.BestOfD, fleet.LeastLoaded:
		return true
	}
	return false
}

// periodicUpdate is the periodic-update model of a rule that reads the
// board, best of D (UpdateSQD with its D; as N → ∞, D probes with
// replacement are D distinct servers) or least loaded, at load and
// refresh period refresh.
func periodicUpdate(p fleet.Policy, load, refresh float64) PeriodicUpdate {
	u := PeriodicUpdate{Policy: UpdateSQD, D: p.D, Load: load, Period: refresh}
	if p.Kind == fleet.LeastLoaded {
		u.Policy, u.D = UpdateLeastLoaded, 0
	}
	return u
}
