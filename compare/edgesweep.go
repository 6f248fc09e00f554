package compare

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"herd/fleet"
	"herd/meanfield"
)

// EdgeGrid returns the edge searches of herd edge and herd law: one per
// (λ, k), load outermost, each with base's other fields.
func EdgeGrid(ks []int, loads []float64, base meanfield.EdgeSettings) []meanfield.EdgeSettings {
	settings := make([]meanfield.EdgeSettings, 0, len(ks)*len(loads))
	for _, lam := range loads {
		for _, k := range ks {
			s := base
			s.Dispatchers, s.Load = k, lam
			settings = append(settings, s)
		}
	}
	return settings
}

// EdgeCost is the relative cost of one edge, for ordering and the
// time-left estimate: 25·√(k/5)/(1−λ)³, which is k²/(1−λ)³ at k = 5.
// A map's rows grow as 1/(1−λ) and its windows as T/k ∝ 1/(1−λ)²; with
// the full windows' closed form a window costs about its rows times the
// √k terms of its Poisson law, where the (q, j) chain it replaced cost k²
// (so this was k²/(1−λ)³). Measured with two workers, idle: at λ = 0.995
// k = 3 … 16 took 283–569 s, k = 16 1.4 times k = 5 (√(16/5) = 1.8, k²
// said 10); at λ = 0.99 k = 3 … 10 took 24–52 s; at λ = 0.95 k = 16 took
// 2.7 times k = 3 (2.3).
func EdgeCost(s meanfield.EdgeSettings) float64 {
	k := float64(max(s.Dispatchers, 3))
	return 25 * math.Sqrt(k/5) / math.Pow(1-s.Load, 3)
}

// EdgeCostSized is EdgeCost for s's job sizes. Phase-type sizes (every
// law but exp) take the phase-type map, which has no closed form for its
// full windows; its edges cost EdgeCost times 15·V^2.4, V = max(C, 1/C)
// for sizes of squared coefficient of variation C (h2:C; 1/C = K phases
// for erlang:K): the edge's T and the board's rows grow like C, and
// Erlang's cost with its phases. Fitted to and above most of these
// edges' wall times (two workers, idle 2-core machine, 2026-12-07), as
// price/actual:
//
//	sizes     k   λ     seconds  price/actual
//	h2:2      5   0.9       1.5  1.3
//	h2:4      5   0.9       6.4  1.6
//	h2:4      5   0.8       0.8  1.6
//	h2:4      3   0.9       3.5  2.2
//	h2:10     5   0.9      27.5  3.3
//	h2:10     3   0.9      77    0.92 (a fold: its trials linger)
//	h2:10     6   0.85     15    2.0 (the maps of 2026-12-06)
//	h2:30     3   0.9     527    1.9
//	h2:30    10   0.9    1209    1.5
//	erlang:2  5   0.9       1.8  1.1
//	erlang:4  5   0.9       9.2  1.1
//
// The price was 10·C³ times the maps' k²/(1−λ)³ of 2026-11 before: 4 to
// 60 times these edges' times for h2 sizes, herd plan answering by the
// limit map fleets whose exact edge takes seconds, and a fifth of
// Erlang-4's. It errs low at folds and slow crossings (h2:10 at k = 5,
// λ = 0.95 took about 16 min on the maps of 2026-12-06, priced at 12;
// Erlang-4 at k = 10, λ = 0.9 took 200 s on one worker beside another
// edge, priced at 14 s, where λ = 0.85 took 9.5 s so), and herd edge's
// time left corrects itself from the first edge done.
func EdgeCostSized(s meanfield.EdgeSettings) float64 {
	if s.Service.Kind == meanfield.ServiceExp {
		return EdgeCost(s)
	}
	c := LimitVariance(s.Service)
	return EdgeCost(s) * 15 * math.Pow(max(c, 1/c), 2.4)
}

// EdgePoint is one edge search's outcome: Done is false for a search not
// finished (cancelled, or stopped by its settings' Stop); Err is its failure; Check the plain-iteration
// confirmation when it was asked for and the edge was found.
type EdgePoint struct {
	Settings meanfield.EdgeSettings
	Done     bool
	Result   meanfield.EdgeResult
	Err      error
	Check    *meanfield.EdgeConfirmation
}

// EdgeHooks report an edge search starting, its progress
// (meanfield.EdgeSettings.Progress), its maps as they are made
// (meanfield.EdgeSettings.Mapped) and its end; any may be nil. They may
// be called from several goroutines at once.
type EdgeHooks struct {
	Begin  func(i int)
	Status func(i int, p meanfield.EdgeProgress)
	Mapped func(i int)
	// CheckMapped reports a map of the check by plain iteration (Edges
	// with confirmMaps > 0): its run and report
	// (meanfield.ConfirmSettings.Mapped), after Mapped.
	CheckMapped func(i, run int, r meanfield.MapReport)
	End         func(i int, p EdgePoint)
}

