package meanfield

import (
	"errors"
	"fmt"
	"math"
	"time"

	"herd/fixedpoint"
	"herd/fixedpoint/root"
	"herd/fleet"
	"herd/internal/pool"
)

// Crossing kinds of EdgeResult.Crossing.
const (
	// CrossingBorder: a border collision (nonsmooth fold): the stable node,
	// with T just before a window end, reaches the window boundary.
	CrossingBorder = "border"
	// CrossingFlip: a smooth loss with an eigenvalue through −1.
	CrossingFlip = "flip"
	// CrossingFold: a smooth loss with an eigenvalue through +1.
	CrossingFold = "fold"
	// CrossingUnclassified: at the end of the branch the node is neither
	// near a window end nor has an eigenvalue near ±1 (an abrupt loss the
	// classifier does not recognise).
	CrossingUnclassified = "unclassified"
	// CrossingNone: no edge down to MinScaled.
	CrossingNone = "none"
)

// Defaults of EdgeSettings.
const (
	DefaultEdgeRelTol    = 1e-4
	DefaultEdgeMinScaled = 0.02
	DefaultEdgeHerdMaps  = 40
	// DefaultEdgeMaxScaled is the highest T(1−λ)² the footing search
	// climbs to before giving up.
	DefaultEdgeMaxScaled = 1000

	maxEdgeWorkers = 64
)

// EdgeSettings controls Edge. The zero value of each optional field means
// its default.
type EdgeSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// RelTol is the relative precision of the edge in T, in [1e-8, 0.1].
	// Zero means 1e-4.
	RelTol float64
	// MinScaled is the lowest T(1−λ)² searched, in (0, 500), below
	// BranchFrom when that is set. Zero means 0.02.
	MinScaled float64
	// BranchFrom is the T(1−λ)² at which the footing search starts, in
	// (MinScaled, 1000]. Zero means EdgeFootingFor (the law's estimate,
	// raised to where the board mean separates herds from balanced
	// states), or 2·MinScaled when that is higher.
	BranchFrom float64
	// HerdMaps bounds the maps spent classifying the herd attractor below
	// the edge (EdgeResult.Herd), at least 0; unless HerdFull is set, the
	// classification also stops, unclassified, once its work reaches
	// that of the edge search itself, or as soon as the maps it still
	// needs, priced at its last map's cost, would take it there. Zero
	// means 40; a negative value skips it.
	HerdMaps int
	// HerdFull lifts the work bound of the herd classification (HerdMaps
	// still bounds the maps).
	HerdFull bool
	// ScanBelow is the number of protocol probes below a lost branch (see
	// Edge). Zero means 6; a negative value means none.
	ScanBelow int
	// Service is the job-size law (zero value: exponential); the low start
	// boards are lifted with fresh phases (Service.Lift).
	Service Service
	// Workers is the number of iteration runs computed at once, in
	// [0, 64]; zero means 1. The result, Stats and Work included, does not
	// depend on it (see Edge).
	Workers int
	// Stop, when not nil, is polled after every map of the search's
	// iteration runs; once it reports true, Edge returns within a map with
	// an error wrapping ErrStopped (herd's Ctrl-C). It is not a setting of
	// the computation: the result of a search it does not stop is the same.
	Stop func() bool `json:"-"`
	// Progress, when not nil, is called each time one of the search's
	// iteration runs ends (in the order of the sequential search,
	// whatever Workers is), when the crossing's spectra and the herd's
	// classification begin, and after each of the herd's maps: one call
	// at a time, on the goroutine that called Edge, except the herd's
	// reports, which with Workers > 1 come from the goroutine classifying
	// it. Like Stop, it is not a setting of the computation: the result
	// is the same without it.
	Progress func(EdgeProgress) `json:"-"`
	// Mapped, when not nil, is called after each map of the search's
	// iteration runs and of the herd's classification that does not end
	// its run, from the goroutine that made it (with Workers > 1, from
	// several at once): a heartbeat's live count while one run takes
	// minutes, between two Progress reports. It is not the search's cost
	// (EdgeResult.Maps) and, like Stop, not a setting of the computation.
	Mapped func() `json:"-"`
	// Journal, when not nil, keeps the search's outcomes as they are
	// computed and supplies those it already holds (edgejournal.go): a
	// search stopped part way and run again with its journal continues
	// where it stopped, with the uninterrupted search's result, Maps and
	// Work included. Like Stop, it is not a setting of the computation.
	Journal *EdgeJournal `json:"-"`

	plain bool // no accelerated corrector (edgeaccel.go): every run plain, for comparison
	// rateOnly: the accelerated corrector without its steady test
	// (edgeAccel.steadyRate 0), the rule that carries TestEdgeSaddleSide's
	// run to a saddle.
	rateOnly bool
	// noGeo: the accelerated corrector without the geometric jump
	// (edgeAccel.geoAdmit), Anderson's update on steady contraction
	// instead, for comparison.
	noGeo bool
}

// EdgeProgress is one report of Edge's progress (EdgeSettings.Progress):
// the step of the search in hand (footing, follow, scan, confirm,
// spectra, herd; "spectra and herd" when the two run at once), the maps
// made so far by the search's runs, and, when Ran, the run that just
// ended: its period as T(1−λ)² and whether it reached a balanced fixed
// point. A report without Ran or HerdMaps opens a step.
//
// MapsLeft, when positive, estimates the maps the search's runs still
// have to make once its branch has failed once: the runs left (the
// bisection of the bracket to RelTol/2, then the scan's probes and one
// confirmation, another after a confirmation run that failed) times the
// maps of the slowest run that failed so far (near the edge every failing
// run lingers by the node's ghost, and those runs dominate what is left).
// It leaves out the spectra and the herd's classification, gaps found by
// the scan and confirmations that step up. Zero: no estimate yet
// (footing, descent before its first failure), or none left.
//
// The herd's classification (steps herd, and spectra and herd) reports
// after each of its maps: HerdMaps is its maps so far and HerdLeft the
// most it has left, its budget of maps less those made; a fixed point,
// an orbit or an aperiodic herd found, or its work budget spent, ends it
// sooner. Its maps cost more than the search's (a herd's boards are
// long) and are not in Maps. Both are zero in every other report.
type EdgeProgress struct {
	Step               string
	Maps               int
	Scaled             float64
	Ran                bool
	Reached            bool
	MapsLeft           int
	HerdMaps, HerdLeft int
}

// Validate reports the first setting out of range, naming the field.
func (s EdgeSettings) Validate() error {
	d := s.withDefaults()
	switch {
	case s.Dispatchers < 1 || s.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: EdgeSettings.Dispatchers = %d outside [1, %d]", s.Dispatchers, maxRefreshDispatchers)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: EdgeSettings.Load = %v outside (0, 1)", s.Load)
	case s.RelTol != 0 && !(s.RelTol >= 1e-8 && s.RelTol <= 0.1):
		return fmt.Errorf("meanfield: EdgeSettings.RelTol = %v outside [1e-8, 0.1] (0 means %g)", s.RelTol, DefaultEdgeRelTol)
	case s.BranchFrom != 0 && !(s.BranchFrom > 0 && s.BranchFrom <= DefaultEdgeMaxScaled):
		return fmt.Errorf("meanfield: EdgeSettings.BranchFrom = %v outside (0, %g] (0 means the law's estimate)", s.BranchFrom, float64(DefaultEdgeMaxScaled))
	case s.MinScaled != 0 && !(s.MinScaled > 0 && s.MinScaled < DefaultEdgeMaxScaled/2):
		return fmt.Errorf("meanfield: EdgeSettings.MinScaled = %v outside (0, %g) (0 means %g)", s.MinScaled, float64(DefaultEdgeMaxScaled/2), DefaultEdgeMinScaled)
	case !(d.MinScaled < d.BranchFrom):
		return fmt.Errorf("meanfield: EdgeSettings.BranchFrom = %v not above MinScaled = %v", d.BranchFrom, d.MinScaled)
	case s.Workers < 0 || s.Workers > maxEdgeWorkers:
		return fmt.Errorf("meanfield: EdgeSettings.Workers = %d outside [0, %d] (0 means 1)", s.Workers, maxEdgeWorkers)
	case d.BranchFrom/((1-s.Load)*(1-s.Load)) > maxRefreshPeriod:
		return fmt.Errorf("meanfield: EdgeSettings: the search would start at T = %.3g, above %g (k = %d, λ = %v: the edge lies beyond the map's range)",
			d.BranchFrom/((1-s.Load)*(1-s.Load)), maxRefreshPeriod, s.Dispatchers, s.Load)
	}
	return s.Service.Validate()
}

