package meanfield

import (
	"math"
	"sync"
	"sync/atomic"

	"herd/internal/pool"
)

// phaseDrain is the drain law of the phase map (phaserefresh.go), computed
// once per application over the whole period instead of window by window.
//
// A server of class b (board b) that has not yet joined the water is a
// server that never empties until its b-th completion: its law at time t
// depends on t only, not on the windows. So the drain law
// G_i(t; d, j) (d completions by t, the job then in service in phase j,
// from phase i at 0) is the law at t of one chain, the completions and
// phase of a server that never empties, with rows d ≥ D = top of the board
// kept as one absorbed cell. It is carried forward in time from one class
// time to the next, 0 = t_(0) ≤ t_(1) ≤ … (the distinct t_b), by
// uniformisation at the drain's own rate Λ_d = max_i out_i (no arrivals):
// G_i(t + Δ) = Σ_n Pois(Λ_d Δ; n)·Mⁿ G_i(t), M the uniformised step (with
// at most two phases, as one convolution of G_i(t) with that sum's
// kernel: phasedrainkernel.go). So a
// class costs only the Poisson terms of its own interval, not the whole
// Poisson window of Pois(Λ_d t_b) added into its joining state step by
// step (h2:30 at k = 3, T = 2,900, on a balanced board of 2,249 levels:
// 1,042 intervals, 38,511 steps a map; with the step below, the map took
// 0.72–0.74 s against 2.8–3.1 s, BenchmarkPhaseRefreshApply). At each
// class time it gives the classes there what the map needs:
//
//   - its state when it joins the water at t_b = τ_b (b in a window begun
//     before T) or at T (the classes still draining make p'):
//     level b − d, phase j with Σ_i x(b, i) G_i(t_b; d, j), d < b, and
//     level 0 with the rest;
//   - over each interval (t, t + Δ], the part of ∫₀^{t_b} E[(b − N_i(t))⁺] dt
//     of every class still draining (t_b ≥ t + Δ), exactly, from
//     ∫₀^Δ Pois(Λ_d s; n) ds = P(Pois(Λ_d Δ) > n)/Λ_d.
//
// The Poisson weights are cut where each omitted tail is below pmfEps and
// normalised (poissonPMF), so every class keeps its mass. Rows of the
// carried law at the bottom (completions too few to be plausible) and at
// the top (the frontier the steps push up one row per step) are dropped
// when their mass, weighted by the classes of phase i still draining, is
// below trimEps/(4(2D + steps + 1)), and only while each end's total in
// each phase stays below trimEps/4; the mass dropped is truncation.

type phaseDrain struct {
	inv  float64     // 1/Λ_d
	self []float64   // 1 − out_j/Λ_d
	pat  [12]float64 // two phases: self, α and exit as drainStepAVX2 takes them

	// Intervals between the distinct class times: the pmf of
	// Pois(Λ_d Δ) on [lo, lo+len) and its tail P(Pois > n) on the same
	// range, at pmf[off:off+len].
	ivLo, ivOff, ivLen []int
	pmf, tail, pbuf    []float64
	tb                 []float64 // t_b
	// Joining states of the classes b ≤ last: level 0 in join0[b], and
	// level b − d, phase j at joinRows[b][(d − joinLo[b])·P + j] for the
	// rows d ≥ joinLo[b] (joinLo[b] = −1: none; −2: the class has no
	// mass).
	join0     []float64
	joinLo    []int
	joinRows  [][]float64
	gT, gabsT []float64 // G_i(T; d, j) and its absorbed cells
	gTlo      []int     // gT's rows [gTlo_i, gThi_i) may be nonzero
	gThi      []int
	// The carried law G_i at the current step, layout i*D*P + d*P + j,
	// with its absorbed cells; nxt the next step's; acc the interval's
	// Poisson sum, on rows [alo_i, ahi_i).
	cur, nxt, acc []float64
	abs, absAcc   []float64
	contrib       []float64 // drainInterval: the phases' parts of the integral, by step
	rlo, rhi      []int     // rows [rlo_i, rhi_i) of cur may be nonzero
	alo, ahi      []int     // the same for acc
	pre           []float64 // pre[i*(D+1) + d] = Σ_{d' < d} Σ_j G_i(d', j) on d ∈ [rlo_i, rhi_i] (drainPre)
	wDrain        []float64 // Σ_{b still draining} x(b, i): the trimming weights
	cf            []float64 // cf[i*D + d]: the integral's weight of row d (drainWeights)
	kern          drainKern // the kernels' scratch (phasedrainkernel.go)
	// steps is the kernels' cache of the completion chain's steps
	// (phaseSteps): the drain's own, as it runs beside the window walk,
	// which keeps another (phaseMap.steps0).
	steps           phaseSteps
	ready           joinReady // the classes whose joining states are made
	trunc           float64   // the mass the drain trimmed (the map adds it after the walk)
	cutLow, cutHigh []float64 // weighted mass dropped per phase
	integral        float64
	rowEps          float64 // the largest weighted row mass trimmed
}

