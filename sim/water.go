package sim

// domain is the block of servers one or more dispatchers choose from: all
// servers, or one dispatcher's block when partitioned. At each refresh its
// servers are sorted by board value (a counting sort), so that a water
// level can take in a whole board class at once.
type domain struct {
	lo, hi     int32   // servers [lo, hi)
	order      []int32 // the domain's servers by board value
	start      []int32 // class v is order[start[v-minB]:start[v-minB+1]]
	minB, maxB int32
}

func (d *domain) size() int { return int(d.hi - d.lo) }

// sortByBoard rebuilds the classes from the board.
func (d *domain) sortByBoard(board []int32) {
	b := board[d.lo:d.hi]
	lo, hi := b[0], b[0]
	for _, v := range b {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	d.minB, d.maxB = lo, hi
	width := int(hi-lo) + 2
	if cap(d.start) < width {
		d.start = make([]int32, width)
	}
	d.start = d.start[:width]
	clear(d.start)
	for _, v := range b {
		d.start[v-lo+1]++
	}
	for i := 1; i < width; i++ {
		d.start[i] += d.start[i-1]
	}
	if cap(d.order) < len(b) {
		d.order = make([]int32, len(b))
	}
	d.order = d.order[:len(b)]
	// Place servers with a moving cursor per class; start is restored after.
	for i, v := range b {
		c := v - lo
		d.order[d.start[c]] = d.lo + int32(i)
		d.start[c]++
	}
	for i := width - 1; i > 0; i-- {
		d.start[i] = d.start[i-1]
	}
	d.start[0] = 0
}

// class returns the servers whose board value is v.
func (d *domain) class(v int32) []int32 {
	if v < d.minB || v > d.maxB {
		return nil
	}
	c := v - d.minB
	return d.order[d.start[c]:d.start[c+1]]
}

// water is least loaded with a tally, as a water level (the package doc):
// the effective value of a server is its board value plus the jobs this
// group sent it since the refresh. All servers at the current level are
// candidates; a pick is uniform among them and (with a tally) raises the
// chosen server one level. When the level is used up it rises by one and
// takes in the board class of the new level. Each job costs O(1), and each
// pass over a level visits its servers in uniformly random order.
//
// Without a tally (raise false) the level never moves: every job goes to a
// uniform server among those with the smallest board value.
//
// With a scaled tally (step k > 1) a pick raises the server k levels: the
// servers waiting for level L + k sit in up[L mod k] while the level is L,
// and join the candidates when the level reaches L + k.
type water struct {
	cur, next []int32
	level     int32
	raise     bool
	dom       *domain
	step      int32     // levels a pick raises a server; 0 or 1: one
	up        [][]int32 // with step > 1: servers raised, by level mod step
}

func (w *water) reset() {
	d := w.dom
	w.level = d.minB
	w.cur = append(w.cur[:0], d.class(d.minB)...)
	w.next = w.next[:0]
	for i := range w.up {
		w.up[i] = w.up[i][:0]
	}
}

// advance raises the level until some server is a candidate.
func (w *water) advance() {
	for len(w.cur) == 0 {
		w.level++
		if w.step <= 1 {
			w.cur, w.next = w.next, w.cur[:0]
		} else {
			slot := w.level % w.step
			w.cur, w.up[slot] = w.up[slot], w.cur[:0]
		}
		w.cur = append(w.cur, w.dom.class(w.level)...)
	}
}

func (w *water) pick(g *rng) int32 {
	if len(w.cur) == 0 {
		w.advance()
	}
	n := len(w.cur)
	i := 0
	if n > 1 {
		i = int(g.Uint64N(uint64(n)))
	}
	s := w.cur[i]
	if w.raise {
		w.cur[i] = w.cur[n-1]
		w.cur = w.cur[:n-1]
		if w.step <= 1 {
			w.next = append(w.next, s)
		} else {
			slot := w.level % w.step
			w.up[slot] = append(w.up[slot], s)
		}
	}
	return s
}
