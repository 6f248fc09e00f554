package fixedpoint

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNotConverged is wrapped by the error a solver returns when it stops
// without meeting its tolerance (Arnoldi's Ritz residuals, the dense
// eigenvalue problem). The accompanying result holds what was reached.
var ErrNotConverged = errors.New("fixedpoint: not converged")

// Map evaluates dst = F(x). It must not retain or modify x, and len(dst) ==
// len(x). A non-nil error means F is not defined at x; the functions of
// this package wrap and return it.
type Map func(dst, x []float64) error

// JacobianFunc evaluates the n×n Jacobian DF(x) into jac, with jac[i][j] =
// ∂F_i/∂x_j.
type JacobianFunc func(jac *mat.Dense, x []float64) error

// KinkFunc describes the borders of a piecewise-smooth map. Kink(x, d)
// returns the largest t > 0 such that the open segment {x + s·d : 0 < s < t}
// crosses no border (+Inf if it crosses none). It must not modify its
// arguments. A negative or NaN value is read as 0. See the package
// documentation for how the finite differences use it.
type KinkFunc func(x, d []float64) float64

// Problem is a fixed-point problem x = F(x).
type Problem struct {
	// F is the map; it is required.
	F Map
	// Jacobian, if not nil, is DF and replaces finite differences in
	// Eigenvalues and Jacobian. (Arnoldi is matrix-free and always uses
	// finite differences.)
	Jacobian JacobianFunc
	// Kink, if not nil, keeps finite differences on one side of every
	// border of a piecewise-smooth F.
	Kink KinkFunc
}

func (p *Problem) check(who string, x0 []float64) {
	if p.F == nil {
		panic("fixedpoint: " + who + ": nil map")
	}
	if len(x0) == 0 {
		panic("fixedpoint: " + who + ": empty initial point")
	}
}

// counter wraps a map and counts its calls.
type counter struct {
	f     Map
	evals int
}

func (c *counter) eval(dst, x []float64) error {
	c.evals++
	return c.f(dst, x)
}

func normInf(v []float64) float64 {
	m := 0.0
	for _, e := range v {
		a := math.Abs(e)
		if math.IsNaN(a) {
			return math.NaN()
		}
		if a > m {
			m = a
		}
	}
	return m
}

func norm2(v []float64) float64 {
	// Scaled sum of squares avoids overflow for large components.
	scale, ssq := 0.0, 1.0
	for _, e := range v {
		if e == 0 {
			continue
		}
		a := math.Abs(e)
		if math.IsNaN(a) {
			return math.NaN()
		}
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	if math.IsInf(scale, 1) {
		return scale
	}
	return scale * math.Sqrt(ssq)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkNonNeg validates a tolerance field.
func checkNonNeg(name string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 1) {
		return fmt.Errorf("fixedpoint: %s = %v, want a finite value ≥ 0", name, v)
	}
	return nil
}

func checkCount(name string, v int) error {
	if v < 0 {
		return fmt.Errorf("fixedpoint: %s = %d, want ≥ 0", name, v)
	}
	return nil
}

func checkStep(name string, v float64) error {
	if v < 0 || v >= 1 || math.IsNaN(v) {
		return fmt.Errorf("fixedpoint: %s = %v, want 0 (default) or a relative step in (0, 1)", name, v)
	}
	return nil
}

// defaultStep is the relative finite-difference step sqrt(ε) (Kelley 1995, §5.6).
var defaultStep = math.Sqrt(0x1p-52)

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func orDefaultInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