// CheckStep is the step EdgeHooks.Status reports while an edge found is
// checked by plain iteration (Edges with confirmMaps > 0).
const CheckStep = "check by plain iteration"

// Edges computes the edges of settings (meanfield.Edge) on pool, costliest
// first (EdgeCost), so the workers stay busy to the end; with confirmMaps
// > 0, each edge found is checked by plain iteration (meanfield.ConfirmEdge)
// at T_edge(1 ± 1e-4), at most confirmMaps maps a run. The points are
// stored by index, so the order does not reach the output: the one
// schedule of herd edge and herd law.
func Edges(settings []meanfield.EdgeSettings, confirmMaps int, pool Pool, hooks EdgeHooks) []EdgePoint {
	// The workers write into work; a search still running when the pool
	// returns (cancelled) never touches the points returned.
	work := make([]EdgePoint, len(settings))
	order := make([]int, len(settings))
	weights := make([]float64, len(settings))
	for i, s := range settings {
		work[i].Settings, order[i], weights[i] = s, i, EdgeCost(s)
	}
	sort.SliceStable(order, func(a, b int) bool { return weights[order[a]] > weights[order[b]] })
	started := pool(len(settings), func(j int) {
		i := order[j]
		if hooks.Begin != nil {
			hooks.Begin(i)
		}
		p := &work[i]
		s := p.Settings
		if hooks.Status != nil {
			s.Progress = func(r meanfield.EdgeProgress) { hooks.Status(i, r) }
		}
		if hooks.Mapped != nil {
			s.Mapped = func() { hooks.Mapped(i) }
		}
		p.Result, p.Err = meanfield.Edge(s)
		if confirmMaps > 0 && p.Err == nil && p.Result.Status == meanfield.Found {
			if hooks.Status != nil {
				hooks.Status(i, meanfield.EdgeProgress{Step: CheckStep, Maps: p.Result.Maps, Scaled: p.Result.Scaled})
			}
			// The search's workers, journal (a check stopped part way
			// continues where it stopped) and heartbeat.
			check := meanfield.ConfirmSettings{Dispatchers: s.Dispatchers, Load: s.Load, Edge: p.Result.Refresh, Rel: 1e-4,
				MaxIter: confirmMaps, Service: s.Service, Workers: s.Workers, Stop: s.Stop, Journal: s.Journal}
			if hooks.Mapped != nil || hooks.CheckMapped != nil {
				check.Mapped = func(run int, r meanfield.MapReport) {
					if hooks.Mapped != nil {
						hooks.Mapped(i)
					}
					if hooks.CheckMapped != nil {
						hooks.CheckMapped(i, run, r)
					}
				}
			}
			c, err := meanfield.ConfirmEdge(check)
			if err != nil {
				p.Err = fmt.Errorf("confirmation: %w", err)
			} else {
				p.Check = &c
			}
		}
		if hooks.End != nil {
			hooks.End(i, *p)
		}
	})
	pts := make([]EdgePoint, len(settings))
	for j, ok := range started {
		i := order[j]
		pts[i] = EdgePoint{Settings: settings[i]}
		if ok && !errors.Is(work[i].Err, meanfield.ErrStopped) {
			pts[i] = work[i]
			pts[i].Done = true
		}
	}
	return pts
}

// LawDeviation is, for one load, how far the edges found deviate from
// the law 0.9(k−2): the largest signed deviation edge/law − 1 (Worst, at
// WorstK; Any is false when no edge with a positive law was found), and
// the k for which the law predicts an edge (k ≥ 3) but the model finds
// none.
type LawDeviation struct {
	Load   float64
	Worst  float64
	WorstK int
	Any    bool
	None   []int
}

// LawDeviations returns the deviation of each load that has an edge or a
// missing one to report, in the order of loads. Points not done or
// failed do not count.
func LawDeviations(pts []EdgePoint, loads []float64) []LawDeviation {
	var out []LawDeviation
	for _, lam := range loads {
		d := LawDeviation{Load: lam}
		for _, p := range pts {
			law := fleet.LawScaled(p.Settings.Dispatchers)
			if !p.Done || p.Err != nil || p.Settings.Load != lam || law <= 0 {
				continue
			}
			if p.Result.Status != meanfield.Found {
				// The law predicts an edge the model does not have: the
				// largest deviation there is, whatever the edges found
				// elsewhere.
				d.None = append(d.None, p.Settings.Dispatchers)
				continue
			}
			if x := p.Result.Scaled/law - 1; !d.Any || math.Abs(x) >= math.Abs(d.Worst) {
				d.Worst, d.WorstK, d.Any = x, p.Settings.Dispatchers, true
			}
		}
		if d.Any || len(d.None) > 0 {
			out = append(out, d)
		}
	}
	return out
}
