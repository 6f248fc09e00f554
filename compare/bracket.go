package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

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
	// non-adaptive mode whose runs can be split across machines.
	Fixed bool
	// ModelScaled is the refresh map's edge T_edge(1−λ)²; 0 means compute
	// it with meanfield.Edge.
	ModelScaled float64
	// Sizes are the job sizes of the simulator and of the model (exp,
	// h2:C, erlang:K; zero value exp).
	Sizes     sim.Sizes
	MaxPoints int    // most points per bracket; default 30
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
func RecordSizes(z sim.Sizes) string {
	if z.Kind == sim.Exp {
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

// PointStat is the tipping table at one T.
type PointStat struct {
	Scaled, Refresh float64
	Runs            int
	Tipped          int     // runs that tipped within the full run length
	TippedCut       int     // runs that tipped within Cut refreshes
	MedianTip       float64 // median tipping refresh of the tipped runs; NaN if none
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
	Runs               int         // runs simulated now (not taken from the store)
	Jobs               int64       // jobs simulated now
}

// Bracket brackets the edge of the balanced state at N servers (model.md
// §4; issue 5): runs from a balanced start at a grid of T(1−λ)² around the
// model's edge, each stopped as soon as it tips; the bracket is [last T
// where all runs tipped, first T above it where at most one did]; the
// grid is extended until both ends exist and the bracket is refined by
// bisecting its widest gap until no gap inside it exceeds Resolution (or
// MaxPoints is reached). Finished runs are recorded in store (if not nil)
// and runs already there are not run again, so an interrupted bracket
// resumes with the same result. notify, if set, is called after each run
// with the runs done and the runs known to be needed so far.
func Bracket(ctx context.Context, s BracketSettings, store Store, notify func(done, total int)) (BracketResult, error) {
	if err := s.Validate(); err != nil {
		return BracketResult{}, err
	}
	s = s.withDefaults()
	res := BracketResult{Settings: s, Lower: math.NaN(), Upper: math.NaN(), LowerCut: math.NaN(), UpperCut: math.NaN()}
	if s.ModelScaled == 0 {
		svc, _ := ModelService(s.Sizes) // checked by Validate
		e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: svc})
		if err != nil && !(s.Grid != nil && errors.Is(err, meanfield.ErrNotConverged)) {
			return res, fmt.Errorf("compare: the model's edge: %w", err)
		}
		// With a Grid the runs need no model edge: one that finds no balanced
		// state at its BranchFrom (heavy-tailed sizes) leaves the model column
		// empty.
		if err == nil && e.Found {
			s.ModelScaled = e.Scaled
		} else {
			s.ModelScaled = math.NaN()
		}
		res.Settings.ModelScaled = s.ModelScaled
	}
	res.ModelScaled = s.ModelScaled
	grid := s.Grid
	if grid == nil {
		if math.IsNaN(s.ModelScaled) {
			return res, fmt.Errorf("compare: the model has no edge for k = %d, λ = %g: give a Grid", s.Dispatchers, s.Load)
		}
		for _, f := range []float64{0.8, 0.9, 1, 1.1, 1.2, 1.35, 1.5, 1.7} {
			grid = append(grid, round6(f*s.ModelScaled))
		}
	}
	b := &bracketer{s: s, store: store, notify: notify, points: map[float64]*PointStat{}, res: &res}
	if s.Fixed {
		if err := b.eval(ctx, grid); err != nil {
			b.finish()
			return res, err
		}
	} else {
		// Ascending, one point at a time, until the bracket has both ends:
		// points far above the edge, where every run survives the whole
		// run length, are the costly ones.
		g := append([]float64(nil), grid...)
		sort.Float64s(g)
		for _, x := range g {
			if err := b.eval(ctx, []float64{x}); err != nil {
				b.finish()
				return res, err
			}
			b.stats()
			if lo, hi := bracketOf(b.sorted(), s.Runs, false); !math.IsNaN(lo) && !math.IsNaN(hi) {
				break
			}
		}
	}
	if !s.Fixed {
		// Extend until the bracket has both ends, then bisect its gaps.
		for len(b.points) < s.MaxPoints {
			b.stats()
			lo, hi := bracketOf(b.sorted(), s.Runs, false)
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
			if err := b.eval(ctx, []float64{next}); err != nil {
				b.finish()
				return res, err
			}
		}
	}
	b.finish()
	return res, nil
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
	tips   map[float64][]int
	res    *BracketResult
	done   int
	total  int
}

func (b *bracketer) sorted() []PointStat {
	out := make([]PointStat, 0, len(b.points))
	for _, p := range b.points {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scaled < out[j].Scaled })
	return out
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
			rec := RunRecord{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Scaled: x,
				Refreshes: s.Refreshes, Rep: rep, Seed: s.Seed, Sizes: RecordSizes(s.Sizes)}
			if b.store != nil {
				if got, ok := b.store.Get(rec.Key()); ok {
					b.tips[x] = append(b.tips[x], got.TippedAt)
					b.done++
					continue
				}
			}
			det := NewDetector(s.Load, T, true)
			c := sim.Config{
				Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Refresh: T,
				Policy: sim.Policy{Kind: sim.LeastLoaded}, Tally: sim.TallyOwn,
				Start: sim.Start{Kind: sim.StartBalanced}, Sizes: s.Sizes,
				Horizon: float64(s.Refreshes) * T, NoWarmup: true,
				Observe: det.Observe,
			}
			id := fmt.Sprintf("bracket servers=%d dispatchers=%d load=%s scaled=%s refreshes=%d",
				s.Servers, s.Dispatchers, fstr(s.Load), fstr(x), s.Refreshes) + sizesKey(rec.Sizes)
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(s.Seed, id, rep)})
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
	complete := pts[:0:0]
	for _, p := range pts {
		if p.Runs == s.Runs {
			complete = append(complete, p)
		}
	}
	b.res.Points = pts
	b.res.Lower, b.res.Upper = bracketOf(complete, s.Runs, false)
	b.res.LowerCut, b.res.UpperCut = bracketOf(complete, s.Runs, true)
}

// stats updates each point's counts from the runs done.
func (b *bracketer) stats() {
	s := b.s
	for x, p := range b.points {
		tips := b.tips[x]
		p.Runs = len(tips)
		p.Tipped, p.TippedCut = 0, 0
		var at []float64
		for _, t := range tips {
			if t >= 0 {
				p.Tipped++
				at = append(at, float64(t))
				if t <= s.Cut {
					p.TippedCut++
				}
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
