package meanfield

import "herd/internal/pool"

// The drain law by kernels (two phases or one). Within an interval of
// length Δ the drain is translation-invariant in the completions d: a
// server that never empties moves from (d, l) to (d + e, j) with the same
// probability K_lj(Δ; e) whatever d, and rows never move down. So the
// interval's Poisson sum Σ_n Pois(Λ_d Δ; n)·Mⁿ G_i (drainPhase's steps) is
// the convolution of G_i with the kernel
//
//	K_lj(e) = Σ_n Pois(Λ_d Δ; n)·(Mⁿ δ_(0, l))(e, j),
//
// and the steps' part of the integral, Σ_{n<end} P(Pois > n)·Σ_d cf(d)·
// Σ_j (Mⁿ G_i)(d, j), is Σ_d cf(d)·(Σ_l G_i(·, l) ⊛ KI_l)(d) with
//
//	KI_l(e) = Σ_{n<end} P(Pois(Λ_d Δ) > n)·Σ_j (Mⁿ δ_(0, l))(e, j).
//
// The kernels mix the cached steps Mⁿ δ_(0, l) (phaseSteps, rows e ≤ n)
// with the interval's Poisson weights, end + 1 rows (end the interval's
// last Poisson term); the law of each phase i is then P² convolutions (P
// more for the integral) of its rows, at convolveAdd's speed, instead of
// end passes of the step (at h2:10, k = 5, λ = 0.9 near its edge: about
// 565 rows a phase, E = 48; a board-only map 37.5 → 30.5 ms). An interval
// the cache cannot hold (phaseSteps' bound) is stepped. Rows that reach D (the absorbed cell of the
// stepped law) are added to the absorbed cell after the convolution:
// rows only rise, so a row beyond D − 1 never comes back below it. The
// trimming of drainMove is applied once, to the interval's result, with
// the same weights, row bound and budgets.
//
// It computes what drainInterval computes, in another order of sums: the
// two agree to rounding (TestDrainKernel). With P phases the convolutions
// cost P³ per row and kernel term against the steps' P per row and step,
// so only P ≤ 2 takes it (h2, and any law of two phases).

// drainKernelMaxPhases is the most phases for which drainInterval takes
// the kernels.
const drainKernelMaxPhases = 2

// drainKern is the scratch of the kernels: the kernels, reversed for
// convolveAdd, kern[(l*P+j)*E:] and ki[l*E:], E = end + 1, and per phase
// i the columns of its convolutions. They are built from the drain's cache
// of the stepped single-row laws Mⁿ δ_(0, l) (phaseSteps, the completion
// chain of the high rows' kernels, at the same rate Λ_d).
type drainKern struct {
	kern, ki  []float64
	k         []float64   // a kernel before it is reversed: k[e*P+j]
	cols      [][]float64 // per phase i: P input columns, P output columns and the integral's
	noKernel  bool        // test knob: drainInterval steps (drainPhase) as before
	intervals int         // intervals drained by kernels (tests)
}

// drainKernels builds K and, with integ, KI for the interval's Poisson law
// pmf on [lo0, …) with tails tail (drainIntervals) from m.dr.steps, which
// must hold its end + 1 steps, and returns E = end + 1.
func (m *phaseMap) drainKernels(lo0 int, pmf, tail []float64, integ bool) int {
	dk := &m.dr.kern
	P := m.P
	h := m.dr.steps.h
	end := lo0 + len(pmf) - 1
	E := end + 1
	dk.kern = grow(dk.kern, P*P*E)
	if integ {
		dk.ki = grow(dk.ki, P*E)
	}
	for l := 0; l < P; l++ {
		dk.k = grow(dk.k, E*P)
		for n := lo0; n <= end; n++ {
			o := stepsOff(n, P) + l*(n+1)*P
			axpy(dk.k[:(n+1)*P], pmf[n-lo0], h[o:o+(n+1)*P])
		}
		for e := 0; e < E; e++ {
			for j := 0; j < P; j++ {
				dk.kern[(l*P+j)*E+E-1-e] = dk.k[e*P+j]
			}
		}
		if !integ {
			continue
		}
		dk.k = grow(dk.k, E*P)
		for n := 0; n < end; n++ {
			wl := 1.0
			if n >= lo0 {
				wl = tail[n-lo0]
			}
			o := stepsOff(n, P) + l*(n+1)*P
			axpy(dk.k[:(n+1)*P], wl, h[o:o+(n+1)*P])
		}
		for e := 0; e < E; e++ {
			dk.ki[l*E+E-1-e] = sumSlice(dk.k[e*P : (e+1)*P])
		}
	}
	return E
}

