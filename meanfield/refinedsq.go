package meanfield

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// RefinedSupermarket holds the settings of the refined mean field of the
// supermarket model SQ(d) with live information at N servers (package doc,
// §8, "The supermarket's 1/N term"): N servers with exponential services
// of rate 1, Poisson arrivals at rate λN, each job sampling d servers
// uniformly with replacement and joining the shortest queue. The state is
// x_i, the share of servers holding at least i jobs (i ≥ 1; x_0 = 1), with
// the drift of SupermarketDrift,
//
//	f_i(x) = λ(x_{i−1}^d − x_i^d) − (x_i − x_{i+1}).
//
// Its stationary mean queue per server is Σ_i E x_i = Σ_i x*_i +
// Σ_i c_i/N + O(1/N²) (Gast & Van Houdt 2017, the steady-state 1/N term),
// where x* is the fixed point of SupermarketTails and
//
//	A = Df(x*),  A·W + W·Aᵀ + Q = 0,  c = −A⁻¹·½ Σ_jk ∂²f/∂x_j∂x_k·W_jk,
//
// Q = Σ_ℓ β_ℓ(x*)·ℓℓᵀ the covariance of the jumps (an arrival at a queue
// of length i − 1 moves x_i by +1/N at rate Nλ(x_{i−1}^d − x_i^d), a
// departure from a queue of length i moves it by −1/N at rate N(x_i −
// x_{i+1}), so Q is diagonal with Q_ii = λ(x*_{i−1}^d − x*_i^d) + x*_i −
// x*_{i+1} = 2(x*_i − x*_{i+1})), and W/N the stationary covariance of x
// (the linear-noise approximation). The second derivatives are analytic:
// f_i holds x_{i−1} and x_i through λx_{i−1}^d and −λx_i^d only, so
//
//	½ Σ_jk ∂²f_i/∂x_j∂x_k·W_jk = ½λd(d − 1)(x*_{i−1}^{d−2}·W_{i−1,i−1} − x*_i^{d−2}·W_ii)
//
// (the first term absent at i = 1, x_0 being constant). For d = 1 the
// drift is linear, c = 0, and the N queues are independent M/M/1 queues:
// the mean field is then exact at every N, and W_ij = λ^max(i,j) − λ^(i+j)
// (the covariance of the indicators 1{q ≥ i} and 1{q ≥ j} of one M/M/1
// queue).
//
// Truncation: the state keeps the levels i = 1 … n with x*_i ≥ Cut; the
// levels beyond are held at x* (their mass, Σ_{i>n} x*_i, is in QueueMean
// and reported as Truncation), so f(x*) = 0 on the rows kept and the level
// n + 1 enters row n's departures as the constant x*_{n+1}.
//
// The sampling is with replacement, as in the mean-field literature
// (fleet.Policy.WithReplacement); sampling d distinct servers changes the
// finite-N rates, and with them the 1/N term.
//
// References:
//
//   - N. Gast and B. Van Houdt, A refined mean field approximation, Proc.
//     ACM Meas. Anal. Comput. Syst. 1(2), article 33, 2017 (the
//     steady-state 1/N term and its supermarket example).
//   - N. D. Vvedenskaya, R. L. Dobrushin, F. I. Karpelevich, Queueing
//     system with selection of the shortest of two queues: an asymptotic
//     approach, Problems of Information Transmission 32(1), 1996.
//   - N. G. van Kampen, Stochastic Processes in Physics and Chemistry,
//     North-Holland, 1981, Ch. X (the linear-noise approximation).
type RefinedSupermarket struct {
	// D is the number of servers sampled per job, with replacement, ≥ 1.
	D int
	// Load is the per-server arrival rate λ, in (0, 1).
	Load float64
	// Cut keeps the levels with x*_i ≥ Cut, in [1e-300, 1e-3]. Zero means
	// DefaultRefinedSupermarketCut.
	Cut float64
}

// DefaultRefinedSupermarketCut is RefinedSupermarket.Cut's default: the
// levels dropped hold less than 2·10⁻¹⁴ jobs per server for d ≥ 2 (and
// 10⁻¹⁴/(1 − λ) for d = 1), far below any 1/N term.
const DefaultRefinedSupermarketCut = 1e-14

// maxRefinedSupermarketRows bounds the dimension of the linearisation: the
// Lyapunov solve costs O(n³) per doubling (n = 2,000 takes tens of
// seconds). Only d = 1 with λ near 1 reaches it.
const maxRefinedSupermarketRows = 2000

