package fixedpoint

import (
	"errors"
	"fmt"
	"math"
)

// Family is a one-parameter family of problems: Family(μ) is the problem
// x = F(x; μ).
type Family func(mu float64) Problem

// ContinuationSettings controls Continue. The zero value gives the
// defaults.
type ContinuationSettings struct {
	// Step is the initial parameter step |Δμ|. Zero means |μ1 − μ0|/50.
	Step float64
	// MinStep: the branch is lost when the corrector fails at a step below
	// MinStep. Zero means 1e-6·|μ1 − μ0|.
	MinStep float64
	// MaxStep bounds |Δμ|. Zero means |μ1 − μ0|/10.
	MaxStep float64
	// MaxPoints bounds the number of branch points. Zero means 10000.
	MaxPoints int
	// Newton is the corrector's settings (its Subspace also restricts the
	// spectrum).
	Newton NewtonSettings
	// NoSpectrum skips the spectral radius at each point (it costs n, or r,
	// map evaluations); BranchPoint.Radius is then NaN.
	NoSpectrum bool
}

// Validate reports whether the settings are usable.
func (s *ContinuationSettings) Validate() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"Step", s.Step}, {"MinStep", s.MinStep}, {"MaxStep", s.MaxStep}} {
		if err := checkNonNeg("ContinuationSettings."+c.name, c.v); err != nil {
			return err
		}
	}
	if s.MaxStep != 0 && s.Step > s.MaxStep {
		return fmt.Errorf("fixedpoint: ContinuationSettings.Step = %v exceeds MaxStep = %v", s.Step, s.MaxStep)
	}
	if err := checkCount("ContinuationSettings.MaxPoints", s.MaxPoints); err != nil {
		return err
	}
	return s.Newton.Validate()
}

// BranchPoint is one point of a branch of fixed points, of Continue,
// Follow or Sweep. A caller that keeps more of a point (an attractor, the
// start it came from) embeds BranchPoint in its own type or keeps it in
// State.
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
	// Residual and Iterations are the corrector's (Newton's in Continue).
	Residual   float64
	Iterations int
	// Piece and Gap locate a point of a piecewise-smooth family (Follow;
	// Continue leaves them zero): Piece numbers the smooth piece of the
	// map on which X lies, and Gap is the distance from X to that piece's
	// border in a measure that falls to 0, smoothly in μ, as the branch
	// approaches a border collision (NaN when the branch does not
	// approach one).
	Piece int
	Gap   float64
	// State is what the corrector keeps of the point for its caller.
	State any
}

// Branch is the result of Continue.
type Branch struct {
	// Points are the converged points in order of μ from μ0, followed, when
	// the branch was lost, by the failed attempt closest to the last
	// converged point (Converged false).
	Points []BranchPoint
	// Complete reports whether the branch reached μ1.
	Complete bool
	// Lost reports whether the corrector failed at a step below MinStep:
	// the branch ends between LostAfter and LostAt.
	Lost                bool
	LostAfter, LostAt   float64
	Evaluations, Solves int
}

