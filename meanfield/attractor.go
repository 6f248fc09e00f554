package meanfield

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"time"

	"herd/fixedpoint"
)

// Defaults of AttractorSettings.
const (
	DefaultAttractorMaxIter   = 5000
	DefaultAttractorTol       = 1e-10
	DefaultAttractorMaxPeriod = 8
)

// BalancedQueueScale is the working-state queue scale: a board mean of at
// most BalancedQueueScale/(1 − λ) is never a herd's (see herdSized for the
// whole herd rule, of which this is the floor).
//
// Package doc, §4: a herd stores a backlog that grows with T (board mean
// 0.3–0.8·T), while a balanced state keeps a queue of order 1/(1 − λ)
// whatever T. Measured with this map from the empty board (k = 2…10,
// λ = 0.8…0.95, T(1−λ)² = 0.02…8): every non-herd fixed point has
// (1 − λ)·mean ≤ 0.91 (most 0.25–0.7), the smallest herd (k = 5, λ = 0.9,
// T = 20, the herded fixed point of validation.md with mean 15.9) has 1.59,
// and herds near an edge T(1−λ)² ≈ 0.9(k − 2) have at least
// 0.3·0.9/(1 − λ) ≥ 1.35. The threshold 1.2 sits between. It was measured
// at high load only and is not a bound: at λ ≤ ½ the working states of
// many dispatchers exceed it (k = 32, λ = 0.5, T = 54: board mean 2.77 >
// 2.4, a fixed point that no longer grows with T), which is why the herd
// rule also asks for a backlog in proportion to T (herdSized).
const BalancedQueueScale = 1.2

// The herd's backlog (herdSized). A herd exists only above herdLoad, and
// its board mean is at least herdBacklog·(λ − herdLoad)·T.
//
// Why λ − ½: in a herd the dispatchers' water, reading a stale board,
// floods the servers that read low, a share f of them; each receives jobs
// at rate λ/f for most of the period and so ends it (λ/f − 1)·T jobs
// behind. At the next refresh those servers read high and the low share
// is at least the rest, 1 − f, which must itself be flooded (λ/(1 − f) > 1,
// so f > 1 − λ) for the backlog to be renewed. Both hold only if λ > ½;
// at λ ≤ ½ every share the water floods is served at least as fast as it
// is fed, the backlog does not grow with T, and there is no herd. For the
// period-2 herd (f = ½) the flooded half holds (2λ − 1)·T, a board mean
// of (λ − ½)·T, what this map gives: measured from the empty board at
// T(1−λ)² = 0.45(k − 2) and 0.9(k − 2), herd board means are 0.20–0.26·T
// at λ = 0.7, 0.30–1.2·T at 0.8 and 0.41–3.2·T at 0.9 (k = 3…64); the
// same branch at λ = 0.6 grows as 0.1·T (k = 32: 17.9 at T = 162, 8.3 at
// T = 66). herdBacklog = ½ leaves a factor 2 below the smallest.
const (
	herdLoad    = 0.5
	herdBacklog = 0.5
)

// AttractorSettings controls FindAttractor. The zero value gives the
// defaults.
type AttractorSettings struct {
	// MaxIter is the largest number of map applications. Zero means 5000.
	MaxIter int
	// Tol: converged when ‖p_n − p_{n−P}‖₁ ≤ Tol (L1 distance of boards).
	// Zero means 1e-10.
	Tol float64
	// MaxPeriod is the largest period checked. Zero means 8.
	MaxPeriod int
	// Spectrum computes the spectral radius of the map's Jacobian at a
	// fixed point (Arnoldi on kink-aware one-sided differences, restricted
	// to boards of unit mass; about 20–50 extra maps).
	Spectrum bool
	// Stop, when not nil, is polled after every map that closes no fixed
	// point or orbit; once it reports true the run ends there with an
	// error wrapping ErrStopped (herd's Ctrl-C). It is not a setting of the
	// computation: a run it does not stop has the same result.
	Stop func() bool `json:"-"`
	// Mapped, when not nil, is called after each map of the iteration
	// (not the spectrum's) with what a heartbeat shows while one run takes
	// minutes or hours. Like Stop, it is not a setting of the computation.
	Mapped func(MapReport) `json:"-"`
	// Checkpoint, when not nil, is called after every map that closes no
	// fixed point or orbit and does not end the run, after Stop is
	// polled: stopping reports that Stop has just ended the run, and
	// state returns where the run stands (its last boards, copied: call it
	// every few minutes, or when stopping, rather than after every map).
	// Like Stop, it is not a setting of the computation.
	Checkpoint func(stopping bool, state func() *RunState) `json:"-"`
	// Resume, when not nil, continues the run whose state Checkpoint
	// handed out, instead of starting from the start board (which is then
	// not read). With the map and settings of the run that saved it, the
	// resumed run makes the maps that run would have made had it not
	// stopped, and returns its result bit for bit (Runtime aside: it
	// counts this part only). A state those settings cannot have made is
	// an error wrapping ErrRunState.
	Resume *RunState `json:"-"`
}

