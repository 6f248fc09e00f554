package fixedpoint

import (
	"cmp"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// SpectrumSettings controls Eigenvalues. The zero value gives the defaults.
type SpectrumSettings struct {
	// Step is the relative finite-difference step (see DiffSettings). Zero
	// means sqrt(ε).
	Step float64
	// Subspace, if not nil, restricts the Jacobian to S: the eigenvalues
	// are those of QᵀDF(x)Q for the basis Q of S.
	Subspace Subspace
}

// Validate reports whether the settings are usable.
func (s *SpectrumSettings) Validate() error { return checkStep("SpectrumSettings.Step", s.Step) }

// Eigenvalues returns the eigenvalues of the Jacobian DF(x), or of its
// restriction QᵀDF(x)Q to a Subspace, ordered by decreasing modulus (ties
// by decreasing real, then imaginary part). The Jacobian is the problem's
// analytic one or one-sided, kink-aware finite differences (n or r map
// evaluations); the eigenvalues come from LAPACK's dgeev through
// gonum/mat.Eigen. At a fixed point x* of a smooth map, x* is linearly
// stable when the spectral radius is below one. s may be nil.
func Eigenvalues(p Problem, x []float64, s *SpectrumSettings) ([]complex128, error) {
	p.check("Eigenvalues", x)
	if s == nil {
		s = &SpectrumSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(x)
	checkSubspace("Eigenvalues", s.Subspace, n)
	f := &counter{f: p.F}
	df := newDiffer(&p, f, n, s.Step)
	f0 := make([]float64, n)
	if p.Jacobian == nil {
		if err := f.eval(f0, x); err != nil {
			return nil, fmt.Errorf("fixedpoint: eigenvalues: map: %w", err)
		}
	}
	var a *mat.Dense
	if s.Subspace == nil {
		a = mat.NewDense(n, n, nil)
		if err := df.jacobian(a, x, f0); err != nil {
			return nil, fmt.Errorf("fixedpoint: eigenvalues: jacobian: %w", err)
		}
	} else {
		q := s.Subspace.Basis()
		_, r := q.Dims()
		dfq := mat.NewDense(n, r, nil)
		if err := df.jacobianOn(dfq, q, x, f0); err != nil {
			return nil, fmt.Errorf("fixedpoint: eigenvalues: jacobian: %w", err)
		}
		a = mat.NewDense(r, r, nil)
		a.Mul(q.T(), dfq)
	}
	return denseEigenvalues(a)
}

func denseEigenvalues(a *mat.Dense) ([]complex128, error) {
	r, _ := a.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			if !finite(a.At(i, j)) {
				return nil, fmt.Errorf("fixedpoint: eigenvalues: non-finite Jacobian entry (%d, %d)", i, j)
			}
		}
	}
	var eig mat.Eigen
	if !eig.Factorize(a, mat.EigenNone) {
		return nil, fmt.Errorf("fixedpoint: eigenvalues: QR algorithm did not converge: %w", ErrNotConverged)
	}
	ev := eig.Values(nil)
	sortByModulus(ev)
	return ev, nil
}

func sortByModulus(ev []complex128) {
	slices.SortStableFunc(ev, func(a, b complex128) int {
		if c := cmp.Compare(cmplx.Abs(b), cmplx.Abs(a)); c != 0 {
			return c
		}
		if c := cmp.Compare(real(b), real(a)); c != 0 {
			return c
		}
		return cmp.Compare(imag(b), imag(a))
	})
}

// SpectralRadius returns max |λ| over ev, or 0 for an empty slice.
func SpectralRadius(ev []complex128) float64 {
	r := 0.0
	for _, e := range ev {
		r = math.Max(r, cmplx.Abs(e))
	}
	return r
}

