package meanfield

import (
	"errors"
	"fmt"
	"math"
)

// refRefresh is the refresh map of the package doc, §2, exactly as commit
// 930f0dd implemented it, before it was optimised for speed: the reference
// that testdata/refresh_golden.json.gz records (see that commit's refresh.go
// for the method). It is kept here, in the test package, so that the
// golden file is regenerated from it and never from the code under test.
// Only identifiers are renamed (ref prefix); gauss.go and poisson.go are
// unchanged since that commit and are shared.
type refRefresh struct {
	// Dispatchers is k, the number of dispatchers, in [1, 256].
	Dispatchers int
	// Load is the per-server arrival rate λ, in (0, 1).
	Load float64
	// Period is the refresh period T in mean service times, in (0, 1e6].
	Period float64

	// Tol bounds the probability mass one application may lose to
	// truncation; in [1e-30, 1e-3]. Zero means refDefaultTol.
	Tol float64
	// Nodes is the number of Gauss–Legendre nodes per window for the
	// time-averaged queue, in [2, 64]. Zero means refDefaultNodes.
	Nodes int
	// RateScale multiplies the auxiliary uniformisation rate r = k/W, in
	// [0.125, 8]. Results do not depend on it beyond rounding; it exists
	// for convergence checks. Zero means 1.
	RateScale float64
	// MaxRows bounds the number of queue rows; an application needing more
	// fails with refErrRows. At least 16; zero means
	// refDefaultMaxRows.
	MaxRows int
}

// Defaults of the optional refRefresh settings.
const (
	refDefaultTol     = 1e-12
	refDefaultNodes   = 12
	refDefaultMaxRows = 1 << 22

	refMaxDispatchers = 256
	refMaxPeriod      = 1e6
)

// refErrRows is returned, wrapped, when the refresh map would need more
// queue rows than refRefresh.MaxRows.
var refErrRows = errors.New("meanfield: refresh map needs more queue rows than MaxRows")

// Validate reports the first setting out of range, naming the field.
func (r refRefresh) Validate() error {
	switch {
	case r.Dispatchers < 1 || r.Dispatchers > refMaxDispatchers:
		return fmt.Errorf("meanfield: Dispatchers = %d outside [1, %d]", r.Dispatchers, refMaxDispatchers)
	case !(r.Load > 0 && r.Load < 1):
		return fmt.Errorf("meanfield: Load = %v outside (0, 1)", r.Load)
	case !(r.Period > 0 && r.Period <= refMaxPeriod):
		return fmt.Errorf("meanfield: Period = %v outside (0, %g]", r.Period, refMaxPeriod)
	case r.Tol != 0 && !(r.Tol >= 1e-30 && r.Tol <= 1e-3):
		return fmt.Errorf("meanfield: Tol = %v outside [1e-30, 1e-3] (0 means %g)", r.Tol, refDefaultTol)
	case r.Nodes != 0 && (r.Nodes < 2 || r.Nodes > 64):
		return fmt.Errorf("meanfield: Nodes = %d outside [2, 64] (0 means %d)", r.Nodes, refDefaultNodes)
	case r.RateScale != 0 && !(r.RateScale >= 0.125 && r.RateScale <= 8):
		return fmt.Errorf("meanfield: RateScale = %v outside [0.125, 8] (0 means 1)", r.RateScale)
	case r.MaxRows != 0 && r.MaxRows < 16:
		return fmt.Errorf("meanfield: MaxRows = %d outside [16, ∞) (0 means %d)", r.MaxRows, refDefaultMaxRows)
	}
	return nil
}

// withDefaults returns r with zero optional fields replaced by defaults.
func (r refRefresh) withDefaults() refRefresh {
	if r.Tol == 0 {
		r.Tol = refDefaultTol
	}
	if r.Nodes == 0 {
		r.Nodes = refDefaultNodes
	}
	if r.RateScale == 0 {
		r.RateScale = 1
	}
	if r.MaxRows == 0 {
		r.MaxRows = refDefaultMaxRows
	}
	return r
}

