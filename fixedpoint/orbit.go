package fixedpoint

import "math"

// Orbit keeps the last MaxPeriod+1 points of an iteration x_0, x_1, … and
// classifies where it is heading: the smallest period P at which the
// newest point closes up, ‖x_n − x_{n−P}‖ ≤ tol. The distance is the
// caller's (for example L1 for probability vectors, with the shorter
// padded with zeros, so that the points may change length from map to
// map, as truncated distributions do): meanfield's attractor searches use
// the L1 distance of boards.
type Orbit struct {
	ring [][]float64 // ring[i%len] = x_i
	n    int         // index of the newest point
	dist []float64   // dist[d] = ‖x_n − x_{n−d}‖ from the last Period
	norm func(a, b []float64) float64
}

// NewOrbit returns an Orbit of the start point x0 (kept, not copied) that
// detects periods up to maxPeriod ≥ 0, with the distance norm.
func NewOrbit(maxPeriod int, x0 []float64, norm func(a, b []float64) float64) *Orbit {
	o := &Orbit{ring: make([][]float64, maxPeriod+1), dist: make([]float64, maxPeriod+1), norm: norm}
	o.ring[0] = x0
	return o
}

// MaxPeriod returns the largest period detected.
func (o *Orbit) MaxPeriod() int { return len(o.ring) - 1 }

// Len returns the index n of the newest point x_n.
func (o *Orbit) Len() int { return o.n }

// Spare returns the storage of the point the next Push drops, for the
// caller to reuse for the new point, or nil while the orbit is filling.
func (o *Orbit) Spare() []float64 {
	if o.n < o.MaxPeriod() {
		return nil
	}
	return o.ring[(o.n+1)%len(o.ring)]
}

// Push appends x_{n+1} (kept, not copied).
func (o *Orbit) Push(x []float64) {
	o.n++
	o.ring[o.n%len(o.ring)] = x
}

// Back returns x_{n−d}, 0 ≤ d ≤ min(MaxPeriod, n).
func (o *Orbit) Back(d int) []float64 { return o.ring[(o.n-d)%len(o.ring)] }

// Period returns the smallest period d in [minPeriod, min(MaxPeriod, n)]
// at which the newest point closes up, ‖x_n − x_{n−d}‖ ≤ tol, with the
// orbit's points at least sep apart (every distance ‖x_n − x_{n−e}‖,
// 1 ≤ e < d, at least sep), so that a fixed point approached with a
// multiplier near −1 does not pass for a 2-cycle; or 0. The distances it
// computed are kept for Distance.
func (o *Orbit) Period(tol, sep float64, minPeriod int) int {
	newest := o.ring[o.n%len(o.ring)]
	minSep := math.Inf(1)
	for d := 1; d <= min(o.MaxPeriod(), o.n); d++ {
		o.dist[d] = o.norm(newest, o.Back(d))
		if d >= minPeriod && o.dist[d] <= tol && (d == 1 || minSep >= sep) {
			return d
		}
		minSep = min(minSep, o.dist[d])
	}
	return 0
}

// Distance returns ‖x_n − x_{n−d}‖ as the last Period computed it.
func (o *Orbit) Distance(d int) float64 { return o.dist[d] }

// NearPeriod returns the d in [1, min(maxPeriod, MaxPeriod, n)]
// minimising ‖x_n − x_{n−d}‖ and that distance (0 and +Inf when the range
// is empty): the nearest return of an orbit that does not close up.
func (o *Orbit) NearPeriod(maxPeriod int) (int, float64) {
	best, dist := 0, math.Inf(1)
	for d := 1; d <= min(maxPeriod, o.MaxPeriod(), o.n); d++ {
		if dd := o.norm(o.Back(0), o.Back(d)); dd < dist {
			best, dist = d, dd
		}
	}
	return best, dist
}
