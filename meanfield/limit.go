package meanfield

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"

	"herd/fixedpoint"
	"herd/fixedpoint/root"
)

// Limit is the heavy-traffic limit of the refresh map (package doc, §2 and
// §6) as λ → 1 with k fixed: queue lengths scaled by 1 − λ, time by (1 − λ)².
//
// # Scaling
//
// q = (1 − λ)Q is the scaled queue, s = (1 − λ)²t the scaled time and
// x = T(1 − λ)² the scaled refresh period, the quantity the edge law
// T_edge ≈ 0.9(k − 2)/(1 − λ)² is written in. The state is the law μ of the
// scaled board B.
//
// # The map
//
// One period of the refresh map splits, as λ → 1, into two steps.
//
// (i) The fill, an instantaneous impulse. The water level climbs through the
// board in unscaled time τ_b = (k/λ)Σ_{u<b}F(u) = O(k/(1 − λ)), scaled time
// O(1 − λ) → 0. Past the top of the board every window lasts k/λ, so the
// level at time t is v(t) = b̄ + λt/k, and a server whose board reads b,
// once reached, holds b + k(v(t) − b) − t = k·b̄ − (k−1)b − (1−λ)t jobs.
// A server with b above the mean drains, without arrivals, until the level
// reaches it at τ_b; if it empties first it idles for τ_b − b, and the
// reflection adds that back: its queue after the fill is
// k·b̄ − (k−1)b + (τ_b − b)⁺. In scaled units (1 − λ)τ_b → k·E(q − B)⁺, and
// k·b̄ − (k−1)q + (k·E(q − B)⁺ − q)⁺ simplifies (E(B − q) + E(q − B)⁺ =
// E(B − q)⁺) to
//
//	g(q) = max( k·q̄ − (k − 1)·q,  k·E(B − q)⁺ ),   q̄ = E B.
//
// The first branch is the overcorrection (k = 1 sends every server to the
// mean, k = 2 reflects about it, k ≥ 3 expands deviations by k − 1 with a
// sign flip); the second is the idling of the servers the level reaches
// last. Arrivals inside the fill are deterministic to within k jobs (each
// window delivers exactly k), service over O(k/(1−λ)) time fluctuates by
// O(√(k/(1−λ))) jobs, so the scaled impulse is deterministic.
//
// (ii) The rest of the period, a reflected Brownian motion. After the fill
// every server receives k jobs per window of length k/λ, a counting process
// within k of λt, so arrivals carry no diffusive variance; exponential
// service contributes variance rate 1. In scaled units each server is an
// independent reflected Brownian motion with drift −1 and variance 1 run for
// scaled time x, whose transition law is (Harrison 1985, §1.8, with
// μ = −1, σ = 1)
//
//	P_y(Z_s > z) = Φᶜ((z − y + s)/√s) + e^{−2z} Φ((s − y − z)/√s),  z ≥ 0.
//
// The next board is the law of Z_x started from g(B). The time-averaged
// scaled queue over the period, (1/x)∫₀ˣ E Z_s ds, is the limit of
// (1 − λ)·QueueMean; by Little's law the mean time in system is QueueMean/λ
// ≈ q_avg/(1 − λ).
//
// # Other job sizes
//
// Only step (ii) sees the job sizes, and only through the variance of a
// busy server's departures: for sizes of mean 1 and squared coefficient of
// variation C (phase-type: h2:C, Erlang-K with C = 1/K), the departures of
// a busy server form a renewal process whose count over time t has
// variance ≈ C·t (the renewal central limit theorem; W. Feller, An
// Introduction to Probability Theory and Its Applications, vol. 2, 1971,
// §XI.5), so step (ii) is reflected Brownian motion with drift −1 and
// variance v = C (Limit.Variance). The fill (i) is unchanged: its service
// fluctuations are O(√(Ck/(1 − λ))) jobs, still o(1/(1 − λ)). The map with
// variance v is the exponential one seen at another scale: v·Z(s/v) is a
// variance-v reflected Brownian motion with drift −1 when Z is the
// variance-1 one, and g is homogeneous of degree 1 in the board, so a
// board μ at period x maps as the board μ(·v) at period x/v does, scaled
// by v. Hence the limit edge is x*(k, C) = C·x*(k): the heavy-traffic edge
// grows exactly in proportion to C (TestLimitVariance computes LimitEdge
// with the variance in the kernel on one grid and checks it). The renewal
// limit needs periods long against the sizes' slowest phase (mean about C
// for h2:C); at fixed C, λ → 1 provides it, but the larger C, the nearer
// to 1 the load must be for the limit to hold.
//
// # Discretisation
//
// μ is held as masses on the grid q_i = i·h, i = 0 … n − 1, with
// L = (n − 1)h the truncation. The impulse maps each node to g(q_i)
// exactly and splits its mass between the two neighbouring nodes in
// proportion (mass and mean preserved); the Brownian step moves node
// q_a to the cells [(j − ½)h, (j + ½)h) (the first cell [0, ½h)) by the
// closed-form law above, the cell mass going to node j. Mass beyond the
// last cell, and mass the impulse sends beyond L, is kept on the last node
// and counted as Truncation. Errors are O(h²) in the board and its
// moments (limit_test.go measures them) once (k − 1)h is well below the
// Brownian spread √x (checked to k = 64; at k = 128 grids h = 0.32, 0.16,
// 0.08 are not yet second order, since the impulse's slope k − 1 spreads
// neighbouring nodes (k − 1)h apart), and the transition matrix is
// Toeplitz plus diagonal-scaled Hankel, so it costs O(n) evaluations of
// erfc to build and is applied as two convolutions by FFT, O(n log n) per
// map (rbmStep), never formed as a matrix.
//
// References:
//   - J. M. Harrison, Brownian Motion and Stochastic Flow Systems, Wiley,
//     1985, §1.8 (transition law of reflected Brownian motion with drift).
//   - J. F. C. Kingman, On queues in heavy traffic, J. R. Stat. Soc. B 24,
//     1962 (the heavy-traffic scaling).
//   - The package doc, §2 (the refresh map this is the limit of) and §6.
type Limit struct {
	// Dispatchers is k, in [1, 256].
	Dispatchers int
	// Scaled is the scaled refresh period x = T(1 − λ)², in (0, 1e4].
	Scaled float64
	// Step is the grid step h in scaled queue units, in [1e-4, 1]. Zero
	// means DefaultLimitStep.
	Step float64
	// Length is the truncation L (largest grid point) in scaled queue
	// units, in [1, 1e5]. Zero means DefaultLimitLength(k, x).
	Length float64
	// Variance is the variance rate v of a busy server's departures, in
	// (0, 1e4]: the squared coefficient of variation C of the job sizes
	// (1 for exponential; see Variance below). Zero means 1. The ranges
	// of Scaled, Step and Length above, and their defaults, are for
	// v = 1 and scale by v (Step v·0.02, Length v·DefaultLimitLength(k,
	// x/v)), as the map does: see "Other job sizes".
	Variance float64
}

