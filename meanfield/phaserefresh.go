package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/internal/pool"
)

// phaseMap is the refresh map of the package doc, §2, with phase-type service
// (Refresh.Service; RefreshMap delegates to it for every family but
// exponential).
//
// # The map
//
// The windows τ_v, W_v = k F(v)/λ and the arrivals (exactly k per
// server with board ≤ v in window v, at independent uniform times, none
// after T) are those of the exponential map: the board shows queue lengths
// only. A server is a CTMC on (queue q, phase i of the job in service):
// phase changes i → j at rate S_ij, completions at rate s_i, after which
// the next job (if any) starts in phase j with probability α_j. The state
// is the joint law of (q, phase) at the refresh (see Service).
//
// # Method
//
// As for the exponential map, the servers in the water share one arrival
// schedule and are aggregated into one law over (q, phase); inside a window
// the chain on (q, phase, arrivals so far j ≤ k) with arrivals at any rate r
// (killed at j = k) is time-homogeneous and is solved by uniformisation at
// rate Λ = r + max_i(s_i + Σ_j S_ij), the end conditioned on exactly k
// arrivals by Pois(r(W − s); k − j)/Pois(rW; k). r = RateScale·k/(4W), a
// quarter of the exponential map's rate: the steps Λ·W plus the Poisson
// tail cut relative to Pois(rW; k) are fewest near there (at k = 5,
// λ = 0.9, h2:2, T = 568, the fourth map from the empty board: 5,783
// steps at k/W, 5,049 at k/(4W), 5,053 at k/(8W)); the result does not
// depend on r.
//
// The servers not yet in the water drain. A server that never empties
// completes jobs as a Markov renewal process; G_i(t; d, j), the probability
// of d completions by t with the job then in phase j from phase i at 0,
// depends on t only, so it is uniformised once over the whole period at
// the drain's own rate max_i out_i (phasedrain.go; with at most two
// phases each interval between class times is one convolution,
// phasedrainkernel.go), on a goroutine of its own beside the window walk,
// which waits for each class's joining state where it needs it. Class b (board b,
// joint law x(b, ·)) joins the water at τ_b with
//
//	P(q = b − d, j) = Σ_i x(b, i) G_i(τ_b; d, j)  (d < b),
//	P(q = 0) = Σ_i x(b, i) P(N_i(τ_b) ≥ b),
//
// and the classes still draining at T enter p' the same way. G is kept for
// d below the top of the board (beyond, every class has emptied), the rest
// in one absorbed cell.
//
// The time-averaged mean queue is integrated window by window with
// Gauss–Legendre nodes for the water (per-step first moments of the
// chain's slices, weighted as the conditioning requires), and exactly for
// the draining classes: class b contributes Σ_i x(b, i) ∫₀^{t_b}
// E[(b − N_i(t))⁺] dt, a sum over the uniformised steps with weights
// P(Pois(Λ_d t_b) > n)/Λ_d.
//
// # Truncation
//
// As for the exponential map: uniformisation sums cut where the tail is
// below Tol/(4·(windows+1)) relative to Pois(rW; k), top queue levels of
// the water dropped while their cumulative mass is below the same budget,
// and the drain law's far rows as phasedrain.go says;
// the mass lost (water and drain law, weighted by the classes that use it)
// is RefreshResult.Truncation. As in the exponential map, levels that
// cannot empty within a window (q ≥ q0, from the completion law of a
// server that never empties, cut at Tol·10⁻⁶) skip the chain: they move by
// a kernel K_ij(s) = Σ_{a−d=s} Bin(k, l/W)(a) H_i(l; d, j), one convolution
// per pair of phases (planHigh).
//
// # References
//
//   - The package doc, §2 (the h2 law and the map); the exponential map
//     (refresh.go) and its references.
//   - M. F. Neuts, Matrix-Geometric Solutions in Stochastic Models, Johns
//     Hopkins, 1981 (phase-type laws PH(α, S)).
type phaseMap struct {
	set      Refresh
	k, P     int
	ph       phaseType
	glx, glw []float64

	// The input state, normalised, and its windows (cum = F(v) per
	// level, top = the highest level of the board).
	windowWalk
	x         []float64
	s1, s2    []float64 // s1[v*P+i] = Σ_{b>v} x(b, i), s2 the same with weight b
	boardMean float64

	// The water: levels [0, hi), state layout of Service.
	water, tmp []float64
	hi         int

	// The drain law (phasedrain.go) and G at T, G_i(T; d, j) at
	// g[i*D*P + d*P + j], d < D, with the absorbed cells gabs[i] (d ≥ D).
	dr       phaseDrain
	D        int
	g, gabs  []float64
	selfW    []float64  // per-plan step coefficients
	steps0   phaseSteps // the completion chain's steps (phasehigh.go)
	stepsCap int        // the most values steps0 may hold

	cur, nxt, acc []float64
	mom           []float64
	mt            chainMoments
	full, cut     phasePlan
	hcur, hnxt    []float64 // the plan's completion-law steps
	hacc          []float64
	xcols, ycols  [][]float64 // high-row columns of the convolutions: per phase i, per phase j

	trimEps, chainEps, pmfEps float64
	trunc                     float64
	levels, steps             int
	rowErr                    bool

	// boardOnly is RefreshMap.boardOnly, copied at every application:
	// the water's quadrature is skipped, QueueMean is NaN.
	boardOnly bool
}

