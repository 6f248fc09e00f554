package fixedpoint_test

import (
	"fmt"
	"math"

	"herd/fixedpoint"
)

// The logistic map's fixed point 1 − 1/r has multiplier 2 − r.
func ExampleEigenvalues() {
	const r = 2.5
	p := fixedpoint.Problem{F: func(dst, x []float64) error {
		dst[0] = r * x[0] * (1 - x[0])
		return nil
	}}
	ev, _ := fixedpoint.Eigenvalues(p, []float64{1 - 1/r}, nil)
	fmt.Printf("λ = %.6f, ρ = %.6f\n", real(ev[0]), fixedpoint.SpectralRadius(ev))
	// Output: λ = -0.500000, ρ = 0.500000
}

// A linear map x ↦ diag(0.9, 0.5, 0.2, …)·x: Arnoldi finds the two largest
// multipliers from Jacobian–vector products.
func ExampleArnoldi() {
	d := []float64{0.9, 0.5, 0.2, 0.1, 0.05, 0.01}
	p := fixedpoint.Problem{F: func(dst, x []float64) error {
		for i := range dst {
			dst[i] = d[i] * x[i]
		}
		return nil
	}}
	res, err := fixedpoint.Arnoldi(p, make([]float64, len(d)), 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f %.6f\n", real(res.Values[0]), real(res.Values[1]))
	// Output: 0.900000 0.500000
}

// A border collision followed down in μ: the map x ↦ x/2 + μ/2 for x ≥ 1
// and x ↦ 3x − 2 for x < 1 has the stable fixed point x = μ while μ ≥ 1;
// below, iterates fall under the border and run away. The corrector is the
// map's own iteration from the prediction, and Border = x − 1 lets Follow
// aim at the collision μ = 1 from the first two points.
func ExampleFollow() {
	f := func(x, mu float64) float64 {
		if x >= 1 {
			return x/2 + mu/2
		}
		return 3*x - 2
	}
	correct := func(mu float64, guess []float64, tight bool) (fixedpoint.BranchPoint, bool, error) {
		x := guess[0]
		for i := 0; i < 200 && x > -1e6; i++ {
			x = f(x, mu)
		}
		ok := x >= 1 && math.Abs(f(x, mu)-x) <= 1e-12
		return fixedpoint.BranchPoint{Mu: mu, X: []float64{x}, Converged: ok, Border: x - 1}, ok, nil
	}
	start := fixedpoint.BranchPoint{Mu: 3, X: []float64{3}, Border: 2}
	br, err := fixedpoint.Follow(correct, start, 0.5, &fixedpoint.FollowSettings{RelTol: 1e-6})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("lost %v between μ = %.7f and %.7f after %d steps\n", br.Lost, br.LostAt, br.Last().Mu, br.Steps)
	// Output: lost true between μ = 0.9999996 and 1.0000000 after 17 steps
}

// The smallest integer n with n² ≥ 2000, by bisection on [0, 2000].
func ExampleBisectInt() {
	n, err := fixedpoint.BisectInt(func(n int) (bool, error) { return n*n >= 2000, nil }, 0, 2000, 1)
	fmt.Println(n, err)
	// Output: 45 <nil>
}

// Where 1/μ falls below 0.01, bracketed in log μ to 0.1% from [1, 10⁶].
func ExampleBisectGeometric() {
	good, bad, err := fixedpoint.BisectGeometric(func(mu float64) (bool, error) { return 1/mu >= 0.01, nil }, 1, 1e6, 1e-3)
	fmt.Printf("%.3f %.3f %v\n", good, bad, err)
	// Output: 99.972 100.056 <nil>
}

// Classifying where an iteration heads with an Orbit: the logistic map at
// r = 3.5 settles on its period-4 cycle, which a period search up to 8
// with the max norm finds.
func ExampleOrbit() {
	const r = 3.5
	dist := func(a, b []float64) float64 { return math.Abs(a[0] - b[0]) }
	o := fixedpoint.NewOrbit(8, []float64{0.3}, dist)
	for n := 0; n < 1000; n++ {
		x := o.Back(0)[0]
		o.Push([]float64{r * x * (1 - x)})
		if per := o.Period(1e-12, 1e-6, 1); per > 0 {
			fmt.Printf("period %d after %d maps, orbit starting %.4f\n", per, o.Len(), o.Back(per - 1)[0])
			return
		}
	}
	// Output: period 4 after 43 maps, orbit starting 0.3828
}

// The Jacobian of a piecewise-linear map at a point just left of its kink
// x = 1: the one-sided difference of the piece the point lies on (slope
// 0.5), not the average across the kink, because Kink reports the border.
func ExampleJacobian() {
	p := fixedpoint.Problem{
		F: func(dst, x []float64) error {
			if x[0] < 1 {
				dst[0] = 0.5 * x[0]
			} else {
				dst[0] = 2*x[0] - 1.5
			}
			return nil
		},
		Kink: func(x, d []float64) float64 {
			if t := (1 - x[0]) / d[0]; t > 0 {
				return t
			}
			return math.Inf(1)
		},
	}
	jac, err := fixedpoint.Jacobian(p, []float64{1 - 1e-9}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", jac.At(0, 0))
	// Output: 0.500000
}

// The stable fixed point x = 1 − 1/μ of the logistic map x ↦ μx(1 − x),
// swept up in μ on a geometric grid from μ = 1.5: the corrector is
// Newton's method from the last point (or from x = 0.5 cold) and accepts
// the point while it is stable, |μ(1 − 2x)| < 1. The first loss is
// bisected in log μ: the period-doubling at μ = 3.
func ExampleSweep() {
	correct := func(mu float64, guess []float64, _ bool) (fixedpoint.BranchPoint, bool, error) {
		x := 0.5
		if guess != nil {
			x = guess[0]
		}
		for i := 0; i < 50; i++ {
			x -= (mu*x*(1-x) - x) / (mu*(1-2*x) - 1)
		}
		ok := math.Abs(mu*(1-2*x)) < 1
		return fixedpoint.BranchPoint{Mu: mu, X: []float64{x}, Converged: ok}, ok, nil
	}
	grid := fixedpoint.GeometricGrid(1.5, 4, 1.25)
	sw, err := fixedpoint.Sweep(correct, nil, grid, &fixedpoint.SweepSettings{Bisect: 1e-4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("grid %.4g\n", grid)
	last := sw.Last()
	fmt.Printf("lost %v between μ = %.4f (x = %.4f) and %.4f after %d steps\n", sw.Lost, last.Mu, last.X[0], sw.LostAt, sw.Steps)
	// Output:
	// grid [1.875 2.344 2.93 3.662 4]
	// lost true between μ = 2.9999 (x = 0.6667) and 3.0001 after 16 steps
}

// The secant predictor between two truncated probability vectors of
// different lengths: the shorter is read as zero beyond its end, so the
// prediction at μ = 3 from μ = 1 and 2 has the longer length (a negative
// entry is the caller's to clip).
func ExampleExtrapolate() {
	x0 := []float64{0.5, 0.5}      // at μ = 1
	x1 := []float64{0.4, 0.4, 0.2} // at μ = 2
	fmt.Printf("%.1f\n", fixedpoint.Extrapolate(nil, x0, x1, 1, 2, 3))
	// Output: [0.3 0.3 0.4]
}

// A fixed point x(μ) = 2μ approaching the border x = 1 (distance d = 1 − 2μ):
// two points of the branch predict the collision at μ = 1/2.
func ExampleBorderEstimate() {
	dist := func(mu float64) float64 { return 1 - 2*mu }
	mu, ok := fixedpoint.BorderEstimate(0.1, dist(0.1), 0.3, dist(0.3))
	fmt.Printf("%.3f %v\n", mu, ok)
	// Output: 0.500 true
}
