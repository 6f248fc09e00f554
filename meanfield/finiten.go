package meanfield

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"

	"herd/fixedpoint"
	"herd/fixedpoint/root"
	"herd/internal/pool"
)

// FiniteN holds the settings of the linear-noise picture of the refresh map
// at N servers (package doc, §8): the stationary fluctuation of the board
// around a balanced fixed point, the 1/N correction of its observables and
// the chance per period that a fluctuation carries the cut across a window
// boundary. The zero value of every optional field means its default.
type FiniteN struct {
	// Refresh is the map (k, λ, T, sizes); exponential and phase-type
	// sizes are both accepted (see Linearise for what differs).
	Refresh Refresh
	// Servers is N, in [2, 1e12].
	Servers int
	// RowMin: the linearisation keeps the board's rows up to the last one
	// holding at least this mass, in [1e-14, 1e-3]. Zero means
	// DefaultFiniteRowMin.
	RowMin float64
	// Attractor controls the search of the balanced fixed point from the
	// empty board (Linearise); its zero value gives FindAttractor's
	// defaults with Tol 1e-12.
	Attractor AttractorSettings `json:"-"`
}

// DefaultFiniteRowMin is FiniteN.RowMin's default: rows of smaller mass
// carry less than 10⁻⁴ of the variance of any observable used here and
// would be pushed negative by the second differences of the 1/N
// correction.
const DefaultFiniteRowMin = 1e-9

// Validate reports the first setting out of range, naming the field.
func (f FiniteN) Validate() error {
	if err := f.Refresh.Validate(); err != nil {
		return err
	}
	if f.Servers < 2 || f.Servers > 1e12 {
		return fmt.Errorf("meanfield: finite fleet: Servers = %d, want an integer in [2, 1e12]", f.Servers)
	}
	if f.RowMin != 0 && !(f.RowMin >= 1e-14 && f.RowMin <= 1e-3) {
		return fmt.Errorf("meanfield: finite fleet: RowMin = %v, want 0 (default) or a value in [1e-14, 1e-3]", f.RowMin)
	}
	return nil
}

func (f FiniteN) withDefaults() FiniteN {
	if f.RowMin == 0 {
		f.RowMin = DefaultFiniteRowMin
	}
	if f.Attractor.Tol == 0 {
		f.Attractor.Tol = 1e-12
	}
	return f
}

// LinearNoise is the linear-noise picture of the refresh map at N servers
// around a balanced fixed point x* (package doc, §8). Matrices act on the
// first Rows entries of the state (the board, or with phase-type sizes the
// joint law of queue and phase); the rows beyond, of mass below RowMin,
// are held at x*.
type LinearNoise struct {
	// Servers is N.
	Servers int
	// State is x*, the balanced fixed point (its first Rows entries).
	State []float64
	// Rows is the dimension of the linearisation.
	Rows int
	// Jacobian is J = DF(x*), by fixedpoint.Jacobian on one-sided,
	// kink-aware differences.
	Jacobian *mat.Dense
	// Noise is Q, the covariance of one period's noise per server: the
	// board after one period has covariance Q/N given the board before
	// (package doc, §8, (8.2)).
	Noise *mat.SymDense
	// Arrival is a = (λ/T)·∂F/∂λ, the change of the next state per unit of
	// time by which the period's arrivals run ahead of their mean (package
	// doc, §8, (8.2)): Q holds (T/λ)·a·aᵀ.
	Arrival []float64
	// Cov is Σ, the stationary covariance per server: the board's
	// covariance is Σ/N, Σ = JΣJᵀ + Q (package doc, §8, (8.3)).
	Cov *mat.SymDense
	// SpectralRadius is that of J on boards of unit mass; the picture
	// needs it below 1.
	SpectralRadius float64

	// BoardMean and Response are the mean field's (N → ∞);
	// RefinedBoardMean and RefinedResponse add their 1/N terms,
	// BoardMeanTerm/N and ResponseTerm/N (package doc, §8, (8.4)).
	BoardMean, Response               float64
	BoardMeanTerm, ResponseTerm       float64
	RefinedBoardMean, RefinedResponse float64
	// BoardMeanSD is the standard deviation of the board mean at N.
	BoardMeanSD float64

	// Window is the cut window c of x*, CutPhase its cut phase. Border is
	// the distance in time from T to the end of the cut window,
	// τ_{c+1}(x*) − T (the border at which the edge's collision happens,
	// package doc, §5), and BorderSD the standard deviation at N of the
	// crossing variable s = τ_{c+1}(x) − T − η, η the shift of the water's
	// position by the period's arrival count (package doc, §8, (8.5)).
	// BorderZ = Border/BorderSD.
	Window            int
	CutPhase          float64
	Border, BorderSD  float64
	BorderZ           float64
	BorderCorrelation float64 // correlation of s at lags 1 (one period)
	CrossPerPeriod    float64 // P(s < 0) in one period, Φ(−BorderZ)
	UpcrossPerPeriod  float64 // P(s_n ≥ 0, s_{n+1} < 0): entries per period
	StartBorder       float64 // T − τ_c(x*): distance to the cut window's start
	StartBorderZ      float64
	Truncation        float64 // mass the server laws lost (package doc, §8)
	MapCheck          float64 // L1 distance of Σ_b p_b M_b to the map's image (exp sizes)
	Stats
}

// ErrNotBalanced is returned, wrapped, when the finite-fleet picture is
// asked of a state that is not a balanced fixed point, or whose
// linearisation is not stable.
var ErrNotBalanced = errors.New("meanfield: no stable balanced fixed point")

// Linearise finds the balanced fixed point of f.Refresh reached from the
// empty board (the protocol of the package doc, §5) and returns its
// linear-noise picture at f.Servers servers (LineariseAt).
func Linearise(f FiniteN) (LinearNoise, error) {
	if err := f.Validate(); err != nil {
		return LinearNoise{}, err
	}
	f = f.withDefaults()
	start := f.Refresh.Service.Lift(BoardEmpty())
	at, err := FindAttractor(f.Refresh, start, f.Attractor)
	if errors.Is(err, ErrNotConverged) {
		return LinearNoise{}, fmt.Errorf("%w: the empty board reaches no fixed point at T = %v (%w)", ErrNotBalanced, f.Refresh.Period, err)
	}
	if err != nil {
		return LinearNoise{}, err
	}
	if !at.Balanced {
		return LinearNoise{}, fmt.Errorf("%w: the empty board reaches a %v attractor of board mean %.4g at T = %v", ErrNotBalanced, at.Status, at.BoardMean, f.Refresh.Period)
	}
	ln, err := LineariseAt(f, at.Board)
	ln.Maps += at.Maps
	return ln, err
}

// LineariseAt returns the linear-noise picture of f.Refresh at N =
// f.Servers around the fixed point x (a state as the map carries it),
// following the package doc, §8:
//
//  1. J = DF(x) on the rows of x holding at least RowMin
//     (fixedpoint.Jacobian on kink-aware one-sided differences; the map
//     normalises its input, so J annihilates x and maps into boards of zero
//     mass);
//  2. Q = Σ_b p_b (diag(M_b) − M_b M_bᵀ) + (T/λ)·a·aᵀ, (8.2): M_b the law at
//     T of one server of board class b under the mean field's window
//     schedule (serverLaws; with phase-type sizes the servers are taken as
//     forgetting their class, M_b = p', an upper bound), a = (λ/T)·∂F/∂λ
//     (arrivalRateResponse);
//  3. Σ = JΣJᵀ + Q by Smith's doubling (DiscreteLyapunov);
//  4. the 1/N terms of the board mean and the response, (8.4), from
//     second differences of the map along the eigenvectors of Σ;
//  5. the crossing variable of the cut window's end, (8.5).
func LineariseAt(f FiniteN, x []float64) (LinearNoise, error) {
	start := time.Now()
	if err := f.Validate(); err != nil {
		return LinearNoise{}, err
	}
	f = f.withDefaults()
	r := f.Refresh.withDefaults()
	m, err := NewRefreshMap(f.Refresh)
	if err != nil {
		return LinearNoise{}, err
	}
	svc := r.Service
	P := svc.PhaseCount()
	x = append([]float64(nil), x...)
	normalise(x)
	out := LinearNoise{Servers: f.Servers}
	res, err := m.Apply(nil, x)
	out.Maps++
	if err != nil {
		return out, err
	}
	if d := l1(res.Next, x); d > 1e-6 {
		return out, fmt.Errorf("%w: the state moves by %.3g (L1) in one map", ErrNotBalanced, d)
	}
	out.BoardMean, out.Response = res.BoardMean, res.Response
	out.Window, out.CutPhase = res.Window, res.CutPhase

	// 1. The Jacobian.
	prob, err := out.linearise(m, x, f.RowMin, r.Period)
	if err != nil {
		return out, err
	}
	n, J := out.Rows, out.Jacobian

	// 2. The noise.
	nz, err := periodNoise(r, m, x, res, n)
	out.Maps += nz.maps
	if err != nil {
		return out, err
	}
	out.Noise, out.Arrival, out.Truncation, out.MapCheck = nz.Q, nz.a, nz.lost, nz.check
	Q := nz.Q
	a := nz.a

	// 3. The stationary covariance.
	S, err := DiscreteLyapunov(J, Q)
	if err != nil {
		return out, err
	}
	out.Cov = S
	N := float64(f.Servers)
	mean := boardMeanGradient(n, P)
	out.BoardMeanSD = math.Sqrt(max(0, quad(S, mean)) / N)

	// 4. The 1/N terms.
	if err := out.refine(prob, m, x, n, P, f.RowMin); err != nil {
		return out, err
	}
	out.RefinedBoardMean = out.BoardMean + out.BoardMeanTerm/N
	out.RefinedResponse = out.Response + out.ResponseTerm/N

	// 5. The border.
	board := x
	if P > 1 {
		board = svc.Board(x)
	}
	out.border(r, board, a)
	out.Runtime = time.Since(start)
	return out, nil
}