// nodes is the number of quadrature nodes the plans need: none with
// boardOnly.
func (m *phaseMap) nodes() int {
	if m.boardOnly {
		return 0
	}
	return len(m.glx)
}

// newPhaseMap returns the map for set (validated, defaults filled in) with
// the Gauss–Legendre rule glx, glw on [0, 1].
func newPhaseMap(set Refresh, glx, glw []float64) *phaseMap {
	ph := set.Service.phaseType()
	return &phaseMap{set: set, k: set.Dispatchers, P: ph.n, ph: ph, glx: glx, glw: glw, stepsCap: maxPhaseSteps}
}

// apply is RefreshMap.Apply for a state x (layout of Service): it checks
// that x is a probability vector, normalises it and returns the next state
// in dst's storage when large enough.
func (m *phaseMap) apply(dst, x []float64) (RefreshResult, error) {
	total, err := stateMass(x)
	if err != nil {
		return RefreshResult{}, err
	}
	P, lam, T := m.P, m.set.Load, m.set.Period
	// The settings are read at every application (callers may change
	// the period of a map between applications).
	m.windowWalk = windowWalk{k: m.k, load: lam, period: T, cum: m.cum}
	L := len(x)
	for L > 1 && x[L-1] == 0 {
		L--
	}
	n := stateLevels(L, P)
	m.top = n - 1
	m.x = grow(m.x, stateLen(n, P))
	for i := 0; i < L; i++ {
		m.x[i] = x[i] / total
	}
	var res RefreshResult
	res.BoardMean = m.marginals(n)

	m.reset(n)

	// The drain law over the whole period (phasedrain.go): the classes'
	// joining states, G at T for p' and the drain's part of the integral.
	// It runs beside the window walk, which waits for each class's
	// joining state where it injects it (inject); neither writes what
	// the other reads, so the result does not depend on their timing.
	m.D = m.top
	m.dr.ready.reset()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		m.drainAll()
	}()

	v, integral, _ := m.walk(&res, func(v int, _ float64) bool {
		if v <= m.top && m.cum[v] > 0 && (v == 0 || m.cum[v] > m.cum[v-1]) {
			m.inject(v)
		}
		return !m.rowErr
	}, func(v int, _, w, l float64, cut bool) (float64, bool) {
		pl := &m.cut
		if !cut {
			pl = &m.full
		}
		if cut || !m.full.valid || m.full.w != w || m.full.nodes != m.nodes() {
			m.plan(pl, w, l)
		}
		return m.evolve(pl), !m.rowErr
	})
	<-drained
	m.g, m.gabs = m.dr.gT, m.dr.gabsT
	m.trunc += m.dr.trunc
	if m.rowErr {
		return res, fmt.Errorf("%w (MaxRows = %d)", ErrRefreshRows, m.set.MaxRows)
	}

	// p' = the water at T plus the classes b > v still draining.
	levels := max(m.hi, n)
	size := stateLen(levels, P)
	if cap(dst) < size {
		dst = make([]float64, size)
	}
	dst = dst[:size]
	clear(dst)
	copy(dst, m.water[:stateLen(m.hi, P)])
	for b := v + 1; b <= m.top; b++ {
		m.addClass(dst, b)
	}
	for size > 1 && dst[size-1] == 0 {
		size--
	}
	res.Next = dst[:size]
	res.QueueMean = (integral + m.dr.integral) / T
	if m.boardOnly {
		res.QueueMean = math.NaN()
	}
	res.Response = res.QueueMean / lam
	res.Truncation = m.trunc
	res.Rows = max(m.levels, stateLevels(size, P))
	res.Steps = m.steps
	return res, nil
}

// reset starts an application on n board levels: truncation budgets,
// counters and an empty water.
func (m *phaseMap) reset(n int) {
	m.trimEps = m.count(m.set.Tol)
	m.chainEps = m.trimEps
	m.pmfEps = m.set.Tol * 1e-6
	m.trunc = 0
	m.steps = 0
	m.levels = n
	m.rowErr = false
	m.full.valid = false
	m.hi = 1
	m.water = grow(m.water, 1)
}

// stateMass checks that x is a probability vector (nonempty, entries
// finite and non-negative, mass 1 within 1e-6) and returns its mass.
func stateMass(x []float64) (float64, error) {
	if len(x) == 0 {
		return 0, errors.New("meanfield: empty state")
	}
	var total float64
	for i, v := range x {
		if !(v >= 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("meanfield: state x[%d] = %v is not a probability", i, v)
		}
		total += v
	}
	if !(math.Abs(total-1) <= 1e-6) {
		return 0, fmt.Errorf("meanfield: state mass = %v, want 1 (within 1e-6)", total)
	}
	return total, nil
}

