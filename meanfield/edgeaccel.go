package meanfield

import (
	"math"

	"herd/fixedpoint"
)

// Edge's accelerated corrector. A balanced fixed point is approached
// linearly, at the rate of the node's spectral radius (0.5–0.8 at the
// edges of the default table, nearer 1 at large k or λ → 1), so a plain
// run spends most of its maps closing the last digits. Once the run is on
// one smooth piece of the map and contracting, edgeAccel extrapolates it
// with Anderson's update (fixedpoint.AndersonMixer) over its last maps,
// or, when its board mean creeps towards the node at a steady slow rate
// (the direction that slows down as λ → 1), moves it along its last step
// by the rest of the geometric series (the geometric jump, geoAdmit);
// iterateAccelerated continues from the extrapolated board with plain
// maps, and judges convergence on those only. In Edge's runs with
// exponential sizes the geometric jump takes the place of Anderson's
// update on the steady test's runs (below; EdgeSettings.noGeo turns it
// off, for comparison); the rules below hold for both: it stays on the
// window of the plain step, it is bounded by ρ/(1 − ρ) plain steps, and
// it counts as failed when the residual geoJudgeMaps maps after it is not
// below the one before.
//
// Why the answer is the plain iteration's (to the fixed-point tolerance):
//   - a run ends only where a plain map moves its board by at most the
//     tolerance in L1, the plain iteration's own criterion, and the board
//     reported is that map's output;
//   - jumps start only after accelStreak plain maps in a row whose
//     residual is below accelEngage and falls by at least the factor
//     accelRate per map, or falls steadily (edgeAccel.steady: two ratios
//     in a row at most accelSteadyRate and within a quarter of their
//     distance from 1 of each other, the linear regime of a node that
//     contracts slowly), and go on while the board mean is on the
//     balanced scale and every map of the history cut the same window
//     (the same smooth piece): there the map is smooth, the iterates
//     converge linearly to the stable node of that piece, and Anderson's
//     update (equivalent to GMRES on the linearised map) moves towards the
//     same point. A saddle of a border collision lies on the other piece
//     (another window): a run that changes window while accelerated is
//     ended (below). That is not enough: a run whose jumps start on
//     the saddle's piece can still be carried to the saddle, which is a
//     root of F(p) = p like the node (measured: k = 5, λ = 0.99,
//     T = 28,067.21, a fixed point 0.005 past a window's start with a
//     leading eigenvalue 1.07, where the node 0.008 before it has 0.94).
//     So a fixed point reached by jumps with T just past its window's
//     start (within 5% of a window: the saddle's side, Edge's saddleSide)
//     is not accepted: the run is made again plainly, and plain maps leave
//     a saddle. A smooth fold or flip brings the rate to 1: above
//     accelSteadyRate no jump starts;
//   - each jump is bounded, ‖x̂ − F(x)‖₁ ≤ accelMaxJump·‖F(x) − x‖₁ (the
//     distance to the limit of iterates contracting at rate 0.95), or
//     ρ/(1 − ρ) residuals when a steady rate ρ above that started the
//     jumps; a jump after which the residual exceeds accelGrow times the
//     one before counts as failed, and after accelFails of them, or when
//     the run changes window while accelerated, the accelerated run ends
//     there and the run is the plain run from its state before the first
//     jump (below): going on from a board the jumps left would only be
//     made again plainly if it failed (measured at k = 5, λ = 0.99: the
//     follow's failing trials spent 12–133 maps that way, 407 in all);
//   - the same holds for phase-type services, whose state (queue length
//     and phase, package doc, §2, job sizes) is a probability
//     vector like a board; projectBoard keeps it one;
//   - with phase-type sizes, when Anderson's update is given up the
//     geometric jump alone takes over (the fallback, quit): in
//     place when no jump was made, else in a second pass from the plain
//     state before the first jump (runOn), whose jumps obey the rules
//     above; a second pass that fails, or ends by a saddle, is made again
//     plainly from its own state before its first jump;
//   - a run that does not reach a balanced fixed point proves nothing
//     once it has jumped (a jump near a border may throw it out of a small
//     basin): Edge then runs it again plainly (runOn), so every "not
//     reached" is plain iteration's, and a jump can only save maps on runs
//     that succeed. Up to its first jump the run was the plain run map for
//     map, so the plain run continues from its state there
//     (AttractorSettings.Resume) rather than from the start: the same
//     maps, not made twice.
//
// Cold protocol runs stay plain (reachability is their meaning) until
// they come within accelNear of a balanced fixed point already known at
// that T (a point of the followed branch, or a cold run's), or of the
// interpolation between the nodes known at the nearest periods on either
// side when both lie on one window within a continuation step (nodeRef):
// from there on the run is in the node's contraction region, where the
// plain run converges to that node, and the same rules apply, with the
// rate test and the jump bound at 0.99 and 99 residuals (accelRefRate: the
// node is known, and may contract slowly; at h2:10, k = 5, λ = 0.9 its
// rate is 0.964, and the confirmation's cold run made 467 plain maps,
// held back by the 0.95 test, then by the 20-residual bound; the steady
// test now admits such rates on any run: at k = 5, λ = 0.99 a warm
// continuation trial contracting at 0.963–0.967 made 240 plain maps after
// its mixer was dropped, held back by the rate test). Should no
// node lie there, the plain maps never meet the tolerance and the run is
// run again plainly, like any accelerated run that fails.

