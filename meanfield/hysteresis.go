package meanfield

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"herd/fixedpoint"
	"herd/fleet"
)

// This file follows the herd branch of the refresh map (package doc, §4,
// herds and coexistence): the attractor reached from a loaded start, its
// continuation in T, the range of T where it coexists with the balanced
// fixed point, and the smallest half-loaded backlog that tips the map.
//
// # Herds
//
// From a half-loaded start (half the servers at B jobs, half empty) the k
// lock-stepped dispatchers of the package doc, §2, pour k jobs per window
// into every server below their common water level while each counts one; the
// empty half is overfilled past the loaded half, the roles swap, and the map
// settles on a herd: at k = 5, λ = 0.9 a period-2 orbit whose board mean is
// 0.4·T + 0.42 (T = 500 … 3,000) and whose queues reach about
// 1.1·(2λ − 1)·T. The map's queue rows grow with the state (Refresh keeps
// them adaptively and reports the mass dropped as Truncation; a herd at
// T = 3,000 holds about 2,800 rows and loses below 10⁻¹² per map).
//
// Near the lower end of the range (k = 5, λ = 0.9, T = 300 and 400) the
// orbit does not settle: it alternates like a 2-cycle but drifts, the
// return distance ‖p_n − p_{n−2}‖₁ staying at 2·10⁻⁶ (T = 300) or 2·10⁻⁸
// (T = 400) per two maps for thousands of maps, while the cut phase creeps
// towards its window's end. FindHerdAttractor calls such an orbit
// Aperiodic once it has stayed in the herd regime for Settle + Average
// maps, and reports the observables averaged over the last Average maps
// (batches whose length is a multiple of the nearest return period), the
// batch-means standard errors, the drift of the board mean per map and the
// nearest return period with its distance. Aperiodic therefore covers
// slowly drifting, quasi-periodic, chaotic and long-period orbits alike;
// NearPeriod, NearResidual and Drift tell them apart. Genuinely irregular
// herds exist too: k = 10, λ = 0.9, T = 500 from the empty board wanders
// with return distances ≈ 0.8 at every P ≤ 8 (board mean ≈ 1.1·T, response
// 613 ± 11 over 256 maps; validation.md's simulation: 590).
//
// Herd orbits are not unique. Followed in T by warm starts (BranchSettings
// .Continue, Bistable), the k = 5 branch seeded below the edge reaches
// period-2 herds with the same board mean as those from half:0.1T but a
// different lock of T in its window and a response larger by O(1)
// (T = 3,000: 1,203.7 against 1,201.3 from half:0.1T; the simulator's
// 1,201 ± 0.3 matches the latter). Below T(1−λ)² ≈ 2 (k = 5, 10) the
// continued branch passes to a second herd type with board mean 0.65–1.2·T.
//
// # Where the model applies
//
// Two fixes of the finite system reduce, as N → ∞, to one dispatcher with
// its own tally, the k = 1 map:
//
//   - Partitioning: dispatcher i owns N/k servers and receives λN/k jobs
//     per unit time, so each block is a one-dispatcher system with N/k
//     servers at load λ; N/k → ∞ gives the k = 1 map exactly.
//   - Shared tallies: every dispatcher adds all sends since the refresh, so
//     all k see the same effective values b + (all sends) and together act
//     as one least-loaded dispatcher of rate λN with an exact tally (two
//     dispatchers hitting the same server within one level is an O(1/N)
//     event). The limit is again the k = 1 map.
//
// The k = 1 map never tips: from half starts with B up to T it returns to
// the balanced fixed point at every T tested (TestHerdOneDispatcher: from
// half:0.1T, half:T and spread:T at T = 300, 1,100 and 3,000 the board mean
// returns to 4.66, 4.74 and 4.74, the response to 4.90, 5.16 and 5.22).
//
// An explorative scaled own tally (each dispatcher adds k per own send)
// keeps the lock-step of the package doc, §2 (each dispatcher still receives
// λN/k jobs per unit time on the same board), but changes its windows. With
// effective values e = b + k·n (n the own sends), a dispatcher at level L
// sends one job to each server with e = L, that is b ≤ L and b ≡ L
// (mod k); the pass needs N·G(L) jobs, G(L) = Σ_{b≤L, b≡L (mod k)} p_b, and
// lasts W_L = k·G(L)/λ ≈ F(L)/λ. All k dispatchers do the same pass at the
// same time, each in its own random order, so a server of that residue
// class receives exactly k jobs at k independent uniform times in W_L and
// nothing in the other k − 1 windows of each k levels. In lock-step the
// true count k·n equals the scaled tally, so the overshoot that drives the
// herd (k jobs per server per level while each dispatcher counts one) is
// gone: the scaled map is the k = 1 map with each server's arrivals
// bunched into batches of k, one batch per k windows. It keeps the window
// structure (k uniform arrivals per receiving server per window) but not
// its nesting: the receiving set {b ≤ L, b ≡ L (mod k)} is not monotone
// in L, so the servers cannot share one water distribution and the map
// would need k of them, one per residue class. It is not implemented here;
// the analysis predicts no herd (as for k = 1) and a balanced response
// somewhat above the k = 1 map's, from the batching.
//
// # References
//
//   - The package doc, §2 (the map) and §4 (herds, coexistence), and
//     compare/validation.md (the 5-dispatcher rows).
//   - H. Flyvbjerg, H. G. Petersen, Error estimates on averages of
//     correlated data, J. Chem. Phys. 91(1), 1989 (batch means).

