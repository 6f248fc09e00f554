package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/internal/pool"
)

// Refresh holds the settings of the infinite-server refresh map of the
// package doc, §2: N → ∞ servers, k dispatchers, each running least loaded with
// its own tally on a board refreshed every Period mean service times.
// The zero value of every optional field means its default.
//
// # The map
//
// The state is the board distribution p_b, the share of servers whose board
// reads b = 0, 1, 2, …, with F(v) = Σ_{b≤v} p_b. At a refresh the board is
// exact, so a server with board b holds b jobs at time 0. Each dispatcher's
// tally makes its effective minimum a water level; in the limit all k levels
// move in lock-step through windows
//
//	τ_0 = 0,  τ_{v+1} = τ_v + W_v,  W_v = k F(v)/λ  (F = 1 past the top),
//
// and in window v every server with board ≤ v receives exactly k jobs, one
// per dispatcher, at k independent uniform times in [τ_v, τ_v + W_v); a time
// after T never happens. Servers with board > v receive nothing in window v
// and drain (pure death at rate 1). Service is exponential with rate 1. The
// map sends p to p', the distribution of queue lengths at time T.
//
// # Method
//
// The servers already "in the water" (board ≤ v at window v) share one
// arrival schedule, so they are aggregated into one distribution A(q) over
// queue lengths; class b joins at τ_b with its pure-death law
// P(q = b − d) = Pois(τ_b; d), P(q = 0) = P(Pois(τ_b) ≥ b). Inside a window
// of length W, k uniform points are a Poisson process of any rate r
// conditioned on exactly k points, so the chain on (queue q, arrivals so far
// j ≤ k) with arrivals at rate r (killed at j = k) and services at rate 1 is
// time-homogeneous, and
//
//	P(q at W) = u_W(q, k) / Pois(rW; k),
//	P(q, j at s | k points in W) = u_s(q, j) · Pois(r(W − s); k − j) / Pois(rW; k),
//
// where u is the unconditioned chain. The chain is solved by uniformisation
// at rate Λ = r + 1: u_s = Σ_n Pois(Λs; n) vₙ with vₙ the n-th power of the
// uniformised jump matrix applied to the start (Jensen 1953; Grassmann 1977),
// the sum cut where the Poisson tail falls below the per-window budget times
// Pois(rW; k). r = RateScale·k/(2W); the result does not depend on r
// (changing it moves p' by a few 10⁻¹⁴ in L1; a test checks 10⁻¹²).
//
// Rows far from zero are cheaper: a server starting the window with
// q ≥ q₀ jobs, where P(Pois(W) ≥ q₀) is below the Poisson tolerance, cannot
// empty during the window, so its queue at time s is
// q + Binomial(k, s/W) − Pois(s), a fixed convolution kernel. Only rows below
// q₀ (a few dozen) go through the (q, j) chain; the rest are convolved. The
// probability neglected by this split is below Tol·10⁻⁶ per window.
//
// A full window's low rows also have a closed form: given s services
// (Pois(W; s)) the orders of the k arrivals and s services are equally
// likely, the queue at the window's end is max(q + k − s, M) with M the
// largest suffix sum of the ±1 steps (Lindley), and the reflection
// principle gives P(M ≤ y) = 1 − C(k+s, k−y−1)/C(k+s, k). It agrees with
// the chain to rounding at about 1/k of its cost, but has no intermediate
// steps for the time-averaged queue: maps of the board alone (the edge
// search's runs) take it (refreshballot.go).
//
// Observables: the time-averaged mean queue (1/T)∫₀ᵀ E[q(t)] dt is
// integrated window by window. The water part uses Gauss–Legendre (Nodes per
// window; the integrand is analytic inside a window, and the node means come
// from per-step first moments of the chain, which obey a closed recursion,
// so they cost O(k) per step). The classes still draining contribute
// Σ_{b>v} p_b E[(b − Pois(t))⁺], integrated exactly through
// d/dt P(Pois(t) > d) = Pois(t; d). Little's law gives the mean time in
// system. The cut phase is locked to the board mean: past the top of the
// board τ_v = (k/λ)(v − Σ b p_b).
//
// # Truncation
//
// Queue rows are kept adaptively: the water distribution is extended as
// arrivals push it up and, at every window end, rows at either end whose
// cumulative mass is below Tol/(4·(windows+1)) are dropped; the
// uniformisation sum is cut where its tail is below the same budget
// (relative to Pois(rW; k)). The mass actually lost is accumulated and
// reported as RefreshResult.Truncation (< Tol); the output sums to
// 1 − Truncation. Poisson probability vectors are cut at tails below
// Tol·10⁻⁶ and renormalised (no mass is lost by them).
//
// # References
//
//   - The package doc, §2, for the map.
//   - A. Jensen, Markoff chains as an aid in the study of Markoff processes,
//     Skand. Aktuarietidskr. 36, 1953 (uniformisation).
//   - W. K. Grassmann, Transient solutions in Markovian queueing systems,
//     Comput. Oper. Res. 4(1), 1977.
//   - B. L. Fox, P. W. Glynn, Computing Poisson probabilities, Comm. ACM
//     31(4), 1988.
//   - M. Mitzenmacher, How useful is old information?, IEEE TPDS 11(1), 2000
//     (stale boards, periodic update model).
type Refresh struct {
	// Dispatchers is k, the number of dispatchers, in [1, 256].
	Dispatchers int
	// Load is the per-server arrival rate λ, in (0, 1).
	Load float64
	// Period is the refresh period T in mean service times, in (0, 1e6].
	Period float64

	// Tol bounds the probability mass one application may lose to
	// truncation; in [1e-30, 1e-3]. Zero means DefaultRefreshTol.
	Tol float64
	// Nodes is the number of Gauss–Legendre nodes per window for the
	// time-averaged queue, in [2, 64]. Zero means DefaultRefreshNodes.
	Nodes int
	// RateScale multiplies the auxiliary uniformisation rate r = k/(2W), in
	// [0.125, 8]. Results do not depend on it beyond rounding; it exists
	// for convergence checks. Zero means 1.
	RateScale float64
	// MaxRows bounds the number of queue rows; an application needing more
	// fails with ErrRefreshRows. At least 16; zero means
	// DefaultRefreshMaxRows.
	MaxRows int
	// Service is the job-size law; the zero value is exponential. With
	// more than one phase (h2, Erlang) the map's state is the joint law of
	// (queue, phase of the job in service), laid out as Service documents,
	// and the map is computed as phaserefresh.go describes.
	Service Service
}

// Defaults of the optional Refresh settings.
const (
	DefaultRefreshTol     = 1e-12
	DefaultRefreshNodes   = 12
	DefaultRefreshMaxRows = 1 << 22

	maxRefreshDispatchers = 256
	maxRefreshPeriod      = 1e6
)

// ErrRefreshRows is returned, wrapped, when the refresh map would need more
// queue rows than Refresh.MaxRows.
var ErrRefreshRows = errors.New("meanfield: refresh map needs more queue rows than MaxRows")

// Validate reports the first setting out of range, naming the field.
func (r Refresh) Validate() error {
	switch {
	case r.Dispatchers < 1 || r.Dispatchers > maxRefreshDispatchers:
		return fmt.Errorf("meanfield: Dispatchers = %d outside [1, %d]", r.Dispatchers, maxRefreshDispatchers)
	case !(r.Load > 0 && r.Load < 1):
		return fmt.Errorf("meanfield: Load = %v outside (0, 1)", r.Load)
	case r.Load < 1e-9: // lighter loads are lost to truncation (and overflow the windows)
		return fmt.Errorf("meanfield: Load = %v below 1e-9 (lost to the map's truncation)", r.Load)
	case !(r.Period > 0 && r.Period <= maxRefreshPeriod):
		return fmt.Errorf("meanfield: Period = %v outside (0, %g]", r.Period, maxRefreshPeriod)
	case r.Tol != 0 && !(r.Tol >= 1e-30 && r.Tol <= 1e-3):
		return fmt.Errorf("meanfield: Tol = %v outside [1e-30, 1e-3] (0 means %g)", r.Tol, DefaultRefreshTol)
	case r.Nodes != 0 && (r.Nodes < 2 || r.Nodes > 64):
		return fmt.Errorf("meanfield: Nodes = %d outside [2, 64] (0 means %d)", r.Nodes, DefaultRefreshNodes)
	case r.RateScale != 0 && !(r.RateScale >= 0.125 && r.RateScale <= 8):
		return fmt.Errorf("meanfield: RateScale = %v outside [0.125, 8] (0 means 1)", r.RateScale)
	case r.MaxRows != 0 && r.MaxRows < 16:
		return fmt.Errorf("meanfield: MaxRows = %d outside [16, ∞) (0 means %d)", r.MaxRows, DefaultRefreshMaxRows)
	}
	return r.Service.Validate()
}