// drainIntervalKernel is drainInterval by kernels (the comment above), for
// the interval whose Poisson law is pmf on [lo0, …) with tails tail, the
// carried law on rows rows in all; drainInterval has set the trimming
// weights and, with integ, the integral's.
func (m *phaseMap) drainIntervalKernel(lo0 int, pmf, tail []float64, rows int, integ bool) {
	dr := &m.dr
	P := m.P
	E := m.drainKernels(lo0, pmf, tail, integ)
	dr.kern.intervals++

	if len(dr.kern.cols) < P*(2*P+1) {
		dr.kern.cols = make([][]float64, P*(2*P+1))
	}
	var f [drainKernelMaxPhases]float64
	if P > 1 && E*rows*P >= drainParWork {
		pool.Fork(func() { f[0] = m.drainPhaseKernel(0, E, integ) },
			func() { f[1] = m.drainPhaseKernel(1, E, integ) })
	} else {
		for i := 0; i < P; i++ {
			f[i] = m.drainPhaseKernel(i, E, integ)
		}
	}
	for i := 0; i < P; i++ {
		dr.integral += f[i]
	}
	dr.cur, dr.acc = dr.acc, dr.cur
}

// drainPhaseKernel carries G_i over the interval whose kernels
// drainKernels built (E terms): the result into phase i's rows of acc,
// its rows and absorbed cell into rlo, rhi and abs. It returns the
// interval's part of the integral of phase i (0 without integ).
func (m *phaseMap) drainPhaseKernel(i, E int, integ bool) (f float64) {
	dr := &m.dr
	dk := &dr.kern
	P, D := m.P, m.top
	gsz := D * P
	cur, acc := dr.cur[i*gsz:(i+1)*gsz], dr.acc[i*gsz:(i+1)*gsz]
	lo, hi := dr.rlo[i], dr.rhi[i]
	R := hi - lo
	L := R + E - 1
	cols := dk.cols[i*(2*P+1) : (i+1)*(2*P+1)]
	for c := range cols {
		n := R
		if c >= P {
			n = L
		}
		if c == 2*P && !integ {
			break // the integral's column, not used
		}
		cols[c] = grow(cols[c], n)
	}
	for l := 0; l < P; l++ {
		x := cols[l]
		for t := range x {
			x[t] = cur[(lo+t)*P+l]
		}
	}
	for j := 0; j < P; j++ {
		y := cols[P+j]
		for l := 0; l < P; l++ {
			convolveAdd(y, cols[l], dk.kern[(l*P+j)*E:(l*P+j+1)*E])
		}
	}
	// Rows [lo, min(lo + L, D)) stay, the rest is absorbed.
	top := min(lo+L, D)
	abs := dr.abs[i]
	for t := top - lo; t < L; t++ {
		for j := 0; j < P; j++ {
			abs += cols[P+j][t]
		}
	}
	for t := 0; t < top-lo; t++ {
		for j := 0; j < P; j++ {
			acc[(lo+t)*P+j] = cols[P+j][t]
		}
	}
	if integ {
		z := cols[2*P]
		for l := 0; l < P; l++ {
			convolveAdd(z, cols[l], dk.ki[l*E:(l+1)*E])
		}
		cf := dr.cf[i*D : (i+1)*D]
		for t := 0; t < top-lo; t++ {
			f += cf[lo+t] * z[t]
		}
	}
	// Trim as drainMove does, once.
	r := drainRun{lo: lo, hi: top, cutLow: dr.cutLow[i], cutHigh: dr.cutHigh[i], wDrain: dr.wDrain[i]}
	m.drainTrim(&r, acc)
	dr.rlo[i], dr.rhi[i] = r.lo, r.hi
	dr.abs[i] = abs
	dr.cutLow[i], dr.cutHigh[i] = r.cutLow, r.cutHigh
	return f
}
