package fixedpoint

import (
	"errors"
	"math"
	"testing"
)

// Newton with kink-aware differences converges to each fixed point of the
// border-collision map on its own side of the border, from starts just
// beside the border where a centred or straddling step would mix slopes.
func TestBorderCollisionNewton(t *testing.T) {
	t.Parallel()
	const mu = 0.499
	cases := []struct {
		name string
		x0   float64
		want float64
	}{
		{"stable/left", 0.2, 2 * mu},              // x_L = μ/(1−a) = 2μ, see borderCollision
		{"stable/nearBorder", 1 - 1e-9, 2 * mu},   // start 1e-9 left of the border
		{"saddle/right", 1.3, 1.5 - mu},           // x_R = 3/2 − μ
		{"saddle/nearBorder", 1 + 1e-9, 1.5 - mu}, // start 1e-9 right of the border
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := Newton(borderCollision(mu, true), []float64{c.x0}, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "X", res.X, []float64{c.want}, 1e-12)
			// On a piece the map is affine, so Newton with the exact one-sided
			// slope lands on the fixed point in one step.
			if res.Iterations != 1 {
				t.Errorf("iterations %d, want 1", res.Iterations)
			}
		})
	}
}

// The finite-difference Jacobian near the border is the one-sided slope of
// the piece containing x, not an average across the kink.
func TestBorderCollisionOneSidedJacobian(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		x    float64
		want float64
	}{
		{"left/far", 0.5, bcA},
		{"left/1e-9", bcBorder - 1e-9, bcA},   // the forward step (1.5e-8) would straddle the border
		{"left/1e-14", bcBorder - 1e-14, bcA}, // far inside the forward step
		{"right/1e-9", bcBorder + 1e-9, bcB},
		{"right/far", 3, bcB},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			jac, err := Jacobian(borderCollision(0.3, true), []float64{c.x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Affine pieces: the one-sided difference is exact up to the
			// rounding of x + h, about ε·|x|/h ≲ 1e-7 relative.
			if got := jac.At(0, 0); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("DF = %.12g, want %v (diff %.3g)", got, c.want, got-c.want)
			}
			ev, err := Eigenvalues(borderCollision(0.3, true), []float64{c.x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(real(ev[0])-c.want) > 1e-6 {
				t.Errorf("eigenvalue %v, want %v", ev[0], c.want)
			}
		})
	}
	// Without the KinkFunc the forward step from 1 − 1e-9 crosses the border
	// and mixes the slopes: the control shows the test can fail.
	jac, err := Jacobian(borderCollision(0.3, false), []float64{bcBorder - 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jac.At(0, 0); math.Abs(got-bcA) < 0.1 {
		t.Errorf("kink-blind DF = %v unexpectedly equals the left slope", got)
	}
}

// hasStableFixedPoint is the predicate used by Locate: Newton from the left
// side converges and the fixed point is linearly stable.
func hasStableFixedPoint(p Problem, x0 []float64, sub Subspace) bool {
	res, err := Newton(p, x0, &NewtonSettings{Subspace: sub})
	if err != nil {
		return false
	}
	ev, err := Eigenvalues(p, res.X, &SpectrumSettings{Subspace: sub})
	return err == nil && SpectralRadius(ev) < 1
}

func TestLocate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		pred   func(float64) bool
		lo, hi float64
		set    LocateSettings
		want   float64 // the change point, from the source named in each case
		tol    float64
	}{
		// Flip of the logistic map at r = 3, where 2 − r = −1 (logistic).
		{"logisticFlip", func(r float64) bool { return hasStableFixedPoint(logistic(r), []float64{0.6}, nil) },
			2, 3.5, LocateSettings{AbsTol: 1e-7}, 3, 1e-6},
		// Border collision at μ = 1 − a = 1/2 (borderCollision).
		{"borderCollision", func(mu float64) bool {
			return hasStableFixedPoint(borderCollision(mu, true), []float64{0}, nil)
		}, 0, 1, LocateSettings{AbsTol: 1e-9, Points: 7}, bcMuC, 1e-8},
		// Plain iteration from a low state converges below the collision and
		// runs away above it (the herd protocol of the model).
		{"borderCollisionIterate", func(mu float64) bool {
			_, err := Iterate(borderCollision(mu, false), []float64{0}, &IterateSettings{MaxIter: 5000})
			return err == nil
		}, 0, 1, LocateSettings{AbsTol: 1e-6}, bcMuC, 1e-6},
		// A step at a known point with a relative tolerance.
		{"stepRelTol", func(x float64) bool { return x >= 1234.5 }, 1000, 2000, LocateSettings{RelTol: 1e-10}, 1234.5, 2000 * 1e-10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			seen := map[float64]bool{}
			calls := 0
			pred := func(mu float64) bool {
				calls++
				if seen[mu] {
					t.Errorf("μ = %v evaluated twice", mu)
				}
				seen[mu] = true
				return c.pred(mu)
			}
			res, err := Locate(pred, c.lo, c.hi, &c.set)
			if err != nil {
				t.Fatal(err)
			}
			if !(res.Lo <= c.want && c.want <= res.Hi) || res.Hi-res.Lo > c.tol || res.ValueLo == res.ValueHi {
				t.Errorf("bracket [%.12g, %.12g] (P %v, %v), want one of width ≤ %v holding %v", res.Lo, res.Hi, res.ValueLo, res.ValueHi, c.tol, c.want)
			}
			if calls != len(res.Evaluations) {
				t.Errorf("%d calls, %d recorded evaluations", calls, len(res.Evaluations))
			}
		})
	}
	t.Run("noBracket", func(t *testing.T) {
		t.Parallel()
		_, err := Locate(func(float64) bool { return true }, 0, 1, &LocateSettings{Points: 5})
		if !errors.Is(err, ErrNoBracket) {
			t.Errorf("err = %v, want ErrNoBracket", err)
		}
	})
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		res, err := Locate(func(x float64) bool { return x > 0.3 }, 0, 1, &LocateSettings{AbsTol: 1e-12, MaxEval: 10})
		if !errors.Is(err, ErrNotConverged) || len(res.Evaluations) != 10 || !(res.Lo <= 0.3 && 0.3 <= res.Hi) {
			t.Errorf("err = %v, %d evaluations, bracket [%v, %v]", err, len(res.Evaluations), res.Lo, res.Hi)
		}
	})
	t.Run("badInterval", func(t *testing.T) {
		t.Parallel()
		if _, err := Locate(func(float64) bool { return true }, 1, 0, nil); err == nil {
			t.Error("accepted lo > hi")
		}
	})
}