// withDefaults returns r with zero optional fields replaced by defaults.
func (r Refresh) withDefaults() Refresh {
	if r.Tol == 0 {
		r.Tol = DefaultRefreshTol
	}
	if r.Nodes == 0 {
		r.Nodes = DefaultRefreshNodes
	}
	if r.RateScale == 0 {
		r.RateScale = 1
	}
	if r.MaxRows == 0 {
		r.MaxRows = DefaultRefreshMaxRows
	}
	return r
}

// RefreshResult is one application of the refresh map.
type RefreshResult struct {
	// Next is p', the queue-length distribution at time T (= the next
	// board). It sums to 1 − Truncation; trailing zeros are dropped.
	Next []float64
	// BoardMean is Σ b p_b of the (normalised) input board.
	BoardMean float64
	// QueueMean is the time-averaged mean queue (1/T)∫₀ᵀ E[q(t)] dt.
	QueueMean float64
	// Response is the mean time in system QueueMean/λ (Little's law).
	Response float64
	// Window is the index v of the window in which T falls,
	// τ_v ≤ T < τ_{v+1}; Windows = Window + 1 counts the windows begun.
	Window, Windows int
	// CutPhase is φ = (T − τ_v)/W_v ∈ [0, 1) for that window.
	CutPhase float64
	// KinkDistance is min_v |T − τ_v| over the window boundaries of this
	// input: how far T may move before the map's derivative jumps.
	KinkDistance float64
	// Truncation is the probability mass lost to truncation (queue rows
	// dropped and uniformisation sums cut) in this application.
	Truncation float64
	// Rows is the largest number of queue rows held (0 … Rows−1).
	Rows int
	// Steps counts uniformisation steps of the (q, j) chain, a measure of
	// work.
	Steps int
}

// Apply applies the refresh map once to the board p. It is a convenience
// wrapper around NewRefreshMap and RefreshMap.Apply; to iterate, keep a
// RefreshMap, which reuses its workspace.
func (r Refresh) Apply(p []float64) (RefreshResult, error) {
	m, err := NewRefreshMap(r)
	if err != nil {
		return RefreshResult{}, err
	}
	return m.Apply(nil, p)
}

// RefreshMap applies the refresh map with a reusable workspace: after the
// first few applications Apply does not allocate. A RefreshMap is not safe
// for concurrent use.
type RefreshMap struct {
	set      Refresh // with defaults
	k        int
	glx, glw []float64 // Gauss–Legendre on [0, 1]

	// The current board: its windows (cum = F(v), top = len(p) − 1) and
	// suffix sums.
	windowWalk
	p      []float64 // normalised input
	s1, s2 []float64 // Σ_{b>x} p_b and Σ_{b>x} b p_b

	// The water distribution A(q), nonzero only on rows [lo, hi).
	water, tmp []float64
	// tmp's rows that may hold mass, up to its length: the active rows
	// of the water it was (evolve, outBuffer).
	tmpLo, tmpHi int
	lo, hi       int
	// Rows [zLo, zHi) of the water are exactly zero (none when zLo ≥
	// zHi), and rows [tmpZLo, tmpZHi) of tmp: the gap a lazy band leaves
	// (setAside), which the convolution's scan for gaps jumps and
	// outBuffer need not clear. Every write to the water's rows shrinks
	// it (wrote): it may only ever be smaller than the true run of
	// zeros, so the maps do not depend on it, to the bit.
	zLo, zHi, tmpZLo, tmpZHi int
	// noZeros (tests) keeps the known zero rows empty; zMax is the most
	// rows known zero at a window's start in the last application (tests).
	noZeros bool
	zMax    int

	// The (q, j) chain, stored j-major: x[j*rows+q].
	cur, nxt, acc []float64
	mom           []float64 // (step n, j) first moments Σ_q q·vₙ(q, j)

	// Plans: full windows inside the board (each its own length), the
	// cut window, and the full windows past the top (all of length k/λ:
	// the last few such plans with their operators, kept across
	// applications, farPlanCache).
	full, cut winPlan
	far       farPlanCache
	unit      []float64 // a unit start vector for buildOp
	// The full windows' closed form (refreshballot.go): its tables, the
	// window's weights and scratch.
	ballot     ballotTables
	ballotCS   []float64
	ballotConv []float64
	ballotWins int // full windows whose low rows took the closed form in the last application (tests)
	tmp2       []float64
	// sameBytes (tests) keeps a board-only map to the full map's bytes:
	// none of its paths that change rounding (the full windows' closed
	// form, the shortcut for classes that have emptied).
	sameBytes bool

	// Lazy far rows (refreshlazy.go): the bands by height past the top of
	// the board and the single band inside it, and how many are running.
	bands    [lazyLevels + 1]lazyBand // by height past the top, and lazyInside
	lzActive int
	lzStarts [lazyLevels + 1]int // runs started in the last application, by band (tests)

	// noShortcuts (tests only) turns the window operator and the lazy
	// far rows off: every window runs the chain and the convolution.
	noShortcuts bool
	// noPrune (tests only) computes every row of every slice of the
	// chain (chainLow's pruning of slices that cannot reach the end law).
	noPrune bool
	// boardOnly skips the time-averaged queue: Apply computes Next and
	// the board's observables as otherwise but none of the quadrature
	// that only QueueMean needs, which it reports as NaN (with Response).
	// With sameBytes the board is the full map's bytes
	// (TestRefreshBoardOnly). Otherwise board-only maps also take two
	// paths that change rounding: the full windows' low rows in closed
	// form, which agrees with the chain to 1e-12 in L1 (refreshballot.go,
	// TestRefreshBallot), and a class
	// that has emptied by its window (b at most the bottom of the support
	// of Pois(τ_b), as poissonPMF cuts it) joins row 0 with its mass
	// without its Poisson law, which the drain integral would need
	// (pureDeath adds mass·Σπ, 1 up to rounding).
	// Edge's iteration runs judge boards only (edgeRun.mapAt).
	boardOnly bool
	// Poisson(t) laws at the last two window boundaries: window v's end is
	// window v+1's start, where class v+1 is injected, so each boundary's
	// law is computed once and serves the injection and both drain
	// integrals that touch it.
	laws    [2]poissonLaw
	lawLast int // index of the law returned last
	binBuf  []float64

	// Per-application bookkeeping.
	trimEps, chainEps, pmfEps float64
	trunc                     float64
	rows, steps               int
	rowErr                    bool

	ph *phaseMap // phase-type service (nil: exponential)
}

// winPlan holds what a window piece of length l inside a window of length
// w needs: uniformisation weights, node weights and the convolution kernel.
type winPlan struct {
	w, l, r float64
	valid   bool
	// The truncation budgets the plan was made for (with w and l, the
	// whole of its inputs for a given map).
	chainEps, pmfEps float64
	nodes            int       // quadrature nodes planned (0: none, boardOnly)
	a, d             float64   // r/Λ and 1/Λ
	n                int       // last uniformisation step
	uw               []float64 // Pois(Λl; n), n = 0..N
	endJ             []float64 // weight of slice j at l: Pois(r(w−l); k−j)/Pois(rw; k)
	nodeU            []float64 // node times u_i in [0, l]
	nodeP            []float64 // node i, step n: Pois(Λu_i; n)
	nodeJ            []float64 // node i, slice j: Pois(r(w−u_i); k−j)/Pois(rw; k)
	q0               int       // rows ≥ q0 cannot empty in the window
	kw, kl, kEps     float64   // the window, piece and cut q0 and the kernel were made for
	kmin             int       // shift of kern[0]
	kern             []float64 // law of Binomial(k, l/w) − Pois(l)
	krev             []float64 // kern reversed
	pbuf             []float64

	// The window operator (buildOp), built when many windows share the
	// plan: column q (rows 0 … q + k) at op[Σ_{q'<q}(q' + k + 1):], its
	// mass opSum[q] and its integral opInt[q].
	opOK         bool
	op           []float64
	opSum, opInt []float64
}

// matches reports whether pl was planned for a piece of length l in a
// window of length w with the given truncation budgets and quadrature
// nodes.
func (pl *winPlan) matches(w, l, chainEps, pmfEps float64, nodes int) bool {
	return pl.valid && pl.w == w && pl.l == l && pl.chainEps == chainEps && pl.pmfEps == pmfEps && pl.nodes == nodes
}

