package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"herd/fleet"
	"herd/sim"
)

// Grubbs' test on synthetic run means: one run far from the others warns,
// a plain spread does not.
func TestSpreadWarning(t *testing.T) {
	t.Parallel()
	mk := func(xs ...float64) []sim.Result {
		var r []sim.Result
		for _, x := range xs {
			r = append(r, sim.Result{ResponseMean: x})
		}
		return r
	}
	c := sim.Config{Servers: 100, Dispatchers: 1, Load: 0.9}
	// G = 2.44 > 2.27, the two-sided 1% critical value for 8 runs.
	if w := SpreadWarning(c, mk(10, 10.1, 9.9, 10.05, 9.95, 10, 10.02, 11)); len(w) != 1 || !strings.Contains(w[0], "run 7") {
		t.Errorf("one outlying run: %q", w)
	}
	if w := SpreadWarning(c, mk(10, 10.3, 9.7, 10.1, 9.9, 10.2, 9.8, 10)); len(w) != 0 {
		t.Errorf("a plain spread: %q", w)
	}
	if w := SpreadWarning(c, mk(10, 11)); len(w) != 0 {
		t.Errorf("two runs (no test): %q", w)
	}
}

// TestSimSweepWarnings: the warning that rare jobs carry a part of the
// load a run samples by luck fires on its threshold (λ·u > 0.1·(1 − λ),
// u = sim.UnseenWork(sizes, λ·N·horizon)) and only there, once per sizes, load
// and run length; Pareto's infinite moments are warned of as before, and
// a light Pareto (A = 10³⁰⁰, nearly det) is not called heavy-tailed.
func TestSimSweepWarnings(t *testing.T) {
	t.Parallel()
	h2 := func(c float64) fleet.Sizes { return fleet.Sizes{Kind: fleet.H2, Param: c} }
	cfg := func(z fleet.Sizes, servers int, horizon float64) sim.Config {
		return sim.Config{Servers: servers, Load: 0.9, Horizon: horizon, Sizes: z}
	}
	count := func(w []string, s string) int {
		n := 0
		for _, x := range w {
			if strings.Contains(x, s) {
				n++
			}
		}
		return n
	}
	const unseen = "jobs rarer than one per run"
	cases := []struct {
		name string
		cfgs []sim.Config
		want int
	}{
		// u = (ln J + 1)/J: J = 9 jobs, u = 0.355 warns; J = 4,500, u = 0.0021 does not.
		{"exp tiny", []sim.Config{cfg(fleet.Sizes{}, 1, 10)}, 1},
		{"exp", []sim.Config{cfg(fleet.Sizes{}, 25, 200)}, 0},
		// h2:1e4 at J = 4,500: half the work in jobs of probability 5·10⁻⁵.
		{"h2:1e4", []sim.Config{cfg(h2(1e4), 25, 200)}, 1},
		// h2:30 at 1,600 servers over 20,000: J = 2.9·10⁷.
		{"h2:30 large", []sim.Config{cfg(h2(30), 1600, 20000)}, 0},
		// Once per sizes, load and run length: two rows alike warn once,
		// another run length again.
		{"h2:1e4 twice", []sim.Config{cfg(h2(1e4), 25, 200), cfg(h2(1e4), 25, 200), cfg(h2(1e4), 25, 400)}, 2},
		{"pareto light", []sim.Config{cfg(fleet.Sizes{Kind: fleet.Pareto, Param: 1e300}, 25, 200)}, 0},
		{"pareto 1.5", []sim.Config{cfg(fleet.Sizes{Kind: fleet.Pareto, Param: 1.5}, 25, 200)}, 1},
	}
	for _, c := range cases {
		w := SimSweepWarnings(c.cfgs, 4)
		if n := count(w, unseen); n != c.want {
			t.Errorf("%s: %d warnings of rare jobs, want %d: %q", c.name, n, c.want, w)
		}
	}
	// The threshold itself: exp sizes warn exactly when
	// λ(ln J + 1)/J > 0.1(1 − λ), at λ = 0.9 for J < 676.5 jobs.
	for _, c := range []struct{ jobs, want int }{{670, 1}, {680, 0}} {
		cf := sim.Config{Servers: c.jobs, Load: 0.9, Horizon: 1 / 0.9}
		if n := count(SimSweepWarnings([]sim.Config{cf}, 4), unseen); n != c.want {
			t.Errorf("exp, J = %d: %d warnings, want %d", c.jobs, n, c.want)
		}
	}
	w := SimSweepWarnings([]sim.Config{cfg(fleet.Sizes{Kind: fleet.Pareto, Param: 1.5}, 25, 200)}, 4)
	if count(w, "E[S²] is infinite") != 1 || count(w, "E[S³] is infinite") != 1 {
		t.Errorf("pareto:1.5: %q, want its infinite second and third moments", w)
	}
	if w := SimSweepWarnings([]sim.Config{cfg(fleet.Sizes{Kind: fleet.Pareto, Param: 4}, 1600, 20000)}, 4); len(w) != 0 {
		t.Errorf("pareto:4, 1,600 servers: %q, want none", w)
	}
}

// SimGrid's configurations are nested loops over its lists, servers
// outermost and starts innermost; SimTasks seeds run i of each from the
// master seed and the configuration's key and names it "KEY rep=i".
func TestSimGridTasks(t *testing.T) {
	t.Parallel()
	g := SimGrid{Servers: []int{10, 20}, Dispatchers: []int{1}, Loads: []float64{0.5, 0.9}, Refreshes: []float64{0},
		Policies: []fleet.Policy{{Kind: fleet.Random}}, Tallies: []sim.Tally{sim.TallyNone}, Sizes: []fleet.Sizes{{}}, Starts: []fleet.Start{{}}}
	cs := g.Configs(sim.Config{Horizon: 100})
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%d/%g/%g", c.Servers, c.Load, c.Horizon))
	}
	if want := []string{"10/0.5/100", "10/0.9/100", "20/0.5/100", "20/0.9/100"}; !slices.Equal(got, want) {
		t.Errorf("Configs: %v, want %v", got, want)
	}
	tasks, ids := SimTasks(cs[:2], 3, 7)
	if len(tasks) != 6 || ids[4] != cs[1].Key()+" rep=1" || tasks[4].Seed != sim.Seed(7, cs[1].Key(), 1) || tasks[4].Config.Load != 0.9 {
		t.Errorf("SimTasks: %d tasks, ids %q", len(tasks), ids)
	}
	w := WatchTips(tasks)
	if len(w) != 6 || tasks[0].Config.Observe == nil {
		t.Errorf("WatchTips: %d watches, Observe set %t", len(w), tasks[0].Config.Observe != nil)
	}
}