// EdgeFooting returns the T(1−λ)² at which Edge starts its footing
// search: the law's estimate fleet.LawScaled(k) = 0.9(k − 2) for k ≥ 3,
// and its value at k = 3, 0.9, for k ≤ 2, where the law predicts no edge
// (a balanced start from which the branch is followed down to MinScaled).
func EdgeFooting(k int) float64 {
	return fleet.LawScaled(max(k, fleet.LawOffset+1))
}

// EdgeFootingFor is where Edge starts by default for k dispatchers at
// load λ with sizes s: EdgeFooting(k), raised to SeparableScaled(λ, s)
// where that is higher, so that the footing's verdict "balanced" cannot
// be a short-period herd's (the descent then follows the balanced branch
// down continuously). It differs from EdgeFooting only at low loads
// (exp: λ < 0.775 for k = 3) and for heavy-tailed sizes (h2:10 at
// λ = 0.9: 4 instead of 0.9 for k = 3).
func EdgeFootingFor(k int, load float64, s Service) float64 {
	return max(EdgeFooting(k), SeparableScaled(load, s))
}

func (s EdgeSettings) withDefaults() EdgeSettings {
	if s.RelTol == 0 {
		s.RelTol = DefaultEdgeRelTol
	}
	if s.MinScaled == 0 {
		s.MinScaled = DefaultEdgeMinScaled
	}
	if s.BranchFrom == 0 {
		s.BranchFrom = EdgeFootingFor(s.Dispatchers, s.Load, s.Service)
		if s.BranchFrom <= s.MinScaled {
			s.BranchFrom = 2 * s.MinScaled
		}
	}
	if s.HerdMaps == 0 {
		s.HerdMaps = DefaultEdgeHerdMaps
	}
	if s.ScanBelow == 0 {
		s.ScanBelow = 6
	}
	if s.Workers == 0 {
		s.Workers = 1
	}
	return s
}

// EdgeGap is a range of T(1−λ)² above the edge in which no low board
// reaches a balanced state, between two balanced ranges.
type EdgeGap struct {
	// Lo and Hi bound the gap: the protocol holds at Lo and at Hi and
	// fails at every probe between (each located to about 10·RelTol).
	Lo, Hi float64
}

// EdgeResult is the edge of the balanced state for one (k, λ).
type EdgeResult struct {
	// Status is Found, or NotFound when a balanced state persists down to
	// MinScaled.
	Status Status
	// Refresh is the protocol edge T_edge, Scaled = T_edge(1−λ)².
	Refresh, Scaled float64
	// Below is the highest T known not to satisfy the protocol, just
	// below Refresh (Refresh − Below ≤ RelTol·Refresh); NaN when not found.
	Below float64
	// BranchRefresh and BranchScaled: where the balanced branch followed
	// down from the footing is lost.
	BranchRefresh, BranchScaled float64
	// Footing is the T(1−λ)² at which every low board reached a balanced
	// state, from which the search went down.
	Footing float64
	// Gaps lists, from the top down, the ranges above the edge in which
	// the low boards do not reach a balanced state (see Edge).
	Gaps []EdgeGap
	// Crossing is CrossingBorder, CrossingFlip, CrossingFold,
	// CrossingUnclassified or CrossingNone: how the balanced branch on
	// which the edge lies is lost, judged at the branch's lowest point
	// (its end, where it is lost to RelTol/2). The protocol edge lies at
	// or above that point: above it when the low boards stop reaching the
	// branch before the branch itself is lost (its basin no longer holds
	// them), by up to a few tenths of a percent in the cases measured.
	Crossing string
	// NodeRadius is the spectral radius of the stable node at the end of
	// the branch.
	NodeRadius float64
	// SaddleEigenvalue is the leading eigenvalue of the map's piece beyond
	// the border, at the collision point: the unstable partner's leading
	// eigenvalue in the limit T → T_edge. NaN if not found (or not real).
	SaddleEigenvalue float64
	// Herd is the attractor reached just below the edge, continuing the
	// run that failed at Below (the failed continuation step, or the
	// empty board's run when the edge was bisected), classified within the budget of
	// EdgeSettings.HerdMaps: a fixed point, a period-P orbit, or Aperiodic
	// with averages over the second half of the budget (when those
	// averages drift by less than 2% over it); Unconverged (Period 0) when
	// skipped, when the budget was too small, or when the orbit was still
	// drifting. Its maps are board-only (the same boards as full maps, to
	// the bit), so its QueueMean and Response are NaN: herd point and
	// herd hysteresis give a herd's response.
	Herd HerdAttractor
	// Stats: Maps counts refresh-map applications in all, Probes the
	// protocol evaluations (cold iterations from the low boards) and Steps
	// the warm continuation steps.
	Stats
	// Work is a measure of the arithmetic done: Σ windows·rows over all
	// maps (deterministic, unlike a time).
	Work float64
}

// ErrStopped is returned (wrapped) by a search that EdgeSettings.Stop
// stopped, or by a run that AttractorSettings.Stop stopped.
var ErrStopped = errors.New("meanfield: stopped")

// Internal tolerances of Edge.
const (
	edgeFPTol      = 1e-9  // L1 tolerance of a fixed point
	edgeDescentTol = 1e-7  // … of a continuation step before the branch's first failure
	edgeMaxIter    = 3000  // maps per iteration run
	edgeLeaveRun   = 2     // left the basin: the mean of the board made above the balanced scale and rising for this many maps
	edgeMaxStep    = 0.1   // largest relative continuation step
	edgeFootStep   = 1.25  // footing search: factor per step up
	edgeScanWindow = 0.25  // scan spacing below a lost branch, in windows k/λ …
	edgeScanRel    = 0.005 // … at most this fraction of T
	edgeHerdTol    = 1e-4  // L1 tolerance of the herd attractor (herds drift slowly)
	edgeGapRel     = 10    // gap ends are located to edgeGapRel·RelTol
	edgeHerdDrift  = 0.02  // an aperiodic herd drifts by less than this fraction of its mean over its averaging window
	edgeBorderBand = 0.05  // a fixed point within this fraction of a window k/λ of a window boundary is at a border collision
)

// edgeRun is the state of one Edge computation.
type edgeRun struct {
	s     EdgeSettings
	k     int
	lam   float64
	scale float64 // (1−λ)²
	res   *EdgeResult
	maps  []*RefreshMap // one workspace per worker, for every period
	step  edgeStep      // the step in hand, for cost
	cost  [edgeSteps]stepCost
	// known holds the balanced fixed points found (the followed
	// branches' and the cold runs'), by period, near which cold runs may
	// be accelerated (edgeaccel.go, nodeRef). Written between batches only.
	known map[float64]knownNode
	// cold holds the outcomes of the cold runs made, by period and low
	// board: a protocol asked again where it ran before reuses them (at
	// no cost: they are counted once). Written between batches only.
	cold map[coldKey]runOut
	// For EdgeProgress.MapsLeft, kept only with a Progress: the maps of
	// the slowest run that failed, the follow's bracket (the lowest period
	// reached and the highest failed below it, 0 when none yet) and the
	// scan's probes not yet reported.
	slowFail        int
	reached, failed float64
	scanLeft        int
}

// coldKey names a cold run: its period and low board (lowBoards index).
type coldKey struct {
	T     float64
	board int
}

// edgeStep is a step of Edge's search, for the breakdown of its cost.
type edgeStep int

// The steps of Edge's search (see Edge), in order.
const (
	stepFooting edgeStep = iota
	stepFollow
	stepScan
	stepConfirm
	stepSpectra
	stepHerd
	edgeSteps
)

// stepNames name the edgeStep values.
var stepNames = [edgeSteps]string{"footing", "follow", "scan", "confirm", "spectra", "herd"}

// stepCost is the cost of one step of the search: maps and Work.
type stepCost struct {
	maps int
	work float64
}

// add counts maps and work in the result and in step p's cost.
func (e *edgeRun) add(p edgeStep, maps int, work float64) {
	e.res.Maps += maps
	e.res.Work += work
	e.cost[p].maps += maps
	e.cost[p].work += work
}

// mapAt returns worker w's map with its period set to T (the workspace is
// reused between runs: RefreshMap.Apply's result depends on its settings
// and input only, whatever its caches hold). The map computes boards only
// (RefreshMap.boardOnly: the search judges boards, never the time-averaged
// queue), with the shortcuts that change rounding (the herd's
// classification too).
func (e *edgeRun) mapAt(w int, T float64) (*RefreshMap, error) {
	set := Refresh{Dispatchers: e.k, Load: e.lam, Period: T, Service: e.s.Service}
	if e.maps[w] == nil {
		m, err := NewRefreshMap(set)
		if err != nil {
			return nil, err
		}
		m.boardOnly = true
		e.maps[w] = m
		return m, nil
	}
	if err := set.Validate(); err != nil {
		return nil, err
	}
	m := e.maps[w]
	m.set.Period = T
	if m.ph != nil {
		m.ph.set.Period = T // the phase map keeps its own copy (no period-dependent caches)
	}
	return m, nil
}