// DefaultHerdStartFraction is the backlog fraction of the default herd
// start, the published half:0.1T (validation.md).
const DefaultHerdStartFraction = 0.1

// DefaultHerdStart returns the start a herd search takes where its
// settings leave Start zero: half:0.1T, half the servers at
// DefaultHerdStartFraction·T jobs (package doc, §2, start states).
func DefaultHerdStart() fleet.Start {
	return fleet.Start{Kind: fleet.StartHalf, Value: DefaultHerdStartFraction, PerRefresh: true}
}

// herdStart returns the herd start st (BranchSettings.Start,
// BistableSettings.Start) with its default filled in: DefaultHerdStart
// for the zero fleet.Start.
func herdStart(st fleet.Start) fleet.Start {
	if st == (fleet.Start{}) {
		return DefaultHerdStart()
	}
	return st
}

// validHerdStart returns an error naming field unless st is a herd start:
// the zero value, or half:FT or spread:FT with F in (0, 4] (an empty
// board holds no herd; a start not scaled with T would not follow it).
func validHerdStart(field string, st fleet.Start) error {
	if st == (fleet.Start{}) {
		return nil
	}
	if (st.Kind != fleet.StartHalf && st.Kind != fleet.StartSpread) || !st.PerRefresh || !(st.Value > 0 && st.Value <= 4) {
		return fmt.Errorf("meanfield: %s = %s, want %s:FT or %s:FT with F in (0, 4] (the zero value means %s)",
			field, st, fleet.StartHalf, fleet.StartSpread, DefaultHerdStart())
	}
	return nil
}

// HerdStartBoard returns the board a herd search starts from at period T:
// the loaded start st scaled with T (the zero fleet.Start meaning
// DefaultHerdStart), StartBoard's with the backlog max(1, round(F·T)), so
// that a short period still starts loaded.
func HerdStartBoard(st fleet.Start, T float64) []float64 {
	st = herdStart(st)
	return StartBoard(st, max(1, int(st.Resolved(T))))
}

// Defaults of HerdSettings.
const (
	DefaultHerdMaxIter = 3000
	DefaultHerdTol     = 1e-9
	DefaultHerdSettle  = 200
	DefaultHerdAverage = 256
	// MinHerdAverage and MaxHerdAverage bound HerdSettings.Average.
	MinHerdAverage = 16
	MaxHerdAverage = 1 << 16
)

// HerdSettings controls FindHerdAttractor. The zero value gives the
// defaults.
type HerdSettings struct {
	// AttractorSettings are those of FindAttractor with other defaults:
	// MaxIter zero means 3000; Tol, in [0, 1), zero means 1e-9 (a fixed
	// point or period-P orbit when ‖p_n − p_{n−P}‖₁ ≤ Tol); MaxPeriod, in
	// [0, 64], zero means 8. Spectrum adds the spectral radius of a fixed
	// point, as in FindAttractor.
	AttractorSettings
	// Settle is the number of consecutive maps in the herd regime (load
	// above ½ and board mean above BalancedQueueScale/(1 − λ)) taken as
	// transient before the averaging window of an orbit that does not
	// settle, at least 0. Zero means 200.
	Settle int
	// Average is the number of maps averaged for an Aperiodic orbit, in
	// [16, 1<<16]. Zero means 256.
	Average int
	// maxWork, if positive, ends the run (Unconverged) once the maps made
	// exceed this work (HerdAttractor.Work), or as soon as the maps an
	// aperiodic classification still needs (Settle + Average in the herd
	// regime), priced at the last map's cost, would: Edge's budget.
	maxWork float64
}

// Validate reports the first setting out of range, naming the field.
func (s HerdSettings) Validate() error {
	switch {
	case s.MaxIter < 0:
		return fmt.Errorf("meanfield: HerdSettings.MaxIter = %d, want ≥ 0 (0 means %d)", s.MaxIter, DefaultHerdMaxIter)
	case !(s.Tol >= 0 && s.Tol < 1):
		return fmt.Errorf("meanfield: HerdSettings.Tol = %v outside [0, 1) (0 means %g)", s.Tol, DefaultHerdTol)
	case s.MaxPeriod < 0 || s.MaxPeriod > 64:
		return fmt.Errorf("meanfield: HerdSettings.MaxPeriod = %d outside [0, 64] (0 means %d)", s.MaxPeriod, DefaultAttractorMaxPeriod)
	case s.Settle < 0:
		return fmt.Errorf("meanfield: HerdSettings.Settle = %d, want ≥ 0 (0 means %d)", s.Settle, DefaultHerdSettle)
	case s.Average != 0 && (s.Average < MinHerdAverage || s.Average > MaxHerdAverage):
		return fmt.Errorf("meanfield: HerdSettings.Average = %d outside [16, 65536] (0 means %d)", s.Average, DefaultHerdAverage)
	}
	return nil
}

func (s HerdSettings) withDefaults() HerdSettings {
	if s.MaxIter == 0 {
		s.MaxIter = DefaultHerdMaxIter
	}
	if s.Tol == 0 {
		s.Tol = DefaultHerdTol
	}
	if s.MaxPeriod == 0 {
		s.MaxPeriod = DefaultAttractorMaxPeriod
	}
	if s.Settle == 0 {
		s.Settle = DefaultHerdSettle
	}
	if s.Average == 0 {
		s.Average = DefaultHerdAverage
	}
	return s
}