// NewRefreshMap validates r and returns a map with an empty workspace.
func NewRefreshMap(r Refresh) (*RefreshMap, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	m := &RefreshMap{set: r.withDefaults(), k: r.Dispatchers}
	m.glx, m.glw = gaussLegendre(m.set.Nodes)
	if r.Service.Kind != ServiceExp {
		m.ph = newPhaseMap(m.set, m.glx, m.glw)
	}
	return m, nil
}

// Settings returns the settings in use, defaults filled in.
func (m *RefreshMap) Settings() Refresh { return m.set }

// grow returns s resized to n, reusing its storage when it can; the
// contents are zeroed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	s = s[:n]
	clear(s)
	return s
}

// Apply applies the map to the board p and returns the result, whose Next
// reuses the storage of dst when it is large enough. p must be a
// probability vector (non-negative, summing to 1 within 1e-6); it is
// normalised before use. Apply returns an error for an invalid p and a
// wrapped ErrRefreshRows when the queue would need more than MaxRows rows.
func (m *RefreshMap) Apply(dst, p []float64) (RefreshResult, error) {
	if m.ph != nil {
		m.ph.boardOnly = m.boardOnly
		return m.ph.apply(dst, p) // p is a state (Refresh.Service)
	}
	if len(p) == 0 {
		return RefreshResult{}, errors.New("meanfield: empty board")
	}
	var total float64
	for b, x := range p {
		if !(x >= 0) || math.IsInf(x, 0) {
			return RefreshResult{}, fmt.Errorf("meanfield: board p[%d] = %v is not a probability", b, x)
		}
		total += x
	}
	if !(math.Abs(total-1) <= 1e-6) {
		return RefreshResult{}, fmt.Errorf("meanfield: board mass = %v, want 1 (within 1e-6)", total)
	}
	lam, T := m.set.Load, m.set.Period
	// The settings are read at every application (callers may change
	// the period of a map between applications).
	m.windowWalk = windowWalk{k: m.k, load: lam, period: T, cum: m.cum}

	// The board, its cumulative and suffix sums.
	n := len(p)
	for n > 1 && p[n-1] == 0 {
		n--
	}
	m.top = n - 1
	m.p = grow(m.p, n)
	m.cum = grow(m.cum, n)
	m.s1 = grow(m.s1, n+1)
	m.s2 = grow(m.s2, n+1)
	var res RefreshResult
	var c float64
	for b := 0; b < n; b++ {
		m.p[b] = p[b] / total
		c += m.p[b]
		m.cum[b] = c
		res.BoardMean += float64(b) * m.p[b]
	}
	m.cum[n-1] = 1
	for b := n - 1; b >= 0; b-- { // s1[x] = Σ_{b>x} p_b
		m.s1[b] = m.s1[b+1]
		m.s2[b] = m.s2[b+1]
		if b+1 < n {
			m.s1[b] += m.p[b+1]
			m.s2[b] += float64(b+1) * m.p[b+1]
		}
	}

	m.trimEps = m.count(m.set.Tol)
	m.chainEps = m.trimEps
	m.pmfEps = m.set.Tol * 1e-6
	m.trunc = 0
	m.steps = 0
	m.rows = n
	m.rowErr = false
	m.laws[0].valid, m.laws[1].valid = false, false
	m.lo, m.hi = 0, 0
	m.water = m.water[:0]
	m.zLo, m.zHi, m.tmpZLo, m.tmpZHi, m.zMax = 0, 0, 0, 0, 0
	m.clearLazy()
	m.ballotWins = 0

	v, integral, _ := m.walk(&res, func(v int, tau float64) bool {
		// Class v joins the water at τ_v with its pure-death law.
		if v < n && m.p[v] > 0 {
			m.inject(v, tau)
		}
		return !m.rowErr
	}, func(v int, tau, w, l float64, cut bool) (float64, bool) {
		if m.lzActive > 0 {
			if m.flushLazy(v, cut); m.rowErr {
				return 0, false
			}
		}
		switch {
		case cut || m.noShortcuts || m.bands[lazyInside].on:
		case v < m.top:
			m.startInside(v, tau)
		case m.lzActive < lazyLevels:
			m.startLazy(v, tau)
		}
		if cut {
			m.plan(&m.cut, w, l, m.nodes())
			return m.evolve(&m.cut, tau, v, false), !m.rowErr
		}
		if v >= m.top {
			// The far plan's operator, kept across applications,
			// always carries its integrals (buildOp). It costs about
			// q0/2 windows of the chain to build and little to apply;
			// the choice depends on this input only, so the result
			// does not depend on what the map computed before.
			pl := m.farPlan(w)
			useOp := 4*m.nfar >= pl.q0 && !m.noShortcuts
			return m.evolve(pl, tau, v, useOp), !m.rowErr
		}
		pl, nodes := &m.full, m.nodes()
		switch {
		case m.ballotOK():
			// The closed form needs the split and kernel only.
			if !pl.kernelFor(w, w, m.pmfEps) {
				m.planKernel(pl, w, w)
				pl.valid = false // no weights for w
			}
		case !pl.matches(w, w, m.chainEps, m.pmfEps, nodes):
			m.plan(pl, w, w, nodes)
		}
		return m.evolve(pl, tau, v, false), !m.rowErr
	})
	if m.rowErr {
		return res, fmt.Errorf("%w (MaxRows = %d)", ErrRefreshRows, m.set.MaxRows)
	}

	// p' = the water at T plus the classes b > v still draining.
	size := max(m.hi, n)
	if cap(dst) < size {
		dst = make([]float64, size)
	}
	dst = dst[:size]
	clear(dst)
	copy(dst[m.lo:m.hi], m.water[m.lo:m.hi])
	if v+1 < n {
		pl := m.law(T)
		// Classes at or below the bottom of the Poisson support have
		// emptied with certainty: their shares go to row 0 at once.
		var gone float64
		for b := v + 1; b < n; b++ {
			switch {
			case m.p[b] == 0:
			case b <= pl.lo:
				gone += m.p[b]
			default:
				pl.pureDeath(dst, m.p[b], b)
			}
		}
		dst[0] += gone * pl.tail[0]
	}
	for size > 1 && dst[size-1] == 0 {
		size--
	}
	res.Next = dst[:size]
	res.QueueMean = integral / T
	if m.boardOnly {
		res.QueueMean = math.NaN()
	}
	res.Response = res.QueueMean / lam
	res.Truncation = m.trunc
	res.Rows = max(m.rows, size)
	res.Steps = m.steps
	return res, nil
}

// poissonLaw is the Poisson(x) law of the services by time x of a server
// that never empties, cut as by poissonPMF, with its tail sums.
type poissonLaw struct {
	x     float64
	valid bool
	lo    int       // pmf[i] = π(lo + i)
	pmf   []float64 // π(d), d = lo … lo + len(pmf) − 1
	tail  []float64 // tail[i] = Σ_{i' ≥ i} pmf[i'], summed from the top down
	rev   []float64 // pmf reversed, rev[i] = pmf[len(pmf) − 1 − i] (pureDeath)
}

// law returns the Poisson(x) law, from the two-entry cache of boundary
// laws when x is one of them; otherwise it replaces the entry not returned
// last, so the laws of two consecutive calls are valid together.
func (m *RefreshMap) law(x float64) *poissonLaw {
	for i := range m.laws {
		if l := &m.laws[i]; l.valid && l.x == x {
			m.lawLast = i
			return l
		}
	}
	m.lawLast = 1 - m.lawLast
	l := &m.laws[m.lawLast]
	l.x, l.valid = x, true
	l.lo, l.pmf = poissonPMF(l.pmf, x, m.pmfEps)
	l.rev = grow(l.rev, len(l.pmf))
	for i, pi := range l.pmf {
		l.rev[len(l.pmf)-1-i] = pi
	}
	l.tail = grow(l.tail, len(l.pmf))
	var s float64
	for i := len(l.pmf) - 1; i >= 0; i-- {
		s += l.pmf[i]
		l.tail[i] = s
	}
	return l
}

// pureDeath adds mass·P(q) for a server starting at b served at rate 1
// with nothing arriving by time x: with π the Poisson(x) law,
// P(q = b − d) = π(d) for d < b and P(q = 0) = Σ_{d≥b} π(d) (a tail sum).
func (l *poissonLaw) pureDeath(dst []float64, mass float64, b int) {
	n := min(max(b-l.lo, 0), len(l.pmf)) // pmf[:n] holds the d < b
	if n > 0 {
		// Row b − d gets mass·π(d), d = lo + i, i < n: rows b − lo − n + 1
		// … b − lo take pmf[:n] reversed, entry by entry as a loop would
		// (a herd's classes still draining at T: 55% of its map at k = 16,
		// λ = 0.995, looping one entry at a time).
		axpy(dst[b-l.lo-n+1:b-l.lo+1], mass, l.rev[len(l.pmf)-n:])
	}
	if n < len(l.pmf) {
		dst[0] += mass * l.tail[n]
	}
}