// runOut is one iteration run: whether it ended balanced, its attractor,
// its error and its cost (maps, and Work's measure).
type runOut struct {
	ok   bool
	att  Attractor
	err  error
	maps int
	work float64
}

// runOn iterates worker w's map at period j.T from j.start until a fixed
// point or an orbit, or until the board has clearly left the balanced
// basin: in the herd regime (herdRegime: λ > ½ and the mean above
// BalancedQueueScale/(1−λ), above every balanced fixed point at that load,
// see herdSized) and rising for edgeLeaveRun consecutive maps, judged on
// the boards the maps made (so the last one, the largest board of the run
// and the dearest to map, is not mapped). From a low board the mean
// climbs towards a balanced fixed point from below, so a run that ends
// balanced never meets this test; a run stopped by it is heading for the
// herd, whose board mean grows with T (at least (λ − ½)·T, herdSized's
// backlog twice over), and mapping the herd any further would be wasted
// work. At λ ≤ ½ there is no herd and no run is stopped so: working
// states of many dispatchers lie above the scale there (BalancedQueueScale).
// The run's cost is not accounted (runBatch does);
// a run for which cancel (if not nil) reports true stops after its
// current map, its output to be discarded.
func (e *edgeRun) runOn(w int, j runJob, tol float64, cancel func() bool) runOut {
	T, start := j.T, j.start
	if j.tol > 0 {
		tol = j.tol
	}
	if o, ok := e.cold[coldKey{T, j.low}]; ok && j.low > 0 {
		o.maps, o.work = 0, 0
		return o
	}
	jr, key := e.s.Journal, e.runKey(j, tol)
	if o, ok := jr.run(key); ok {
		return o
	}
	m, err := e.mapAt(w, T)
	if err != nil {
		return runOut{err: err}
	}
	var o runOut
	P := e.s.Service.PhaseCount()
	// The accelerated run's state after its last map before the first
	// jump: up to there it is the plain run, map for map, so a plain run
	// made again continues from it (its maps are not made twice).
	var plain *RunState
	plainHigh := 0
	once := func(acc *edgeAccel) (Attractor, error) {
		high := 0
		set := AttractorSettings{MaxIter: edgeMaxIter, Tol: tol, MaxPeriod: DefaultAttractorMaxPeriod}
		switch {
		case acc != nil:
			set.Checkpoint = func(_ bool, state func() *RunState) {
				if acc.jumps == 0 {
					plain, plainHigh = state(), high
				}
			}
		case jr != nil:
			e.journalRun(&set, key, &high, &o.work)
		}
		resumed := 0
		if plain != nil && set.Resume == nil {
			set.Resume, high, resumed = plain, plainHigh, plain.Maps
		} else if plain != nil {
			resumed = plain.Maps // the journal's state continues this one
		}
		stop := func(r RefreshResult) bool {
			o.work += float64(r.Windows) * float64(r.Rows)
			// The test reads the board the map made (the next map's
			// input, as that map would normalise it), so a run leaving
			// the basin is stopped without mapping its last board.
			if next := stateMean(r.Next, P); herdRegime(next, e.lam, e.s.Service) && next > r.BoardMean {
				high++
			} else {
				high = 0
			}
			e.mapped()
			// An accelerated run whose acceleration is off for good
			// ends: the plain run decides from its state before the
			// first jump (edgeaccel.go).
			ended := acc != nil && acc.off && acc.jumps > 0
			return high >= edgeLeaveRun || ended || (cancel != nil && cancel()) || (set.Stop == nil && e.stopped())
		}
		var jump boardJump
		if acc != nil {
			jump = acc.jump
		}
		att, _, err := iterateAccelerated(m, start, set, stop, jump)
		o.maps += att.Maps - resumed
		return att, err
	}
	acc := e.accelFor(j)
	att, err := once(acc)
	if acc != nil && acc.jumps > 0 && (cancel == nil || !cancel()) {
		// Only a plain run says that the balanced state is not reached
		// from start: jumps near a border may throw a run out of a small
		// basin (edgeaccel.go). Nor is a fixed point reached by jumps
		// just past a window's start taken as reached: there lies the
		// saddle of a border collision (package doc, §5), a root of F(p) = p
		// that Anderson's update can converge to and plain maps leave
		// (edgeaccel.go).
		failed := !att.Balanced && (err == nil || errors.Is(err, ErrNotConverged))
		if failed && acc.canFall() {
			// Anderson's jumps were given up (phase-type sizes): a
			// second pass from the plain state before them, with
			// geometric jumps alone (edgeAccel.quit); a plain run
			// judges it in turn if it fails or ends by a saddle.
			acc = acc.geoPass()
			att, err = once(acc)
			failed = !att.Balanced && (err == nil || errors.Is(err, ErrNotConverged))
		}
		if acc.jumps > 0 && (failed || (err == nil && att.Balanced && e.saddleSide(att))) && (cancel == nil || !cancel()) {
			att, err = once(nil)
		}
	}
	if e.stopped() {
		o.err = fmt.Errorf("edge search at T = %g: %w", T, ErrStopped)
		return o
	}
	o.att = att
	if err != nil && !errors.Is(err, ErrNotConverged) {
		o.err = err
		return o
	}
	o.ok = att.Balanced
	if cancel != nil && cancel() {
		jr.dropOpen(key) // its output is discarded
		return o
	}
	jr.keepRun(key, o)
	return o
}

// runKey names run j at tolerance tol in the search's journal ("" without
// one): its period, start, tolerance, low board and warmth determine it.
func (e *edgeRun) runKey(j runJob, tol float64) string {
	if e.s.Journal == nil {
		return ""
	}
	return journalKey("run", j.start, j.T, tol, float64(j.low), boolNum(j.warm))
}

// journalRun makes the plain run named key save its state to the
// search's journal as it goes (edgejournal.go) and continue from the
// state saved; high and work are runOn's counters, which the state
// carries. The search's Stop ends the run through set.Stop, which saves
// the state first.
func (e *edgeRun) journalRun(set *AttractorSettings, key string, high *int, work *float64) {
	jr := e.s.Journal
	base := *work
	if st, ok := jr.open(key); ok {
		set.Resume, *high, *work = st.State, st.High, base+st.Work
	}
	set.Stop = e.stopped
	set.Checkpoint = func(stopping bool, state func() *RunState) {
		if jr.due(key, stopping) {
			jr.keepOpen(key, journalOpen{State: state(), High: *high, Work: *work - base})
		}
	}
}

// boolNum is 1 for true, 0 for false.
func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// saddleSide reports whether the fixed point att lies on the saddle's side
// of a border collision: T just past the start of its cut window, within
// edgeBorderBand of a window k/λ (package doc, §5: the stable node has T just
// before a window boundary, the saddle just after it).
func (e *edgeRun) saddleSide(att Attractor) bool {
	return att.CutPhase < 0.5 && att.KinkDistance < edgeBorderBand*float64(e.k)/e.lam
}

// mapped reports a map to EdgeSettings.Mapped.
func (e *edgeRun) mapped() {
	if e.s.Mapped != nil {
		e.s.Mapped()
	}
}

// stopped reports whether EdgeSettings.Stop asks the search to end.
func (e *edgeRun) stopped() bool { return e.s.Stop != nil && e.s.Stop() }

// openStep reports (Progress) that the named step begins at period T.
func (e *edgeRun) openStep(name string, T float64) {
	if e.s.Progress != nil {
		e.s.Progress(EdgeProgress{Step: name, Maps: e.res.Maps, Scaled: T * e.scale})
	}
}

// runJob is one iteration run: period and start, and whether it is
// warm-started (a continuation step) rather than a cold protocol run.
type runJob struct {
	T     float64
	start []float64
	warm  bool
	low   int     // 1 + the lowBoards index of a cold run's start, else 0
	tol   float64 // the run's L1 tolerance, if not the batch's
}

// accelFor returns the accelerator of run j (edgeaccel.go), or nil for a
// plain run: a warm run is accelerated, a cold one only near the balanced
// fixed point known at its period. Phase-type states are accelerated as
// boards are (a state is a probability vector too; jumps keep whole
// levels, edgeAccel.extrapolate).
func (e *edgeRun) accelFor(j runJob) *edgeAccel {
	if e.s.plain {
		return nil
	}
	var acc *edgeAccel
	if j.warm {
		acc = newEdgeAccel(e.lam, e.s.Service, nil)
	} else if ref := e.nodeRef(j.T); ref != nil {
		acc = newEdgeAccel(e.lam, e.s.Service, ref)
	}
	if acc != nil && e.s.rateOnly {
		acc.steadyRate = 0
	}
	switch {
	case acc == nil || e.s.noGeo || e.s.rateOnly:
	case e.s.Service.PhaseCount() == 1:
		acc.withGeo(e.k, j.T)
	default:
		// With phase-type sizes the geometric jump takes over only
		// where Anderson's update gives up (edgeAccel.quit).
		acc.withFallback(e.k, j.T)
	}
	return acc
}