// marginals sets the board's cumulative law F(v) (m.cum) and the suffix
// sums s1, s2 per phase for the n levels of the normalised input m.x, and
// returns the board mean.
func (m *phaseMap) marginals(n int) (mean float64) {
	P := m.P
	m.cum = grow(m.cum, n)
	m.s1 = grow(m.s1, (n+1)*P)
	m.s2 = grow(m.s2, (n+1)*P)
	c := m.x[0]
	m.cum[0] = c
	for b := 1; b < n; b++ {
		var pb float64
		for i := 0; i < P; i++ {
			pb += m.x[1+(b-1)*P+i]
		}
		c += pb
		m.cum[b] = c
		mean += float64(b) * pb
	}
	m.cum[n-1] = 1
	m.boardMean = mean
	for v := n - 2; v >= 0; v-- {
		for i := 0; i < P; i++ {
			xb := m.x[1+v*P+i] // class b = v+1
			m.s1[v*P+i] = m.s1[(v+1)*P+i] + xb
			m.s2[v*P+i] = m.s2[(v+1)*P+i] + float64(v+1)*xb
		}
	}

	return mean
}

// addClass adds class b ≥ 1 at the drain law's current time to dst:
// level b − d, phase j with Σ_i x(b, i) G_i(d, j) for d < b, level 0 with
// the rest.
func (m *phaseMap) addClass(dst []float64, b int) {
	P, D := m.P, m.D
	for i := 0; i < P; i++ {
		xb := m.x[1+(b-1)*P+i]
		if xb == 0 {
			continue
		}
		// Rows outside [lo, hi) are zero: left out, the sums are the
		// same to the bit.
		gi := m.g[i*D*P : (i+1)*D*P]
		lo, hi := m.dr.gTlo[i], m.dr.gThi[i]
		tail := m.gabs[i]
		for d := max(b, lo); d < hi; d++ {
			for j := 0; j < P; j++ {
				tail += gi[d*P+j]
			}
		}
		dst[0] += xb * tail
		for d := lo; d < min(b, hi); d++ {
			base := 1 + (b-d-1)*P // level b − d
			row := gi[d*P : d*P+P]
			for j, gv := range row {
				dst[base+j] += xb * gv
			}
		}
	}
}

// inject adds class v to the water at τ_v.
func (m *phaseMap) inject(v int) {
	if v == 0 {
		m.water[0] += m.x[0]
		return
	}
	if v+1 > m.set.MaxRows {
		m.rowErr = true
		return
	}
	m.dr.ready.wait(v)
	if v+1 > m.hi {
		old := stateLen(m.hi, m.P)
		nl := stateLen(v+1, m.P)
		if cap(m.water) < nl {
			w := make([]float64, nl, nl+nl/2+64)
			copy(w, m.water[:old])
			m.water = w
		} else {
			m.water = m.water[:nl]
			clear(m.water[old:])
		}
		m.hi = v + 1
	}
	dr := &m.dr
	if dr.joinLo[v] == -2 {
		return
	}
	m.water[0] += dr.join0[v]
	if lo := dr.joinLo[v]; lo >= 0 {
		P := m.P
		for x, y := range dr.joinRows[v] {
			d := lo + x/P // level v − d, phase x mod P
			m.water[1+(v-d-1)*P+x%P] += y
		}
	}
}

// plan fills pl's weights for a window of length w integrated over [0, l]:
// uniformisation at Λ = r + max phase outflow.
func (m *phaseMap) plan(pl *phasePlan, w, l float64) {
	r := m.set.RateScale * phaseRateScale * float64(m.k) / w
	pl.weights(m.glx[:m.nodes()], m.k, w, l, r, r+m.ph.max, m.chainEps, m.pmfEps)
	pl.high = false // planHigh runs when a window first needs it
}

// phaseRateScale is the phase map's auxiliary rate r in units of
// RateScale·k/W (see phaseMap).
const phaseRateScale = 0.25

// phasePlan is a winPlan with what the rows that cannot empty need: the
// law of completions of a server that never empties, as a kernel.
type phasePlan struct {
	winPlan
	// q0: a server starting the piece with q ≥ q0 jobs completes fewer
	// than q0 with probability above 1 − pmfEps (from any phase), so it
	// cannot empty; dm = q0 − 1 is the most completions kept.
	q0, dm int
	// kern[(i*P+j)*klen + s + dm] = Σ_{a−d=s} Bin(k, l/w)(a)·H_i(l; d, j),
	// s ∈ [−dm, k]: the move of a never-empty server from phase i to j.
	kern []float64
	klen int
	// ksum[i] = Σ_{j,s} kern: the kernel's mass from phase i (1 − the
	// tails cut).
	ksum []float64
	// nodeN[node*P + i] = E[N_i(u)], the mean completions by node time u
	// from phase i.
	nodeN []float64
	binom []float64
	high  bool // q0, dm, kern, ksum and nodeN are computed
}