// ensure makes the water hold at least n rows.
func (m *RefreshMap) ensure(n int) {
	if n > m.set.MaxRows {
		m.rowErr = true
		return
	}
	if n > m.rows {
		m.rows = n
	}
	if len(m.water) >= n {
		return
	}
	if cap(m.water) >= n {
		old := len(m.water)
		m.water = m.water[:n]
		clear(m.water[old:])
		return
	}
	w := make([]float64, n, n+n/2+64)
	copy(w, m.water)
	m.water = w
}

// inject adds class b (board b, share p_b) to the water at time τ_b = tau.
func (m *RefreshMap) inject(b int, tau float64) {
	m.ensure(b + 1)
	if m.rowErr {
		return
	}
	if m.boardOnly && !m.sameBytes && b <= poissonLo(tau, m.pmfEps) {
		m.wrote(0, 1)
		m.water[0] += m.p[b] // every path has emptied (boardOnly)
		if m.hi == m.lo {
			m.lo, m.hi = 0, 1
			return
		}
		m.lo = 0
		return
	}
	pl := m.law(tau)
	m.wrote(0, 1) // the paths that have emptied
	m.wrote(max(0, b-(pl.lo+len(pl.pmf)-1)), b+1)
	pl.pureDeath(m.water, m.p[b], b)
	lo, pmf := pl.lo, pl.pmf
	// Update the active range.
	top := 1 // highest row b − lo, or 0 when every path has emptied
	if lo < b {
		top = b - lo + 1
	}
	bot := max(0, b-(lo+len(pmf)-1))
	if m.hi == m.lo { // empty water
		m.lo, m.hi = bot, top
		return
	}
	m.lo = min(m.lo, bot)
	m.hi = max(m.hi, top)
}

// weights fills the plan's uniformisation weights for a window of length
// w integrated over [0, l], slice rate r and uniformisation rate lam = Λ:
// Pois(Λl; n), cut where the tail is below chainEps·Pois(rw; k) (the
// conditioning divides by Pois(rw; k)); each slice's end weight; and the
// weights at the quadrature nodes glx (on [0, 1]) scaled to [0, l]. The
// exponential map (Λ = r + 1) and the phase map (Λ = r + the largest
// phase outflow) share it.
func (pl *winPlan) weights(glx []float64, k int, w, l, r, lam, chainEps, pmfEps float64) {
	pl.w, pl.l, pl.r, pl.valid, pl.nodes = w, l, r, true, len(glx)
	pl.a, pl.d = r/lam, 1/lam
	pk := poissonAt(r*w, k)

	// Uniformisation weights at l.
	lo, pmf := poissonPMF(pl.pbuf, lam*l, chainEps*pk)
	pl.pbuf = pmf
	nmax := lo + len(pmf) - 1
	pl.uw = grow(pl.uw, nmax+1)
	copy(pl.uw[lo:], pmf) // weights below lo stay zero
	pl.n = nmax

	// End weights of slice j.
	pl.endJ = grow(pl.endJ, k+1)
	poissonHead(pl.endJ, r*(w-l), pk)

	// Node weights.
	nodes := len(glx)
	pl.nodeU = grow(pl.nodeU, nodes)
	pl.nodeP = grow(pl.nodeP, nodes*(nmax+1))
	pl.nodeJ = grow(pl.nodeJ, nodes*(k+1))
	for i, x := range glx {
		u := x * l
		pl.nodeU[i] = u
		lo, pmf := poissonPMF(pl.pbuf, lam*u, pmfEps)
		pl.pbuf = pmf
		row := pl.nodeP[i*(nmax+1) : (i+1)*(nmax+1)]
		for t, pi := range pmf {
			if lo+t <= nmax {
				row[lo+t] = pi
			}
		}
		poissonHead(pl.nodeJ[i*(k+1):(i+1)*(k+1)], r*(w-u), pk)
	}
}

// expRateScale is the exponential map's auxiliary rate r in units of
// RateScale·k/W. Fewer uniformisation steps (rW + W of them, plus the
// tail) beat a larger conditioning weight Pois(rW; k): one map costs 25%
// fewer instructions at k = 5, λ = 0.9, T = 300 and 11% fewer at k = 10,
// λ = 0.95, T = 2,730 than with r = k/W (callgrind, balanced boards).
const expRateScale = 0.5

// rate is the auxiliary rate r = RateScale·expRateScale·k/w of a window of
// length w.
func (m *RefreshMap) rate(w float64) float64 {
	return m.set.RateScale * expRateScale * float64(m.k) / w
}

// ballotOK reports whether full windows' low rows take the closed form
// (refreshballot.go): board-only maps with the shortcuts that change
// rounding.
func (m *RefreshMap) ballotOK() bool {
	return m.boardOnly && !m.noShortcuts && !m.sameBytes
}

// nodes is the number of quadrature nodes the plans of the water need: none
// with boardOnly.
func (m *RefreshMap) nodes() int {
	if m.boardOnly {
		return 0
	}
	return len(m.glx)
}

// plan fills pl for a window of length w integrated over [0, l] at the
// first nodes quadrature nodes (all or none).
func (m *RefreshMap) plan(pl *winPlan, w, l float64, nodes int) {
	k := m.k
	r := m.rate(w)
	pl.chainEps, pl.pmfEps = m.chainEps, m.pmfEps
	pl.opOK = false
	pl.weights(m.glx[:nodes], k, w, l, r, r+1, m.chainEps, m.pmfEps)
	m.planKernel(pl, w, l)
}

// farPlanSize is the number of far plans a RefreshMap keeps. A map meets
// few: the 500 periods of BenchmarkParticleMap (k = 5, λ = 0.9, N = 100,
// a map per load level) make 25 plans where a single plan, replanned
// whenever the budget changed, made 308; TestRefreshFarCacheBitIdentical's
// maps make one or two each. A plan with its operator holds about 14 KB
// at k = 5, λ = 0.9, 210 KB at k = 64 and 1.6 MB at k = 256, λ = 0.99,
// and the cache fills only as distinct plans arrive.
const farPlanSize = 8

// farPlanCache keeps the plans of the full windows past the top of the
// board (length W = k/λ, all quadrature nodes) with their window
// operators, for the last farPlanSize distinct plans a map needed. The
// truncation budget chainEps = Tol/(4(nwin + 1)) moves with the board's
// window count from one application to the next, but a plan depends on it
// only through its uniformisation weights Pois(ΛW; n), n ≤ N, cut at
// chainEps·Pois(rW; k) (winPlan.weights): a cached plan whose weights are
// those the budget in hand gives, bit for bit, with the same W, r, pmfEps
// and nodes (k and the nodes' positions are the map's own) is the plan
// RefreshMap.plan would make, and its operator the one buildOp would
// build. So a hit changes no result, and nor does the eviction order.
type farPlanCache struct {
	plans [farPlanSize]winPlan
	used  [farPlanSize]uint64 // the clock at each plan's last use (0: never)
	clock uint64
	last  int       // the plan returned last
	pbuf  []float64 // the weights the budget in hand gives

	// made and built count the plans made and the operators built over
	// the map's life (tests).
	made, built int
}

// farPlan returns the plan of a full window of length w past the top of
// the board for the budgets in hand: from the cache when one there has the
// weights plan would give, otherwise planned afresh in place of the least
// recently used (farPlanCache).
func (m *RefreshMap) farPlan(w float64) *winPlan {
	c, nodes := &m.far, len(m.glx)
	r := m.rate(w)
	c.clock++
	// The plan used last, for the same budget: no weights to compare.
	if pl := &c.plans[c.last]; pl.matches(w, w, m.chainEps, m.pmfEps, nodes) && pl.r == r {
		c.used[c.last] = c.clock
		return pl
	}
	// The weights the budget gives, as weights computes them.
	lo, pmf := poissonPMF(c.pbuf, (r+1)*w, m.chainEps*poissonAt(r*w, m.k))
	c.pbuf = pmf
	victim := 0
	for i := range c.plans {
		pl := &c.plans[i]
		if pl.valid && pl.w == w && pl.l == w && pl.r == r && pl.pmfEps == m.pmfEps && pl.nodes == nodes && sameWeights(pl.uw, lo, pmf) {
			pl.chainEps = m.chainEps // the budget it serves now
			c.used[i], c.last = c.clock, i
			return pl
		}
		if c.used[i] < c.used[victim] {
			victim = i
		}
	}
	pl := &c.plans[victim]
	m.plan(pl, w, w, nodes)
	c.used[victim], c.last = c.clock, victim
	c.made++
	return pl
}