// knownNode is a balanced fixed point found: its board and its cut window
// (the smooth piece of the map it lies on).
type knownNode struct {
	board  []float64
	window int
}

// know records the balanced fixed point att at T, unless one is known.
func (e *edgeRun) know(T float64, att Attractor) {
	if _, ok := e.known[T]; !ok {
		e.known[T] = knownNode{att.Board, att.Window}
	}
}

// nodeRef is the reference board near which a cold run at T may be
// accelerated: the balanced fixed point known at T, or else the linear
// interpolation (a convex combination, so a board or phase-type state)
// between those known at the nearest periods T₁ < T < T₂, when both lie
// on one smooth piece (the same cut window) no more than edgeMaxStep·T
// apart — the span of one continuation step, across which a locked
// branch's node moves smoothly; nil otherwise. The reference only decides
// where jumps may start: convergence is judged on plain maps (edgeaccel.go).
func (e *edgeRun) nodeRef(T float64) []float64 {
	if n, ok := e.known[T]; ok {
		return n.board
	}
	t1, t2 := math.Inf(-1), math.Inf(1)
	for t := range e.known {
		switch {
		case t < T && t > t1:
			t1 = t
		case t > T && t < t2:
			t2 = t
		}
	}
	if math.IsInf(t1, 0) || math.IsInf(t2, 0) || t2-t1 > edgeMaxStep*T {
		return nil
	}
	n1, n2 := e.known[t1], e.known[t2]
	if n1.window != n2.window {
		return nil
	}
	w := (T - t1) / (t2 - t1)
	ref := make([]float64, max(len(n1.board), len(n2.board)))
	for i := range ref {
		var x1, x2 float64
		if i < len(n1.board) {
			x1 = n1.board[i]
		}
		if i < len(n2.board) {
			x2 = n2.board[i]
		}
		ref[i] = (1-w)*x1 + w*x2
	}
	return ref
}

// runBatch evaluates the runs of jobs as the sequential loop
//
//	for i := 0; i < len(jobs); i = next(i, out[i]) { out[i] = run(jobs[i]) }
//
// does (next returns an index above i, len(jobs) to stop): it returns every
// job's output, ran[i] marking the runs that loop makes, and adds their
// cost to the counters. With Workers > 1 the jobs after the one in hand
// are started at once on the other workers, in index order
// (pool.Speculate); a job the loop skips is cancelled (or never started)
// and its output discarded. Each run's output depends on its job alone
// (runOn) and next is applied in index order, so outputs and counters are
// the loop's whatever the scheduling and the number of workers.
func (e *edgeRun) runBatch(jobs []runJob, tol float64, next func(i int, o runOut) int) ([]runOut, []bool) {
	if e.s.Progress != nil {
		// Each run as it ends: next is applied in index order on this
		// goroutine, and the batch's maps are counted only at its end.
		maps, loop := e.res.Maps, next
		next = func(i int, o runOut) int {
			maps += o.maps
			e.track(jobs[i].T, o)
			e.s.Progress(EdgeProgress{Step: stepNames[e.step], Maps: maps, Scaled: jobs[i].T * e.scale,
				Ran: true, Reached: o.ok && o.err == nil, MapsLeft: e.mapsLeft(o.ok && o.err == nil)})
			return loop(i, o)
		}
	}
	outs, ran := pool.Speculate(len(jobs), e.s.Workers, func(w, i int, skipped func() bool) runOut {
		return e.runOn(w, jobs[i], tol, skipped)
	}, next)
	for i, o := range outs {
		if ran[i] {
			e.add(e.step, o.maps, o.work)
			if o.ok && o.err == nil {
				e.know(jobs[i].T, o.att)
			}
			if jobs[i].low > 0 && o.err == nil {
				e.cold[coldKey{jobs[i].T, jobs[i].low}] = o
			}
		}
	}
	return outs, ran
}

// track records the run at T that ended with o, for mapsLeft.
func (e *edgeRun) track(T float64, o runOut) {
	reached := o.ok && o.err == nil
	if !reached && o.err == nil {
		e.slowFail = max(e.slowFail, o.maps)
	}
	switch e.step {
	case stepFollow:
		if reached && T < e.reached {
			e.reached = T
		}
		if !reached && T > e.failed && T < e.reached {
			e.failed = T
		}
	case stepScan:
		e.scanLeft = max(e.scanLeft-1, 0)
	}
}

// mapsLeft is EdgeProgress.MapsLeft after a run that reached a balanced
// state or not.
func (e *edgeRun) mapsLeft(reached bool) int {
	runs := 0
	switch e.step {
	case stepFollow:
		if e.failed > 0 && e.reached > e.failed {
			bisect := math.Ceil(math.Log2((e.reached - e.failed) / (e.s.RelTol * e.reached / 2)))
			runs = max(int(bisect), 1) + max(e.s.ScanBelow, 0) + 1
		}
	case stepScan:
		runs = e.scanLeft + 1
	case stepConfirm:
		if !reached {
			runs = 1
		}
	}
	return runs * e.slowFail
}

// lowBoards are the low start boards of the protocol (package doc, §5).
func lowBoards() [][]float64 {
	return [][]float64{BoardEmpty(), BoardBalanced(1), BoardBalanced(3)}
}

// lowJobs are the runs of the low boards at T, all three or (all false)
// only the empty board's.
func (e *edgeRun) lowJobs(T float64, all bool) []runJob {
	var jobs []runJob
	for i, b := range lowBoards() {
		jobs = append(jobs, runJob{T: T, start: e.s.Service.Lift(b), low: i + 1})
		if !all {
			break
		}
	}
	return jobs
}

// verdict is the protocol's outcome at one T: whether it was evaluated,
// whether it holds, the last attractor (the balanced one, or the empty
// board's) and the error that ended it.
type verdict struct {
	evaluated, ok bool
	att           Attractor
	err           error
}

// protocols evaluates the protocol (protocol) at each T of ts in turn,
// as the loop of protocol calls would; it stops at an error. The runs of
// all the T form one batch (runBatch), so with Workers > 1 the starts of
// one T and the next T run at once.
func (e *edgeRun) protocols(ts []float64, all bool) []verdict {
	return e.protocolsBy(ts, all, func(t int, _ verdict) int { return t + 1 })
}

// walked is the outcome of a walk of the protocol (edgeRun.walk): the
// verdicts, evaluated up to the i-th T, the first at which the protocol
// holds or fails with err (i = len(ts) when it holds at none).
type walked struct {
	vs  []verdict
	i   int
	err error
}

// walk evaluates the protocol (all low boards, or the empty board's
// alone) at the T of ts in turn until it holds at one: root.WalkBatched
// on protocolsBy, so the runs of all the T form one batch and with
// Workers > 1 the next T run while the one in hand does; those after the
// T where it holds are cancelled.
func (e *edgeRun) walk(ts []float64, all bool) walked {
	var w walked
	w.i, w.err = root.WalkBatched(func(ts []float64, next func(int, bool) int) []verdict {
		w.vs = e.protocolsBy(ts, all, func(t int, v verdict) int { return next(t, v.ok) })
		return w.vs
	}, func(_ float64, v verdict) (bool, bool, error) {
		return v.evaluated, v.ok, v.err
	}, ts)
	return w
}

// protocolsBy evaluates the protocol at the T of ts as the loop
//
//	for t := 0; t < len(ts); t = next(t, v) { v = protocol(ts[t], all) }
//
// does (next, given the verdict's ok, returns an index above t, len(ts)
// to stop); it always stops at an error. The runs of all the T form one
// batch (runBatch): with Workers > 1 the T after the one in hand run at
// once, and those the loop skips are cancelled.
func (e *edgeRun) protocolsBy(ts []float64, all bool, next func(t int, v verdict) int) []verdict {
	if len(ts) == 0 {
		return nil
	}
	var jobs []runJob
	for _, T := range ts {
		jobs = append(jobs, e.lowJobs(T, all)...)
	}
	g := len(jobs) / len(ts) // starts per T
	outs, ran := e.runBatch(jobs, edgeFPTol, func(i int, o runOut) int {
		t := i / g
		switch {
		case o.err != nil:
			return len(jobs)
		case !o.ok && i < (t+1)*g-1:
			return i + 1 // the next start at this T
		}
		return min(next(t, verdict{evaluated: true, ok: o.ok}), len(ts)) * g
	})
	vs := make([]verdict, len(ts))
	for t := range ts {
		v := &vs[t]
		for i := t * g; i < (t+1)*g && ran[i]; i++ {
			v.evaluated = true
			o := outs[i]
			v.ok, v.att, v.err = o.ok, o.att, o.err
			if o.ok || o.err != nil {
				break
			}
			v.att = outs[t*g].att
		}
		if v.evaluated {
			e.res.Probes++
		}
	}
	return vs
}

