package sim

import (
	"math/bits"

	"herd/fleet"
)

// Specialised arrival loops. arriveGeneric serves every rule through
// choose and addDeparture, whose switches and calls cost more than the
// work of a job on the two commonest workloads: least loaded on a stale
// board (the water level; every edge bracket and most figures) and live
// best of two. Their loops below do exactly what arriveGeneric does, with
// the same random draws in the same order, so results are bit-identical;
// the random number generator's common cases (ExpFloat64's rectangle,
// Uint64N's single draw) are written out here because Go's inliner will
// not take them whole. TestFastLoops checks each against arriveGeneric.

// maxProbes is the most servers one job may probe (for the work count
// that paces cancellation checks).
func (r *runner) maxProbes() int {
	switch r.c.Policy.Kind {
	case fleet.BestOfD, fleet.Left:
		return r.c.Policy.D
	case fleet.FirstDiff:
		return r.fdCap
	}
	return 0
}

// arrivalLoop returns the arrival loop for the run's rule.
func (r *runner) arrivalLoop() func(stop float64, limit int64) {
	c := &r.c
	if c.Sizes.Kind != fleet.Exp || noFast {
		return r.arriveGeneric
	}
	switch {
	case r.waters != nil:
		return r.arriveWater
	case r.live && c.Policy.Kind == fleet.BestOfD && c.Policy.D == 2 && !c.Policy.WithReplacement && !c.Partitioned:
		return r.arriveSq2Live
	}
	return r.arriveGeneric
}

// noFast makes every run take arriveGeneric (set by tests).
var noFast bool

// arriveWater is arriveGeneric for least loaded on a stale board (any
// tally, any number of dispatchers, exponential sizes). The generator's
// four words live in locals for the whole loop (xoshiro, below), so that
// they stay in registers rather than go through memory at every draw; they
// go back to r.rng around the rare calls that draw through it.
func (r *runner) arriveWater(stop float64, limit int64) {
	lp := &r.lp
	g := r.rng
	s0, s1, s2, s3 := g.s0, g.s1, g.s2, g.s3
	invRate := r.invRate
	warm := r.c.Warmup
	nextRec := lp.nextRec
	last, waters, waterOf := r.last, r.waters, r.waterOf
	log := r.log
	k := uint64(r.k)
	t, sum, jobs, arrivals := lp.next, lp.sum, lp.jobs, lp.arrivals
	hist := lp.hist
	end := arrivals + limit
	var u uint64
	for t < stop && arrivals < end {
		wi := 0
		if k > 1 {
			u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
			hi, lo := bits.Mul64(u, k)
			if lo < k {
				g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
				hi = g.uint64NSlow(hi, lo, k)
				s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
			}
			wi = waterOf[hi]
		}
		w := &waters[wi]
		var s int32
		if w.step > 1 {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			s = w.pick(g)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		} else {
			// water.pick, written out.
			if len(w.cur) == 0 {
				w.advance()
			}
			cur := w.cur
			n := uint64(len(cur))
			var i uint64
			if n > 1 {
				u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
				hi, lo := bits.Mul64(u, n)
				if lo < n {
					g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
					hi = g.uint64NSlow(hi, lo, n)
					s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
				}
				i = hi
			}
			s = cur[i]
			if w.raise {
				cur[i] = cur[n-1]
				w.cur = cur[:n-1]
				w.next = append(w.next, s)
			}
		}
		start := last[s]
		if start < t {
			start = t
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3) // ExpFloat64, written out
		size := float64(uint32(u)) * zigW[uint8(u>>32)]
		if uint32(u) >= zigK[uint8(u>>32)] {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			size = g.expSlow(u)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		dep := start + size
		last[s] = dep
		if dep > nextRec {
			log = append(log, event{dep, s})
		}
		arrivals++
		if t >= warm {
			sum += dep - t
			jobs++
			if hist != nil {
				hist.add(dep - t)
			}
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		gap := float64(uint32(u)) * zigW[uint8(u>>32)]
		if uint32(u) >= zigK[uint8(u>>32)] {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			gap = g.expSlow(u)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		t += gap * invRate
	}
	g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
	r.log = log
	lp.next, lp.sum, lp.jobs, lp.arrivals = t, sum, jobs, arrivals
}

// xoshiro is rng.Uint64 on a state held in four values: it returns the
// draw and the next state.
func xoshiro(s0, s1, s2, s3 uint64) (res, n0, n1, n2, n3 uint64) {
	res = bits.RotateLeft64(s0+s3, 23) + s0
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	s3 = bits.RotateLeft64(s3, 45)
	return res, s0, s1, s2, s3
}

// arriveSq2Live is arriveGeneric for live best of two distinct servers
// (not partitioned, exponential sizes): bestOf's D = 2 case and the rings,
// with the generator's words in locals as in arriveWater.
func (r *runner) arriveSq2Live(stop float64, limit int64) {
	lp := &r.lp
	g := r.rng
	s0, s1, s2, s3 := g.s0, g.s1, g.s2, g.s3
	invRate := r.invRate
	warm := r.c.Warmup
	last, rings := r.last, r.rings
	k := uint64(r.k)
	m := uint64(r.n)
	t, sum, jobs, arrivals := lp.next, lp.sum, lp.jobs, lp.arrivals
	hist := lp.hist
	a0 := arrivals
	end := arrivals + limit
	var u uint64
	for t < stop && arrivals < end {
		if k > 1 {
			// The dispatcher: drawn, but moot on a live shared domain.
			u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
			if _, lo := bits.Mul64(u, k); lo < k {
				g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
				g.uint64NSlow(0, lo, k)
				s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
			}
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		a, lo := bits.Mul64(u, m)
		if lo < m {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			a = g.uint64NSlow(a, lo, m)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		b, lo := bits.Mul64(u, m-1)
		if lo < m-1 {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			b = g.uint64NSlow(b, lo, m-1)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		if b >= a {
			b++
		}
		s := int32(a)
		if rings[b].count(t) < rings[a].count(t) {
			s = int32(b)
		}
		start := last[s]
		if start < t {
			start = t
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3) // ExpFloat64, written out
		size := float64(uint32(u)) * zigW[uint8(u>>32)]
		if uint32(u) >= zigK[uint8(u>>32)] {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			size = g.expSlow(u)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		dep := start + size
		last[s] = dep
		q := &rings[s]
		if int(q.n) == len(q.buf) {
			q.grow()
		}
		q.buf[(int(q.head)+int(q.n))&(len(q.buf)-1)] = dep
		q.n++
		arrivals++
		if t >= warm {
			sum += dep - t
			jobs++
			if hist != nil {
				hist.add(dep - t)
			}
		}
		u, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
		gap := float64(uint32(u)) * zigW[uint8(u>>32)]
		if uint32(u) >= zigK[uint8(u>>32)] {
			g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
			gap = g.expSlow(u)
			s0, s1, s2, s3 = g.s0, g.s1, g.s2, g.s3
		}
		t += gap * invRate
	}
	g.s0, g.s1, g.s2, g.s3 = s0, s1, s2, s3
	r.probes += 2 * (arrivals - a0)
	lp.next, lp.sum, lp.jobs, lp.arrivals = t, sum, jobs, arrivals
}