// DefaultLimitStep is the default grid step of the limit map.
const DefaultLimitStep = 0.02

// maxLimitNodes bounds the grid of the limit map (its matrix is n²).
const maxLimitNodes = 20000

// DefaultLimitLength is the default truncation of the limit map: the
// balanced board's impulse sends the emptiest servers to about k·q̄ with
// q̄ ≲ 1, after which the Brownian step spreads them by a few √x; the
// default is 8 + k + 6√x.
func DefaultLimitLength(k int, x float64) float64 {
	return 8 + float64(k) + 6*math.Sqrt(x)
}

// Validate reports the first setting out of range, naming the field.
func (s Limit) Validate() error {
	if s.Variance != 0 && !(s.Variance > 0 && s.Variance <= 1e4) {
		return fmt.Errorf("meanfield: Variance = %v outside (0, 1e4] (0 means 1)", s.Variance)
	}
	v := s.variance()
	switch {
	case s.Dispatchers < 1 || s.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: Dispatchers = %d outside [1, %d]", s.Dispatchers, maxRefreshDispatchers)
	case !(s.Scaled > 0 && s.Scaled/v <= 1e4):
		return fmt.Errorf("meanfield: Scaled = %v outside (0, %g] (1e4·Variance)", s.Scaled, 1e4*v)
	case s.Step != 0 && !(s.Step/v >= 1e-4 && s.Step/v <= 1):
		return fmt.Errorf("meanfield: Step = %v outside [%g, %g] ([1e-4, 1]·Variance; 0 means %g)", s.Step, 1e-4*v, v, DefaultLimitStep*v)
	case s.Length != 0 && !(s.Length/v >= 1 && s.Length/v <= 1e5):
		return fmt.Errorf("meanfield: Length = %v outside [%g, %g] ([1, 1e5]·Variance; 0 means Variance·(8 + k + 6√(x/Variance)))", s.Length, v, 1e5*v)
	}
	s = s.withDefaults()
	if n := s.Length/s.Step + 1; n > maxLimitNodes {
		return fmt.Errorf("meanfield: Length/Step = %.0f grid nodes above %d", n-1, maxLimitNodes)
	}
	return nil
}