// linearise sets Rows, State, Jacobian and SpectralRadius of ln from the
// fixed point x of m, step 1 of LineariseAt: J = DF on the rows of x
// holding at least rowMin (fixedpoint.Jacobian), and its spectral radius
// on boards of unit mass, which must be below 1 (ErrNotBalanced otherwise;
// period is T, for the message). It returns the truncated problem, whose
// map the 1/N terms difference.
func (ln *LinearNoise) linearise(m *RefreshMap, x []float64, rowMin, period float64) (fixedpoint.Problem, error) {
	maps := 0
	prob, xs, err := truncatedProblem(m, x, rowMin, &maps)
	if err != nil {
		return prob, err
	}
	n := len(xs)
	J, err := fixedpoint.Jacobian(prob, xs, nil)
	ln.Maps += maps
	if err != nil {
		return prob, fmt.Errorf("meanfield: finite fleet: jacobian: %w", err)
	}
	ln.Rows, ln.State, ln.Jacobian = n, xs, J
	ev, err := fixedpoint.Eigenvalues(fixedpoint.Problem{F: prob.F, Jacobian: func(dst *mat.Dense, _ []float64) error {
		dst.Copy(J)
		return nil
	}}, xs, &fixedpoint.SpectrumSettings{Subspace: fixedpoint.SumZero(n)})
	if err != nil {
		return prob, fmt.Errorf("meanfield: finite fleet: spectrum: %w", err)
	}
	ln.SpectralRadius = fixedpoint.SpectralRadius(ev)
	if !(ln.SpectralRadius < 1) {
		return prob, fmt.Errorf("%w: spectral radius %.4g at T = %v", ErrNotBalanced, ln.SpectralRadius, period)
	}
	return prob, nil
}

// border sets the crossing variable of the cut window's end, step 5 of
// LineariseAt (package doc, §8, (8.5)), from ln's Window, Jacobian, Cov and
// Servers: board is the board of the fixed point and a the arrivals'
// response (8.2).
func (ln *LinearNoise) border(r Refresh, board, a []float64) {
	n, P := ln.Rows, r.Service.PhaseCount()
	J, S, N := ln.Jacobian, ln.Cov, float64(ln.Servers)
	k, lam, T := float64(r.Dispatchers), r.Load, r.Period
	tauEnd, tauStart := windowEnds(r.Dispatchers, lam, T, board)
	ln.Border, ln.StartBorder = tauEnd-T, T-tauStart
	g := borderGradient(k, lam, ln.Window+1, n, P)
	vEta := T / (lam * N)
	vs := quad(S, g)/N + vEta
	ln.BorderSD = math.Sqrt(vs)
	ln.BorderZ = ln.Border / ln.BorderSD
	// Cov(s_n, s_{n+1}) = gᵀJΣg/N − gᵀa·Var η (package doc, §8, (8.5)).
	var JS mat.Dense
	JS.Mul(J, S)
	cov1 := bilinear(&JS, g, g)/N - dotv(g, a)*vEta
	ln.BorderCorrelation = max(-1, min(1, cov1/vs))
	ln.CrossPerPeriod = normalCDF(-ln.BorderZ)
	ln.UpcrossPerPeriod = upcross(ln.BorderZ, ln.BorderCorrelation)
	gs := borderGradient(k, lam, ln.Window, n, P)
	ln.StartBorderZ = ln.StartBorder / math.Sqrt(quad(S, gs)/N+vEta)
}

// normalise scales x to unit sum.
func normalise(x []float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	for i := range x {
		x[i] /= s
	}
}

// boardMeanGradient returns the gradient of the board mean Σ_b b·p_b on
// the first n entries of a state with P phases.
func boardMeanGradient(n, P int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = float64(stateRow(i, P))
	}
	return g
}

// stateRow returns the queue length of entry i of a state with P phases
// (Service's layout: entry 0 is q = 0, entry 1 + (q−1)·P + ph is q).
func stateRow(i, P int) int {
	if i == 0 {
		return 0
	}
	return 1 + (i-1)/P
}

// borderGradient returns ∂τ_v/∂x on the first n entries: τ_v = (k/λ)
// Σ_{u<v} F(u), so a unit of mass moved into row b moves τ_v by
// (k/λ)·(v − b)⁺ (package doc, §2; for perturbations of zero mass).
func borderGradient(k, lam float64, v, n, P int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = k / lam * float64(max(0, v-stateRow(i, P)))
	}
	return g
}

// windowEnds returns τ_{c+1} and τ_c for the board p at period T.
func windowEnds(k int, lam, T float64, p []float64) (end, start float64) {
	var F, tau float64
	for v := 0; ; v++ {
		if v < len(p)-1 {
			F += p[v]
		} else {
			F = 1
		}
		w := float64(k) * F / lam
		if w > 0 && tau+w > T {
			return tau + w, tau
		}
		tau += w
	}
}

func quad(S mat.Symmetric, g []float64) float64 {
	v := mat.NewVecDense(len(g), g)
	return mat.Inner(v, S, v)
}

func bilinear(A mat.Matrix, x, y []float64) float64 {
	return mat.Inner(mat.NewVecDense(len(x), x), A, mat.NewVecDense(len(y), y))
}

func dotv(a, b []float64) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += a[i] * b[i]
	}
	return s
}

// normalCDF is Φ(x).
func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// upcross returns P(Z_n ≥ z·… ) for the standardised crossing variable:
// the probability that s enters the far side of the border in one period,
// P(s_n ≥ 0, s_{n+1} < 0) = Φ(−z) − Φ₂(−z, −z; ρ) with s of mean z (in SD
// units) and lag-one correlation ρ, Φ₂ the bivariate normal distribution
// function, by Gauss–Legendre quadrature over the correlation (Drezner &
// Wesolowsky 1990): Φ₂(h, h; ρ) = Φ(h)² + (1/2π)∫₀^ρ exp(−h²/(1+r))/√(1−r²) dr.
func upcross(z, rho float64) float64 {
	h := -z
	p1 := normalCDF(h)
	if rho >= 1 {
		return 0
	}
	x, w := gaussLegendre(20)
	// Substitute r = sin θ to remove the endpoint singularity at ρ → ±1.
	th := math.Asin(rho)
	var in float64
	for i := range x {
		t := th * x[i]
		in += w[i] * th * math.Exp(-h*h/(1+math.Sin(t)))
	}
	p2 := p1*p1 + in/(2*math.Pi)
	return max(0, p1-p2)
}

// DiscreteLyapunov solves Σ = AΣAᵀ + Q for a matrix A of spectral radius
// below 1 and a symmetric Q by Smith's doubling (R. A. Smith, Matrix
// equation XA + BX = C, SIAM J. Appl. Math. 16(1), 1968): Σ₀ = Q, A₀ = A,
// Σ_{j+1} = Σ_j + A_j Σ_j A_jᵀ, A_{j+1} = A_j², so that Σ_j sums the first
// 2^j terms of Σ = Σ_i A^i Q (Aᵀ)^i. It stops when ‖A_j‖_F ≤ 10⁻¹⁴ (every
// term left is smaller than that times ‖Σ‖) and fails, wrapping
// ErrNotConverged, after 60 doublings (a spectral radius at or above 1).
func DiscreteLyapunov(A mat.Matrix, Q mat.Symmetric) (*mat.SymDense, error) {
	n, c := A.Dims()
	if n != c || Q.SymmetricDim() != n {
		panic("meanfield: DiscreteLyapunov: dimension mismatch")
	}
	S := mat.NewDense(n, n, nil)
	S.Copy(Q)
	Aj := mat.DenseCopyOf(A)
	var t, u mat.Dense
	for range 60 {
		if mat.Norm(Aj, 2) <= 1e-14 || mat.Norm(Aj, math.Inf(1)) <= 1e-14 {
			return symmetrise(S), nil
		}
		t.Mul(Aj, S)
		u.Mul(&t, Aj.T())
		S.Add(S, &u)
		t.Mul(Aj, Aj)
		Aj.Copy(&t)
		if !finiteDense(Aj) || mat.Norm(Aj, math.Inf(1)) > 1e100 {
			break
		}
	}
	return nil, fmt.Errorf("meanfield: lyapunov: %w: the doubling does not contract (spectral radius ≥ 1)", ErrNotConverged)
}

