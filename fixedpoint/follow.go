package fixedpoint

import (
	"fmt"
	"math"
)

// Corrector computes the point of a branch at μ from the predicted state
// guess, for Follow and Sweep (Sweep's guess is nil for a cold start). It
// reports whether the point it reached lies on the branch followed (for
// example: the iteration converged to a fixed point of the wanted kind).
// tight is false while Follow has not yet failed a step, when a looser
// tolerance will do: a point accepted too early shows at the next step,
// which starts from it. An error ends Follow and Sweep.
type Corrector func(mu float64, guess []float64, tight bool) (BranchPoint, bool, error)

// BranchPoint is one point of a branch of fixed points, of Follow or
// Sweep. A caller that keeps more of a point (an attractor, the start it
// came from) embeds BranchPoint in its own type or keeps it in State.
type BranchPoint struct {
	Mu float64
	// X is the fixed point (for a failed point, where the corrector
	// stopped).
	X []float64
	// Converged reports whether the corrector met its tolerance at Mu.
	Converged bool
	// Radius is the spectral radius of DF(X; Mu) (restricted to the
	// Subspace), or NaN when not computed.
	Radius float64
	// Residual and Iterations are the corrector's.
	Residual   float64
	Iterations int
	// Piece and Border locate a point of a piecewise-smooth family
	// (Follow): Piece numbers the smooth piece of the map on which X lies,
	// and Border is the distance from X to that piece's border in a
	// measure that falls to 0, smoothly in μ, as the branch approaches a
	// border collision (NaN when the branch does not approach one).
	Piece  int
	Border float64
	// State is what the corrector keeps of the point for its caller.
	State any
}

// Trial is one corrector call of Follow: μ, the predicted state and
// tight (Corrector).
type Trial struct {
	Mu    float64
	Guess []float64
	Tight bool
}

// TrialResult is the outcome of a Trial: the Corrector's results.
type TrialResult struct {
	Point BranchPoint
	OK    bool
	Err   error
}

// ChainCorrector corrects a chain of trials, each needed only when every
// one before it failed. It returns the results of trials[0], trials[1], …
// up to and including the first that succeeds or errs (all of them when
// every one fails), the same as the loop
//
//	for _, t := range trials {
//		pt, ok, err := correct(t.Mu, t.Guess, t.Tight)
//		// … keep the result; stop if ok or err != nil
//	}
//
// would return. It may run later trials alongside the first (on other
// cores), discarding those the loop would not have made.
type ChainCorrector func(trials []Trial) []TrialResult

// FollowSettings controls Follow. The zero value gives the defaults.
type FollowSettings struct {
	// MaxStep is the first and the largest relative step |Δμ|/μ, in
	// (0, 1). Zero means 0.1.
	MaxStep float64
	// RelTol: the loss of the branch is bracketed to RelTol/2 relative,
	// in (0, 1). Zero means 1e-4.
	RelTol float64
	// Project, if set, maps a predicted state back onto the state space
	// in place (for example: clip negative probabilities and renormalise)
	// and reports whether it could; when it cannot, the last point's state
	// is the prediction.
	Project func(x []float64) bool
	// Chain, if set, replaces the one-at-a-time corrector calls: at each
	// step Follow hands it the trial and the trials that would follow its
	// failures (the midpoints towards the last point, down to the end of
	// the bracket). They all start from the same last point, so their
	// predictions are known in advance; a caller with several cores can run
	// them at once. The result is the same as with the corrector alone.
	Chain ChainCorrector
	// CloseFirst, if set, says at which last points a failure costs far
	// more than a success (for an iteration, by a border collision: its
	// trials below linger by the lost node's ghost before they fail, while
	// the node above still contracts at a rate bounded away from 1). There
	// the trial after each failure that leaves the bracket within
	// closeFirstSpan closing widths is placed just inside the closing
	// width below the last point, where its failure ends the search (a
	// loss just below the last point costs one failure, not one per
	// bisection step); when it succeeds, the bracket is bisected from the
	// point it reached.
	CloseFirst func(last BranchPoint) bool
}

// Validate reports whether the settings are usable.
func (s *FollowSettings) Validate() error {
	if s.MaxStep != 0 && !(s.MaxStep > 0 && s.MaxStep < 1) {
		return fmt.Errorf("fixedpoint: FollowSettings.MaxStep = %v outside (0, 1)", s.MaxStep)
	}
	if s.RelTol != 0 && !(s.RelTol > 0 && s.RelTol < 1) {
		return fmt.Errorf("fixedpoint: FollowSettings.RelTol = %v outside (0, 1)", s.RelTol)
	}
	return nil
}

