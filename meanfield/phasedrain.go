package meanfield

// phaseDrain is the drain law of the phase map (phaserefresh.go), computed
// once per application over the whole period instead of window by window.
//
// A server of class b (board b) that has not yet joined the water is a
// server that never empties until its b-th completion: its law at time t
// depends on t only, not on the windows. So the drain law
// G_i(t; d, j) (d completions by t, the job then in service in phase j,
// from phase i at 0) is uniformised once, at the drain's own rate
// Λ_d = max_i out_i (no arrivals), as G_i(t) = Σ_n Pois(Λ_d t; n)·g_{i,n}
// with g_{i,n} = Mⁿe_i the uniformised chain after n steps, rows d ≥ D = top
// of the board kept as one absorbed cell. One pass over n = 0, 1, …
// gives every class what the map needs:
//
//   - its state when it joins the water at t_b = τ_b (b in a window begun
//     before T) or at T (the classes still draining make p'):
//     level b − d, phase j with Σ_i x(b, i) G_i(t_b; d, j), d < b, and
//     level 0 with the rest;
//   - its part of ∫₀ᵀ E[q] dt, Σ_i x(b, i) ∫₀^{t_b} E[(b − N_i(t))⁺] dt,
//     exactly, from ∫₀^t Pois(Λ_d s; n) ds = P(Pois(Λ_d t) > n)/Λ_d.
//
// The Poisson weights are cut where each omitted tail is below pmfEps and
// normalised (poissonPMF), so every class keeps its mass. Rows of g_{i,n}
// at the bottom (completions too few to be plausible after n steps) and at
// the top (the frontier the steps push up one row per step) are dropped
// when their mass, weighted by the classes of phase i, is below
// trimEps/(4(2D + steps + 1)): each end drops at most D + steps rows per
// phase, so each loses less than trimEps/4 (and stops trimming if it would
// not); the mass dropped is truncation.
type phaseDrain struct {
	inv  float64   // 1/Λ_d
	self []float64 // 1 − out_j/Λ_d

	// Classes b = 1 … top: tab[b] indexes the Poisson table of t_b.
	tab []int
	// Tables: time t, pmf of Pois(Λ_d t) on [lo, lo+len), and the tail
	// P(Pois > n) on the same range.
	tabT            []float64
	tabLo, tabOff   []int
	tabLen          []int
	endMax, loMin   []int // per table: max of lo+len over tables ≤ t, min of lo over tables ≥ t
	pmf, tail, pbuf []float64
	tb              []float64 // t_b
	// Joining states of the classes b ≤ last: level 0 in join0[b], and
	// level b − d, phase j at joinRows[b][(d − joinLo[b])·P + j] for the
	// rows d ≥ joinLo[b] the pass reached (joinLo[b] < 0: none yet; −2:
	// the class has no mass).
	join0           []float64
	joinLo          []int
	joinRows        [][]float64
	minLo           int       // min_i rlo_i at the current step
	gT, gabsT       []float64 // G_i(T; d, j) and its absorbed cells
	cur, nxt        []float64 // g_{i,n}, layout i*D*P + d*P + j
	abs, absN       []float64 // absorbed cells (d ≥ D)
	rlo, rhi        []int     // rows [rlo_i, rhi_i) of g_{i,n} may be nonzero
	s0              []float64 // S0(b) = Σ_{d<b} Σ_j g(d, j) for the current i
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

	// Class times and their Poisson tables (t_b is nondecreasing in b).
	dr.tb = grow(dr.tb, D+1)
	tb := dr.tb
	last = m.classTimes(tb)
	nMax := m.drainTables(tb, lamD)

	tT := m.drainBuffers(last, nMax)
	first := 1 // every class before first has spent its weights
	for n := 0; n <= nMax; n++ {
		for first <= D && dr.endMax[dr.tab[first]] <= n {
			first++
		}
		dr.minLo = dr.rlo[0]
		for i := 1; i < P; i++ {
			dr.minLo = min(dr.minLo, dr.rlo[i])
		}
		for i := 0; i < P; i++ {
			m.drainUse(i, n, first, last, tT)
		}
		if n == nMax {
			break
		}
		for i := 0; i < P; i++ {
			m.drainMove(i)
		}
		dr.cur, dr.nxt = dr.nxt, dr.cur
		dr.abs, dr.absN = dr.absN, dr.abs
	}
	dr.integral *= dr.inv
	for i := 0; i < P; i++ {
		m.trunc += dr.cutLow[i] + dr.cutHigh[i]
	}
	return last
}

