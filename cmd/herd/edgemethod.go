package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"herd/compare"
	"herd/fleet"
	"herd/internal/pool"
	"herd/meanfield"
)

// This file answers herd edge's points by --method: the exact search of
// the refresh map, or the heavy-traffic expansion (compare.EdgeExpansion),
// which needs the exact edges at compare.ExpansionLoads and the limit
// map's x*(k).

// expansionNote is the table's account of an expansion row.
var expansionNote = fmt.Sprintf("method expansion: an approximation, not the refresh map's edge: x(λ) ≈ x*(k) + c₁(1−λ) + c₂(1−λ)², x*(k) from the heavy-traffic limit map (for sizes of squared coefficient of variation C, C times the exponential one), c₁ and c₂ fitted to the exact edges at λ = %g and %g; edge_error is its error estimate in x: the larger of its miss at the held-out exact edge at λ = %g and the last term's size |c₂|(1−λ)², with x*'s error in quadrature (an estimate, not a bound)",
	compare.ExpansionLoads[0], compare.ExpansionLoads[1], compare.ExpansionLoads[2])

// edgeMethods decides which points of settings the expansion answers
// (--method m), checking that it can.
func edgeMethods(m string, settings []meanfield.EdgeSettings) ([]bool, error) {
	exp := make([]bool, len(settings))
	above := compare.ExpansionLoads[2]
	for i, s := range settings {
		switch m {
		case methodExact:
		case methodAuto:
			exp[i] = s.Load > autoExactMax
		case methodExpansion:
			if !(s.Load > above) {
				return nil, usagef("--method expansion with --load %g: want loads above %g, the highest exact load the expansion is checked against", s.Load, above)
			}
			exp[i] = true
		default:
			return nil, usagef("--method %q: want exact, expansion or auto", m)
		}
	}
	return exp, nil
}

// splitEdges returns the exact searches of settings and the anchors the
// expansion needs: the exact edges at compare.ExpansionLoads for each k it
// answers, those not already among the exact searches.
func splitEdges(settings []meanfield.EdgeSettings, o edgeOutput) (exact, anchors []meanfield.EdgeSettings) {
	have := map[[2]float64]bool{}
	for i, s := range settings {
		if !o.expansion[i] {
			exact = append(exact, s)
			have[[2]float64{float64(s.Dispatchers), s.Load}] = true
		}
	}
	for i, s := range settings {
		// k ≤ 2 has no limit edge (meanfield.LimitEdge: balanced down to
		// x = 0.02), so its expansion needs no anchors.
		if !o.expansion[i] || s.Dispatchers <= 2 {
			continue
		}
		for _, lam := range compare.ExpansionLoads {
			key := [2]float64{float64(s.Dispatchers), lam}
			if have[key] {
				continue
			}
			have[key] = true
			a := s
			a.Load, a.BranchFrom = lam, 0
			anchors = append(anchors, a)
		}
	}
	return exact, anchors
}

// mapLimit is one k's limit map: x*(k) or its error, when done.
type mapLimit struct {
	k   int
	res compare.MapLimitResult
	err error
	ch  chan struct{} // closed when res and err are set
}

// startMapLimits starts the limit map of each k that settings answer by
// the expansion, in the order of settings, at most workers at once, to run
// beside the exact searches; each stops within a map of Ctrl-C (stop).
func startMapLimits(settings []meanfield.EdgeSettings, o edgeOutput, stop func() bool) []*mapLimit {
	v := compare.LimitVariance(o.base.Service)
	var limits []*mapLimit
	seen := map[int]bool{}
	for i, s := range settings {
		if k := s.Dispatchers; o.expansion[i] && !seen[k] {
			seen[k] = true
			limits = append(limits, &mapLimit{k: k, ch: make(chan struct{})})
		}
	}
	// The pool runs in the background; each limit's channel says when it
	// is done.
	go pool.Parallel(context.Background(), len(limits), o.workers, func(i int) (struct{}, bool) {
		l := limits[i]
		l.res, l.err = compare.MapLimit(l.k, compare.MapLimitSettings{Variance: v, Stop: stop, Workers: o.workers})
		close(l.ch)
		return struct{}{}, true
	}, nil)
	return limits
}

