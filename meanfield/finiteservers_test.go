package meanfield

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// The servers' runs move a fleet by the map's law: N servers drawn from a
// board, carried over one period on the map's windows at load λ
// (serverFleet.period in lock-step, every dispatcher on the mean clock), leave a
// board whose queue lengths follow the map's image of it (Pearson's χ²
// over the levels with at least 20 expected servers, the rest pooled;
// fails at P < 10⁻⁴). Exponential, hyperexponential and Erlang sizes, so
// the windows, the arrivals and the sizes drawn from the phase law are
// each the map's. And the law of the job in service carries over: a
// second period from the first's fleet (not a fresh draw) matches the
// map applied twice.
func TestServerFleetPeriodLaw(t *testing.T) {
	board := []float64{0.05, 0.15, 0.25, 0.2, 0.15, 0.1, 0.06, 0.04}
	const N = 200000
	for _, svc := range []Service{ExpService(), H2Service(4), ErlangService(3)} {
		r := Refresh{Dispatchers: 3, Load: 0.9, Period: 12, Service: svc}
		m, err := NewRefreshMap(r)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		f := newServerFleet(r, N, rng)
		f.lockStep = true
		// The fleet of the board with every job in service fresh
		// (Service.Lift).
		cum := 0.0
		for j := range f.srv {
			u := (float64(j) + 0.5) / N
			q := 0
			for cum = board[0]; u >= cum && q+1 < len(board); {
				q++
				cum += board[q]
			}
			f.srv[j] = serverState{q: q}
			if q > 0 {
				f.srv[j].left = phaseSample(&f.ph, rng)
			}
		}
		x := svc.Lift(board)
		for period := 1; period <= 2; period++ {
			res, err := m.Apply(nil, x)
			if err != nil {
				t.Fatal(err)
			}
			x = res.Next
			f.period(false)
			want := svc.Board(x)
			got := make([]float64, len(want)+1)
			for _, s := range f.srv {
				got[min(s.q, len(want))]++
			}
			chi, dof := 0.0, -1
			var pe, po float64 // pooled expected, observed
			for q := range got {
				e := 0.0
				if q < len(want) {
					e = want[q] * N
				}
				if e >= 20 {
					chi += (got[q] - e) * (got[q] - e) / e
					dof++
				} else {
					pe += e
					po += got[q]
				}
			}
			if pe > 0 {
				chi += (po - pe) * (po - pe) / pe
				dof++
			}
			p := distuv.ChiSquared{K: float64(dof)}.Survival(chi)
			if p < 1e-4 || math.IsNaN(p) {
				t.Errorf("%v, period %d: χ² = %.1f on %d degrees of freedom (P = %.2g): the fleet's board does not follow the map's\ngot  %v\nwant %v", svc, period, chi, dof, p, got, want)
			}
		}
	}
}

// The dispatchers' clocks carry the arrivals' Poisson noise: a fleet's
// arrivals per period, all k dispatchers together, have the mean and
// variance of Poisson(λNT) (the mean within 4.5 standard errors, the
// variance by χ² on the periods' degrees of freedom, two-sided at
// P < 10⁻⁴). The same fleet in lock-step, every dispatcher on the map's
// windows, fails the variance check: there only the last window's sends
// vary. And a window's sends must include its end: drawn uniform on the
// window instead, each dispatcher makes about half a send too many a
// period, and the mean fails (4.7 standard errors here).
func TestServerFleetClocks(t *testing.T) {
	t.Parallel()
	const periods = 3000
	r := Refresh{Dispatchers: 4, Load: 0.7, Period: 15, Service: H2Service(4)}
	const N = 40
	mu := r.Load * N * r.Period
	check := func(lockStep bool) (meanZ, pVar float64) {
		f := newServerFleet(r, N, rand.New(rand.NewPCG(3, 4)))
		f.lockStep = lockStep
		for range 50 {
			f.period(false)
		}
		var s, s2 float64
		for range periods {
			_, n := f.period(true)
			s += n
			s2 += n * n
		}
		mean := s / periods
		v := (s2 - s*mean) / (periods - 1)
		chi := distuv.ChiSquared{K: periods - 1}
		x := (periods - 1) * v / mu
		return (mean - mu) / math.Sqrt(mu/periods), 2 * min(chi.CDF(x), chi.Survival(x))
	}
	if z, p := check(false); math.Abs(z) > 4.5 || p < 1e-4 {
		t.Errorf("clocks: arrivals' mean %.2f standard errors from λNT = %g, variance P = %.2g against Poisson", z, mu, p)
	}
	if _, p := check(true); p >= 1e-4 {
		t.Errorf("lock-step: arrivals' variance P = %.2g against Poisson, want < 10⁻⁴ (the check cannot tell the clocks from lock-step)", p)
	}
}
