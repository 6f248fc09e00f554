package meanfield

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestPhaseRefreshMonteCarloErlang is TestPhaseRefreshMonteCarlo for
// Erlang-2 sizes (the phase-change path of the map): servers simulated
// stage by stage from the balanced fixed point at k = 5, λ = 0.9, T = 300;
// the next board mean and the time-averaged queue must agree with the map
// within 5 standard errors.
func TestPhaseRefreshMonteCarloErlang(t *testing.T) {
	t.Parallel()
	svc := ErlangService(2)
	r := Refresh{Dispatchers: 5, Load: 0.9, Period: 300, Service: svc}
	res0, _, _ := iterateRefresh(t, r, svc.Lift(BoardEmpty()), 1e-8, 100, 0)
	x := res0.Next
	res, err := r.Apply(x)
	if err != nil {
		t.Fatal(err)
	}
	ph := svc.phaseType()
	P := ph.n
	board := svc.Board(x)
	k, lam, T := r.Dispatchers, r.Load, r.Period
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
	cx := make([]float64, len(x))
	var c float64
	for i, v := range x {
		c += v
		cx[i] = c
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 100000
	var sumQ, sumQ2, sumA, sumA2 float64
	arr := make([]float64, 0, 1024)
	for s := 0; s < n; s++ {
		idx := min(sort.SearchFloat64s(cx, rng.Float64()*c), len(x)-1)
		q, phs := 0, 0
		if idx > 0 {
			q, phs = 1+(idx-1)/P, (idx-1)%P
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
				ts := now + rng.ExpFloat64()/ph.out[phs]
				if ts < ta && ts < T {
					area += float64(q) * (ts - now)
					now = ts
					if rng.Float64()*ph.out[phs] < ph.exit[phs] {
						q--
						if q > 0 {
							phs = 0
						}
					} else {
						phs++
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
				phs = 0
			}
			now = ta
			next++
		}
		sumQ += float64(q)
		sumQ2 += float64(q * q)
		sumA += area / T
		sumA2 += (area / T) * (area / T)
	}
	nf := float64(n)
	var nextMean float64
	for b, pb := range svc.Board(res.Next) {
		nextMean += float64(b) * pb
	}
	m1 := sumQ / nf
	s1 := math.Sqrt((sumQ2/nf - m1*m1) / nf)
	m2 := sumA / nf
	s2 := math.Sqrt((sumA2/nf - m2*m2) / nf)
	t.Logf("board mean %.4f; next: Monte Carlo %.4f ± %.4f, map %.4f; time-averaged queue: Monte Carlo %.4f ± %.4f, map %.4f",
		res.BoardMean, m1, s1, nextMean, m2, s2, res.QueueMean)
	if math.Abs(m1-nextMean) > 5*s1 || math.Abs(m2-res.QueueMean) > 5*s2 {
		t.Errorf("next board mean %.4f ± %.4f vs map %.4f, time-averaged queue %.4f ± %.4f vs map %.4f: want within 5 s.e.",
			m1, s1, nextMean, m2, s2, res.QueueMean)
	}
}