// sameWeights reports whether uw (weights' uniformisation weights, zero
// below the cut) is, bit for bit, pmf placed at lo and zero below.
func sameWeights(uw []float64, lo int, pmf []float64) bool {
	if len(uw) != lo+len(pmf) {
		return false
	}
	for _, x := range uw[:lo] {
		if x != 0 {
			return false
		}
	}
	for i, x := range pmf {
		if math.Float64bits(uw[lo+i]) != math.Float64bits(x) {
			return false
		}
	}
	return true
}

// kernelFor reports whether pl's split and kernel were made for a piece of
// length l in a window of length w with the Poisson cut pmfEps.
func (pl *winPlan) kernelFor(w, l, pmfEps float64) bool {
	return pl.kw == w && pl.kl == l && pl.kEps == pmfEps
}

// planKernel fills pl's split q0 and the kernel of the rows that cannot
// empty, for a piece of length l in a window of length w.
func (m *RefreshMap) planKernel(pl *winPlan, w, l float64) {
	k := m.k
	// The piece's lengths too: evolve reads them (the lazy rows' service
	// time, the drift) whichever path takes the low rows.
	pl.w, pl.l = w, l
	pl.kw, pl.kl, pl.kEps = w, l, m.pmfEps
	// q0: P(Pois(w) ≥ q0) < pmfEps, so rows ≥ q0 never empty.
	lo, pmf := poissonPMF(pl.pbuf, w, m.pmfEps)
	pl.pbuf = pmf
	pl.q0 = lo + len(pmf)
	// Kernel of Binomial(k, l/w) − Pois(l).
	lo, pmf = poissonPMF(pl.pbuf, l, m.pmfEps)
	pl.pbuf = pmf
	theta := 1.0
	if l < w {
		theta = l / w
	}
	m.binBuf = binomialPMF(m.binBuf, k, theta)
	dmax := lo + len(pmf) - 1
	pl.kmin = -dmax
	pl.kern = grow(pl.kern, k+len(pmf))
	for a, pa := range m.binBuf {
		if pa == 0 {
			continue
		}
		for t, pd := range pmf {
			// shift a − d with d = lo + t; index (a − d) − kmin
			pl.kern[a-(lo+t)+dmax] += pa * pd
		}
	}
	pl.krev = grow(pl.krev, len(pl.kern))
	for i, g := range pl.kern {
		pl.krev[len(pl.kern)-1-i] = g
	}
}

// poissonHead sets dst[j] = Pois(x; k − j)/pk for j = 0 … k = len(dst) − 1,
// the weights of slice j, exactly as poissonAt computes each (one shared
// product e^{−x}·Π x/i while e^{−x} is representable).
func poissonHead(dst []float64, x, pk float64) {
	k := len(dst) - 1
	if !(x > 0) || x >= 700 {
		for j := range dst {
			dst[j] = poissonAt(x, k-j) / pk
		}
		return
	}
	p := math.Exp(-x)
	dst[k] = p / pk
	for i := 1; i <= k; i++ {
		p *= x / float64(i)
		dst[k-i] = p / pk
	}
}

// evolve moves the water through one window piece described by pl,
// starting at absolute time tau in window v, and returns ∫ E[q] dt over the
// piece: Gauss–Legendre for the water, the exact integral (drainIntegral)
// for the classes still draining. With useOp the low rows go through the
// plan's window operator (buildOp) instead of the chain.
func (m *RefreshMap) evolve(pl *winPlan, tau float64, v int, useOp bool) float64 {
	k := m.k
	nodes := m.nodes()
	lo, hi := m.lo, m.hi
	split := min(pl.q0, hi)
	var nodeMean [64]float64

	// Output buffer: rows up to hi + k, all zero.
	outRows := max(hi, split) + k + 1
	m.tmp = m.outBuffer(outRows)
	out := m.tmp

	// The rows of out this window writes, [wlo, whi): the low rows' end
	// laws fill rows below split + k, the high rows' convolution rows
	// hs + kmin to hi + k − 1. The rest stay as outBuffer left them, zero.
	wlo, whi := len(out), 0

	// Low rows [lo, split): the (q, j) chain by uniformisation, or its
	// operator.
	var lowIntegral float64
	zLo, zHi := 0, 0 // out's rows known zero (m.zLo, m.zHi)
	m.zMax = max(m.zMax, m.zHi-m.zLo)
	if lo < split {
		wlo, whi = 0, split+k
		var massIn, massOut float64
		switch {
		case useOp:
			if !pl.opOK {
				m.buildOp(pl)
				m.far.built++ // only the far plans carry operators
			}
			massIn, massOut, lowIntegral = pl.applyOp(out, m.water, lo, split, k)
			m.steps += pl.n
		case pl.l == pl.w && m.ballotOK():
			massIn, massOut = m.ballotLow(pl, m.water, lo, split, out)
			m.ballotWins++
		default:
			massIn, massOut = m.chainLow(pl, m.water, lo, split, out, &nodeMean)
			m.steps += pl.n
		}
		// The uniformised sum is cut, so massOut ≤ massIn up to rounding
		// (about 1e-17 per window); count only a genuine loss.
		if lost := massIn - massOut; lost > 0 {
			m.trunc += lost
		}
	}

	// High rows [max(lo, split), hi): never empty, so q + Bin − Pois.
	if hs := max(lo, split); hs < hi {
		wlo, whi = min(wlo, hs+pl.kmin), max(whi, hi+pl.kmin+len(pl.kern)-1)
		var mass, first float64
		src := m.water[hs:hi]
		if nodes > 0 { // the moments feed the quadrature only
			for i, x := range src {
				mass += x
				first += float64(hs+i) * x
			}
		}
		// The kernel is a convolution of two normalised laws: it moves
		// mass without losing any.
		if m.lzActive > 0 {
			// Rows below trimEps·10⁻⁶/rows in runs of a kernel's
			// length are dropped (at most trimEps·10⁻⁶ a window, counted
			// as truncation): the gap the lazy rows left.
			base := hs + pl.kmin
			dropped, g0, g1 := convolveAddGaps(out[base:hi+pl.kmin+len(pl.kern)-1], src, pl.krev, m.lazyNegl(hi-hs), m.zLo-hs, m.zHi-hs)
			m.trunc += dropped
			// The low rows' end laws fill the rows below split + k.
			zLo, zHi = max(base+g0, split+k), base+g1
		} else {
			convolveAdd(out[hs+pl.kmin:hi+pl.kmin+len(pl.kern)-1], src, pl.krev)
		}

		// E[q(u)] = q + k u/W − u: arrivals Binomial(k, u/W), services Pois(u).
		drift := float64(k)/pl.w - 1
		for i := 0; i < nodes; i++ {
			nodeMean[i] += first + mass*drift*pl.nodeU[i]
		}
	}

	// Lazy far rows: they never empty, E[q(u)] = q + k u/W − u.
	if m.lzActive > 0 {
		m.lazyWindow(pl, nodes, &nodeMean)
	}

	var integral float64
	for i := 0; i < nodes; i++ {
		integral += m.glw[i] * nodeMean[i]
	}
	integral = integral*pl.l + lowIntegral
	// Classes b > v still draining.
	if v < m.top && !m.boardOnly {
		integral += m.drainIntegral(tau, tau+pl.l, v)
	}

	// The new water, trimmed. Its rows outside [wlo, whi) are zero, so
	// trimWater's scans for the first and last rows holding mass start
	// there rather than at the buffer's ends: the same rows, without
	// walking the empty rows below a herd's water (once 58% of a herd's
	// board-only map at k = 5, λ = 0.99).
	m.water, m.tmp = m.tmp, m.water
	m.tmpLo, m.tmpHi = lo, hi
	m.tmpZLo, m.tmpZHi = m.zLo, m.zHi
	m.zLo, m.zHi = zLo, zHi
	if m.noZeros {
		m.zLo, m.zHi = 0, 0
	}
	if wlo < whi {
		m.lo, m.hi = wlo, min(whi, len(m.water))
	} else {
		m.lo, m.hi = 0, 0
	}
	m.trimWater()
	if m.hi > m.set.MaxRows {
		m.rowErr = true
	}
	if m.hi > m.rows {
		m.rows = m.hi
	}
	return integral
}

