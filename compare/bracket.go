package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"

	"herd/fixedpoint/root"
	"herd/fleet"
	"herd/internal/pool"
	"herd/meanfield"
	"herd/sim"
)

// BracketSettings describes one edge bracket of the finite system: N
// servers, k dispatchers with least loaded + own tallies, load λ, runs
// from a balanced (empty) start at refresh periods T given as T(1−λ)².
// The zero value of each optional field means its default.
type BracketSettings struct {
	Servers, Dispatchers int
	Load                 float64
	Runs                 int     // runs per point, ≥ 2; default 6
	Refreshes            int     // refresh periods per run, ≥ 10; default 1,000
	Cut                  int     // the shorter run length also reported; default 300
	Resolution           float64 // bisect until gaps in the bracket are ≤ this, in T(1−λ)²; default 0.05
	// Grid is the first set of points in T(1−λ)²; nil means the model's
	// edge times 0.8, 0.9, 1, 1.1, 1.2, 1.35, 1.5, 1.7.
	Grid []float64
	// Fixed evaluates Grid only (no extension, no bisection): the
	// non-adaptive mode whose runs can be split across machines. Every
	// run of every point is run to its end.
	Fixed bool
	// Exhaustive runs every run of every point the adaptive bracket
	// visits to its end, as herd did before sequential stopping: the
	// reference the sequential bracket is tested against. It visits the
	// same points and returns the same bracket, at a higher cost.
	Exhaustive bool
	// ModelScaled is the refresh map's edge T_edge(1−λ)²; 0 means compute
	// it with meanfield.Edge (stopped with ctx), NaN means none (a Grid
	// is then needed). It depends on Dispatchers, Load and Sizes only, so
	// brackets at several N can share one.
	ModelScaled float64
	// Sizes are the job sizes of the simulator and of the model (exp,
	// h2:C, erlang:K; zero value exp).
	Sizes     fleet.Sizes
	MaxPoints int // most points per bracket; default 30
	// HalfWidth, when positive, goes on after the bracket until T_½'s 95%
	// interval (BracketResult.Half) is at most this wide, in T(1−λ)²,
	// running every replication of the points it adds or takes up
	// (refineHalf), at most HalfMaxPoints points more. Not with Fixed.
	HalfWidth float64
	Seed      uint64 // master seed; default 1
	Workers   int    // runs in parallel; default 1
}

