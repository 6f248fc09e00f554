package fixedpoint

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NewtonSettings controls Newton. The zero value gives the defaults.
type NewtonSettings struct {
	// Tol: stop when ‖F(x) − x‖∞ ≤ Tol. Zero means 1e-10.
	Tol float64
	// MaxIter is the largest number of Newton steps. Zero means 50.
	MaxIter int
	// Step is the relative finite-difference step (see DiffSettings). Zero
	// means sqrt(ε).
	Step float64
	// MaxBacktrack is the largest number of step halvings in the line
	// search. Zero means 30.
	MaxBacktrack int
	// Subspace, if not nil, restricts Newton steps to S: x stays in x0 + S
	// (see the package documentation on affine constraints).
	Subspace Subspace
}

// Validate reports whether the settings are usable.
func (s *NewtonSettings) Validate() error {
	if err := checkNonNeg("NewtonSettings.Tol", s.Tol); err != nil {
		return err
	}
	if err := checkCount("NewtonSettings.MaxIter", s.MaxIter); err != nil {
		return err
	}
	if err := checkStep("NewtonSettings.Step", s.Step); err != nil {
		return err
	}
	return checkCount("NewtonSettings.MaxBacktrack", s.MaxBacktrack)
}

// armijo is the sufficient-decrease constant α of the line search
// ‖G(x + tδ)‖₂ ≤ (1 − αt)‖G(x)‖₂ (Kelley 1995, (8.1)).
const armijo = 1e-4

// newtonState holds the current point of a Newton iteration.
type newtonState struct {
	x, fx, g []float64 // x, F(x), G(x) = F(x) − x
	r2       float64   // ‖G(x)‖₂
	xt, ft   []float64 // trial point and its image
}

func newNewtonState(x0 []float64) *newtonState {
	n := len(x0)
	return &newtonState{x: clone(x0), fx: make([]float64, n), g: make([]float64, n),
		xt: make([]float64, n), ft: make([]float64, n)}
}

func (st *newtonState) setG() {
	for i := range st.g {
		st.g[i] = st.fx[i] - st.x[i]
	}
	st.r2 = norm2(st.g)
}

// lineSearch tries x + tδ for t = 1, 1/2, 1/4, … until the Armijo condition
// holds, moving the state there. Kelley's Algorithm nsola uses a
// three-point parabolic model to choose t; plain halving is used here. A
// trial point at which F fails or is not finite counts as a failed trial.
func (st *newtonState) lineSearch(f *counter, delta []float64, maxBack int) bool {
	t := 1.0
	for b := 0; b <= maxBack; b++ {
		for i := range st.xt {
			st.xt[i] = st.x[i] + t*delta[i]
		}
		if err := f.eval(st.ft, st.xt); err == nil {
			ss := 0.0
			for i := range st.ft {
				d := st.ft[i] - st.xt[i]
				ss += d * d
			}
			if r := math.Sqrt(ss); finite(r) && r <= (1-armijo*t)*st.r2 {
				st.x, st.xt = st.xt, st.x
				st.fx, st.ft = st.ft, st.fx
				st.setG()
				return true
			}
		}
		t /= 2
	}
	return false
}

