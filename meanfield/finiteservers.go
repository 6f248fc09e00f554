package meanfield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Particles chooses how FiniteEdge and FiniteMean run a fleet of N servers
// (package doc, §8.6).
type Particles int

const (
	// ParticlesAuto is the servers' runs for phase-type sizes at N up to
	// ServerParticlesMaxN, and the board's otherwise.
	ParticlesAuto Particles = iota
	// ParticlesBoard is the particle map: each period the next board is
	// the empirical law of N independent draws from the map's image F(x)
	// (a server forgets its class in one period).
	ParticlesBoard
	// ParticlesServers runs the N servers themselves on the map's
	// schedule: each keeps its queue and its job in service from one
	// period to the next (serverRun).
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

// Resolve returns the kind run at N servers with sizes svc: p itself
// unless it is ParticlesAuto.
func (p Particles) Resolve(svc Service, N int) Particles {
	if p != ParticlesAuto {
		return p
	}
	if svc.PhaseCount() > 1 && N <= ServerParticlesMaxN {
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

// serverRun is one run of the N servers on the map's schedule (package
// doc, §8.6, the servers' runs), from the empty fleet, until it tips
// (herd bracket's detector: board mean above theta for 5 periods in a
// row; tipAt is that period, 0 when it never tips) or after runs periods.
// Each period: the board is the servers' queues; the load is λ(1 + ε),
// ε ~ N(0, 1/(λNT)) shared by all (the period's arrivals' surplus), kept
// within [λ/2, (1+λ)/2] as the particle map keeps it; the windows are the
// map's, τ_0 = 0, W_v = k·F(v)/λ(1 + ε) (§2); a server whose board is b
// receives k jobs in every window v ≥ b, at independent uniform times on
// it, none after T, and serves them in order, sizes drawn from svc. With
// response, resp is the time in system by Little's law, the area under
// the queues over the arrivals, from the periods after the first tenth
// (NaN when the run tipped).
func serverRun(r Refresh, N int, rng *rand.Rand, runs int, theta float64, response bool, stop func() bool) (tipAt int, resp float64, err error) {
	if err := r.Validate(); err != nil {
		return 0, math.NaN(), err
	}
	f := newServerFleet(r, N, rng)
	lam := r.Load
	sd := math.Sqrt(1 / (lam * float64(N) * r.Period))
	var area, arrivals float64
	above := 0
	for i := 1; i <= runs; i++ {
		if stop != nil && stop() {
			return 0, math.NaN(), fmt.Errorf("meanfield: finite fleet: %w", ErrStopped)
		}
		l := min(max(lam*(1+sd*rng.NormFloat64()), lam/2), (1+lam)/2)
		a, n := f.period(l, response && i > runs/10)
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
	k   int
	T   float64
	ph  phaseType
	rng *rand.Rand
	srv []serverState
	// scratch: F(v), the windows' starts, one window's arrivals
	cum, tau, arr []float64
}

// newServerFleet returns N empty servers for r's k, T and sizes.
func newServerFleet(r Refresh, N int, rng *rand.Rand) *serverFleet {
	return &serverFleet{k: r.Dispatchers, T: r.Period, ph: r.Service.phaseType(), rng: rng, srv: make([]serverState, N)}
}

// mean returns the board's mean queue.
func (f *serverFleet) mean() float64 {
	m := 0.0
	for _, s := range f.srv {
		m += float64(s.q)
	}
	return m / float64(len(f.srv))
}

// period runs the fleet over one refresh period at load l and returns,
// when counted, the area under its queues and its arrivals (else 0, 0).
func (f *serverFleet) period(l float64, counted bool) (area, arrivals float64) {
	T, N, rng := f.T, len(f.srv), f.rng
	// The board: F(v), the share of servers at most v.
	top := 0
	for _, s := range f.srv {
		top = max(top, s.q)
	}
	f.cum = slices.Grow(f.cum[:0], top+1)[:top+1]
	clear(f.cum)
	for _, s := range f.srv {
		f.cum[s.q]++
	}
	acc := 0.0
	for v := range f.cum {
		acc += f.cum[v]
		f.cum[v] = acc / float64(N)
	}
	// The windows' starts τ_v for every window begun before T, and the
	// end of the last.
	f.tau = append(f.tau[:0], 0)
	for v, t := 0, 0.0; t < T; v++ {
		F := 1.0
		if v < top {
			F = f.cum[v]
		}
		t += float64(f.k) * F / l
		f.tau = append(f.tau, t)
	}
	windows := len(f.tau) - 1
	f.arr = slices.Grow(f.arr[:0], f.k)[:f.k]
	buf := f.arr
	for j := range f.srv {
		s := f.srv[j]
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
		// The windows from the server's board on, in order, each with its
		// k arrivals sorted; those after T are not made, and the window T
		// cuts is the last.
		for v := s.q; v < windows; v++ {
			lo, w := f.tau[v], f.tau[v+1]-f.tau[v]
			for i := range buf {
				a := lo + rng.Float64()*w
				for i > 0 && buf[i-1] > a {
					buf[i] = buf[i-1]
					i--
				}
				buf[i] = a
			}
			for _, a := range buf {
				if a >= T {
					break
				}
				serve(a)
				s.q++
				if s.q == 1 {
					s.left = phaseSample(&f.ph, rng)
				}
				if counted {
					arrivals++
				}
			}
		}
		serve(T)
		f.srv[j] = s
	}
	return area, arrivals
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