func (s BracketSettings) withDefaults() BracketSettings {
	if s.Runs == 0 {
		s.Runs = 6
	}
	if s.Refreshes == 0 {
		s.Refreshes = 1000
	}
	if s.Cut == 0 {
		s.Cut = 300
	}
	if s.Resolution == 0 {
		s.Resolution = 0.05
	}
	if s.MaxPoints == 0 {
		s.MaxPoints = 30
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Workers < 1 {
		s.Workers = 1
	}
	return s
}

// Validate names the first field out of range.
func (s BracketSettings) Validate() error {
	d := s.withDefaults()
	switch {
	case s.Dispatchers < 1:
		return fmt.Errorf("compare: Dispatchers = %d, want ≥ 1", s.Dispatchers)
	case s.Servers < s.Dispatchers:
		return fmt.Errorf("compare: Servers = %d, want ≥ Dispatchers = %d", s.Servers, s.Dispatchers)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("compare: Load = %v, want in (0, 1)", s.Load)
	case d.Runs < 2:
		return fmt.Errorf("compare: Runs = %d, want ≥ 2", d.Runs)
	case d.Refreshes < 10:
		return fmt.Errorf("compare: Refreshes = %d, want ≥ 10", d.Refreshes)
	case d.Cut < 1:
		return fmt.Errorf("compare: Cut = %d, want ≥ 1", d.Cut)
	case !(d.Resolution > 0) || math.IsInf(d.Resolution, 0):
		return fmt.Errorf("compare: Resolution = %v, want > 0", d.Resolution)
	case s.Fixed && len(s.Grid) == 0:
		return fmt.Errorf("compare: Fixed needs a Grid")
	case !(s.HalfWidth >= 0) || math.IsInf(s.HalfWidth, 0):
		return fmt.Errorf("compare: HalfWidth = %v, want ≥ 0 (0: the bracket alone)", s.HalfWidth)
	case s.HalfWidth > 0 && s.Fixed:
		return fmt.Errorf("compare: HalfWidth does not go with Fixed (a fixed grid adds no points)")
	case s.ModelScaled < 0 || math.IsInf(s.ModelScaled, 0):
		return fmt.Errorf("compare: ModelScaled = %v, want > 0 (0: compute it, NaN: none)", s.ModelScaled)
	}
	for _, g := range s.Grid {
		if !(g > 0) || math.IsInf(g, 0) {
			return fmt.Errorf("compare: Grid value %v, want > 0", g)
		}
	}
	if _, err := ModelService(s.Sizes); err != nil {
		return err
	}
	return nil
}

// RunConfig is the simulator's configuration of the bracket's runs at
// x = T(1−λ)²: least loaded with own tallies from a balanced start,
// Refreshes refresh periods long, with no warm-up.
func (s BracketSettings) RunConfig(x float64) sim.Config {
	d := s.withDefaults()
	T := x / ((1 - s.Load) * (1 - s.Load))
	return sim.Config{
		Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Refresh: T,
		Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn,
		Start: fleet.Start{Kind: fleet.StartBalanced}, Sizes: s.Sizes,
		Horizon: float64(d.Refreshes) * T, NoWarmup: true,
	}
}

// RunRecord is one finished run of a bracket: enough to skip it when a
// bracket is resumed.
type RunRecord struct {
	Servers, Dispatchers int
	Load, Scaled         float64
	Refreshes            int
	Rep                  int
	Seed                 uint64 // the master seed
	TippedAt             int    // refresh at which it tipped; −1: survived
	Sizes                string `json:",omitempty"` // job sizes; "" for exp
}

// Key identifies the run.
func (r RunRecord) Key() string {
	return fmt.Sprintf("servers=%d dispatchers=%d load=%s scaled=%s refreshes=%d rep=%d seed=%d",
		r.Servers, r.Dispatchers, fstr(r.Load), fstr(r.Scaled), r.Refreshes, r.Rep, r.Seed) + sizesKey(r.Sizes)
}

// sizesKey is " sizes=S" for sizes other than exp, "" for exp (so the
// keys and seeds of exponential runs are unchanged).
func sizesKey(s string) string {
	if s == "" || s == "exp" {
		return ""
	}
	return " sizes=" + s
}

// RecordSizes is RunRecord.Sizes for the sizes z: "" for exp.
func RecordSizes(z fleet.Sizes) string {
	if z.Kind == fleet.Exp {
		return ""
	}
	return z.String()
}

func fstr(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Store keeps finished runs across invocations (a resumable bracket).
// Put is called serially, once per run, as each run finishes.
type Store interface {
	Get(key string) (RunRecord, bool)
	Put(r RunRecord) error
}

// PointStat is the tipping table at one T. With sequential stopping a
// point's runs stop once they settle what the bracket asks of the point,
// so Runs may be below the runs per point: the counts are over the runs
// that reached their end (tipped, or survived the full run length).
type PointStat struct {
	Scaled, Refresh float64
	Runs            int     // runs counted in Tipped and MedianTip
	RunsCut         int     // runs counted in TippedCut
	Tipped          int     // runs that tipped within the full run length
	TippedCut       int     // runs that tipped within Cut refreshes
	MedianTip       float64 // median tipping refresh of the tipped runs; NaN if none
}

// TippedFraction is the share of the point's runs that tipped within the
// full run length (Tipped/Runs), and within Cut refreshes
// (TippedCut/RunsCut); NaN where no run counts.
func (p PointStat) TippedFraction() (full, cut float64) {
	full, cut = math.NaN(), math.NaN()
	if p.Runs > 0 {
		full = float64(p.Tipped) / float64(p.Runs)
	}
	if p.RunsCut > 0 {
		cut = float64(p.TippedCut) / float64(p.RunsCut)
	}
	return full, cut
}

// BracketResult is the bracket of the edge at one N.
type BracketResult struct {
	Settings BracketSettings // with defaults filled in
	// Lower is the last T(1−λ)² at which all runs tipped, Upper the first
	// above it at which at most one did; NaN where the points do not
	// determine them. LowerCut and UpperCut are the same with runs cut at
	// Cut refreshes.
	Lower, Upper       float64
	LowerCut, UpperCut float64
	ModelScaled        float64
	Points             []PointStat // ascending in T
	Runs               int         // runs simulated to their end now (not taken from the store)
	Stopped            int         // runs left unfinished because their point was settled
	Jobs               int64       // jobs simulated now, stopped runs included
	// Half is T_½, the T(1−λ)² at which a run tips within the full run
	// length with probability ½, fitted to all the points (FitTipHalf).
	Half TipHalf
	// HalfPoints counts the points refineHalf ran to their end for Half
	// (HalfWidth), those it added and those of the bracket it took up.
	HalfPoints int
}

// ModelScaledOf is BracketSettings.ModelScaled from the model's edge
// search (meanfield.Edge's result and error): its T_edge(1−λ)², NaN where
// the map has no edge, and an error where the search failed, except that
// with a grid (the runs need no model edge) a search that does not
// converge (heavy-tailed sizes) leaves it NaN too.
func ModelScaledOf(e meanfield.EdgeResult, err error, grid bool) (float64, error) {
	switch {
	case err != nil && grid && errors.Is(err, meanfield.ErrNotConverged):
		return math.NaN(), nil
	case err != nil:
		return 0, fmt.Errorf("the model's edge: %w", err)
	case e.Status == meanfield.Found:
		return e.Scaled, nil
	}
	return math.NaN(), nil
}

// Bracket brackets the edge of the balanced state at N servers (the
// package doc's Tipping): runs from a balanced start at a grid of T(1−λ)² around the
// model's edge, each stopped as soon as it tips; the bracket is [last T
// where all runs tipped, first T above it where at most one did]; the
// grid is extended until both ends exist and the bracket is refined by
// bisecting its widest gap until no gap inside it exceeds Resolution (or
// MaxPoints is reached). Finished runs are recorded in store (if not nil)
// and runs already there are not run again, so an interrupted bracket
// resumes with the same result. notify, if set, is called after each run
// with the runs done and the runs known to be needed so far.
//
// Sequential stopping. The bracket asks two questions of a point: are all
// of its R runs tipped ("all", a candidate lower end), and have at most
// one tipped ("at most one", a candidate upper end). Each run's outcome
// is fixed by its seed, so a question is settled as soon as the outcomes
// known so far decide it whatever the others turn out to be: "all" is
// false at the first run that survives the full length and true at the
// R-th tip; "at most one" is false at the second tip and true at the
// (R−1)-th survivor. Runs go in order of replication; a run still going
// when its point's question is settled is stopped at its next refresh,
// and a point's later runs are only started if the question needs them.
// The bracket is computed lazily over the points visited: only the
// questions that can move its ends are asked (all, from the highest point
// down to the first point where it holds; at most one, from the lower end
// up to the first point where it holds), and answers are kept, so a point
// asked a second question later reuses the runs of the first. The cut
// bracket is settled the same way at the end, from the runs' first Cut
// refreshes only; the search (see adaptive) settles the lower end before
// it asks "at most one" of anything.
//
// Error rate. A settled answer is the answer all R full-length runs
// would give (TestSequentialVerdicts checks it on a grid of points), so
// sequential stopping adds no error: the rule's error rate is that of the
// rule itself. A point whose runs tip with probability p within the run
// length reads "all" with probability p^R and "at most one" with
// probability (1−p)^R + R·p·(1−p)^(R−1): with R = 6, a point where half
// the runs tip (p = 0.5) is taken for a lower end with probability 1.6%
// and for an upper end with probability 10.9%; a lower end has p ≥ 0.61
// and an upper end p ≤ 0.58 with 95% confidence (one-sided Clopper–
// Pearson bounds for 6 of 6 and 1 of 6). The points the search visits can
// differ from those of the exhaustive search (Exhaustive), so the two
// brackets agree within Resolution; at N = 100 and 400, seed 1, they are
// equal.
func Bracket(ctx context.Context, s BracketSettings, store Store, notify func(done, total int)) (BracketResult, error) {
	if err := s.Validate(); err != nil {
		return BracketResult{}, err
	}
	s = s.withDefaults()
	res := BracketResult{Settings: s, Lower: math.NaN(), Upper: math.NaN(), LowerCut: math.NaN(), UpperCut: math.NaN()}
	if s.ModelScaled == 0 {
		x, err := bracketModelScaled(ctx, s)
		if err != nil {
			return res, err
		}
		s.ModelScaled, res.Settings.ModelScaled = x, x
	}
	res.ModelScaled = s.ModelScaled
	grid := s.Grid
	if grid == nil {
		if math.IsNaN(s.ModelScaled) {
			return res, fmt.Errorf("%w for k = %d, λ = %g: give a Grid", ErrNoModelEdge, s.Dispatchers, s.Load)
		}
		for _, f := range []float64{0.8, 0.9, 1, 1.1, 1.2, 1.35, 1.5, 1.7} {
			grid = append(grid, round6(f*s.ModelScaled))
		}
	}
	b := &bracketer{s: s, store: store, notify: notify, points: map[float64]*PointStat{}, res: &res}
	if s.Fixed {
		err := b.eval(ctx, grid)
		b.finish()
		return res, err
	}
	var err error
	if s.Exhaustive {
		err = b.exhaustive(ctx, grid)
	} else {
		err = b.adaptive(ctx, grid)
	}
	if err == nil {
		err = b.refineHalf(ctx)
	}
	b.finish()
	return res, err
}

// ErrNoModelEdge: the refresh map has no edge at a bracket's k and λ, so
// a bracket without a Grid has nowhere to start.
var ErrNoModelEdge = errors.New("compare: the model has no edge")

// bracketModelScaled is the model's edge for s's k, λ and sizes as
// BracketSettings.ModelScaled wants it (ModelScaledOf), the search stopped
// with ctx; s has been validated.
func bracketModelScaled(ctx context.Context, s BracketSettings) (float64, error) {
	svc, _ := ModelService(s.Sizes) // checked by Validate
	e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: svc,
		Stop: func() bool { return ctx.Err() != nil }})
	if errors.Is(err, meanfield.ErrStopped) {
		return 0, ctx.Err()
	}
	x, err := ModelScaledOf(e, err, s.Grid != nil)
	if err != nil {
		return 0, fmt.Errorf("compare: %w", err)
	}
	return x, nil
}

