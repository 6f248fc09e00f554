package fixedpoint

import (
	"fmt"
	"math"
)

// NewtonKrylovSettings controls NewtonKrylov. The zero value gives the
// defaults.
type NewtonKrylovSettings struct {
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
	// Restart is the GMRES restart length. Zero means 30.
	Restart int
	// MaxLinear is the largest number of GMRES iterations per Newton step.
	// Zero means 10·Restart.
	MaxLinear int
	// Forcing is η_max: GMRES stops when the linear residual is at most
	// η_k‖G(x_k)‖₂ with η_k = min(η_max, ‖G(x_k)‖₂). Zero means 0.1.
	Forcing float64
	// Subspace, if not nil, restricts steps to S through its projector
	// (see the package documentation on affine constraints).
	Subspace Subspace
}

// Validate reports whether the settings are usable.
func (s *NewtonKrylovSettings) Validate() error {
	if err := checkNonNeg("NewtonKrylovSettings.Tol", s.Tol); err != nil {
		return err
	}
	if err := checkCount("NewtonKrylovSettings.MaxIter", s.MaxIter); err != nil {
		return err
	}
	if err := checkStep("NewtonKrylovSettings.Step", s.Step); err != nil {
		return err
	}
	if err := checkCount("NewtonKrylovSettings.MaxBacktrack", s.MaxBacktrack); err != nil {
		return err
	}
	if err := checkCount("NewtonKrylovSettings.Restart", s.Restart); err != nil {
		return err
	}
	if err := checkCount("NewtonKrylovSettings.MaxLinear", s.MaxLinear); err != nil {
		return err
	}
	if !(s.Forcing >= 0 && s.Forcing < 1) {
		return fmt.Errorf("fixedpoint: NewtonKrylovSettings.Forcing = %v, want 0 (default 0.1) or a value in (0, 1)", s.Forcing)
	}
	return nil
}

// NewtonKrylov solves G(x) = F(x) − x = 0 by an inexact Newton method
// whose linear systems (DF(x) − I)δ = −G(x) are solved by restarted GMRES
// with matrix-free Jacobian–vector products
//
//	DF(x)v ≈ (F(x + hv) − F(x))/h,
//
// one map evaluation each, with a one-sided, kink-aware step (Kelley 1995,
// §6.2 and Algorithm nsolgm). GMRES stops at the relative residual η_k =
// min(Forcing, ‖G(x_k)‖₂), which gives locally superlinear convergence
// (Kelley 1995, Theorem 6.1.4), and the step is globalised by the same
// Armijo line search as Newton. With a Subspace S the operator is
// v ↦ Π(DF(x)v) − v on S and the right side is −ΠG, so steps stay in S.
//
// The cost per Newton step is one map evaluation per GMRES iteration plus
// the line search, independent of n; memory is (Restart+1)·n. The error is
// nil exactly when Status is Converged. s may be nil.
func NewtonKrylov(p Problem, x0 []float64, s *NewtonKrylovSettings) (*Result, error) {
	p.check("NewtonKrylov", x0)
	if s == nil {
		s = &NewtonKrylovSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(x0)
	checkSubspace("NewtonKrylov", s.Subspace, n)
	tol := orDefault(s.Tol, 1e-10)
	maxIter := orDefaultInt(s.MaxIter, 50)
	maxBack := orDefaultInt(s.MaxBacktrack, 30)
	restart := min(orDefaultInt(s.Restart, 30), n)
	maxLin := orDefaultInt(s.MaxLinear, 10*restart)
	etaMax := orDefault(s.Forcing, 0.1)

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
		return fail(MapFailed, fmt.Errorf("fixedpoint: newton-krylov: map at initial point: %w", err))
	}
	st.setG()

	op := &krylovOperator{df: df, st: st, sub: s.Subspace}
	gm := newGMRES(n, restart)
	b := make([]float64, n)
	delta := make([]float64, n)

	for k := 0; ; k++ {
		res.Iterations = k
		rinf := normInf(st.g)
		if !finite(rinf) {
			return fail(Diverged, fmt.Errorf("fixedpoint: newton-krylov: non-finite residual at iteration %d: %w", k, ErrNotConverged))
		}
		if rinf <= tol {
			res.X, res.Status, res.Evaluations, res.Residual = clone(st.x), Converged, f.evals, rinf
			return res, nil
		}
		if k == maxIter {
			return fail(NotConverged, fmt.Errorf("fixedpoint: newton-krylov: residual %.3g after %d steps: %w", rinf, k, ErrNotConverged))
		}
		for i := range b {
			b[i] = -st.g[i]
		}
		op.project(b)
		eta := math.Min(etaMax, st.r2)
		its, err := gm.solve(op.apply, b, delta, eta*norm2(b), maxLin)
		res.LinearIterations += its
		if err != nil {
			if op.mapErr != nil {
				return fail(MapFailed, fmt.Errorf("fixedpoint: newton-krylov: jacobian-vector product at iteration %d: %w", k, op.mapErr))
			}
			return fail(Stalled, fmt.Errorf("fixedpoint: newton-krylov: gmres at iteration %d: %v: %w", k, err, ErrNotConverged))
		}
		if !st.lineSearch(f, delta, maxBack) {
			res.Iterations = k + 1
			return fail(Stalled, fmt.Errorf("fixedpoint: newton-krylov: line search failed at iteration %d (residual %.3g): %w", k, rinf, ErrNotConverged))
		}
	}
}

// krylovOperator is NewtonKrylov's linear operator v ↦ Π(DF(x)v) − v at
// the current point, with matrix-free Jacobian–vector products.
type krylovOperator struct {
	df     *differ
	st     *newtonState
	sub    Subspace
	mapErr error // the map's last failure in apply
}

