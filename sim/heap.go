package sim

// event is a departure (or a server's next-free time for the oracle).
type event struct {
	t float64
	s int32
}

// eventHeap is a binary min-heap on t, typed so that pushes and pops do not
// allocate or box (container/heap's invariant: h[i].t ≤ h[2i+1].t, h[2i+2].t).
// Ties are broken by server index so that the order never depends on
// anything but the simulated history.
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].s < h[j].s
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	*h = a
	a.down(0)
	return top
}

// fix restores the heap after a[0].t increased.
func (h eventHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
