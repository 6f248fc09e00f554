package meanfield

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
// G_i(t + Δ) = Σ_n Pois(Λ_d Δ; n)·Mⁿ G_i(t), M the uniformised step. So a
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
	inv  float64   // 1/Λ_d
	self []float64 // 1 − out_j/Λ_d

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
	// The carried law G_i at the current step, layout i*D*P + d*P + j,
	// with its absorbed cells; nxt the next step's; acc the interval's
	// Poisson sum, on rows [alo_i, ahi_i).
	cur, nxt, acc     []float64
	abs, absN, absAcc []float64
	rlo, rhi          []int     // rows [rlo_i, rhi_i) of cur may be nonzero
	alo, ahi          []int     // the same for acc
	pre               []float64 // pre[i*(D+1) + d] = Σ_{d' < d} Σ_j G_i(d', j)
	wDrain            []float64 // Σ_{b still draining} x(b, i): the trimming weights
	cf                []float64 // cf[i*D + d]: the integral's weight of row d (drainWeights)
	cutLow, cutHigh   []float64 // weighted mass dropped per phase
	integral          float64
	rowEps            float64 // the largest weighted row mass trimmed
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
	dr.integral = 0
	if D == 0 {
		return m.classTimes(nil)
	}
	lamD := ph.max
	dr.inv = 1 / lamD
	dr.self = grow(dr.self, P)
	for j := 0; j < P; j++ {
		dr.self[j] = 1 - ph.out[j]*dr.inv
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
	}
	if last < D {
		// G at T, for the classes still draining at T.
		gsz := D * P
		for i := 0; i < P; i++ {
			lo, hi := dr.rlo[i], dr.rhi[i]
			copy(dr.gT[i*gsz+lo*P:i*gsz+hi*P], dr.cur[i*gsz+lo*P:i*gsz+hi*P])
			dr.gabsT[i] = dr.abs[i]
		}
	}
	dr.integral *= dr.inv
	for i := 0; i < P; i++ {
		m.trunc += dr.cutLow[i] + dr.cutHigh[i]
	}
	return last
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
	dr.cur = grow(dr.cur, gsz)
	dr.nxt = grow(dr.nxt, gsz)
	dr.acc = grow(dr.acc, gsz)
	dr.abs = grow(dr.abs, P)
	dr.absN = grow(dr.absN, P)
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
func (m *phaseMap) drainInterval(iv, first int) {
	dr := &m.dr
	P, D := m.P, m.top
	gsz := D * P
	lo0, pmf, tail := dr.ivLo[iv], dr.pmf[dr.ivOff[iv]:dr.ivOff[iv]+dr.ivLen[iv]], dr.tail[dr.ivOff[iv]:dr.ivOff[iv]+dr.ivLen[iv]]
	end := lo0 + len(pmf) - 1
	for i := 0; i < P; i++ {
		dr.wDrain[i] = m.s1[(first-1)*P+i]
		dr.alo[i], dr.ahi[i] = -1, -1
		dr.absAcc[i] = 0
	}
	integ := !m.boardOnly
	if integ {
		m.drainWeights(first)
	}
	for n := 0; n <= end; n++ {
		for i := 0; i < P; i++ {
			var w float64 // Pois(Λ_d Δ; n): G_i's weight in the carried sum
			if n >= lo0 {
				lo, hi := dr.rlo[i], dr.rhi[i]
				if dr.alo[i] < 0 {
					dr.alo[i], dr.ahi[i] = lo, lo
				}
				// The carried rows only rise (lo is nondecreasing), so
				// acc's rows are [alo, max(ahi, hi)).
				if hi > dr.ahi[i] {
					clear(dr.acc[i*gsz+dr.ahi[i]*P : i*gsz+hi*P])
					dr.ahi[i] = hi
				}
				w = pmf[n-lo0]
				dr.absAcc[i] += w * dr.abs[i]
			}
			if n == end {
				// The last term: no step follows, and its integral weight
				// P(Pois > end) is 0.
				lo, hi := dr.rlo[i], dr.rhi[i]
				axpy(dr.acc[i*gsz+lo*P:i*gsz+hi*P], w, dr.cur[i*gsz+lo*P:i*gsz+hi*P])
				continue
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
			f := m.drainMove(i, w, wl != 0)
			dr.integral += wl * f
		}
		if n == end {
			break
		}
		dr.cur, dr.nxt = dr.nxt, dr.cur
		dr.abs, dr.absN = dr.absN, dr.abs
	}
	// The interval's sum becomes the carried law.
	for i := 0; i < P; i++ {
		clear(dr.cur[i*gsz+dr.rlo[i]*P : i*gsz+dr.rhi[i]*P])
		dr.rlo[i], dr.rhi[i] = dr.alo[i], dr.ahi[i]
		dr.abs[i] = dr.absAcc[i]
	}
	dr.cur, dr.acc = dr.acc, dr.cur
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

// drainPrefix sets pre to the row sums below each row of the carried law.
func (m *phaseMap) drainPrefix() {
	dr := &m.dr
	P, D := m.P, m.top
	for i := 0; i < P; i++ {
		gi := dr.cur[i*D*P : (i+1)*D*P]
		pre := dr.pre[i*(D+1) : (i+1)*(D+1)]
		lo, hi := dr.rlo[i], dr.rhi[i]
		var s float64
		for d := 0; d <= D; d++ {
			if d > lo && d <= hi {
				s += sumSlice(gi[(d-1)*P : d*P])
			}
			pre[d] = s
		}
	}
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
		pre := dr.pre[i*(D+1) : (i+1)*(D+1)]
		z += xi * (pre[D] - pre[min(b, D)] + dr.abs[i])
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

// drainMove moves g_i one uniformised step (rows [rlo, rhi) to
// [rlo, rhi + 1), completions from row D − 1 into the absorbed cell) and
// trims its bottom and top rows within the budget. As it reads each row of
// g_i it adds w·g_i to the interval's sum acc (w ≠ 0; acc covers
// [rlo, rhi)) and, with lin, returns Σ_d cf_i(d)·Σ_j g_i(d, j)
// (drainWeights).
func (m *phaseMap) drainMove(i int, w float64, lin bool) (f float64) {
	dr := &m.dr
	P, D := m.P, m.top
	ph := &m.ph
	gi := dr.cur[i*D*P : (i+1)*D*P]
	gn := dr.nxt[i*D*P : (i+1)*D*P]
	ac := dr.acc[i*D*P : (i+1)*D*P]
	lo, hi := dr.rlo[i], dr.rhi[i]
	cf := dr.cf[i*D : (i+1)*D]
	inv := dr.inv
	var prev float64 // completions from row d − 1, over Λ_d
	if P == 2 && len(ph.moves) == 0 && w != 0 {
		// h2 (and any two parallel phases): the loop below unrolled, the
		// same arithmetic per entry.
		e0, e1 := ph.exit[0], ph.exit[1]
		s0, s1 := dr.self[0], dr.self[1]
		a0, a1 := ph.alpha[0], ph.alpha[1]
		g, ng, a := gi[lo*2:hi*2], gn[lo*2:hi*2], ac[lo*2:hi*2]
		if lin {
			c := cf[lo:hi]
			for x := 0; x+1 < len(g); x += 2 {
				y0, y1 := g[x], g[x+1]
				a[x] += w * y0
				a[x+1] += w * y1
				f += c[x/2] * (y0 + y1)
				ng[x] = s0*y0 + a0*prev
				ng[x+1] = s1*y1 + a1*prev
				prev = (e0*y0 + e1*y1) * inv
			}
		} else {
			for x := 0; x+1 < len(g); x += 2 {
				y0, y1 := g[x], g[x+1]
				a[x] += w * y0
				a[x+1] += w * y1
				ng[x] = s0*y0 + a0*prev
				ng[x+1] = s1*y1 + a1*prev
				prev = (e0*y0 + e1*y1) * inv
			}
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
	dr.absN[i] = dr.abs[i]
	if hi < D {
		nrow := gn[hi*P : hi*P+P]
		for j := range nrow {
			nrow[j] = ph.alpha[j] * prev
		}
		hi++
	} else {
		dr.absN[i] += prev
	}
	clear(gi[lo*P : dr.rhi[i]*P])
	// Trim rows whose mass, weighted by the classes of phase i still
	// draining, is below rowEps, while each end's total dropped stays below
	// trimEps/4 (checked).
	wi := dr.wDrain[i] // Σ_{b still draining} x(b, i)
	for hi-lo > 1 {
		row := gn[lo*P : lo*P+P]
		s := sumSlice(row) * wi
		if s >= dr.rowEps || dr.cutLow[i]+s >= m.trimEps/4 {
			break
		}
		dr.cutLow[i] += s
		clear(row)
		lo++
	}
	for hi-lo > 1 {
		row := gn[(hi-1)*P : hi*P]
		s := sumSlice(row) * wi
		if s >= dr.rowEps || dr.cutHigh[i]+s >= m.trimEps/4 {
			break
		}
		dr.cutHigh[i] += s
		clear(row)
		hi--
	}
	dr.rlo[i], dr.rhi[i] = lo, hi
	return f
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
