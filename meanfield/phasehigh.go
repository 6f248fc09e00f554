package meanfield

// phaseSteps caches the uniformised completion chain of a server that never
// empties, at the drain's rate Λ_d = max_i out_i: h_n = Mⁿe_i for
// n = 0, 1, …, untruncated (rows d ≤ n), and the mean completions
// E_n(i) = Σ_d d Σ_j h_n(i; d, j). It depends on the service law only, so a
// map keeps it across windows and applications; planHighCached mixes it
// with Poisson weights into the completion law of any window,
// H_i(l; d, j) = Σ_n Pois(Λ_d l; n)·h_n(i; d, j), instead of stepping the
// chain anew for each window length, and drainKernels the drain's kernels
// the same way (phasedrainkernel.go).
type phaseSteps struct {
	n    int       // steps held: h_0 … h_{n−1}
	h    []float64 // h_n at offset P²·n(n+1)/2, layout i*(n+1)*P + d*P + j
	mean []float64 // mean[n*P + i] = E_n(i)
}

// maxPhaseSteps bounds the cache (float64 values); a window needing more
// falls back to stepping the chain at the plan's rate (planHigh).
const maxPhaseSteps = 1 << 21

// stepsOff returns the offset of h_n.
func stepsOff(n, P int) int { return P * P * n * (n + 1) / 2 }

// extend makes h_0 … h_N available; false if that would pass the bound.
func (c *phaseSteps) extend(ph *phaseType, N, limit int) bool {
	P := ph.n
	if N < c.n {
		return true
	}
	if stepsOff(N+1, P) > limit {
		return false
	}
	if c.n == 0 {
		c.h = append(c.h[:0], make([]float64, P*P)...)
		for i := 0; i < P; i++ {
			c.h[i*P+i] = 1 // h_0: no completion, phase i
		}
		c.mean = append(c.mean[:0], make([]float64, P)...)
		c.n = 1
	}
	inv := 1 / ph.max
	for ; c.n <= N; c.n++ {
		n := c.n // build h_n from h_{n−1}
		prevOff := stepsOff(n-1, P)
		c.h = append(c.h, make([]float64, P*(n+1)*P)...)
		c.mean = append(c.mean, make([]float64, P)...)
		hp := c.h[prevOff : prevOff+P*n*P]
		hn := c.h[stepsOff(n, P):]
		for i := 0; i < P; i++ {
			src := hp[i*n*P : (i+1)*n*P]
			dst := hn[i*(n+1)*P : (i+1)*(n+1)*P]
			var prev, mean float64
			for d := 0; d <= n; d++ {
				var comp, s float64
				nrow := dst[d*P : d*P+P]
				for j := range nrow {
					var y float64
					if d < n {
						y = src[d*P+j]
					}
					comp += ph.exit[j] * y
					nrow[j] = (1-ph.out[j]*inv)*y + ph.alpha[j]*prev
				}
				if d < n {
					for _, mv := range ph.moves {
						nrow[mv.to] += mv.rate * inv * src[d*P+mv.from]
					}
				}
				for _, y := range nrow {
					s += y
				}
				mean += float64(d) * s
				prev = comp * inv
			}
			c.mean[n*P+i] = mean
		}
	}
	return true
}

// planHighCached is planHigh from the cached steps: H_i(l; d, j) and the
// node means E[N_i(u)] as Poisson mixtures at rate Λ_d, the Poisson
// weights cut where each omitted tail is below pmfEps (normalised). It
// returns false when the steps would pass m.stepsCap (maxPhaseSteps; planHigh
// then steps the chain itself).
func (m *phaseMap) planHighCached(pl *phasePlan) bool {
	P := m.P
	lamD := m.ph.max
	lo, pmf := poissonPMF(pl.pbuf, lamD*pl.l, m.pmfEps)
	pl.pbuf = pmf
	N := lo + len(pmf) // rows d < N
	// The node weights' supports end below N (u ≤ l) but may reach one
	// step further where the cut rounds differently: allow a margin.
	if !m.steps0.extend(&m.ph, N+8, m.stepsCap) {
		return false
	}
	c := &m.steps0
	m.hacc = grow(m.hacc, P*N*P)
	hacc := m.hacc
	for t, pw := range pmf {
		n := lo + t
		hn := c.h[stepsOff(n, P):]
		for i := 0; i < P; i++ {
			src := hn[i*(n+1)*P : (i+1)*(n+1)*P]
			dst := hacc[i*N*P : i*N*P+len(src)]
			for x, y := range src {
				dst[x] += pw * y
			}
		}
	}
	nodes := pl.nodes
	pl.nodeN = grow(pl.nodeN, nodes*P)
	for node, xg := range m.glx[:nodes] {
		lo, pmf := poissonPMF(pl.pbuf, lamD*xg*pl.l, m.pmfEps)
		pl.pbuf = pmf
		if !c.extend(&m.ph, lo+len(pmf), m.stepsCap) {
			return false
		}
		for t, pw := range pmf {
			for i := 0; i < P; i++ {
				pl.nodeN[node*P+i] += pw * c.mean[(lo+t)*P+i]
			}
		}
	}
	m.planKernel(pl, N)
	return true
}