// classTimes sets t_b for the classes b = 1 … top as the window walk
// (windows.go) will meet them: τ_b for classes entering at a window begun
// before T, T for the rest. It returns the last window's index.
func (m *phaseMap) classTimes(tb []float64) int {
	ws := &m.windowWalk
	tau := 0.0
	for v := 0; ; v++ {
		if v >= 1 && v <= m.top {
			tb[v] = tau
		}
		w := ws.windowLen(v)
		if w == 0 {
			continue
		}
		if tau+w <= ws.period {
			tau += w
			continue
		}
		for b := max(v+1, 1); b <= m.top; b++ {
			tb[b] = ws.period
		}
		return v
	}
}

// drainAll runs the drain law over the period for the input state (apply
// has set x, top, s1, s2, trimEps, pmfEps and the window walk) and leaves
// the joining states, G at T and the drain's part of the integral in m.dr.
func (m *phaseMap) drainAll() (last int) {
	dr := &m.dr
	P, D := m.P, m.top
	ph := &m.ph
	dr.integral, dr.trunc = 0, 0
	defer dr.ready.set(math.MaxInt64) // every class, whatever happens
	if D == 0 {
		return m.classTimes(nil)
	}
	lamD := ph.max
	dr.inv = 1 / lamD
	dr.self = grow(dr.self, P)
	for j := 0; j < P; j++ {
		dr.self[j] = 1 - ph.out[j]*dr.inv
	}
	if P == 2 {
		dr.pat = [12]float64{dr.self[0], dr.self[1], dr.self[0], dr.self[1], ph.alpha[0], ph.alpha[1],
			ph.alpha[0], ph.alpha[1], ph.exit[0], ph.exit[1], ph.exit[0], ph.exit[1]}
	}

	// Class times (nondecreasing in b) and their intervals' Poisson laws.
	dr.tb = grow(dr.tb, D+1)
	tb := dr.tb
	last = m.classTimes(tb)
	steps := m.drainIntervals(tb, lamD)
	m.drainBuffers(last, steps)

	t, iv := 0.0, 0
	for b := 1; b <= D; {
		if tb[b] > t {
			m.drainInterval(iv, b)
			t = tb[b]
			iv++
		}
		// Every class joining at t, from the law carried to t.
		m.drainPrefix()
		for ; b <= D && tb[b] == t; b++ {
			if b <= last {
				m.drainJoin(b)
			}
		}
		dr.ready.set(int64(b - 1))
	}
	if last < D {
		// G at T, for the classes still draining at T.
		gsz := D * P
		for i := 0; i < P; i++ {
			lo, hi := dr.rlo[i], dr.rhi[i]
			copy(dr.gT[i*gsz+lo*P:i*gsz+hi*P], dr.cur[i*gsz+lo*P:i*gsz+hi*P])
			dr.gabsT[i] = dr.abs[i]
			dr.gTlo[i], dr.gThi[i] = lo, hi
		}
	}
	dr.integral *= dr.inv
	for i := 0; i < P; i++ {
		dr.trunc += dr.cutLow[i] + dr.cutHigh[i]
	}
	return last
}

