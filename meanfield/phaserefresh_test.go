package meanfield

import (
	"fmt"
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

// TestPhaseRefreshMonteCarlo simulates the dynamics of the package doc, §2,
// server by server with h2 sizes (as TestRefreshMonteCarlo does with
// exponential ones): a server's (queue, type of the job in service) is drawn
// from the input state, it receives k uniform arrivals in each window from
// its board value on (none after T), the job in service completes at its
// type's rate 2p or 2(1 − p), and the next job's type is drawn fresh. The
// joint law of (queue, type) at T and the time-averaged queue must agree with
// the map within 5 standard errors, at three (k, T, C) points: a short period
// from a geometric board whose jobs in service are mostly giants (not the
// fresh law), the balanced fixed point of k = 3, λ = 0.8, T = 40, C = 4
// (board mean 8.47), and a herd (one map on from a half-loaded start at
// k = 5, λ = 0.9, T = 120, C = 2: board mean 0.11·T going to 0.2·T).
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
		{"k3_T40_C4_balanced", Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: H2Service(4)},
			func() []float64 {
				r := Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: H2Service(4)}
				res, _, _ := iterateRefresh(t, r, r.Service.Lift(BoardEmpty()), 1e-6, 200, 0)
				return res.Next
			}},
		{"k5_T120_C2_herd", Refresh{Dispatchers: 5, Load: 0.9, Period: 120, Service: H2Service(2)},
			func() []float64 {
				r := Refresh{Dispatchers: 5, Load: 0.9, Period: 120, Service: H2Service(2)}
				res, err := r.Apply(r.Service.Lift(BoardHalf(12)))
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

// phaseStates are small states covering both families: a half-loaded
// start (k = 3), a geometric board with Erlang sizes, and a board whose jobs
// in service are all giants.
func phaseStates() []struct {
	name string
	r    Refresh
	x    []float64
} {
	giants := func(p []float64) []float64 {
		x := make([]float64, stateLen(len(p), 2))
		x[0] = p[0]
		for b := 1; b < len(p); b++ {
			x[2+(b-1)*2] = p[b] // phase 2: the long jobs
		}
		return x
	}
	return []struct {
		name string
		r    Refresh
		x    []float64
	}{
		{"k3_T50_half_h2:10", Refresh{Dispatchers: 3, Load: 0.8, Period: 50, Service: H2Service(10)}, H2Service(10).Lift(BoardHalf(20))},
		{"k5_T20_geometric_erlang:4", Refresh{Dispatchers: 5, Load: 0.9, Period: 20, Service: ErlangService(4)}, ErlangService(4).Lift(BoardGeometric(0.9, 1e-14))},
		{"k5_T60_giants_h2:30", Refresh{Dispatchers: 5, Load: 0.9, Period: 60, Service: H2Service(30)}, giants(BoardGeometric(0.8, 1e-14))},
	}
}

// TestPhaseRefreshConvergence shows that the phase-type map's numerical
// parameters are converged, as TestRefreshConvergence does for the
// exponential map: tightening the truncation, doubling the Gauss–Legendre
// nodes and changing the auxiliary rate r (and with it Λ = r + max phase
// rate and every step count) leave the state and the time-averaged queue
// unchanged to the stated tolerance; the mass is conserved,
// Σ x' = 1 − Truncation with Truncation < Tol.
func TestPhaseRefreshConvergence(t *testing.T) {
	t.Parallel()
	for _, c := range phaseStates() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base, err := c.r.Apply(c.x)
			if err != nil {
				t.Fatal(err)
			}
			tol := c.r.withDefaults().Tol
			if base.Truncation < 0 || base.Truncation >= tol {
				t.Errorf("truncation = %.3g, want in [0, %g)", base.Truncation, tol)
			}
			if got, want := sum(base.Next), 1-base.Truncation; math.Abs(got-want) > 1e-13 {
				t.Errorf("Σx' = %.17g, want 1 − truncation = %.17g", got, want)
			}
			for i, v := range base.Next {
				if !(v >= 0) {
					t.Fatalf("x'[%d] = %v", i, v)
				}
			}
			variants := []struct {
				name string
				edit func(*Refresh)
				tol  float64
			}{
				{"Tol 1e-12→1e-18", func(r *Refresh) { r.Tol = 1e-18 }, 1e-9},
				{"Nodes 12→24", func(r *Refresh) { r.Nodes = 24 }, 1e-9},
				{"r = k/(4W)→k/(2W)", func(r *Refresh) { r.RateScale = 2 }, 1e-12},
				{"r = k/(4W)→k/(16W)", func(r *Refresh) { r.RateScale = 0.25 }, 1e-12},
				{"r = k/(4W)→k/W", func(r *Refresh) { r.RateScale = 4 }, 1e-12},
			}
			for _, v := range variants {
				r := c.r
				v.edit(&r)
				res, err := r.Apply(c.x)
				if err != nil {
					t.Fatal(err)
				}
				dp := l1Dist(base.Next, res.Next)
				dq := math.Abs(base.QueueMean-res.QueueMean) / base.QueueMean
				t.Logf("%s: ‖Δx'‖₁ = %.2g, rel. Δ queue mean = %.2g (steps %d → %d, levels %d → %d, truncation %.2g)",
					v.name, dp, dq, base.Steps, res.Steps, base.Rows, res.Rows, res.Truncation)
				if dp > v.tol || dq > v.tol {
					t.Errorf("%s: ‖Δx'‖₁ = %.3g, rel. Δ queue mean = %.3g, want ≤ %g", v.name, dp, dq, v.tol)
				}
			}
		})
	}
}