// variance is Variance with its default.
func (s Limit) variance() float64 {
	if s.Variance == 0 {
		return 1
	}
	return s.Variance
}

func (s Limit) withDefaults() Limit {
	v := s.variance()
	if s.Step == 0 {
		s.Step = v * DefaultLimitStep
	}
	if s.Length == 0 {
		s.Length = v * DefaultLimitLength(s.Dispatchers, s.Scaled/v)
	}
	s.Variance = v
	return s
}

// LimitResult is one application of the limit map.
type LimitResult struct {
	// BoardMean is q̄, the mean of the input board.
	BoardMean float64
	// QueueMean is the time-averaged mean scaled queue over the period,
	// (1/x)∫₀ˣ E Z_s ds; only computed by LimitMap.ApplyMean (else 0).
	QueueMean float64
	// Truncation is the mass kept on the last node because it went beyond
	// the truncation L in this application.
	Truncation float64
}

// LimitMap applies the limit map on a fixed grid; it holds the Brownian
// transition matrix (n² floats) and workspace. It is not safe for
// concurrent use.
type LimitMap struct {
	set  Limit
	n    int
	h    float64
	step *rbmStep  // the Brownian step over the period x
	w    []float64 // masses after the impulse
}

// NewLimitMap validates s and builds the transition matrix.
func NewLimitMap(s Limit) (*LimitMap, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	n := int(math.Ceil(s.Length/s.Step)) + 1
	m := &LimitMap{set: s, n: n, h: s.Step, w: make([]float64, n)}
	m.step = newRBMStep(n, s.Step, s.Scaled, s.Variance)
	return m, nil
}

// Nodes is the number of grid nodes n; a board is a slice of n masses.
func (m *LimitMap) Nodes() int { return m.n }

// StepSize is the grid step h.
func (m *LimitMap) StepSize() float64 { return m.h }

// Settings returns the settings with defaults filled in.
func (m *LimitMap) Settings() Limit { return m.set }

// rbmStep applies the Brownian step of the limit map: reflected Brownian
// motion with drift −1 and variance v for time x, from the nodes a·h to the
// cells [(j − ½)h, (j + ½)h), without forming the n × n matrix (limit_test.go
// keeps the dense matrix, rbmMatrix, as its reference, for v = 1). With
// S(a, j) = P_{ah}(Z_x > (j + ½)h) = toe(j + 1 − a) + e^{−2(j+½)h/v}·han(a + j + 1)
// and S(a, −1) = 1, node a sends S(a, j−1) − S(a, j) to cell j, so the next
// board is U(j−1) − U(j) with U(j) = Σ_a w_a S(a, j): a convolution of w
// with toe plus e^{−2(j+½)h} times a convolution of the reversed w with
// han, both by FFT. U(n − 1) is the mass beyond the last cell.
//
// The FFT length L is at least 2n (fftLength), not the 3n a whole
// linear convolution needs: only the middle entries n − 1 … 2n − 2 are
// read, and a circular convolution of length L folds the linear one's
// entries m ≥ L onto m − L. Those run to 3n − 3 (toe, 2n − 1 terms) and
// 3n − 2 (han, 2n terms), so they land below n − 1 once L ≥ 2n, and no
// entry m − L < 0 exists; the middle is exact (limit_test.go compares it
// with the dense matrix). This halves the transforms, which are nearly all
// of a map's cost.
type rbmStep struct {
	n          int
	fft        *fourier.FFT
	tHat, hHat []complex128 // transforms of the two tables
	ez         []float64    // e^{−2(j+½)h}, j = 0 … n−1
	buf        []float64
	c1, c2     []complex128
	u1, u2     []float64
}