// refRefreshResult is one application of the refresh map.
type refRefreshResult struct {
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
// wrapper around newRefMap and refMap.Apply; to iterate, keep a
// refMap, which reuses its workspace.
func (r refRefresh) Apply(p []float64) (refRefreshResult, error) {
	m, err := newRefMap(r)
	if err != nil {
		return refRefreshResult{}, err
	}
	return m.Apply(nil, p)
}

// refMap applies the refresh map with a reusable workspace: after the
// first few applications Apply does not allocate. A refMap is not safe
// for concurrent use.
type refMap struct {
	set      refRefresh // with defaults
	k        int
	glx, glw []float64 // Gauss–Legendre on [0, 1]

	// The current board.
	p      []float64 // normalised input
	cum    []float64 // F(v)
	s1, s2 []float64 // Σ_{b>x} p_b and Σ_{b>x} b p_b
	top    int       // len(p) − 1

	// The water distribution A(q), nonzero only on rows [lo, hi).
	water, tmp []float64
	lo, hi     int

	// The (q, j) chain, stored j-major: x[j*rows+q].
	cur, nxt, acc []float64
	mom           []float64 // (step n, j) first moments Σ_q q·vₙ(q, j)

	full, cut refWinPlan
	scratch   []float64 // Poisson scratch for injections and drains
	scratch2  []float64
	binBuf    []float64

	// Per-application bookkeeping.
	trimEps, chainEps, pmfEps float64
	trunc                     float64
	rows, steps               int
	rowErr                    bool
}

// refWinPlan holds what a window piece of length l inside a window of length
// w needs: uniformisation weights, node weights and the convolution kernel.
type refWinPlan struct {
	w, l, r float64
	valid   bool
	a, d    float64   // r/Λ and 1/Λ
	n       int       // last uniformisation step
	uw      []float64 // Pois(Λl; n), n = 0..N
	endJ    []float64 // weight of slice j at l: Pois(r(w−l); k−j)/Pois(rw; k)
	nodeU   []float64 // node times u_i in [0, l]
	nodeP   []float64 // node i, step n: Pois(Λu_i; n)
	nodeJ   []float64 // node i, slice j: Pois(r(w−u_i); k−j)/Pois(rw; k)
	q0      int       // rows ≥ q0 cannot empty in the window
	kmin    int       // shift of kern[0]
	kern    []float64 // law of Binomial(k, l/w) − Pois(l)
	pbuf    []float64
}

// newRefMap validates r and returns a map with an empty workspace.
func newRefMap(r refRefresh) (*refMap, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	m := &refMap{set: r.withDefaults(), k: r.Dispatchers}
	m.glx, m.glw = gaussLegendre(m.set.Nodes)
	return m, nil
}

// Settings returns the settings in use, defaults filled in.
func (m *refMap) Settings() refRefresh { return m.set }

// refGrow returns s resized to n, reusing its storage when it can; the
// contents are zeroed.
func refGrow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	s = s[:n]
	clear(s)
	return s
}

// windowLen returns W_v = k F(v)/λ, with F = 1 past the top of the board.
func (m *refMap) windowLen(v int) float64 {
	f := 1.0
	if v < m.top {
		f = m.cum[v]
	}
	return float64(m.k) * f / m.set.Load
}