// Constants of edgeAccel.
const (
	accelEngage = 3e-3 // L1 residual below which jumps may start
	accelRate   = 0.95 // the residual must fall by this factor per map
	// A cold run within accelNear of a known node: the rate test and the
	// jump bound at 0.99.
	accelRefRate    = 0.99
	accelRefMaxJump = 99   // 0.99/(1 − 0.99)
	accelMaxJump    = 20   // jump bound, in residuals: 0.95/(1 − 0.95)
	accelNear       = 1e-3 // a cold run is accelerated within this L1 distance of a known node
	accelDepth      = 5    // Anderson's depth
	accelMaxCond    = 1e10 // Anderson's condition bound
	accelPad        = 8    // spare rows of the mixer beyond the boards
	accelStreak     = 3    // contracting plain maps on one window before the first jump
	accelFails      = 4    // failed jumps before acceleration is off for the run
	// Slow but steady contraction (edgeAccel.steady): two residual ratios
	// in a row within accelSteady of their distance from 1, both at most
	// accelSteadyRate, count towards the streak like ratios below the rate.
	accelSteady     = 0.25
	accelSteadyRate = 0.99
	accelGrow       = 2 // a jump fails when the residual after it exceeds this factor times the one before
	// The geometric jump (edgeAccel.geoAdmit): the maps after it before
	// it is judged, and the halvings that may keep it on its window.
	geoJudgeMaps = 2
	geoHalvings  = 6
)

// edgeAccel is the state of one accelerated run (a boardJump).
type edgeAccel struct {
	lam     float64
	svc     Service
	ref     []float64 // if not nil: jump only within accelNear of it
	mix     *fixedpoint.AndersonMixer
	window  int
	last    float64 // residual of the last map (0: none yet)
	preJump float64 // residual of the map before the last jump (0: no jump pending)
	off     bool
	fails   int     // jumps that did not lower the residual
	jumps   int     // jumps made
	lastWin int     // window of the last map
	streak  int     // plain maps in a row contracting by accelRate on one window
	ratio   float64 // residual ratio of the last map on the window before it (0: none)
	bound   float64 // the mixer's jump bound, in residuals
	// steadyRate is the highest steady ratio that admits jumps
	// (accelSteadyRate; 0: the rate test alone, the rule before the
	// steady test, which TestEdgeSaddleSide needs).
	steadyRate float64
	x, g       []float64

	// The fallback (withFallback), on when fallK > 0: when Anderson's
	// update is given up, the run goes on with geometric jumps alone
	// (geoOnly) for fallK dispatchers and period fallT, in place (no
	// jump made yet) or in a second pass from the plain state (runOn,
	// geoPass); see quit.
	fallK   int
	fallT   float64
	geoOnly bool

	// The geometric jump (geoAdmit), on when k > 0: k and the period T
	// locate a board's cut window (cutWindowOf); the board means of the
	// last maps on window gWin (gN of them, up to 3); geo, the rate of
	// the jump admitted (0: none); gWait, the maps until the last jump is
	// judged against gPre, the residual before it.
	k      int
	period float64
	gWin   int
	gN     int
	gMean  [3]float64
	geo    float64
	gJumps int // geometric jumps made
	gWait  int
	gPre   float64
}

func newEdgeAccel(lam float64, svc Service, ref []float64) *edgeAccel {
	return &edgeAccel{lam: lam, svc: svc, ref: ref, steadyRate: accelSteadyRate}
}

// withGeo turns on the geometric jump for k dispatchers and period T
// (geoAdmit), in place of Anderson's update on steady contraction.
func (a *edgeAccel) withGeo(k int, T float64) *edgeAccel {
	a.k, a.period = k, T
	return a
}