// chainLow moves rows [lo, split) of src through the window piece by
// uniformisation of the (q, j) chain, adds the end law to out (rows
// [0, split + k)) and the node means of these rows to nodeMean, and
// returns the mass in and out.
func (m *RefreshMap) chainLow(pl *winPlan, src []float64, lo, split int, out []float64, nodeMean *[64]float64) (massIn, massOut float64) {
	k := m.k
	nodes := pl.nodes // none: no moments either
	R := split + k
	nj := k + 1
	m.cur = grow(m.cur, nj*R)
	m.nxt = grow(m.nxt, nj*R)
	m.acc = grow(m.acc, R)
	m.mom = grow(m.mom, 2*(pl.n+1)*nj)
	var firstIn float64
	for q := lo; q < split; q++ {
		m.cur[q] = src[q]
		massIn += src[q]
		firstIn += float64(q) * src[q]
	}
	a, d := pl.a, pl.d
	cur, nxt, acc := m.cur, m.nxt, m.acc
	// mom holds, per step n and slice j, the mass Σ_q vₙ(q, j) and the
	// first moment Σ_q q vₙ(q, j). They follow from the jump structure
	// without touching the rows:
	//   M_{n+1}(j) = a M_n(j−1) + d M_n(j),
	//   m_{n+1}(j) = a (m_n(j−1) + M_n(j−1)) + d (m_n(j) − M_n(j) + vₙ(0, j)),
	// (an arrival from slice k leaves the conditioned chain).
	mass := m.mom[:(pl.n+1)*nj]
	first := m.mom[(pl.n+1)*nj:]
	mass[0], first[0] = massIn, firstIn
	full := pl.l == pl.w
	for step := 0; step <= pl.n; step++ {
		jmax := min(step, k)
		wn := pl.uw[step]
		if wn != 0 {
			if full {
				// Only the slice j = k survives the conditioning.
				if jmax == k {
					axpy(acc, wn*pl.endJ[k], cur[k*R:(k+1)*R])
				}
			} else {
				for j := 0; j <= jmax; j++ {
					axpy(acc, wn*pl.endJ[j], cur[j*R:(j+1)*R])
				}
			}
		}
		if step == pl.n {
			break
		}
		// Moments of step n+1.
		if nodes > 0 {
			mc, fc := mass[step*nj:(step+1)*nj], first[step*nj:(step+1)*nj]
			mn, fn := mass[(step+1)*nj:(step+2)*nj], first[(step+1)*nj:(step+2)*nj]
			for j := 0; j <= min(jmax+1, k); j++ {
				mn[j] = d * mc[j]
				fn[j] = d * (fc[j] - mc[j] + cur[j*R])
				if j > 0 {
					mn[j] += a * mc[j-1]
					fn[j] += a * (fc[j-1] + mc[j-1])
				}
			}
		}
		// One uniformised step: arrival w.p. a from (q−1, j−1), service
		// w.p. d from (q+1, j); a service at q = 0 stays. Slice j only
		// reaches rows q < split + j (j arrivals on a start below
		// split); the rows above stay zero in both buffers.
		//
		// In a full window only slice k enters the end law; a slice that
		// can no longer reach it (j + rem < k arrivals in the rem steps
		// left) is needed only for the moments, which take row 0 of
		// every slice up to step n − 1, so only its rows q < rem (those
		// that can still reach row 0) are computed. The rows left out are
		// never read by a row computed later (row q reads rows q ± 1 of
		// the step before), and the rows computed are unchanged.
		rem := pl.n - step - 1
		// The slices from jv up run through chainSlicesAVX2 at once: the
		// same rows, the same operations.
		jtop, jv := min(jmax+1, k), min(jmax+1, k)+1
		if useAVX2 && split >= 1 {
			jv = 1
			if full && !m.noPrune {
				jv = max(1, k-rem)
			}
		}
		for j := 0; j <= min(jtop, jv-1); j++ {
			top := split + j // rows [0, top) of slice j
			cj := cur[j*R : j*R+top]
			nx := nxt[j*R : j*R+top]
			//
			// Without moments (boardOnly) such a slice is not needed at
			// all: slice j + 1 reads it only in a step where it is
			// needed itself (j + 1 + rem' ≥ k, rem' = rem at the step
			// before, the condition for slice j at that step), so no row
			// computed reads a row left out.
			if full && j+rem < k && !m.noPrune {
				if nodes == 0 {
					continue
				}
				if rem < top {
					pruneStep(nx, cj, cur[max(j-1, 0)*R:], j, rem, d, a)
					continue
				}
			}
			if j == 0 {
				nx[0] = d * (cj[0] + cur[1])
				c1, n1 := cur[2:top+1], nx[1:top] // cur[top] = 0 < R
				n1 = n1[:len(c1)]
				for q, x := range c1 {
					n1[q] = d * x
				}
				continue
			}
			cm := cur[(j-1)*R : (j-1)*R+top-1]
			nx[0] = d * (cj[0] + cj[1])
			// nx[q] = d·cj[q+1] + a·cm[q−1] for 1 ≤ q ≤ top − 2.
			stencil2(nx[1:top-1], cj[2:top], cm[:top-2], d, a)
			nx[top-1] = a * cm[top-2] // cj[top] = 0
		}
		if jv <= jtop {
			chainSlicesAVX2(&nxt[0], &cur[0], R, split, jv, jtop, d, a)
		}
		cur, nxt = nxt, cur
	}
	m.cur, m.nxt = cur, nxt
	for q, x := range acc {
		out[q] += x
		massOut += x
	}
	// Node means of the low part:
	// E[q(u)] = Σ_j Pois(r(W−u); k−j)/Pois(rW; k) Σ_n Pois(Λu; n) m_n(j).
	for i := 0; i < nodes; i++ {
		nodeMean[i] += pl.nodeMoment(i, first, k)
	}
	return massIn, massOut
}

// nodeMoment is Σ_n Pois(Λu_i; n) Σ_{j ≤ min(n, k)} w_j(u_i)·mom[n·(k+1) + j]
// at quadrature node i: the mean at time u_i of a quantity whose value
// after n uniformisation steps in slice j is mom[n·(k+1) + j] (the water's
// queue moment; the phase map's too).
func (pl *winPlan) nodeMoment(i int, mom []float64, k int) float64 {
	np, nj := pl.n+1, k+1
	pw := pl.nodeP[i*np : (i+1)*np]
	jw := pl.nodeJ[i*nj : (i+1)*nj]
	var s float64
	for step, pn := range pw {
		if pn == 0 {
			continue
		}
		f := mom[step*nj : (step+1)*nj]
		var t float64
		for j := 0; j <= min(step, k); j++ {
			t += jw[j] * f[j]
		}
		s += pn * t
	}
	return s
}

// stencil2 sets n[q] = d·c[q] + a·m[q] for every q < len(c) (len(n),
// len(m) ≥ len(c)), four rows at a time where they fit (one AVX2
// instruction each where the processor has it): the same arithmetic per
// row as the plain loop, with less loop overhead.
func stencil2(n, c, m []float64, d, a float64) {
	q := 0
	if nb := len(c) / 4; useAVX2 && nb > 0 {
		_, _ = n[4*nb-1], m[4*nb-1]
		stencilAVX2(&n[0], &c[0], &m[0], nb, d, a)
		q = 4 * nb
	}
	for ; q+4 <= len(c); q += 4 {
		cc, mm, nn := c[q:q+4:q+4], m[q:q+4:q+4], n[q:q+4:q+4]
		nn[0] = d*cc[0] + a*mm[0]
		nn[1] = d*cc[1] + a*mm[1]
		nn[2] = d*cc[2] + a*mm[2]
		nn[3] = d*cc[3] + a*mm[3]
	}
	for ; q < len(c); q++ {
		n[q] = d*c[q] + a*m[q]
	}
}

// pruneStep is chainLow's step for slice j (rows cj, previous slice cm,
// next rows nx) limited to rows [0, lim), lim < len(cj): the same
// operations as the full step for those rows.
func pruneStep(nx, cj, cm []float64, j, lim int, d, a float64) {
	if lim == 0 {
		return
	}
	nx[0] = d * (cj[0] + cj[1])
	c1, n1 := cj[2:lim+1], nx[1:lim]
	if j == 0 {
		for q, x := range c1 {
			n1[q] = d * x
		}
		return
	}
	stencil2(n1, c1, cm, d, a)
}