// Apply applies the map to the board p and returns the result, whose Next
// reuses the storage of dst when it is large enough. p must be a
// probability vector (non-negative, summing to 1 within 1e-6); it is
// normalised before use. Apply returns an error for an invalid p and a
// wrapped refErrRows when the queue would need more than MaxRows rows.
func (m *refMap) Apply(dst, p []float64) (refRefreshResult, error) {
	if len(p) == 0 {
		return refRefreshResult{}, errors.New("meanfield: empty board")
	}
	var total float64
	for b, x := range p {
		if !(x >= 0) || math.IsInf(x, 0) {
			return refRefreshResult{}, fmt.Errorf("meanfield: board p[%d] = %v is not a probability", b, x)
		}
		total += x
	}
	if !(math.Abs(total-1) <= 1e-6) {
		return refRefreshResult{}, fmt.Errorf("meanfield: board mass = %v, want 1 (within 1e-6)", total)
	}
	lam, T := m.set.Load, m.set.Period

	// The board, its cumulative and suffix sums.
	n := len(p)
	for n > 1 && p[n-1] == 0 {
		n--
	}
	m.top = n - 1
	m.p = refGrow(m.p, n)
	m.cum = refGrow(m.cum, n)
	m.s1 = refGrow(m.s1, n+1)
	m.s2 = refGrow(m.s2, n+1)
	var res refRefreshResult
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

	// First pass: count the windows begun before T.
	nwin := 0
	{
		tau := 0.0
		for v := 0; ; v++ {
			w := m.windowLen(v)
			nwin++
			if tau+w > T {
				break
			}
			tau += w
		}
	}
	m.trimEps = m.set.Tol / (4 * float64(nwin+1))
	m.chainEps = m.trimEps
	m.pmfEps = m.set.Tol * 1e-6
	m.trunc = 0
	m.steps = 0
	m.rows = n
	m.rowErr = false
	m.full.valid = false
	m.lo, m.hi = 0, 0
	m.water = m.water[:0]

	var integral float64
	tau := 0.0
	v := 0
	for ; ; v++ {
		// Class v joins the water at τ_v with its pure-death law.
		if v < n && m.p[v] > 0 {
			m.inject(v, tau)
			if m.rowErr {
				return res, fmt.Errorf("%w (MaxRows = %d)", refErrRows, m.set.MaxRows)
			}
		}
		w := m.windowLen(v)
		if w == 0 {
			continue // F(v) = 0: no server is in the water yet
		}
		if tau+w <= T {
			if !m.full.valid || m.full.w != w {
				m.plan(&m.full, w, w)
			}
			integral += m.evolve(&m.full, tau, v)
			tau += w
		} else {
			s := T - tau
			m.plan(&m.cut, w, s)
			integral += m.evolve(&m.cut, tau, v)
			res.Window = v
			res.Windows = v + 1
			res.CutPhase = s / w
			res.KinkDistance = math.Min(s, w-s)
			break
		}
		if m.rowErr {
			return res, fmt.Errorf("%w (MaxRows = %d)", refErrRows, m.set.MaxRows)
		}
	}
	if m.rowErr {
		return res, fmt.Errorf("%w (MaxRows = %d)", refErrRows, m.set.MaxRows)
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
		lo, pmf := poissonPMF(m.scratch, T, m.pmfEps)
		m.scratch = pmf
		for b := v + 1; b < n; b++ {
			if m.p[b] > 0 {
				refPureDeath(dst, m.p[b], b, lo, pmf)
			}
		}
	}
	for size > 1 && dst[size-1] == 0 {
		size--
	}
	res.Next = dst[:size]
	res.QueueMean = integral / T
	res.Response = res.QueueMean / lam
	res.Truncation = m.trunc
	res.Rows = max(m.rows, size)
	res.Steps = m.steps
	return res, nil
}

// refPureDeath adds mass·P(q) for a server starting at b served at rate 1
// with nothing arriving, given the Poisson(t) law pmf of services starting
// at d = lo: P(q = b − d) = π(d) for d < b and P(q = 0) = Σ_{d≥b} π(d).
func refPureDeath(dst []float64, mass float64, b, lo int, pmf []float64) {
	for i, pi := range pmf {
		d := lo + i
		if d < b {
			dst[b-d] += mass * pi
		} else {
			dst[0] += mass * pi
		}
	}
}