// MapReport is what AttractorSettings.Mapped learns of one map.
type MapReport struct {
	// Maps is the number of maps made so far, this one included, and
	// BoardMean the mean of the board it made.
	Maps      int
	BoardMean float64
	// HerdRun is the number of consecutive maps in the herd regime up to
	// this one and HerdNeed the number (Settle + Average) after which
	// FindHerdAttractor calls an orbit that has not settled Aperiodic;
	// both 0 from FindAttractor.
	HerdRun, HerdNeed int
}

// Validate reports the first setting out of range, naming the field.
func (s AttractorSettings) Validate() error {
	switch {
	case s.MaxIter < 0:
		return fmt.Errorf("meanfield: AttractorSettings.MaxIter = %d, want ≥ 0 (0 means %d)", s.MaxIter, DefaultAttractorMaxIter)
	case !(s.Tol >= 0 && s.Tol < 1):
		return fmt.Errorf("meanfield: AttractorSettings.Tol = %v outside [0, 1) (0 means %g)", s.Tol, DefaultAttractorTol)
	case s.MaxPeriod < 0 || s.MaxPeriod > 64:
		return fmt.Errorf("meanfield: AttractorSettings.MaxPeriod = %d outside [0, 64] (0 means %d)", s.MaxPeriod, DefaultAttractorMaxPeriod)
	}
	return nil
}

func (s AttractorSettings) withDefaults() AttractorSettings {
	if s.MaxIter == 0 {
		s.MaxIter = DefaultAttractorMaxIter
	}
	if s.Tol == 0 {
		s.Tol = DefaultAttractorTol
	}
	if s.MaxPeriod == 0 {
		s.MaxPeriod = DefaultAttractorMaxPeriod
	}
	return s
}

// Attractor is the attractor of the refresh map reached from a start board.
type Attractor struct {
	// Status is FixedPoint, Periodic or Unconverged (Aperiodic only in a
	// HerdAttractor).
	Status Status
	// Period is 1 for a fixed point, P for a period-P orbit, 0 when
	// unconverged.
	Period int
	// Board is the fixed point, or the first point of the orbit (for an
	// unconverged run, the last board reached).
	Board []float64
	// BoardMean, QueueMean and Response are averages over the orbit's P
	// points (over the last map for an unconverged run); Response =
	// QueueMean/λ (Little's law).
	BoardMean, QueueMean, Response float64
	// CutPhase and KinkDistance are those of the map applied to Board.
	CutPhase, KinkDistance float64
	// SpectralRadius is that of the Jacobian at a fixed point when
	// Settings.Spectrum is set, else NaN.
	SpectralRadius float64
	// Balanced reports a balanced state: a fixed point whose board mean is
	// not a herd's (herdSized: at load λ > ½, above BalancedQueueScale/(1 − λ)
	// and at least ½(λ − ½)·T). Herds (board mean growing with T) and
	// periodic orbits are not balanced.
	Balanced bool
	// Stats.Maps counts map applications (spectrum included).
	Stats
	// Residual is the last ‖p_n − p_{n−P}‖₁ (P = 1 when unconverged);
	// Truncation is the largest truncation mass of one map application
	// seen.
	Residual   float64
	Truncation float64
	// Window is the cut window of Board's map application.
	Window int
}

