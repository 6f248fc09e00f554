package compare

import (
	"testing"

	"herd/sim"
)

// herd plan weighs least loaded, best of D ≥ 2 (p2c is best of two),
// round robin and random, and nothing else.
func TestParsePlanPolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want sim.Policy
		ok   bool
	}{
		{"ll", sim.Policy{Kind: sim.LeastLoaded}, true},
		{"p2c", sim.Policy{Kind: sim.BestOfD, D: 2}, true},
		{"sqd:3", sim.Policy{Kind: sim.BestOfD, D: 3}, true},
		{"rr", sim.Policy{Kind: sim.RoundRobin}, true},
		{"random", sim.Policy{Kind: sim.Random}, true},
		{"sqd:1", sim.Policy{}, false},
		{"oracle", sim.Policy{}, false},
		{"p3c", sim.Policy{}, false},
	} {
		got, err := ParsePlanPolicy(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParsePlanPolicy(%q) = %+v, %v; want %+v, ok %t", c.in, got, err, c.want, c.ok)
		}
	}
}