// ensure makes the water hold at least n rows.
func (m *refMap) ensure(n int) {
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
func (m *refMap) inject(b int, tau float64) {
	m.ensure(b + 1)
	if m.rowErr {
		return
	}
	lo, pmf := poissonPMF(m.scratch, tau, m.pmfEps)
	m.scratch = pmf
	refPureDeath(m.water, m.p[b], b, lo, pmf)
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

// plan fills pl for a window of length w integrated over [0, l].
func (m *refMap) plan(pl *refWinPlan, w, l float64) {
	k := m.k
	r := m.set.RateScale * float64(k) / w
	lam := r + 1
	pl.w, pl.l, pl.r, pl.valid = w, l, r, true
	pl.a, pl.d = r/lam, 1/lam
	pk := poissonAt(r*w, k)

	// Uniformisation weights at l, cut where the tail is below
	// chainEps·Pois(rW; k) (the conditioning divides by Pois(rW; k)).
	lo, pmf := poissonPMF(pl.pbuf, lam*l, m.chainEps*pk)
	pl.pbuf = pmf
	nmax := lo + len(pmf) - 1
	pl.uw = refGrow(pl.uw, nmax+1)
	copy(pl.uw[lo:], pmf) // weights below lo stay zero
	pl.n = nmax

	// End weights of slice j.
	pl.endJ = refGrow(pl.endJ, k+1)
	for j := 0; j <= k; j++ {
		pl.endJ[j] = poissonAt(r*(w-l), k-j) / pk
	}

	// Node weights.
	nodes := len(m.glx)
	pl.nodeU = refGrow(pl.nodeU, nodes)
	pl.nodeP = refGrow(pl.nodeP, nodes*(nmax+1))
	pl.nodeJ = refGrow(pl.nodeJ, nodes*(k+1))
	for i, x := range m.glx {
		u := x * l
		pl.nodeU[i] = u
		lo, pmf := poissonPMF(pl.pbuf, lam*u, m.pmfEps)
		pl.pbuf = pmf
		row := pl.nodeP[i*(nmax+1) : (i+1)*(nmax+1)]
		for t, pi := range pmf {
			if lo+t <= nmax {
				row[lo+t] = pi
			}
		}
		for j := 0; j <= k; j++ {
			pl.nodeJ[i*(k+1)+j] = poissonAt(r*(w-u), k-j) / pk
		}
	}

	// q0: P(Pois(w) ≥ q0) < pmfEps, so rows ≥ q0 never empty.
	lo, pmf = poissonPMF(pl.pbuf, w, m.pmfEps)
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
	pl.kern = refGrow(pl.kern, k+len(pmf))
	for a, pa := range m.binBuf {
		if pa == 0 {
			continue
		}
		for t, pd := range pmf {
			// shift a − d with d = lo + t; index (a − d) − kmin
			pl.kern[a-(lo+t)+dmax] += pa * pd
		}
	}
}

// evolve moves the water through one window piece described by pl,
// starting at absolute time tau in window v, and returns ∫ E[q] dt over the
// piece: Gauss–Legendre for the water, the exact integral (drainIntegral)
// for the classes still draining.
func (m *refMap) evolve(pl *refWinPlan, tau float64, v int) float64 {
	k := m.k
	nodes := len(m.glx)
	lo, hi := m.lo, m.hi
	split := min(pl.q0, hi)
	var nodeMean [64]float64

	// Output buffer: rows up to hi + k.
	outRows := max(hi, split) + k + 1
	m.tmp = refGrow(m.tmp, outRows)
	out := m.tmp

	// Low rows [lo, split): the (q, j) chain by uniformisation.
	if lo < split {
		R := split + k
		nj := k + 1
		m.cur = refGrow(m.cur, nj*R)
		m.nxt = refGrow(m.nxt, nj*R)
		m.acc = refGrow(m.acc, R)
		m.mom = refGrow(m.mom, 2*(pl.n+1)*nj)
		var massIn, firstIn float64
		for q := lo; q < split; q++ {
			m.cur[q] = m.water[q]
			massIn += m.water[q]
			firstIn += float64(q) * m.water[q]
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
					ew := wn * pl.endJ[k]
					if jmax == k {
						for q, x := range cur[k*R : (k+1)*R] {
							acc[q] += ew * x
						}
					}
				} else {
					for j := 0; j <= jmax; j++ {
						ew := wn * pl.endJ[j]
						for q, x := range cur[j*R : (j+1)*R] {
							acc[q] += ew * x
						}
					}
				}
			}
			if step == pl.n {
				break
			}
			// Moments of step n+1.
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
			// One uniformised step: arrival w.p. a from (q−1, j−1), service
			// w.p. d from (q+1, j); a service at q = 0 stays.
			for j := 0; j <= min(jmax+1, k); j++ {
				cj := cur[j*R : (j+1)*R]
				nx := nxt[j*R : (j+1)*R]
				if j == 0 {
					nx[0] = d * (cj[0] + cj[1])
					for q := 1; q < R-1; q++ {
						nx[q] = d * cj[q+1]
					}
					nx[R-1] = 0
					continue
				}
				cm := cur[(j-1)*R : j*R]
				nx[0] = d * (cj[0] + cj[1])
				cj, cm, nx = cj[2:R], cm[:R-2], nx[1:R-1]
				for q, x := range cj {
					nx[q] = d*x + a*cm[q]
				}
				nxt[(j+1)*R-1] = a * cur[j*R-2]
			}
			cur, nxt = nxt, cur
		}
		m.cur, m.nxt = cur, nxt
		m.steps += pl.n
		var massOut float64
		for q, x := range acc {
			out[q] += x
			massOut += x
		}
		// The uniformised sum is cut, so massOut ≤ massIn up to rounding
		// (about 1e-17 per window); count only a genuine loss.
		if lost := massIn - massOut; lost > 0 {
			m.trunc += lost
		}
		// Node means of the low part:
		// E[q(u)] = Σ_j Pois(r(W−u); k−j)/Pois(rW; k) Σ_n Pois(Λu; n) m_n(j).
		np := pl.n + 1
		for i := 0; i < nodes; i++ {
			pw := pl.nodeP[i*np : (i+1)*np]
			jw := pl.nodeJ[i*nj : (i+1)*nj]
			var s float64
			for step, pn := range pw {
				if pn == 0 {
					continue
				}
				f := first[step*nj : (step+1)*nj]
				var t float64
				for j := 0; j <= min(step, k); j++ {
					t += jw[j] * f[j]
				}
				s += pn * t
			}
			nodeMean[i] = s
		}
	}

	// High rows [max(lo, split), hi): never empty, so q + Bin − Pois.
	if hs := max(lo, split); hs < hi {
		var mass, first float64
		// The kernel is a convolution of two normalised laws: it moves
		// mass without losing any.
		kern, kmin := pl.kern, pl.kmin
		for q := hs; q < hi; q++ {
			x := m.water[q]
			if x == 0 {
				continue
			}
			mass += x
			first += float64(q) * x
			o := out[q+kmin : q+kmin+len(kern)]
			for t, g := range kern {
				o[t] += x * g
			}
		}
		// E[q(u)] = q + k u/W − u: arrivals Binomial(k, u/W), services Pois(u).
		drift := float64(k)/pl.w - 1
		for i := 0; i < nodes; i++ {
			nodeMean[i] += first + mass*drift*pl.nodeU[i]
		}
	}

	var integral float64
	for i := 0; i < nodes; i++ {
		integral += m.glw[i] * nodeMean[i]
	}
	integral *= pl.l
	// Classes b > v still draining.
	if v < m.top {
		integral += m.drainIntegral(tau, tau+pl.l, v)
	}

	// The new water, trimmed.
	m.water, m.tmp = m.tmp, m.water
	m.lo, m.hi = 0, len(m.water)
	m.trimWater()
	if m.hi > m.set.MaxRows {
		m.rowErr = true
	}
	if m.hi > m.rows {
		m.rows = m.hi
	}
	return integral
}

// trimWater finds the active rows and drops rows at either end whose
// cumulative mass is below trimEps, adding it to the truncation.
func (m *refMap) trimWater() {
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
func (m *refMap) drainIntegral(t1, t2 float64, v int) float64 {
	lo1, p1 := poissonPMF(m.scratch, t1, m.pmfEps)
	m.scratch = p1
	lo2, p2 := poissonPMF(m.scratch2, t2, m.pmfEps)
	m.scratch2 = p2
	dmin := min(lo1, lo2)
	if dmin >= m.top {
		return 0
	}
	dtop := max(lo1+len(p1), lo2+len(p2)) - 1
	var q1, q2, s float64 // suffix sums Σ_{i>d} π(i)
	for d := dtop; d >= dmin; d-- {
		if d < m.top {
			x := max(v, d)
			s += (m.s2[x] - float64(d)*m.s1[x]) * (q2 - q1)
		}
		if i := d - lo1; i >= 0 && i < len(p1) {
			q1 += p1[i]
		}
		if i := d - lo2; i >= 0 && i < len(p2) {
			q2 += p2[i]
		}
	}
	return s
}

// Board constructors for the start states of the package doc, §2.
