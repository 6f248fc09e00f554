package meanfield

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
)

// phaseStates are the states of refreshStates with each service family.
func phaseCases(t testing.TB) []struct {
	name string
	r    Refresh
	p    []float64
} {
	return refreshStates(t)
}

// TestPhaseRefreshExponential checks the phase-type map against the
// exponential map board by board: run with one exponential phase
// (Erlang-1) and with h2 at C = 1 (two phases of rate 1, the exponential
// law written twice), the boards (queue-length marginals) agree with the
// exponential map's to 1e-12 in L1 and the time-averaged queue to 1e-12
// relative. Tol = 1e-15 keeps both maps' truncation far below the band.
func TestPhaseRefreshExponential(t *testing.T) {
	t.Parallel()
	for _, c := range phaseCases(t) {
		r := c.r
		r.Tol = 1e-15
		base, err := r.Apply(c.p)
		if err != nil {
			t.Fatal(err)
		}
		for _, svc := range []Service{ErlangService(1), H2Service(1)} {
			rs := r
			rs.Service = svc
			res, err := rs.Apply(svc.Lift(c.p))
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, svc, err)
			}
			dp := l1Dist(base.Next, svc.Board(res.Next))
			dq := math.Abs(base.QueueMean-res.QueueMean) / base.QueueMean
			t.Logf("%s %s: ‖Δp'‖₁ = %.2g, rel. Δ queue mean = %.2g, truncation %.2g, levels %d, steps %d (exp: %d rows, %d steps)",
				c.name, svc, dp, dq, res.Truncation, res.Rows, res.Steps, base.Rows, base.Steps)
			if dp > 1e-12 || dq > 1e-12 {
				t.Errorf("%s %s: ‖Δp'‖₁ = %.3g, rel. Δ queue mean = %.3g, want ≤ 1e-12", c.name, svc, dp, dq)
			}
			if res.Window != base.Window || math.Abs(res.CutPhase-base.CutPhase) > 1e-12 {
				t.Errorf("%s %s: window %d phase %v, exp map %d %v", c.name, svc, res.Window, res.CutPhase, base.Window, base.CutPhase)
			}
		}
	}
}