// planHigh computes the completion law H_i(l; d, j) of a server that never
// empties, by uniformisation at the plan's Λ (the steps of the drain law,
// from d = 0 in phase i), the kernel of the high rows and the node means
// of the completion counts.
func (m *phaseMap) planHigh(pl *phasePlan) {
	if m.planHighCached(pl) {
		return
	}
	P := m.P
	ph := &m.ph
	inv := pl.d
	N := pl.n + 1 // d ≤ steps
	hsz := P * N * P
	m.hcur = grow(m.hcur, hsz)
	m.hnxt = grow(m.hnxt, hsz)
	m.hacc = grow(m.hacc, hsz)
	hacc := m.hacc
	cur, nxt := m.hcur, m.hnxt
	for i := 0; i < P; i++ {
		cur[i*N*P+i] = 1
	}
	nodes := pl.nodes
	pl.nodeN = grow(pl.nodeN, nodes*P)
	np := pl.n + 1
	for step := 0; step <= pl.n; step++ {
		top := min(step+1, N) // d < top can be nonzero
		for i := 0; i < P; i++ {
			hi := cur[i*N*P : (i+1)*N*P]
			var en float64
			for d := 1; d < top; d++ {
				for _, y := range hi[d*P : d*P+P] {
					en += float64(d) * y
				}
			}
			for node := 0; node < nodes; node++ {
				pl.nodeN[node*P+i] += pl.nodeP[node*np+step] * en
			}
			if wn := pl.uw[step]; wn != 0 {
				ha := hacc[i*N*P : (i+1)*N*P]
				for x, y := range hi[:top*P] {
					ha[x] += wn * y
				}
			}
		}
		if step == pl.n {
			break
		}
		nt := min(step+2, N)
		for i := 0; i < P; i++ {
			hi := cur[i*N*P : (i+1)*N*P]
			hn := nxt[i*N*P : (i+1)*N*P]
			var prev float64
			for d := 0; d < nt; d++ {
				base := d * P
				var comp float64
				for j := 0; j < P; j++ {
					hn[base+j] = (1-ph.out[j]*inv)*hi[base+j] + ph.alpha[j]*prev
					comp += ph.exit[j] * hi[base+j]
				}
				for _, mv := range ph.moves {
					hn[base+mv.to] += mv.rate * inv * hi[base+mv.from]
				}
				prev = comp * inv
			}
		}
		cur, nxt = nxt, cur
	}
	m.hcur, m.hnxt = cur, nxt
	m.planKernel(pl, N)
}

// planKernel finishes planHigh from H_i(l; d, j) in m.hacc (rows d < N,
// layout i*N*P + d*P + j): q0, dm, the kernels and their masses.
func (m *phaseMap) planKernel(pl *phasePlan, N int) {
	P, k := m.P, m.k
	hacc := m.hacc
	// dm: the fewest completions whose tail beyond is below pmfEps from
	// every phase.
	dm := 0
	for i := 0; i < P; i++ {
		ha := hacc[i*N*P : (i+1)*N*P]
		var tail float64
		d := N - 1
		for ; d > 0; d-- {
			var s float64
			for _, y := range ha[d*P : d*P+P] {
				s += y
			}
			if tail+s >= m.pmfEps {
				break
			}
			tail += s
		}
		dm = max(dm, d)
	}
	pl.dm, pl.q0 = dm, dm+1
	pl.high = true
	theta := 1.0
	if pl.l < pl.w {
		theta = pl.l / pl.w
	}
	pl.binom = binomialPMF(pl.binom, k, theta)
	pl.klen = dm + k + 1
	pl.kern = grow(pl.kern, P*P*pl.klen)
	pl.ksum = grow(pl.ksum, P)
	for i := 0; i < P; i++ {
		ha := hacc[i*N*P : (i+1)*N*P]
		for j := 0; j < P; j++ {
			kr := pl.kern[(i*P+j)*pl.klen : (i*P+j+1)*pl.klen]
			for d := 0; d <= dm; d++ {
				h := ha[d*P+j]
				if h == 0 {
					continue
				}
				for a, pa := range pl.binom {
					kr[a-d+dm] += pa * h
				}
			}
			pl.ksum[i] += sumSlice(kr)
		}
	}
	// Reverse each kernel for convolveAdd.
	for x := 0; x < P*P; x++ {
		kr := pl.kern[x*pl.klen : (x+1)*pl.klen]
		for a, b := 0, len(kr)-1; a < b; a, b = a+1, b-1 {
			kr[a], kr[b] = kr[b], kr[a]
		}
	}
}