// HerdAttractor is an attractor of the refresh map with the herd
// classification and, for an orbit that does not settle, window averages.
type HerdAttractor struct {
	// Attractor is as FindAttractor reports it, except that Status may be
	// Aperiodic. For an Aperiodic orbit Period is 0, BoardMean, QueueMean
	// and Response are averages over the last Averaged maps, Board is the
	// last board reached, CutPhase, KinkDistance and Window are those of
	// the last map, and Residual is NearResidual.
	Attractor
	// Herd reports a herd: an attractor (fixed, periodic or aperiodic)
	// whose board mean is a herd's: at λ > ½, above BalancedQueueScale/(1 − λ)
	// and at least ½(λ − ½)·T (see Attractor.Balanced).
	Herd bool
	// NearPeriod is the P ≤ MaxPeriod minimising ‖p_n − p_{n−P}‖₁ at the
	// last map, and NearResidual that distance (Period and Residual for a
	// fixed point or orbit).
	NearPeriod   int
	NearResidual float64
	// Averaged is the number of maps the observables average over (the
	// period for a fixed point or orbit), in Batches batches whose length
	// is a multiple of NearPeriod.
	Averaged, Batches int
	// BoardMeanSE and ResponseSE are batch-means standard errors of the
	// averages (0 for a fixed point or orbit). They measure the spread of
	// the window, not the distance to a limit the orbit may still drift
	// towards; see Drift.
	BoardMeanSE, ResponseSE float64
	// Drift is the least-squares slope of the batch means of the board
	// mean, per map (0 for a fixed point or orbit).
	Drift float64
	// Rows is the largest number of queue rows one map held.
	Rows int
	// Work is the arithmetic done, as EdgeResult.Work: Σ windows·rows
	// over the maps made, but for the one that closes a fixed point or
	// orbit (the run ends there, whatever the budget).
	Work float64
}

// FindHerdAttractor iterates the refresh map of r from start like
// FindAttractor (fixed point or period P ≤ MaxPeriod at L1 tolerance Tol)
// and, in addition, classifies an orbit that stays in the herd regime for
// Settle + Average consecutive maps without settling as Aperiodic, with
// its observables averaged over the last Average maps (see HerdAttractor).
// An orbit that neither settles nor stays in the herd regime within
// MaxIter maps returns Status Unconverged with an error wrapping
// ErrNotConverged.
func FindHerdAttractor(r Refresh, start []float64, s HerdSettings) (HerdAttractor, error) {
	if err := s.Validate(); err != nil {
		return HerdAttractor{}, err
	}
	m, err := NewRefreshMap(r)
	if err != nil {
		return HerdAttractor{}, err
	}
	t0 := time.Now()
	a, err := findHerdAttractor(m, start, s.withDefaults())
	a.Runtime = time.Since(t0)
	return a, err
}

// findHerdAttractor is FindHerdAttractor on a prepared map and defaulted
// settings.
func findHerdAttractor(m *RefreshMap, start []float64, s HerdSettings) (HerdAttractor, error) {
	lam := m.set.Load
	w := newHerdWatch(s, lam, m.set.Period, m.set.Service)
	if st := s.Resume; st != nil {
		if err := s.CheckResume(st); err != nil {
			return HerdAttractor{}, err
		}
		w.restore(st.Maps, st.Herd)
	}
	if cp := s.Checkpoint; cp != nil {
		// The run's state and the watch's, which has counted the map.
		s.Checkpoint = func(stopping bool, state func() *RunState) {
			cp(stopping, func() *RunState {
				st := state()
				st.Herd = w.save()
				return st
			})
		}
	}
	if mapped := s.Mapped; mapped != nil {
		// The watch counts a map after Mapped sees it: the report gives
		// the run as the watch will count it.
		s.Mapped = func(r MapReport) {
			r.HerdRun, r.HerdNeed = w.runAfter(r.BoardMean), s.Settle+s.Average
			mapped(r)
		}
	}
	a, orbit, err := iterateAttractor(m, start, s.AttractorSettings, w.stop)
	out := HerdAttractor{Attractor: a, Rows: w.rows, Work: w.work}
	if err != nil && !(w.stopped && errors.Is(err, ErrNotConverged)) {
		return out, err
	}
	if w.spent {
		out.Status = Unconverged
		return out, fmt.Errorf("meanfield: herd attractor: work %.4g after %d maps exceeds the budget %.4g: %w", w.work, w.n, s.maxWork, ErrNotConverged)
	}
	if a.Status != Unconverged {
		out.Herd = !a.Balanced && herdSized(a.BoardMean, lam, m.set.Period, m.set.Service)
		out.NearPeriod, out.NearResidual = a.Period, a.Residual
		out.Averaged, out.Batches = a.Period, 1
		return out, nil
	}
	// Stopped in the herd regime: an orbit that does not settle. Its
	// nearest return among p_1 … p_n.
	out.NearPeriod, out.NearResidual = orbit.NearPeriod(w.n - 1)
	w.average(&out, lam)
	return out, nil
}