// balancedMean reports whether a board mean is on the balanced scale.
func balancedMean(mean, load float64) bool {
	return mean*(1-load) <= BalancedQueueScale
}

// herdRegime reports whether a board met along a run (at any T) may
// belong to a herd: the load is above herdLoad, where alone herds exist,
// and the mean is above the working-state scale
// BalancedQueueScale·q/(1 − λ) (q = s.QueueScale()). It is what the runs
// of Edge (their early exit), FindHerdAttractor (Settle) and Hysteresis
// watch; at λ > ½ it is the test those used before the load entered.
func herdRegime(mean, load float64, s Service) bool {
	return load > herdLoad && !balancedMeanFor(mean, load, s)
}

// herdSized reports whether the board mean of an attractor at period T is
// a herd's: in the herd regime (herdRegime) and at least half the backlog
// of a herd, herdBacklog·(λ − herdLoad)·T (see herdLoad). Either test alone
// fails somewhere: the backlog alone takes the working states of short
// periods for herds (λ = 0.6, k = 3, T = 11.25: board mean 1.28 ≥ 0.56), and
// the working-state scale alone takes the working states of many
// dispatchers at light load for herds (BalancedQueueScale). Together they
// ask for what defines a herd (package doc, "Attractors, balanced states
// and herds"): a backlog that grows with T, which a working state lacks.
func herdSized(mean, load, period float64, s Service) bool {
	return herdRegime(mean, load, s) && mean >= herdBacklog*(load-herdLoad)*period
}

// FindAttractor iterates the refresh map of r from start until the boards
// close up on a fixed point or a periodic orbit of period P ≤ MaxPeriod,
// ‖p_{n+1} − p_{n+1−P}‖₁ ≤ Tol (the smallest such P, with the orbit's
// points at least sqrt(Tol) apart for P ≥ 2, so that a fixed point
// approached with a multiplier near −1 does not pass for a 2-cycle). The
// state is classified by the attractor it ends in, not by the way there.
//
// When MaxIter maps pass first, FindAttractor returns the last state
// reached (Status Unconverged) with an error wrapping ErrNotConverged.
// Invalid settings or boards, and map failures, return other errors.
func FindAttractor(r Refresh, start []float64, s AttractorSettings) (Attractor, error) {
	if err := s.Validate(); err != nil {
		return Attractor{}, err
	}
	m, err := NewRefreshMap(r)
	if err != nil {
		return Attractor{}, err
	}
	if s.Resume != nil && s.Resume.Herd != nil {
		return Attractor{}, fmt.Errorf("meanfield: AttractorSettings.Resume: the state of a FindHerdAttractor run: %w", ErrRunState)
	}
	t0 := time.Now()
	a, err := findAttractor(m, start, s.withDefaults(), nil)
	a.Runtime = time.Since(t0)
	return a, err
}

// orbitStat is what FindAttractor keeps of one map application.
type orbitStat struct {
	board, queue, phase, kink float64
	window                    int
}

// findAttractor is FindAttractor on a prepared map and defaulted settings.
// stop, if not nil, is called after every map with the application's
// result and may end the run early (the result is then Unconverged and
// the error nil).
func findAttractor(m *RefreshMap, start []float64, s AttractorSettings, stop func(RefreshResult) bool) (Attractor, error) {
	a, _, err := iterateAttractor(m, start, s, stop)
	return a, err
}

// iterateAttractor is findAttractor that also returns the orbit's last
// boards.
func iterateAttractor(m *RefreshMap, start []float64, s AttractorSettings, stop func(RefreshResult) bool) (Attractor, *fixedpoint.Orbit, error) {
	return iterateAccelerated(m, start, s, stop, nil)
}

// boardJump may move an iteration run: given the input p_n of map n and
// its result, it returns the board to continue from in place of p_{n+1}
// (an extrapolation towards the fixed point the run approaches), or nil
// for the plain step (edgeAccel).
type boardJump func(in []float64, r RefreshResult) []float64

