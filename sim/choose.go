package sim

// choose returns the server dispatcher d sends a job arriving at time t to.
func (r *runner) choose(d int, t float64) int32 {
	dom := &r.doms[r.domOf[d]]
	switch r.c.Policy.Kind {
	case Random:
		return dom.lo + int32(r.rng.Uint64N(uint64(dom.size())))
	case RoundRobin:
		i := r.rr[d]
		if i+1 == int32(dom.size()) {
			r.rr[d] = 0
		} else {
			r.rr[d] = i + 1
		}
		return dom.lo + i
	case LeastLoaded:
		if r.q != nil {
			return r.liveLeast(r.domOf[d], t)
		}
		return r.waters[r.waterOf[d]].pick(r.rng)
	case BestOfD:
		return r.bestOfD(d, dom, t)
	case Left:
		return r.left(d, dom, t)
	case FirstDiff:
		return r.firstDiff(d, dom, t)
	case Oracle:
		return r.oracle(r.domOf[d], t)
	}
	panic("sim: unreachable policy")
}

// value is what dispatcher d reads for server s at time t: the live queue,
// or the board plus the dispatcher's tally.
func (r *runner) value(d int, s int32, t float64) int32 {
	if r.live {
		return r.rings[s].count(t)
	}
	v := r.board[s]
	if g := r.tallyOf[d]; g >= 0 {
		v += r.tallies[g][s]
	}
	return v
}

// sent adds a job from dispatcher d to the tally of server s.
func (r *runner) sent(d int, s int32) int32 {
	if g := r.tallyOf[d]; g >= 0 {
		r.tallies[g][s]++
	}
	return s
}

func (r *runner) uniform(dom *domain) int32 {
	return dom.lo + int32(r.rng.Uint64N(uint64(dom.size())))
}

// bestOfD probes D servers — distinct, or independent with replacement —
// and takes the smallest value. Probes come in uniformly random order, so
// taking the first smallest is a uniform choice among tied probes.
func (r *runner) bestOfD(d int, dom *domain, t float64) int32 {
	D := r.c.Policy.D
	r.probes += int64(D)
	m := uint64(dom.size())
	if D == 2 && !r.c.Policy.WithReplacement {
		a := r.rng.Uint64N(m)
		b := r.rng.Uint64N(m - 1)
		if b >= a {
			b++
		}
		sa, sb := dom.lo+int32(a), dom.lo+int32(b)
		if r.value(d, sb, t) < r.value(d, sa, t) {
			return r.sent(d, sb)
		}
		return r.sent(d, sa)
	}
	// Distinct probes: a short list for D ≤ 16, epoch marks beyond.
	var seen [16]int32
	useMarks := D > len(seen) && !r.c.Policy.WithReplacement
	if useMarks && r.mark == nil {
		r.mark = make([]uint32, r.n)
	}
	if useMarks {
		if r.epoch++; r.epoch == 0 { // wrapped: old marks could match
			clear(r.mark)
			r.epoch = 1
		}
	}
	best := int32(-1)
	var bestV int32
	for i := 0; i < D; i++ {
		var s int32
	draw:
		for {
			s = dom.lo + int32(r.rng.Uint64N(m))
			switch {
			case r.c.Policy.WithReplacement:
			case useMarks:
				if r.mark[s] == r.epoch {
					continue draw
				}
				r.mark[s] = r.epoch
			default:
				for _, x := range seen[:i] {
					if x == s {
						continue draw
					}
				}
				seen[i] = s
			}
			break
		}
		v := r.value(d, s, t)
		if best < 0 || v < bestV {
			best, bestV = s, v
		}
	}
	return r.sent(d, best)
}

// left is Vöcking's Left[D]: the domain splits into D contiguous groups of
// nearly equal size; one uniform probe per group; the smallest value, ties
// to the leftmost group (Vöcking, "How asymmetry helps load balancing",
// J. ACM 50(4), 2003).
func (r *runner) left(d int, dom *domain, t float64) int32 {
	D := r.c.Policy.D
	r.probes += int64(D)
	m := dom.size()
	best := int32(-1)
	var bestV int32
	for g := 0; g < D; g++ {
		lo, hi := g*m/D, (g+1)*m/D
		s := dom.lo + int32(lo) + int32(r.rng.Uint64N(uint64(hi-lo)))
		v := r.value(d, s, t)
		if best < 0 || v < bestV {
			best, bestV = s, v
		}
	}
	return r.sent(d, best)
}

// firstDiff is FirstDiff[D] (Augustine, Moses, Redlich & Upfal, "Balanced
// allocation: patience is not a virtue", SODA 2016): probe uniform servers
// one at a time until one reads a value different from the first probe's,
// then send to the smaller of those two. If every probe reads the same
// value, the job goes to the first probe.
//
// The cap. The paper shows an average of at most D probes per ball; herd
// makes that bound explicit and exact with a probe allowance: each
// dispatcher earns D probes per job, a job always makes its first probe
// and makes another only while its dispatcher's allowance covers it, and
// never more than Config.FirstDiffCap probes (default: the servers it may
// probe). So over any run the mean is at most D probes per job, and
// Result.ProbesMean reports what was used.
func (r *runner) firstDiff(d int, dom *domain, t float64) int32 {
	r.credit[d] += r.c.Policy.D
	first := r.uniform(dom)
	v0 := r.value(d, first, t)
	p := 1
	for p < r.fdCap && r.credit[d]-p >= 1 {
		s := r.uniform(dom)
		p++
		if v := r.value(d, s, t); v != v0 {
			r.credit[d] -= p
			r.probes += int64(p)
			if v < v0 {
				return r.sent(d, s)
			}
			return r.sent(d, first)
		}
	}
	r.credit[d] -= p
	r.probes += int64(p)
	return r.sent(d, first)
}

// liveLeast takes a uniform server among those with the fewest jobs now.
func (r *runner) liveLeast(di int, t float64) int32 {
	r.drainLive(t)
	lists := r.lists[di]
	m := r.minQ[di]
	for len(lists[m]) == 0 {
		m++
	}
	r.minQ[di] = m
	l := lists[m]
	if len(l) == 1 {
		return l[0]
	}
	return l[r.rng.Uint64N(uint64(len(l)))]
}

// oracle takes the server with the least remaining work now: a uniform idle
// server if there is one, else the one whose last departure is earliest.
func (r *runner) oracle(di int, t float64) int32 {
	h := &r.busy[di]
	for len(*h) > 0 && (*h)[0].t <= t {
		e := h.pop()
		r.idle[di] = append(r.idle[di], e.s)
	}
	if l := r.idle[di]; len(l) > 0 {
		i := int(r.rng.Uint64N(uint64(len(l))))
		s := l[i]
		l[i] = l[len(l)-1]
		r.idle[di] = l[:len(l)-1]
		r.oracleNew = true
		return s
	}
	r.oracleNew = false
	return (*h)[0].s
}

// oracleAssigned updates the oracle's heap after server s took a job.
func (r *runner) oracleAssigned(d int, s int32) {
	di := r.domOf[d]
	h := &r.busy[di]
	if r.oracleNew {
		h.push(event{r.last[s], s})
		return
	}
	(*h)[0].t = r.last[s]
	h.down(0)
}