// herdWatch follows the maps of findHerdAttractor's run: the
// observables of the last Average maps and the number of consecutive maps
// in the herd regime.
type herdWatch struct {
	s       HerdSettings
	lam     float64
	period  float64 // T, for herdSized
	svc     Service
	hist    []orbitStat // hist[n%Average]: map n's observables
	n       int         // maps seen
	run     int         // consecutive maps in the herd regime
	rows    int         // the most rows of one map
	work    float64     // Σ windows·rows of the maps seen
	spent   bool        // work exceeded maxWork before the run ended
	stopped bool        // the run stayed in the herd regime for Settle + Average maps
}

func newHerdWatch(s HerdSettings, lam, period float64, svc Service) *herdWatch {
	return &herdWatch{s: s, lam: lam, period: period, svc: svc, hist: make([]orbitStat, s.Average)}
}

// stop records a map and ends the run once it has stayed in the herd
// regime for Settle + Average maps, or (unclassified) once its work
// exceeds maxWork or the maps still needed for that, priced at this
// map's cost, would take it past maxWork.
func (w *herdWatch) stop(res RefreshResult) bool {
	s := w.s
	w.hist[w.n%s.Average] = orbitStat{board: res.BoardMean, queue: res.QueueMean}
	w.rows = max(w.rows, res.Rows)
	w.work += mapWork(res)
	w.n++
	w.run = w.runAfter(res.BoardMean)
	w.stopped = w.run >= s.Settle+s.Average
	// The maps still needed for an aperiodic classification, priced at
	// this map's cost (a settling herd's boards grow, and their maps with
	// them): past the budget, the run is abandoned now rather than when
	// the budget is spent.
	need := w.work + float64(s.Settle+s.Average-w.run)*mapWork(res)
	// (need ≥ work: while not stopped, fewer than Settle + Average maps
	// in a row are in the herd regime.)
	w.spent = !w.stopped && s.maxWork > 0 && need > s.maxWork
	return w.stopped || w.spent
}

// runAfter is the number of consecutive maps in the herd regime once a
// map that made a board of this mean is counted.
func (w *herdWatch) runAfter(boardMean float64) int {
	if !herdRegime(boardMean, w.lam, w.svc) {
		return 0
	}
	return w.run + 1
}

// mapWork is one map's contribution to EdgeResult.Work: its windows
// times the rows it held.
func mapWork(r RefreshResult) float64 {
	return float64(r.Windows) * float64(max(r.Rows, len(r.Next)))
}

// average makes out an Aperiodic herd with the observables averaged over
// the last Average maps in batches of a multiple of the near period
// (about 8 of them), their batch-means standard errors and the drift of
// the board mean.
func (w *herdWatch) average(out *HerdAttractor, lam float64) {
	avg, n := w.s.Average, w.n
	np := max(out.NearPeriod, 1)
	bl := np * max(1, avg/(8*np))
	nb := avg / bl
	// Maps n−nb·bl … n−1, oldest first.
	at := func(i int) orbitStat { return w.hist[(n-nb*bl+i)%avg] }
	means := fixedpoint.BatchMeans(func(i int) float64 { return at(i).board }, nb, bl)
	qmeans := fixedpoint.BatchMeans(func(i int) float64 { return at(i).queue }, nb, bl)
	var bm, qm float64
	for b := range means {
		bm += means[b]
		qm += qmeans[b]
	}
	bm /= float64(nb)
	qm /= float64(nb)
	out.Status = Aperiodic
	out.Period = 0
	out.Herd = herdSized(bm, lam, w.period, w.svc)
	out.BoardMean, out.QueueMean, out.Response = bm, qm, qm/lam
	out.Residual = out.NearResidual
	out.Averaged, out.Batches = nb*bl, nb
	if nb >= 2 {
		out.BoardMeanSE, out.ResponseSE = fixedpoint.BatchSE(means, bm), fixedpoint.BatchSE(qmeans, qm)/lam
		out.Drift = fixedpoint.BatchSlope(means, bm) / float64(bl)
	}
}

// BranchSettings controls HerdBranch. The zero value of each optional
// field means its default.
type BranchSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// Refresh lists the periods T, each in (0, 1e6]; at least one. They are
	// computed in the order given.
	Refresh []float64
	// Start is the start at each T, a loaded start scaled with T: half:FT
	// or spread:FT with F in (0, 4], made a board by HerdStartBoard. The
	// zero value means DefaultHerdStart, half:0.1T.
	Start fleet.Start
	// Continue starts each T after the first from the previous point's
	// attractor board rescaled to the new T (b → b·T'/T) when that point
	// was a herd, and from Start otherwise: it follows the herd branch
	// instead of asking whether Start reaches it.
	Continue bool
	// Attractor controls each point's FindHerdAttractor.
	Attractor HerdSettings
	// Service is the job-size law (zero value: exponential); start boards
	// are lifted with fresh phases (Service.Lift).
	Service Service
}

// Validate reports the first setting out of range, naming the field.
func (s BranchSettings) Validate() error {
	switch {
	case s.Dispatchers < 1 || s.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: BranchSettings.Dispatchers = %d outside [1, %d]", s.Dispatchers, maxRefreshDispatchers)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: BranchSettings.Load = %v outside (0, 1)", s.Load)
	case len(s.Refresh) == 0:
		return errors.New("meanfield: BranchSettings.Refresh is empty, want at least one T")
	}
	for i, T := range s.Refresh {
		if !(T > 0 && T <= maxRefreshPeriod) {
			return fmt.Errorf("meanfield: BranchSettings.Refresh[%d] = %v outside (0, %g]", i, T, maxRefreshPeriod)
		}
	}
	if err := validHerdStart("BranchSettings.Start", s.Start); err != nil {
		return err
	}
	if err := s.Service.Validate(); err != nil {
		return err
	}
	return s.Attractor.Validate()
}