// iterateAccelerated is iterateAttractor with jumps (jump may be nil),
// asked for after every map that did not meet Tol. A jump's board is not
// tested for closing up: convergence and periods are judged on plain maps
// only, so a fixed point it reports is one of the plain map to Tol,
// ‖F(p) − p‖₁ ≤ Tol, with Board = F(p).
func iterateAccelerated(m *RefreshMap, start []float64, s AttractorSettings, stop func(RefreshResult) bool, jump boardJump) (Attractor, *fixedpoint.Orbit, error) {
	o, stats, out, res, err := beginRun(m, start, s)
	if err != nil {
		return out, o, err
	}
	it := fixedpoint.Iteration{Tol: s.Tol, Sep: math.Sqrt(s.Tol)}
	it.Map = func(dst, x []float64) ([]float64, error) {
		var err error
		// dst reuses the storage of the board that leaves the ring.
		res, err = m.Apply(dst, x)
		out.Maps++
		if err != nil {
			return nil, fmt.Errorf("meanfield: attractor: map %d: %w", out.Maps, err)
		}
		if s.Mapped != nil {
			s.Mapped(MapReport{Maps: out.Maps, BoardMean: res.BoardMean})
		}
		out.Truncation = max(out.Truncation, res.Truncation)
		// The map, indexed by its input's place in the orbit (its number
		// but in a resumed run, whose orbit holds its last boards only).
		stats[o.Len()%(s.MaxPeriod+1)] = orbitStat{res.BoardMean, res.QueueMean, res.CutPhase, res.KinkDistance, res.Window}
		return res.Next, nil
	}
	if jump != nil {
		it.Jump = func(x, _ []float64) []float64 { return jump(x, res) }
	}
	stopped := false
	it.Visit = func(residual float64) (bool, error) {
		out.Residual = residual
		if stop != nil && stop(res) {
			stopped = true
			return true, nil
		}
		stopping := s.Stop != nil && s.Stop()
		if s.Checkpoint != nil {
			s.Checkpoint(stopping, func() *RunState { return saveRun(o, stats, &out) })
		}
		if stopping {
			return true, fmt.Errorf("meanfield: attractor: after %d maps: %w", out.Maps, ErrStopped)
		}
		return false, nil
	}
	per, err := it.Run(o, out.Maps, s.MaxIter)
	switch {
	case err != nil:
		return out, o, err
	case per > 0:
		describeOrbit(&out, o, stats, per, m.set.Load, m.set.Period, m.set.Service)
		if per == 1 && s.Spectrum {
			rad, maps, err := spectralRadius(m, out.Board)
			out.Maps += maps
			if err != nil {
				return out, o, err
			}
			out.SpectralRadius = rad
		}
		return out, o, nil
	}
	out.Board = append([]float64(nil), o.Back(0)...)
	out.BoardMean, out.QueueMean, out.Response = res.BoardMean, res.QueueMean, res.Response
	out.CutPhase, out.KinkDistance, out.Window = res.CutPhase, res.KinkDistance, res.Window
	if stopped && out.Maps < s.MaxIter {
		return out, o, nil
	}
	return out, o, fmt.Errorf("meanfield: attractor: ‖p_n − p_{n−1}‖₁ = %.3g after %d maps: %w", out.Residual, out.Maps, ErrNotConverged)
}

// beginRun returns the orbit, the stats ring (stats[i%(P+1)]: the map
// whose input is the orbit's point i), the result so far and the last
// map's result of a run from start, or of the run s.Resume continues.
func beginRun(m *RefreshMap, start []float64, s AttractorSettings) (*fixedpoint.Orbit, []orbitStat, Attractor, RefreshResult, error) {
	if s.Resume == nil {
		out := Attractor{SpectralRadius: math.NaN()}
		return fixedpoint.NewOrbit(s.MaxPeriod, append([]float64(nil), start...), l1), make([]orbitStat, s.MaxPeriod+1), out, RefreshResult{}, nil
	}
	o, stats, out, err := restoreRun(s.Resume, s.MaxPeriod, s.MaxIter)
	if err != nil {
		return nil, nil, out, RefreshResult{}, err
	}
	// The last map, as an unconverged run reports it.
	last := stats[(o.Len()-1)%(s.MaxPeriod+1)]
	res := RefreshResult{BoardMean: last.board, QueueMean: last.queue, Response: last.queue / m.set.Load,
		CutPhase: last.phase, KinkDistance: last.kink, Window: last.window}
	return o, stats, out, res, nil
}

