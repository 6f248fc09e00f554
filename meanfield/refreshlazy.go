package meanfield

import "math"

// Lazy far rows. A server that starts a run of n windows with so many jobs
// that it cannot empty before the run ends (P(Pois(Σ W) ≥ q) below
// Tol·10⁻⁶, the standard of the per-window split) receives exactly k jobs
// per window and is served as a Poisson process: after the run its queue
// is q + n·k − Pois(Σ W). Such rows are set aside at the run's start and
// convolved once at its end instead of once per window; their mean, which
// the time-averaged queue needs, moves by k − W per window.
//
// Past the top of the board every window has length W = k/λ and the water
// drifts down by k(1−λ)/λ a window. There a row can wait longer the higher
// it lies: a run of n windows needs q ≥ q₀(n) ≈ nW + 8.5√(nW). So the rows
// are set aside in bands, one per run length n = 4, 16, 64, 256 windows:
// band n holds the rows from q₀(n) up to where the next longer band,
// started at the same window, takes over (the longest that starts takes
// the rows up to the top). A band that ends is convolved back into the
// water and starts again at once from the water's rows above its q₀ (up
// to a kernel's width above the lowest longer band still running: what
// its own end spread up), which then include what flowed up from below
// while it waited; bands may overlap in rows, since each row moves
// independently of the others. One convolution of a band of R rows costs
// about (R + w)·w, w ≈ 17√(nW) the width of Pois(nW), against R·n·w₁
// (w₁ ≈ 17√W) for the n windows it replaces: per row and window about
// w₁/√n when R ≫ w, so the far rows cost the less the higher they lie. A
// band starts only when it saves at least a quarter (lazyGain).
//
// Inside the board (v < top) windows are shorter (k·F(v)/λ) and the water
// climbs, so rows flow up into a band's rows while it runs. There one band
// takes all the far rows, its run the power of two from 4 to 64 windows
// that saves the most, when at least 512 rows qualify (startInside). On
// the edge searches' boards (BenchmarkEdge) the bands by height did worse
// inside the board (9% more convolution work at k = 10, λ = 0.95) and
// better past the top (a third less on a balanced board at λ = 0.99).
const (
	lazyLevels     = 4 // run lengths lazyMinWindows·4^j, j < lazyLevels
	lazyMinWindows = 4 // the shortest run
	// A band starts when its convolution costs less than lazyGain times
	// the windows' it replaces.
	lazyGain = 0.75
	// The single band inside the board (startInside): runs of up to
	// lazyMaxWindows windows, at least lazyMinRows far rows, the top rows
	// with mass below lazyTailWindows·n·trimEps kept in the water (so
	// that its top is trimmed window by window as without the band).
	lazyInside      = lazyLevels // its index in RefreshMap.bands
	lazyMaxWindows  = 64
	lazyMinRows     = 512
	lazyTailWindows = 16
)

// poissonWidth estimates the length of the Poisson(x) law cut at
// pmfEps = 1e-18: within 12% for x from 2 to 1,280 (+12% at x = 10,
// −3% at 1,280); it only weighs whether a band pays.
func poissonWidth(x float64) float64 { return 17*math.Sqrt(x) + 1 }

// lazyBand is a band of far rows set aside for one run.
type lazyBand struct {
	on    bool
	retry int       // no start before this window (startLazy)
	rows  []float64 // the water's rows [lo, lo+len(rows)) at the run's start
	lo    int
	end   int // the run ends before window end
	// The band's mass and current first moment, and the service time and
	// arrivals it owes.
	mass, first float64
	time        float64
	arr         int
	// The law Pois(s) of the last run length s asked for (q₀(s) = lo +
	// len(pmf)), kept across windows and applications: past the top of
	// the board every run of n windows has the same length; and that of
	// the last service time owed at a flush (a sum of window lengths,
	// which may differ from s in its last bits).
	start, out pmfCache
}