// edgeExpansions makes the expansion of each k of limits, from the exact
// edges among all (the searches and anchors of splitEdges, done) and the
// limit map; a k whose expansion cannot be made has its error. After
// Ctrl-C none is made (the limit maps stop within a map).
func edgeExpansions(ctx context.Context, limits []*mapLimit, all []compare.EdgePoint) (map[int]compare.EdgeExpansion, map[int]error) {
	exps, errs := map[int]compare.EdgeExpansion{}, map[int]error{}
	for _, l := range limits {
		<-l.ch
	}
	if ctx.Err() != nil {
		return exps, errs
	}
	for _, l := range limits {
		k := l.k
		var exact [3]float64
		for j, lam := range compare.ExpansionLoads {
			exact[j] = anchorEdge(all, k, lam)
		}
		err := l.err
		if err == nil {
			exps[k], err = compare.NewEdgeExpansion(k, l.res, exact)
		}
		if err != nil {
			errs[k] = err
		}
	}
	return exps, errs
}

// anchorEdge is the exact scaled edge at (k, λ) among pts, NaN if it was
// not found (or not finished).
func anchorEdge(pts []compare.EdgePoint, k int, load float64) float64 {
	for _, p := range pts {
		if p.Settings.Dispatchers == k && p.Settings.Load == load && p.Done && p.Err == nil && p.Result.Status == meanfield.Found {
			return p.Result.Scaled
		}
	}
	return math.NaN()
}

// edgeRow is one row of herd edge's table, or why there is none: cells
// for a finished point, failure for one that failed, neither for one not
// finished; note, if any, goes to the table's notes.
type edgeRow struct {
	cells   *edgeCells
	failure string
	note    string
}

// mergeEdgeRows lays out the table's rows in the grid's order: the exact
// searches' points (pts, in order) and the expansion's.
func mergeEdgeRows(settings []meanfield.EdgeSettings, o edgeOutput, pts []compare.EdgePoint, exps map[int]compare.EdgeExpansion, errs map[int]error) []edgeRow {
	rows := make([]edgeRow, 0, len(settings))
	noted := map[int]bool{}
	next := 0
	for i, s := range settings {
		if !o.expansion[i] {
			p := pts[next]
			next++
			switch {
			case !p.Done:
				rows = append(rows, edgeRow{})
			case p.Err != nil:
				rows = append(rows, edgeRow{failure: fmt.Sprintf("k=%d λ=%g: %v", p.Settings.Dispatchers, p.Settings.Load, p.Err)})
			default:
				c := newEdgeCells(p)
				rows = append(rows, edgeRow{cells: &c})
			}
			continue
		}
		k := s.Dispatchers
		if err, ok := errs[k]; ok {
			rows = append(rows, edgeRow{failure: fmt.Sprintf("k=%d λ=%g: %v", k, s.Load, err)})
			continue
		}
		e, ok := exps[k]
		if !ok { // interrupted
			rows = append(rows, edgeRow{})
			continue
		}
		r := edgeRow{cells: expansionCells(s, e)}
		if !noted[k] {
			noted[k], r.note = true, "expansion "+e.String()
		}
		rows = append(rows, r)
	}
	return rows
}

// expansionCells is the row of a point the expansion answers.
func expansionCells(s meanfield.EdgeSettings, e compare.EdgeExpansion) *edgeCells {
	c := &edgeCells{dispatchers: s.Dispatchers, load: s.Load, method: methodExpansion, crossing: "none", maps: nil}
	law := fleet.LawScaled(s.Dispatchers)
	if s.Dispatchers >= 2 {
		c.law = law
	}
	if !e.Exists {
		return c
	}
	x := e.At(s.Load)
	c.crossing = nil
	c.edgeScaled, c.edgeError = x, e.Err(s.Load)
	c.edgeRefresh = x / ((1 - s.Load) * (1 - s.Load))
	if law > 0 {
		c.ratio = x / law
	}
	return c
}

// exactCostSeconds is the wall time of one unit of compare.EdgeCost on two
// cores, from the k = 5, λ = 0.99 edge (EdgeCost 2.5·10⁷): 24.2 s with two
// workers on an idle 2-core machine (costProbeRatio's measurement; 162 s
// before the full windows' closed form and the cheaper maps of
// 2026-12-05/06). herd plan's budget is in these fixed units, so that
// what it computes does not depend on the machine; the estimates on
// stderr use machineCostSeconds.
const exactCostSeconds = 24.2 / 2.5e7