// TestPhaseRefreshMonteCarlo simulates the dynamics of model.md §2 server
// by server with h2 sizes (as TestRefreshMonteCarlo does with exponential
// ones): a server's (queue, type of the job in service) is drawn from the
// input state, it receives k uniform arrivals in each window from its board
// value on (none after T), the job in service completes at its type's rate
// 2p or 2(1 − p), and the next job's type is drawn fresh. The joint law of
// (queue, type) at T and the time-averaged queue must agree with the map
// within 5 standard errors, at three (k, T, C) points: a short period from
// a geometric board whose jobs in service are mostly giants (not the fresh
// law), a balanced state near its fixed point, and a herd (one map on from
// a half-loaded start, board mean ≈ 0.1·T and rising).
func TestPhaseRefreshMonteCarlo(t *testing.T) {
	t.Parallel()
	n := 100000
	if os.Getenv("HERD_SLOW") == "1" && !testing.Short() {
		n = 1000000
	}
	type point struct {
		name string
		r    Refresh
		x    func() []float64
	}
	giants := func(svc Service, p []float64) []float64 {
		// Jobs in service: 60% giants (phase 2), 40% small.
		x := make([]float64, stateLen(len(p), 2))
		x[0] = p[0]
		for b := 1; b < len(p); b++ {
			x[1+(b-1)*2], x[2+(b-1)*2] = 0.4*p[b], 0.6*p[b]
		}
		return x
	}
	points := []point{
		{"k3_T23.7_C4_giants", Refresh{Dispatchers: 3, Load: 0.8, Period: 23.7, Service: H2Service(4)},
			func() []float64 { return giants(H2Service(4), BoardGeometric(0.7, 1e-6)) }},
		{"k5_T150_C10_balanced", Refresh{Dispatchers: 5, Load: 0.9, Period: 150, Service: H2Service(10)},
			func() []float64 {
				r := Refresh{Dispatchers: 5, Load: 0.9, Period: 150, Service: H2Service(10)}
				res, _, _ := iterateRefresh(t, r, r.Service.Lift(BoardEmpty()), 1e-3, 60, 0)
				return res.Next
			}},
		{"k5_T200_C2_herd", Refresh{Dispatchers: 5, Load: 0.9, Period: 200, Service: H2Service(2)},
			func() []float64 {
				r := Refresh{Dispatchers: 5, Load: 0.9, Period: 200, Service: H2Service(2)}
				res, err := r.Apply(r.Service.Lift(BoardHalf(20)))
				if err != nil {
					t.Fatal(err)
				}
				return res.Next
			}},
	}
	for pi, pt := range points {
		t.Run(pt.name, func(t *testing.T) {
			t.Parallel()
			x := pt.x()
			res, err := pt.r.Apply(x)
			if err != nil {
				t.Fatal(err)
			}
			svc := pt.r.Service
			board := svc.Board(x)
			k, lam, T := pt.r.Dispatchers, pt.r.Load, pt.r.Period
			ph := svc.phaseType()
			var taus, ws []float64
			cum, tau := 0.0, 0.0
			for v := 0; tau <= T; v++ {
				f := 1.0
				if v < len(board)-1 {
					cum += board[v]
					f = cum
				}
				w := float64(k) * f / lam
				taus, ws = append(taus, tau), append(ws, w)
				tau += w
			}
			// Cumulative law of the state for sampling.
			cx := make([]float64, len(x))
			var c float64
			for i, v := range x {
				c += v
				cx[i] = c
			}
			rng := rand.New(rand.NewPCG(7, uint64(pi)))
			fresh := func() int {
				if rng.Float64() < ph.alpha[0] {
					return 0
				}
				return 1
			}
			const bins = 12
			cells := stateLen(bins, 2)
			count := make([]float64, cells)
			var sumQ, sumQ2, sumA, sumA2 float64
			arr := make([]float64, 0, 1024)
			for s := 0; s < n; s++ {
				u := rng.Float64() * c
				idx := sort.SearchFloat64s(cx, u)
				idx = min(idx, len(x)-1)
				q, typ := 0, 0
				if idx > 0 {
					q, typ = 1+(idx-1)/2, (idx-1)%2
				}
				arr = arr[:0]
				for v := q; v < len(taus); v++ {
					for i := 0; i < k; i++ {
						if a := taus[v] + ws[v]*rng.Float64(); a < T {
							arr = append(arr, a)
						}
					}
				}
				sort.Float64s(arr)
				now, area, next := 0.0, 0.0, 0
				for {
					ta := math.Inf(1)
					if next < len(arr) {
						ta = arr[next]
					}
					if q > 0 {
						// Memoryless within a type: redraw the remaining time.
						ts := now + rng.ExpFloat64()/ph.exit[typ]
						if ts < ta && ts < T {
							area += float64(q) * (ts - now)
							q--
							now = ts
							if q > 0 {
								typ = fresh()
							}
							continue
						}
					}
					if ta >= T {
						area += float64(q) * (T - now)
						break
					}
					area += float64(q) * (ta - now)
					q++
					if q == 1 {
						typ = fresh()
					}
					now = ta
					next++
				}
				cell := 0
				if q > 0 {
					cell = 1 + (q-1)*2 + typ
				}
				if cell < cells {
					count[cell]++
				}
				sumQ += float64(q)
				sumQ2 += float64(q * q)
				sumA += area / T
				sumA2 += (area / T) * (area / T)
			}
			nf := float64(n)
			for i := 0; i < cells; i++ {
				pm := count[i] / nf
				se := math.Sqrt(pm*(1-pm)/nf) + 1/nf
				want := 0.0
				if i < len(res.Next) {
					want = res.Next[i]
				}
				if math.Abs(pm-want) > 5*se {
					t.Errorf("cell %d: Monte Carlo %.5f ± %.5f, map %.5f", i, pm, se, want)
				}
			}
			check := func(what string, s1, s2, want float64) {
				mean := s1 / nf
				se := math.Sqrt((s2/nf - mean*mean) / nf)
				t.Logf("%s: Monte Carlo %.5f ± %.5f (n = %d), map %.6f", what, mean, se, n, want)
				if math.Abs(mean-want) > 5*se {
					t.Errorf("%s: Monte Carlo %.5f ± %.5f, map %.6f (%.1f s.e.)", what, mean, se, want, (mean-want)/se)
				}
			}
			var nextMean float64
			for b, pb := range svc.Board(res.Next) {
				nextMean += float64(b) * pb
			}
			t.Logf("board mean in %.4g, truncation %.2g, levels %d", res.BoardMean, res.Truncation, res.Rows)
			check("next board mean", sumQ, sumQ2, nextMean)
			check("time-averaged queue", sumA, sumA2, res.QueueMean)
		})
	}
}