func newRBMStep(n int, h, x, v float64) *rbmStep {
	size := fftLength(2 * n)
	r := &rbmStep{n: n, fft: fourier.NewFFT(size), ez: make([]float64, n), buf: make([]float64, size),
		u1: make([]float64, size), u2: make([]float64, size)}
	sx := math.Sqrt(v*x) * math.Sqrt2
	// tseq[m] = toe(d), d = m − n + 2 ∈ [−n+2, n]: C(j) = (w * tseq)[j + n − 1].
	for m := 0; m <= 2*n-2; m++ {
		d := float64(m - n + 2)
		r.buf[m] = 0.5 * math.Erfc(((d-0.5)*h+x)/sx)
	}
	r.tHat = r.fft.Coefficients(nil, r.buf)
	clear(r.buf)
	// hseq[m] = han(m + 1), e = m + 1 ∈ [1, 2n]: D(j) = (w' * hseq)[n + j − 1],
	// w'_b = w_{n−1−b}.
	for m := 0; m <= 2*n-1; m++ {
		e := float64(m + 1)
		r.buf[m] = 0.5 * math.Erfc(((e-0.5)*h-x)/sx)
	}
	r.hHat = r.fft.Coefficients(nil, r.buf)
	for j := range r.ez {
		r.ez[j] = math.Exp(-2 * (float64(j) + 0.5) * h / v)
	}
	r.c1 = make([]complex128, len(r.tHat))
	r.c2 = make([]complex128, len(r.tHat))
	return r
}

// fftLength is the least length ≥ m of the form 2^a·f, a ≥ 3 and f one of
// 1, 3, 5, 9, 15, 45: gonum's real FFT (FFTPACK) runs these through its
// radix-4, 2, 3 and 5 passes, and one lies within 25% above any m ≥ 360
// where a power of two may lie 100% above it (measured at the lengths of
// the limit map at k = 64: 11,520 and 23,040 transform in 0.65–0.7 of the
// time of 16,384 and 32,768).
func fftLength(m int) int {
	best := 0
	for _, f := range []int{1, 3, 5, 9, 15, 45} {
		l := 8 * f
		for l < m {
			l *= 2
		}
		if best == 0 || l < best {
			best = l
		}
	}
	return best
}

// apply writes the next masses into dst[:n] and returns the mass beyond the
// last cell.
func (r *rbmStep) apply(dst, w []float64) float64 {
	n, size := r.n, len(r.buf)
	var total float64
	clear(r.buf)
	for a, v := range w {
		r.buf[a] = v
		total += v
	}
	r.fft.Coefficients(r.c1, r.buf)
	clear(r.buf)
	for a, v := range w {
		r.buf[n-1-a] = v
	}
	r.fft.Coefficients(r.c2, r.buf)
	for i := range r.c1 {
		r.c1[i] *= r.tHat[i]
		r.c2[i] *= r.hHat[i]
	}
	r.fft.Sequence(r.u1, r.c1)
	r.fft.Sequence(r.u2, r.c2)
	inv := 1 / float64(size)
	prev := total // U(−1) = Σ w
	for j := range n {
		u := (r.u1[j+n-1] + r.ez[j]*r.u2[j+n-1]) * inv
		dst[j] = prev - u
		prev = u
	}
	return prev
}

