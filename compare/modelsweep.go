package compare

import (
	"fmt"

	"herd/fleet"
	"herd/meanfield"
)

// Pool runs work(i) for i in [0, n) in parallel and reports which calls
// finished (done[i] false for a call not started, or dropped when the
// work was cancelled). The model sweeps run on the command line's one
// worker pool through it; work writes its result by index, so the results
// never depend on the number of workers.
type Pool func(n int, work func(i int)) (done []bool)

// ParseModelPolicy reads a simulator policy (fleet.ParsePolicy) that has a
// classic mean-field model (meanfield.HasClassicModel): random, rr, sqd:D
// (sq2) or ll.
func ParseModelPolicy(s string) (fleet.Policy, error) {
	p, err := fleet.ParsePolicy(s)
	if err != nil {
		return fleet.Policy{}, err
	}
	if !meanfield.HasClassicModel(p) {
		return fleet.Policy{}, fmt.Errorf("policy %q has no mean-field model here: want random, rr, sqd:D (sq2) or ll", s)
	}
	return p, nil
}

// ModelPoint is one point of herd model: a policy at load λ, refresh
// period T (0: a live board) and N servers (round robin's E_N/M/1; 0
// means N → ∞).
type ModelPoint struct {
	Policy  fleet.Policy
	Load    float64
	Refresh float64
	Servers int
}

// ModelCost is a point's relative cost, for a progress estimate only: the
// periodic-update maps (sqd and ll with T > 0) iterate a period map whose
// work grows with T; the closed forms take microseconds.
func ModelCost(p ModelPoint) float64 {
	if p.Refresh > 0 && (p.Policy.Kind == fleet.BestOfD || p.Policy.Kind == fleet.LeastLoaded) {
		return max(1, p.Refresh)
	}
	return 1e-3
}

// ModelGrid returns the points of herd model, one per (policy, λ, T, N),
// policy outermost, calling check on each in turn and stopping at its
// first error (a point beyond a model's range, or too many points).
func ModelGrid(pols []fleet.Policy, loads, ts []float64, ns []int, check func(i int, p ModelPoint) error) ([]ModelPoint, error) {
	var pts []ModelPoint
	for _, p := range pols {
		for _, lam := range loads {
			for _, T := range ts {
				for _, n := range ns {
					pt := ModelPoint{Policy: p, Load: lam, Refresh: T, Servers: n}
					if err := check(len(pts), pt); err != nil {
						return nil, err
					}
					pts = append(pts, pt)
				}
			}
		}
	}
	return pts, nil
}

// ModelHooks report a model point starting, each map of a
// periodic-update model (the maps made and the most it will make) and
// its end, by its place k in idx; any may be nil. They may be called from
// several goroutines at once.
type ModelHooks struct {
	Begin  func(k int)
	Mapped func(k, maps, maxMaps int)
	End    func(k int)
}

// ModelResults computes the points at idx (meanfield.ClassicModel) on
// pool: got[k] and errs[k] are pts[idx[k]]'s, done[k] false when it did
// not finish.
func ModelResults(pts []ModelPoint, idx []int, pool Pool, stop func() bool, hooks ModelHooks) (got []meanfield.ClassicResult, errs []error, done []bool) {
	got = make([]meanfield.ClassicResult, len(idx))
	errs = make([]error, len(idx))
	done = pool(len(idx), func(k int) {
		p := pts[idx[k]]
		s := meanfield.ClassicSettings{Policy: p.Policy, Load: p.Load, Refresh: p.Refresh, Servers: p.Servers, Stop: stop}
		if hooks.Mapped != nil {
			s.Mapped = func(maps, maxMaps int) { hooks.Mapped(k, maps, maxMaps) }
		}
		if hooks.Begin != nil {
			hooks.Begin(k)
		}
		got[k], errs[k] = meanfield.ClassicModel(s)
		if hooks.End != nil {
			hooks.End(k)
		}
	})
	return got, errs, done
}