// FollowResult is the branch Follow or Sweep followed.
type FollowResult struct {
	// Points are the points accepted, from the start on; the last is the
	// last point reached (Follow: the lowest).
	Points []BranchPoint
	// Lost reports that the branch was lost: the corrector failed at
	// LostAt, within the tolerance (Follow: RelTol/2 relative below the
	// last point; Sweep: its Bisect) of the last point. Failed is the
	// corrector's point there. When the branch was not lost, Lost is
	// false and LostAt NaN.
	Lost   bool
	LostAt float64
	Failed BranchPoint
	// Steps counts the corrector's calls.
	Steps int
}

// Last returns the last point reached (Follow: the lowest).
func (r *FollowResult) Last() BranchPoint { return r.Points[len(r.Points)-1] }

// Follow follows a branch of fixed points of a piecewise-smooth family
// down in μ from start (a point of the branch, μ > 0) to muMin by
// natural-parameter continuation with a caller's corrector (for example
// the map's own iteration, warm-started): relative steps of MaxStep, grown
// by 3/2 after each success (up to MaxStep) until the first failure, and
// after a failure the midpoint of the bracket [failed μ, last point],
// until the bracket is narrower than RelTol/2 relative (Lost) or muMin is
// reached.
//
// The predictor is the secant through the last two points
// (Extrapolate, then Project) when they lie on one smooth piece (equal
// Piece), else the last point. Along a piece the branch approaches its
// border collision with Border → 0: while the last two points share their
// piece, the next trial is placed just above the collision predicted by
// BorderEstimate (regula falsi on Border): at 0.1 of the distance, at least
// RelTol/4 relative, above it, or RelTol/4 above it when it lies within
// RelTol relative, and when it is predicted within RelTol/2 below the last
// point, one trial at 0.45·RelTol below that point, which ends the search
// if it fails. A border collision is so bracketed in a few steps.
//
// An error of the corrector is returned with the branch so far; the start
// itself is not corrected again. s may be nil.
func Follow(correct Corrector, start BranchPoint, muMin float64, s *FollowSettings) (*FollowResult, error) {
	if correct == nil {
		panic("fixedpoint: Follow: nil corrector")
	}
	if s == nil {
		s = &FollowSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !(start.Mu > 0) || !finite(start.Mu) || !(muMin <= start.Mu) {
		return nil, fmt.Errorf("fixedpoint: follow: start μ = %v must be finite, positive and at least μmin = %v", start.Mu, muMin)
	}
	f := follower{correct: correct, s: *s, muMin: muMin,
		maxStep: orDefault(s.MaxStep, 0.1), relTol: orDefault(s.RelTol, 1e-4)}
	f.res = &FollowResult{Points: []BranchPoint{start}, LostAt: math.NaN()}
	return f.res, f.run()
}

// follower is the state of one Follow.
type follower struct {
	correct         Corrector
	s               FollowSettings
	muMin           float64
	maxStep, relTol float64
	res             *FollowResult
	closeNext       bool // the last trial failed (CloseFirst)
}

// closeFirstSpan is the widest bracket, in closing widths (RelTol/2
// relative), after whose failure CloseFirst tries the closing trial: four
// bisection steps.
const closeFirstSpan = 16

func (f *follower) run() error {
	res := f.res
	step := f.maxStep
	for {
		cur := res.Last()
		trials := f.chain(cur, step)
		for i, o := range f.evaluate(trials) {
			res.Steps++
			if o.Err != nil {
				return o.Err
			}
			f.closeNext = !o.OK
			if o.OK {
				res.Points = append(res.Points, o.Point)
				if trials[i].Mu == f.muMin {
					return nil
				}
				if math.IsNaN(res.LostAt) {
					step = min(1.5*step, f.maxStep)
				}
				break
			}
			res.LostAt, res.Failed = trials[i].Mu, o.Point
		}
		if last := res.Last(); !math.IsNaN(res.LostAt) && last.Mu-res.LostAt <= f.relTol*last.Mu/2 {
			res.Lost = true
			return nil
		}
	}
}

// chain returns the next trial below the last point cur and, with Chain
// set, the trials that would follow its failure, each as trial and
// predict would give them had the ones before failed, up to the one whose
// failure closes the bracket.
func (f *follower) chain(cur BranchPoint, step float64) []Trial {
	lost, closeNext := f.res.LostAt, f.closeNext
	defer func() { f.res.LostAt, f.closeNext = lost, closeNext }()
	var ts []Trial
	for {
		mu := f.trial(cur, step)
		// While no trial has failed, the branch is far from its end.
		tight := !(math.IsNaN(f.res.LostAt) && mu > f.muMin)
		ts = append(ts, Trial{Mu: mu, Guess: f.predict(cur, mu), Tight: tight})
		if f.s.Chain == nil || cur.Mu-mu <= f.relTol*cur.Mu/2 {
			return ts
		}
		f.res.LostAt, f.closeNext = mu, true // as if it failed
	}
}

// evaluate corrects trials with Chain, or with the corrector one at a
// time up to the first success or error.
func (f *follower) evaluate(trials []Trial) []TrialResult {
	if f.s.Chain != nil {
		return f.s.Chain(trials)
	}
	var out []TrialResult
	for _, t := range trials {
		pt, ok, err := f.correct(t.Mu, t.Guess, t.Tight)
		out = append(out, TrialResult{Point: pt, OK: ok, Err: err})
		if ok || err != nil {
			break
		}
	}
	return out
}

// trial returns the next μ below the last point cur: a relative step, or
// the midpoint of the bracket after a failure, moved just above a
// predicted border collision, and not below muMin.
func (f *follower) trial(cur BranchPoint, step float64) float64 {
	lost := f.res.LostAt
	var mu float64
	if !math.IsNaN(lost) {
		mu = cur.Mu - (cur.Mu-lost)/2
	} else {
		mu = cur.Mu * (1 - step)
	}
	if n := len(f.res.Points); n > 1 {
		pp := f.res.Points[n-2]
		if ts, ok := BorderEstimate(pp.Mu, pp.Border, cur.Mu, cur.Border); ok && pp.Piece == cur.Piece {
			margin := 0.25 * f.relTol * cur.Mu
			lo := mu
			if !math.IsNaN(lost) {
				lo = lost
			}
			switch {
			case cur.Mu-ts <= 2*margin:
				// The collision is predicted within the tolerance below
				// cur: one trial just inside it ends the search if it
				// fails, as it should.
				if t := cur.Mu - 1.8*margin; t > lo {
					mu = t
				}
			case ts+margin > lo:
				mu = ts + max(margin, 0.1*(cur.Mu-ts))
				if cur.Mu-ts < 4*margin {
					mu = ts + margin
				}
			}
		}
	}
	if width := f.relTol * cur.Mu / 2; f.s.CloseFirst != nil && f.closeNext && !math.IsNaN(lost) &&
		cur.Mu-mu > width && cur.Mu-lost <= closeFirstSpan*width && f.s.CloseFirst(cur) {
		mu = cur.Mu - 0.9*width
		f.closeNext = false
	}
	if mu <= f.muMin {
		mu = f.muMin
	}
	return mu
}

// predict is the secant predictor at mu from the last two points when
// they share their piece, else the last point's state.
func (f *follower) predict(cur BranchPoint, mu float64) []float64 {
	n := len(f.res.Points)
	if n < 2 {
		return cur.X
	}
	pp := f.res.Points[n-2]
	if pp.Piece != cur.Piece || pp.Mu == cur.Mu {
		return cur.X
	}
	out := Extrapolate(nil, pp.X, cur.X, pp.Mu, cur.Mu, mu)
	if f.s.Project != nil && !f.s.Project(out) {
		return cur.X
	}
	return out
}

// Extrapolate writes into dst (grown as needed, and returned) the secant
// predictor of natural-parameter continuation, x(μ) ≈ x1 + (x1 − x0)·(μ −
// μ1)/(μ1 − μ0) (Allgower & Georg 2003, §2.1), for points x0 at μ0 and x1
// at μ1 of one branch. Vectors of different lengths are padded with zeros
// (the shorter is read as zero beyond its end), so truncated probability
// vectors may be extrapolated directly; the caller clips and renormalises
// where its state space needs it. μ0 = μ1 returns a copy of x1.
func Extrapolate(dst, x0, x1 []float64, mu0, mu1, mu float64) []float64 {
	n := max(len(x0), len(x1))
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	f := 0.0
	if mu1 != mu0 {
		f = (mu - mu1) / (mu1 - mu0)
	}
	for i := range dst {
		var a, b float64
		if i < len(x1) {
			a = x1[i]
		}
		if i < len(x0) {
			b = x0[i]
		}
		dst[i] = a + f*(a-b)
	}
	return dst
}

// BorderEstimate locates a border collision from two points of a branch
// of a piecewise-smooth map: d0 and d1 are the distances of the fixed
// point from the border (a kink of the map) at μ0 and μ1, on the same side
// and smooth in μ between, so that the collision is the root of d(μ). It
// returns the secant root μ1 − d1(μ1 − μ0)/(d1 − d0) (regula falsi; exact
// for d linear in μ, as it is to first order near a border collision: di
// Bernardo et al. 2008, ch. 3) and whether it is usable: d1 and d0 finite
// and non-negative, d1 < d0 (the branch approaches the border in the
// direction μ0 → μ1), μ0 ≠ μ1.
func BorderEstimate(mu0, d0, mu1, d1 float64) (float64, bool) {
	if !(finite(d0) && finite(d1) && d1 >= 0 && d1 < d0 && mu0 != mu1) {
		return math.NaN(), false
	}
	return mu1 - d1*(mu1-mu0)/(d1-d0), true
}