// evolve moves the water through one window piece and returns its part of
// ∫ E[q] dt over it (the draining classes' part is phasedrain.go's).
func (m *phaseMap) evolve(pl *phasePlan) float64 {
	k, P := m.k, m.P
	// Levels below n + 1 (n the last uniformisation step) may empty; the
	// chain takes them all while the water is that low, and otherwise the
	// levels below q0 (planHigh).
	hiAll := m.hi
	hi := hiAll
	if hiAll > pl.n+1 {
		if !pl.high {
			m.planHigh(pl)
		}
		hi = min(pl.q0, hiAll) // the chain's levels [0, hi); above, the kernel
	}
	massIn := m.chain(pl, hi)

	// High levels [hi, hiAll): never empty (highRows).
	outLen := stateLen(hiAll+k, P)
	m.tmp = grow(m.tmp, outLen)
	out := m.tmp
	nodeHigh := m.highRows(pl, hi, hiAll, out)

	integral := m.nodeIntegral(pl, &nodeHigh)

	// The new water: the chain's accumulated end law plus the high
	// levels' image, top levels trimmed.
	var massOut float64
	for i, y := range m.acc {
		massOut += y
		out[i] += y
	}
	if lost := massIn - massOut; lost > 0 {
		m.trunc += lost
	}
	m.water, m.tmp = m.tmp, m.water
	m.hi = hiAll + k
	m.trimTop()
	if m.hi > m.set.MaxRows {
		m.rowErr = true
	}
	m.levels = max(m.levels, m.hi)
	return integral
}

// chain runs the water's levels [0, hi) through the window piece by
// uniformisation of the chain on (q, phase, arrivals so far j ≤ k): the end
// law conditioned on k arrivals accumulates in m.acc, the slices' first
// moments per step in m.mom. It returns the mass that entered.
//
// The moments follow from the jump structure without touching the rows
// above level 1 (chainMoments), so in a full window a slice that can no
// longer reach the end law (j + rem < k arrivals in the rem steps left;
// only slice k enters it) is stepped only on the levels that can still
// reach level 1 before the last step: q ≤ rem. The levels left out are
// never read by a level computed later (level q reads levels q − 1 … q + 1
// of the step before), and the levels computed are unchanged.
func (m *phaseMap) chain(pl *phasePlan, hi int) (massIn float64) {
	k, P := m.k, m.P
	ph := &m.ph
	a, inv := pl.a, pl.d
	nj := k + 1
	R := stateLen(hi+k, P)
	m.cur = grow(m.cur, nj*R)
	m.nxt = grow(m.nxt, nj*R)
	m.acc = grow(m.acc, R)
	m.mom = grow(m.mom, (pl.n+1)*nj)
	cur, nxt, acc, mom := m.cur, m.nxt, m.acc, m.mom
	for i, x := range m.water[:stateLen(hi, P)] {
		cur[i] = x
		massIn += x
	}
	moments := pl.nodes > 0 // none without quadrature (boardOnly)
	mt := m.startMoments(cur[:stateLen(hi, P)], nj)
	// Step coefficients.
	m.selfW = grow(m.selfW, P)
	for i := 0; i < P; i++ {
		m.selfW[i] = 1 - a - ph.out[i]*inv
	}
	selfW := m.selfW
	alpha, exit := ph.alpha, ph.exit
	full := pl.l == pl.w

	// Two phases and no phase changes (h2): an unrolled step, with the
	// coefficients laid out for slice2AVX2 (built once: a vector load
	// right after the stores that build it would stall).
	two := P == 2 && len(ph.moves) == 0
	var pat [12]float64
	if two {
		pat = [12]float64{exit[0], exit[1], exit[0], exit[1], selfW[0], selfW[1], selfW[0], selfW[1],
			alpha[0], alpha[1], alpha[0], alpha[1]}
	}
	for step := 0; step <= pl.n; step++ {
		jmax := min(step, k)
		if moments {
			copy(mom[step*nj:step*nj+jmax+1], mt.first[:jmax+1])
		}
		if wn := pl.uw[step]; wn != 0 {
			for j := 0; j <= jmax; j++ {
				if ew := wn * pl.endJ[j]; ew != 0 {
					axpy(acc, ew, cur[j*R:j*R+stateLen(hi+j, P)])
				}
			}
		}
		if step == pl.n {
			break
		}
		jtop := min(jmax+1, k)
		if moments {
			mt.step(ph, cur, R, jtop, a, inv)
		}
		// One uniformised step of the water, slice by slice: an arrival
		// w.p. a from (q−1, i, j−1) (from 0 into level 1 with phase law α),
		// a phase change i → i' w.p. S_ii'/Λ, a completion w.p. s_i/Λ from
		// (q+1, i) into (q, α) or into 0, else stay.
		rem := pl.n - step - 1
		for j := 0; j <= jtop; j++ {
			lv := hi + j
			lim := lv
			if full && j+rem < k {
				if !moments {
					// Not needed at all: slice j + 1 reads it only
					// in a step where it is needed itself (as in
					// chainLow).
					continue
				}
				if rem+1 < lv {
					lim = rem + 1
				}
			}
			c := cur[j*R : j*R+stateLen(lv, P)]
			nx := nxt[j*R : j*R+stateLen(lv, P)]
			var cm []float64
			if j > 0 {
				cm = cur[(j-1)*R : (j-1)*R+stateLen(lv, P)]
			}
			if two {
				stepSlice2(nx, c, cm, lv, lim, a, inv, exit, selfW, alpha, &pat)
				continue
			}
			stepSlice(nx, c, cm, lv, lim, a, inv, ph, selfW)
		}
		cur, nxt = nxt, cur
	}
	m.cur, m.nxt = cur, nxt
	m.steps += pl.n
	return massIn
}

