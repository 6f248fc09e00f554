package sim

import "herd/fleet"

// choose returns the server dispatcher d sends a job arriving at time t to.
func (r *runner) choose(d int, t float64) int32 {
	dom := &r.doms[r.domOf[d]]
	switch r.c.Policy.Kind {
	case fleet.Random:
		return dom.lo + int32(r.rng.Uint64N(uint64(dom.size())))
	case fleet.RoundRobin:
		i := r.rr[d]
		if i+1 == int32(dom.size()) {
			r.rr[d] = 0
		} else {
			r.rr[d] = i + 1
		}
		return dom.lo + i
	case fleet.LeastLoaded:
		if r.q != nil {
			return r.liveLeast(r.domOf[d], t)
		}
		return r.waters[r.waterOf[d]].pick(r.rng)
	case fleet.BestOfD:
		return r.bestOfD(d, dom, t)
	case fleet.Left:
		return r.left(d, dom, t)
	case fleet.FirstDiff:
		return r.firstDiff(d, dom, t)
	case fleet.Oracle:
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
		r.tallies[g][s] += r.tallyInc
	}
	return s
}

// bestOfD is best of D (sqd:D) for dispatcher d: see bestOf.
func (r *runner) bestOfD(d int, dom *domain, t float64) int32 {
	D := r.c.Policy.D
	r.probes += int64(D)
	useMarks := D > len(probeList{}) && !r.c.Policy.WithReplacement
	if useMarks && r.marks.mark == nil {
		r.marks.mark = make([]uint32, r.n)
	}
	s := bestOf(r.rng, runnerView{r, d, t}, dom.lo, uint64(dom.size()), D, r.c.Policy.WithReplacement, &r.marks)
	return r.sent(d, s)
}

// left is Vöcking's Left[D] for dispatcher d: see leftOf.
func (r *runner) left(d int, dom *domain, t float64) int32 {
	D := r.c.Policy.D
	r.probes += int64(D)
	return r.sent(d, leftOf(r.rng, runnerView{r, d, t}, dom.lo, dom.size(), D))
}

// firstDiff is FirstDiff[D] for dispatcher d, with the dispatcher's own
// probe allowance: see firstDiffOf.
func (r *runner) firstDiff(d int, dom *domain, t float64) int32 {
	s, p := firstDiffOf(r.rng, runnerView{r, d, t}, dom.lo, uint64(dom.size()), r.c.Policy.D, &r.credit[d], r.fdCap)
	r.probes += int64(p)
	return r.sent(d, s)
}

// runnerView is what dispatcher d reads at time t, for the shared rules.
type runnerView struct {
	r *runner
	d int
	t float64
}

func (v runnerView) value(s int32) int32 { return v.r.value(v.d, s, v.t) }

// viewer is what a probing rule reads: one value per server (or bin), the
// smaller the better. The rules below are generic over it so that the
// queueing simulator (runnerView) and balls into bins (loadView) run the
// same code, each instantiation with its own concrete value method.
type viewer interface{ value(s int32) int32 }

// probeList holds the distinct probes drawn so far when D ≤ 16.
type probeList [16]int32

// probeMarks are epoch marks for distinct probes when D > 16: a server
// is taken in the current draw when mark[s] == epoch.
type probeMarks struct {
	mark  []uint32
	epoch uint32
}