// impulse writes into m.w the pushforward of board p under
// g(q) = max(k q̄ − (k−1)q, k E(B − q)⁺), returns q̄ and the mass sent
// beyond the last node (kept there).
func (m *LimitMap) impulse(p []float64) (mean, trunc float64) {
	n, h, k := m.n, m.h, float64(m.set.Dispatchers)
	var mass float64
	for i, v := range p {
		mass += v
		mean += v * float64(i) * h
	}
	if mass > 0 {
		mean /= mass
	}
	clear(m.w)
	// Suffix sums for E(B − q_i)⁺ = Σ_{j>i} p_j (q_j − q_i).
	var s0, s1 float64
	for i := n - 1; i >= 0; i-- {
		q := float64(i) * h
		above := s1 - q*s0 // Σ_{j>i} p_j(q_j − q_i), unnormalised
		if mass > 0 {
			above /= mass
		}
		g := math.Max(k*mean-(k-1)*q, k*above)
		if v := p[i]; v != 0 {
			u := g / h
			a := int(u)
			if a >= n-1 {
				m.w[n-1] += v
				if g > float64(n-1)*h*(1+1e-12) {
					trunc += v
				}
			} else {
				f := u - float64(a)
				m.w[a] += v * (1 - f)
				m.w[a+1] += v * f
			}
		}
		s0 += p[i]
		s1 += p[i] * q
	}
	return mean, trunc
}

// Apply maps the board p (n masses on the grid) to the next board, written
// into dst (allocated if nil or short) and returned.
func (m *LimitMap) Apply(dst, p []float64) ([]float64, LimitResult) {
	if len(p) != m.n {
		panic(fmt.Sprintf("meanfield: LimitMap.Apply: board has %d nodes, want %d", len(p), m.n))
	}
	if cap(dst) < m.n {
		dst = make([]float64, m.n)
	}
	dst = dst[:m.n]
	mean, trunc := m.impulse(p)
	tail := m.step.apply(dst, m.w)
	dst[m.n-1] += tail
	trunc += tail
	return dst, LimitResult{BoardMean: mean, Truncation: trunc}
}

// ApplyMean is Apply plus the time-averaged mean scaled queue over the
// period, by Gauss–Legendre quadrature in s over [0, x] of E Z_s (each
// node's transition matrix built afresh, so it costs nodes × the matrix).
func (m *LimitMap) ApplyMean(dst, p []float64, nodes int) ([]float64, LimitResult) {
	dst, res := m.Apply(dst, p)
	gx, gw := gaussLegendre(nodes)
	x := m.set.Scaled
	var avg float64
	at := make([]float64, m.n)
	for i := range gx {
		tail := newRBMStep(m.n, m.h, x*gx[i], m.set.Variance).apply(at, m.w) // gaussLegendre is on [0, 1]
		e := tail * float64(m.n-1) * m.h
		for j, v := range at {
			e += v * float64(j) * m.h
		}
		avg += gw[i] * e
	}
	res.QueueMean = avg
	return dst, res
}

// LimitBoardPoint returns the board with all mass on node 0 (δ₀, the empty
// board: every low start of the package doc, §5, scales to it).
func (m *LimitMap) LimitBoardPoint() []float64 {
	p := make([]float64, m.n)
	p[0] = 1
	return p
}

// ErrLimitDiverged is returned, wrapped, when iteration of the limit map
// leaves the balanced state: the board spreads beyond its truncation.
var ErrLimitDiverged = errors.New("meanfield: limit map iteration diverged (board beyond truncation)")

// LimitEdgeSettings tunes LimitEdge; the zero value means the defaults.
type LimitEdgeSettings struct {
	// Step and Length are the grid (Limit.Step, Limit.Length); zero means
	// the defaults.
	Step, Length float64
	// RelTol is the relative width of the final bracket on x, in
	// [1e-8, 0.1]; zero means 1e-4.
	RelTol float64
	// Tol is the L1 change between successive boards below which the
	// iteration counts as converged, in [1e-14, 1e-6]; zero means 1e-10.
	Tol float64
	// MaxIter bounds the iterations of one classification, in [10, 1e7];
	// zero means 200000.
	MaxIter int
	// Variance is the map's Limit.Variance (zero means 1); the grid
	// (Step, Length, zero meaning the defaults) is in its units.
	Variance float64
	// Stop, when not nil, is polled after every map; once it reports
	// true LimitEdge ends with an error wrapping ErrStopped (herd's
	// Ctrl-C). It is not a setting of the computation.
	Stop func() bool `json:"-"`
}

func (s LimitEdgeSettings) withDefaults() LimitEdgeSettings {
	if s.RelTol == 0 {
		s.RelTol = 1e-4
	}
	if s.Tol == 0 {
		s.Tol = 1e-10
	}
	if s.MaxIter == 0 {
		s.MaxIter = 200000
	}
	return s
}