// quit gives up the run's acceleration: for good (off), or, for a
// fallback run that has not jumped yet, Anderson's update only, the run
// going on with geometric jumps (geoOnly). Its first pass is then still
// the plain run, map for map, so nothing is made again.
func (a *edgeAccel) quit() {
	if a.fallK > 0 && a.jumps == 0 {
		a.toGeo()
		return
	}
	a.off = true
}

// withFallback gives the run the geometric jump for k dispatchers and
// period T as a fallback (quit), where Anderson's update gives up.
func (a *edgeAccel) withFallback(k int, T float64) *edgeAccel {
	a.fallK, a.fallT = k, T
	return a
}

// canFall reports whether the run gave up Anderson's update after jumps
// and has the fallback: runOn's second pass (geoPass).
func (a *edgeAccel) canFall() bool { return a.off && a.fallK > 0 && a.jumps > 0 }

// toGeo turns a fallback run's accelerator into geometric jumps alone,
// judged from the next maps afresh.
func (a *edgeAccel) toGeo() {
	a.withGeo(a.fallK, a.fallT)
	a.fallK, a.geoOnly = 0, true
	a.mix, a.streak, a.preJump, a.fails = nil, 0, 0, 0
}

// geoPass is the accelerator of a fallback run's second pass (runOn),
// from its plain state after Anderson's jumps were given up: geometric
// jumps alone, near the same reference.
func (a *edgeAccel) geoPass() *edgeAccel {
	b := newEdgeAccel(a.lam, a.svc, a.ref).withFallback(a.fallK, a.fallT)
	b.steadyRate = a.steadyRate
	b.toGeo()
	return b
}

// jump is edgeAccel's boardJump.
func (a *edgeAccel) jump(in []float64, r RefreshResult) []float64 {
	if a.off {
		return nil
	}
	res := l1(r.Next, in)
	if !a.admit(in, r, res) {
		return nil
	}
	return a.extrapolate(in, r.Next, res)
}

// admit updates the run's state after a map from in with result r and
// residual res, and reports whether a jump may follow; it readies the
// mixer.
func (a *edgeAccel) admit(in []float64, r RefreshResult, res float64) bool {
	last, lastWin := a.last, a.lastWin
	a.last, a.lastWin = res, r.Window
	// The ratio of this map's residual to the last one's, on one window.
	ratio, prev := 0.0, a.ratio
	if last > 0 && r.Window == lastWin {
		ratio = res / last
	}
	a.ratio = ratio
	if a.k > 0 {
		if admit, handled := a.geoAdmit(in, r, res); handled || a.geoOnly {
			return admit
		}
	}
	if a.preJump > 0 {
		failed := !(res < accelGrow*a.preJump)
		a.preJump = 0
		if failed {
			// The jump raised the residual: back to plain maps, and
			// after accelFails such jumps for good.
			a.mix = nil
			a.fails++
			if a.fails >= accelFails {
				a.quit()
			}
			return false
		}
	}
	if a.mix != nil && r.Window != a.window {
		// The run crosses a border between pieces while accelerated:
		// it is near a border collision, where jumps may hold it back
		// (measured: a 4-map cycle about the border just below a loss);
		// plain maps from here on (or geometric jumps, quit).
		a.quit()
		return false
	}
	if res > accelEngage || !balancedMeanFor(r.BoardMean, a.lam, a.svc) || (a.ref != nil && l1(in, a.ref) > accelNear) {
		a.mix, a.streak = nil, 0
		return false
	}
	rate := accelRate
	if a.ref != nil {
		rate = accelRefRate
	}
	steady := false
	if ratio > 0 && (ratio <= rate || (a.k == 0 && a.steady(ratio, prev))) {
		steady = ratio > rate
		a.streak++
	} else {
		a.streak = 0
	}
	n := max(len(in), len(r.Next))
	if a.mix != nil && n <= a.mix.Len() {
		return true
	}
	// Start (again) only on a plain run seen contracting on one piece
	// for accelStreak maps.
	if a.mix == nil && a.streak < accelStreak {
		return false
	}
	a.mix = fixedpoint.NewAndersonMixer(n+accelPad, accelDepth, accelMaxCond)
	a.bound = accelMaxJump
	if a.ref != nil {
		a.bound = accelRefMaxJump
	}
	if steady {
		rho := max(ratio, prev)
		a.bound = max(a.bound, rho/(1-rho))
	}
	a.window = r.Window
	a.x, a.g = make([]float64, n+accelPad), make([]float64, n+accelPad)
	return true
}