// Continue follows a branch of fixed points of F(·; μ) from (μ0, x0) towards
// μ1 by natural-parameter continuation (Allgower & Georg 2003, §1.2 and
// ch. 2): a secant predictor x̂ = x_k + (x_k − x_{k−1})·(μ − μ_k)/(μ_k −
// μ_{k−1}) (the constant predictor x_k at the first step), a Newton
// corrector, step growth by 3/2 after a success up to MaxStep, and step
// halving after a failure. When the step falls below MinStep the branch is
// reported lost between the last converged μ (LostAfter) and the failed one
// (LostAt), which brackets a fold or a border collision to within
// 2·MinStep; natural-parameter continuation cannot turn around a fold.
//
// Newton at μ0 from x0 must converge. A point is not checked to lie on the
// same branch as its predecessor; a jump to another branch shows as a jump
// in X or in Radius. When the branch is lost, or MaxPoints is reached, the
// error wraps ErrNotConverged. s may be nil.
func Continue(fam Family, x0 []float64, mu0, mu1 float64, s *ContinuationSettings) (*Branch, error) {
	if fam == nil {
		panic("fixedpoint: Continue: nil family")
	}
	if s == nil {
		s = &ContinuationSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !finite(mu0) || !finite(mu1) || mu0 == mu1 {
		return nil, fmt.Errorf("fixedpoint: continue: parameter range [%v, %v] must be finite and non-empty", mu0, mu1)
	}
	span := math.Abs(mu1 - mu0)
	step := orDefault(s.Step, span/50)
	minStep := orDefault(s.MinStep, 1e-6*span)
	maxStep := orDefault(s.MaxStep, math.Max(span/10, step))
	maxPoints := orDefaultInt(s.MaxPoints, 10000)
	dir := math.Copysign(1, mu1-mu0)

	br := &Branch{LostAfter: math.NaN(), LostAt: math.NaN()}
	pt, cerr, fatal := correctPoint(fam, s, br, mu0, x0)
	if fatal != nil {
		return br, fatal
	}
	if cerr != nil {
		return br, fmt.Errorf("fixedpoint: continue: no fixed point at μ0 = %v: %w", mu0, cerr)
	}
	br.Points = append(br.Points, pt)
	var prev *BranchPoint
	xp := make([]float64, len(x0))
	for {
		cur := br.Points[len(br.Points)-1]
		if cur.Mu == mu1 {
			br.Complete = true
			return br, nil
		}
		if len(br.Points) >= maxPoints {
			return br, fmt.Errorf("fixedpoint: continue: %d points reached at μ = %v: %w", maxPoints, cur.Mu, ErrNotConverged)
		}
		mu := cur.Mu + dir*step
		if dir*(mu1-mu) <= 0.5*minStep {
			mu = mu1
		}
		// Secant predictor.
		copy(xp, cur.X)
		if prev != nil {
			t := (mu - cur.Mu) / (cur.Mu - prev.Mu)
			for i := range xp {
				xp[i] += t * (cur.X[i] - prev.X[i])
			}
		}
		next, cerr, fatal := correctPoint(fam, s, br, mu, xp)
		if fatal != nil {
			return br, fatal
		}
		if cerr == nil {
			prev = &cur
			br.Points = append(br.Points, next)
			step = math.Min(1.5*step, maxStep)
			continue
		}
		step /= 2
		if step < minStep {
			br.Lost = true
			br.LostAfter, br.LostAt = cur.Mu, mu
			br.Points = append(br.Points, next)
			if errors.Is(cerr, ErrNotConverged) {
				return br, fmt.Errorf("fixedpoint: continue: branch lost between μ = %v and μ = %v: %w", cur.Mu, mu, cerr)
			}
			return br, fmt.Errorf("fixedpoint: continue: branch lost between μ = %v and μ = %v: %w (%w)", cur.Mu, mu, ErrNotConverged, cerr)
		}
	}
}

// correctPoint runs Continue's corrector at μ from x. A failed corrector
// (no convergence, or a map error, as the map may be undefined past the
// branch's end) gives a point with Converged false and its error in cerr;
// a failure of the spectrum at a converged point is fatal.
func correctPoint(fam Family, s *ContinuationSettings, br *Branch, mu float64, x []float64) (pt BranchPoint, cerr, fatal error) {
	p := fam(mu)
	res, err := Newton(p, x, &s.Newton)
	br.Solves++
	pt = BranchPoint{Mu: mu, Radius: math.NaN()}
	if res == nil {
		return pt, nil, err
	}
	br.Evaluations += res.Evaluations
	pt.X, pt.Residual, pt.Iterations = res.X, res.Residual, res.Iterations
	if err != nil {
		return pt, err, nil
	}
	pt.Converged = true
	if s.NoSpectrum {
		return pt, nil, nil
	}
	ev, err := Eigenvalues(p, res.X, &SpectrumSettings{Step: s.Newton.Step, Subspace: s.Newton.Subspace})
	if err != nil {
		return pt, nil, fmt.Errorf("fixedpoint: continue: spectrum at μ = %v: %w", mu, err)
	}
	if p.Jacobian == nil {
		r := len(res.X)
		if s.Newton.Subspace != nil {
			_, r = s.Newton.Subspace.Dims()
		}
		br.Evaluations += r + 1
	}
	pt.Radius = SpectralRadius(ev)
	return pt, nil, nil
}
