package compare

import (
	"testing"

	"herd/fleet"
)

// herd plan weighs least loaded, best of D ≥ 2 (p2c is best of two),
// round robin and random, and nothing else.
func TestParsePlanPolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want fleet.Policy
		ok   bool
	}{
		{"ll", fleet.Policy{Kind: fleet.LeastLoaded}, true},
		{"p2c", fleet.Policy{Kind: fleet.BestOfD, D: 2}, true},
		{"sqd:3", fleet.Policy{Kind: fleet.BestOfD, D: 3}, true},
		{"rr", fleet.Policy{Kind: fleet.RoundRobin}, true},
		{"random", fleet.Policy{Kind: fleet.Random}, true},
		{"sqd:1", fleet.Policy{}, false},
		{"oracle", fleet.Policy{}, false},
		{"p3c", fleet.Policy{}, false},
	} {
		got, err := ParsePlanPolicy(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParsePlanPolicy(%q) = %+v, %v; want %+v, ok %t", c.in, got, err, c.want, c.ok)
		}
	}
}