// steady reports whether the residual ratios of two maps in a row on one
// window, ratio and prev, show a slow linear contraction: both at most
// the run's steadyRate (accelSteadyRate), and apart by at most
// accelSteady of their distance from 1, so that the contraction rate is
// known to a quarter of its gap and the jump bound ρ/(1 − ρ) (ρ the
// larger) to about as much.
func (a *edgeAccel) steady(ratio, prev float64) bool {
	rho := max(ratio, prev)
	return prev > 0 && rho <= a.steadyRate && math.Abs(ratio-prev) <= accelSteady*(1-rho)
}

// extrapolate is the jump from in, whose map gave next with residual
// res: Anderson's update, bounded and projected onto boards, or nil for
// the plain step.
func (a *edgeAccel) extrapolate(in, next []float64, res float64) []float64 {
	if a.geo > 0 {
		return a.geoJump(in, next, res)
	}
	clear(a.x)
	clear(a.g)
	copy(a.x, in)
	copy(a.g, next)
	if !a.mix.Step(a.x, a.g) {
		return nil // the plain step
	}
	if l1(a.x, a.g) > a.bound*res || !projectBoard(a.x) {
		a.mix = nil
		return nil
	}
	if a.k > 0 {
		// A jump into another window than the plain step's that lands
		// just past that window's start, where the saddle of a border
		// collision lies (Edge's saddleSide), is not made: the plain
		// step instead, and the mixer starts again.
		P := a.svc.PhaseCount()
		if v, phase := cutOf(a.x, P, a.k, a.lam, a.period); phase < edgeBorderBand && v != cutWindowOf(next, P, a.k, a.lam, a.period) {
			a.mix = nil
			return nil
		}
	}
	a.preJump = res
	a.jumps++
	return jumpState(a.x, a.svc.PhaseCount())
}

// jumpState returns a copy of the jumped state x without its trailing
// zeros, padded to whole levels: a phase-type state holds whole levels of
// P entries after the empty one (stateLen).
func jumpState(x []float64, P int) []float64 {
	m := len(x)
	for m > 1 && x[m-1] == 0 {
		m--
	}
	out := make([]float64, stateLen(stateLevels(m, P), P))
	copy(out, x[:m])
	return out
}