// ArnoldiSettings controls Arnoldi. The zero value gives the defaults.
type ArnoldiSettings struct {
	// Step is the relative finite-difference step (see DiffSettings). Zero
	// means sqrt(ε).
	Step float64
	// Subspace, if not nil, restricts the operator to S: v ↦ Π DF(x) v on S.
	Subspace Subspace
	// Tol: a Ritz value θ has converged when its residual estimate is at
	// most Tol·max(|θ_1|, 1e-300), θ_1 the largest. Zero means 1e-6 (the
	// finite-difference products carry errors of order sqrt(ε)).
	Tol float64
	// MaxDim is the largest Krylov dimension (map evaluations besides F(x)).
	// Zero means min(r, max(50, 3k)), r the dimension of the space.
	MaxDim int
	// Seed seeds the start vector (PCG from math/rand/v2).
	Seed uint64
}

// Validate reports whether the settings are usable.
func (s *ArnoldiSettings) Validate() error {
	if err := checkStep("ArnoldiSettings.Step", s.Step); err != nil {
		return err
	}
	if err := checkNonNeg("ArnoldiSettings.Tol", s.Tol); err != nil {
		return err
	}
	return checkCount("ArnoldiSettings.MaxDim", s.MaxDim)
}

// ArnoldiResult holds the leading Ritz values found by Arnoldi.
type ArnoldiResult struct {
	// Values are the k Ritz values of largest modulus, ordered as by
	// Eigenvalues (fewer when the Krylov space became invariant before
	// reaching dimension k: then they are all the eigenvalues it holds).
	Values []complex128
	// Residuals are the Ritz residual estimates |h_{j+1,j}|·|e_jᵀy| of
	// Values, y the unit eigenvector of the Hessenberg matrix.
	Residuals []float64
	// Dim is the Krylov dimension reached.
	Dim int
	// Evaluations counts map evaluations.
	Evaluations int
	// Converged reports whether all k residuals met the tolerance (or the
	// Krylov space became invariant).
	Converged bool
}

// Arnoldi estimates the k eigenvalues of largest modulus of DF(x) (or of
// its restriction to a Subspace) by the Arnoldi process on matrix-free
// Jacobian–vector products, one one-sided, kink-aware finite difference
// each (Saad 2011, Algorithm 6.2 with full reorthogonalisation, §6.2). The
// Krylov space grows one vector at a time from a random start vector;
// after each step the Ritz values of the Hessenberg matrix H_j and their
// residual estimates (Saad 2011, Proposition 6.8) are computed, and the
// process stops when the k leading ones have converged, the space is
// invariant, or MaxDim is reached. No restarting is done, so the cost is
// one map evaluation per dimension.
//
// If MaxDim is reached first, the current Ritz values are returned with an
// error wrapping ErrNotConverged. s may be nil.
func Arnoldi(p Problem, x []float64, k int, s *ArnoldiSettings) (*ArnoldiResult, error) {
	p.check("Arnoldi", x)
	if s == nil {
		s = &ArnoldiSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(x)
	checkSubspace("Arnoldi", s.Subspace, n)
	r := n
	if s.Subspace != nil {
		_, r = s.Subspace.Dims()
	}
	if k < 1 || k > r {
		return nil, fmt.Errorf("fixedpoint: arnoldi: k = %d, want 1 ≤ k ≤ %d", k, r)
	}
	maxDim := orDefaultInt(s.MaxDim, min(r, max(50, 3*k)))
	maxDim = min(maxDim, r)
	if maxDim < k {
		return nil, fmt.Errorf("fixedpoint: arnoldi: MaxDim = %d is below k = %d", maxDim, k)
	}
	tol := orDefault(s.Tol, 1e-6)

	f := &counter{f: p.F}
	df := newDiffer(&p, f, n, s.Step)
	f0 := make([]float64, n)
	if err := f.eval(f0, x); err != nil {
		return nil, fmt.Errorf("fixedpoint: arnoldi: map: %w", err)
	}
	project := func(v []float64) {
		if s.Subspace != nil {
			s.Subspace.Project(v, v)
		}
	}
	scale := normInf(x)
	v := make([][]float64, 1, maxDim+1)
	v[0] = arnoldiStart(n, s.Seed, project)
	h := mat.NewDense(maxDim+1, maxDim, nil)
	out := &ArnoldiResult{}
	for j := 0; j < maxDim; j++ {
		w := make([]float64, n)
		if err := df.deriv(w, x, f0, v[j], scale, -1); err != nil {
			return nil, fmt.Errorf("fixedpoint: arnoldi: jacobian-vector product: %w", err)
		}
		project(w)
		invariant := arnoldiExtend(h, v, w, j, r)
		v = append(v, w)
		if j+1 < k && !invariant {
			continue
		}
		vals, resid, err := ritz(h, j+1, min(k, j+1))
		if err != nil {
			return nil, err
		}
		out.Values, out.Residuals, out.Dim = vals, resid, j+1
		out.Evaluations = f.evals
		if invariant {
			for i := range out.Residuals {
				out.Residuals[i] = 0
			}
			out.Converged = true
			return out, nil
		}
		if ritzConverged(vals, resid, tol) {
			out.Converged = true
			return out, nil
		}
	}
	return out, fmt.Errorf("fixedpoint: arnoldi: Ritz residuals above %.3g at dimension %d: %w", tol, maxDim, ErrNotConverged)
}

// arnoldiStart returns Arnoldi's start vector of length n: Gaussian from
// the seed, projected and normalised.
func arnoldiStart(n int, seed uint64, project func([]float64)) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v0 := make([]float64, n)
	for i := range v0 {
		v0[i] = rng.NormFloat64()
	}
	project(v0)
	nv := norm2(v0)
	for i := range v0 {
		v0[i] /= nv
	}
	return v0
}