// buildOp computes the plan's window operator: for every start row
// q < q0, the chain's end law from a server at q (column q, rows
// [0, q + k]), its mass and its integral ∫ E[q] over the piece. The
// operator is linear in the start, so applying it (applyOp) gives the
// chain's result exactly up to rounding (the order of the sums differs);
// it is worth building when many windows share the plan (past the top of
// the board every full window does), and it is kept with the plan.
func (m *RefreshMap) buildOp(pl *winPlan) {
	k, q0 := m.k, pl.q0
	n := 0
	for q := 0; q < q0; q++ {
		n += q + k + 1
	}
	pl.op = grow(pl.op, n)
	pl.opSum = grow(pl.opSum, q0)
	pl.opInt = grow(pl.opInt, q0)
	m.unit = grow(m.unit, q0)
	off := 0
	for q := 0; q < q0; q++ {
		col := pl.op[off : off+q+k+1]
		off += q + k + 1
		m.unit[q] = 1
		var nm [64]float64
		_, pl.opSum[q] = m.chainLow(pl, m.unit, q, q+1, col, &nm)
		m.unit[q] = 0
		var s float64
		for i := range m.glx {
			s += m.glw[i] * nm[i]
		}
		pl.opInt[q] = s * pl.l
	}
	pl.opOK = true
}

// applyOp adds the operator's image of rows [lo, split) of src to out and
// returns the mass in, the mass out and the rows' integral.
func (pl *winPlan) applyOp(out, src []float64, lo, split, k int) (massIn, massOut, integral float64) {
	off := 0
	for q := 0; q < lo; q++ {
		off += q + k + 1
	}
	for q := lo; q < split; q++ {
		x := src[q]
		col := pl.op[off : off+q+k+1]
		off += q + k + 1
		if x == 0 {
			continue
		}
		massIn += x
		massOut += x * pl.opSum[q]
		integral += x * pl.opInt[q]
		axpy(out[:len(col)], x, col)
	}
	return massIn, massOut, integral
}

// convolveAdd adds the full convolution of x with the kernel g to dst,
// dst[i] += Σ_t g[t] x[i−t], len(dst) = len(x) + len(g) − 1, given grev, g
// reversed. Each output is a dot product of grev with a window of x, so
// every dst row is read and written once (the scatter form x[q]·g would
// read and write it len(g) times). A large convolution is split into two
// fixed halves of its outputs, the upper one on a second goroutine: every
// output is computed by the same arithmetic whichever half holds it
// (convolveRange), so the result does not depend on the split or on the
// number of cores.
func convolveAdd(dst, x, grev []float64) {
	K := len(grev)
	if len(dst) != len(x)+K-1 {
		panic("meanfield: convolveAdd length mismatch")
	}
	if len(x)*K < convParWork {
		convolveRange(dst, x, grev, 0, len(dst))
		return
	}
	mid := len(dst) / 2
	pool.Fork(func() { convolveRange(dst, x, grev, 0, mid) },
		func() { convolveRange(dst, x, grev, mid, len(dst)) })
}

// convParWork is the size (len(x)·len(grev) terms) from which convolveAdd
// splits a convolution in two: about 80 µs of work, well above the cost
// of starting and joining a goroutine.
const convParWork = 1 << 18

// convolveRange adds the convolution's outputs [from, to) to dst. The
// interior outputs K−1 ≤ i < K−1 + 4⌊(len(x) − K + 1)/4⌋, whose terms span
// the whole kernel, are each summed in kernel order from zero and then
// added to dst[i] (convolveInterior); the outputs at either end, whose
// terms cover part of the kernel, are dot products (dot, four partial
// sums). Measured on the maps' sizes (K = 15…600, 40…6,000 rows), summing
// the interior eight outputs at a time in Go was 25–45% slower, and as
// blocks of axpys (gonum's floats.AddScaled, two entries an instruction,
// the same rounding) no faster than four at a time, and slower on short
// rows. With AVX2 (simd_amd64.go) the interior goes sixteen outputs a pass
// and the ends as whole stretches of dots, each output's sum unchanged to
// the bit.
func convolveRange(dst, x, grev []float64, from, to int) {
	K := len(grev)
	lo, hi := K-1, K-1 // the interior outputs
	if len(x) >= K-1+4 {
		hi = lo + (len(x)-lo)/4*4
	}
	convEdges(dst, x, grev, from, min(lo, to))
	if ilo, ihi := max(lo, from), min(hi, to); ilo < ihi {
		convolveInterior(dst, x, grev, ilo, ihi)
	}
	convEdges(dst, x, grev, max(hi, from), to)
}

// convEdges adds the outputs [from, to) outside the interior, all on one
// side of K − 1, each by convEdge; with AVX2 by edgeDotsAVX2, the same
// sums to the bit, over stretches where the dots' ends move linearly.
func convEdges(dst, x, grev []float64, from, to int) {
	if !useAVX2 || from >= to {
		for i := from; i < to; i++ {
			dst[i] += convEdge(x, grev, i)
		}
		return
	}
	K, n := len(grev), len(x)
	if from < K-1 {
		// Output i dots grev[K−1−i : K−1−i+L] with x[0 : L],
		// L = min(i+1, n).
		if mid := min(to, n); from < mid {
			edgeDots(dst[from:mid], grev, x, K-1-from, 0, -1, 0, from+1, 1)
		}
		if lo := max(from, n); lo < to {
			edgeDots(dst[lo:to], grev, x, K-1-lo, 0, -1, 0, n, 0)
		}
		return
	}
	// Output i ≥ K−1 dots grev[0 : L] with x[i−K+1 : i−K+1+L],
	// L = min(K, n+K−1−i).
	if mid := min(to, n); from < mid {
		edgeDots(dst[from:mid], grev, x, 0, from-K+1, 0, 1, K, 0)
	}
	if lo := max(from, n); lo < to {
		edgeDots(dst[lo:to], grev, x, 0, lo-K+1, 0, 1, n+K-1-lo, -1)
	}
}

// edgeDots adds to dst[t] the dot product of a[ia+t·sa:] and b[ib+t·sb:]
// over L0 + t·dL entries, each made as dot makes it, with AVX2: four
// outputs at a time (edgeDots4AVX2), the rest one at a time.
func edgeDots(dst, a, b []float64, ia, ib, sa, sb, L0, dL int) {
	t := len(dst) / 4 * 4
	if t > 0 {
		edgeDots4AVX2(&dst[0], &a[ia], &b[ib], sa, sb, L0, dL, t/4)
	}
	if t < len(dst) {
		edgeDotsAVX2(&dst[t], &a[ia+t*sa], &b[ib+t*sb], sa, sb, L0+t*dL, dL, len(dst)-t)
	}
}

// convolveInterior adds the interior outputs [lo, hi) four at a time
// (each kernel tap loaded once for the four), the rest one at a time: the
// same sum for each output.
func convolveInterior(dst, x, grev []float64, lo, hi int) {
	K := len(grev)
	i := lo
	if nb := (hi - lo) / 16; useAVX2 && nb > 0 && K > 0 {
		_ = dst[i+16*nb-1]
		_ = x[i-K+1+16*nb+K-2]
		convBlocksAVX2(&dst[i], &x[i-K+1], &grev[0], nb, K)
		i += 16 * nb
	}
	for ; i+4 <= hi; i += 4 {
		xs := x[i-K+1 : i+4]
		var s0, s1, s2, s3 float64
		for u, g := range grev {
			w := xs[u : u+4 : u+4]
			s0 += g * w[0]
			s1 += g * w[1]
			s2 += g * w[2]
			s3 += g * w[3]
		}
		d := dst[i : i+4 : i+4]
		d[0] += s0
		d[1] += s1
		d[2] += s2
		d[3] += s3
	}
	for ; i < hi; i++ {
		xs := x[i-K+1 : i+1]
		var s float64
		for u, g := range grev {
			s += g * xs[u]
		}
		dst[i] += s
	}
}

// convEdge is output i of the convolution outside the interior: the terms
// x[i−K+1+u]·grev[u] with 0 ≤ i−K+1+u < len(x), by dot.
func convEdge(x, grev []float64, i int) float64 {
	K := len(grev)
	u0 := max(0, K-1-i)
	u1 := min(K, len(x)+K-1-i)
	return dot(grev[u0:u1], x[i-K+1+u0:i-K+1+u1])
}