// project applies Π to v in place (nothing without a subspace).
func (op *krylovOperator) project(v []float64) {
	if op.sub != nil {
		op.sub.Project(v, v)
	}
}

// apply sets dst = Π(DF(x)v) − v.
func (op *krylovOperator) apply(dst, v []float64) error {
	st := op.st
	if err := op.df.deriv(dst, st.x, st.fx, v, normInf(st.x), -1); err != nil {
		op.mapErr = err
		return err
	}
	op.project(dst)
	for i := range dst {
		dst[i] -= v[i]
	}
	return nil
}

// gmres is restarted GMRES(m) with modified Gram–Schmidt (plus one
// reorthogonalisation) and Givens rotations (Saad 2003, Algorithm 6.9;
// Kelley 1995, Algorithm gmresb).
type gmres struct {
	m    int
	v    [][]float64 // Krylov basis, m+1 vectors of length n
	h    [][]float64 // (m+1)×m Hessenberg, h[i][j]
	cs   []float64
	sn   []float64
	g    []float64
	y    []float64
	w, r []float64
}

func newGMRES(n, m int) *gmres {
	gm := &gmres{m: m, cs: make([]float64, m), sn: make([]float64, m),
		g: make([]float64, m+1), y: make([]float64, m), w: make([]float64, n), r: make([]float64, n)}
	gm.v = make([][]float64, m+1)
	for i := range gm.v {
		gm.v[i] = make([]float64, n)
	}
	gm.h = make([][]float64, m+1)
	for i := range gm.h {
		gm.h[i] = make([]float64, m)
	}
	return gm
}

var errGMRES = fmt.Errorf("no convergence")

// solve sets x to an approximate solution of Ax = b with ‖b − Ax‖₂ ≤ tol,
// starting from x = 0, and returns the number of iterations (matrix–vector
// products, one more per restart for the true residual).
func (gm *gmres) solve(apply func(dst, v []float64) error, b, x []float64, tol float64, maxIt int) (int, error) {
	for i := range x {
		x[i] = 0
	}
	copy(gm.r, b)
	its := 0
	for {
		beta := norm2(gm.r)
		if beta <= tol {
			return its, nil
		}
		if its >= maxIt {
			return its, fmt.Errorf("%w: residual %.3g > %.3g after %d iterations", errGMRES, beta, tol, its)
		}
		for i, e := range gm.r {
			gm.v[0][i] = e / beta
		}
		for i := range gm.g {
			gm.g[i] = 0
		}
		gm.g[0] = beta
		j := 0
		for ; j < gm.m && its < maxIt; j++ {
			its++
			w := gm.v[j+1]
			if err := apply(w, gm.v[j]); err != nil {
				return its, err
			}
			hn := gm.orthogonalise(j)
			if err := gm.rotate(j); err != nil {
				return its, err
			}
			if math.Abs(gm.g[j+1]) <= tol || hn == 0 {
				j++
				break
			}
		}
		gm.update(x, j)
		if math.Abs(gm.g[j]) <= tol {
			return its, nil
		}
		// Restart from the true residual r = b − Ax.
		its++
		if err := apply(gm.w, x); err != nil {
			return its, err
		}
		for i := range gm.r {
			gm.r[i] = b[i] - gm.w[i]
		}
	}
}

// orthogonalise orthogonalises the new Krylov vector v[j+1] against
// v[0 … j] by modified Gram–Schmidt, twice ("twice is enough"), into
// column j of the Hessenberg matrix, normalises it and returns its norm
// before normalisation.
func (gm *gmres) orthogonalise(j int) float64 {
	w := gm.v[j+1]
	for i := 0; i <= j; i++ {
		gm.h[i][j] = 0
	}
	for pass := 0; pass < 2; pass++ {
		for i := 0; i <= j; i++ {
			c := dot(w, gm.v[i])
			gm.h[i][j] += c
			for l := range w {
				w[l] -= c * gm.v[i][l]
			}
		}
	}
	hn := norm2(w)
	gm.h[j+1][j] = hn
	if hn > 0 {
		for l := range w {
			w[l] /= hn
		}
	}
	return hn
}

// rotate applies the previous Givens rotations to column j, then a new
// one that annihilates h[j+1][j], and updates the residual vector g.
func (gm *gmres) rotate(j int) error {
	for i := 0; i < j; i++ {
		a, c := gm.h[i][j], gm.h[i+1][j]
		gm.h[i][j] = gm.cs[i]*a + gm.sn[i]*c
		gm.h[i+1][j] = -gm.sn[i]*a + gm.cs[i]*c
	}
	a, c := gm.h[j][j], gm.h[j+1][j]
	rho := math.Hypot(a, c)
	if rho == 0 {
		return fmt.Errorf("%w: singular operator", errGMRES)
	}
	gm.cs[j], gm.sn[j] = a/rho, c/rho
	gm.h[j][j], gm.h[j+1][j] = rho, 0
	gm.g[j+1] = -gm.sn[j] * gm.g[j]
	gm.g[j] = gm.cs[j] * gm.g[j]
	return nil
}

// update solves the j×j triangle for y by back substitution and adds V y
// to x.
func (gm *gmres) update(x []float64, j int) {
	for i := j - 1; i >= 0; i-- {
		sum := gm.g[i]
		for l := i + 1; l < j; l++ {
			sum -= gm.h[i][l] * gm.y[l]
		}
		gm.y[i] = sum / gm.h[i][i]
	}
	for i := 0; i < j; i++ {
		yi := gm.y[i]
		for l := range x {
			x[l] += yi * gm.v[i][l]
		}
	}
}