func finiteDense(A *mat.Dense) bool {
	r, c := A.Dims()
	for i := range r {
		for j := range c {
			if v := A.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

func symmetrise(S *mat.Dense) *mat.SymDense {
	n, _ := S.Dims()
	out := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			out.SetSym(i, j, (S.At(i, j)+S.At(j, i))/2)
		}
	}
	return out
}

// refine computes the 1/N terms of the board mean and the response
// (package doc, §8, (8.4)) at the fixed point (biasTerms on the map's
// first n rows, the tail held at x*).
func (ln *LinearNoise) refine(prob fixedpoint.Problem, m *RefreshMap, x []float64, n, P int, rowMin float64) error {
	full := append([]float64(nil), x...)
	full = append(full, make([]float64, 8)...)
	base := append([]float64(nil), full...)
	eval := func(y []float64) ([]float64, float64, error) {
		copy(full, base)
		for i := range n {
			full[i] = max(y[i], 0)
		}
		res, err := m.Apply(nil, full)
		ln.Maps++
		if err != nil {
			return nil, 0, err
		}
		nx := make([]float64, n)
		copy(nx, res.Next)
		return nx, res.Response, nil
	}
	step := func(v []float64) float64 { return stepFor(ln.State, v, prob, rowMin) }
	c, d2, err := biasTerms(eval, ln.State, ln.Jacobian, ln.Cov, step)
	if err != nil {
		return err
	}
	ln.BoardMeanTerm = dotv(boardMeanGradient(n, P), c)
	// ∇R·c by a central difference along c (step zeroes c on rows below
	// RowMin, after the board-mean term above has used them).
	t := step(c)
	y := make([]float64, n)
	for r := range n {
		y[r] = ln.State[r] + t*c[r]
	}
	_, rp, err := eval(y)
	if err != nil {
		return err
	}
	for r := range n {
		y[r] = ln.State[r] - t*c[r]
	}
	_, rm, err := eval(y)
	if err != nil {
		return err
	}
	ln.ResponseTerm = (rp-rm)/(2*t) + d2
	return nil
}

// biasTerms returns the refined-mean-field bias of the stationary state of
// the noisy map x_{n+1} = F(x_n) + ε_n (Cov ε = Q/N) around its fixed point
// x*: E x = x* + c/N + O(N⁻²) with
//
//	c = (I − J)⁻¹·½ Σ_ij ∂²F/∂x_i∂x_j (x*)·Σ_ij        (package doc, §8, (8.4)),
//
// and the 1/N term ½ Σ_ij ∂²R/∂x_i∂x_j·Σ_ij of an observable R of the state
// (R's own bias ∇R·c is the caller's). The contraction with Σ is taken over
// the eigenpairs Σ = Σ_m v_m v_mᵀ (v_m = √s_m·u_m) that carry all but 10⁻⁸
// of its trace, each ∂²F[v_m, v_m] a central second difference
// (F(x* + t·v) + F(x* − t·v) − 2F(x*))/t² with t = step(v). eval returns
// F and R at a state.
func biasTerms(eval func(y []float64) ([]float64, float64, error), x []float64, J *mat.Dense, cov *mat.SymDense, step func(v []float64) float64) (c []float64, d2r float64, err error) {
	n := len(x)
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return nil, 0, fmt.Errorf("meanfield: finite fleet: %w: eigen decomposition of the covariance", ErrNotConverged)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	var trace float64
	for _, s := range vals {
		trace += max(s, 0)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sortByDesc(order, vals)
	f0, r0, err := eval(x)
	if err != nil {
		return nil, 0, err
	}
	h := make([]float64, n)
	y := make([]float64, n)
	v := make([]float64, n)
	var done float64
	for _, i := range order {
		s := vals[i]
		if s <= 0 || done >= (1-1e-8)*trace {
			break
		}
		done += s
		sq := math.Sqrt(s)
		for r := range n {
			v[r] = sq * vecs.At(r, i)
		}
		t := step(v)
		for r := range n {
			y[r] = x[r] + t*v[r]
		}
		fp, rp, err := eval(y)
		if err != nil {
			return nil, 0, err
		}
		for r := range n {
			y[r] = x[r] - t*v[r]
		}
		fm, rm, err := eval(y)
		if err != nil {
			return nil, 0, err
		}
		for r := range n {
			h[r] += 0.5 * (fp[r] + fm[r] - 2*f0[r]) / (t * t)
		}
		d2r += 0.5 * (rp + rm - 2*r0) / (t * t)
	}
	var IJ mat.Dense
	IJ.Scale(-1, J)
	for i := range n {
		IJ.Set(i, i, IJ.At(i, i)+1)
	}
	var cv mat.VecDense
	if err := cv.SolveVec(&IJ, mat.NewVecDense(n, h)); err != nil {
		return nil, 0, fmt.Errorf("meanfield: finite fleet: bias: %w", err)
	}
	return cv.RawVector().Data, d2r, nil
}

// stepFor returns the step t of a central difference along v at x: small
// (t·‖v‖∞ ≤ 10⁻⁴), keeping every row at least half its value and both
// x ± t·v on the piece of the map that holds x (prob.Kink). It first sets
// to zero v's entries on the rows of x below floor (the truncation's
// RowMin), which it then leaves as they are: with phase-type sizes the
// truncated state keeps every entry up to the last row holding mass, and
// next to it a phase may hold almost none (4·10⁻³² at k = 3, λ = 0.8,
// T = 40, h2:4), so that half its value bounded t to 10⁻²⁰ and the
// difference quotient was rounding error over t² (a 1/N term of 10¹⁷).
func stepFor(x, v []float64, prob fixedpoint.Problem, floor float64) float64 {
	var vmax float64
	t := math.Inf(1)
	for i, e := range v {
		if x[i] < floor {
			v[i], e = 0, 0
		}
		vmax = max(vmax, math.Abs(e))
		if e != 0 {
			t = min(t, 0.5*x[i]/math.Abs(e))
		}
	}
	if vmax > 0 {
		t = min(t, 1e-4/vmax)
	}
	if prob.Kink != nil {
		neg := make([]float64, len(v))
		for i, e := range v {
			neg[i] = -e
		}
		t = min(t, 0.5*prob.Kink(x, v), 0.5*prob.Kink(x, neg))
	}
	return t
}

// sortByDesc sorts idx by decreasing key[idx].
func sortByDesc(idx []int, key []float64) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && key[idx[j]] > key[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// serverLawSet is the law at T of one server of each board class under the
// mean field's window schedule (package doc, §8, (8.1)).
type serverLawSet struct {
	classes []int       // the board classes b with p_b ≥ minMass
	laws    [][]float64 // M_b, the law at T of a server of class b
	next    []float64   // Σ_b p_b M_b, the map's image
	lost    float64     // mass lost at the top row (weighted by p_b)
	windows int         // windows begun before T
}

// serverLaws computes M_b for every class b of the board p (exponential
// sizes): a server of class b drains until τ_b (b − Pois(τ_b), floored at
// 0), then follows the water's schedule — exactly k arrivals uniform on each
// window [τ_v, τ_v + W_v), v ≥ b, cut at T — by the (queue, arrivals so far)
// chain of Refresh (package doc, §2), here run on each class separately by
// uniformisation. Windows past the top of the board, all of length k/λ, are
// applied as one operator K^m (repeated squaring).
func serverLaws(k int, lam, T float64, p []float64, minMass float64) (*serverLawSet, error) {
	// Rows: a server ends at most k·(windows begun) above its class; start
	// with a margin of two windows and widen while mass is lost at the top.
	R := len(p) + 2*k + 24
	for {
		out, err := serverLawsRows(k, lam, T, p, minMass, R)
		if err != nil || out.lost <= 1e-13 || R >= len(p)+k*(out.windows+1)+24 {
			return out, err
		}
		R = min(2*R, len(p)+k*(out.windows+1)+24)
	}
}

// serverLawsRows is serverLaws on queue rows 0 … R−1.
func serverLawsRows(k int, lam, T float64, p []float64, minMass float64, R int) (*serverLawSet, error) {
	out := &serverLawSet{next: make([]float64, R)}
	for b, w := range p {
		if w >= minMass {
			out.classes = append(out.classes, b)
		}
	}
	if len(out.classes) == 0 {
		return nil, errors.New("meanfield: finite fleet: empty board")
	}
	laws := make([][]float64, len(out.classes))
	for i := range laws {
		laws[i] = make([]float64, R)
	}
	active := out.followWater(laws, k, lam, T, p, R)
	// Classes the water never reached drain for the whole period.
	for c := active; c < len(out.classes); c++ {
		deathLaw(laws[c], out.classes[c], T)
	}
	for c, b := range out.classes {
		var s float64
		for q, x := range laws[c] {
			out.next[q] += p[b] * x
			s += x
		}
		out.lost += p[b] * max(0, 1-s)
	}
	out.laws = laws
	return out, nil
}

// followWater runs the laws of out's classes (laws[c] for class
// out.classes[c], on queue rows 0 … R−1) through the water's windows up to
// T, serverLaws' schedule: class v joins at τ_v with its pure-death law,
// then each window [τ_v, τ_v + W_v), W_v = kF(v)/λ, applies its chain,
// the cut window up to T. It sets out.windows and returns the number of
// classes that joined the water (the first ones).
func (out *serverLawSet) followWater(laws [][]float64, k int, lam, T float64, p []float64, R int) int {
	top := len(p) - 1
	lastClass := out.classes[len(out.classes)-1]
	ws := &chainWS{R: R, k: k}
	ws.grow()
	active := 0 // classes[:active] have joined the water
	tmp := make([]float64, R)
	var F, tau float64
	for v := 0; ; v++ {
		if v < top {
			F += p[v]
		} else {
			F = 1
		}
		// Class v joins the water at τ_v with its pure-death law.
		for active < len(out.classes) && out.classes[active] == v {
			deathLaw(laws[active], v, tau)
			active++
		}
		w := float64(k) * F / lam
		if w == 0 {
			continue
		}
		if tau+w <= T {
			// Far windows: identical, no class left to join.
			if 1-F <= 1e-14 && v >= lastClass {
				mfar := int(math.Floor((T - tau) / w))
				if tau+float64(mfar)*w > T {
					mfar--
				}
				if mfar >= 2 && mfar*active > R {
					ws.power(laws[:active], w, mfar)
					tau += float64(mfar) * w
					v += mfar - 1
					continue
				}
			}
			for c := range active {
				ws.run(tmp, laws[c], w, w)
				copy(laws[c], tmp)
			}
			tau += w
			continue
		}
		// The cut window.
		out.windows = v + 1
		l := T - tau
		for c := range active {
			ws.run(tmp, laws[c], w, l)
			copy(laws[c], tmp)
		}
		return active
	}
}

// deathLaw writes into dst the law at time t of a pure-death process at
// rate 1 started at b: b − d with probability Pois(t; d) for d < b, 0 with
// the rest.
func deathLaw(dst []float64, b int, t float64) {
	clear(dst)
	if t <= 0 {
		dst[b] = 1
		return
	}
	var s float64
	lt := math.Log(t)
	for d := range b {
		lg, _ := math.Lgamma(float64(d) + 1)
		pd := math.Exp(float64(d)*lt - t - lg)
		dst[b-d] = pd
		s += pd
	}
	dst[0] = max(0, 1-s)
}

// chainWS runs the (queue q, arrivals so far j) chain of one window
// (package doc, §2): k arrivals at independent uniform times on a window of
// length w, exponential service at rate 1, as a Poisson process of rate
// r = k/(2w) conditioned on k points, solved by uniformisation at Λ = r + 1.
type chainWS struct {
	R, k          int
	cur, nxt, acc []float64 // j-major: x[j·R + q]
	unit, col     []float64
}

func (c *chainWS) grow() {
	n := (c.k + 1) * c.R
	c.cur, c.nxt, c.acc = make([]float64, n), make([]float64, n), make([]float64, n)
	c.unit, c.col = make([]float64, c.R), make([]float64, c.R)
}

// run writes into out the law at time l ≤ w into the window of a server
// that enters it with law x (no arrival yet): P(q at l) = Σ_j u_l(q, j)·
// Pois(r(w − l); k − j)/Pois(rw; k), u the unconditioned chain.
func (c *chainWS) run(out, x []float64, w, l float64) {
	R, k := c.R, c.k
	r := float64(k) / (2 * w)
	L := r + 1
	pa, pd := r/L, 1/L
	cur, nxt, acc := c.cur, c.nxt, c.acc
	clear(cur)
	clear(acc)
	copy(cur[:R], x)
	hi := 0 // rows [0, hi) may hold mass, per all slices
	for q := R - 1; q >= 0; q-- {
		if x[q] != 0 {
			hi = q + 1
			break
		}
	}
	mu := L * l
	wt := math.Exp(-mu)
	for n := 0; ; n++ {
		for j := 0; j <= k; j++ {
			cj, aj := cur[j*R:j*R+hi], acc[j*R:]
			for q, v := range cj {
				aj[q] += wt * v
			}
		}
		rho := mu / float64(n+1)
		if float64(n) > mu && (wt*rho/(1-rho) < 1e-18 || wt == 0) {
			break
		}
		// One uniformised step.
		nh := min(R, hi+1)
		clear(nxt[:(k+1)*R])
		for j := 0; j <= k; j++ {
			cj, nj := cur[j*R:j*R+hi], nxt[j*R:(j+1)*R]
			for q, v := range cj {
				if v == 0 {
					continue
				}
				if q > 0 {
					nj[q-1] += pd * v
				} else {
					nj[0] += pd * v
				}
				if j < k && q+1 < R {
					nxt[(j+1)*R+q+1] += pa * v
				}
			}
		}
		cur, nxt = nxt, cur
		hi = nh
		wt *= rho
	}
	c.cur, c.nxt = cur, nxt
	pk := poissonAt(r*w, k)
	clear(out)
	for j := 0; j <= k; j++ {
		wj := poissonAt(r*(w-l), k-j) / pk
		if wj == 0 {
			continue
		}
		aj := acc[j*R : (j+1)*R]
		for q, v := range aj {
			out[q] += wj * v
		}
	}
}

// power applies m identical full windows of length w to each law in xs,
// as K^m with K the window operator (column q: run from row q), by
// repeated squaring.
func (c *chainWS) power(xs [][]float64, w float64, m int) {
	R := c.R
	K := mat.NewDense(R, R, nil)
	for q := range R {
		clear(c.unit)
		c.unit[q] = 1
		c.run(c.col, c.unit, w, w)
		for i, v := range c.col {
			K.Set(i, q, v)
		}
	}
	X := mat.NewDense(R, len(xs), nil)
	for j, x := range xs {
		for i, v := range x {
			X.Set(i, j, v)
		}
	}
	for m > 0 {
		if m&1 == 1 {
			var t mat.Dense
			t.Mul(K, X)
			X = &t
		}
		m >>= 1
		if m > 0 {
			var t mat.Dense
			t.Mul(K, K)
			K = &t
		}
	}
	for j, x := range xs {
		for i := range x {
			x[i] = X.At(i, j)
		}
	}
}

// arrivalRateResponse returns a = (λ/T)·∂F/∂λ at the state x (res its
// map application): the change of the next state per unit of time by which
// the period's arrivals run ahead of their mean, when the surplus is spread
// evenly over the period (package doc, §8, (8.2)). The derivative is a
// central difference in the load with a step that moves no window boundary
// across T (the boundaries scale as 1/λ).
func arrivalRateResponse(r Refresh, x []float64, res RefreshResult) ([]float64, error) {
	lam, T := r.Load, r.Period
	h := min(1e-5*lam, 0.25*res.KinkDistance*lam/T)
	if !(h > 0) {
		return nil, fmt.Errorf("meanfield: finite fleet: T = %v lies on a window boundary", T)
	}
	at := func(l float64) ([]float64, error) {
		rr := r
		rr.Load = l
		m, err := NewRefreshMap(rr)
		if err != nil {
			return nil, err
		}
		o, err := m.Apply(nil, x)
		return o.Next, err
	}
	up, err := at(lam + h)
	if err != nil {
		return nil, err
	}
	dn, err := at(lam - h)
	if err != nil {
		return nil, err
	}
	a := make([]float64, max(len(up), len(dn)))
	for i := range a {
		var u, d float64
		if i < len(up) {
			u = up[i]
		}
		if i < len(dn) {
			d = dn[i]
		}
		a[i] = lam / T * (u - d) / (2 * h)
	}
	return a, nil
}

// noise is one period's noise covariance per server (package doc, §8,
// (8.2)) and what it was made of.
type noise struct {
	Q     *mat.SymDense
	a     []float64
	lost  float64
	check float64
	maps  int
}

// periodNoise returns Q = Σ_b p_b (diag(M_b) − M_b M_bᵀ) + (T/λ)·a·aᵀ on the
// first n rows of the state x (a fixed point; res its map application).
func periodNoise(r Refresh, m *RefreshMap, x []float64, res RefreshResult, n int) (noise, error) {
	var nz noise
	P := r.Service.PhaseCount()
	Q := mat.NewSymDense(n, nil)
	if P == 1 {
		sl, err := serverLaws(r.Dispatchers, r.Load, r.Period, x, 1e-15)
		if err != nil {
			return nz, err
		}
		nz.lost = sl.lost
		nz.check = l1(sl.next, res.Next)
		// Σ_b p_b (diag(M_b) − M_b M_bᵀ), rows beyond n dropped.
		for c, b := range sl.classes {
			mb := sl.laws[c]
			w := x[b]
			for i := 0; i < n && i < len(mb); i++ {
				if mb[i] == 0 {
					continue
				}
				Q.SetSym(i, i, Q.At(i, i)+w*mb[i])
				for j := i; j < n && j < len(mb); j++ {
					Q.SetSym(i, j, Q.At(i, j)-w*mb[i]*mb[j])
				}
			}
		}
	} else {
		// Phase-type sizes: servers taken as forgetting their class.
		next := res.Next
		for i := 0; i < n && i < len(next); i++ {
			for j := i; j < n && j < len(next); j++ {
				v := -next[i] * next[j]
				if i == j {
					v += next[i]
				}
				Q.SetSym(i, j, v)
			}
		}
	}
	a, err := arrivalRateResponse(r, x, res)
	nz.maps += 2
	if err != nil {
		return nz, err
	}
	a = append(a[:0:0], a...)
	if len(a) < n {
		a = append(a, make([]float64, n-len(a))...)
	}
	a = a[:n]
	ta := r.Period / r.Load
	for i := range n {
		for j := i; j < n; j++ {
			Q.SetSym(i, j, Q.At(i, j)+ta*a[i]*a[j])
		}
	}
	nz.Q, nz.a = Q, a
	return nz, nil
}

// FiniteEdgeSettings controls FiniteEdge. The zero value of every optional
// field means its default.
type FiniteEdgeSettings struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Load is λ, in (0, 1).
	Load float64
	// Service is the job-size law (zero value: exponential).
	Service Service
	// Servers is N, in [2, 1e9].
	Servers int
	// Refreshes is the run length R in refresh periods, in [10, 1e6]: the
	// edge is where a run tips within R periods with probability ½. Zero
	// means 1000, herd bracket's.
	Refreshes int
	// Replications is the number of runs per period, in [2, 1000]. Zero
	// means 6 (herd bracket's runs per point).
	Replications int
	// ModelScaled is the map's edge T_edge(1−λ)² (Edge's Scaled), where
	// the search starts, in (0, 1000]. Zero computes it by Edge.
	ModelScaled float64
	// Levels is the number of bisections after the scan, in [0, 10]. Zero
	// means 3; a negative value means none.
	Levels int
	// Seed is the master seed; each run's seed is mixed from it, the
	// probe's place relative to ModelScaled (x/ModelScaled, an exact binary
	// fraction of the scan and bisection, not the bits of x, so that the
	// runs do not change when the model edge moves in its last bits) and
	// the replication.
	Seed uint64
	// Workers is the number of runs computed at once, in [0, 64]; zero
	// means 1. The result does not depend on it.
	Workers int
	// RowMin is FiniteN.RowMin for the noise.
	RowMin float64
	// Particles chooses the runs (package doc, §8.6): the zero value,
	// ParticlesAuto, runs the servers for phase-type sizes up to
	// ServerParticlesMaxN and the board otherwise.
	Particles Particles
	// Stop, when not nil, is polled before every period of every run,
	// and after the maps of the map's edge search when ModelScaled is 0;
	// once it reports true the search returns with an error wrapping
	// ErrStopped (herd's Ctrl-C). It is not a setting of the computation.
	Stop func() bool `json:"-"`
	// Progress, when not nil, is called after each probed period with the
	// probes done and the fewest still to come (FiniteEdgeProgress), for
	// an estimate of the time left. It is not a setting of the
	// computation.
	Progress func(FiniteEdgeProgress) `json:"-"`
	// Journal, when not nil, keeps each run as it finishes, and a run it
	// already holds is taken from it instead of being run (finitejournal.go):
	// given an interrupted search's journal, the search ends with the
	// uninterrupted one's result. It must come from a search with the same
	// settings (Workers, Stop and Progress aside).
	Journal *FiniteJournal `json:"-"`
}

// FiniteEdgeProgress is FiniteEdge's report after each probed period.
type FiniteEdgeProgress struct {
	// Done is the number of probes finished. Left is the fewest still to
	// come: the bisections left, plus one while the scan goes on (the scan
	// doubles its step until at most half the runs tip, so it may take
	// more).
	Done, Left int
	// ProbePeriods is the most refresh periods one probe runs,
	// Replications × Refreshes (runs that tip stop early, so probes below
	// the edge cost less).
	ProbePeriods int
}

// Validate reports the first setting out of range, naming the field.
func (s FiniteEdgeSettings) Validate() error {
	if s.Dispatchers < 1 || s.Dispatchers > 256 {
		return fmt.Errorf("meanfield: finite edge: Dispatchers = %d, want an integer in [1, 256]", s.Dispatchers)
	}
	if !(s.Load > 0 && s.Load < 1) {
		return fmt.Errorf("meanfield: finite edge: Load = %v, want a value in (0, 1)", s.Load)
	}
	if err := s.Service.Validate(); err != nil {
		return err
	}
	if s.Servers < 2 || s.Servers > 1e9 {
		return fmt.Errorf("meanfield: finite edge: Servers = %d, want an integer in [2, 1e9]", s.Servers)
	}
	if s.Refreshes != 0 && (s.Refreshes < 10 || s.Refreshes > 1e6) {
		return fmt.Errorf("meanfield: finite edge: Refreshes = %d, want 0 (default 1000) or an integer in [10, 1e6]", s.Refreshes)
	}
	if s.Replications != 0 && (s.Replications < 2 || s.Replications > 1000) {
		return fmt.Errorf("meanfield: finite edge: Replications = %d, want 0 (default 6) or an integer in [2, 1000]", s.Replications)
	}
	if s.ModelScaled != 0 && !(s.ModelScaled > 0 && s.ModelScaled <= 1000) {
		return fmt.Errorf("meanfield: finite edge: ModelScaled = %v, want 0 (computed) or a value in (0, 1000]", s.ModelScaled)
	}
	if s.Levels > 10 {
		return fmt.Errorf("meanfield: finite edge: Levels = %d, want at most 10", s.Levels)
	}
	if s.Workers < 0 || s.Workers > 64 {
		return fmt.Errorf("meanfield: finite edge: Workers = %d, want an integer in [0, 64]", s.Workers)
	}
	if s.RowMin != 0 && !(s.RowMin >= 1e-14 && s.RowMin <= 1e-3) {
		return fmt.Errorf("meanfield: finite edge: RowMin = %v, want 0 (default) or a value in [1e-14, 1e-3]", s.RowMin)
	}
	return validParticles(s.Particles, s.Servers)
}

// validParticles reports a Particles out of range, or the servers' runs
// asked for more servers than they take.
func validParticles(p Particles, N int) error {
	if p < ParticlesAuto || p > ParticlesServers {
		return fmt.Errorf("meanfield: finite fleet: Particles = %d, want auto, board or servers", int(p))
	}
	if p == ParticlesServers && N > ServerParticlesMaxN {
		return fmt.Errorf("meanfield: finite fleet: Particles = servers takes Servers in [2, %d], not %d", ServerParticlesMaxN, N)
	}
	return nil
}

func (s FiniteEdgeSettings) withDefaults() FiniteEdgeSettings {
	if s.Refreshes == 0 {
		s.Refreshes = 1000
	}
	if s.Replications == 0 {
		s.Replications = 6
	}
	if s.Levels == 0 {
		s.Levels = 3
	} else if s.Levels < 0 {
		s.Levels = 0
	}
	if s.Workers == 0 {
		s.Workers = 1
	}
	if s.RowMin == 0 {
		s.RowMin = DefaultFiniteRowMin
	}
	return s
}

// FiniteEdgePoint is one period of FiniteEdge's search: the runs of the
// particle map there.
type FiniteEdgePoint struct {
	// Scaled is T(1−λ)², Refresh is T.
	Scaled, Refresh float64
	// Balanced reports that the empty board reaches a balanced fixed point
	// of the map; where it does not, no run is made and the point counts
	// as tipped.
	Balanced bool
	// Runs and Tipped count the runs and those that tipped within the run
	// length; Exposure sums the periods watched (a tipped run's to its
	// tipping); MedianTip is the median tipping period of those that
	// tipped (NaN if none).
	Runs, Tipped int
	Exposure     float64
	MedianTip    float64
	// Response is the mean time in system averaged over the periods of the
	// runs that did not tip (after the first tenth of the run; NaN in
	// FiniteEdge's points, which do not compute it), and
	// ResponseSE its standard error across those runs (NaN with fewer than
	// two).
	Response, ResponseSE float64

	key float64 // the runs' seed key: x/ModelScaled as FiniteEdge placed the probe
}

// FiniteEdgeResult is the finite-N edge of FiniteEdge.
type FiniteEdgeResult struct {
	// Status is Found, or NotFound when the runs still tip with
	// probability at least ½ at the scan's last probe, 1.64 times the map's
	// edge.
	Status Status
	// Servers and Refreshes are N and the run length R.
	Servers, Refreshes int
	// Scaled and Refresh are the predicted edge, T_½(1−λ)² and T_½: the
	// period at which a run from the empty board tips within R periods with
	// probability ½, from the fitted hazard.
	Scaled, Refresh float64
	// Lower and Upper bound Scaled (scaled): the 95% interval of the
	// hazard fit, widened to the search's own bracket where the fit is not
	// usable (HazardFit false).
	Lower, Upper float64
	// HazardFit reports that the exponential-hazard fit was used;
	// HazardSlope is its d(log κ)/d(T(1−λ)²).
	HazardFit   bool
	HazardSlope float64
	// ModelScaled is the map's edge the search started from, and
	// ModelMaps the maps FiniteEdge spent finding it (0 when it was given,
	// FiniteEdgeSettings.ModelScaled); Stats.Maps includes them.
	ModelScaled float64
	ModelMaps   int
	// Points lists the periods run, in increasing T.
	Points []FiniteEdgePoint
	Stats
}

// FiniteEdge predicts the edge of the balanced state at N servers for a run
// length of R refreshes (package doc, §8): the refresh period T_½ at which
// the finite system, started from the empty board, tips within R periods
// with probability ½ by herd bracket's detector (board mean above
// max(3/(1−λ), 0.1·T) for 5 periods in a row).
//
// Method (package doc, §8, (8.6)). The fluctuations of the board at the
// sizes of interest span more than a window (LinearNoise.BorderZ is of
// order 0.1–1 at N = 100), so the linear-noise picture, which lives on one
// smooth piece of the map, cannot say when a run tips. FiniteEdge instead
// runs the particle map (particleMaps.run): each period the next board is
// the empirical law of N draws from F(x_n) computed at a load λ(1 + ε_n)
// that carries the period's arrival count, so the run keeps the map's exact
// nonlinear drift across its pieces and the noise of (8.2) (with every
// server forgetting its class), or, as Particles chooses (the default for
// phase-type sizes), runs the N servers themselves, each keeping its
// state, each dispatcher on its own clock (serverRun). At each period Replications runs are made
// from the empty board, provided the map itself reaches a balanced state
// from it there (a period where it does not counts as tipped, with no
// run). The scan starts 1%
// above ModelScaled and doubles its step until at most half the runs tip;
// the last step is bisected Levels times. A constant hazard κ(T) = exp(α
// + β·(T(1−λ)² − x₀)) is fitted to all the runs by maximum likelihood
// (tips and exposures), and T_½ solves κ·R = ln 2; its 95% interval is
// the delta method's.
func FiniteEdge(s FiniteEdgeSettings) (FiniteEdgeResult, error) {
	start := time.Now()
	if err := s.Validate(); err != nil {
		return FiniteEdgeResult{}, err
	}
	s = s.withDefaults()
	out := FiniteEdgeResult{Servers: s.Servers, Refreshes: s.Refreshes, Scaled: math.NaN(), Refresh: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
	x0 := s.ModelScaled
	if x0 == 0 {
		e, err := Edge(EdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: s.Service, Workers: s.Workers, HerdMaps: -1, Stop: s.Stop})
		out.Maps += e.Maps
		out.ModelMaps = e.Maps
		if err != nil {
			return out, err
		}
		if e.Status != Found {
			return out, fmt.Errorf("meanfield: finite edge: the map has no edge at k = %d, λ = %v", s.Dispatchers, s.Load)
		}
		x0 = e.Scaled
	}
	out.ModelScaled = x0
	scale := (1 - s.Load) * (1 - s.Load)
	half := func(p FiniteEdgePoint) bool { return !p.Balanced || 2*p.Tipped >= p.Runs }
	var pts []FiniteEdgePoint
	maps := newParticleMapSets(s.Workers) // one set per worker, kept over the search
	// Probes are placed by rel = x/x0, which also keys their runs' seeds.
	probe := func(rel float64) (FiniteEdgePoint, error) {
		x := x0 * rel
		p, err := finiteProbe(s, x, x/scale, rel, maps, &out.Stats)
		if err == nil {
			pts = append(pts, p)
		}
		return p, err
	}
	report := func(left int) {
		if s.Progress != nil {
			s.Progress(FiniteEdgeProgress{Done: len(pts), Left: left, ProbePeriods: s.Replications * s.Refreshes})
		}
	}
	// Scan.
	lo, hi := math.NaN(), math.NaN()
	for step := 0.01; step <= 1.0001; step *= 2 {
		rel := 1 + step
		p, err := probe(rel)
		if err != nil {
			return out, err
		}
		if !half(p) {
			hi = rel
			report(s.Levels)
			break
		}
		lo = rel
		if step*2 <= 1.0001 {
			report(1 + s.Levels)
		}
	}
	if math.IsNaN(hi) {
		out.Status = NotFound
		out.Points = sortPoints(pts)
		out.Runtime = time.Since(start)
		return out, nil
	}
	if math.IsNaN(lo) {
		lo = 1
	}
	bisected := 0
	tipsLess := func(rel float64) (bool, error) { // false at lo, true at hi
		p, err := probe(rel)
		bisected++
		report(s.Levels - bisected)
		return !half(p), err
	}
	lo, hi, err := root.Bisect(tipsLess, lo, hi, root.Halvings(s.Levels))
	if err != nil {
		return out, err
	}
	out.Points = sortPoints(pts)
	out.Status = Found
	out.Lower, out.Upper = x0*lo, x0*hi
	out.Scaled = (out.Lower + out.Upper) / 2
	if xh, se, slope, ok := hazardFit(out.Points, float64(s.Refreshes), x0); ok && xh > x0 && xh < 3*x0 {
		out.HazardFit, out.HazardSlope = true, slope
		out.Scaled = xh
		out.Lower, out.Upper = xh-1.96*se, xh+1.96*se
	}
	out.Refresh = out.Scaled / scale
	out.Runtime = time.Since(start)
	return out, nil
}

func sortPoints(p []FiniteEdgePoint) []FiniteEdgePoint {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].Scaled < p[j-1].Scaled; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	return p
}

// hazardFit fits log κ = α + β·(x − x0) to the balanced points' tips and
// exposures by maximum likelihood (Newton on the concave log-likelihood
// Σ d_i·log κ_i − E_i·κ_i) and returns the x at which κ·R = ln 2, its
// standard error (delta method on the inverse Fisher information) and β.
// It fails when the data cannot fix a decreasing hazard.
func hazardFit(pts []FiniteEdgePoint, R, x0 float64) (x, se, beta float64, ok bool) {
	var d, e float64
	for _, p := range pts {
		if p.Balanced {
			d += float64(p.Tipped)
			e += p.Exposure
		}
	}
	if d == 0 || d == e {
		return 0, 0, 0, false
	}
	alpha, beta := math.Log(d/e), 0.0
	var i00, i01, i11 float64
	for range 100 {
		var g0, g1 float64
		i00, i01, i11 = 0, 0, 0
		for _, p := range pts {
			if !p.Balanced {
				continue
			}
			u := p.Scaled - x0
			k := p.Exposure * math.Exp(alpha+beta*u)
			g0 += float64(p.Tipped) - k
			g1 += (float64(p.Tipped) - k) * u
			i00 += k
			i01 += k * u
			i11 += k * u * u
		}
		det := i00*i11 - i01*i01
		if !(det > 0) {
			return 0, 0, 0, false
		}
		da := (i11*g0 - i01*g1) / det
		db := (i00*g1 - i01*g0) / det
		// Damp long steps.
		if m := math.Max(math.Abs(da), math.Abs(db)); m > 5 {
			da, db = da*5/m, db*5/m
		}
		alpha += da
		beta += db
		if math.Abs(da) < 1e-10 && math.Abs(db) < 1e-10 {
			break
		}
	}
	if !(beta < 0) || math.IsNaN(alpha) {
		return 0, 0, 0, false
	}
	target := math.Log(math.Ln2 / R)
	u := (target - alpha) / beta
	det := i00*i11 - i01*i01
	// Inverse Fisher information.
	v00, v01, v11 := i11/det, -i01/det, i00/det
	g0, g1 := -1/beta, -u/beta
	se = math.Sqrt(max(0, g0*g0*v00+2*g0*g1*v01+g1*g1*v11))
	return x0 + u, se, beta, true
}

// finiteProbe runs the particle map at T = x/(1−λ)² (FiniteEdge) on the
// workers' map sets maps, its runs' seeds keyed by key.
func finiteProbe(s FiniteEdgeSettings, x, T, key float64, maps particleMapSets, st *Stats) (FiniteEdgePoint, error) {
	p := FiniteEdgePoint{Scaled: x, Refresh: T, MedianTip: math.NaN(), Response: math.NaN(), ResponseSE: math.NaN(), key: key}
	r := Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: T, Service: s.Service}
	startBoard := s.Service.Lift(BoardEmpty())
	at, err := FindAttractor(r, startBoard, AttractorSettings{Tol: 1e-12})
	st.Maps += at.Maps
	if err != nil && !errors.Is(err, ErrNotConverged) {
		return p, err
	}
	if !at.Balanced {
		return p, nil
	}
	p.Balanced = true
	q, err := particlePoint(s, r, key, false, maps, st)
	q.Scaled, q.Refresh, q.Balanced, q.key = p.Scaled, p.Refresh, true, key
	return q, err
}