// pmfCache is the last Poisson law asked of cachedPMF.
type pmfCache struct {
	x, eps float64
	lo     int
	pmf    []float64
}

// clearLazy marks every band unused (Apply's start).
func (m *RefreshMap) clearLazy() {
	for j := range m.bands {
		m.bands[j].on, m.bands[j].retry = false, 0
	}
	m.lzActive = 0
	m.lzStarts = [lazyLevels + 1]int{}
}

// cachedPMF returns the Poisson(x) law cut as poissonPMF cuts it at
// pmfEps, from c when it holds that law.
func (m *RefreshMap) cachedPMF(c *pmfCache, x float64) (int, []float64) {
	if c.pmf == nil || c.x != x || c.eps != m.pmfEps {
		c.lo, c.pmf = poissonPMF(c.pmf, x, m.pmfEps)
		c.x, c.eps = x, m.pmfEps
	}
	return c.lo, c.pmf
}

// runAhead returns the total length of the next n windows of nonzero
// length from window v (starting at tau) and the window after the last of
// them, or ok = false when they do not all end before T. Past the top of
// the board every window has length k/λ.
func (m *RefreshMap) runAhead(v int, tau float64, n int) (s float64, end int, ok bool) {
	T := m.period
	if v >= m.top {
		w := m.windowLen(v)
		s = float64(n) * w
		return s, v + n, tau+s <= T
	}
	t, cnt := tau, 0
	for vv := v; ; vv++ {
		w := m.windowLen(vv)
		if t+w > T {
			return s, vv, false
		}
		t += w
		if w > 0 {
			s += w
			cnt++
			if cnt == n {
				return s, vv + 1, true
			}
		}
	}
}

// startLazy starts, at window v (starting at tau), every band not running
// whose rows are worth setting aside (see the comment on lazyLevels), from
// the longest run down. A band that was not worth it is asked again only
// a quarter of its run later (the water changes little meanwhile, and
// asking costs its law). The choice depends on the input only.
func (m *RefreshMap) startLazy(v int, tau float64) {
	// A row in the water costs a dot product of the window kernel's
	// length every window, about that of Pois(W): about 17√W + 1 at
	// pmfEps = 1e-18, as for every Poisson law here (poissonWidth).
	w := m.windowLen(v)
	upper := math.MaxInt // where a longer band started here takes over
	held := math.MaxInt  // the lowest row of the longer bands still running
	for j := lazyLevels - 1; j >= 0; j-- {
		b := &m.bands[j]
		if b.on {
			held = min(held, b.lo)
			continue
		}
		n := lazyMinWindows << (2 * j)
		if est := float64(n) * w; v < b.retry || float64(min(m.hi, upper)) <= est+8*math.Sqrt(est) {
			continue // no rows above the run's q₀ as it looks from here
		}
		if q0, ok := m.startBand(b, n, v, tau, poissonWidth(w), upper, held); ok {
			m.lzStarts[j]++
			upper = q0
		} else {
			b.retry = v + max(1, n/4)
		}
	}
}

