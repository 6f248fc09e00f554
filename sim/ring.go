package sim

// ring holds one server's departure times in FCFS order: the queue length
// at time t is the number of departures after t (the package doc's The
// method).
// Departures at one server are non-decreasing, so expired ones leave from
// the head. Capacity is a power of two; it grows with the jobs in system,
// never with the horizon.
type ring struct {
	buf  []float64
	head int32
	n    int32
}

func (r *ring) push(t float64) {
	if int(r.n) == len(r.buf) {
		r.grow()
	}
	r.buf[(int(r.head)+int(r.n))&(len(r.buf)-1)] = t
	r.n++
}

func (r *ring) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 8
	}
	buf := make([]float64, size)
	for i := 0; i < int(r.n); i++ {
		buf[i] = r.buf[(int(r.head)+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

// count drops departures at or before t and returns the jobs left.
func (r *ring) count(t float64) int32 {
	if r.n == 0 {
		return 0
	}
	mask := int32(len(r.buf) - 1)
	for r.n > 0 && r.buf[r.head] <= t {
		r.head = (r.head + 1) & mask
		r.n--
	}
	return r.n
}