// Continuation along the stable branch x_L = 2μ of the border-collision map
// loses it at the collision μ = 1/2 with spectral radius a = 1/2 throughout.
func TestContinueBorderCollision(t *testing.T) {
	t.Parallel()
	fam := func(mu float64) Problem { return borderCollision(mu, true) }
	const minStep = 1e-7
	br, err := Continue(fam, []float64{0}, 0, 1, &ContinuationSettings{Step: 0.05, MinStep: minStep})
	if !errors.Is(err, ErrNotConverged) || !br.Lost || br.Complete {
		t.Fatalf("err = %v, lost %v, complete %v; want the branch lost", err, br.Lost, br.Complete)
	}
	// The collision parameter 1 − a = 1/2 (borderCollision) lies in the
	// reported bracket of width < 2·MinStep.
	if !(br.LostAfter <= bcMuC && bcMuC < br.LostAt && br.LostAt-br.LostAfter < 2*minStep) {
		t.Errorf("lost between %v and %v, want a bracket of width < %v around %v", br.LostAfter, br.LostAt, 2*minStep, bcMuC)
	}
	last := br.Points[len(br.Points)-1]
	if last.Converged || last.Mu != br.LostAt {
		t.Errorf("last point %+v, want the failed attempt at %v", last, br.LostAt)
	}
	for _, pt := range br.Points[:len(br.Points)-1] {
		if !pt.Converged || math.Abs(pt.X[0]-2*pt.Mu) > 1e-12 || math.Abs(pt.Radius-bcA) > 1e-6 {
			t.Errorf("point %+v: want x = 2μ and radius %v", pt, bcA)
		}
	}
}

// On a smooth problem continuation reaches the end: the logistic fixed point
// 1 − 1/r from r = 1.5 to 3.5 with radius |2 − r|, through the flip at 3
// (natural continuation does not notice a flip; the radius does).
func TestContinueLogistic(t *testing.T) {
	t.Parallel()
	fam := func(r float64) Problem { return logistic(r) }
	br, err := Continue(fam, []float64{0.3}, 1.5, 3.5, &ContinuationSettings{Newton: NewtonSettings{Tol: 1e-12}})
	if err != nil {
		t.Fatal(err)
	}
	if !br.Complete || br.Points[len(br.Points)-1].Mu != 3.5 {
		t.Fatalf("complete %v, last μ %v", br.Complete, br.Points[len(br.Points)-1].Mu)
	}
	for _, pt := range br.Points {
		if math.Abs(pt.X[0]-(1-1/pt.Mu)) > 1e-10 || math.Abs(pt.Radius-math.Abs(2-pt.Mu)) > 1e-6 {
			t.Errorf("r = %v: x = %v (want %v), radius %v (want %v)", pt.Mu, pt.X[0], 1-1/pt.Mu, pt.Radius, math.Abs(2-pt.Mu))
		}
	}
}