// arnoldiExtend orthogonalises w = J·v[j] against v[0 … j] (modified
// Gram–Schmidt, twice) into column j of h, normalises it, and reports
// whether the Krylov space is invariant: w vanished relative to its norm
// before, or the dimension reached r.
func arnoldiExtend(h *mat.Dense, v [][]float64, w []float64, j, r int) bool {
	hnorm := norm2(w)
	for pass := 0; pass < 2; pass++ {
		for i := 0; i <= j; i++ {
			c := dot(w, v[i])
			h.Set(i, j, h.At(i, j)+c)
			for l := range w {
				w[l] -= c * v[i][l]
			}
		}
	}
	hn := norm2(w)
	h.Set(j+1, j, hn)
	invariant := !(hn > 1e-12*hnorm) || j+1 == r
	if hn > 0 {
		for l := range w {
			w[l] /= hn
		}
	}
	return invariant
}

// ritzConverged reports whether every Ritz residual is within tol
// relative to the leading Ritz value's modulus.
func ritzConverged(vals []complex128, resid []float64, tol float64) bool {
	lim := tol * math.Max(cmplx.Abs(vals[0]), 1e-300)
	conv := true
	for _, e := range resid {
		conv = conv && e <= lim
	}
	return conv
}

// ritz returns the k Ritz values of largest modulus of the leading m×m
// block of h and their residual estimates |h[m][m−1]|·|y_{m−1}|.
func ritz(h *mat.Dense, m, k int) ([]complex128, []float64, error) {
	hm := mat.DenseCopyOf(h.Slice(0, m, 0, m))
	var eig mat.Eigen
	if !eig.Factorize(hm, mat.EigenRight) {
		return nil, nil, fmt.Errorf("fixedpoint: arnoldi: Hessenberg eigenproblem did not converge: %w", ErrNotConverged)
	}
	vals := eig.Values(nil)
	var vecs mat.CDense
	eig.VectorsTo(&vecs)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		va, vb := vals[a], vals[b]
		if c := cmp.Compare(cmplx.Abs(vb), cmplx.Abs(va)); c != 0 {
			return c
		}
		if c := cmp.Compare(real(vb), real(va)); c != 0 {
			return c
		}
		return cmp.Compare(imag(vb), imag(va))
	})
	beta := math.Abs(h.At(m, m-1))
	outV := make([]complex128, k)
	outR := make([]float64, k)
	for i := 0; i < k; i++ {
		c := idx[i]
		outV[i] = vals[c]
		nrm := 0.0
		for l := 0; l < m; l++ {
			nrm = math.Hypot(nrm, cmplx.Abs(vecs.At(l, c)))
		}
		outR[i] = beta * cmplx.Abs(vecs.At(m-1, c)) / nrm
	}
	return outV, outR, nil
}
