package fixedpoint

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"
)

// TestFollowChain: Follow with a Chain that corrects every trial of a chain
// at once (each on its own goroutine) gives the same result as the
// one-at-a-time corrector, and the trials it keeps are the corrector's calls
// in the same order; the chains hold more than one trial, so the test
// exercises the trials after failures.
func TestFollowChain(t *testing.T) {
	// The border collision of ExampleFollow: x ↦ x/2 + μ/2 for x ≥ 1,
	// x ↦ 3x − 2 below; stable fixed point x = μ while μ ≥ 1. The
	// corrector's answer depends on tight (fewer iterations when loose), so
	// a trial with the wrong tightness changes the points.
	border := func(x, mu float64) float64 {
		if x >= 1 {
			return x/2 + mu/2
		}
		return 3*x - 2
	}
	// A fold: x ↦ x² + c(μ) with c = (1 − μ)/4 has the stable fixed point
	// (1 − √μ)/2 for μ > 0; the corrector rejects points whose residual
	// does not fall below 1e-12 in its iterations, which happens well above
	// μ = 0 (slow convergence), and reports no border distance, so the loss is found by
	// bisection alone.
	fold := func(x, mu float64) float64 { return x*x + (1-mu)/4 }
	cases := []struct {
		name  string
		f     func(x, mu float64) float64
		dist  bool
		start BranchPoint
		muMin float64
		lost  bool
	}{
		{"border", border, true, BranchPoint{Mu: 3, X: []float64{3}, Border: 2}, 0.5, true},
		{"border-no-distance", border, false, BranchPoint{Mu: 3, X: []float64{3}, Border: math.NaN()}, 0.5, true},
		{"fold", fold, false, BranchPoint{Mu: 0.81, X: []float64{0.05}, Border: math.NaN()}, 1e-3, true},
		{"to-muMin", border, true, BranchPoint{Mu: 3, X: []float64{3}, Border: 2}, 1.5, false},
	}
	for _, c := range cases {
		for _, closeFirst := range []bool{false, true} {
			name := c.name
			if closeFirst {
				name += "-close-first"
			}
			t.Run(name, func(t *testing.T) {
				var mu sync.Mutex
				var calls []float64
				correct := func(m float64, guess []float64, tight bool) (BranchPoint, bool, error) {
					n := 60
					if tight {
						n = 400
					}
					x := guess[0]
					for i := 0; i < n && math.Abs(x) < 1e6; i++ {
						x = c.f(x, m)
					}
					ok := math.Abs(c.f(x, m)-x) <= 1e-12 && (!c.dist || x >= 1)
					g := math.NaN()
					if c.dist {
						g = x - 1
					}
					mu.Lock()
					calls = append(calls, m)
					mu.Unlock()
					return BranchPoint{Mu: m, X: []float64{x}, Converged: ok, Border: g}, ok, nil
				}
				s := &FollowSettings{RelTol: 1e-6}
				if closeFirst {
					s.CloseFirst = func(BranchPoint) bool { return true }
				}
				one, err := Follow(correct, c.start, c.muMin, s)
				if err != nil {
					t.Fatal(err)
				}
				seq := calls
				calls = nil
				long := 0
				var kept []float64
				chain := func(ts []Trial) []TrialResult {
					if len(ts) > 1 {
						long++
					}
					out := make([]TrialResult, len(ts))
					var wg sync.WaitGroup
					for i, tr := range ts {
						wg.Add(1)
						go func() {
							defer wg.Done()
							pt, ok, err := correct(tr.Mu, tr.Guess, tr.Tight)
							out[i] = TrialResult{Point: pt, OK: ok, Err: err}
						}()
					}
					wg.Wait()
					for i, r := range out {
						kept = append(kept, ts[i].Mu)
						if r.OK || r.Err != nil {
							return out[:i+1]
						}
					}
					return out
				}
				sc := *s
				sc.Chain = chain
				par, err := Follow(correct, c.start, c.muMin, &sc)
				if err != nil {
					t.Fatal(err)
				}
				// %v, not reflect.DeepEqual: a NaN Border or LostAt equals itself.
				if fmt.Sprintf("%+v", *one) != fmt.Sprintf("%+v", *par) {
					t.Errorf("with Chain: lost %v at %v, last %v, %d steps; one at a time: lost %v at %v, last %v, %d steps",
						par.Lost, par.LostAt, par.Last().Mu, par.Steps, one.Lost, one.LostAt, one.Last().Mu, one.Steps)
				}
				if !reflect.DeepEqual(kept, seq) {
					t.Errorf("trials kept %v, corrector calls one at a time %v", kept, seq)
				}
				if one.Lost != c.lost {
					t.Errorf("lost %v, want %v", one.Lost, c.lost)
				}
				if c.lost && long == 0 {
					t.Errorf("no chain held more than one trial")
				}
				t.Logf("%d steps, lost %v at %.9g, last %.9g; %d chains of more than one trial, %d corrector calls with Chain",
					one.Steps, one.Lost, one.LostAt, one.Last().Mu, long, len(calls))
			})
		}
	}
}

