package meanfield

import (
	"math"
	"math/rand/v2"
	"slices"
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
// period, and the mean fails (6.2 standard errors at this seed, 3.5–6.8
// over seeds 1–10; TestServerFleetWindows counts the windows' end sends
// directly, 86 standard errors short then).
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

// Each dispatcher's windows and sends are the clocks' (period's doc): a
// window v of n_v sends lasts a Gamma(n_v, λN/k) time (the standardised
// lengths' sum and squares within 4.5 standard errors of their means), a
// server in it receives the window's end with probability 1/n_v (the
// count of sends at the windows' ends within 4.5 standard errors of one a
// window) and else a time uniform on the window (Kolmogorov–Smirnov,
// P ≥ 10⁻⁴). The end's probability taken as 1/N, or sends uniform on the
// whole window, fail the count; lock-step fails the lengths' spread.
func TestServerFleetWindows(t *testing.T) {
	t.Parallel()
	r := Refresh{Dispatchers: 4, Load: 0.7, Period: 15, Service: H2Service(4)}
	const N, periods = 40, 400
	type send struct {
		d, v int
		a    float64
	}
	var got []send
	f := newServerFleet(r, N, rand.New(rand.NewPCG(5, 6)))
	f.seen = func(d, v int, a float64) { got = append(got, send{d, v, a}) }
	rate := r.Load * N / float64(r.Dispatchers)
	var windows int
	var ends, endMean, endVar float64 // sends at the windows' ends
	var lenZ, lenVar, sqZ, sqVar float64
	var rel []float64 // the other sends' places in their windows
	for p := range periods + 20 {
		got = got[:0]
		f.period(false)
		if p < 20 {
			continue
		}
		top := len(f.cnt) - 1
		for _, tau := range f.tau {
			for v := 0; v+1 < len(tau); v++ {
				n := float64(f.sends(v, top))
				if n == 0 {
					continue
				}
				windows++
				x := (tau[v+1] - tau[v]) * rate // Gamma(n, 1)
				lenZ += x - n
				lenVar += n
				sqZ += (x-n)*(x-n) - n
				sqVar += 2*n*n + 6*n
				if tau[v+1] < r.Period {
					endMean++
					endVar += 1 - 1/n
				}
			}
		}
		for _, s := range got {
			tau := f.tau[s.d]
			switch {
			case s.a == tau[s.v+1]:
				ends++
			case tau[s.v+1] < r.Period: // a window cut by T has only its sends before T
				rel = append(rel, (s.a-tau[s.v])/(tau[s.v+1]-tau[s.v]))
			}
		}
	}
	if z := lenZ / math.Sqrt(lenVar); math.Abs(z) > 4.5 {
		t.Errorf("windows' lengths: mean %.2f standard errors from Gamma(n_v, λN/k)'s", z)
	}
	if z := sqZ / math.Sqrt(sqVar); math.Abs(z) > 4.5 {
		t.Errorf("windows' lengths: spread %.2f standard errors from Gamma(n_v, λN/k)'s", z)
	}
	if z := (ends - endMean) / math.Sqrt(endVar); math.Abs(z) > 4.5 {
		t.Errorf("%v sends at the windows' ends, want %v (one a window): %.2f standard errors", ends, endMean, z)
	}
	slices.Sort(rel)
	var d float64
	for i, x := range rel {
		d = max(d, math.Abs(float64(i+1)/float64(len(rel))-x), math.Abs(x-float64(i)/float64(len(rel))))
	}
	if p := ksSurvival(d * math.Sqrt(float64(len(rel)))); p < 1e-4 {
		t.Errorf("sends inside their windows: Kolmogorov–Smirnov D = %.4g over %d, P = %.2g against uniform", d, len(rel), p)
	}
	t.Logf("%d windows (length z %.2f, spread z %.2f), %v sends at their ends (%.2f sd), %d inside (KS D = %.4f)", windows, lenZ/math.Sqrt(lenVar), sqZ/math.Sqrt(sqVar), ends, (ends-endMean)/math.Sqrt(endVar), len(rel), d)
}

// ksSurvival is P(√n·D > x) for the Kolmogorov–Smirnov statistic D of n
// draws from the law tested, as n → ∞.
func ksSurvival(x float64) float64 {
	if x < 0.3 {
		return 1
	}
	var p float64
	for k := 1; k <= 100; k++ {
		term := 2 * math.Exp(-2*float64(k*k)*x*x)
		if k%2 == 0 {
			term = -term
		}
		p += term
	}
	return min(1, max(0, p))
}

// serverRun's contract, against its fleet driven period by period from
// the same seed: the response is the area under the queues over the
// arrivals of the periods after the first tenth, and a run tips at the
// fifth period in a row whose board mean exceeds theta (then with no
// response). One setting that tips (k = 10, λ = 0.9, T = 50, far below
// the edge) and one that does not.
func TestServerRunContract(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    Refresh
		tips bool
	}{
		{Refresh{Dispatchers: 10, Load: 0.9, Period: 50, Service: H2Service(4)}, true},
		{Refresh{Dispatchers: 3, Load: 0.8, Period: 40}, false},
	} {
		const N, runs = 60, 50
		theta := max(3/(1-c.r.Load), 0.1*c.r.Period)
		tipAt, resp, err := serverRun(c.r, N, rand.New(rand.NewPCG(9, 10)), runs, theta, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := newServerFleet(c.r, N, rand.New(rand.NewPCG(9, 10)))
		var area, arrivals float64
		want, above := 0, 0
		for i := 1; i <= runs && want == 0; i++ {
			a, n := f.period(i > runs/10)
			area += a
			arrivals += n
			if f.mean() > theta {
				above++
			} else {
				above = 0
			}
			if above == 5 {
				want = i
			}
		}
		if tipAt != want || (want > 0) != c.tips {
			t.Errorf("%+v: tipped at %d, want %d (tips: %v)", c.r, tipAt, want, c.tips)
		}
		if w := area / arrivals; want == 0 && resp != w || want > 0 && !math.IsNaN(resp) {
			t.Errorf("%+v: response %v, want %v (NaN when tipped)", c.r, resp, w)
		}
	}
}