// chainMoments carries, per slice j of the chain, its mass M(j), first
// moment F(j) = Σ_q q·v(q, ·, j) and busy mass per phase
// B(j, i) = Σ_{q≥1} v(q, i, j) from step to step. With a = r/Λ, 1/Λ, exit
// rates s_i, rates out_i and phase changes S_ii', one step gives
//
//	M'(j) = (1 − a)·M(j) + a·M(j−1),
//	F'(j) = (1 − a)·F(j) − Σ_i s_i B(j, i)/Λ + a·(F(j−1) + M(j−1)),
//	B'(j, i) = (1 − a − out_i/Λ)·B(j, i) + Σ_{i'} S_i'i B(j, i')/Λ
//	           + α_i Σ_{i'} s_i' (B(j, i') − v(1, i', j))/Λ
//	           + a·(B(j−1, i) + α_i v(0, j−1)),
//
// (an arrival from slice k leaves the conditioned chain), which needs
// levels 0 and 1 of each slice only.
type chainMoments struct {
	mass, first, busy    []float64 // current step: nj, nj, nj·P
	mass2, first2, busy2 []float64 // next step
}

// startMoments sets the moments of step 0 (the water x in slice 0) and
// returns them.
func (m *phaseMap) startMoments(x []float64, nj int) *chainMoments {
	P := m.P
	mt := &m.mt
	mt.mass = grow(mt.mass, nj)
	mt.first = grow(mt.first, nj)
	mt.busy = grow(mt.busy, nj*P)
	mt.mass2 = grow(mt.mass2, nj)
	mt.first2 = grow(mt.first2, nj)
	mt.busy2 = grow(mt.busy2, nj*P)
	mt.mass[0] = x[0]
	for c := 1; c < len(x); c++ {
		q, i := 1+(c-1)/P, (c-1)%P
		mt.mass[0] += x[c]
		mt.first[0] += float64(q) * x[c]
		mt.busy[i] += x[c]
	}
	return mt
}

// step moves the moments of slices 0 … jtop one step on, from levels 0
// and 1 of the chain's slices cur (stride R).
func (mt *chainMoments) step(ph *phaseType, cur []float64, R, jtop int, a, inv float64) {
	P := ph.n
	if P == 2 && len(ph.moves) == 0 {
		mt.step2(ph, cur, R, jtop, a, inv)
		return
	}
	for j := 0; j <= jtop; j++ {
		b := mt.busy[j*P : (j+1)*P]
		nb := mt.busy2[j*P : (j+1)*P]
		row1 := cur[j*R+1 : j*R+1+P]
		var out, restart float64
		for i, y := range b {
			out += ph.exit[i] * y
			restart += ph.exit[i] * (y - row1[i])
		}
		restart *= inv
		mt.mass2[j] = (1 - a) * mt.mass[j]
		mt.first2[j] = (1-a)*mt.first[j] - out*inv
		for i, y := range b {
			nb[i] = (1-a-ph.out[i]*inv)*y + ph.alpha[i]*restart
		}
		for _, mv := range ph.moves {
			nb[mv.to] += mv.rate * inv * b[mv.from]
		}
		if j > 0 {
			mt.mass2[j] += a * mt.mass[j-1]
			mt.first2[j] += a * (mt.first[j-1] + mt.mass[j-1])
			v0 := cur[(j-1)*R]
			for i := range nb {
				nb[i] += a * (mt.busy[(j-1)*P+i] + ph.alpha[i]*v0)
			}
		}
	}
	mt.mass, mt.mass2 = mt.mass2, mt.mass
	mt.first, mt.first2 = mt.first2, mt.first
	mt.busy, mt.busy2 = mt.busy2, mt.busy
}

// step2 is step for two phases without phase changes, unrolled (the same
// operations).
func (mt *chainMoments) step2(ph *phaseType, cur []float64, R, jtop int, a, inv float64) {
	e0, e1 := ph.exit[0], ph.exit[1]
	s0, s1 := 1-a-ph.out[0]*inv, 1-a-ph.out[1]*inv
	al0, al1 := ph.alpha[0], ph.alpha[1]
	mass, first, busy := mt.mass[:jtop+1], mt.first[:jtop+1], mt.busy[:2*jtop+2]
	mass2, first2, busy2 := mt.mass2[:jtop+1], mt.first2[:jtop+1], mt.busy2[:2*jtop+2]
	var pm, pf, pb0, pb1, pv0 float64 // slice j − 1 (zero for j = 0)
	for j := range mass {
		b0, b1 := busy[2*j], busy[2*j+1]
		r := cur[j*R : j*R+3]
		out := e0*b0 + e1*b1
		restart := (e0*(b0-r[1]) + e1*(b1-r[2])) * inv
		m2 := (1 - a) * mass[j]
		f2 := (1-a)*first[j] - out*inv
		n0 := s0*b0 + al0*restart
		n1 := s1*b1 + al1*restart
		if j > 0 {
			m2 += a * pm
			f2 += a * (pf + pm)
			n0 += a * (pb0 + al0*pv0)
			n1 += a * (pb1 + al1*pv0)
		}
		mass2[j], first2[j], busy2[2*j], busy2[2*j+1] = m2, f2, n0, n1
		pm, pf, pb0, pb1, pv0 = mass[j], first[j], b0, b1, r[0]
	}
	mt.mass, mt.mass2 = mt.mass2, mt.mass
	mt.first, mt.first2 = mt.first2, mt.first
	mt.busy, mt.busy2 = mt.busy2, mt.busy
}

