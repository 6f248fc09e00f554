package fleet

import "testing"

// ParsePolicy reads what String writes, and refuses what is not a policy
// with the words herd sim prints (after its fleet: prefix).
func TestParsePolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want Policy
	}{
		{"random", Policy{Kind: Random}},
		{"rr", Policy{Kind: RoundRobin}},
		{"ll", Policy{Kind: LeastLoaded}},
		{"sqd:3", Policy{Kind: BestOfD, D: 3}},
		{"sq2", Policy{Kind: BestOfD, D: 2}},
		{"left:2", Policy{Kind: Left, D: 2}},
		{"firstdiff:2", Policy{Kind: FirstDiff, D: 2}},
		{"oracle", Policy{Kind: Oracle}},
	} {
		p, err := ParsePolicy(c.text)
		if err != nil || p != c.want || p.String() != c.text {
			t.Errorf("ParsePolicy(%q) = %+v (%s), %v; want %+v", c.text, p, p, err, c.want)
		}
	}
	if p, err := ParsePolicy(" sqd:2 "); err != nil || p != (Policy{Kind: BestOfD, D: 2}) || p.String() != "sq2" {
		t.Errorf(`ParsePolicy(" sqd:2 ") = %+v (%s), %v; want sq2`, p, p, err)
	}
	for _, c := range []struct{ text, want string }{
		{"", `fleet: unknown policy "": want random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or oracle`},
		{"lll", `fleet: unknown policy "lll": want random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or oracle`},
		{"greedy:2", `fleet: unknown policy "greedy:2": want random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or oracle`},
		{"sqd", `fleet: policy "sqd" needs a number of probes, e.g. sqd:2`},
		{"sqd:0", `fleet: policy "sqd:0": D must be an integer ≥ 1`},
		{"sqd:x", `fleet: policy "sqd:x": D must be an integer ≥ 1`},
		{"left:-1", `fleet: policy "left:-1": D must be an integer ≥ 1`},
		{"random:2", `fleet: policy "random:2" takes no parameter`},
		{"sq2:3", `fleet: policy "sq2:3" takes no parameter (use sqd:D)`},
	} {
		p, err := ParsePolicy(c.text)
		if err == nil || err.Error() != c.want || p != (Policy{}) {
			t.Errorf("ParsePolicy(%q) = %+v, %v; want the error %s", c.text, p, err, c.want)
		}
	}
	if got := (Policy{Kind: BestOfD, D: 3, WithReplacement: true}).String(); got != "sqd:3" {
		t.Errorf("sqd:3 with replacement writes %q, want sqd:3", got)
	}
	if got := (Policy{Kind: 99}).String(); got != "policy(99)" {
		t.Errorf("an unknown kind writes %q, want policy(99)", got)
	}
}

// ParseBallsPolicy reads what BallsPolicyName writes, Greedy[D] with
// replacement, and refuses the queueing words.
func TestParseBallsPolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want Policy
	}{
		{"uniform", Policy{Kind: Random}},
		{"greedy:3", Policy{Kind: BestOfD, D: 3, WithReplacement: true}},
		{"left:2", Policy{Kind: Left, D: 2}},
		{"firstdiff:4", Policy{Kind: FirstDiff, D: 4}},
	} {
		p, err := ParseBallsPolicy(c.text)
		if err != nil || p != c.want || BallsPolicyName(p) != c.text {
			t.Errorf("ParseBallsPolicy(%q) = %+v (%s), %v; want %+v", c.text, p, BallsPolicyName(p), err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"greedy", `fleet: policy "greedy" needs a number of probes, e.g. greedy:2`},
		{"greedy:0", `fleet: policy "greedy:0": D must be an integer ≥ 1`},
		{"left:x", `fleet: policy "left:x": D must be an integer ≥ 1`},
		{"uniform:2", `fleet: policy "uniform:2" takes no parameter`},
		{"sq2", `fleet: unknown policy "sq2": want uniform, greedy:D, left:D or firstdiff:D`},
	} {
		p, err := ParseBallsPolicy(c.text)
		if err == nil || err.Error() != c.want || p != (Policy{}) {
			t.Errorf("ParseBallsPolicy(%q) = %+v, %v; want the error %s", c.text, p, err, c.want)
		}
	}
	if got := BallsPolicyName(Policy{Kind: LeastLoaded}); got != "ll" {
		t.Errorf("BallsPolicyName(ll) = %q, want String's ll", got)
	}
}