// TestServiceLaws checks the phase-type representations: mean 1 and
// E[S²] = SecondMoment from α(−S)⁻¹1 and 2α(−S)⁻²1 (computed by solving
// the triangular or diagonal systems of these families), the balanced
// means of h2 (each phase carries half the work, package doc, §2), and that
// Lift and Board are inverse on boards.
func TestServiceLaws(t *testing.T) {
	t.Parallel()
	for _, s := range []Service{ExpService(), H2Service(1), H2Service(10), H2Service(30), ErlangService(1), ErlangService(4), ErlangService(64)} {
		ph := s.phaseType()
		// m1[i], m2[i]: first and second moments of the time to absorption
		// from phase i; phases only move forward (i → i+1) in these
		// families, so solve from the last phase down:
		// m1[i] = (1 + Σ_j S_ij m1[j]) / out_i, m2[i] = (2 m1[i] + Σ_j S_ij m2[j]) / out_i.
		m1 := make([]float64, ph.n)
		m2 := make([]float64, ph.n)
		for i := ph.n - 1; i >= 0; i-- {
			a, b := 1.0, 0.0
			for _, mv := range ph.moves {
				if mv.from == i {
					a += mv.rate * m1[mv.to]
					b += mv.rate * m2[mv.to]
				}
			}
			m1[i] = a / ph.out[i]
			m2[i] = (2*m1[i] + b) / ph.out[i]
		}
		var mean, second float64
		for i, a := range ph.alpha {
			mean += a * m1[i]
			second += a * m2[i]
		}
		if math.Abs(mean-1) > 1e-12 || math.Abs(second-s.SecondMoment()) > 1e-9*s.SecondMoment() {
			t.Errorf("%s: mean %v, E[S²] %v, want 1 and %v", s, mean, second, s.SecondMoment())
		}
		if s.Kind == ServiceH2 {
			if w0, w1 := ph.alpha[0]*m1[0], ph.alpha[1]*m1[1]; math.Abs(w0-w1) > 1e-12 {
				t.Errorf("%s: work per phase %v, %v, want equal (balanced means)", s, w0, w1)
			}
		}
		p := BoardGeometric(0.7, 1e-10)
		if d := l1Dist(s.Board(s.Lift(p)), p); d > 1e-15 {
			t.Errorf("%s: Board(Lift(p)) differs from p by %.2g", s, d)
		}
	}
	for _, s := range []Service{H2Service(0.5), H2Service(math.NaN()), ErlangService(0), ErlangService(65), {Kind: 7}} {
		if s.Validate() == nil {
			t.Errorf("%+v: Validate() = nil, want an error", s)
		}
	}
}