// startInside considers, inside the board (v < top), a run of windows
// from window v (starting at tau) and, when convolving the far rows once
// at its end saves work, sets aside the rows that cannot empty during the
// run in the band lazyInside: one band for all far rows, its run the
// power of two from 4 to lazyMaxWindows that saves the most. Inside the
// board the water climbs where F(v) < λ (k jobs a window of length
// k·F(v)/λ < k), so rows flow up into a band's rows while it runs; one
// long band for the far rows does better there than the bands by height
// (the measurements in the comment on lazyLevels). The choice depends on
// the input only.
func (m *RefreshMap) startInside(v int, tau float64) {
	T, k := m.period, float64(m.k)
	var sums [lazyMaxWindows + 1]float64
	cnt, end := 0, v
	t, sw := tau, 0.0
	for vv := v; cnt < lazyMaxWindows; vv++ {
		w := m.windowLen(vv)
		if t+w > T {
			break
		}
		t += w
		if w > 0 {
			sw += w
			cnt++
			sums[cnt] = sw
		}
		end = vv + 1
		if cnt == lazyMaxWindows {
			break
		}
	}
	if cnt < 4 {
		return
	}
	// Work per window of the convolution: about k + 17√W per row; of the
	// run's: about 17√ΣW per far row. A far row starts at about
	// ΣW + 9√ΣW (the Poisson tail at Tol·10⁻⁶).
	// The far rows end below the top rows kept in the water (at most
	// the tail below the largest run's budget).
	top := m.hi
	{
		var tail float64
		for top > m.lo && tail+m.water[top-1] < lazyTailWindows*lazyMaxWindows*m.trimEps {
			tail += m.water[top-1]
			top--
		}
	}
	hi := float64(top)
	best, bestGain := 0, 0.0
	for n := 4; n <= cnt; n *= 2 {
		s := sums[n]
		far := hi - (s + 9*math.Sqrt(s) + 1)
		if far < lazyMinRows {
			break
		}
		gain := far * (float64(n)*(k+17*math.Sqrt(s/float64(n))) - 17*math.Sqrt(s))
		if gain > bestGain {
			best, bestGain = n, gain
		}
	}
	if best == 0 {
		return
	}
	s := sums[best]
	b := &m.bands[lazyInside]
	lo, pmf := m.cachedPMF(&b.start, s)
	q0 := max(lo+len(pmf), m.lo)
	// The top rows stay in the water, so that its top is trimmed window
	// by window as without the run (trimWater drops at most trimEps a
	// window, far less than the mass left above the far rows).
	hiLazy := m.hi
	{
		var tail float64
		for hiLazy > q0 && tail+m.water[hiLazy-1] < lazyTailWindows*float64(best)*m.trimEps {
			tail += m.water[hiLazy-1]
			hiLazy--
		}
	}
	if q0 >= hiLazy {
		return
	}
	// The run ends before the window after its best-th nonzero one.
	n := 0
	for vv := v; ; vv++ {
		if m.windowLen(vv) > 0 {
			n++
		}
		if n == best {
			end = vv + 1
			break
		}
	}
	m.setAside(b, q0, hiLazy, end)
	m.lzStarts[lazyInside]++
}

// startBand starts band b for a run of n windows from window v (starting
// at tau) with the water's rows from its q₀ up to upper, or to held plus
// its kernel's width when a longer band is running, if they are worth
// it: its convolution costs less than lazyGain times the windows' it
// replaces, one a row in a window.
func (m *RefreshMap) startBand(b *lazyBand, n, v int, tau, one float64, upper, held int) (int, bool) {
	s, end, ok := m.runAhead(v, tau, n)
	if !ok {
		return 0, false
	}
	// A first look with the law's estimated extent, q₀ ≳ s + 8√s (the
	// support reaches about 8.5√s above s), before the law itself is
	// computed.
	saved := float64(n) * one // per row
	if rows, w := float64(min(m.hi, upper)-max(int(s+8*math.Sqrt(s)), m.lo)), poissonWidth(s); rows <= 0 || (rows+w)*w >= lazyGain*rows*saved {
		return 0, false
	}
	pLo, pmf := m.cachedPMF(&b.start, s)
	q0 := max(pLo+len(pmf), m.lo)
	hi := m.hi
	// Above a band still running the water holds only what spread up
	// from below since it started: what this band's own end spread up
	// (within its kernel's width) and rounding dust.
	hi = min(hi, upper)
	if held < math.MaxInt {
		hi = min(hi, held+len(pmf))
	}
	// Rows at most negl in runs of a kernel's length are skipped by the
	// convolutions (convolveAddGaps): count the others.
	negl := m.lazyNegl(hi - q0)
	for hi > q0 && m.water[hi-1] <= negl {
		hi--
	}
	for q0 < hi && m.water[q0] <= negl {
		q0++
	}
	if hi <= q0 {
		return 0, false
	}
	width := float64(len(pmf))
	if (float64(hi-q0)+width)*width >= lazyGain*float64(hi-q0)*saved {
		return 0, false // not even with every row counted
	}
	rows := 0
	for _, x := range m.water[q0:hi] {
		if x > negl {
			rows++
		}
	}
	if (float64(rows)+width)*width >= lazyGain*float64(rows)*saved {
		return 0, false
	}
	m.setAside(b, q0, hi, end)
	return q0, true
}