// particlePoint makes s.Replications runs of the particle map of r
// (particleMaps.run), or of its servers (serverRun) as s.Particles
// resolves, from the empty board, each of s.Refreshes periods or
// until it tips, on s.Workers workers (pool.Parallel), each run on a map
// set taken from maps and given back; key mixes the runs' seeds.
func particlePoint(s FiniteEdgeSettings, r Refresh, key float64, response bool, maps particleMapSets, st *Stats) (FiniteEdgePoint, error) {
	p := FiniteEdgePoint{MedianTip: math.NaN(), Response: math.NaN(), ResponseSE: math.NaN()}
	T := r.Period
	startBoard := r.Service.Lift(BoardEmpty())
	theta := max(3/(1-s.Load), 0.1*T)
	servers := s.Particles.Resolve(r.Service, s.Servers) == ParticlesServers
	type runOut struct {
		tip, maps int
		resp      float64
		err       error
	}
	// The journal keeps the edge's runs (no response) as they finish.
	jr := s.Journal
	if response {
		jr = nil
	}
	outs, _ := pool.Parallel(context.Background(), s.Replications, s.Workers, func(i int) (runOut, bool) {
		if rec, ok := jr.recall(key, i); ok {
			return runOut{tip: rec.Tip, maps: rec.Maps, resp: math.NaN()}, true
		}
		seed := mixSeed(s.Seed, math.Float64bits(key), uint64(i))
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var o runOut
		if servers {
			o.tip, o.resp, o.err = serverRun(r, s.Servers, rng, s.Refreshes, theta, response, s.Stop)
		} else {
			pm := <-maps
			o.tip, o.maps, o.resp, o.err = pm.run(r, s.Servers, rng, s.Refreshes, theta, startBoard, response, s.Stop)
			maps <- pm
		}
		if o.err == nil {
			jr.keep(FiniteRunRecord{Key: key, Rep: i, Tip: o.tip, Maps: o.maps})
		}
		return o, true
	}, nil)
	var tips []float64
	var resp []float64
	for _, o := range outs {
		st.Maps += o.maps
		if o.err != nil {
			return p, o.err
		}
		p.Runs++
		if o.tip > 0 {
			p.Tipped++
			p.Exposure += float64(o.tip)
			tips = append(tips, float64(o.tip))
		} else {
			p.Exposure += float64(s.Refreshes)
			if !math.IsNaN(o.resp) {
				resp = append(resp, o.resp)
			}
		}
	}
	if len(tips) > 0 {
		sortFloats(tips)
		p.MedianTip = median(tips)
	}
	if len(resp) > 0 {
		var mu float64
		for _, v := range resp {
			mu += v
		}
		mu /= float64(len(resp))
		p.Response = mu
		if len(resp) > 1 {
			var ss float64
			for _, v := range resp {
				ss += (v - mu) * (v - mu)
			}
			p.ResponseSE = math.Sqrt(ss / float64(len(resp)-1) / float64(len(resp)))
		}
	}
	return p, nil
}