// bestOf probes D servers of [lo, lo+m) — distinct, or independent with
// replacement — and returns the one with the smallest value. Probes come
// in uniformly random order, so taking the first smallest is a uniform
// choice among tied probes (counted with multiplicity when drawn with
// replacement). Distinct draws with D > 16 use marks (marks.mark must
// hold an entry per server); the draw order of the random numbers is:
// D == 2 distinct: two draws (the second from m − 1, shifted past the
// first); otherwise one draw per probe, redrawn while it repeats.
func bestOf[V viewer](g *rng, v V, lo int32, m uint64, D int, repl bool, marks *probeMarks) int32 {
	if D == 2 && !repl {
		a := g.Uint64N(m)
		b := g.Uint64N(m - 1)
		if b >= a {
			b++
		}
		sa, sb := lo+int32(a), lo+int32(b)
		if v.value(sb) < v.value(sa) {
			return sb
		}
		return sa
	}
	// Distinct probes: a short list for D ≤ 16, epoch marks beyond.
	var seen probeList
	useMarks := D > len(seen) && !repl
	if useMarks {
		if marks.epoch++; marks.epoch == 0 { // wrapped: old marks could match
			clear(marks.mark)
			marks.epoch = 1
		}
	}
	best := int32(-1)
	var bestV int32
	for i := 0; i < D; i++ {
		var s int32
	draw:
		for {
			s = lo + int32(g.Uint64N(m))
			switch {
			case repl:
			case useMarks:
				if marks.mark[s] == marks.epoch {
					continue draw
				}
				marks.mark[s] = marks.epoch
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
		x := v.value(s)
		if best < 0 || x < bestV {
			best, bestV = s, x
		}
	}
	return best
}

// leftOf is Vöcking's Left[D]: [lo, lo+m) splits into D contiguous groups
// of nearly equal size (group g is [g·m/D, (g+1)·m/D)); one uniform probe
// per group, left to right; the smallest value, ties to the leftmost group
// (Vöcking, "How asymmetry helps load balancing", J. ACM 50(4), 2003).
func leftOf[V viewer](g *rng, v V, lo int32, m, D int) int32 {
	best := int32(-1)
	var bestV int32
	for k := 0; k < D; k++ {
		a, b := k*m/D, (k+1)*m/D
		s := lo + int32(a) + int32(g.Uint64N(uint64(b-a)))
		x := v.value(s)
		if best < 0 || x < bestV {
			best, bestV = s, x
		}
	}
	return best
}

// firstDiffOf is FirstDiff[D] (Augustine, Moses, Redlich & Upfal, "Balanced
// allocation: patience is not a virtue", SODA 2016; SIAM J. Comput. 2022):
// probe uniform servers of [lo, lo+m) one at a time until one reads a value
// different from the first probe's, then take the smaller of those two. If
// every probe reads the same value, take the first probe. It returns the
// choice and the probes made.
//
// The cap. The paper shows an average of at most D probes per ball; herd
// makes that bound explicit and exact with a probe allowance:
// *credit earns D probes per call, a call always makes its first probe and
// makes another only while the allowance covers it, and never more than
// maxProbes probes. So over any run the mean is at most D probes per call.
func firstDiffOf[V viewer](g *rng, v V, lo int32, m uint64, D int, credit *int, maxProbes int) (int32, int) {
	*credit += D
	first := lo + int32(g.Uint64N(m))
	v0 := v.value(first)
	p := 1
	for p < maxProbes && *credit-p >= 1 {
		s := lo + int32(g.Uint64N(m))
		p++
		if x := v.value(s); x != v0 {
			*credit -= p
			if x < v0 {
				return s, p
			}
			return first, p
		}
	}
	*credit -= p
	return first, p
}

// firstDiffCapOf is FirstDiff with a per-ball rule and no allowance: probe
// up to maxProbes ≥ 1 uniform servers of [lo, lo+m), independently and with
// replacement (as firstDiffOf and Greedy[D] draw), stop at the first whose
// value differs from the first probe's and take the smaller of those two.
// When maxProbes probes all read the first probe's value, take the least
// valued server probed, ties to the first — which is the first probe, since
// every probe read the same value. It returns the choice and the probes
// made (at most maxProbes).
//
// Drawing with replacement keeps each probe an independent uniform draw, as
// in Greedy[d]'s analysis (Azar, Broder, Karlin & Upfal) and in herd's
// allowance rule and Greedy[D] for balls; whether the FirstDiff paper draws
// with or without replacement could not be checked here (its text was not
// reachable offline). A repeated bin reads the same value, so it never ends
// the search early; a cap of n therefore does not mean that every bin is
// seen.
func firstDiffCapOf[V viewer](g *rng, v V, lo int32, m uint64, maxProbes int) (int32, int) {
	first := lo + int32(g.Uint64N(m))
	v0 := v.value(first)
	for p := 2; p <= maxProbes; p++ {
		s := lo + int32(g.Uint64N(m))
		if x := v.value(s); x != v0 {
			if x < v0 {
				return s, p
			}
			return first, p
		}
	}
	return first, max(maxProbes, 1)
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