// joinReady tells the window walk which classes' joining states the
// drain, running beside it, has made: those of the classes b ≤ n.
type joinReady struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    atomic.Int64
}

// reset starts a map: no class made.
func (r *joinReady) reset() {
	if r.cond == nil {
		r.cond = sync.NewCond(&r.mu)
	}
	r.n.Store(0)
}

// set records that the classes b ≤ n are made.
func (r *joinReady) set(n int64) {
	r.mu.Lock()
	r.n.Store(n)
	r.mu.Unlock()
	r.cond.Broadcast()
}

// wait returns once class b is made.
func (r *joinReady) wait(b int) {
	if r.n.Load() >= int64(b) {
		return
	}
	r.mu.Lock()
	for r.n.Load() < int64(b) {
		r.cond.Wait()
	}
	r.mu.Unlock()
}

// drainIntervals builds the Poisson law Pois(Λ_d Δ) of each interval
// Δ > 0 between consecutive class times, with its tail P(Pois > n), and
// returns the steps the intervals take in all.
func (m *phaseMap) drainIntervals(tb []float64, lamD float64) int {
	dr := &m.dr
	dr.ivLo, dr.ivOff, dr.ivLen = dr.ivLo[:0], dr.ivOff[:0], dr.ivLen[:0]
	dr.pmf, dr.tail = dr.pmf[:0], dr.tail[:0]
	steps, t := 0, 0.0
	for b := 1; b <= m.top; b++ {
		if tb[b] <= t {
			continue
		}
		lo, pmf := poissonPMF(dr.pbuf, lamD*(tb[b]-t), m.pmfEps)
		t = tb[b]
		dr.pbuf = pmf
		dr.ivLo = append(dr.ivLo, lo)
		dr.ivOff = append(dr.ivOff, len(dr.pmf))
		dr.ivLen = append(dr.ivLen, len(pmf))
		dr.pmf = append(dr.pmf, pmf...)
		off := len(dr.tail)
		dr.tail = append(dr.tail, pmf...)
		tl := dr.tail[off:]
		var s float64
		for n := len(tl) - 1; n >= 0; n-- {
			tl[n] = s // P(Pois > lo + n)
			s += pmf[n]
		}
		steps += lo + len(pmf)
	}
	return steps
}

// drainBuffers sizes the drain's storage (the joining states of the classes
// b ≤ last with mass, G at T, the carried law) and starts every G_i at no
// completion in phase i.
func (m *phaseMap) drainBuffers(last, steps int) {
	dr := &m.dr
	P, D := m.P, m.top
	dr.join0 = grow(dr.join0, D+1)
	dr.joinLo = growInt(dr.joinLo, D+1)
	for len(dr.joinRows) < D+1 {
		dr.joinRows = append(dr.joinRows, nil)
	}
	for b := 1; b <= min(last, D); b++ {
		dr.joinLo[b] = -2
		if m.classMass(b) > 0 {
			dr.joinLo[b] = -1
		}
	}
	gsz := P * D * P
	dr.gT = grow(dr.gT, gsz)
	dr.gabsT = grow(dr.gabsT, P)
	dr.gTlo = growInt(dr.gTlo, P)
	dr.gThi = growInt(dr.gThi, P)
	dr.cur = grow(dr.cur, gsz)
	dr.nxt = grow(dr.nxt, gsz)
	dr.acc = grow(dr.acc, gsz)
	dr.abs = grow(dr.abs, P)
	dr.absAcc = grow(dr.absAcc, P)
	dr.rlo = growInt(dr.rlo, P)
	dr.rhi = growInt(dr.rhi, P)
	dr.alo = growInt(dr.alo, P)
	dr.ahi = growInt(dr.ahi, P)
	dr.pre = grow(dr.pre, P*(D+1))
	dr.wDrain = grow(dr.wDrain, P)
	dr.cf = grow(dr.cf, P*D)
	dr.cutLow = grow(dr.cutLow, P)
	dr.cutHigh = grow(dr.cutHigh, P)
	dr.rowEps = m.trimEps / (4 * float64(2*D+steps+1))
	for i := 0; i < P; i++ {
		dr.cur[i*D*P+i] = 1
		dr.rlo[i], dr.rhi[i] = 0, 1
	}
}