// protocol evaluates the protocol of the package doc, §5, at T: iterate from
// the empty board, all servers at 1 and all at 3, in that order, stopping at
// the first that converges to a balanced fixed point. With all false, only
// the empty board is tried. It returns the verdict and the last attractor
// (the balanced one, or the empty board's).
func (e *edgeRun) protocol(T float64, all bool) (bool, Attractor, error) {
	v := e.protocols([]float64{T}, all)[0]
	return v.ok, v.att, v.err
}

// lowBoardsBalanced reports whether every low board reaches a balanced
// fixed point at T, and the empty board's. The empty board runs first; when
// it reaches a balanced fixed point, that point is known at T, and the
// other two boards (run at once) may finish accelerated near it
// (edgeaccel.go).
func (e *edgeRun) lowBoardsBalanced(T float64) (bool, Attractor, error) {
	e.res.Probes++
	jobs := e.lowJobs(T, true)
	first, _ := e.runBatch(jobs[:1], edgeFPTol, func(i int, o runOut) int { return i + 1 })
	if o := first[0]; o.err != nil || !o.ok {
		return false, o.att, o.err
	}
	rest := jobs[1:]
	outs, ran := e.runBatch(rest, edgeFPTol, func(i int, o runOut) int {
		if !o.ok || o.err != nil {
			return len(rest)
		}
		return i + 1
	})
	for i, o := range outs {
		if ran[i] && (o.err != nil || !o.ok) {
			return false, o.att, o.err
		}
	}
	return true, first[0].att, nil
}

// branchPoint returns the balanced fixed point att at period T as a point
// of a branch of fixedpoint.Follow: its board, its cut window as the
// smooth piece, and as the border the distance from T to the end of its cut
// window, W(1−φ), when T lies in the second half of the window (else NaN).
func branchPoint(T float64, att Attractor) fixedpoint.BranchPoint {
	d := math.NaN()
	if att.CutPhase > 0.5 {
		d = att.KinkDistance
	}
	return fixedpoint.BranchPoint{Mu: T, X: att.Board, Converged: att.Balanced, Residual: att.Residual,
		Iterations: att.Maps, Piece: att.Window, Border: d, State: att}
}

// attractorOf returns the Attractor a branch point of branchPoint keeps.
func attractorOf(p fixedpoint.BranchPoint) Attractor {
	a, _ := p.State.(Attractor)
	return a
}

// follow follows the balanced fixed point at (T, att) down in T with
// fixedpoint.Follow: natural-parameter continuation with the map's own
// iteration as the corrector, warm-started from the secant predictor
// (clipped to a board, projectBoard) while two points share their cut
// window; steps of up to 10% in T until the loss is bracketed to RelTol/2
// relative. Along a locked branch T sits at a distance d = W(1 − φ)
// before its window's end with d → 0 as T falls to the border collision,
// which Follow brackets in a few steps (fixedpoint.BorderEstimate); there
// a failure is followed by the trial that closes the bracket if it fails
// (nearBorder). Each
// trial that fails is stopped as soon as its board leaves the balanced
// basin (runOn). Trials before the first failure use the L1 tolerance
// edgeDescentTol, the rest edgeFPTol. A trial and those that would follow
// its failures (fixedpoint.FollowSettings.Chain) form one batch
// (runBatch): with Workers > 1 the next trial down runs while the one in
// hand does.
func (e *edgeRun) follow(T float64, att Attractor, tMin float64) (*fixedpoint.FollowResult, error) {
	e.step = stepFollow
	e.reached, e.failed = T, 0
	chain := func(ts []fixedpoint.Trial) []fixedpoint.TrialResult {
		jobs := make([]runJob, len(ts))
		for i, t := range ts {
			jobs[i] = runJob{T: t.Mu, start: t.Guess, warm: true, tol: edgeDescentTol}
			if t.Tight {
				jobs[i].tol = edgeFPTol
			}
		}
		outs, ran := e.runBatch(jobs, edgeFPTol, func(i int, o runOut) int {
			if o.ok || o.err != nil {
				return len(jobs)
			}
			return i + 1
		})
		var rs []fixedpoint.TrialResult
		for i, o := range outs {
			if !ran[i] {
				break
			}
			rs = append(rs, fixedpoint.TrialResult{Point: branchPoint(ts[i].Mu, o.att), OK: o.ok, Err: o.err})
		}
		return rs
	}
	correct := func(T float64, guess []float64, tight bool) (fixedpoint.BranchPoint, bool, error) {
		r := chain([]fixedpoint.Trial{{Mu: T, Guess: guess, Tight: tight}})[0]
		return r.Point, r.OK, r.Err
	}
	br, err := fixedpoint.Follow(correct, branchPoint(T, att), tMin,
		&fixedpoint.FollowSettings{MaxStep: edgeMaxStep, RelTol: e.s.RelTol, Project: projectBoard, Chain: chain, CloseFirst: e.nearBorder})
	if br != nil {
		e.res.Steps += br.Steps
	}
	return br, err
}

// nearBorder reports whether the branch point p lies within the border
// band (edgeBorderBand of a window) before its cut window's end, where a
// branch followed down is lost by a border collision: its trials below
// fail slowly by the node's ghost, those above converge at the node's rate
// (fixedpoint.FollowSettings.CloseFirst).
func (e *edgeRun) nearBorder(p fixedpoint.BranchPoint) bool {
	return p.Border < edgeBorderBand*float64(e.k)/e.lam
}

