package meanfield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Particles chooses how FiniteEdge and FiniteMean run a fleet of N servers
// (package doc, §8.6).
type Particles int

const (
	// ParticlesAuto is the servers' runs up to ServerParticlesMaxN servers
	// for FiniteMean at any sizes and for FiniteEdge with phase-type
	// sizes, and the particle map otherwise (Resolve, ResolveMean).
	ParticlesAuto Particles = iota
	// ParticlesBoard is the particle map: each period the next board is
	// the empirical law of N independent draws from the map's image F(x)
	// (a server forgets its class in one period).
	ParticlesBoard
	// ParticlesServers runs the N servers themselves, each dispatcher
	// filling the water on its own clock: each server keeps its queue and
	// its job in service from one period to the next (serverRun).
	ParticlesServers
)

// ServerParticlesMaxN is the most servers ParticlesServers runs: one
// period costs about N·λ·T events, against one map for the board.
const ServerParticlesMaxN = 100000

// ParseParticles returns the Particles named by String's names.
func ParseParticles(name string) (Particles, error) {
	for _, p := range []Particles{ParticlesAuto, ParticlesBoard, ParticlesServers} {
		if name == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("meanfield: particles %q: want auto, board or servers", name)
}

// String returns the name herd's flags use: auto, board or servers.
func (p Particles) String() string {
	switch p {
	case ParticlesAuto:
		return "auto"
	case ParticlesBoard:
		return "board"
	case ParticlesServers:
		return "servers"
	}
	return fmt.Sprintf("Particles(%d)", int(p))
}

// Resolve returns the kind FiniteEdge runs at N servers with sizes svc:
// p itself unless it is ParticlesAuto, which is the servers' runs for
// phase-type sizes up to ServerParticlesMaxN (the particle map, which
// forgets a server's class, tips too readily there) and the particle map
// for exponential sizes (as close to the simulator's brackets, at one map
// a period at any N).
func (p Particles) Resolve(svc Service, N int) Particles {
	if p != ParticlesAuto {
		return p
	}
	if svc.PhaseCount() > 1 && N <= ServerParticlesMaxN {
		return ParticlesServers
	}
	return ParticlesBoard
}

// ResolveMean returns the kind FiniteMean runs at N servers: p itself
// unless it is ParticlesAuto, which is the servers' runs up to
// ServerParticlesMaxN at any sizes (the response needs the dispatchers'
// clocks, §8.6) and the particle map above.
func (p Particles) ResolveMean(N int) Particles {
	if p != ParticlesAuto {
		return p
	}
	if N <= ServerParticlesMaxN {
		return ParticlesServers
	}
	return ParticlesBoard
}

// serverState is one server of serverRun: its queue (jobs in system) and
// the work left of the job in service.
type serverState struct {
	q    int
	left float64
}

// serverRun is one run of the N servers on the dispatchers' clocks
// (package doc, §8.6, the servers' runs), from the empty fleet, until it
// tips (herd bracket's detector: board mean above theta for 5 periods in a
// row; tipAt is that period, 0 when it never tips) or after runs periods
// (serverFleet.period). With response, resp is the time in system by
// Little's law, the area under the queues over the arrivals, from the
// periods after the first tenth (NaN when the run tipped).
func serverRun(r Refresh, N int, rng *rand.Rand, runs int, theta float64, response bool, stop func() bool) (tipAt int, resp float64, err error) {
	if err := r.Validate(); err != nil {
		return 0, math.NaN(), err
	}
	f := newServerFleet(r, N, rng)
	var area, arrivals float64
	above := 0
	for i := 1; i <= runs; i++ {
		if stop != nil && stop() {
			return 0, math.NaN(), fmt.Errorf("meanfield: finite fleet: %w", ErrStopped)
		}
		a, n := f.period(response && i > runs/10)
		area += a
		arrivals += n
		if f.mean() > theta {
			above++
			if above >= 5 {
				return i, math.NaN(), nil
			}
		} else {
			above = 0
		}
	}
	if !response || arrivals == 0 {
		return 0, math.NaN(), nil
	}
	return 0, area / arrivals, nil
}

// serverFleet is the fleet of serverRun.
type serverFleet struct {
	k    int
	T, λ float64
	ph   phaseType
	rng  *rand.Rand
	srv  []serverState
	// lockStep gives every dispatcher the map's windows at load λ in place
	// of its own clock (tests: one period then moves by the map's law).
	lockStep bool
	// seen, if set, is told of every arrival as period draws it:
	// dispatcher d's job in its window v at time a (tests).
	seen func(d, v int, a float64)
	// scratch: the servers at most v on the board, each dispatcher's
	// windows' starts, one server's next arrivals
	cnt   []int
	tau   [][]float64
	heads []serverArrival
}

// newServerFleet returns N empty servers for r's k, λ, T and sizes.
func newServerFleet(r Refresh, N int, rng *rand.Rand) *serverFleet {
	return &serverFleet{k: r.Dispatchers, T: r.Period, λ: r.Load, ph: r.Service.phaseType(), rng: rng,
		srv: make([]serverState, N), tau: make([][]float64, r.Dispatchers)}
}

// mean returns the board's mean queue.
func (f *serverFleet) mean() float64 {
	m := 0.0
	for _, s := range f.srv {
		m += float64(s.q)
	}
	return m / float64(len(f.srv))
}

// period runs the fleet over one refresh period and returns, when
// counted, the area under its queues and its arrivals (else 0, 0).
//
// The board is the servers' queues at the period's start, n_v the number
// of servers on it at most v (N for v at or above the top). Each of the k
// dispatchers fills the water (§2) on its own clock: its sends are a
// Poisson stream of rate λN/k, and its window v, in which each of the n_v
// servers at most v receives one of its jobs, lasts as long as the stream
// takes to make n_v sends, a Gamma(n_v, λN/k) time (mean k·F(v)/λ, the
// map's W_v), drawn window after window until its clock passes T. A server
// whose board is b receives, from each dispatcher, one job in each of that
// dispatcher's windows v ≥ b, none after T: one of the window's n_v sends
// chosen at random, independently of the other servers, so at the
// window's end with probability 1/n_v and else at a uniform time on it
// (the Poisson stream's other n_v − 1 points in the window). It serves its
// jobs in order, sizes drawn from the phase-type law. In lock-step (tests)
// every window is the map's and the time uniform on it, as in §2.
func (f *serverFleet) period(counted bool) (area, arrivals float64) {
	T, N, rng := f.T, len(f.srv), f.rng
	top := 0
	for _, s := range f.srv {
		top = max(top, s.q)
	}
	f.cnt = slices.Grow(f.cnt[:0], top+1)[:top+1]
	clear(f.cnt)
	for _, s := range f.srv {
		f.cnt[s.q]++
	}
	for v := 1; v <= top; v++ {
		f.cnt[v] += f.cnt[v-1]
	}
	// Each dispatcher's windows' starts, for every window begun before T,
	// and the end of the last.
	rate := f.λ * float64(N) / float64(f.k)
	for d := range f.tau {
		if f.lockStep && d > 0 {
			f.tau[d] = append(f.tau[d][:0], f.tau[0]...)
			continue
		}
		tau := append(f.tau[d][:0], 0)
		for v, t := 0, 0.0; t < T; v++ {
			n := f.sends(v, top)
			switch {
			case n == 0:
			case f.lockStep:
				t += float64(n) / rate
			default:
				t += distuv.Gamma{Alpha: float64(n), Beta: rate, Src: rng}.Rand()
			}
			tau = append(tau, t)
		}
		f.tau[d] = tau
	}
	for j := range f.srv {
		s := f.srv[j]
		// The server's arrivals: from each dispatcher one in each of its
		// windows from the server's board on, none after T, merged in
		// time order (each dispatcher's are in order: a heap of their
		// next ones).
		h := f.heads[:0]
		for d := range f.tau {
			if a, ok := f.arrival(d, s.q, top); ok {
				h = append(h, serverArrival{a: a, d: d, v: s.q})
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			siftArrival(h, i)
		}
		now := 0.0
		// serve runs the server from now to t.
		serve := func(t float64) {
			for s.q > 0 && now+s.left <= t {
				now += s.left
				if counted {
					area += float64(s.q) * s.left
				}
				s.q--
				if s.q > 0 {
					s.left = phaseSample(&f.ph, rng)
				}
			}
			if s.q > 0 {
				s.left -= t - now
				if counted {
					area += float64(s.q) * (t - now)
				}
			}
			now = t
		}
		for len(h) > 0 {
			next := h[0]
			serve(next.a)
			s.q++
			if s.q == 1 {
				s.left = phaseSample(&f.ph, rng)
			}
			if counted {
				arrivals++
			}
			if a, ok := f.arrival(next.d, next.v+1, top); ok {
				h[0] = serverArrival{a: a, d: next.d, v: next.v + 1}
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
			siftArrival(h, 0)
		}
		f.heads = h
		serve(T)
		f.srv[j] = s
	}
	return area, arrivals
}

// sends returns n_v, a dispatcher's sends in its window v: the servers at
// most v on the board (period's f.cnt; top is the board's top), all N
// from the top on.
func (f *serverFleet) sends(v, top int) int {
	if v < top {
		return f.cnt[v]
	}
	return len(f.srv)
}

// serverArrival is a dispatcher's next arrival at a server: its time a,
// in the dispatcher d's window v.
type serverArrival struct {
	a    float64
	d, v int
}

// siftArrival restores the heap order (earliest first) of h below i.
func siftArrival(h []serverArrival, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].a < h[c].a {
			c++
		}
		if h[i].a <= h[c].a {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// arrival draws the time of dispatcher d's job in its window v at a server
// on the board below it (period's rule; top is the board's top), and
// reports false when the window begins at or after T or the time falls
// after T (the dispatcher sends the server nothing more this period).
func (f *serverFleet) arrival(d, v, top int) (float64, bool) {
	tau := f.tau[d]
	if v+1 >= len(tau) {
		return 0, false
	}
	u := f.rng.Float64()
	var a float64
	if f.lockStep {
		a = tau[v] + u*(tau[v+1]-tau[v])
	} else {
		// One of the window's n sends, at random: the last (its end,
		// exactly, so that it never falls after the next window's first)
		// with probability 1/n, else one of the n − 1 before it, uniform
		// on the window.
		n := float64(f.sends(v, top))
		if u *= n; u < 1 {
			a = tau[v+1]
		} else {
			a = tau[v] + (u-1)/(n-1)*(tau[v+1]-tau[v])
		}
	}
	if f.seen != nil && a < f.T {
		f.seen(d, v, a)
	}
	return a, a < f.T
}

// phaseSample draws a job size from the phase-type law ph: the start
// phase from α, then in phase i a time Exp(out_i), after which the job
// ends with probability exit_i/out_i or moves on as S_ij/out_i says.
func phaseSample(ph *phaseType, rng *rand.Rand) float64 {
	i := 0
	if ph.n > 1 {
		for u := rng.Float64(); i+1 < ph.n && u >= ph.alpha[i]; i++ {
			u -= ph.alpha[i]
		}
	}
	if len(ph.moves) == 0 {
		return rng.ExpFloat64() / ph.out[i] // no phase changes: the job ends
	}
	t := 0.0
	for {
		t += rng.ExpFloat64() / ph.out[i]
		u := rng.Float64() * ph.out[i]
		if u < ph.exit[i] {
			return t
		}
		u -= ph.exit[i]
		next := i
		for _, mv := range ph.moves {
			if mv.from != i {
				continue
			}
			next = mv.to
			if u < mv.rate {
				break
			}
			u -= mv.rate
		}
		i = next
	}
}