// stepSlice is one uniformised step of the water's slice c (lv levels)
// into nx on its levels [0, lim), any phase-type law: an arrival w.p. a
// from the slice below cm (nil for j = 0; from 0 into level 1 with phase
// law α), a phase change i → i' w.p. S_ii'/Λ, a completion w.p. s_i/Λ from
// (q+1, i) into (q, α) or into 0, else stay.
func stepSlice(nx, c, cm []float64, lv, lim int, a, inv float64, ph *phaseType, selfW []float64) {
	P := ph.n
	alpha, exit := ph.alpha, ph.exit
	var comp float64
	if lv > 1 {
		for i := 0; i < P; i++ {
			comp += exit[i] * c[1+i]
		}
	}
	nx[0] = (1-a)*c[0] + inv*comp
	for q := 1; q < lim; q++ {
		base := 1 + (q-1)*P
		comp = 0
		if q+1 < lv {
			nb := base + P
			for i := 0; i < P; i++ {
				comp += exit[i] * c[nb+i]
			}
			comp *= inv
		}
		for i := 0; i < P; i++ {
			nx[base+i] = selfW[i]*c[base+i] + alpha[i]*comp
		}
		for _, mv := range ph.moves {
			nx[base+mv.to] += mv.rate * inv * c[base+mv.from]
		}
	}
	if cm == nil || lim < 2 {
		return
	}
	for i := 0; i < P; i++ {
		nx[1+i] += a * alpha[i] * cm[0]
	}
	for q := 2; q < lim; q++ {
		base := 1 + (q-1)*P
		pbase := base - P
		for i := 0; i < P; i++ {
			nx[base+i] += a * cm[pbase+i]
		}
	}
}

// highRows moves the water's levels [hi, hiAll), which never empty in the
// window, into out: level q, phase i moves to q + s, phase j with the
// kernel K_ij(s); it returns their node means q + k u/W − E[N_i(u)]. The
// convolutions into each phase j add into one column in the order of i
// (convolveAdd adds each output's whole sum, so the column holds what
// adding them one by one into out did); a large window's run in two
// halves (pool.Fork, the phases j split in two), each into its own
// columns, added to out afterwards, so the result does not depend on the
// split.
func (m *phaseMap) highRows(pl *phasePlan, hi, hiAll int, out []float64) (nodeHigh [64]float64) {
	k, P := m.k, m.P
	nodes := pl.nodes
	if hi < hiAll {
		nh := hiAll - hi
		if len(m.xcols) < P {
			m.xcols = make([][]float64, P)
			m.ycols = make([][]float64, P)
		}
		var first, mass float64
		for i := 0; i < P; i++ {
			m.xcols[i] = grow(m.xcols[i], nh)
			xcol := m.xcols[i]
			var mi float64
			for q := hi; q < hiAll; q++ {
				y := m.water[1+(q-1)*P+i]
				xcol[q-hi] = y
				mi += y
				first += float64(q) * y
			}
			mass += mi
			if lost := mi * (1 - pl.ksum[i]); lost > 0 {
				m.trunc += lost
			}
			for node := 0; node < nodes; node++ {
				nodeHigh[node] -= mi * pl.nodeN[node*P+i]
			}
		}
		if P > 1 && nh*pl.klen*P*P >= highParWork {
			pool.Fork(func() { m.highConv(pl, 0, P/2, nh) }, func() { m.highConv(pl, P/2, P, nh) })
		} else {
			m.highConv(pl, 0, P, nh)
		}
		for j := 0; j < P; j++ {
			// ycol[t] is level hi − dm + t ≥ 1.
			for t, y := range m.ycols[j] {
				out[1+(hi-pl.dm+t-1)*P+j] += y
			}
		}
		drift := float64(k) / pl.w
		for node := 0; node < nodes; node++ {
			nodeHigh[node] += first + mass*drift*pl.nodeU[node]
		}
	}

	return nodeHigh
}

// highConv adds into the column of each phase j in [j0, j1) the high
// levels' columns of the phases i = 0 … P−1 (nh levels each) convolved
// with the kernels K_ij, in the order of i.
func (m *phaseMap) highConv(pl *phasePlan, j0, j1, nh int) {
	P := m.P
	for j := j0; j < j1; j++ {
		y := grow(m.ycols[j], nh+pl.klen-1)
		m.ycols[j] = y
		for i := 0; i < P; i++ {
			convolveAdd(y, m.xcols[i], pl.kern[(i*P+j)*pl.klen:(i*P+j+1)*pl.klen])
		}
	}
}