// geoAdmit is the geometric jump's part of admit, for the run's map from
// in with result r and residual res: it reports whether a geometric jump
// follows, and whether it decided (when not, admit goes on with
// Anderson's rules).
//
// Near λ = 1 a balanced board converges slowly along one direction: its
// mean moves towards the node's by the same factor ρ every map (0.96 to
// 0.99 at k = 5, λ = 0.99), while the shape of the board settles within a
// few maps, and with it the cut phase, locked to the mean, creeps across
// the windows. Anderson's update there fits differences that are nearly
// parallel and its jumps fail (measured at k = 5, λ = 0.99, x = 2.809688:
// 12 jumps, 4 of them failed, then 330 plain maps). The geometric jump
// reads ρ from the board means of the last maps on one window, three
// increments in a row steady as in edgeAccel.steady, and moves the board
// along its last step by ρ/(1 − ρ) of it (the sum of the geometric series
// of the steps to come: Lyusternik's extrapolation), shortened by halves
// until the board stays on the window of the plain step (a jump into the
// next window could land by the saddle of a border collision). Fast modes
// excited by the jump die within a map or two, so it is judged
// geoJudgeMaps maps later: it failed unless the residual is below the one
// before it. Rates up to accelRate are left to Anderson's update, except
// in the fallback (geoOnly), which has none: there any steady rate up to
// accelSteadyRate is taken (measured at h2:10, k = 5, λ = 0.9: a follow
// trial contracting at 0.875 on one window after its Anderson's update
// was given up, 125 maps plain, 31 so; the search 1,841 maps instead of
// 1,957, h2:2 943 instead of 1,007, h2:4 1,515 instead of 1,454). Once a
// geometric jump is made, a mean whose steps grow twice in a row ends the
// accelerated run (acceleration off): the run is leaving the node, or
// passing a lost node's ghost, and a failing run is made again plainly
// from its state before the first jump anyway (at h2:4 the run it ended
// was crossing into the node's window: 328 maps where the plain run makes
// 302).
//
// Edge uses it from the start for exponential sizes only. With
// phase-type sizes the state's mean has slow transients of its own (the
// phases), and the jump in Anderson's place measured worse: h2:4 at
// (5, 0.9) 1,667 maps against 1,481 without it, h2:10 2,310 against
// 2,338. There it is the fallback (withFallback, quit) where Anderson's
// update gives up: a run whose node lies at a border collision creeps
// across windows to it, Anderson's jumps across them fail, and the plain
// run then closes the last digits at the node's rate. Measured at h2:10,
// k = 5, λ = 0.9, the follow's trial at the edge, T = 2,812.594 (node
// radius 0.964): four failed jumps in 30 maps, then the plain run from
// its 11th map, 471 maps in all; with the fallback's second pass 79 maps
// in all, to the same fixed point (TestEdgeAccelFallback), and the
// search 1,957 maps instead of 2,338.
func (a *edgeAccel) geoAdmit(in []float64, r RefreshResult, res float64) (admit, handled bool) {
	if a.gWait > 0 {
		a.gWait--
		if a.gWait == 0 && !(res < a.gPre) {
			a.fails++
			a.off = a.fails >= accelFails
		}
		a.gN = 0
		return false, true
	}
	if r.Window != a.gWin {
		a.gN, a.gWin = 0, r.Window
	}
	a.gMean[0], a.gMean[1], a.gMean[2] = a.gMean[1], a.gMean[2], r.BoardMean
	a.gN = min(a.gN+1, 3)
	if a.gN < 3 {
		return false, false
	}
	d1 := stateMean(r.Next, a.svc.PhaseCount()) - a.gMean[2]
	d2, d3 := a.gMean[2]-a.gMean[1], a.gMean[1]-a.gMean[0]
	r1, r2 := d1/d2, d2/d3
	if a.gJumps > 0 && r1 > 1 && r2 > 1 {
		// After a geometric jump the mean speeds up, its steps in one
		// direction growing: the run leaves the node's neighbourhood
		// (or passes a lost node's ghost). Jumps from here on would only
		// be made again plainly if it fails: the accelerated run ends
		// (runOn).
		a.off = true
		return false, true
	}
	if a.preJump > 0 || res > accelEngage || !balancedMeanFor(r.BoardMean, a.lam, a.svc) || (a.ref != nil && l1(in, a.ref) > accelNear) {
		return false, false // an Anderson jump to judge first, or no jump
	}
	rho, least := max(r1, r2), accelRate
	if a.geoOnly {
		least = 0 // no Anderson's update to leave the faster rates to
	}
	if !(r1 > 0 && r2 > 0 && rho > least && rho <= accelSteadyRate && math.Abs(r1-r2) <= accelSteady*(1-rho)) {
		return false, false
	}
	a.geo, a.mix = r1, nil
	return true, true
}

// geoJump is the geometric jump from in, whose map gave next with
// residual res (geoAdmit), or nil for the plain step.
func (a *edgeAccel) geoJump(in, next []float64, res float64) []float64 {
	f := a.geo / (1 - a.geo)
	a.geo, a.gN, a.streak = 0, 0, 0
	P := a.svc.PhaseCount()
	want := cutWindowOf(next, P, a.k, a.lam, a.period)
	var x []float64
	for range geoHalvings + 1 {
		// next + f·(next − in), the secant at "μ" 1 + f through in at 0
		// and next at 1.
		x = fixedpoint.Extrapolate(x, in, next, 0, 1, 1+f)
		if !projectBoard(x) {
			return nil
		}
		if cutWindowOf(x, P, a.k, a.lam, a.period) == want {
			a.gWait, a.gPre = geoJudgeMaps, res
			a.jumps++
			a.gJumps++
			return jumpState(x, P)
		}
		f /= 2
	}
	return nil
}

// cutWindowOf returns the cut window of state x (P phases) for k
// dispatchers at load lam and period T: the v with τ_v ≤ T < τ_{v+1}
// (package doc, §2), the RefreshResult.Window of a map from x.
func cutWindowOf(x []float64, P, k int, lam, T float64) int {
	v, _ := cutOf(x, P, k, lam, T)
	return v
}

// cutOf is cutWindowOf with the cut phase (T − τ_v)/W_v.
func cutOf(x []float64, P, k int, lam, T float64) (int, float64) {
	w := float64(k) / lam
	levels := stateLevels(len(x), P)
	tau, F := 0.0, 0.0
	for v := range levels {
		if v == 0 {
			F += x[0]
		} else {
			for _, p := range x[1+(v-1)*P : min(1+v*P, len(x))] {
				F += p
			}
		}
		if wv := w * min(F, 1); wv > 0 {
			if tau+wv > T {
				return v, (T - tau) / wv
			}
			tau += wv
		}
	}
	n := math.Floor((T - tau) / w)
	return levels + int(n), (T - tau - n*w) / w
}