// HerdPoint is the attractor at one T of a herd branch: a point of a
// fixedpoint branch (Mu = T, X = the attractor's board, Converged = the
// attractor is a herd, Radius, Residual and Iterations its spectral
// radius, residual and maps, Piece its cut window, Border NaN) with the start
// used and the attractor itself.
type HerdPoint struct {
	fixedpoint.BranchPoint
	// Start is the start used: Start's String, or "continued" for a warm
	// start from the previous herd.
	Start string
	// Attractor is the attractor reached (Unconverged when it neither
	// settled nor stayed a herd within MaxIter maps).
	Attractor HerdAttractor
}

// herdPoint returns the point of a herd branch at T reached from start.
func herdPoint(T float64, start string, a HerdAttractor) HerdPoint {
	return HerdPoint{BranchPoint: fixedpoint.BranchPoint{Mu: T, X: a.Board, Converged: a.Herd, Radius: a.SpectralRadius,
		Residual: a.Residual, Iterations: a.Maps, Piece: a.Window, Border: math.NaN()}, Start: start, Attractor: a}
}

// HerdBranchResult is the herd branch of HerdBranch.
type HerdBranchResult struct {
	// Points are the attractors at the periods of BranchSettings.Refresh,
	// in the order given (those computed so far, with an error).
	Points []HerdPoint
	// Stats: Maps counts the map applications, Probes the points.
	Stats
}

// HerdBranch computes the attractor of the refresh map at each T of
// s.Refresh from s.Start (package doc, §4; validation.md: half:0.1T at k = 5,
// λ = 0.9 gives a herd of mean ≈ 0.40·T for T from 300 to 3,000), or, with
// Continue, follows the herd from T to T by warm starts (fixedpoint.Sweep). A point that does
// not converge is kept with Status Unconverged; only invalid settings and
// map failures (ErrRefreshRows) return an error, with the points computed
// so far.
func HerdBranch(s BranchSettings) (HerdBranchResult, error) {
	if err := s.Validate(); err != nil {
		return HerdBranchResult{}, err
	}
	start := time.Now()
	var res HerdBranchResult
	err := herdBranch(s, &res)
	res.Runtime = time.Since(start)
	return res, err
}

// herdBranch is HerdBranch's sweep over s.Refresh (fixedpoint.Sweep):
// each T from Start, or with Continue from the previous herd rescaled.
func herdBranch(s BranchSettings, res *HerdBranchResult) error {
	hs := s.Attractor.withDefaults()
	res.Points = make([]HerdPoint, 0, len(s.Refresh))
	correct := func(T float64, guess []float64, _ bool) (fixedpoint.BranchPoint, bool, error) {
		start, name := guess, "continued"
		if guess == nil {
			start, name = s.Service.Lift(HerdStartBoard(s.Start, T)), herdStart(s.Start).String()
		}
		m, err := NewRefreshMap(Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: T, Service: s.Service})
		if err != nil {
			return fixedpoint.BranchPoint{}, false, err
		}
		a, err := findHerdAttractor(m, start, hs)
		res.Maps += a.Maps
		res.Probes++
		if err != nil && !errors.Is(err, ErrNotConverged) {
			return fixedpoint.BranchPoint{}, false, fmt.Errorf("meanfield: herd branch at T = %g: %w", T, err)
		}
		p := herdPoint(T, name, a)
		res.Points = append(res.Points, p)
		return p.BranchPoint, p.Converged, nil
	}
	predict := func(last fixedpoint.BranchPoint, T float64) []float64 {
		if !s.Continue {
			return nil
		}
		return s.Service.rescaleState(last.X, last.Mu, T)
	}
	_, err := fixedpoint.Sweep(correct, nil, s.Refresh, &fixedpoint.SweepSettings{Predict: predict})
	return err
}

// Defaults of BistableSettings.
const (
	DefaultBistableMaxScaled = 30
	DefaultBistableMinScaled = 0.2
	DefaultBistableStep      = 1.25
	DefaultBistableRelTol    = 0.01
)

// BistableSettings controls Bistable. The zero value of each optional
// field means its default.
type BistableSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// MaxScaled: the herd's upper end is searched up to T(1−λ)² =
	// MaxScaled, in (MinScaled, 1000]. Zero means 30 (package doc, §4: at
	// k = 5, λ = 0.9 the herd coexists at least up to 30).
	MaxScaled float64
	// MinScaled: the herd's lower end is searched down to T(1−λ)² =
	// MinScaled, in (0, MaxScaled). Zero means 0.2.
	MinScaled float64
	// Start seeds the herd at the first T, a loaded start scaled with T
	// as BranchSettings.Start (zero value: DefaultHerdStart, half:0.1T);
	// the branch is then followed by warm starts.
	Start fleet.Start
	// Step is the ratio between successive T of the scan, in (1, 4]. Zero
	// means 1.25.
	Step float64
	// RelTol is the relative precision in T of a herd end found inside
	// the scanned range, in [1e-4, 0.5]. Zero means 0.01.
	RelTol float64
	// Attractor controls each FindHerdAttractor. Its zero value (a Stop
	// aside) means {Settle: 64, Average: 32}: existence needs only the
	// verdict, and the scan's aperiodic herds (all of them at k = 10)
	// would otherwise cost 456 maps each. Its Stop also stops the edge
	// search Bistable begins with.
	Attractor HerdSettings
	// Service is the job-size law (zero value: exponential).
	Service Service
}