// Validate reports the first setting out of range, naming the field.
func (s RefinedSupermarket) Validate() error {
	switch {
	case s.D < 1:
		return fmt.Errorf("meanfield: RefinedSupermarket.D = %d outside [1, ∞)", s.D)
	case !(s.Load > 0 && s.Load < 1):
		return fmt.Errorf("meanfield: RefinedSupermarket.Load = %v outside (0, 1)", s.Load)
	case s.Cut != 0 && !(s.Cut >= 1e-300 && s.Cut <= 1e-3):
		return fmt.Errorf("meanfield: RefinedSupermarket.Cut = %v outside [1e-300, 1e-3] (0 means %g)", s.Cut, DefaultRefinedSupermarketCut)
	}
	return nil
}

// RefinedSupermarketResult is the refined mean field of the supermarket
// model (RefinedSupermarket.Solve). Vectors and matrices are indexed by
// level − 1: entry 0 is x_1.
type RefinedSupermarketResult struct {
	// Tails are x*_1 … x*_n, the fixed point on the levels kept; Rows = n.
	Tails []float64
	Rows  int
	// QueueMean is the mean field's mean queue per server, Σ_{i≥1} x*_i
	// over all levels, and QueueTerm = Σ_i c_i its 1/N coefficient: at N
	// servers the mean queue is QueueMean + QueueTerm/N + O(1/N²)
	// (QueueAt). ResponseMean and ResponseTerm are the same divided by λ
	// (Little's law; ResponseAt).
	QueueMean, QueueTerm       float64
	ResponseMean, ResponseTerm float64
	// Correction is c: E x_i = x*_i + c_i/N + O(1/N²).
	Correction []float64
	// Drift is A = Df(x*), Noise the diagonal of Q, and Cov is W: the
	// stationary covariance of x at N servers is W/N to first order.
	Drift *mat.Dense
	Noise []float64
	Cov   *mat.SymDense
	// SpectralAbscissa is the largest real part of A's eigenvalues (the
	// slowest relaxation rate, negated); the expansion needs it below 0.
	SpectralAbscissa float64
	// LyapunovResidual is ‖AW + WAᵀ + Q‖_F/‖Q‖_F.
	LyapunovResidual float64
	// Truncation is Σ_{i>n} x*_i, the mass of the levels not kept (in
	// QueueMean, held at x* in the expansion).
	Truncation float64
}

// QueueAt returns the refined mean queue per server at n servers,
// QueueMean + QueueTerm/n.
func (r RefinedSupermarketResult) QueueAt(n int) float64 {
	return r.QueueMean + r.QueueTerm/float64(n)
}

// ResponseAt returns the refined mean time in system at n servers,
// ResponseMean + ResponseTerm/n.
func (r RefinedSupermarketResult) ResponseAt(n int) float64 {
	return r.ResponseMean + r.ResponseTerm/float64(n)
}