// drainInterval carries every G_i over interval iv, Σ_n Pois(Λ_d Δ; n)·Mⁿ,
// and adds the interval's part of the integral of the classes b ≥ first,
// all still draining at its end.
//
// With at most two phases the sum is one convolution per phase
// (drainIntervalKernel, phasedrainkernel.go), where the cache of steps
// holds the interval. Otherwise the laws G_i of the phases i, independent
// chains, are each carried by drainPhase, the phases of a large interval split in two halves
// (pool.Fork; each phase's arithmetic unchanged), and their
// parts of the integral are added afterwards in the order step by step,
// phase by phase, so the result does not depend on the split.
func (m *phaseMap) drainInterval(iv, first int) {
	dr := &m.dr
	P, D := m.P, m.top
	gsz := D * P
	lo0, pmf, tail := dr.ivLo[iv], dr.pmf[dr.ivOff[iv]:dr.ivOff[iv]+dr.ivLen[iv]], dr.tail[dr.ivOff[iv]:dr.ivOff[iv]+dr.ivLen[iv]]
	end := lo0 + len(pmf) - 1
	rows := 0
	for i := 0; i < P; i++ {
		dr.wDrain[i] = m.s1[(first-1)*P+i]
		rows += dr.rhi[i] - dr.rlo[i]
	}
	integ := !m.boardOnly
	if integ {
		m.drainWeights(first)
	}
	if P <= drainKernelMaxPhases && !dr.kern.noKernel && dr.steps.extend(&m.ph, end+1, m.stepsCap) {
		m.drainIntervalKernel(lo0, pmf, tail, rows, integ)
		return
	}
	dr.contrib = grow(dr.contrib, P*end)
	if P > 1 && (end+1)*rows*P >= drainParWork {
		pool.Fork(func() { m.drainPhases(0, P/2, lo0, pmf, tail, integ) },
			func() { m.drainPhases(P/2, P, lo0, pmf, tail, integ) })
	} else {
		m.drainPhases(0, P, lo0, pmf, tail, integ)
	}
	for n := 0; n < end; n++ {
		for i := 0; i < P; i++ {
			dr.integral += dr.contrib[i*end+n]
		}
	}
	if end%2 == 1 { // each phase stepped end times between cur and nxt
		dr.cur, dr.nxt = dr.nxt, dr.cur
	}
	// The interval's sum becomes the carried law.
	for i := 0; i < P; i++ {
		clear(dr.cur[i*gsz+dr.rlo[i]*P : i*gsz+dr.rhi[i]*P])
		dr.rlo[i], dr.rhi[i] = dr.alo[i], dr.ahi[i]
		dr.abs[i] = dr.absAcc[i]
	}
	dr.cur, dr.acc = dr.acc, dr.cur
}

// drainPhases runs drainPhase for the phases [i0, i1), their parts of the
// integral in dr.contrib.
func (m *phaseMap) drainPhases(i0, i1, lo0 int, pmf, tail []float64, integ bool) {
	end := lo0 + len(pmf) - 1
	for i := i0; i < i1; i++ {
		m.drainPhase(i, lo0, pmf, tail, integ, m.dr.contrib[i*end:(i+1)*end])
	}
}