// Bistable's default attractor settings.
const (
	bistableSettle  = 64
	bistableAverage = 32
)

func (s BistableSettings) withDefaults() BistableSettings {
	// The zero settings (a Stop aside, which is not a setting of the
	// computation) mean Bistable's defaults.
	if a := s.Attractor; a.MaxIter == 0 && a.Tol == 0 && a.MaxPeriod == 0 && !a.Spectrum && a.Settle == 0 && a.Average == 0 && a.maxWork == 0 {
		s.Attractor = HerdSettings{AttractorSettings: AttractorSettings{Stop: a.Stop}, Settle: bistableSettle, Average: bistableAverage}
	}
	if s.MaxScaled == 0 {
		s.MaxScaled = DefaultBistableMaxScaled
	}
	if s.MinScaled == 0 {
		s.MinScaled = DefaultBistableMinScaled
	}
	if s.Step == 0 {
		s.Step = DefaultBistableStep
	}
	if s.RelTol == 0 {
		s.RelTol = DefaultBistableRelTol
	}
	return s
}

// Validate reports the first setting out of range, naming the field.
func (s BistableSettings) Validate() error {
	d := s.withDefaults()
	scale := (1 - s.Load) * (1 - s.Load)
	switch {
	case s.Dispatchers < 1 || s.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: BistableSettings.Dispatchers = %d outside [1, %d]", s.Dispatchers, maxRefreshDispatchers)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: BistableSettings.Load = %v outside (0, 1)", s.Load)
	case s.MaxScaled != 0 && !(s.MaxScaled > 0 && s.MaxScaled <= 1000):
		return fmt.Errorf("meanfield: BistableSettings.MaxScaled = %v outside (0, 1000] (0 means %g)", s.MaxScaled, float64(DefaultBistableMaxScaled))
	case s.MinScaled != 0 && !(s.MinScaled > 0):
		return fmt.Errorf("meanfield: BistableSettings.MinScaled = %v, want > 0 (0 means %g)", s.MinScaled, DefaultBistableMinScaled)
	case !(d.MinScaled < d.MaxScaled):
		return fmt.Errorf("meanfield: BistableSettings.MinScaled = %v not below MaxScaled = %v", d.MinScaled, d.MaxScaled)
	case d.MaxScaled/scale > maxRefreshPeriod:
		return fmt.Errorf("meanfield: BistableSettings.MaxScaled = %v gives T = %.3g above %g", d.MaxScaled, d.MaxScaled/scale, maxRefreshPeriod)
	case s.Step != 0 && !(s.Step > 1 && s.Step <= 4):
		return fmt.Errorf("meanfield: BistableSettings.Step = %v outside (1, 4] (0 means %g)", s.Step, DefaultBistableStep)
	case s.RelTol != 0 && !(s.RelTol >= 1e-4 && s.RelTol <= 0.5):
		return fmt.Errorf("meanfield: BistableSettings.RelTol = %v outside [1e-4, 0.5] (0 means %g)", s.RelTol, DefaultBistableRelTol)
	}
	if err := validHerdStart("BistableSettings.Start", s.Start); err != nil {
		return err
	}
	if err := s.Service.Validate(); err != nil {
		return err
	}
	return s.Attractor.Validate()
}

// BistableResult is the coexistence range of the balanced state and the
// herd for one (k, λ).
type BistableResult struct {
	// Status is Found when a herd was reached at the seed T, else NotFound
	// (then the Herd fields are NaN).
	Status Status
	// EdgeRefresh is the protocol edge of Edge: the balanced state exists
	// above it (NaN when Edge.Status is NotFound: a balanced state
	// persists down to Edge's MinScaled). EdgeScaled =
	// EdgeRefresh·(1−λ)².
	EdgeRefresh, EdgeScaled float64
	// The herd attractor exists, following its branch from the seed, for
	// T in [HerdLow, HerdHigh]; LowOpen (HighOpen) is true when it still
	// exists at MinScaled (MaxScaled), so the range may go further.
	HerdLow, HerdHigh float64
	// LowScaled and HighScaled are HerdLow·(1−λ)² and HerdHigh·(1−λ)².
	LowScaled, HighScaled float64
	LowOpen, HighOpen     bool
	// Low and High bound the bistable range where both exist,
	// [max(EdgeRefresh, HerdLow), HerdHigh] (NaN when empty).
	Low, High float64
	// Seed is the T at which the herd was first sought, from Start and,
	// failing that, from the empty board: just below the edge (0.999·T_edge,
	// where no balanced state exists), or T(1−λ)² = 3 without an edge.
	Seed float64
	// Points are the herd-branch points computed, sorted by T.
	Points []HerdPoint
	// Edge is the full edge computation.
	Edge EdgeResult
	// Stats: Maps counts refresh-map applications in all, the edge's
	// included, and Probes the herd points computed.
	Stats
}