// Edge computes the edge of the balanced state of the refresh map for k
// dispatchers at load λ (package doc, §5).
//
// Refresh is the protocol edge: the lowest T of the balanced range that
// extends up to long periods, where the map, iterated from a low board
// (empty; all servers at 1; all at 3), converges to a balanced fixed
// point, to relative precision RelTol. Reachability is not monotone in T
// (at k = 12, λ = 0.9 the low boards reach a balanced state at
// T(1−λ)² = 8.692–8.72 but not at 8.689 nor at 8.734–8.761): ranges of T
// above the edge where they do not are reported as Gaps. BranchRefresh is
// where the balanced branch followed down from the footing is lost. At
// very short periods (T(1−λ)² ≲ 0.1) the board is nearly live and a
// small-queue state returns; it is a different regime and is not searched.
//
// Method.
//
//  1. Footing. From T(1−λ)² = BranchFrom (by default the law's estimate
//     0.9(k−2), raised to where the board mean separates herds from
//     balanced states: EdgeFootingFor) the search moves up by factors of 1.25 until
//     every low board reaches a balanced fixed point (up to
//     T(1−λ)² = 1000 or T = 10⁶; beyond, an error wrapping
//     ErrNotConverged).
//  2. Descent. The balanced fixed point there is followed down by
//     continuation (fixedpoint.Follow with the map's own iteration as the
//     corrector, its secant predictor and its border location by
//     fixedpoint.BorderEstimate) until its loss is bracketed to RelTol/2,
//     or down to MinScaled (then: no edge). Within the border band before
//     a window's end, where the branch ends by a border collision, a
//     failure is followed first by the trial just inside the tolerance
//     below the last point (fixedpoint.FollowSettings.CloseFirst): below
//     the loss a trial lingers by the node's ghost, hundreds of maps at
//     h2:10, while one above converges at the node's rate. The corrector
//     is accelerated (edgeaccel.go: Anderson's update once a run contracts
//     on one smooth piece, or a geometric jump where its board mean
//     creeps towards the node at a steady slow rate; convergence judged
//     on plain maps; a run that fails is run again plainly, so a failure
//     is always plain iteration's).
//  3. Scan. Below each loss the protocol (empty board) is evaluated at
//     ScanBelow points spaced δ = min(W/4, 0.5%·T), W = k/λ the length of
//     a full window (balanced branches lock T into successive windows, so
//     the next branch down lies within about a window). A balanced probe
//     is a branch in another window: it is followed down in turn (step 2).
//     When probes above it failed, those probes are checked with every
//     low board; if they still fail, the gap is recorded and its ends are
//     located by bisection (refine) to edgeGapRel·RelTol.
//  4. Confirmation. At the lowest point of the last branch the protocol
//     is run from the cold low boards; if none reaches the branch there,
//     the empty board is probed upwards at distances RelTol·T·2^j (up to
//     the probe that found the branch) until it reaches the balanced
//     state, and the last step is bisected (refine) to RelTol/2; the bracket's lower end is then checked with every low
//     board (should one reach the balanced state there, the full protocol
//     brackets the edge below it). A protocol asked again at a period
//     where a low board already ran reuses that run.
//
// Why the search cannot step over the bottom range unseen: it never
// bisects the protocol across territory it has not walked. It descends
// continuously along balanced branches (steps of at most 10% in T, warm
// starts, each failure bisected to RelTol/2), and only declares the
// edge after ScanBelow cold probes spaced δ below the last loss all fail.
// A balanced range below that is missed only if it is narrower than δ
// (≤ 0.5% of T and a quarter window) or lies more than ScanBelow·δ (at
// most 1.5 windows by default) below the last loss; the reported edge
// itself is always confirmed from the cold low boards. (Continuation
// steps before a branch's first failure use an L1 tolerance of 1e-7,
// the rest 1e-9; a point accepted too early fails the next step, which
// starts from it.)
//
// Each iteration run stops at a fixed point, a periodic orbit, or as soon
// as its board has clearly left the balanced basin (board mean above
// BalancedQueueScale/(1−λ) at λ > ½, and rising for two maps; see runOn), so probes
// below the edge do not map the herd. The crossing is judged at the
// lowest point of the branch on which the edge lies (where the branch is
// lost; the protocol edge may lie a little above it, see
// EdgeResult.Crossing): border when the node's T lies within 5% of a
// window of its window's end, flip or fold when its spectral radius
// exceeds 0.95 (leading eigenvalue negative or not), unclassified
// otherwise. The node's spectral radius comes from Arnoldi at that fixed
// point; the saddle's leading eigenvalue from Arnoldi at the same board
// with T moved just past its window's end (the other piece of the map);
// the herd from FindHerdAttractor's
// classification (L1 tolerance 1e-4) continuing the run that failed just
// below the edge, within HerdMaps maps and, unless HerdFull, no more work
// than the edge search itself (abandoned as soon as the maps still needed,
// at the last map's cost, would exceed it).
//
// With Workers > 1 the independent runs of one step go to several
// workspaces at once: the three low boards at one T; the scan's probes;
// the protocol at the gap's probes, at the steps up of step 4 and at the
// two levels of each bisection (refine); in the continuation (step 2) the
// trials that follow a failure alongside the trial itself (all start from
// the last point reached); and the herd's classification alongside the
// node's and the saddle's spectra (the two at once when the herd is
// skipped). Runs are taken in the order the sequential search makes
// them; a run made unnecessary by an earlier one's outcome is cancelled
// and neither its result nor its cost counted (runBatch), so the result,
// Maps and Work included, is the same for any number of workers.
func Edge(s EdgeSettings) (EdgeResult, error) {
	res, _, err := edge(s)
	return res, err
}

// edge is Edge that also returns the cost of each step of the search.
func edge(s EdgeSettings) (EdgeResult, [edgeSteps]stepCost, error) {
	if err := s.Validate(); err != nil {
		return EdgeResult{}, [edgeSteps]stepCost{}, err
	}
	start := time.Now()
	s = s.withDefaults()
	res := EdgeResult{Status: NotFound, Crossing: CrossingNone, NodeRadius: math.NaN(), SaddleEigenvalue: math.NaN(),
		Refresh: math.NaN(), Scaled: math.NaN(), BranchRefresh: math.NaN(), BranchScaled: math.NaN(),
		Below: math.NaN(), Footing: math.NaN()}
	res.Herd.SpectralRadius = math.NaN()
	e := newEdgeRun(s, &res)
	err := e.search()
	res.Runtime = time.Since(start)
	return res, e.cost, err
}

// newEdgeRun returns the state of a search with defaulted settings s,
// writing its result to res.
func newEdgeRun(s EdgeSettings, res *EdgeResult) *edgeRun {
	return &edgeRun{s: s, k: s.Dispatchers, lam: s.Load, scale: (1 - s.Load) * (1 - s.Load), res: res,
		maps: make([]*RefreshMap, s.Workers), known: map[float64]knownNode{}, cold: map[coldKey]runOut{}}
}

// search is Edge's method, steps 1–4, then the node's spectrum and the
// herd below the edge.
func (e *edgeRun) search() error {
	res := e.res
	tMin := e.s.MinScaled / e.scale
	t0, top, err := e.footing()
	if err != nil {
		return err
	}
	br, err := e.follow(t0, top, tMin)
	if err != nil {
		return err
	}
	if !br.Lost {
		return nil
	}
	res.BranchRefresh = br.Last().Mu
	res.BranchScaled = br.Last().Mu * e.scale
	br, tHi, err := e.scan(br, t0, tMin)
	if err != nil || br == nil {
		return err
	}
	edgeT, _, below, err := e.confirm(br, tHi)
	if err != nil {
		return err
	}
	res.Status = Found
	res.Refresh, res.Scaled = edgeT, edgeT*e.scale
	for i := range res.Gaps {
		if res.Gaps[i].Lo < res.Scaled {
			res.Gaps[i].Lo = res.Scaled
		}
	}
	// The herd just below the edge, continuing the run that failed there;
	// it is independent of the spectra, so with Workers > 1 it is
	// computed alongside them, the two spectra one after the other (the
	// herd's outcome is dropped, as if never computed, when the spectrum
	// fails); without a herd the two spectra run at once.
	doHerd := e.s.HerdMaps > 0 && below.att.Board != nil
	// The branch's end, not the protocol edge, is where the branch is
	// lost: classify the crossing there.
	end := br.Last()
	var hr herdOut
	if doHerd && e.s.Workers > 1 {
		e.openStep("spectra and herd", end.Mu)
		work, rep := res.Work, EdgeProgress{Step: "spectra and herd", Maps: res.Maps, Scaled: end.Mu * e.scale}
		pool.Fork(func() { err = e.crossing(end.Mu, attractorOf(end), false) },
			func() { hr = e.herd(below.T, below.att.Board, work, rep) })
	} else {
		e.openStep(stepNames[stepSpectra], end.Mu)
		err = e.crossing(end.Mu, attractorOf(end), e.s.Workers > 1 && !doHerd)
	}
	if err != nil || !doHerd {
		return err
	}
	if e.s.Workers <= 1 {
		e.openStep(stepNames[stepHerd], below.T)
		hr = e.herd(below.T, below.att.Board, res.Work, EdgeProgress{Step: stepNames[stepHerd], Maps: res.Maps, Scaled: below.T * e.scale})
	}
	e.add(stepHerd, hr.maps, hr.work)
	if hr.h != nil {
		res.Herd = *hr.h
	}
	return hr.err
}

// footing is step 1: from T(1−λ)² = BranchFrom up by factors of
// edgeFootStep until every low board reaches a balanced fixed point, a
// walk (root.Walk) up the ladder of those factors (root.Ladder, within
// T(1−λ)² ≤ DefaultEdgeMaxScaled and T ≤ maxRefreshPeriod). It returns
// that T and the empty board's fixed point there. The walk is not
// batched: the empty board's fixed point at one T steers the other
// boards' runs there (lowBoardsBalanced).
func (e *edgeRun) footing() (float64, Attractor, error) {
	e.step = stepFooting
	xs := append([]float64{e.s.BranchFrom}, root.Ladder(e.s.BranchFrom, func(x float64) (float64, bool) {
		x *= edgeFootStep
		return x, !(x > DefaultEdgeMaxScaled || x/e.scale > maxRefreshPeriod)
	})...)
	var a Attractor
	i, err := root.Walk(func(x float64) (bool, error) {
		ok, att, err := e.lowBoardsBalanced(x / e.scale)
		a = att
		return ok, err
	}, xs)
	switch {
	case err != nil:
		return 0, a, err
	case i < len(xs):
		e.res.Footing = xs[i]
		return xs[i] / e.scale, a, nil
	}
	return 0, a, fmt.Errorf("meanfield: edge: the low boards reach no balanced state up to T(1−λ)² = %.4g (board mean %.4g, %s): %w",
		xs[len(xs)-1], a.BoardMean, a.Status, ErrNotConverged)
}

// failedRun is the run that failed at the highest T known below the edge,
// from which the herd below the edge is classified.
type failedRun struct {
	T   float64
	att Attractor
}

// scanDelta is the scan spacing below a branch lost at tLost: a quarter
// window, at most edgeScanRel of T.
func (e *edgeRun) scanDelta(tLost float64) float64 {
	return math.Min(edgeScanWindow*float64(e.k)/e.lam, edgeScanRel*tLost)
}