// drainTables builds the Poisson table of each distinct class time,
// Pois(Λ_d t_b) with its tail P(Pois > n), and returns the last step any
// table covers.
func (m *phaseMap) drainTables(tb []float64, lamD float64) int {
	dr := &m.dr
	D := m.top
	dr.tab = growInt(dr.tab, D+1)
	dr.tabT, dr.tabLo, dr.tabOff, dr.tabLen = dr.tabT[:0], dr.tabLo[:0], dr.tabOff[:0], dr.tabLen[:0]
	dr.pmf, dr.tail = dr.pmf[:0], dr.tail[:0]
	nMax := 0
	for b := 1; b <= D; b++ {
		if nt := len(dr.tabT); nt == 0 || tb[b] != dr.tabT[nt-1] {
			lo, pmf := poissonPMF(dr.pbuf, lamD*tb[b], m.pmfEps)
			dr.pbuf = pmf
			dr.tabT = append(dr.tabT, tb[b])
			dr.tabLo = append(dr.tabLo, lo)
			dr.tabOff = append(dr.tabOff, len(dr.pmf))
			dr.tabLen = append(dr.tabLen, len(pmf))
			dr.pmf = append(dr.pmf, pmf...)
			off := len(dr.tail)
			dr.tail = append(dr.tail, pmf...)
			t := dr.tail[off:]
			var s float64
			for n := len(t) - 1; n >= 0; n-- {
				t[n] = s // P(Pois > lo + n)
				s += pmf[n]
			}
			nMax = max(nMax, lo+len(pmf)-1)
		}
		dr.tab[b] = len(dr.tabT) - 1
	}
	// The classes' supports in n are nearly but not provably monotone in
	// t: bound them by a running maximum of their ends and a running
	// minimum (from the top) of their starts.
	nt := len(dr.tabT)
	dr.endMax = growInt(dr.endMax, nt)
	dr.loMin = growInt(dr.loMin, nt)
	for t := 0; t < nt; t++ {
		dr.endMax[t] = dr.tabLo[t] + dr.tabLen[t]
		if t > 0 {
			dr.endMax[t] = max(dr.endMax[t], dr.endMax[t-1])
		}
	}
	for t := nt - 1; t >= 0; t-- {
		dr.loMin[t] = dr.tabLo[t]
		if t+1 < nt {
			dr.loMin[t] = min(dr.loMin[t], dr.loMin[t+1])
		}
	}
	return nMax
}

// drainBuffers sizes the drain's storage (the joining states of the classes
// b ≤ last with mass, G at T, the steps g_{i,n}) and starts every g_i at
// no completion in phase i. It returns the table of T, −1 if no class
// drains to T.
func (m *phaseMap) drainBuffers(last, nMax int) (tT int) {
	dr := &m.dr
	P, D := m.P, m.top
	// Joining states of the classes b ≤ last with mass, and G at T.
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
	tT = -1
	if last < D {
		tT = dr.tab[D]
	}
	dr.gT = grow(dr.gT, gsz)
	dr.gabsT = grow(dr.gabsT, P)

	dr.cur = grow(dr.cur, gsz)
	dr.nxt = grow(dr.nxt, gsz)
	dr.abs = grow(dr.abs, P)
	dr.absN = grow(dr.absN, P)
	dr.rlo = growInt(dr.rlo, P)
	dr.rhi = growInt(dr.rhi, P)
	dr.s0 = grow(dr.s0, D+1)
	dr.cutLow = grow(dr.cutLow, P)
	dr.cutHigh = grow(dr.cutHigh, P)
	dr.rowEps = m.trimEps / (4 * float64(2*D+nMax+1))
	for i := 0; i < P; i++ {
		dr.cur[i*D*P+i] = 1
		dr.rlo[i], dr.rhi[i] = 0, 1
	}
	return tT
}

// tableTail returns P(Pois > n) for table t.
func (dr *phaseDrain) tableTail(t, n int) float64 {
	o := n - dr.tabLo[t]
	switch {
	case o < 0:
		return 1
	case o >= dr.tabLen[t]:
		return 0
	}
	return dr.tail[dr.tabOff[t]+o]
}

// classWeight returns x(b, i)·P(Pois(Λ_d t_b) > n), class b's weight in
// step n of the drain integral.
func (m *phaseMap) classWeight(b, i, n int) float64 {
	return m.x[1+(b-1)*m.P+i] * m.dr.tableTail(m.dr.tab[b], n)
}

// classMass returns Σ_i x(b, i), the mass of class b ≥ 1.
func (m *phaseMap) classMass(b int) float64 {
	var s float64
	for _, y := range m.x[1+(b-1)*m.P : 1+b*m.P] {
		s += y
	}
	return s
}

