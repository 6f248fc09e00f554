package fixedpoint

import (
	"fmt"
	"math"
)

// SweepSettings controls Sweep. The zero value gives the defaults.
type SweepSettings struct {
	// Predict returns the guess at μ from the last point on the branch
	// (for example its state rescaled to μ), or nil for a cold start.
	// Nil means last.X.
	Predict func(last BranchPoint, mu float64) []float64
	// Bisect, when positive, ends the sweep at the first point off the
	// branch and bisects the loss in log μ (BisectGeometric) between the
	// last point on the branch and that one to Bisect relative, each
	// midpoint warm-started from the last point found on the branch.
	// Zero corrects every μ.
	Bisect float64
}

// Validate reports whether the settings are usable.
func (s *SweepSettings) Validate() error {
	if s.Bisect < 0 || !finite(s.Bisect) {
		return fmt.Errorf("fixedpoint: SweepSettings.Bisect = %v, want a finite value ≥ 0", s.Bisect)
	}
	return nil
}

// Sweep follows a branch over the parameters mus in the order given, with
// a caller's corrector (for example an attractor search from the guess):
// each μ is corrected from the guess Predict(previous point, μ) when the
// previous point lies on the branch (its corrector reported true), and
// from a cold start (guess nil) otherwise. start, if not nil, is a point
// on the branch before the first μ; without it the first μ starts cold.
// The corrector's tight argument is always true. Unlike Follow, the grid
// is the caller's (for example GeometricGrid); with Bisect the first loss
// is bisected in log μ.
//
// The result's Points are start and the points found on the branch, in
// the order corrected (a caller that wants the others keeps them from its
// corrector); with Bisect, Lost reports a loss between the last point and
// LostAt, the bisection's lower end, where the corrector gave Failed.
// Steps counts the corrector's calls. An error of the corrector is
// returned with the branch so far. s may be nil.
func Sweep(correct Corrector, start *BranchPoint, mus []float64, s *SweepSettings) (*FollowResult, error) {
	if correct == nil {
		panic("fixedpoint: Sweep: nil corrector")
	}
	if s == nil {
		s = &SweepSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	predict := s.Predict
	if predict == nil {
		predict = func(last BranchPoint, _ float64) []float64 { return last.X }
	}
	res := &FollowResult{LostAt: math.NaN()}
	if start != nil {
		res.Points = append(res.Points, *start)
	}
	// step corrects μ from the point p on the branch (nil: cold) and
	// keeps it when it lies on the branch.
	step := func(p *BranchPoint, mu float64) (BranchPoint, bool, error) {
		var guess []float64
		if p != nil {
			guess = predict(*p, mu)
		}
		res.Steps++
		pt, ok, err := correct(mu, guess, true)
		if err == nil && ok {
			res.Points = append(res.Points, pt)
		}
		return pt, ok, err
	}
	prev := start
	for _, mu := range mus {
		pt, ok, err := step(prev, mu)
		if err != nil {
			return res, err
		}
		prev = nil
		if ok {
			prev = &pt
			continue
		}
		if s.Bisect > 0 {
			res.Lost, res.LostAt, res.Failed = true, mu, pt
			break
		}
	}
	if !res.Lost || len(res.Points) == 0 {
		return res, nil // nothing lost, or nothing on the branch to bisect from
	}
	onBranch := func(mu float64) (bool, error) {
		last := res.Last()
		pt, ok, err := step(&last, mu)
		if err == nil && !ok {
			res.LostAt, res.Failed = mu, pt
		}
		return ok, err
	}
	_, _, err := BisectGeometric(onBranch, res.Last().Mu, res.LostAt, s.Bisect)
	return res, err
}

// GeometricGrid returns the grid from·r, from·r², … towards to (r = ratio
// when to > from, 1/ratio when to < from; ratio > 1), each point the last
// times r, ending with to itself in place of the first point that would
// pass it; empty when from = to. from and to must be positive.
func GeometricGrid(from, to, ratio float64) []float64 {
	if !(from > 0 && to > 0 && ratio > 1) {
		panic(fmt.Sprintf("fixedpoint: GeometricGrid(%v, %v, %v): want positive ends and a ratio above 1", from, to, ratio))
	}
	up := to > from
	if !up {
		ratio = 1 / ratio
	}
	var grid []float64
	for mu := from; mu != to; {
		mu *= ratio
		if (up && mu > to) || (!up && mu < to) {
			mu = to
		}
		grid = append(grid, mu)
	}
	return grid
}