// describeOrbit fills out with the orbit of period per that the newest
// board p_{n+1} of o closes (map n the last): its first point, the
// observables averaged over its maps, and the cut of the map applied to
// its first point.
func describeOrbit(out *Attractor, o *fixedpoint.Orbit, stats []orbitStat, per int, lam, period float64, svc Service) {
	P := o.MaxPeriod()
	n := o.Len() - 1
	out.Period = per
	out.Residual = o.Distance(per)
	out.Status = Periodic
	if per == 1 {
		out.Status = FixedPoint
	}
	// The orbit is p_{n+2−per}, …, p_{n+1}; its maps are n+1−per … n.
	out.Board = append([]float64(nil), o.Back(per-1)...)
	if per == 1 {
		out.Board = append([]float64(nil), o.Back(0)...)
	}
	var bm, qm float64
	for j := 0; j < per; j++ {
		st := stats[(n-j)%(P+1)]
		bm += st.board
		qm += st.queue
	}
	out.BoardMean, out.QueueMean = bm/float64(per), qm/float64(per)
	out.Response = out.QueueMean / lam
	// The map applied to Board: for a fixed point the last map (its
	// input p_n is within Tol of Board), for an orbit map n+2−per,
	// whose input is Board itself.
	st := stats[n%(P+1)]
	if per > 1 {
		st = stats[(n+2-per)%(P+1)]
	}
	out.CutPhase, out.KinkDistance, out.Window = st.phase, st.kink, st.window
	out.Balanced = per == 1 && !herdSized(out.BoardMean, lam, period, svc)
}

// eigenSettings are those of the Arnoldi runs on the refresh map.
var eigenSettings = fixedpoint.ArnoldiSettings{Tol: 1e-6, MaxDim: 60, Seed: 1}

// spectrumRowMin: the Jacobian is taken on the board's rows holding at
// least this mass (see truncatedProblem).
const spectrumRowMin = 1e-6

// leadingEigenvalues returns the leading eigenvalues (by modulus) of the
// Jacobian of m's map at the board p, restricted to boards of unit mass
// and to the rows of p holding at least spectrumRowMin (the tail beyond,
// of negligible mass, is held fixed), by matrix-free Arnoldi with
// kink-aware one-sided differences (fixedpoint.Arnoldi; package doc, §2:
// about 20 maps reproduce the dense spectrum to 6 digits). It also returns the
// number of maps.
func leadingEigenvalues(m *RefreshMap, p []float64, count int) ([]complex128, int, error) {
	maps := 0
	prob, x, err := truncatedProblem(m, p, spectrumRowMin, &maps)
	if err != nil {
		return nil, 0, err
	}
	n := len(x)
	set := eigenSettings
	set.Subspace = fixedpoint.SumZero(n)
	set.MaxDim = min(set.MaxDim, n-1)
	res, err := fixedpoint.Arnoldi(prob, x, min(count, n-1), &set)
	if err != nil && !(errors.Is(err, fixedpoint.ErrNotConverged) && res != nil) {
		return nil, maps, fmt.Errorf("meanfield: spectrum: %w", err)
	}
	return res.Values, maps, nil
}

// spectralRadius returns the spectral radius of the map's Jacobian at p.
func spectralRadius(m *RefreshMap, p []float64) (float64, int, error) {
	ev, maps, err := leadingEigenvalues(m, p, 3)
	if err != nil {
		return math.NaN(), maps, err
	}
	r := 0.0
	for _, e := range ev {
		r = max(r, cmplx.Abs(e))
	}
	return r, maps, nil
}