// drainParWork is the work (steps × rows × phases) above which
// drainInterval carries the phases in two halves (pool.Fork). Below about
// this size the two halves gained nothing (h2:10 at T = 800 on a herd
// board, h2:30 at T = 2,900; idle 2-core machine).
const drainParWork = 1 << 18

// drainRun is the state of one phase's law while drainPhase carries it:
// its rows [lo, hi), the rows [alo, ahi) of the interval's sum (alo < 0:
// none yet), the absorbed cell and its sum, and the mass trimmed at
// either end.
type drainRun struct {
	lo, hi, alo, ahi        int
	abs, absAcc             float64
	cutLow, cutHigh, wDrain float64
}

// drainPhase carries G_i over the interval whose Poisson law is pmf on
// [lo0, …) with tails tail: Σ_n Pois(Λ_d Δ; n)·Mⁿ G_i into acc, and
// contrib[n] = P(Pois(Λ_d Δ) > n)·Σ_{b ≥ first} x(b, i)·F(b) for the steps
// n < end (with integ; 0 otherwise). It reads and writes phase i's rows of
// cur, nxt and acc and its entries of the drain's per-phase slices only.
func (m *phaseMap) drainPhase(i, lo0 int, pmf, tail []float64, integ bool, contrib []float64) {
	dr := &m.dr
	P, D := m.P, m.top
	gsz := D * P
	cur, nxt, acc := dr.cur[i*gsz:(i+1)*gsz], dr.nxt[i*gsz:(i+1)*gsz], dr.acc[i*gsz:(i+1)*gsz]
	r := drainRun{lo: dr.rlo[i], hi: dr.rhi[i], alo: -1, ahi: -1, abs: dr.abs[i],
		cutLow: dr.cutLow[i], cutHigh: dr.cutHigh[i], wDrain: dr.wDrain[i]}
	cf := dr.cf[i*D : (i+1)*D]
	end := lo0 + len(pmf) - 1
	for n := 0; n <= end; n++ {
		var w float64 // Pois(Λ_d Δ; n): G_i's weight in the carried sum
		if n >= lo0 {
			if r.alo < 0 {
				r.alo, r.ahi = r.lo, r.lo
			}
			// The carried rows only rise (lo is nondecreasing), so
			// acc's rows are [alo, max(ahi, hi)).
			if r.hi > r.ahi {
				clear(acc[r.ahi*P : r.hi*P])
				r.ahi = r.hi
			}
			w = pmf[n-lo0]
			r.absAcc += w * r.abs
		}
		if n == end {
			// The last term: no step follows, and its integral weight
			// P(Pois > end) is 0.
			axpy(acc[r.lo*P:r.hi*P], w, cur[r.lo*P:r.hi*P])
			break
		}
		wl := 0.0 // P(Pois(Λ_d Δ) > n): the step's weight in the integral
		if integ {
			wl = 1 // below the pmf's range
			if n >= lo0 {
				wl = tail[n-lo0]
			}
		}
		// Adds w·G_i to acc and returns Σ_{b ≥ first} x(b, i)·F(b) as
		// it reads G_i.
		f := m.drainMove(&r, cur, nxt, acc, cf, w, wl != 0)
		contrib[n] = wl * f
		cur, nxt = nxt, cur
	}
	dr.rlo[i], dr.rhi[i] = r.lo, r.hi
	dr.alo[i], dr.ahi[i] = r.alo, r.ahi
	dr.absAcc[i] = r.absAcc
	dr.cutLow[i], dr.cutHigh[i] = r.cutLow, r.cutHigh
}