// setAside moves the water's rows [q0, hi) into band b, for the run that
// ends before window end. The band's mass and first moment feed the node
// means alone (lazyWindow), so a board-only map, which has no nodes, leaves
// them at 0: two chains of dependent adds over every row set aside (8% of
// a board-only map at k = 5, λ = 0.995).
func (m *RefreshMap) setAside(b *lazyBand, q0, hi, end int) {
	b.rows = grow(b.rows, hi-q0)
	copy(b.rows, m.water[q0:hi])
	clear(m.water[q0:hi])
	m.zeroed(q0, hi)
	b.on, b.lo, b.end = true, q0, end
	b.mass, b.first, b.time, b.arr = 0, 0, 0, 0
	if m.nodes() > 0 {
		for i, x := range b.rows {
			b.mass += x
			b.first += float64(q0+i) * x
		}
	}
	m.lzActive++
}

// lazyNegl is the mass below which a row in a run of a kernel's length
// is dropped from a convolution of rows rows (convolveAddGaps): at most
// trimEps·10⁻⁶ in all, counted as truncation.
func (m *RefreshMap) lazyNegl(rows int) float64 {
	return m.trimEps * 1e-6 / float64(max(rows, 1))
}

// lazyWindow accounts one full window piece pl to the running bands: the
// node means of their rows (E[q(u)] = q + k u/W − u) and what they owe.
func (m *RefreshMap) lazyWindow(pl *winPlan, nodes int, nodeMean *[64]float64) {
	k := float64(m.k)
	drift := k/pl.w - 1
	for j := range m.bands {
		b := &m.bands[j]
		if !b.on {
			continue
		}
		for i := 0; i < nodes; i++ {
			nodeMean[i] += b.first + b.mass*drift*pl.nodeU[i]
		}
		b.first += b.mass * (k - pl.l) // a full window: k arrivals
		b.time += pl.l
		b.arr += m.k
	}
}

// flushLazy returns to the water, at window v, every band whose run ends
// there (all of them at the cut window): its rows convolved with the
// run's kernel, q → q + arrivals − Pois(service time).
func (m *RefreshMap) flushLazy(v int, cut bool) {
	for j := range m.bands {
		b := &m.bands[j]
		if !b.on || !(cut || v >= b.end) {
			continue
		}
		b.on = false
		m.lzActive--
		lo, pmf := m.cachedPMF(&b.out, b.time)
		// Row q goes to q + arr − (lo + t) for pmf[t]: the kernel
		// reversed is pmf read from the top, offset arr − lo −
		// (len(pmf) − 1).
		base := b.lo + b.arr - lo - (len(pmf) - 1)
		top := base + len(b.rows) + len(pmf) - 1
		m.ensure(top)
		if m.rowErr {
			return
		}
		m.wrote(base, top)
		// convolveAdd wants the kernel g with dst[i] += Σ g[t] x[i−t]
		// given g reversed; here g[t] = pmf[len−1−t] (shift −d), so
		// grev = pmf.
		if j == lazyInside {
			convolveAdd(m.water[base:top], b.rows, pmf)
		} else {
			dropped, _, _ := convolveAddGaps(m.water[base:top], b.rows, pmf, m.lazyNegl(len(b.rows)), 0, 0)
			m.trunc += dropped
		}
		if m.hi == m.lo {
			m.lo = base
		}
		m.lo = min(m.lo, base)
		m.hi = max(m.hi, top)
	}
}