// scan is step 3: below each lost branch br (entered at tHi, where the
// protocol reached it) it probes for a balanced branch in another window
// and follows one found down in turn (step 2), recording the gaps above
// it. It returns the last branch and the T at which the protocol reached
// it, or a nil branch when one reaches tMin (no edge).
func (e *edgeRun) scan(br *fixedpoint.FollowResult, tHi, tMin float64) (*fixedpoint.FollowResult, float64, error) {
	for {
		found, fT, fAtt, failed, err := e.probeBelow(br, tMin)
		if err != nil {
			return nil, 0, err
		}
		if !found {
			return br, tHi, nil
		}
		if err := e.recordGap(failed, fT, br.Last().Mu, tHi); err != nil {
			return nil, 0, err
		}
		nb, err := e.follow(fT, fAtt, tMin)
		if err != nil {
			return nil, 0, err
		}
		if !nb.Lost {
			e.res.Gaps = nil
			return nil, 0, nil
		}
		br, tHi = nb, fT
	}
}

// probeBelow evaluates the protocol (empty board) at ScanBelow points
// spaced scanDelta below the loss of br, down to tMin, until one holds.
// It reports whether one did, its T and attractor, and the T of the
// probes that failed above it.
//
// The probes are one walk (walk): with Workers > 1 the next probes down
// run while the one in hand does.
func (e *edgeRun) probeBelow(br *fixedpoint.FollowResult, tMin float64) (bool, float64, Attractor, []float64, error) {
	e.step = stepScan
	delta := e.scanDelta(br.LostAt)
	var ts []float64
	for j := 1; j <= max(e.s.ScanBelow, 0); j++ {
		T := br.LostAt - float64(j)*delta
		if T < tMin {
			break
		}
		ts = append(ts, T)
	}
	if len(ts) == 0 {
		return false, 0, Attractor{}, nil, nil
	}
	e.scanLeft = len(ts)
	w := e.walk(ts, false)
	if w.i == len(ts) {
		return false, 0, Attractor{}, nil, nil
	}
	v := w.vs[w.i]
	return v.ok, ts[w.i], v.att, ts[:w.i], w.err
}

// confirm is step 4: the protocol from the cold low boards at the lowest
// point of the last branch br (entered at tHi). It returns the edge, the
// balanced fixed point there (the node) and the run that failed at the
// highest T known below the edge. The empty board runs first: when it
// reaches the balanced state the protocol holds; when it does not, the
// other low boards are run only where the bracket needs them (bisectUp).
// The empty board's runs at edgeT and at bracketUp's steps up are one
// walk (walk): with Workers > 1 the first step up runs while edgeT does,
// except with phase-type sizes, whose maps already take two cores (the
// drain beside the window walk, phaseMap): there the step up, needed only
// where the run at edgeT fails, would only slow it down (measured at
// h2:10, k = 5, λ = 0.9: 169 maps in 4.5 s beside it, 2.8 s alone). The
// runs and the result are the same either way.
func (e *edgeRun) confirm(br *fixedpoint.FollowResult, tHi float64) (float64, Attractor, failedRun, error) {
	e.step = stepConfirm
	edgeT := br.Last().Mu
	below := failedRun{br.LostAt, attractorOf(br.Failed)}
	e.res.Below = br.LostAt
	ts := append([]float64{edgeT}, e.stepsUp(edgeT, tHi)...)
	var w walked
	if e.s.Service.PhaseCount() > 1 {
		w = e.walk(ts[:1], false)
		if w.i == 1 {
			up := e.walk(ts[1:], false)
			w = walked{append(w.vs, up.vs...), 1 + up.i, up.err}
		}
	} else {
		w = e.walk(ts, false)
	}
	if w.i == 0 {
		return edgeT, w.vs[0].att, below, w.err
	}
	return e.bisectUp(edgeT, tHi, below, failedRun{edgeT, w.vs[0].att}, &walked{w.vs[1:], w.i - 1, w.err})
}

// stepsUp are bracketUp's probes above edgeT: at distances
// RelTol·edgeT·2^j, below tHi.
func (e *edgeRun) stepsUp(edgeT, tHi float64) []float64 {
	var ts []float64
	for d := e.s.RelTol * edgeT; edgeT+d < tHi; d *= 2 {
		ts = append(ts, edgeT+d)
	}
	return ts
}

// bisectUp locates the edge when the empty board does not reach the
// branch at its end edgeT (its run: atEdge). The edge lies between edgeT
// and tHi (where the protocol holds), in practice just above edgeT. The
// empty board alone brackets it first (bracketUp): a failing protocol
// costs three runs, the empty board's one, and the empty board reaches
// the balanced state wherever the protocol holds in the cases measured.
// Then every low board is run at the bracket's lower end: if they all fail
// there the bracket is the protocol's. If one reaches the balanced state
// the edge lies lower: it is edgeT if the protocol holds there, else the
// protocol itself brackets it between edgeT and that point. below is
// updated to the highest failing probe. up is the empty board's walk up
// stepsUp(edgeT, tHi). It has no bisection loop of its own: it chooses
// between brackets, and each is bisected by bracketUp's refine
// (root.BisectBatched).
func (e *edgeRun) bisectUp(edgeT, tHi float64, below, atEdge failedRun, up *walked) (float64, Attractor, failedRun, error) {
	hi, hiAtt, lo, nb, err := e.bracketUp(edgeT, tHi, atEdge, false, up)
	if err != nil {
		return 0, Attractor{}, nb, err
	}
	ok, a, err := e.protocol(lo, true)
	if err != nil {
		return 0, Attractor{}, nb, err
	}
	if !ok {
		e.res.Below = lo
		return hi, hiAtt, nb, nil
	}
	if lo > edgeT {
		ok, a, err = e.protocol(edgeT, true)
	}
	if err != nil || ok {
		return edgeT, a, below, err
	}
	hi, hiAtt, lo, below, err = e.bracketUp(edgeT, lo, atEdge, true, nil)
	e.res.Below = lo
	return hi, hiAtt, below, err
}

// bracketUp probes the protocol (all low boards, or the empty board's
// alone) upwards from edgeT (where it fails) at distances RelTol·edgeT·2^j
// until it holds, up to tHi (where it holds), and bisects the last step
// (refine) to RelTol/2. It returns the upper end of the bracket
// and the balanced attractor there, the lower end, and below updated to
// the highest failing probe. The walk up the steps (walk) is up when not
// nil (already made), else made here.
func (e *edgeRun) bracketUp(edgeT, tHi float64, below failedRun, all bool, up *walked) (float64, Attractor, float64, failedRun, error) {
	var hiAtt Attractor
	lo, hi := edgeT, tHi
	ts := e.stepsUp(edgeT, tHi)
	if up == nil {
		w := e.walk(ts, all)
		up = &w
	}
	if up.i > 0 {
		// The steps below the i-th failed, in increasing T.
		lo = ts[up.i-1]
		if lo > below.T {
			below = failedRun{lo, up.vs[up.i-1].att}
		}
	}
	if up.err != nil {
		return 0, Attractor{}, 0, below, up.err
	}
	if up.i < len(ts) {
		hi, hiAtt = ts[up.i], up.vs[up.i].att
	}
	if hi == tHi {
		_, a, err := e.protocol(tHi, all)
		if err != nil {
			return 0, Attractor{}, 0, below, err
		}
		hiAtt = a
	}
	top := hiAtt
	rlo, rhi, err := e.refine(lo, hi, false, all, e.s.RelTol/2, func(mu float64, v verdict) {
		if v.ok {
			hiAtt = v.att
		} else if mu > below.T {
			below = failedRun{mu, v.att}
		}
	})
	if err != nil {
		return 0, Attractor{}, 0, below, err
	}
	if rhi == hi {
		hiAtt = top
	}
	return rhi, hiAtt, rlo, below, nil
}

// refine bisects the protocol (all low boards, or the empty board's
// alone) on [lo, hi], where it holds at lo when valueLo and at hi
// otherwise, to relative width tol: the evaluations of root.Bisect with
// the rule root.Finest(tol), in the same order, two levels of the
// bisection per batch (root.BisectBatched on protocolsBy). The batch is
// the midpoint, the midpoint of the half left when the protocol holds
// there, and that of the half left when it fails; the quarter the
// midpoint's verdict calls for runs next and the other is skipped, so
// with Workers > 1 the first quarter runs while the midpoint does (a run
// that reaches the balanced state takes the longer: at k = 12, λ = 0.95,
// 54–61 maps against 27–34). seen, if not nil, is called with each
// verdict in that order. It returns the final bracket, its ends in the
// order of lo and hi.
func (e *edgeRun) refine(lo, hi float64, valueLo, all bool, tol float64, seen func(mu float64, v verdict)) (float64, float64, error) {
	fails, holds := lo, hi
	if valueLo {
		fails, holds = hi, lo
	}
	fails, holds, err := root.BisectBatched(func(ts []float64, next func(int, bool) int) []verdict {
		return e.protocolsBy(ts, all, func(t int, v verdict) int { return next(t, v.ok) })
	}, func(mu float64, v verdict) (bool, bool, error) {
		if v.evaluated && v.err == nil && seen != nil {
			seen(mu, v)
		}
		return v.evaluated, v.ok, v.err
	}, fails, holds, root.Finest(tol))
	if valueLo {
		return holds, fails, err
	}
	return fails, holds, err
}