// BracketsHooks are the caller's part in Brackets; any may be nil.
type BracketsHooks struct {
	// ModelEdge is the model's edge T_edge(1−λ)² for s's k, λ and sizes,
	// as BracketSettings.ModelScaled takes it (NaN: none), computed in the
	// caller's schedule (its workers, its progress); nil: as Bracket
	// computes it.
	ModelEdge func(s BracketSettings) (float64, error)
	// Begin is called as the bracket of s begins and returns its notify
	// (Bracket's), or nil; End is called as it ends, with its result and
	// error.
	Begin func(s BracketSettings) (notify func(done, total int))
	End   func(r BracketResult, err error)
}

// Brackets brackets the edge at each N of set, one bracket after another
// (each spreads its runs over its Workers), with runs recorded in and
// taken from st (if not nil), and returns the brackets that finished.
// The model's edge depends on k, λ and the sizes only, which the settings
// of one sweep share: where set[0].ModelScaled is 0 it is computed once
// and given to every setting whose ModelScaled is 0. It stops at the
// first bracket that fails, with its error (ErrNoModelEdge where the map
// has no edge and the bracket has no Grid).
func Brackets(ctx context.Context, set []BracketSettings, st Store, h BracketsHooks) ([]BracketResult, error) {
	model := 0.0
	if len(set) > 0 && set[0].ModelScaled == 0 {
		var err error
		switch {
		case h.ModelEdge != nil:
			model, err = h.ModelEdge(set[0])
		default:
			if err = set[0].Validate(); err == nil {
				model, err = bracketModelScaled(ctx, set[0].withDefaults())
			}
		}
		if err != nil {
			return nil, err
		}
	}
	var results []BracketResult
	for _, s := range set {
		if s.ModelScaled == 0 {
			s.ModelScaled = model
		}
		r, err := h.bracket(ctx, s, st)
		if err != nil {
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// bracket is Bracket with h's Begin and End around it.
func (h BracketsHooks) bracket(ctx context.Context, s BracketSettings, st Store) (BracketResult, error) {
	var notify func(done, total int)
	if h.Begin != nil {
		notify = h.Begin(s)
	}
	r, err := Bracket(ctx, s, st, notify)
	if h.End != nil {
		h.End(r, err)
	}
	return r, err
}

// adaptive is the sequential bracket's search. It finds the lower end
// first, asking of each point only whether all its runs tipped (cheap
// below the edge, one surviving run above it): from the grid's lowest
// point it walks down by factors of 0.8 until all runs tip at a point,
// or up over the grid, then by factors of 1.2, until not all do (walk),
// then bisects between the last two points until they are within
// Resolution (bisectLower): root's walk and bisection, at this search's
// points (round6). Only then does it
// ask "at most one" of the points above the lower end, lowest first,
// extending upwards until one holds (first bisecting any gap wider than
// Resolution below the point it would ask next: see upperGap), and it
// bisects the widest gap inside the bracket until none exceeds
// Resolution, as the exhaustive search does. Settling "at most one" takes R−1 runs that survive the full
// length, the costliest answer there is; asking it last means asking it
// of fewer points (the exhaustive search settles it at the first point
// above the lower end in the grid, and again at each point bisection
// visits below that). The result follows the same rule over the points
// visited; the points visited can differ.
func (b *bracketer) adaptive(ctx context.Context, grid []float64) error {
	s := b.s
	g := append([]float64(nil), grid...)
	sort.Float64s(g)
	for len(b.points) < s.MaxPoints {
		next := math.NaN()
		lo, u, err := b.lower(ctx)
		if err != nil {
			return err
		}
		var hi float64
		pts := b.sorted()
		switch {
		case len(pts) == 0:
			next = g[0]
		case math.IsNaN(lo):
			// Down from the lowest point until all runs tip at one.
			if down := root.Ladder(pts[0].Scaled, func(m float64) (float64, bool) { return round6(0.8 * m), m > 0.05*g[0] }); len(down) > 0 {
				if err := b.walk(ctx, down, func(lo, _ float64) bool { return !math.IsNaN(lo) }); err != nil {
					return err
				}
				continue
			}
		case math.IsNaN(u):
			// Up from the highest point until not all runs tip at one.
			if up := root.Ladder(pts[len(pts)-1].Scaled, aboveStep(g)); len(up) > 0 {
				if err := b.walk(ctx, up, func(_, u float64) bool { return !math.IsNaN(u) }); err != nil {
					return err
				}
				continue
			}
		case u-lo > s.Resolution*(1+1e-9):
			seen, err := b.bisectLower(ctx, lo, u)
			if err != nil {
				return err
			}
			if !seen {
				continue
			}
		default:
			if m := b.upperGap(lo); !math.IsNaN(m) {
				next = m
				break
			}
			if lo, hi, err = b.bracket(ctx, false); err != nil {
				return err
			}
			if math.IsNaN(hi) {
				next = b.above(g)
			} else {
				next = b.widestGap(lo, hi)
			}
		}
		if _, seen := b.points[next]; seen || math.IsNaN(next) {
			break
		}
		if err := b.visit(ctx, next); err != nil {
			return err
		}
	}
	return b.settle(ctx)
}

// HalfMaxPoints is the most points refineHalf adds to a bracket.
const HalfMaxPoints = 40

// refineHalf narrows T_½'s interval to HalfWidth (nothing when it is 0).
// While the fit of all the points (FitTipHalf) leaves a wider interval,
// it runs every replication of one more point: in turn at T_½ − d, T_½ + d
// and T_½, with d = ln 4/|b| (where the fitted chance of a tip is 0.8 and
// 0.2, b the fit's slope), at least Resolution; it takes up the point of
// the bracket nearest the target when one lies within d/4 whose table
// leaves replications out (not run, or not needed by the bracket's
// questions), and otherwise adds round6 of the target, moved on by
// Resolution/4 until it names no point visited. Where the
// fit has no estimate it aims at the bracket's middle, or the model's
// edge. The points chosen depend on the runs' outcomes alone, so the
// refinement resumes from the store like the bracket. The points it adds
// count for T_½ alone: the bracket stays the one the search found.
func (b *bracketer) refineHalf(ctx context.Context) error {
	s := b.s
	if s.HalfWidth <= 0 {
		return nil
	}
	added := 0
	for i := 0; ; i++ {
		b.stats()
		h := FitTipHalf(b.sorted())
		if h.Bounded() && h.Upper-h.Lower <= s.HalfWidth {
			return nil
		}
		x := b.halfTarget(h, i)
		if math.IsNaN(x) {
			return nil
		}
		if _, ok := b.points[x]; !ok {
			if added >= HalfMaxPoints {
				return nil
			}
			added++
			if b.extra == nil {
				b.extra = map[float64]bool{}
			}
			b.extra[x] = true
			if err := b.visit(ctx, x); err != nil {
				return err
			}
		}
		// Counted in full only once every run is in: an interrupted point
		// reports the runs that settled the bracket's questions, as before.
		if err := b.resolve(ctx, x, 0); err != nil {
			return err
		}
		b.asked[x] |= qEvery
		b.res.HalfPoints++
	}
}

// complete reports that every replication of x counts in its table: run
// in full for T_½, or reported whole for the bracket's questions.
func (b *bracketer) complete(x float64) bool {
	full, _ := b.reported(x)
	return b.asked[x]&qEvery != 0 || full == b.s.Runs
}

// halfTarget is refineHalf's i-th point: a point of the bracket to run in
// full, or a new one (see refineHalf); NaN when there is nowhere to aim.
func (b *bracketer) halfTarget(h TipHalf, i int) float64 {
	s := b.s
	c := h.Scaled
	if math.IsNaN(c) {
		lo, hi := b.known(false)
		switch {
		case !math.IsNaN(lo) && !math.IsNaN(hi):
			c = (lo + hi) / 2
		case !math.IsNaN(lo):
			c = lo
		case !math.IsNaN(hi):
			c = hi
		default:
			c = s.ModelScaled
		}
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return math.NaN()
	}
	d := s.Resolution
	if slope := math.Abs(h.Slope); slope > 0 && !math.IsInf(slope, 0) {
		d = max(d, math.Log(4)/slope)
	}
	d = min(d, c/4)
	sign := [...]float64{-1, 1, 0}[i%3]
	target := c + sign*d
	near, best := math.NaN(), d/4
	for x := range b.points {
		if dist := math.Abs(x - target); (dist < best || dist == best && x < near) && !b.complete(x) {
			near, best = x, dist
		}
	}
	if !math.IsNaN(near) {
		return near
	}
	step := s.Resolution / 4
	if sign < 0 {
		step = -step
	}
	for j := 0; j < 1000; j++ {
		x := round6(target + float64(j)*step)
		if _, seen := b.points[x]; x > 0 && !seen {
			return x
		}
	}
	return math.NaN()
}

// bisectLower is the adaptive search's bisection of the lower end
// (root.Bisect): between lo, the highest point where all runs tipped, and
// u, the lowest point visited above it, it visits the midpoint
// round6((lo + u)/2) and asks "all" of it (lower), moving lo or u there,
// until the two are within Resolution or the bracket has MaxPoints
// points. It reports whether it stopped at a midpoint already visited
// (round6 can round onto one), where the search ends.
func (b *bracketer) bisectLower(ctx context.Context, lo, u float64) (seen bool, err error) {
	split := func(lo, u float64) (float64, bool) {
		m := round6((lo + u) / 2)
		if !(u-lo > b.s.Resolution*(1+1e-9)) || len(b.points) >= b.s.MaxPoints {
			return m, false
		}
		_, seen = b.points[m]
		return m, !seen
	}
	_, _, err = root.Bisect(func(x float64) (bool, error) {
		l, _, err := b.ask(ctx, x)
		return l != x, err
	}, lo, u, split)
	return seen, err
}

// walk is the adaptive search's walk to a lower end (root.Walk): it
// visits the points xs in turn, as many as MaxPoints leaves room for, and
// asks "all" of each (lower) until done holds of the lower end and the
// lowest point visited above it.
func (b *bracketer) walk(ctx context.Context, xs []float64, done func(lo, u float64) bool) error {
	_, err := root.Walk(func(x float64) (bool, error) {
		lo, u, err := b.ask(ctx, x)
		return done(lo, u), err
	}, xs[:min(len(xs), b.s.MaxPoints-len(b.points))])
	return err
}

// ask visits point x and settles the lower end (lower), which it returns
// with the lowest point visited above it.
func (b *bracketer) ask(ctx context.Context, x float64) (lo, u float64, err error) {
	if err := b.visit(ctx, x); err != nil {
		return math.NaN(), math.NaN(), err
	}
	return b.lower(ctx)
}

// upperGap is the point the search for the upper end visits before it
// asks "at most one" of anything: walking up from the lower end lo over
// the points whose answer is already "no" (from the replications that
// settle the questions asked of them, so that timing cannot change it),
// the midpoint of the gap below
// the first point whose answer is open, when that gap exceeds Resolution.
// It is NaN when there is no such gap, or when a point above lo already
// answers "yes". The exhaustive search would bisect the same gap once it
// had an upper end above it; bisecting it first means a far point is
// asked "at most one" (R−1 runs surviving the full length, the costliest
// answer) only if no point below it holds.
func (b *bracketer) upperGap(lo float64) float64 {
	prev := lo
	for _, p := range b.sorted() {
		x := p.Scaled
		if x <= lo {
			continue
		}
		// Read only the replications that settle what was asked of x
		// (reported): whether a later one has finished too depends on
		// timing, and with it the search's next point.
		full, _ := b.reported(x)
		switch b.answer(x, qAtMostOne, full) {
		case yes:
			return math.NaN()
		case no:
			prev = x
			continue
		}
		if x-prev > b.s.Resolution*(1+1e-9) {
			return round6((prev + x) / 2)
		}
		return math.NaN()
	}
	return math.NaN()
}

// above is the next point above every point visited (aboveStep), NaN
// where there is none.
func (b *bracketer) above(g []float64) float64 {
	pts := b.sorted()
	if x, ok := aboveStep(g)(pts[len(pts)-1].Scaled); ok {
		return x
	}
	return math.NaN()
}

// aboveStep is the search's step up from the point m on the sorted grid
// g: the next grid value, else 1.2 times m, while m is below 20 times the
// grid's top.
func aboveStep(g []float64) func(m float64) (float64, bool) {
	return func(m float64) (float64, bool) {
		for _, x := range g {
			if x > m {
				return x, true
			}
		}
		return round6(1.2 * m), m < 20*g[len(g)-1]
	}
}

// lower settles the lower end lo (the highest point where all runs
// tipped) and returns it with u, the lowest point visited above it (NaN
// where there is none).
func (b *bracketer) lower(ctx context.Context) (lo, u float64, err error) {
	for {
		l, _, x, q := b.ends(qAll, 0)
		if q == qAll {
			if err := b.resolve(ctx, x, q); err != nil {
				return math.NaN(), math.NaN(), err
			}
			continue
		}
		u = math.NaN()
		for _, p := range b.sorted() {
			if math.IsNaN(l) || p.Scaled > l {
				u = p.Scaled
				break
			}
		}
		return l, u, nil
	}
}

// exhaustive is the search herd did before sequential stopping, with
// every run of every point run to its end: ascending over the grid, one
// point at a time, until the bracket has both ends; then extension until
// both ends exist and bisection of the widest gap.
func (b *bracketer) exhaustive(ctx context.Context, grid []float64) error {
	s := b.s
	g := append([]float64(nil), grid...)
	sort.Float64s(g)
	for _, x := range g {
		if err := b.visit(ctx, x); err != nil {
			return err
		}
		lo, hi, err := b.bracket(ctx, false)
		if err != nil {
			return err
		}
		if !math.IsNaN(lo) && !math.IsNaN(hi) {
			break
		}
	}
	for len(b.points) < s.MaxPoints {
		lo, hi, err := b.bracket(ctx, false)
		if err != nil {
			return err
		}
		next := math.NaN()
		switch {
		case math.IsNaN(lo):
			if m := b.sorted()[0].Scaled; m > 0.05*grid[0] {
				next = round6(0.8 * m)
			}
		case math.IsNaN(hi):
			pts := b.sorted()
			if m := pts[len(pts)-1].Scaled; m < 20*grid[len(grid)-1] {
				next = round6(1.2 * m)
			}
		default:
			next = b.widestGap(lo, hi)
		}
		if math.IsNaN(next) {
			break
		}
		if err := b.visit(ctx, next); err != nil {
			return err
		}
	}
	return b.settle(ctx)
}

// round6 rounds to 6 significant digits, so that grid values and their
// midpoints have short, stable names in run records.
func round6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return v
}

type bracketer struct {
	s      BracketSettings
	store  Store
	notify func(done, total int)
	points map[float64]*PointStat
	tips   map[float64][]int           // Fixed: outcomes of the finished runs, in order of finishing
	reps   map[float64][]int           // adaptive: each replication's outcome (see unknown)
	past   map[float64][]bool          // adaptive: the replication ran past Cut refreshes untipped
	asked  map[float64]int             // adaptive: the questions asked of each point (bits)
	paused map[float64]map[int]*flight // adaptive: runs set aside, by point and replication
	extra  map[float64]bool            // points refineHalf added, for T_½ alone (not the bracket's)
	res    *BracketResult
	done   int
	total  int
}

// unknown marks a replication whose outcome is not known; −1 is a run
// that survived the full run length, r ≥ 0 one that tipped at refresh r.
const unknown = -2

func (b *bracketer) sorted() []PointStat {
	out := make([]PointStat, 0, len(b.points))
	for _, p := range b.points {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scaled < out[j].Scaled })
	return out
}

// visit adds point x to the adaptive bracket, with the outcomes of its
// runs already in the store; with Exhaustive, every run is run to its end.
func (b *bracketer) visit(ctx context.Context, x float64) error {
	s := b.s
	if _, ok := b.points[x]; ok {
		return nil
	}
	if b.reps == nil {
		b.reps, b.past, b.asked = map[float64][]int{}, map[float64][]bool{}, map[float64]int{}
	}
	scale := (1 - s.Load) * (1 - s.Load)
	b.points[x] = &PointStat{Scaled: x, Refresh: x / scale}
	reps := make([]int, s.Runs)
	for rep := range reps {
		reps[rep] = unknown
		if b.store != nil {
			if got, ok := b.store.Get(b.record(x, rep).Key()); ok {
				reps[rep] = got.TippedAt
				b.done++
			}
		}
	}
	b.reps[x], b.past[x] = reps, make([]bool, s.Runs)
	b.total += s.Runs
	b.stats()
	if s.Exhaustive {
		return b.resolve(ctx, x, 0)
	}
	return nil
}

func (b *bracketer) record(x float64, rep int) RunRecord {
	s := b.s
	return RunRecord{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Scaled: x,
		Refreshes: s.Refreshes, Rep: rep, Seed: s.Seed, Sizes: RecordSizes(s.Sizes)}
}

// task is replication rep at point x, with its tipping detector.
func (b *bracketer) task(x float64, rep int) (sim.Task, *Detector) {
	s := b.s
	c := s.RunConfig(x)
	det := NewDetector(s.Load, c.Refresh, true)
	c.Observe = det.Observe
	id := fmt.Sprintf("bracket servers=%d dispatchers=%d load=%s scaled=%s refreshes=%d",
		s.Servers, s.Dispatchers, fstr(s.Load), fstr(x), s.Refreshes) + sizesKey(RecordSizes(s.Sizes))
	return sim.Task{Config: c, Seed: sim.Seed(s.Seed, id, rep)}, det
}

// verdicts is what the first n replications of a point say: n runs
// whose outcome is known, tipped of them tipped (within Cut refreshes,
// for the cut bracket). Questions are settled on this prefix only, so
// that what a point reports does not depend on which of the runs in
// flight happened to finish first.
type verdicts struct{ n, tipped int }

// verdicts reads the longest prefix of x's replications whose outcome is
// known: the full outcome, or with cut whether it tipped within Cut
// refreshes (a run still going is known not to once past Cut). At most
// limit replications are read.
func (b *bracketer) verdicts(x float64, cut bool, limit int) verdicts {
	var v verdicts
	for rep, t := range b.reps[x] {
		if rep >= limit {
			break
		}
		switch {
		case t >= 0 && (!cut || t <= b.s.Cut):
			v.tipped++
		case t == unknown && !(cut && b.past[x][rep]):
			return v
		}
		v.n++
	}
	return v
}

// Answers to the bracket's two questions: yes, no, or not settled yet.
const (
	open = iota
	yes
	no
)

// Questions, as bits of bracketer.asked; qEvery asks for every
// replication (refineHalf).
const (
	qAll = 1 << iota
	qAtMostOne
	qAllCut
	qAtMostOneCut
	qEvery
)

// all: have all R runs tipped?
func (v verdicts) all(R int) int {
	switch {
	case v.tipped == R:
		return yes
	case v.n-v.tipped >= 1:
		return no
	}
	return open
}

// atMostOne: has at most one of the R runs tipped?
func (v verdicts) atMostOne(R int) int {
	switch {
	case v.n-v.tipped >= R-1:
		return yes
	case v.tipped >= 2:
		return no
	}
	return open
}

// answer is question q (one bit) about point x, from the first limit
// replications.
func (b *bracketer) answer(x float64, q, limit int) int {
	R := b.s.Runs
	switch q {
	case qAll:
		return b.verdicts(x, false, limit).all(R)
	case qAtMostOne:
		return b.verdicts(x, false, limit).atMostOne(R)
	case qAllCut:
		return b.verdicts(x, true, limit).all(R)
	}
	return b.verdicts(x, true, limit).atMostOne(R)
}

// reported is how many of x's replications its table reports, for the
// full and the cut run length: the fewest that settle every question the
// bracket asked of it (all of them, Exhaustive or run in full for T_½).
// It depends only on the outcomes, not on timing. In a bracket
// interrupted before a question was settled it is the replications
// whose outcome is known, in order, so that a run not yet known never
// counts as a survivor.
func (b *bracketer) reported(x float64) (full, cut int) {
	asked := b.asked[x]
	R := b.s.Runs
	least := func(qs []int, cut bool) int {
		if b.s.Exhaustive || asked&qEvery != 0 {
			return b.verdicts(x, cut, R).n
		}
		for m := 0; m <= R; m++ {
			ok := true
			for _, q := range qs {
				if asked&q != 0 && b.answer(x, q, m) == open {
					ok = false
				}
			}
			if ok {
				return m
			}
		}
		return b.verdicts(x, cut, R).n
	}
	return least([]int{qAll, qAtMostOne}, false), least([]int{qAllCut, qAtMostOneCut}, true)
}

// settle finishes a search: the bracket at full length, then at the cut.
func (b *bracketer) settle(ctx context.Context) error {
	if _, _, err := b.bracket(ctx, false); err != nil {
		return err
	}
	_, _, err := b.bracket(ctx, true)
	return err
}

// bracket computes the bracket [last point where all runs tipped, first
// point above it where at most one did] over the points visited, settling
// (by running replications) only the questions its ends depend on.
func (b *bracketer) bracket(ctx context.Context, cut bool) (lo, hi float64, err error) {
	qa, qb := qAll, qAtMostOne
	if cut {
		qa, qb = qAllCut, qAtMostOneCut
	}
	for {
		lo, hi, x, q := b.ends(qa, qb)
		if q == 0 {
			return lo, hi, nil
		}
		if err := b.resolve(ctx, x, q); err != nil {
			return math.NaN(), math.NaN(), err
		}
	}
}

// ends is the bracket from the answers settled so far, asking qa (all)
// and qb (at most one); where an end depends on an open question it
// returns that question q ≠ 0 and its point x.
func (b *bracketer) ends(qa, qb int) (lo, hi, x float64, q int) {
	R := b.s.Runs
	lo, hi = math.NaN(), math.NaN()
	pts := slices.DeleteFunc(b.sorted(), func(p PointStat) bool { return b.extra[p.Scaled] })
	for i := len(pts) - 1; i >= 0; i-- {
		b.asked[pts[i].Scaled] |= qa
		a := b.answer(pts[i].Scaled, qa, R)
		if a == no {
			continue
		}
		if a == open {
			return lo, hi, pts[i].Scaled, qa
		}
		lo = pts[i].Scaled
		break
	}
	for _, p := range pts {
		if qb == 0 {
			break
		}
		if !math.IsNaN(lo) && p.Scaled <= lo {
			continue
		}
		b.asked[p.Scaled] |= qb
		switch b.answer(p.Scaled, qb, R) {
		case yes:
			return lo, p.Scaled, 0, 0
		case open:
			return lo, hi, p.Scaled, qb
		}
	}
	return lo, hi, 0, 0
}

// flight is a replication under way: its run, which may be paused
// between refreshes and taken up again, and its detector.
type flight struct {
	x        float64
	rep      int
	st       *sim.Stepper
	det      *Detector
	T        float64
	steps    int         // refresh periods simulated
	jobs     int64       // arrivals already counted in BracketResult.Jobs
	pastSent bool        // reported as past Cut
	stop     atomic.Bool // pause at the next refresh
}

// runMsg is what a replication in flight reports.
type runMsg struct {
	f      *flight
	past   bool // only this: it ran past Cut refreshes untipped and goes on
	ended  bool // it reached its end (else it was paused or cancelled)
	tipped int  // with ended: the refresh it tipped at, −1: survived
}

// resolve runs point x's replications, in order, at most Workers at a
// time on a pool.Group, until question q is settled (q = 0: until every
// run is done); runs still going then are paused at their next refresh
// and kept, to be taken up where they stopped if a later question needs
// them. Every decision is taken here, on the caller's goroutine, as the
// flights' reports come in.
func (b *bracketer) resolve(ctx context.Context, x float64, q int) error {
	r := &resolution{b: b, x: x, q: q, reps: b.reps[x], past: b.past[x],
		flights: pool.NewGroup[runMsg](b.s.Workers), flying: map[int]*flight{}}
	defer r.flights.Close()
	if b.paused == nil {
		b.paused = map[float64]map[int]*flight{}
	}
	for {
		settled := r.settled()
		if settled || ctx.Err() != nil || r.err != nil {
			for _, f := range r.flying {
				f.stop.Store(true)
			}
		} else {
			r.launch(ctx)
		}
		if len(r.flying) == 0 {
			b.stats()
			switch {
			case r.err != nil:
				return r.err
			case ctx.Err() != nil:
				return ctx.Err()
			case !settled:
				return fmt.Errorf("compare: point %v: every run done and the question still open (a bug)", x)
			}
			return nil
		}
		r.receive(r.flights.Next())
	}
}

// resolution is one call of resolve: point x, question q, the workers
// that fly its runs, the runs in flight and the first error.
type resolution struct {
	b       *bracketer
	x       float64
	q       int
	reps    []int
	past    []bool
	flights *pool.Group[runMsg]
	flying  map[int]*flight
	err     error
}

// settled says whether question q is answered (q = 0: every run done).
func (r *resolution) settled() bool {
	s := r.b.s
	if r.q == 0 {
		return r.b.verdicts(r.x, false, s.Runs).n == s.Runs
	}
	return r.b.answer(r.x, r.q, s.Runs) != open
}

// launch starts (or resumes) the lowest replications not yet known, up
// to Workers in flight.
func (r *resolution) launch(ctx context.Context) {
	b, s, x := r.b, r.b.s, r.x
	for rep := 0; rep < s.Runs && len(r.flying) < s.Workers; rep++ {
		if r.reps[rep] != unknown || r.flying[rep] != nil || (r.q&(qAllCut|qAtMostOneCut) != 0 && r.past[rep]) {
			continue
		}
		f := b.paused[x][rep]
		delete(b.paused[x], rep)
		if f == nil {
			f = &flight{x: x, rep: rep}
			task, det := b.task(x, rep)
			f.det, f.T = det, task.Config.Refresh
			if f.st, r.err = sim.NewStepper(task.Config, task.Seed); r.err != nil {
				return
			}
		}
		f.stop.Store(false)
		r.flying[rep] = f
		r.flights.Go(func(report func(runMsg)) runMsg { return b.fly(ctx, f, report) })
	}
}

// receive takes one report of a replication in flight: past Cut, ended
// (recorded and counted) or paused (kept for a later question). Its
// arrivals are counted once it has stopped, as its stepper is then no
// longer advanced on a worker.
func (r *resolution) receive(m runMsg) {
	b, x, f := r.b, r.x, m.f
	if m.past {
		r.past[f.rep] = true
		return
	}
	if arr := f.st.Result().Arrivals; arr > f.jobs {
		b.res.Jobs += arr - f.jobs
		f.jobs = arr
	}
	delete(r.flying, f.rep)
	switch {
	case m.ended:
		r.reps[f.rep] = m.tipped
		b.res.Runs++
		b.done++
		if b.store != nil && r.err == nil {
			rec := b.record(x, f.rep)
			rec.TippedAt = m.tipped
			if e := b.store.Put(rec); e != nil {
				r.err = fmt.Errorf("compare: recording a run: %w", e)
			}
		}
		if b.notify != nil {
			b.stats()
			b.notify(b.done, b.needed(x))
		}
	case !f.st.Cancelled():
		if b.paused[x] == nil {
			b.paused[x] = map[int]*flight{}
		}
		b.paused[x][f.rep] = f
	}
}

// fly advances a replication one refresh at a time until it ends or is
// asked to pause: it reports once if it runs past Cut refreshes untipped,
// and returns its last report, that it ended or paused.
func (b *bracketer) fly(ctx context.Context, f *flight, report func(runMsg)) runMsg {
	cut := b.s.Cut
	for {
		f.steps++
		if !f.st.Advance(ctx, float64(f.steps)*f.T) {
			break
		}
		if tipped, _ := f.det.Tipped(); !tipped && !f.pastSent && f.det.Records() > cut {
			f.pastSent = true
			report(runMsg{f: f, past: true})
		}
		if f.stop.Load() {
			return runMsg{f: f}
		}
	}
	m := runMsg{f: f}
	if !f.st.Cancelled() {
		m.ended, m.tipped = true, -1
		if tipped, at := f.det.Tipped(); tipped {
			m.tipped = at
		}
	}
	return m
}

// needed is the runs known to be needed so far: those that ended, and
// every replication of the point being settled that has not.
func (b *bracketer) needed(x float64) int {
	n := b.done
	for _, t := range b.reps[x] {
		if t == unknown {
			n++
		}
	}
	return n
}

// widestGap returns the midpoint of the widest gap between evaluated
// points inside [lo, hi], or NaN when every gap is within Resolution.
func (b *bracketer) widestGap(lo, hi float64) float64 {
	pts := b.sorted()
	best, at := 0.0, math.NaN()
	for i := 1; i < len(pts); i++ {
		a, c := pts[i-1].Scaled, pts[i].Scaled
		if a < lo || c > hi {
			continue
		}
		if g := c - a; g > b.s.Resolution*(1+1e-9) && g > best {
			best, at = g, round6((a+c)/2)
		}
	}
	return at
}

// eval runs every point of xs not evaluated yet (R runs each), taking
// runs from the store where recorded.
func (b *bracketer) eval(ctx context.Context, xs []float64) error {
	s := b.s
	scale := (1 - s.Load) * (1 - s.Load)
	type pending struct {
		rec RunRecord
		det *Detector
	}
	var tasks []sim.Task
	var pend []pending
	if b.tips == nil {
		b.tips = map[float64][]int{}
	}
	for _, x := range xs {
		if _, ok := b.points[x]; ok {
			continue
		}
		T := x / scale
		b.points[x] = &PointStat{Scaled: x, Refresh: T}
		b.total += s.Runs
		for rep := 0; rep < s.Runs; rep++ {
			rec := b.record(x, rep)
			if b.store != nil {
				if got, ok := b.store.Get(rec.Key()); ok {
					b.tips[x] = append(b.tips[x], got.TippedAt)
					b.done++
					continue
				}
			}
			task, det := b.task(x, rep)
			tasks = append(tasks, task)
			pend = append(pend, pending{rec, det})
		}
	}
	var putErr error
	_, _, err := sim.RunAllNotify(ctx, tasks, s.Workers, func(i int, r sim.Result, _, _ int) {
		p := pend[i]
		tipped, at := p.det.Tipped()
		p.rec.TippedAt = -1
		if tipped {
			p.rec.TippedAt = at
		}
		b.tips[p.rec.Scaled] = append(b.tips[p.rec.Scaled], p.rec.TippedAt)
		b.res.Runs++
		b.res.Jobs += r.Arrivals
		b.done++
		if b.store != nil && putErr == nil {
			putErr = b.store.Put(p.rec)
		}
		if b.notify != nil {
			b.notify(b.done, b.total)
		}
	})
	if putErr != nil {
		return fmt.Errorf("compare: recording a run: %w", putErr)
	}
	return err
}

// finish computes the per-point table and the brackets from what is done.
func (b *bracketer) finish() {
	s := b.s
	b.stats()
	pts := b.sorted()
	b.res.Points = pts
	b.res.Half = FitTipHalf(pts)
	if b.reps != nil {
		for _, m := range b.paused {
			b.res.Stopped += len(m)
		}
		b.res.Lower, b.res.Upper = b.known(false)
		b.res.LowerCut, b.res.UpperCut = b.known(true)
		return
	}
	complete := pts[:0:0]
	for _, p := range pts {
		if p.Runs == s.Runs {
			complete = append(complete, p)
		}
	}
	b.res.Lower, b.res.Upper = bracketOf(complete, s.Runs, false)
	b.res.LowerCut, b.res.UpperCut = bracketOf(complete, s.Runs, true)
}

// known is the adaptive bracket from the answers settled so far: an end
// that depends on an open question is NaN (an interrupted bracket).
func (b *bracketer) known(cut bool) (lo, hi float64) {
	qa, qb := qAll, qAtMostOne
	if cut {
		qa, qb = qAllCut, qAtMostOneCut
	}
	lo, hi, _, q := b.ends(qa, qb)
	switch q {
	case qa:
		return math.NaN(), math.NaN()
	case qb:
		return lo, math.NaN()
	}
	return lo, hi
}

// stats updates each point's counts from the runs done: in the adaptive
// bracket, from the replications that settle what was asked of the point
// (see reported).
func (b *bracketer) stats() {
	s := b.s
	for x, p := range b.points {
		tips := b.tips[x]
		p.Runs, p.RunsCut = len(tips), len(tips)
		if b.reps != nil {
			p.Runs, p.RunsCut = b.reported(x)
			tips = b.reps[x]
		}
		p.Tipped, p.TippedCut = 0, 0
		var at []float64
		for i, t := range tips {
			if t < 0 {
				continue
			}
			if i < p.Runs {
				p.Tipped++
				at = append(at, float64(t))
			}
			if i < p.RunsCut && t <= s.Cut {
				p.TippedCut++
			}
		}
		p.MedianTip = median(at)
	}
}

// bracketOf returns [last T where all runs tipped, first T above it where
// at most one did], from points ascending in T; cut counts tips within the
// shorter run length.
func bracketOf(pts []PointStat, runs int, cut bool) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	tipped := func(p PointStat) int {
		if cut {
			return p.TippedCut
		}
		return p.Tipped
	}
	for _, p := range pts {
		if p.Runs == runs && tipped(p) == runs {
			lo = p.Scaled
		}
	}
	for _, p := range pts {
		if p.Runs == runs && tipped(p) <= 1 && (math.IsNaN(lo) || p.Scaled > lo) {
			hi = p.Scaled
			break
		}
	}
	return lo, hi
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