// Bistable computes the range of T where the balanced fixed point and a
// herd attractor of the refresh map coexist (package doc, §4: a herd
// attractor coexists with the balanced fixed points far above the edge,
// for k = 5, λ = 0.9 at least up to T(1−λ)² = 30).
//
// Method. (1) Edge gives the protocol edge T_edge, above which the
// balanced state exists. (2) The herd is seeded just below the edge,
// T = 0.999·T_edge, from Start or, when Start recovers there (k = 3:
// half:0.1T does), from the empty board, which below the edge cannot reach
// a balanced state. (3) From the seed it is followed up in T, on a
// geometric grid of ratio Step, warm-starting each T from the last herd
// rescaled (b → b·T'/T), up to MaxScaled; if it is lost on the way, the
// loss is bisected in log T to RelTol, warm-starting from the herd below
// (fixedpoint.Sweep on fixedpoint.GeometricGrid).
// (4) The same downwards to MinScaled. A point counts as a herd when
// FindHerdAttractor classifies it so (fixed, periodic or aperiodic with
// a herd's board mean, see HerdAttractor.Herd); a point that does not
// converge counts as lost.
//
// The herd range is that of the branch reached from the seed; other herds
// (other branches) may exist beyond it. The lower end is where the herd's
// board mean falls to the working-state scale BalancedQueueScale/(1 − λ), a
// classification threshold rather than a bifurcation (k = 3, λ = 0.9: the
// herd fixed point continues below T = 26.4 with board mean 0.456·T).
//
// Measured at λ = 0.9 (defaults; T(1−λ)² in brackets): k = 3: edge 99.3
// (0.993), herd from 26.4 (0.264) to beyond 3,000 (30); k = 5: edge 289.9
// (2.899), herd from below 20 (0.2) to beyond 3,000; k = 10: edge 709.4
// (7.094), herd from below 20 to beyond 3,000. The bistable range is
// [T_edge, ≥ 3,000] in all three.
func Bistable(s BistableSettings) (BistableResult, error) {
	if err := s.Validate(); err != nil {
		return BistableResult{}, err
	}
	start := time.Now()
	b := &bistableRun{s: s.withDefaults()}
	err := b.run()
	if err == nil {
		slices.SortFunc(b.res.Points, func(a, b HerdPoint) int { return cmp.Compare(a.Mu, b.Mu) })
	}
	b.res.Runtime = time.Since(start)
	return b.res, err
}

// bistableRun is the state of one Bistable computation.
type bistableRun struct {
	s   BistableSettings // with defaults
	hs  HerdSettings     // with defaults
	res BistableResult
}

// run is Bistable's method, steps (1)–(4).
func (b *bistableRun) run() error {
	s := b.s
	nan := math.NaN()
	b.res = BistableResult{Status: NotFound, EdgeRefresh: nan, EdgeScaled: nan, HerdLow: nan, HerdHigh: nan,
		LowScaled: nan, HighScaled: nan, Low: nan, High: nan}
	res := &b.res
	scale := (1 - s.Load) * (1 - s.Load)
	b.hs = s.Attractor.withDefaults()

	edge, err := Edge(EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, HerdMaps: -1, Service: s.Service, Stop: s.Attractor.Stop})
	res.Edge = edge
	res.Maps += edge.Maps
	if err != nil {
		return fmt.Errorf("meanfield: bistable: %w", err)
	}
	seed := 3 / scale
	if edge.Status == Found {
		res.EdgeRefresh, res.EdgeScaled = edge.Refresh, edge.Scaled
		seed = 0.999 * edge.Refresh
	}
	tMin, tMax := s.MinScaled/scale, s.MaxScaled/scale
	seed = min(max(seed, tMin), tMax)
	res.Seed = seed

	first, err := b.seed(seed)
	if err != nil || !first.Converged {
		return err
	}
	res.Status = Found
	hi, open, err := b.follow(first, tMax)
	if err != nil {
		return err
	}
	res.HerdHigh, res.HighOpen = hi, open
	lo, open, err := b.follow(first, tMin)
	if err != nil {
		return err
	}
	res.HerdLow, res.LowOpen = lo, open
	res.LowScaled, res.HighScaled = res.HerdLow*scale, res.HerdHigh*scale
	low := res.HerdLow
	if edge.Status == Found {
		low = max(low, edge.Refresh)
	}
	if low <= res.HerdHigh {
		res.Low, res.High = low, res.HerdHigh
	}
	return nil
}

// eval finds the herd attractor at T from start and records the point.
func (b *bistableRun) eval(T float64, start []float64, name string) (HerdPoint, error) {
	s := b.s
	m, err := NewRefreshMap(Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: T, Service: s.Service})
	if err != nil {
		return HerdPoint{}, err
	}
	a, err := findHerdAttractor(m, start, b.hs)
	b.res.Maps += a.Maps
	b.res.Probes++
	if err != nil && !errors.Is(err, ErrNotConverged) {
		return HerdPoint{}, fmt.Errorf("meanfield: bistable at T = %g: %w", T, err)
	}
	p := herdPoint(T, name, a)
	b.res.Points = append(b.res.Points, p)
	return p, nil
}