// Solve computes the refined mean field of s (see RefinedSupermarket): the
// fixed point from SupermarketTails, A and Q in closed form, W by
// ContinuousLyapunov, and c by an LU solve of A·c = −½ Σ_jk ∂²f/∂x_j∂x_k·
// W_jk. It returns an error for settings out of range, for more than 2,000
// levels (d = 1 with λ near 1), or when the Lyapunov equation cannot be
// solved.
func (s RefinedSupermarket) Solve() (RefinedSupermarketResult, error) {
	if err := s.Validate(); err != nil {
		return RefinedSupermarketResult{}, err
	}
	cut := s.Cut
	if cut == 0 {
		cut = DefaultRefinedSupermarketCut
	}
	d, lam := s.D, s.Load
	if d == 1 {
		if n := math.Log(cut) / math.Log(lam); n > maxRefinedSupermarketRows {
			return RefinedSupermarketResult{}, fmt.Errorf("meanfield: refined supermarket: λ = %v, d = 1 keeps %.3g levels above Cut = %g (limit %d)", lam, n, cut, maxRefinedSupermarketRows)
		}
	}
	tails, err := SupermarketTails(d, lam, cut)
	if err != nil {
		return RefinedSupermarketResult{}, err
	}
	x := tails[1:] // x_1 … x_n
	n := len(x)
	if n == 0 {
		return RefinedSupermarketResult{}, fmt.Errorf("meanfield: refined supermarket: no level above Cut = %g at λ = %v", cut, lam)
	}
	r := RefinedSupermarketResult{Tails: x, Rows: n}
	r.Truncation = supermarketTailMass(d, lam, n)
	A, q := supermarketLinear(d, lam, x)
	r.Drift, r.Noise = A, q
	var eig mat.Eigen
	if !eig.Factorize(A, mat.EigenNone) {
		return r, fmt.Errorf("meanfield: refined supermarket: eigenvalues of the drift's Jacobian did not converge")
	}
	r.SpectralAbscissa = math.Inf(-1)
	for _, v := range eig.Values(nil) {
		r.SpectralAbscissa = max(r.SpectralAbscissa, real(v))
	}
	Q := mat.NewSymDense(n, nil)
	for k, v := range q {
		Q.SetSym(k, k, v)
	}
	W, err := ContinuousLyapunov(A, Q)
	if err != nil {
		return r, fmt.Errorf("meanfield: refined supermarket: %w", err)
	}
	r.Cov = W
	r.LyapunovResidual = lyapunovResidual(A, W, Q)
	if r.Correction, err = supermarketCorrection(d, lam, x, A, W); err != nil {
		return r, err
	}
	for k := range n {
		r.QueueTerm += r.Correction[k]
		r.QueueMean += x[k]
	}
	r.QueueMean += r.Truncation
	r.ResponseMean, r.ResponseTerm = r.QueueMean/lam, r.QueueTerm/lam
	return r, nil
}

// supermarketLinear returns A = Df(x*) and the diagonal of Q on the levels
// x = x*_1 … x*_n, the level n + 1 held at x*_{n+1} (RefinedSupermarket):
//
//	∂f_i/∂x_{i−1} = λd·x_{i−1}^{d−1} (i ≥ 2),  ∂f_i/∂x_i = −λd·x_i^{d−1} − 1,
//	∂f_i/∂x_{i+1} = 1 (i < n),  Q_ii = λ(x_{i−1}^d − x_i^d) + x_i − x_{i+1}.
func supermarketLinear(d int, lam float64, x []float64) (*mat.Dense, []float64) {
	n := len(x)
	level := func(i int) float64 { // x*_i for 0 ≤ i ≤ n + 1
		switch {
		case i == 0:
			return 1
		case i <= n:
			return x[i-1]
		}
		return math.Pow(lam, supermarketExponent(d, i))
	}
	A := mat.NewDense(n, n, nil)
	q := make([]float64, n)
	fd := float64(d)
	for k := range n {
		i := k + 1
		xi := level(i)
		A.Set(k, k, -lam*fd*ipow(xi, d-1)-1)
		if k > 0 {
			A.Set(k, k-1, lam*fd*ipow(level(i-1), d-1))
		}
		if k+1 < n {
			A.Set(k, k+1, 1)
		}
		q[k] = lam*(ipow(level(i-1), d)-ipow(xi, d)) + xi - level(i+1)
	}
	return A, q
}

// supermarketCorrection returns c = −A⁻¹h (an LU solve), with
//
//	h_i = ½ Σ_jk ∂²f_i/∂x_j∂x_k·W_jk = ½λd(d − 1)(x_{i−1}^{d−2}·W_{i−1,i−1} − x_i^{d−2}·W_ii),
//
// the first term absent at i = 1 (RefinedSupermarket).
func supermarketCorrection(d int, lam float64, x []float64, A *mat.Dense, W *mat.SymDense) ([]float64, error) {
	n := len(x)
	h := mat.NewVecDense(n, nil)
	fd := float64(d)
	b := 0.5 * lam * fd * (fd - 1)
	for k := range n {
		v := -ipow(x[k], d-2) * W.At(k, k)
		if k > 0 {
			v += ipow(x[k-1], d-2) * W.At(k-1, k-1)
		}
		h.SetVec(k, b*v)
	}
	var lu mat.LU
	lu.Factorize(A)
	var c mat.VecDense
	if err := lu.SolveVecTo(&c, false, h); err != nil {
		return nil, fmt.Errorf("meanfield: refined supermarket: A·c = −h: %w", err)
	}
	out := make([]float64, n)
	for k := range n {
		out[k] = -c.AtVec(k)
	}
	return out, nil
}