// drainWeights sets cf_i(d) = Σ_{b > d, b ≥ first} (b − d)·x(b, i) on the
// rows d ≥ rlo_i of every phase, so that the classes b ≥ first (all still
// draining) take Σ_b x(b, i)·F(b) = Σ_d cf_i(d)·Σ_j G_i(d, j) from the
// carried law, F(b) = Σ_{d<b} (b − d) Σ_j G_i(d, j) the time-t part of
// E[(b − N_i(t))⁺]. By the suffix sums s1, a sum of positive terms from
// the top: cf(d) = cf(d + 1) + s1(max(d, first − 1)), cf(D) = 0.
func (m *phaseMap) drainWeights(first int) {
	dr := &m.dr
	P, D := m.P, m.top
	for i := 0; i < P; i++ {
		cf := dr.cf[i*D : (i+1)*D]
		var c float64
		for d := D - 1; d >= dr.rlo[i]; d-- {
			c += m.s1[max(d, first-1)*P+i]
			cf[d] = c
		}
	}
}

// drainPrefix sets pre to the row sums below each row d of the carried
// law, for d in [rlo, rhi] (below, the sum is 0; above, the sum at rhi):
// drainPre reads it.
func (m *phaseMap) drainPrefix() {
	dr := &m.dr
	P, D := m.P, m.top
	for i := 0; i < P; i++ {
		gi := dr.cur[i*D*P : (i+1)*D*P]
		pre := dr.pre[i*(D+1) : (i+1)*(D+1)]
		lo, hi := dr.rlo[i], dr.rhi[i]
		var s float64
		pre[lo] = 0
		for d := lo + 1; d <= hi; d++ {
			s += sumSlice(gi[(d-1)*P : d*P])
			pre[d] = s
		}
	}
}

// drainPre returns the sum of the carried law of phase i below row
// d ∈ [0, D] (drainPrefix).
func (m *phaseMap) drainPre(i, d int) float64 {
	dr := &m.dr
	lo, hi := dr.rlo[i], dr.rhi[i]
	return dr.pre[i*(m.top+1)+min(max(d, lo), hi)]
}

// drainJoin sets class b's joining state from the law carried to t_b (and
// pre its row sums): rows d < b to level b − d, the rest to level 0.
func (m *phaseMap) drainJoin(b int) {
	dr := &m.dr
	P, D := m.P, m.top
	if dr.joinLo[b] == -2 {
		return
	}
	lo, hi := D, 0
	var z float64
	for i := 0; i < P; i++ {
		xi := m.x[1+(b-1)*P+i]
		z += xi * (m.drainPre(i, D) - m.drainPre(i, min(b, D)) + dr.abs[i])
		lo, hi = min(lo, dr.rlo[i]), max(hi, min(b, dr.rhi[i]))
	}
	dr.join0[b] = z
	if lo >= hi {
		dr.joinLo[b] = -1
		return
	}
	r := dr.joinRows[b]
	if cap(r) < (hi-lo)*P {
		r = make([]float64, (hi-lo)*P)
	}
	r = r[:(hi-lo)*P]
	clear(r)
	for i := 0; i < P; i++ {
		if l, h := dr.rlo[i], min(b, dr.rhi[i]); l < h {
			axpy(r[(l-lo)*P:(h-lo)*P], m.x[1+(b-1)*P+i], dr.cur[i*D*P+l*P:i*D*P+h*P])
		}
	}
	dr.joinLo[b], dr.joinRows[b] = lo, r
}

// classMass returns Σ_i x(b, i), the mass of class b ≥ 1.
func (m *phaseMap) classMass(b int) float64 {
	var s float64
	for _, y := range m.x[1+(b-1)*m.P : 1+b*m.P] {
		s += y
	}
	return s
}