// Validate reports the first setting out of range, naming the field.
func (s LimitEdgeSettings) Validate() error {
	switch {
	case s.RelTol != 0 && !(s.RelTol >= 1e-8 && s.RelTol <= 0.1):
		return fmt.Errorf("meanfield: RelTol = %v outside [1e-8, 0.1] (0 means 1e-4)", s.RelTol)
	case s.Tol != 0 && !(s.Tol >= 1e-14 && s.Tol <= 1e-6):
		return fmt.Errorf("meanfield: Tol = %v outside [1e-14, 1e-6] (0 means 1e-10)", s.Tol)
	case s.MaxIter != 0 && (s.MaxIter < 10 || s.MaxIter > 1e7):
		return fmt.Errorf("meanfield: MaxIter = %d outside [10, 1e7] (0 means 200000)", s.MaxIter)
	}
	return nil
}

// LimitState is the outcome of iterating the limit map from a board.
type LimitState struct {
	// Balanced reports convergence to a fixed point (L1 change below Tol).
	Balanced bool
	// Board is the last board; at a balanced state, the fixed point.
	Board []float64
	// BoardMean is the mean of the last board.
	BoardMean float64
	// Iterations counts applications of the map.
	Iterations int
	// Change is the L1 change of the last application.
	Change float64
	// Truncation is the mass the last application sent beyond L.
	Truncation float64
}

// IterateLimit iterates m from board p0 until the board converges (L1
// change ≤ tol: Balanced), the board reaches the truncation (mass beyond L
// above 1e-9: the herd, which in the limit spreads without bound), or
// maxIter applications (neither; err wraps ErrNotConverged).
func IterateLimit(m *LimitMap, p0 []float64, tol float64, maxIter int) (LimitState, error) {
	return iterateLimit(m, p0, tol, maxIter, nil)
}

// iterateLimit is IterateLimit, polling stop (if not nil) after every map
// that does not converge. The boards keep their length, so the L1
// distance of the orbit is the plain one.
func iterateLimit(m *LimitMap, p0 []float64, tol float64, maxIter int, stop func() bool) (LimitState, error) {
	o := fixedpoint.NewOrbit(1, append([]float64(nil), p0...), l1)
	var st LimitState
	var res LimitResult
	it := fixedpoint.Iteration{Tol: tol}
	it.Map = func(dst, p []float64) ([]float64, error) {
		var q []float64
		q, res = m.Apply(dst, p)
		st.Iterations++
		return q, nil
	}
	it.Visit = func(change float64) (bool, error) {
		st.Change = change
		switch {
		case res.Truncation > 1e-9:
			return true, nil
		case stop != nil && stop():
			return true, fmt.Errorf("meanfield: limit map k = %d, x = %g: after %d maps: %w", m.set.Dispatchers, m.set.Scaled, st.Iterations, ErrStopped)
		}
		return false, nil
	}
	per, err := it.Run(o, 0, maxIter)
	if per == 1 {
		st.Change = o.Distance(1)
	}
	if st.Iterations > 0 {
		st.Board, st.BoardMean, st.Truncation = o.Back(0), res.BoardMean, res.Truncation
	}
	// A board that reached the truncation is the herd's, even if the map
	// left it in place.
	st.Balanced = per == 1 && !(res.Truncation > 1e-9)
	if err != nil || per == 1 || res.Truncation > 1e-9 {
		return st, err
	}
	return st, fmt.Errorf("meanfield: limit map k = %d, x = %g: no convergence in %d iterations (change %.3g): %w",
		m.set.Dispatchers, m.set.Scaled, maxIter, st.Change, ErrNotConverged)
}

// LimitEdgeResult is the heavy-traffic edge x*(k) of the limit map.
type LimitEdgeResult struct {
	// Edge is the midpoint of the final bracket [Lo, Hi]: at Hi iteration
	// from δ₀ converges to a balanced fixed point, at Lo it does not.
	Edge, Lo, Hi float64
	// Exists is false for k ≤ 2 (balanced down to x = MinX): Edge is 0.
	Exists bool
	// BoardMean is the balanced fixed point's mean at Hi.
	BoardMean float64
	// Nodes is the grid size at Hi; Maps counts applications of the map.
	Nodes, Maps int
}