// Newton solves G(x) = F(x) − x = 0 by Newton's method with a dense
// Jacobian and an Armijo backtracking line search (Kelley 1995, Algorithm
// nsola, §8.2). Each step solves
//
//	(DF(x) − I) δ = −G(x)
//
// by LU factorisation (gonum/mat), with DF from Problem.Jacobian or from
// n one-sided, kink-aware finite differences (see Jacobian), and then
// halves t until ‖G(x + tδ)‖₂ ≤ (1 − 10⁻⁴t)‖G(x)‖₂.
//
// With a Subspace S of dimension r and basis Q, the step is δ = Qy with
//
//	(QᵀDF(x)Q − I_r) y = −QᵀG(x),
//
// and DF(x)Q costs r differences along the columns of Q, so x stays in
// x0 + S and the singular direction of a conserved quantity is removed.
//
// Result.X is the last iterate and Result.Residual = ‖G(X)‖∞. A singular
// Newton matrix or a failed line search stops with Status Stalled. The
// error is nil exactly when Status is Converged. s may be nil.
func Newton(p Problem, x0 []float64, s *NewtonSettings) (*Result, error) {
	p.check("Newton", x0)
	if s == nil {
		s = &NewtonSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(x0)
	checkSubspace("Newton", s.Subspace, n)
	tol := orDefault(s.Tol, 1e-10)
	maxIter := orDefaultInt(s.MaxIter, 50)
	maxBack := orDefaultInt(s.MaxBacktrack, 30)

	f := &counter{f: p.F}
	df := newDiffer(&p, f, n, s.Step)
	st := newNewtonState(x0)
	res := &Result{}
	fail := func(status Status, err error) (*Result, error) {
		res.X, res.Status, res.Evaluations = clone(st.x), status, f.evals
		res.Residual = normInf(st.g)
		return res, err
	}
	if err := f.eval(st.fx, st.x); err != nil {
		return fail(MapFailed, fmt.Errorf("fixedpoint: newton: map at initial point: %w", err))
	}
	st.setG()

	sys := newNewtonSystem(n, s.Subspace)
	delta := make([]float64, n)

	for k := 0; ; k++ {
		res.Iterations = k
		rinf := normInf(st.g)
		if !finite(rinf) {
			return fail(Diverged, fmt.Errorf("fixedpoint: newton: non-finite residual at iteration %d: %w", k, ErrNotConverged))
		}
		if rinf <= tol {
			res.X, res.Status, res.Evaluations, res.Residual = clone(st.x), Converged, f.evals, rinf
			return res, nil
		}
		if k == maxIter {
			return fail(NotConverged, fmt.Errorf("fixedpoint: newton: residual %.3g after %d steps: %w", rinf, k, ErrNotConverged))
		}
		if status, err := sys.direction(df, st, delta, k); err != nil {
			return fail(status, err)
		}
		if !st.lineSearch(f, delta, maxBack) {
			res.Iterations = k + 1
			return fail(Stalled, fmt.Errorf("fixedpoint: newton: line search failed at iteration %d (residual %.3g): %w", k, rinf, ErrNotConverged))
		}
	}
}

// newtonSystem is the workspace of Newton's linear systems, on R^n or on
// a subspace with basis q (n×r).
type newtonSystem struct {
	n, r   int
	q      *mat.Dense
	jac    *mat.Dense // DF or DF·Q
	a      mat.Dense
	lu     mat.LU
	rhs, y *mat.VecDense
}

func newNewtonSystem(n int, sub Subspace) *newtonSystem {
	ns := &newtonSystem{n: n, r: n}
	if sub != nil {
		ns.q = sub.Basis()
		_, ns.r = ns.q.Dims()
	}
	ns.jac = mat.NewDense(n, ns.r, nil)
	ns.rhs = mat.NewVecDense(ns.r, nil)
	ns.y = mat.NewVecDense(ns.r, nil)
	return ns
}

// direction writes into delta the Newton step at st: the solution of
// (DF − I)δ = −G, or δ = Qy with (QᵀDFQ − I)y = −QᵀG. A failure returns
// the status and error Newton ends with at iteration k.
func (ns *newtonSystem) direction(df *differ, st *newtonState, delta []float64, k int) (Status, error) {
	n, r, q := ns.n, ns.r, ns.q
	// Newton matrix A = DF − I (or QᵀDFQ − I) and right side −G (or −QᵀG).
	var err error
	if q == nil {
		err = df.jacobian(ns.jac, st.x, st.fx)
	} else {
		err = df.jacobianOn(ns.jac, q, st.x, st.fx)
	}
	if err != nil {
		return MapFailed, fmt.Errorf("fixedpoint: newton: jacobian at iteration %d: %w", k, err)
	}
	if q == nil {
		ns.a.CloneFrom(ns.jac)
		ns.rhs.CopyVec(mat.NewVecDense(n, st.g))
	} else {
		ns.a.Reset()
		ns.a.Mul(q.T(), ns.jac)
		ns.rhs.MulVec(q.T(), mat.NewVecDense(n, st.g))
	}
	for i := 0; i < r; i++ {
		ns.a.Set(i, i, ns.a.At(i, i)-1)
	}
	ns.rhs.ScaleVec(-1, ns.rhs)
	ns.lu.Factorize(&ns.a)
	if c := ns.lu.Cond(); !(c < 1/0x1p-52) {
		return Stalled, fmt.Errorf("fixedpoint: newton: singular Newton matrix (condition %.3g) at iteration %d: %w", c, k, ErrNotConverged)
	}
	if err := ns.lu.SolveVecTo(ns.y, false, ns.rhs); err != nil {
		return Stalled, fmt.Errorf("fixedpoint: newton: linear solve at iteration %d: %v: %w", k, err, ErrNotConverged)
	}
	if q == nil {
		copy(delta, ns.y.RawVector().Data)
	} else {
		mat.NewVecDense(n, delta).MulVec(q, ns.y)
	}
	return Converged, nil
}