// seed is step (2): the herd at the seed T from Start or, failing that,
// from the empty board.
func (b *bistableRun) seed(T float64) (HerdPoint, error) {
	s := b.s
	first, err := b.eval(T, s.Service.Lift(HerdStartBoard(s.Start, T)), herdStart(s.Start).String())
	if err != nil || first.Converged {
		return first, err
	}
	// Below the edge no balanced state exists: the empty board ends in
	// the herd there (or in no herd at all).
	return b.eval(T, BoardEmpty(), "empty")
}

// follow is steps (3) and (4): it sweeps the herd branch from p towards
// limit (up when limit > p's T) on the geometric grid of ratio Step
// (fixedpoint.GeometricGrid), each T warm-started from the herd before
// it rescaled (b → b·T'/T), and bisects a loss in log T to RelTol
// (fixedpoint.Sweep). It returns the last T where the herd exists and
// whether it reached limit.
func (b *bistableRun) follow(p HerdPoint, limit float64) (float64, bool, error) {
	correct := func(T float64, guess []float64, _ bool) (fixedpoint.BranchPoint, bool, error) {
		q, err := b.eval(T, guess, "continued")
		return q.BranchPoint, q.Converged, err
	}
	predict := func(last fixedpoint.BranchPoint, T float64) []float64 {
		return b.s.Service.rescaleState(last.X, last.Mu, T)
	}
	sw, err := fixedpoint.Sweep(correct, &p.BranchPoint, fixedpoint.GeometricGrid(p.Mu, limit, b.s.Step),
		&fixedpoint.SweepSettings{Predict: predict, Bisect: b.s.RelTol})
	if err != nil {
		return p.Mu, false, err
	}
	return sw.Last().Mu, !sw.Lost, nil
}

// ErrNoTip is returned, wrapped, by MinTipBacklog when even the
// half-loaded start with B = T does not reach a herd.
var ErrNoTip = errors.New("meanfield: no half-loaded backlog B ≤ T tips the map")

// Settings of MinTipBacklog's verdicts: a herd once the orbit has stayed
// in the herd regime for tipSettle + tipAverage maps.
const (
	tipSettle  = 64
	tipAverage = 16
	// DefaultTipTol is MinTipBacklog's default tolerance on B/T.
	DefaultTipTol = 0.005
)

// TipSettings controls MinTipBacklog. The zero value of Tol means its
// default.
type TipSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// Refresh is the period T, in (0, 1e6].
	Refresh float64
	// Tol is the bracket on B/T, in (0, 1). Zero means 0.005.
	Tol float64
}

// TipResult is the smallest tipping backlog of MinTipBacklog.
type TipResult struct {
	// Fraction is the smallest half-loaded backlog found to tip, B/T (NaN
	// when Status is not Found).
	Fraction float64
	// Status is Found, or NotFound when even B = T does not tip.
	Status Status
	// Stats: Probes counts the attractor evaluations (one per backlog
	// tried), Maps their map applications.
	Stats
}

// MinTipBacklog returns the smallest half-loaded backlog B/T (half the
// servers at B jobs, half empty; package doc, §2, start half:B) from which
// the refresh map of k dispatchers at load λ and period T ends in a herd, by
// bisection on the integer B in [1, T] (fixedpoint.BisectInt) to a bracket
// of max(1, Tol·T) jobs. Fraction is the upper end of the final bracket,
// as a fraction of T. It assumes the verdict is monotone in B (checked
// only at the ends). Each verdict is the attractor's: a balanced fixed
// point, or a herd once the orbit has stayed in the herd regime for 80
// maps (fixed, periodic or not). When even B = T does not tip, Status is
// NotFound and the error wraps ErrNoTip.
//
// validation.md (simulation, 100 servers, k = 5, λ = 0.9): 0.1T tips,
// 0.05T recovers, for T from 450 to 2,000.
func MinTipBacklog(s TipSettings) (TipResult, error) {
	start := time.Now()
	res := TipResult{Fraction: math.NaN(), Status: NotFound}
	err := minTipBacklog(s, &res)
	res.Runtime = time.Since(start)
	return res, err
}

func minTipBacklog(s TipSettings, res *TipResult) error {
	refresh, tol := s.Refresh, s.Tol
	r := Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: refresh}
	if err := r.Validate(); err != nil {
		return err
	}
	if tol == 0 {
		tol = DefaultTipTol
	}
	if !(tol > 0 && tol < 1) {
		return fmt.Errorf("meanfield: TipSettings.Tol = %v outside (0, 1) (0 means %g)", tol, DefaultTipTol)
	}
	m, err := NewRefreshMap(r)
	if err != nil {
		return err
	}
	hs := HerdSettings{Settle: tipSettle, Average: tipAverage}.withDefaults()
	tips := func(b int) (bool, error) {
		res.Probes++
		a, err := findHerdAttractor(m, BoardHalf(b), hs)
		res.Maps += a.Maps
		if err != nil {
			return false, fmt.Errorf("meanfield: MinTipBacklog at B = %d: %w", b, err)
		}
		return a.Herd, nil
	}
	hi := max(1, int(math.Floor(refresh)))
	ok, err := tips(hi)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("meanfield: MinTipBacklog at T = %g: %w", refresh, ErrNoTip)
	}
	// B = 0 is not evaluated: the bracket's lower end.
	hi, err = fixedpoint.BisectInt(tips, 0, hi, max(1, int(math.Floor(tol*refresh))))
	if err != nil {
		return err
	}
	res.Fraction, res.Status = float64(hi)/refresh, Found
	return nil
}