// TestPhaseHighCached checks the rows that cannot empty in a window two
// ways: their completion law mixed from the cached steps at the drain's
// rate (phasehigh.go, the default) and stepped anew at the plan's rate for
// each window (stepsCap = 0 forces it). The states agree to 1e-12 in L1
// and the time-averaged queues to 1e-12 relative; each state must use the
// cache in the first case and not in the second.
func TestPhaseHighCached(t *testing.T) {
	t.Parallel()
	cases := phaseStates()
	h2 := H2Service(2)
	cases = append(cases, struct {
		name string
		r    Refresh
		x    []float64
	}{"k5_T300_geometric_h2:2", Refresh{Dispatchers: 5, Load: 0.9, Period: 300, Service: h2}, h2.Lift(BoardGeometric(0.95, 1e-14))})
	for _, c := range cases {
		var res [2]RefreshResult
		for pass, limit := range []int{maxPhaseSteps, 0} {
			m, err := NewRefreshMap(c.r)
			if err != nil {
				t.Fatal(err)
			}
			m.ph.stepsCap = limit
			res[pass], err = m.Apply(nil, c.x)
			if err != nil {
				t.Fatal(err)
			}
			if used := m.ph.steps0.n > 0; used != (limit > 0) {
				t.Errorf("%s: stepsCap %d: cache used = %v", c.name, limit, used)
			}
		}
		dp := l1Dist(res[0].Next, res[1].Next)
		dq := math.Abs(res[0].QueueMean-res[1].QueueMean) / res[0].QueueMean
		t.Logf("%s: ‖Δx'‖₁ = %.2g, rel. Δ queue mean = %.2g", c.name, dp, dq)
		if dp > 1e-12 || dq > 1e-12 {
			t.Errorf("%s: ‖Δx'‖₁ = %.3g, rel. Δ queue mean = %.3g, want ≤ 1e-12", c.name, dp, dq)
		}
	}
}

// TestDrainKernel checks the drain by kernels (phasedrainkernel.go)
// against the stepped drain it replaces for laws of one or two phases: the
// same states and time-averaged queue to 1e-12 (the two differ in the
// order of their sums only), on the boards of phaseStates and on a herd's
// board at h2:10 whose classes mostly empty before T (the absorbed cell),
// with and without the queue's integral. The kernels must be taken for
// every interval where there are at most two phases, and never for more.
func TestDrainKernel(t *testing.T) {
	t.Parallel()
	h2 := H2Service(10)
	cases := append(phaseStates(), []struct {
		name string
		r    Refresh
		x    []float64
	}{
		{"k5_T800_half_h2:10", Refresh{Dispatchers: 5, Load: 0.9, Period: 800, Service: h2}, h2.Lift(BoardHalf(300))},
		{"k5_T40_geometric_erlang:2", Refresh{Dispatchers: 5, Load: 0.9, Period: 40, Service: ErlangService(2)}, ErlangService(2).Lift(BoardGeometric(0.9, 1e-14))},
		{"k3_T30_geometric_erlang:1", Refresh{Dispatchers: 3, Load: 0.8, Period: 30, Service: ErlangService(1)}, ErlangService(1).Lift(BoardGeometric(0.8, 1e-14))},
	}...)
	for _, c := range cases {
		for _, boardOnly := range []bool{false, true} {
			var res [2]RefreshResult
			var used [2]int
			for pass, stepped := range []bool{false, true} {
				m, err := NewRefreshMap(c.r)
				if err != nil {
					t.Fatal(err)
				}
				m.boardOnly = boardOnly
				m.ph.dr.kern.noKernel = stepped
				if res[pass], err = m.Apply(nil, c.x); err != nil {
					t.Fatal(err)
				}
				used[pass] = m.ph.dr.kern.intervals
			}
			name := fmt.Sprintf("%s boardOnly=%v", c.name, boardOnly)
			if want := c.r.Service.phaseType().n <= drainKernelMaxPhases; (used[0] > 0) != want || used[1] != 0 {
				t.Errorf("%s: intervals by kernels %d (stepped: %d), want them %v", name, used[0], used[1], want)
			}
			dp := l1Dist(res[0].Next, res[1].Next)
			dq := 0.0
			if !boardOnly {
				dq = math.Abs(res[0].QueueMean-res[1].QueueMean) / res[1].QueueMean
			}
			dt := math.Abs(res[0].Truncation - res[1].Truncation)
			t.Logf("%s: %d intervals, ‖Δx'‖₁ = %.2g, rel. Δ queue mean = %.2g, Δ truncation %.2g (of %.2g)", name, used[0], dp, dq, dt, res[1].Truncation)
			if !(dp <= 1e-12 && dq <= 1e-12 && dt <= DefaultRefreshTol) {
				t.Errorf("%s: ‖Δx'‖₁ = %.3g, rel. Δ queue mean = %.3g, Δ truncation %.3g, want ≤ 1e-12, 1e-12, Tol", name, dp, dq, dt)
			}
		}
	}
}