// crossing computes the node's spectrum at the edge and classifies the
// crossing; for a border collision also the leading eigenvalue of the
// map's piece beyond the border. The two spectra are independent; with
// parallel they are computed at once.
func (e *edgeRun) crossing(edgeT float64, node Attractor, parallel bool) error {
	res := e.res
	d := branchPoint(edgeT, node).Border
	w := float64(e.k) / e.lam
	border := d < edgeBorderBand*w
	spectrum := func(T float64) ([]complex128, int, error) {
		m, err := NewRefreshMap(Refresh{Dispatchers: e.k, Load: e.lam, Period: T, Service: e.s.Service})
		if err != nil {
			return nil, 0, err
		}
		m.boardOnly = true // the Jacobian of the board map, as the search's maps make it
		key := journalKey("spectrum", node.Board, T)
		if ev, maps, ok := e.s.Journal.spectrum(key); ok {
			return ev, maps, nil
		}
		ev, maps, err := leadingEigenvalues(m, node.Board, 3)
		if err == nil {
			e.s.Journal.keepSpectrum(key, ev, maps)
		}
		return ev, maps, err
	}
	var (
		ev, sev     []complex128
		maps, smaps int
		err, serr   error
	)
	atNode := func() { ev, maps, err = spectrum(edgeT) }
	// T just past the window end at the node's board: the other piece.
	piece := func() { sev, smaps, serr = spectrum(edgeT + 2*d) }
	if border && parallel {
		pool.Fork(atNode, piece)
	} else {
		atNode()
	}
	e.add(stepSpectra, maps, 0)
	if err != nil {
		return err
	}
	res.NodeRadius = absMax(ev)
	switch {
	case border:
		res.Crossing = CrossingBorder
	case res.NodeRadius > 0.95 && real(ev[0]) < 0:
		res.Crossing = CrossingFlip
	case res.NodeRadius > 0.95:
		res.Crossing = CrossingFold
	default:
		res.Crossing = CrossingUnclassified
	}
	if !border {
		return nil
	}
	if !parallel {
		piece()
	}
	e.add(stepSpectra, smaps, 0)
	if serr == nil && len(sev) > 0 && imag(sev[0]) == 0 {
		res.SaddleEigenvalue = real(sev[0])
	}
	return nil
}

// recordGap handles a branch found by the scan at fT below the lost
// branch ending at brEnd (entered at tHi) after the probes at failed
// (empty board only) did not reach a balanced state. Each failed probe is
// checked with every low board; the first still failing is evidence of a
// gap, whose ends are located by bisecting the protocol: the lower end
// between fT and the lowest failing probe, the upper end between the
// highest failing probe and the lowest point of the branch at which the
// protocol holds (brEnd, or else tHi).
func (e *edgeRun) recordGap(failed []float64, fT, brEnd, tHi float64) error {
	e.step = stepScan
	var fails []float64 // failing the full protocol, from the top down
	for i, v := range e.protocols(failed, true) {
		if v.err != nil {
			return v.err
		}
		if !v.ok {
			fails = append(fails, failed[i])
		}
	}
	if len(fails) == 0 {
		return nil
	}
	tol := edgeGapRel * e.s.RelTol
	lo, _, err := e.refine(fT, fails[len(fails)-1], true, true, tol, nil)
	if err != nil {
		return err
	}
	upper := brEnd
	ok, _, err := e.protocol(upper, true)
	if err != nil {
		return err
	}
	if !ok {
		upper = tHi
	}
	hi := upper
	if fails[0] < upper {
		if _, hi, err = e.refine(fails[0], upper, false, true, tol, nil); err != nil {
			return err
		}
	}
	e.res.Gaps = append(e.res.Gaps, EdgeGap{Lo: lo * e.scale, Hi: hi * e.scale})
	return nil
}

// herdOut is the outcome of the herd's classification and its cost.
type herdOut struct {
	h    *HerdAttractor // nil: left unclassified
	maps int
	work float64
	err  error
}

// herd classifies the attractor reached from board at period T, within
// the budget of HerdMaps maps and (unless HerdFull) the work of the edge
// search so far, work: a fixed point or period-P orbit at L1 tolerance
// edgeHerdTol, or, when the orbit stays in the herd regime without
// settling, Aperiodic with averages over the second half of the budget
// (findHerdAttractor with Settle and Average half the budget each). It
// touches neither the result nor a workspace but worker 0's. With a
// Progress it reports after each of its maps: rep, the step's report,
// with HerdMaps and HerdLeft.
func (e *edgeRun) herd(T float64, board []float64, work float64, rep EdgeProgress) (o herdOut) {
	if e.stopped() {
		o.err = fmt.Errorf("edge: herd classification: %w", ErrStopped)
		return o
	}
	m, err := e.mapAt(0, T)
	if err != nil {
		o.err = err
		return o
	}
	// The classification needs the boards alone: the search's board-only
	// maps (mapAt), a fourth of the cost of a herd's full map.
	budget := e.s.HerdMaps
	if !e.s.HerdFull {
		// The cost of one herd map, from the second map: the failed run
		// stopped as soon as its board left the balanced basin (runOn),
		// and the board is still growing fast.
		var per float64
		for range 2 {
			r, err := m.Apply(nil, board)
			o.maps++
			if err != nil {
				o.err = err
				return o
			}
			per = mapWork(r)
			o.work += per
			board = r.Next
		}
		budget = min(budget, int(work/per))
	}
	if budget < 2*16 {
		return o // too little to classify: left unclassified
	}
	// Stop and Mapped reach the classification's maps too: with heavy
	// tails they take minutes (h2:30 at k = 5: about 700 maps of seconds
	// each).
	poll := func() bool {
		e.mapped()
		return e.stopped()
	}
	hs := HerdSettings{
		AttractorSettings: AttractorSettings{MaxIter: budget, Tol: edgeHerdTol, MaxPeriod: DefaultAttractorMaxPeriod, Stop: poll},
		Settle:            budget / 2, Average: budget / 2}.withDefaults()
	if e.s.Progress != nil {
		// rep is the step's report (its maps read before the spectra,
		// made alongside, add theirs); the spectra report nothing.
		before := o.maps
		hs.Mapped = func(r MapReport) {
			rep.HerdMaps = before + r.Maps
			rep.HerdLeft = max(budget-r.Maps, 0)
			e.s.Progress(rep)
		}
	}
	if !e.s.HerdFull {
		// A herd's board grows as it settles, and so does the cost of its
		// maps: the first map's cost does not bound the rest.
		hs.maxWork = work - o.work
	}
	h, err := e.journalHerd(m, T, board, hs)
	o.maps += h.Maps
	o.work += h.Work
	if err != nil && !errors.Is(err, ErrNotConverged) {
		o.err = err
		return o
	}
	if h.Status == Aperiodic && math.Abs(h.Drift)*float64(h.Averaged) > edgeHerdDrift*h.BoardMean {
		// Still growing or shrinking over the averaging window: a transient,
		// not an orbit whose averages mean anything.
		h.Status = Unconverged
	}
	o.h = &h
	return o
}

// journalHerd is findHerdAttractor(m, board, hs) through the search's
// journal (EdgeJournal.findHerd).
func (e *edgeRun) journalHerd(m *RefreshMap, T float64, board []float64, hs HerdSettings) (HerdAttractor, error) {
	return e.s.Journal.findHerd(journalKey("herd", board, T, float64(hs.MaxIter), hs.maxWork), m, board, hs)
}

func absMax(ev []complex128) float64 {
	r := 0.0
	for _, e := range ev {
		r = max(r, math.Hypot(real(e), imag(e)))
	}
	return r
}

// projectBoard clips the negative entries of an extrapolated board and
// renormalises it; false when nothing positive is left.
func projectBoard(out []float64) bool {
	var sum float64
	for i, x := range out {
		if x < 0 {
			out[i] = 0
		}
		sum += out[i]
	}
	if !(sum > 0) {
		return false
	}
	for i := range out {
		out[i] /= sum
	}
	return true
}
