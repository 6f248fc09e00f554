package compare

import (
	"math"
	"strings"
	"testing"

	"herd/fleet"
	"herd/sim"
)

func tipRun(t *testing.T, c sim.Config, refreshes int, seed uint64) (bool, int) {
	t.Helper()
	d := NewDetector(c.Load, c.Refresh, true)
	c.Observe = d.Observe
	c.Horizon = float64(refreshes) * c.Refresh
	c.NoWarmup = true
	if _, err := sim.Run(c, seed); err != nil {
		t.Fatal(err)
	}
	return d.Tipped()
}

// The detector calls the herd (compare/validation.md): 5 dispatchers,
// λ = 0.9, least loaded with own tallies, below the edge from a balanced
// start (T(1−λ)² = 2 < 2.90), and above it from a start with half the
// servers at 0.1T (T = 1,100: the published herd of 449).
func TestDetectorCallsHerd(t *testing.T) {
	t.Parallel()
	base := sim.Config{Servers: 100, Dispatchers: 5, Load: 0.9, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn}
	cases := []struct {
		name  string
		T     float64
		start fleet.Start
	}{
		{"below the edge, balanced start", 200, fleet.Start{Kind: fleet.StartBalanced}},
		{"above the edge, half 0.1T", 1100, fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}},
	}
	for _, tc := range cases {
		for seed := uint64(1); seed <= 3; seed++ {
			c := base
			c.Refresh, c.Start = tc.T, tc.start
			tipped, at := tipRun(t, c, 300, seed)
			if !tipped {
				t.Errorf("%s, seed %d: not tipped in 300 refreshes", tc.name, seed)
			} else {
				t.Logf("%s, seed %d: tipped at refresh %d", tc.name, seed, at)
			}
		}
	}
}

// The detector does not misfire where the published test did: 80% load,
// 3 dispatchers, T = 20–45, 100 or 800 servers, where the mean time stays
// 3.5–5.6 with no herd (validation.md). Nor does a 2-dispatcher system
// that recovers from a half start with 0.2T.
func TestDetectorNoHerd(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 800} {
		for _, T := range []float64{20, 30, 45} {
			c := sim.Config{Servers: n, Dispatchers: 3, Load: 0.8, Refresh: T, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn}
			refreshes := 400
			if n == 800 {
				refreshes = 100
			}
			if tipped, at := tipRun(t, c, refreshes, 1); tipped {
				t.Errorf("N = %d, T = %v: called tipped at refresh %d", n, T, at)
			}
		}
	}
	for _, T := range []float64{5, 20, 100, 300} {
		c := sim.Config{Servers: 100, Dispatchers: 2, Load: 0.9, Refresh: T, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn,
			Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.2, PerRefresh: true}}
		if tipped, at := tipRun(t, c, 200, 1); tipped {
			t.Errorf("2 dispatchers, half 0.2T, T = %v: called tipped at refresh %d", T, at)
		}
	}
}

func TestDetectorWindow(t *testing.T) {
	t.Parallel()
	d := &Detector{Threshold: 10, Window: 3}
	for i, m := range []float64{50, 50, 5, 50, 50, 50, 50} {
		d.Observe(sim.BoardStat{Mean: m})
		tipped, at := d.Tipped()
		if want := i >= 5; tipped != want {
			t.Fatalf("after record %d: tipped %v, want %v", i, tipped, want)
		}
		if tipped && at != 5 {
			t.Fatalf("tipped at %d, want 5", at)
		}
	}
}

// TestDetectorBlind checks where the detector can tell a herd from a
// working state (DetectorBlind): always with exponential, Erlang and
// deterministic sizes (random dispatching's queue is then at most
// λ/(1−λ), exactly that for exponential sizes), and with h2:10 at λ = 0.9
// only once 0.1·T passes three times random dispatching's 45.45 jobs
// (T > 1,363.5), and it says so in the warnings of a sweep row.
func TestDetectorBlind(t *testing.T) {
	t.Parallel()
	for _, z := range []fleet.Sizes{{Kind: fleet.Exp}, {Kind: fleet.Erlang, Param: 4}, {Kind: fleet.Det}} {
		for _, lam := range []float64{0.1, 0.5, 0.9, 0.99, 0.999} {
			for _, T := range []float64{0.1, 1, 10, 1000} {
				L, blind := DetectorBlind(lam, T, z)
				if blind {
					t.Errorf("%v, λ = %v, T = %v: blind (L = %v, θ = %v)", z, lam, T, L, TipThreshold(lam, T))
				}
				if want := lam / (1 - lam); z.Kind == fleet.Exp && math.Abs(L-want) > 1e-12*want {
					t.Errorf("exp, λ = %v: L = %v, want λ/(1−λ) = %v", lam, L, want)
				}
			}
		}
	}
	h2 := fleet.Sizes{Kind: fleet.H2, Param: 10}
	for _, c := range []struct {
		T     float64
		blind bool
	}{{20, true}, {300, true}, {1363, true}, {1364, false}, {3000, false}} {
		L, blind := DetectorBlind(0.9, c.T, h2)
		if blind != c.blind || math.Abs(L-45.45) > 1e-9 {
			t.Errorf("h2:10, λ = 0.9, T = %v: L = %v, blind %v, want 45.45 and %v", c.T, L, blind, c.blind)
		}
	}
	c := sim.Config{Servers: 100, Dispatchers: 5, Load: 0.9, Refresh: 20, Sizes: h2, Warmup: 10, Horizon: 100}
	runs := []SimRun{{Tipped: true, TipTime: 50}, {}}
	w := tipWarnings(c, runs)
	if len(w) != 1 || !strings.Contains(w[0], "lost its margin") || !strings.Contains(w[0], "45.5 jobs per server") || strings.Contains(w[0], "tipped during measurement") {
		t.Errorf("blind row's warnings %q", w)
	}
	c.Sizes = fleet.Sizes{Kind: fleet.Pareto, Param: 1.5}
	if w := tipWarnings(c, runs); len(w) != 1 || !strings.Contains(w[0], "infinite mean queue") {
		t.Errorf("pareto:1.5 row's warnings %q", w)
	}
	c.Sizes = fleet.Sizes{Kind: fleet.Exp}
	if w := tipWarnings(c, runs); len(w) != 1 || !strings.Contains(w[0], "tipped during measurement") {
		t.Errorf("exp row's warnings %q", w)
	}
}