// TestFollowCloseFirst: on a branch lost at μ* (the corrector succeeds
// exactly when μ ≥ μ*, and gives no border distance), Follow with
// CloseFirst brackets the loss as Follow does, to RelTol/2 relative with
// the failure below μ* and the last point above. Over 200 losses spread
// evenly it makes fewer failing trials in all: it saves the bisection's
// failures when the loss lies just below a point reached, and may cost one
// more elsewhere (the bisection's grid shifts by the closing trial's step).
func TestFollowCloseFirst(t *testing.T) {
	const relTol = 1e-4
	fewer, totP, totC := 0, 0, 0
	for i := range 200 {
		loss := 1 + float64(i)/199*0.9
		run := func(closeFirst bool) (*FollowResult, int) {
			fails := 0
			correct := func(m float64, guess []float64, tight bool) (BranchPoint, bool, error) {
				ok := m >= loss
				if !ok {
					fails++
				}
				return BranchPoint{Mu: m, X: []float64{m}, Converged: ok, Border: math.NaN()}, ok, nil
			}
			s := &FollowSettings{RelTol: relTol}
			if closeFirst {
				s.CloseFirst = func(BranchPoint) bool { return true }
			}
			r, err := Follow(correct, BranchPoint{Mu: 3, X: []float64{3}, Border: math.NaN()}, 0.5, s)
			if err != nil {
				t.Fatal(err)
			}
			return r, fails
		}
		plain, pf := run(false)
		cf, cff := run(true)
		for _, r := range []*FollowResult{plain, cf} {
			if last := r.Last().Mu; !r.Lost || !(r.LostAt < loss && loss <= last) || last-r.LostAt > relTol*last/2 {
				t.Fatalf("loss at %v: lost %v, bracket [%v, %v]", loss, r.Lost, r.LostAt, last)
			}
		}
		if cff < pf {
			fewer++
		}
		totP += pf
		totC += cff
	}
	if fewer == 0 || totC >= totP {
		t.Errorf("CloseFirst: fewer failing trials for %d of 200 losses, %d in all against %d without", fewer, totC, totP)
	}
	t.Logf("CloseFirst made fewer failing trials for %d of 200 losses; %d in all against %d", fewer, totC, totP)
}

// TestExtrapolate: the secant predictor is exact on a linear branch and
// pads the shorter vector with zeros.
func TestExtrapolate(t *testing.T) {
	t.Parallel()
	// x(μ) = (μ, 2μ, 1 − μ) at μ = 1 and 2, extrapolated to 2.5; the first
	// point is given without its zero third entry's neighbour (len 2 → 3).
	x0 := []float64{1, 2}
	x1 := []float64{2, 4, 1}
	got := Extrapolate(nil, x0, x1, 1, 2, 2.5)
	want := []float64{2.5, 5, 1.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("x[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if got := Extrapolate(nil, x0, x1, 2, 2, 3); got[0] != 2 || got[2] != 1 {
		t.Errorf("μ0 = μ1: %v, want a copy of x1", got)
	}
}

// TestBorderEstimate: g(μ) = 3(μ − 0.7) is zero at 0.7; a branch followed
// down from μ = 1 meets it there. Unusable inputs say so.
func TestBorderEstimate(t *testing.T) {
	t.Parallel()
	g := func(mu float64) float64 { return 3 * (mu - 0.7) }
	if mu, ok := BorderEstimate(1, g(1), 0.9, g(0.9)); !ok || math.Abs(mu-0.7) > 1e-14 {
		t.Errorf("got %v (%v), want 0.7", mu, ok)
	}
	for _, c := range [][4]float64{{1, 0.5, 0.9, 0.6}, {1, 0.5, 1, 0.4}, {1, 0.5, 0.9, -0.1}, {1, math.NaN(), 0.9, 0.1}} {
		if _, ok := BorderEstimate(c[0], c[1], c[2], c[3]); ok {
			t.Errorf("%v accepted", c)
		}
	}
}