// convolveAddGaps is convolveAdd that skips every run of at least len(grev)
// rows of x at most negl: the stretches of x between such runs are
// convolved one by one, the rows of the runs dropped. It returns the mass
// dropped. The lazy far rows leave such a run in the water: startLazy
// clears them but leaves the rows above them, whose convolution spreads
// mass of order 10⁻³⁰ back down over the cleared rows, window by window.
// An output whose dot product lies inside one stretch is computed as by
// convolveAdd; one at a stretch's end omits only the dropped rows' terms.
//
// Rows [z0, z1) of x are known to be zero (none when z0 ≥ z1; the bounds
// may lie outside x): the scan jumps them, which adds nothing to the mass
// dropped, so the result is the same to the bit. g0, g1 bound the longest
// run of rows of dst that no stretch wrote (empty when g0 ≥ g1): they stay
// as they were.
func convolveAddGaps(dst, x, grev []float64, negl float64, z0, z1 int) (dropped float64, g0, g1 int) {
	K := len(grev)
	if len(dst) != len(x)+K-1 {
		panic("meanfield: convolveAddGaps length mismatch")
	}
	z0, z1 = max(z0, 0), min(z1, len(x))
	end := 0 // the end of the rows of dst the stretches so far wrote
	gap := func(a int) {
		if a-end > g1-g0 {
			g0, g1 = end, a
		}
	}
	a := 0
	for a < len(x) {
		// The stretch starts at a (x[a] > negl, or a = 0) and ends at
		// b, before the first run of K rows at most negl.
		b, j, run := a, a, 0.0
		for ; j < len(x) && j-b < K; j++ {
			if x[j] > negl {
				b = j + 1
				run = 0
			} else {
				run += x[j]
			}
		}
		if b == len(x) && a == 0 {
			convolveAdd(dst, x, grev)
			return dropped, 0, 0
		}
		if b > a {
			gap(a)
			convolveAdd(dst[a:b+K-1], x[a:b], grev)
			end = b + K - 1
		}
		// Skip the run from b to the next row above negl.
		for j < len(x) && x[j] <= negl {
			if j >= z0 && j < z1 {
				j = z1 // zeros: run is unchanged
				continue
			}
			run += x[j]
			j++
		}
		dropped += run
		a = j
	}
	gap(len(dst))
	return dropped, g0, g1
}

// wrote shrinks the water's known zero rows [zLo, zHi) to the longer part
// outside rows [a, b), which are about to be written.
func (m *RefreshMap) wrote(a, b int) {
	if a >= m.zHi || b <= m.zLo {
		return
	}
	if a-m.zLo >= m.zHi-b {
		m.zHi = a
	} else {
		m.zLo = b
	}
}

// zeroed records that the water's rows [a, b) have been cleared: they
// become its known zero rows when they are more than those, or together
// with them when the two touch.
func (m *RefreshMap) zeroed(a, b int) {
	switch {
	case m.noZeros:
	case m.zLo < m.zHi && a <= m.zHi && b >= m.zLo:
		m.zLo, m.zHi = min(m.zLo, a), max(m.zHi, b)
	case b-a > m.zHi-m.zLo:
		m.zLo, m.zHi = a, b
	}
}

// dot returns Σ a_i b_i with four partial sums (len(b) ≥ len(a)).
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, bb := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// outBuffer returns m.tmp resliced to n rows, all zero. m.tmp is the
// water of the window before (evolve), zero outside its active rows
// [tmpLo, tmpHi) up to its length; rows past its length may hold an older
// window's values. So only those rows are cleared, not all n: below a
// herd's water lie thousands of rows that are zero already (clearing them
// every window was 15% of a herd's board-only map at k = 5, λ = 0.99).
func (m *RefreshMap) outBuffer(n int) []float64 {
	s := m.tmp
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	old := len(s)
	s = s[:n]
	if lo, hi := min(m.tmpLo, n), min(m.tmpHi, n); lo < hi {
		// Rows [tmpZLo, tmpZHi) are zero already.
		if zl, zh := max(m.tmpZLo, lo), min(m.tmpZHi, hi); zl < zh {
			clear(s[lo:zl])
			clear(s[zh:hi])
		} else {
			clear(s[lo:hi])
		}
	}
	if old < n {
		clear(s[old:])
	}
	return s
}

// trimWater finds the active rows and drops rows at either end whose
// cumulative mass is below trimEps, adding it to the truncation.
func (m *RefreshMap) trimWater() {
	w := m.water
	lo, hi := m.lo, m.hi
	for hi > lo && w[hi-1] == 0 {
		hi--
	}
	for lo < hi && w[lo] == 0 {
		lo++
	}
	var s float64
	for hi > lo && s+w[hi-1] < m.trimEps {
		s += w[hi-1]
		w[hi-1] = 0
		hi--
	}
	var t float64
	for lo < hi && t+w[lo] < m.trimEps {
		t += w[lo]
		w[lo] = 0
		lo++
	}
	m.trunc += s + t
	m.lo, m.hi = lo, hi
}

// drainIntegral returns ∫_{t1}^{t2} Σ_{b>v} p_b E[(b − Pois(t))⁺] dt, the
// area under the mean queue of the classes not yet in the water, exactly:
// with π_t the Poisson(t) law, Q_t(d) = P(Pois(t) > d) and
// d/dt Q_t(d) = π_t(d),
//
//	Σ_{b>v} p_b E[(b − Pois(t))⁺] = Σ_d π_t(d) c_d,
//	c_d = S₂(max(v, d)) − d·S₁(max(v, d)),
//	∫_{t1}^{t2} … dt = Σ_d c_d (Q_{t2}(d) − Q_{t1}(d)),
//
// where S₁(x) = Σ_{b>x} p_b and S₂(x) = Σ_{b>x} b p_b vanish from the top of
// the board up. The tails Q are suffix sums of the Poisson vectors (Q = 1
// below both supports, where the difference is exactly 0).
func (m *RefreshMap) drainIntegral(t1, t2 float64, v int) float64 {
	l1, l2 := m.law(t1), m.law(t2)
	dmin := min(l1.lo, l2.lo)
	if dmin >= m.top {
		return 0
	}
	// Only d < top contribute (S₁ = S₂ = 0 from the top up).
	dtop := min(max(l1.lo+len(l1.pmf), l2.lo+len(l2.pmf))-1, m.top-1)
	var s float64
	for d := dtop; d >= dmin; d-- {
		x := max(v, d)
		s += (m.s2[x] - float64(d)*m.s1[x]) * (l2.above(d) - l1.above(d))
	}
	return s
}

// above returns Q(d) = Σ_{i>d} π(i), the tail sum above d (1 below the
// support, as the sum of the whole vector).
func (l *poissonLaw) above(d int) float64 {
	i := max(d-l.lo+1, 0)
	if i >= len(l.tail) {
		return 0
	}
	return l.tail[i]
}

// Board constructors for the start states of the package doc, §2.

// BoardEmpty returns the empty board, p_0 = 1.
func BoardEmpty() []float64 { return []float64{1} }

// BoardBalanced returns the board with every server at q jobs (q ≥ 0).
func BoardBalanced(q int) []float64 {
	if q < 0 {
		panic(fmt.Sprintf("meanfield: BoardBalanced(%d): want ≥ 0", q))
	}
	p := make([]float64, q+1)
	p[q] = 1
	return p
}

// BoardHalf returns the board with half the servers at b jobs and half
// empty (b ≥ 1; b = 0 gives the empty board).
func BoardHalf(b int) []float64 {
	if b < 0 {
		panic(fmt.Sprintf("meanfield: BoardHalf(%d): want ≥ 0", b))
	}
	p := make([]float64, b+1)
	p[0] += 0.5
	p[b] += 0.5
	return p
}

// BoardSpread returns the board with queue lengths spread evenly over
// 0, 1, …, m.
func BoardSpread(m int) []float64 {
	if m < 0 {
		panic(fmt.Sprintf("meanfield: BoardSpread(%d): want ≥ 0", m))
	}
	p := make([]float64, m+1)
	for i := range p {
		p[i] = 1 / float64(m+1)
	}
	return p
}

// BoardGeometric returns the geometric board p_b = (1 − ρ)ρ^b, 0 ≤ ρ < 1,
// cut at the first b with ρ^b < tol (tol = 0 means 1e-16) and renormalised.
// ρ = λ gives the M/M/1 queue-length law.
func BoardGeometric(rho, tol float64) []float64 {
	if tol <= 0 {
		tol = 1e-16
	}
	if !(rho >= 0 && rho < 1) {
		panic(fmt.Sprintf("meanfield: BoardGeometric ρ = %v outside [0, 1)", rho))
	}
	var p []float64
	var s float64
	for x := 1.0; x >= tol; x *= rho {
		p = append(p, (1-rho)*x)
		s += (1 - rho) * x
		if rho == 0 {
			break
		}
	}
	for i := range p {
		p[i] /= s
	}
	return p
}