// highParWork is the work (levels × kernel length × P²) above which
// highRows runs its convolutions in two halves (pool.Fork).
const highParWork = 1 << 16

// nodeIntegral returns ∫ E[q] over the window piece: the Gauss–Legendre
// nodes' means of the water (the chain's slices weighted by the
// conditioning, m.mom) and of the high levels (nodeHigh).
func (m *phaseMap) nodeIntegral(pl *phasePlan, nodeHigh *[64]float64) float64 {
	k := m.k
	nodes := pl.nodes
	mom := m.mom
	var integral float64
	for i := 0; i < nodes; i++ {
		integral += m.glw[i] * nodeHigh[i]
		integral += m.glw[i] * pl.nodeMoment(i, mom, k)
	}
	integral *= pl.l
	return integral
}

// stepSlice2 is stepSlice for two phases without phase changes, unrolled:
// the same operations in the same order, so the same result to the bit.
// pat holds the coefficients as slice2AVX2 takes them.
func stepSlice2(nx, c, cm []float64, lv, lim int, a, inv float64, exit, selfW, alpha []float64, pat *[12]float64) {
	e0, e1 := exit[0], exit[1]
	s0, s1 := selfW[0], selfW[1]
	al0, al1 := alpha[0], alpha[1]
	var comp float64
	if lv > 1 {
		comp = e0*c[1] + e1*c[2]
	}
	nx[0] = (1-a)*c[0] + inv*comp
	if lim < 2 {
		return
	}
	// Level 1.
	comp = 0
	if lv > 2 {
		comp = (e0*c[3] + e1*c[4]) * inv
	}
	x0 := s0*c[1] + al0*comp
	x1 := s1*c[2] + al1*comp
	if cm != nil {
		x0 += a * al0 * cm[0]
		x1 += a * al1 * cm[0]
	}
	nx[1], nx[2] = x0, x1
	// Levels 2 … mid − 1 (below the top and lim).
	mid := min(lim, lv-1)
	if mid > 2 {
		n := 2 * (mid - 2)
		cb, cu, xb := c[3:3+n], c[5:5+n], nx[3:3+n]
		t0 := 0 // levels before t0/2 made by slice2AVX2
		if nb := n / 4; useAVX2 && nb > 0 {
			var mb *float64
			if cm != nil {
				mb = &cm[1 : 1+n][0]
			}
			slice2AVX2(&xb[0], &cb[0], &cu[0], mb, nb, pat, inv, a)
			t0 = 4 * nb
		}
		if cm != nil {
			mb := cm[1 : 1+n]
			for t := t0; t+1 < len(cb); t += 2 {
				comp := (e0*cu[t] + e1*cu[t+1]) * inv
				x0 := s0*cb[t] + al0*comp
				x1 := s1*cb[t+1] + al1*comp
				xb[t], xb[t+1] = x0+a*mb[t], x1+a*mb[t+1]
			}
		} else {
			for t := t0; t+1 < len(cb); t += 2 {
				comp := (e0*cu[t] + e1*cu[t+1]) * inv
				xb[t], xb[t+1] = s0*cb[t]+al0*comp, s1*cb[t+1]+al1*comp
			}
		}
	}
	// The top level lv − 1 ≥ 2 (nothing above it to complete from).
	if lim == lv && lv > 2 {
		b := 1 + (lv-2)*2
		x0, x1 := s0*c[b], s1*c[b+1]
		if cm != nil {
			x0 += a * cm[b-2]
			x1 += a * cm[b-1]
		}
		nx[b], nx[b+1] = x0, x1
	}
}

// trimTop drops the water's top levels while their cumulative mass is
// below trimEps, adding it to the truncation.
func (m *phaseMap) trimTop() {
	P := m.P
	w := m.water
	hi := m.hi
	var s float64
	for hi > 1 {
		base := 1 + (hi-2)*P
		var lv float64
		for _, y := range w[base : base+P] {
			lv += y
		}
		if s+lv >= m.trimEps {
			break
		}
		s += lv
		clear(w[base : base+P])
		hi--
	}
	m.trunc += s
	m.hi = hi
	m.water = w[:stateLen(hi, P)]
}

// axpy adds a·x to dst (len(dst) ≥ len(x)), four entries at a time where
// they fit: the same arithmetic per entry as the plain loop, with less
// loop overhead (it is the refresh map's end-law sum, chainLow).
func axpy(dst []float64, a float64, x []float64) {
	i := 0
	if nb := len(x) / 4; useAVX2 && nb > 0 {
		_ = dst[4*nb-1]
		axpyAVX2(&dst[0], &x[0], nb, a)
		i = 4 * nb
	}
	for ; i+4 <= len(x); i += 4 {
		xx, yy := x[i:i+4:i+4], dst[i:i+4:i+4]
		yy[0] += a * xx[0]
		yy[1] += a * xx[1]
		yy[2] += a * xx[2]
		yy[3] += a * xx[3]
	}
	for ; i < len(x); i++ {
		dst[i] += a * x[i]
	}
}

func sumSlice(x []float64) float64 {
	var s float64
	for _, y := range x {
		s += y
	}
	return s
}