// drainMove moves g_i (rows [r.lo, r.hi) of gi) one uniformised step into
// gn (rows [r.lo, r.hi + 1), completions from row D − 1 into the absorbed
// cell r.abs) and trims its bottom and top rows within the budget. As it
// reads each row of g_i it adds w·g_i to the interval's sum acc (w ≠ 0;
// acc covers [r.lo, r.hi)) and, with lin, returns Σ_d cf(d)·Σ_j g_i(d, j)
// (drainWeights).
func (m *phaseMap) drainMove(r *drainRun, gi, gn, ac, cf []float64, w float64, lin bool) (f float64) {
	dr := &m.dr
	P, D := m.P, m.top
	ph := &m.ph
	lo, hi := r.lo, r.hi
	inv := dr.inv
	var prev float64 // completions from row d − 1, over Λ_d
	if P == 2 && len(ph.moves) == 0 {
		// h2 (and any two parallel phases): the loop below unrolled, the
		// same arithmetic per entry.
		c := drainCoef2{
			w: w, s0: dr.self[0], s1: dr.self[1], a0: ph.alpha[0], a1: ph.alpha[1],
			e0: ph.exit[0], e1: ph.exit[1], inv: inv, pat: &dr.pat,
		}
		g, ng := gi[lo*2:hi*2], gn[lo*2:hi*2]
		switch {
		case w != 0 && lin:
			prev, f = c.stepAccLin(ng, ac[lo*2:hi*2], g, cf[lo:hi])
		case w != 0:
			prev = c.stepAcc(ng, ac[lo*2:hi*2], g)
		case lin:
			prev, f = c.stepLin(ng, g, cf[lo:hi])
		default:
			prev = c.step(ng, g)
		}
	} else {
		for d := lo; d < hi; d++ {
			row := gi[d*P : d*P+P]
			nrow := gn[d*P : d*P+P]
			if w != 0 {
				axpy(ac[d*P:d*P+P], w, row)
			}
			if lin {
				f += cf[d] * sumSlice(row)
			}
			var comp float64
			for j, y := range row {
				comp += ph.exit[j] * y
				nrow[j] = dr.self[j]*y + ph.alpha[j]*prev
			}
			for _, mv := range ph.moves {
				nrow[mv.to] += mv.rate * inv * row[mv.from]
			}
			prev = comp * inv
		}
	}
	if hi < D {
		nrow := gn[hi*P : hi*P+P]
		for j := range nrow {
			nrow[j] = ph.alpha[j] * prev
		}
		hi++
	} else {
		r.abs += prev
	}
	// g_i's rows are left as they are: every reader of the carried law
	// (the next step, drainPrefix, drainJoin, G at T) and of the
	// interval's sum stays inside its rows [rlo, rhi) and [alo, ahi), and
	// a buffer's rows are written (or cleared, acc's) before they join
	// its range.
	r.lo, r.hi = lo, hi
	m.drainTrim(r, gn)
	return f
}

// drainTrim trims the rows [r.lo, r.hi) of g_i (in gn) whose mass, weighted
// by the classes of phase i still draining, is below rowEps, while each
// end's total dropped stays below trimEps/4 (checked).
func (m *phaseMap) drainTrim(r *drainRun, gn []float64) {
	dr := &m.dr
	P := m.P
	lo, hi := r.lo, r.hi
	wi := r.wDrain // Σ_{b still draining} x(b, i)
	for hi-lo > 1 {
		row := gn[lo*P : lo*P+P]
		s := sumSlice(row) * wi
		if s >= dr.rowEps || r.cutLow+s >= m.trimEps/4 {
			break
		}
		r.cutLow += s
		clear(row)
		lo++
	}
	for hi-lo > 1 {
		row := gn[(hi-1)*P : hi*P]
		s := sumSlice(row) * wi
		if s >= dr.rowEps || r.cutHigh+s >= m.trimEps/4 {
			break
		}
		r.cutHigh += s
		clear(row)
		hi--
	}
	r.lo, r.hi = lo, hi
}

// drainCoef2 holds drainMove's step coefficients for two parallel phases
// (h2): the weight w of the step in the interval's sum, 1 − out_j/Λ_d,
// α_j, the exit rates s_j and 1/Λ_d.
type drainCoef2 struct {
	w, s0, s1, a0, a1, e0, e1, inv float64
	pat                            *[12]float64 // s, a and e as drainStepAVX2 takes them
}