// costProbeRatio is the k = 5, λ = 0.99 edge's wall time with two workers
// over costProbe's, measured together: 24.1–24.3 s and 69 ms (2026-12-06,
// 2-core AMD EPYC, with the full windows' closed form; 40–44 s before it
// and the day's cheaper maps, 122–162 s on the same VM on slower days).
// costProbe's full maps do not take the closed form, so the ratio moves
// with the search's maps alone.
const costProbeRatio = 24.2 / 0.069

// costProbe times 30 refresh maps from the empty board at k = 5,
// λ = 0.95, T = 1,127 (near that edge; about 0.07 s on one core).
func costProbe() time.Duration {
	m, err := meanfield.NewRefreshMap(meanfield.Refresh{Dispatchers: 5, Load: 0.95, Period: 1127})
	if err != nil {
		panic(err) // fixed, valid settings
	}
	p, start := meanfield.BoardEmpty(), time.Now()
	for range 30 {
		r, err := m.Apply(nil, p)
		if err != nil {
			panic(err)
		}
		p = r.Next
	}
	return time.Since(start)
}

// machineCostSeconds is exactCostSeconds for this machine as it runs now
// (its speed, and what else it runs): costProbe's time times
// costProbeRatio, per unit of EdgeCost at k = 5, λ = 0.99. Measured once
// a process, when an estimate is first shown. A rough scale for warnings
// and progress, not a promise: the search's work near the edge varies
// from case to case (k = 4 at λ = 0.99 takes twice k = 5's).
var machineCostSeconds = sync.OnceValue(func() float64 {
	return costProbe().Seconds() * costProbeRatio / compare.EdgeCost(meanfield.EdgeSettings{Dispatchers: 5, Load: 0.99})
})

// exactWarning is what herd edge says before exact searches above
// autoExactMax (--method exact): their estimated time, and that the
// expansion needs only its exact edges at compare.ExpansionLoads, and
// their cost; "" when none is that dear.
func exactWarning(settings []meanfield.EdgeSettings, o edgeOutput, workers int) string {
	var cost float64
	var dear []string
	for i, s := range settings {
		if o.expansion[i] || s.Load <= autoExactMax {
			continue
		}
		cost += compare.EdgeCost(s)
		dear = append(dear, fmt.Sprintf("k=%d λ=%g", s.Dispatchers, s.Load))
	}
	if len(dear) == 0 {
		return ""
	}
	unit := machineCostSeconds()
	t := time.Duration(cost * unit * 2 / float64(max(workers, 2)) * float64(time.Second)).Round(time.Second)
	ref := time.Duration(compare.EdgeCost(meanfield.EdgeSettings{Dispatchers: 5, Load: 0.99}) * unit * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("the exact search at %s is estimated at about %v (√k/(1−λ)³ scaled from k = 5, λ = 0.99: %v on two cores of this machine, by a 30-map probe of its speed); --method auto answers above λ = %g by the heavy-traffic expansion instead, whose exact edges at λ = %g, %g and %g cost about %v",
		strings.Join(dear, ", "), t, ref, autoExactMax, compare.ExpansionLoads[0], compare.ExpansionLoads[1], compare.ExpansionLoads[2], anchorCost(settings, workers))
}

// anchorCost is the rough time of the exact edges the expansion would
// need for the points of settings above autoExactMax (each k ≥ 3 once, at
// compare.ExpansionLoads), on workers cores, scaled as exactWarning's.
func anchorCost(settings []meanfield.EdgeSettings, workers int) time.Duration {
	var cost float64
	seen := map[int]bool{}
	for _, s := range settings {
		if s.Load <= autoExactMax || s.Dispatchers <= 2 || seen[s.Dispatchers] {
			continue
		}
		seen[s.Dispatchers] = true
		for _, lam := range compare.ExpansionLoads {
			a := s
			a.Load = lam
			cost += compare.EdgeCost(a)
		}
	}
	return time.Duration(cost * machineCostSeconds() * 2 / float64(max(workers, 2)) * float64(time.Second)).Round(time.Second)
}