// drainUse adds step n of g_i to what the classes need: the integral
// (classes whose tail weight is not yet spent, from first on), the joining
// states of the classes b ≤ last whose Poisson table covers n, and G at T.
func (m *phaseMap) drainUse(i, n, first, last, tT int) {
	dr := &m.dr
	P, D := m.P, m.top
	gi := dr.cur[i*D*P : (i+1)*D*P]
	lo, hi := dr.rlo[i], dr.rhi[i]
	// S0(b) and F(b) = Σ_{d<b} (b − d) Σ_j g(d, j) = F(b−1) + S0(b): zero
	// for b ≤ lo, summed row by row up to hi, and beyond F(b) =
	// F(hi) + (b − hi)·S0(hi), which the classes past max(hi, last) (all
	// weighted by T's table) take through the suffix sums s1, s2.
	// With boardOnly only S0 is needed (the joining states).
	integ := !m.boardOnly
	var s0, f, acc float64
	for b := lo + 1; b <= hi; b++ {
		for _, y := range gi[(b-1)*P : b*P] {
			s0 += y
		}
		dr.s0[b] = s0
		if integ {
			f += s0
			if b >= first {
				acc += m.classWeight(b, i, n) * f
			}
		}
	}
	if integ {
		c := min(max(hi, last, first-1), D)
		for b := max(hi+1, first); b <= c; b++ {
			acc += m.classWeight(b, i, n) * (f + float64(b-hi)*s0)
		}
		if c < D {
			w := dr.tableTail(dr.tab[c+1], n) // T's table
			s1, s2 := m.s1[c*P+i], m.s2[c*P+i]
			acc += w * (f*s1 + s0*(s2-float64(hi)*s1))
		}
		dr.integral += acc
	}
	mass := s0 + dr.abs[i]

	// Joining states of the classes whose tables cover n (none before
	// first, none from the first whose tables all start after n).
	for b := first; b <= min(last, D) && dr.loMin[dr.tab[b]] <= n; b++ {
		if dr.joinLo[b] == -2 {
			continue
		}
		t := dr.tab[b]
		o := n - dr.tabLo[t]
		if o < 0 || o >= dr.tabLen[t] {
			continue
		}
		xw := dr.pmf[dr.tabOff[t]+o] * m.x[1+(b-1)*P+i]
		if xw == 0 {
			continue
		}
		var below float64 // S0(b)
		switch {
		case b > hi:
			below = s0
		case b > lo:
			below = dr.s0[b]
		}
		dr.join0[b] += xw * (mass - below)
		m.joinRows(b, gi, xw, lo, min(b, hi))
	}

	// G at T.
	if tT >= 0 {
		if o := n - dr.tabLo[tT]; o >= 0 && o < dr.tabLen[tT] {
			pw := dr.pmf[dr.tabOff[tT]+o]
			ga := dr.gT[i*D*P : (i+1)*D*P]
			for x := lo * P; x < hi*P; x++ {
				ga[x] += pw * gi[x]
			}
			dr.gabsT[i] += pw * dr.abs[i]
		}
	}
}

// joinRows adds xw·g(d, j) for the rows d in [lo, hi) to class b's
// joining state, extending its rows upward as the pass reaches them (the
// rows start at min_i rlo_i of the class's first step: no row below is
// ever nonzero again).
func (m *phaseMap) joinRows(b int, g []float64, xw float64, lo, hi int) {
	if lo >= hi {
		return
	}
	dr := &m.dr
	P := m.P
	r := dr.joinRows[b]
	if dr.joinLo[b] < 0 {
		dr.joinLo[b] = dr.minLo
		r = r[:0]
	}
	base := dr.joinLo[b]
	for len(r) < (hi-base)*P {
		r = append(r, 0)
	}
	dst := r[(lo-base)*P : (hi-base)*P]
	for x, y := range g[lo*P : hi*P] {
		dst[x] += xw * y
	}
	dr.joinRows[b] = r
}

// drainMove moves g_i one uniformised step (rows [rlo, rhi) to
// [rlo, rhi + 1), completions from row D − 1 into the absorbed cell) and
// trims its bottom and top rows within the budget.
func (m *phaseMap) drainMove(i int) {
	dr := &m.dr
	P, D := m.P, m.top
	ph := &m.ph
	gi := dr.cur[i*D*P : (i+1)*D*P]
	gn := dr.nxt[i*D*P : (i+1)*D*P]
	lo, hi := dr.rlo[i], dr.rhi[i]
	inv := dr.inv
	var prev float64 // completions from row d − 1, over Λ_d
	for d := lo; d < hi; d++ {
		row := gi[d*P : d*P+P]
		nrow := gn[d*P : d*P+P]
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
	// Trim rows whose mass, weighted by the classes of phase i, is below
	// rowEps; at most D + nMax of them per phase, so the mass dropped
	// stays below trimEps/4 (checked).
	wi := m.s1[i] // Σ_b x(b, i)
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