// supermarketExponent returns e_i = (d^i − 1)/(d − 1) (i for d = 1), the
// exponent of x*_i = λ^{e_i}, by SupermarketTails' recurrence.
func supermarketExponent(d, i int) float64 {
	e := 0.0
	for range i {
		e = 1 + float64(d)*e
	}
	return e
}

// supermarketTailMass returns Σ_{i>n} x*_i: λ^{n+1}/(1 − λ) for d = 1, and
// for d ≥ 2 the sum of the levels until they underflow.
func supermarketTailMass(d int, lam float64, n int) float64 {
	if d == 1 {
		return math.Pow(lam, float64(n+1)) / (1 - lam)
	}
	var s float64
	for e := supermarketExponent(d, n+1); ; e = 1 + float64(d)*e {
		v := math.Pow(lam, e)
		if v == 0 || v < s*1e-17 {
			return s
		}
		s += v
	}
}

// ContinuousLyapunov solves A·W + W·Aᵀ + Q = 0 for a matrix A whose
// eigenvalues all have negative real parts and a symmetric Q: W =
// ∫₀^∞ e^{At} Q e^{Aᵀt} dt, the stationary covariance of dy = Ay dt + dB
// with Cov dB = Q dt. It maps the equation to a discrete one by the Cayley
// transform (Gardiner, Laub, Amato & Moler 1992, §2: with M = (sI − A)⁻¹,
// A_d = M(sI + A) and Q_d = 2s·MQMᵀ, W = A_d W A_dᵀ + Q_d holds exactly
// when AW + WAᵀ + Q = 0) and solves that by DiscreteLyapunov. The shift s
// is √(a·b), a the smallest and b the largest modulus of A's eigenvalues
// (real parts for a): it balances the contraction |s + μ|/|s − μ| of the
// slowest and the fastest mode. It returns an error, wrapping
// ErrNotConverged, when an eigenvalue has a real part at or above 0 or the
// doubling does not contract; it panics if the dimensions differ.
//
// Reference: J. D. Gardiner, A. J. Laub, J. J. Amato and C. B. Moler,
// Solution of the Sylvester matrix equation AXBᵀ + CXDᵀ = E, ACM Trans.
// Math. Softw. 18(2), 1992.
func ContinuousLyapunov(A mat.Matrix, Q mat.Symmetric) (*mat.SymDense, error) {
	n, c := A.Dims()
	if n != c || Q.SymmetricDim() != n {
		panic("meanfield: ContinuousLyapunov: dimension mismatch")
	}
	var eig mat.Eigen
	if !eig.Factorize(A, mat.EigenNone) {
		return nil, fmt.Errorf("meanfield: lyapunov: %w: eigenvalues did not converge", ErrNotConverged)
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range eig.Values(nil) {
		if !(real(v) < 0) {
			return nil, fmt.Errorf("meanfield: lyapunov: %w: eigenvalue %v has real part ≥ 0 (not stable)", ErrNotConverged, v)
		}
		lo = min(lo, -real(v))
		hi = max(hi, cmplx.Abs(v))
	}
	s := math.Sqrt(lo * hi)
	// M = (sI − A)⁻¹.
	sIA := mat.NewDense(n, n, nil)
	sIA.Scale(-1, A)
	for i := range n {
		sIA.Set(i, i, sIA.At(i, i)+s)
	}
	var M mat.Dense
	if err := M.Inverse(sIA); err != nil {
		return nil, fmt.Errorf("meanfield: lyapunov: sI − A: %w", err)
	}
	// A_d = M(sI + A); (sI + A) = 2sI − (sI − A).
	spA := mat.NewDense(n, n, nil)
	spA.Scale(-1, sIA)
	for i := range n {
		spA.Set(i, i, spA.At(i, i)+2*s)
	}
	var Ad, MQ, Qd mat.Dense
	Ad.Mul(&M, spA)
	MQ.Mul(&M, Q)
	Qd.Mul(&MQ, M.T())
	Qd.Scale(2*s, &Qd)
	return DiscreteLyapunov(&Ad, symmetrise(&Qd))
}

// lyapunovResidual returns ‖AW + WAᵀ + Q‖_F/‖Q‖_F.
func lyapunovResidual(A mat.Matrix, W, Q mat.Symmetric) float64 {
	var R, t mat.Dense
	R.Mul(A, W)
	t.Mul(W, A.T())
	R.Add(&R, &t)
	R.Add(&R, Q)
	return mat.Norm(&R, 2) / mat.Norm(Q, 2)
}