func sortFloats(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func median(a []float64) float64 {
	n := len(a)
	if n%2 == 1 {
		return a[n/2]
	}
	return (a[n/2-1] + a[n/2]) / 2
}

// mixSeed mixes a run's seed from the master seed and its indices with the
// SplitMix64 finaliser.
func mixSeed(vals ...uint64) uint64 {
	var h uint64 = 0x243f6a8885a308d3
	for _, v := range vals {
		h ^= v
		h += 0x9e3779b97f4a7c15
		z := h
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		h = z ^ (z >> 31)
	}
	return h
}

// FiniteRun controls the runs of the particle map that FiniteMean makes.
// The zero value of every field means its default.
type FiniteRun struct {
	// Periods is the length of each run in refresh periods, in
	// [10, 1e6]; the first tenth is discarded. Zero means 1000.
	Periods int
	// Replications is the number of runs, in [2, 1000]. Zero means 8.
	Replications int
	// Seed is the master seed.
	Seed uint64
	// Workers is the number of runs computed at once, in [0, 64]; zero
	// means 1. The result does not depend on it.
	Workers int
	// Particles chooses the runs (ParticlesAuto: Particles.ResolveMean).
	Particles Particles
	// Stop is polled as FiniteEdgeSettings.Stop is.
	Stop func() bool `json:"-"`
}

// FiniteMeanResult is the stationary mean of the particle map at N servers.
type FiniteMeanResult struct {
	// Linear is the linear-noise picture at the balanced fixed point
	// (mean field, 1/N terms, fluctuations).
	Linear LinearNoise
	// Response and ResponseSE: the mean time in system averaged over the
	// runs that did not tip (after their first tenth), and its standard
	// error across runs; NaN when all tipped.
	Response, ResponseSE float64
	// Runs and Tipped count the runs and those that tipped (herd
	// bracket's detector).
	Runs, Tipped int
	Stats
}

// FiniteMean returns the linear-noise picture of f at its balanced fixed
// point (Linearise) and the mean time in system of the particle map
// (particleMaps.run) or of the servers' runs (serverRun), as
// run.Particles resolves, run from the empty board (package doc, §8, (8.6)): the
// finite-N response where the fluctuations span more than a window and the
// 1/N series does not hold.
func FiniteMean(f FiniteN, run FiniteRun) (FiniteMeanResult, error) {
	start := time.Now()
	var out FiniteMeanResult
	if run.Periods == 0 {
		run.Periods = 1000
	}
	if run.Replications == 0 {
		run.Replications = 8
	}
	if run.Workers == 0 {
		run.Workers = 1
	}
	if run.Periods < 10 || run.Periods > 1e6 {
		return out, fmt.Errorf("meanfield: finite mean: Periods = %d, want 0 (default 1000) or an integer in [10, 1e6]", run.Periods)
	}
	if run.Replications < 2 || run.Replications > 1000 {
		return out, fmt.Errorf("meanfield: finite mean: Replications = %d, want 0 (default 8) or an integer in [2, 1000]", run.Replications)
	}
	if run.Workers < 0 || run.Workers > 64 {
		return out, fmt.Errorf("meanfield: finite mean: Workers = %d, want an integer in [0, 64]", run.Workers)
	}
	if err := validParticles(run.Particles, f.Servers); err != nil {
		return out, err
	}
	ln, err := Linearise(f)
	out.Linear = ln
	out.Maps += ln.Maps
	if err != nil {
		return out, err
	}
	f = f.withDefaults()
	r := f.Refresh
	es := FiniteEdgeSettings{Dispatchers: r.Dispatchers, Load: r.Load, Service: r.Service, Servers: f.Servers,
		Refreshes: run.Periods, Replications: run.Replications, Seed: run.Seed, Workers: run.Workers,
		Particles: run.Particles.ResolveMean(f.Servers), Stop: run.Stop}
	// The runs' seeds are keyed by the period, a setting, not by anything
	// the maps compute, so they do not change when the maps' rounding does.
	p, err := particlePoint(es, r, r.Period, true, newParticleMapSets(run.Workers), &out.Stats)
	if err != nil {
		return out, err
	}
	out.Response, out.ResponseSE, out.Runs, out.Tipped = p.Response, p.ResponseSE, p.Runs, p.Tipped
	out.Runtime = time.Since(start)
	return out, nil
}

// particleStep replaces next (a state summing to 1) by the empirical law
// of N independent draws from it (a multinomial sample, by inversion of its
// distribution function: each draw a binary search), so that the state
// stays a board of N servers. For N above 10⁵ it adds the Gaussian noise
// of the same covariance, diag(p) − p·pᵀ, instead (cut at zero).
func particleStep(next []float64, N int, rng *rand.Rand, cdf []float64) ([]float64, []float64) {
	if N <= particleGaussN {
		return particleDraw(next, particleUniforms(nil, N, rng), cdf)
	}
	L := len(next)
	var s float64
	for _, v := range next {
		s += max(v, 0)
	}
	sq := math.Sqrt(1 / float64(N))
	var z0 float64
	zs := make([]float64, L)
	for i, v := range next {
		zs[i] = rng.NormFloat64() * math.Sqrt(max(v, 0)/s)
		z0 += zs[i] * math.Sqrt(max(v, 0)/s)
	}
	var t float64
	for i, v := range next {
		p := max(v, 0) / s
		next[i] = max(0, p+sq*(zs[i]-p*z0))
		t += next[i]
	}
	for i := range next {
		next[i] /= t
	}
	return next, cdf
}

// particleGaussN is the largest N for which particleStep draws the N
// servers; above it, it adds Gaussian noise.
const particleGaussN = 100000

// particleUniforms returns N uniforms in [0, 1) from rng, in us's storage:
// particleStep's draws, in the order it makes them.
func particleUniforms(us []float64, N int, rng *rand.Rand) []float64 {
	us = us[:0]
	for range N {
		us = append(us, rng.Float64())
	}
	return us
}

// particleCDF sets cdf to the running sums of next's entries (negative
// entries, rounding's, count as zero).
func particleCDF(next, cdf []float64) []float64 {
	cdf = cdf[:0]
	var s float64
	for _, v := range next {
		s += max(v, 0)
		cdf = append(cdf, s)
	}
	return cdf
}

// particleRow is the row a uniform u0 falls in by inversion of cdf
// (running sums, total s = cdf[len−1]): the first row whose cumulative
// mass exceeds u0·s, the last row if none does (which rounding can make
// happen).
func particleRow(cdf []float64, u0 float64) int {
	u := u0 * cdf[len(cdf)-1]
	return sort.Search(len(cdf)-1, func(i int) bool { return cdf[i] > u })
}

// particleDraw replaces next (a state) by the empirical law of the draws
// us by inversion of its distribution function (particleRow): each draw
// adds 1/len(us) to its row. Trailing zero rows are dropped.
func particleDraw(next, us, cdf []float64) ([]float64, []float64) {
	cdf = particleCDF(next, cdf)
	rows := make([]int32, len(us))
	for i, u0 := range us {
		rows[i] = int32(particleRow(cdf, u0))
	}
	return particleFill(next, rows), cdf
}

// particleFill sets next to the empirical law of the draws' rows rows (each
// adds 1/len(rows), in order) and drops its trailing zero rows.
func particleFill(next []float64, rows []int32) []float64 {
	clear(next)
	inv := 1 / float64(len(rows))
	for _, r := range rows {
		next[r] += inv
	}
	L := len(next)
	for L > 1 && next[L-1] == 0 {
		L--
	}
	return next[:L]
}

// particleLooseTol returns the tolerance of the particle map's loose map
// for a period at N servers whose previous period's law (the map's output
// before the draws) had L rows, and its slot
// (particleMaps.loose): the power of ten 10^−(5+e), e in [0,
// particleLooseSteps), at or below f/(2·3·N·L), f = 0.02; ok is false
// (no loose map) where that is below 10^−(4+particleLooseSteps) or N >
// particleGaussN. A period is made again on the exact map when one of its
// N draws lies within particleMargin ≈ 3·tl of an end of its row's
// interval, which happens in at most about N·2·3·tl·L ≤ f of the periods,
// so most of the loose map's saving is kept. The choice depends on the run
// alone, and whichever tolerance it picks the period's draws are the exact
// map's (particleMargin).
func particleLooseTol(N, L int) (tl float64, e int, ok bool) {
	want := 0.02 / (6 * float64(N) * float64(max(L, 1)))
	if N > particleGaussN {
		return 0, 0, false
	}
	e = max(0, int(math.Ceil(-math.Log10(want)-1e-9))-5)
	if e >= particleLooseSteps {
		return 0, 0, false
	}
	return math.Pow(10, -float64(5+e)), e, true
}

// particleLooseSteps is the number of loose tolerances, 10⁻⁵ … 10⁻¹⁰.
const particleLooseSteps = 6

// particleMargin bounds the distance between the normalised distribution
// functions (cdf/s) of two applications of the refresh map to the same
// board and settings at the tolerances tl and te, of which the first has
// L rows. It rests on the maps' error budgets: each output lies within
// about Tol of the model's exact map in total variation, since what it
// drops (rows, the uniformisation's tail) is counted in its Truncation,
// kept below Tol, and the renormalised Poisson cuts and the far rows'
// split move it by less than Tol·10⁻⁶ a window (an argument, not checked
// at run time). So the two outputs lie within
// E ≈ tl + te of each other, their running sums too, and the normalised
// ones (a/s − b/t with |a − b|, |s − t| ≤ E and a ≤ s) within 2E/s; the
// factor 3 leaves half again for the shifts, and rounding in the running
// sums and the divisions adds at most a few units of the last place per
// row. TestParticleLooseMargin measures the distance on runs' boards: at
// most 0.17·tl, 18 times inside the margin.
func particleMargin(tl, te float64, L int) float64 {
	return 3*(tl+te) + 8*float64(L+1)*0x1p-52
}

// particleLooseRows finds each draw's row in the loose law next
// (particleRow) and reports whether every draw lies farther than eps from
// both ends of its row's interval of the normalised distribution function
// [cdf[row−1]/s, cdf[row]/s) (taken as 0 below the first row and 1 at the
// last). Where it does, any law whose normalised distribution function
// lies within eps of next's puts every draw in the same row, the last row
// included (beyond next's rows the distribution function is within eps of
// 1).
func particleLooseRows(next, us []float64, eps float64, cdf []float64, rows []int32) ([]int32, []float64, bool) {
	cdf = particleCDF(next, cdf)
	L := len(cdf)
	s := cdf[L-1]
	rows = rows[:0]
	for _, u0 := range us {
		r := particleRow(cdf, u0)
		lower, upper := 0.0, 1.0
		if r > 0 {
			lower = cdf[r-1] / s
		}
		if r < L-1 {
			upper = cdf[r] / s
		}
		if (r > 0 && u0-lower <= eps) || upper-u0 <= eps {
			return rows, cdf, false
		}
		rows = append(rows, int32(r))
	}
	return rows, cdf, true
}

// particleLevels is the number of load levels of the particle map
// (particleMaps.run): the load's noise rounded to 1/4 standard deviation
// and cut at 4 standard deviations either side.
const particleLevels = 33

// particleMaps is one worker's refresh maps for the particle map: the
// board-only map of each load level of the grid, and the full map of the
// period's own load that FiniteMean's runs read the response from. A worker
// keeps its set from run to run and from period to period (mapFor), so the
// far windows' plans (farPlanCache) and the closed form's tables
// (refreshballot.go) that one run builds serve the next instead of being
// built again for every run. Those caches are pure memoisation: RefreshMap.Apply's
// result depends on its settings and input only, whatever the caches hold
// (edgeRun.mapAt relies on the same), so a run's result depends on its seed
// and inputs only, never on which worker ran it or what that worker ran
// before (TestParticleMapsReuse).
//
// Each level also has up to particleLooseSteps loose maps, one per
// tolerance particleLooseTol picks: a period's draws are made from the
// loose map when each lies farther from its row's ends than the two maps
// can differ (particleLooseRows, particleMargin), and from the exact map
// (grid) otherwise, so a run's result is the exact map's, bit for bit.
type particleMaps struct {
	grid  [particleLevels]*RefreshMap
	loose [particleLevels][particleLooseSteps]*RefreshMap
	full  *RefreshMap
	// exactOnly turns the loose maps off, and looseTol > 0 fixes their
	// tolerance (in slot 0): tests compare the ways.
	exactOnly bool
	looseTol  float64
}

// particleMapSets hands each run of particlePoint a map set of its own: a
// run takes one and gives it back when it ends (pool.Parallel gives its
// work no worker index). There are as many sets as workers, and no more
// runs are in flight at once, so a run never waits for a set; which set a
// run gets is left to the scheduler and does not matter (particleMaps).
type particleMapSets chan *particleMaps

// newParticleMapSets returns the sets of workers workers (at least one).
func newParticleMapSets(workers int) particleMapSets {
	c := make(particleMapSets, max(workers, 1))
	for range cap(c) {
		c <- new(particleMaps)
	}
	return c
}

// mapFor returns the map in *slot for the settings r, board-only or not:
// the one there when it was made for the same settings (and boardOnly) but
// for the period, with its period set to r's (the map reads its settings at
// every application; the phase-type map keeps its own copy; as
// edgeRun.mapAt does), otherwise a new map, kept in *slot. r's period must
// be valid.
func mapFor(slot **RefreshMap, r Refresh, boardOnly bool) (*RefreshMap, error) {
	if m := *slot; m != nil && m.boardOnly == boardOnly {
		set := r.withDefaults()
		set.Period = m.set.Period
		if set == m.set {
			m.set.Period = r.Period
			if m.ph != nil {
				m.ph.set.Period = r.Period
			}
			return m, nil
		}
	}
	m, err := NewRefreshMap(r)
	if err != nil {
		return nil, err
	}
	m.boardOnly = boardOnly
	*slot = m
	return m, nil
}

// run iterates the particle map: x_{n+1} is the empirical law of N draws
// from F(x_n) at the load λ(1 + ε_n), ε_n ~ N(0, 1/(λNT)) (the period's
// arrival count; package doc, §8, (8.6)), from start for at most runs
// periods, with herd bracket's detector, on pm's maps (per load level
// used, a loose map and the exact one, made or reset on demand by mapFor).
func (pm *particleMaps) run(r Refresh, N int, rng *rand.Rand, runs int, theta float64, start []float64, response bool, stop func() bool) (tipAt, maps int, resp float64, err error) {
	if err := r.Validate(); err != nil {
		return 0, 0, math.NaN(), err
	}
	x := append([]float64(nil), start...)
	var buf, ebuf, cdf, us []float64
	var rows []int32
	lastRows := len(start) // the rows of the last period's law (particleLooseTol)
	above := 0
	P := r.Service.PhaseCount()
	var sum float64
	var cnt int
	sd := math.Sqrt(1 / (r.Load * float64(N) * r.Period))
	// apply maps x on the board-only map in slot for the settings set
	// (mapFor), into dst's storage.
	apply := func(slot **RefreshMap, set Refresh, dst []float64) ([]float64, error) {
		m, err := mapFor(slot, set, true)
		if err != nil {
			return nil, err
		}
		res, err := m.Apply(dst, x)
		maps++
		return res.Next, err
	}
	for i := 1; i <= runs; i++ {
		if stop != nil && stop() {
			return 0, maps, math.NaN(), fmt.Errorf("meanfield: finite fleet: %w", ErrStopped)
		}
		// The load's noise is rounded to a grid of 1/4 standard
		// deviation (it adds 1/192 of its variance), one board-only map
		// per level.
		j := int(math.Round(4*rng.NormFloat64())) + particleLevels/2
		j = min(max(j, 0), particleLevels-1)
		rr := r
		rr.Load = min(max(r.Load*(1+sd*float64(j-particleLevels/2)/4), r.Load/2), (1+r.Load)/2)
		var next []float64
		tl, e, loose := particleLooseTol(N, lastRows)
		if pm.looseTol > 0 {
			tl, e, loose = pm.looseTol, 0, N <= particleGaussN
		}
		if pm.exactOnly || !loose {
			out, err := apply(&pm.grid[j], rr, buf)
			if err != nil {
				return 0, maps, math.NaN(), err
			}
			lastRows, buf = len(out), x
			next, cdf = particleStep(out, N, rng, cdf)
		} else {
			// The loose map first; the exact one only when a draw lies
			// too near a row's end to be sure of its row.
			lr := rr
			lr.Tol = tl
			out, err := apply(&pm.loose[j][e], lr, buf)
			if err != nil {
				return 0, maps, math.NaN(), err
			}
			lastRows = len(out)
			us = particleUniforms(us, N, rng)
			var ok bool
			rows, cdf, ok = particleLooseRows(out, us, particleMargin(tl, rr.withDefaults().Tol, len(out)), cdf, rows)
			if ok {
				buf = x
				next = particleFill(out, rows)
			} else {
				out, err := apply(&pm.grid[j], rr, ebuf)
				if err != nil {
					return 0, maps, math.NaN(), err
				}
				ebuf = x
				next, cdf = particleDraw(out, us, cdf)
			}
		}
		if response && i > runs/10 && i%5 == 0 {
			full, err := mapFor(&pm.full, r, false)
			if err != nil {
				return 0, maps, math.NaN(), err
			}
			rf, err := full.Apply(nil, x)
			maps++
			if err != nil {
				return 0, maps, math.NaN(), err
			}
			sum += rf.Response
			cnt++
		}
		x = next
		if stateMean(x, P) > theta {
			above++
			if above >= 5 {
				return i, maps, math.NaN(), nil
			}
		} else {
			above = 0
		}
	}
	if cnt == 0 {
		return 0, maps, math.NaN(), nil
	}
	return 0, maps, sum / float64(cnt), nil
}