// limitMinX is the smallest x LimitEdge looks at (the 0.02 of the package
// doc, §5).
const limitMinX = 0.02

// LimitEdge finds x*(k), the lowest scaled period at which the limit map,
// iterated from δ₀ (the scaled image of every low start of the package doc,
// §5), converges to a balanced fixed point: the λ → 1 limit of the edge
// T_edge(1 − λ)². It brackets the edge from the guess max(1, k − 2) and
// bisects, assuming a single change from herd to balanced as x grows
// (TestLimitEdgeSingleChange scans x from 0.27(k−2) to 3(k−2) at k = 3
// and 16 and finds one; so did scans at k = 4, 8 and 64). k ≤ 2 has no
// edge down to x = 0.02.
func LimitEdge(k int, s LimitEdgeSettings) (LimitEdgeResult, error) {
	lim := Limit{Dispatchers: k, Scaled: 1, Step: s.Step, Length: s.Length, Variance: s.Variance}
	if err := lim.Validate(); err != nil {
		return LimitEdgeResult{}, err
	}
	if err := s.Validate(); err != nil {
		return LimitEdgeResult{}, err
	}
	s = s.withDefaults()
	v := lim.variance() // x scales by v (see Limit, "Other job sizes")
	var res LimitEdgeResult
	classify := func(x float64) (LimitState, *LimitMap, error) {
		m, err := NewLimitMap(Limit{Dispatchers: k, Scaled: x, Step: s.Step, Length: s.Length, Variance: s.Variance})
		if err != nil {
			return LimitState{}, nil, err
		}
		st, err := iterateLimit(m, m.LimitBoardPoint(), s.Tol, s.MaxIter, s.Stop)
		res.Maps += st.Iterations
		return st, m, err
	}
	balanced := func(x float64) (bool, error) {
		st, m, err := classify(x)
		if err == nil && st.Balanced {
			res.BoardMean, res.Nodes = st.BoardMean, m.Nodes()
		}
		return st.Balanced, err
	}
	lo, hi, found, err := limitBracket(balanced, v*math.Max(1, float64(k-2)), 1e4*v, v*limitMinX)
	switch {
	case err != nil:
		return res, err
	case !found:
		res.Hi = hi
		return res, nil // no edge
	case math.IsNaN(hi):
		return res, fmt.Errorf("meanfield: limit edge k = %d above x = %g: %w", k, 1e4*v, ErrNotConverged)
	}
	lo, hi, err = root.Bisect(balanced, lo, hi, root.Midpoint(0, s.RelTol))
	if err != nil {
		return res, err
	}
	res.Lo, res.Hi, res.Edge, res.Exists = lo, hi, 0.5*(lo+hi), true
	return res, nil
}

// limitBracket brackets LimitEdge's change from herd to balanced: it
// walks (root.Walk) up from the guess x by factors of 1.5, while at most
// top, until balanced holds, and when it holds at x itself walks down by
// factors of 1.5, while at least bottom, until it fails. It returns the
// last point where balanced failed and the first where it held; found is
// false when it holds down to bottom (hi the lowest point where it held),
// and hi is NaN when it fails up to top.
func limitBracket(balanced func(x float64) (bool, error), x, top, bottom float64) (lo, hi float64, found bool, err error) {
	up := append([]float64{x}, root.Ladder(x, func(y float64) (float64, bool) {
		y *= 1.5
		return y, y <= top
	})...)
	i, err := root.Walk(balanced, up)
	switch {
	case err != nil:
		return 0, 0, false, err
	case i == len(up):
		return up[i-1], math.NaN(), true, nil
	case i > 0:
		return up[i-1], up[i], true, nil
	}
	down := root.Ladder(x, func(y float64) (float64, bool) {
		y /= 1.5
		return y, y >= bottom
	})
	j, err := root.Walk(func(y float64) (bool, error) {
		in, err := balanced(y)
		return !in, err
	}, down)
	hi = x
	if j > 0 {
		hi = down[j-1]
	}
	if err != nil || j == len(down) {
		return 0, hi, false, err
	}
	return down[j], hi, true, nil
}