// stepAccLin is drainMove's step for two parallel phases on the rows g
// (two values a row) into ng, adding w·g to acc and returning the
// completions of the last row over Λ_d and Σ_d cf(d)·(g(d, 0) + g(d, 1)):
// per entry the same arithmetic as the generic loop.
func (c *drainCoef2) stepAccLin(ng, acc, g, cf []float64) (prev, f float64) {
	w, s0, s1, a0, a1, e0, e1, inv := c.w, c.s0, c.s1, c.a0, c.a1, c.e0, c.e1, c.inv
	n := len(cf)
	g, ng, acc = g[:2*n], ng[:2*n], acc[:2*n]
	x0 := 0 // rows before x0/2 made by drainStepLinAVX2
	if nb := n / 2; useAVX2 && nb > 0 {
		prev, f = drainStepLinAVX2(&ng[0], &acc[0], &g[0], &cf[0], nb, c.pat, w, inv)
		x0 = 4 * nb
	}
	for x := x0; x < len(g)-1; x += 2 {
		y0, y1 := g[x], g[x+1]
		acc[x] += w * y0
		acc[x+1] += w * y1
		f += cf[x/2] * (y0 + y1)
		ng[x] = s0*y0 + a0*prev
		ng[x+1] = s1*y1 + a1*prev
		prev = (e0*y0 + e1*y1) * inv
	}
	return prev, f
}

// stepAcc is stepAccLin without the weighted sum.
func (c *drainCoef2) stepAcc(ng, acc, g []float64) (prev float64) {
	w, s0, s1, a0, a1, e0, e1, inv := c.w, c.s0, c.s1, c.a0, c.a1, c.e0, c.e1, c.inv
	ng, acc = ng[:len(g)], acc[:len(g)]
	x0 := 0 // rows before x0/2 made by drainStepAVX2
	if nb := len(g) / 4; useAVX2 && nb > 0 {
		prev = drainStepAVX2(&ng[0], &acc[0], &g[0], nb, c.pat, w, inv)
		x0 = 4 * nb
	}
	for x := x0; x < len(g)-1; x += 2 {
		y0, y1 := g[x], g[x+1]
		acc[x] += w * y0
		acc[x+1] += w * y1
		ng[x] = s0*y0 + a0*prev
		ng[x+1] = s1*y1 + a1*prev
		prev = (e0*y0 + e1*y1) * inv
	}
	return prev
}

// stepLin is stepAccLin without the interval's sum (w = 0).
func (c *drainCoef2) stepLin(ng, g, cf []float64) (prev, f float64) {
	s0, s1, a0, a1, e0, e1, inv := c.s0, c.s1, c.a0, c.a1, c.e0, c.e1, c.inv
	n := len(cf)
	g, ng = g[:2*n], ng[:2*n]
	for x := 0; x < len(g)-1; x += 2 {
		y0, y1 := g[x], g[x+1]
		f += cf[x/2] * (y0 + y1)
		ng[x] = s0*y0 + a0*prev
		ng[x+1] = s1*y1 + a1*prev
		prev = (e0*y0 + e1*y1) * inv
	}
	return prev, f
}

// step is the step alone (w = 0, no weighted sum).
func (c *drainCoef2) step(ng, g []float64) (prev float64) {
	s0, s1, a0, a1, e0, e1, inv := c.s0, c.s1, c.a0, c.a1, c.e0, c.e1, c.inv
	ng = ng[:len(g)]
	for x := 0; x < len(g)-1; x += 2 {
		y0, y1 := g[x], g[x+1]
		ng[x] = s0*y0 + a0*prev
		ng[x+1] = s1*y1 + a1*prev
		prev = (e0*y0 + e1*y1) * inv
	}
	return prev
}

// growInt is grow for ints (zeroed).
func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}
