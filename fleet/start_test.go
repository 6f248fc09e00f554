package fleet

import (
	"math"
	"testing"
)

// ParseStart reads what String writes, and refuses what is not a start.
func TestParseStart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want Start
	}{
		{"empty", Start{Kind: StartEmpty}},
		{"balanced", Start{Kind: StartBalanced}},
		{"balanced:3", Start{Kind: StartBalanced, Value: 3}},
		{"half:0.1T", Start{Kind: StartHalf, Value: 0.1, PerRefresh: true}},
		{"spread:20", Start{Kind: StartSpread, Value: 20}},
		{"single:7", Start{Kind: StartSingle, Value: 7}},
		{"balanced:0T", Start{Kind: StartBalanced, PerRefresh: true}},
	} {
		st, err := ParseStart(c.text)
		if err != nil || st != c.want || st.String() != c.text {
			t.Errorf("ParseStart(%q) = %+v (%s), %v; want %+v", c.text, st, st, err, c.want)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"half", `fleet: start "half" needs a number, e.g. half:10 or half:0.1T`},
		{"half:-1", `fleet: start "half:-1": the number must be ≥ 0`},
		{"half:xT", `fleet: start "half:xT": the number must be ≥ 0`},
		{"spread:Inf", `fleet: start "spread:Inf": the number must be ≥ 0`},
		{"full:3", `fleet: unknown start "full:3": want empty, balanced:Q, half:B, spread:M or single:B`},
		{"empty:2", `fleet: start "empty:2" takes no parameter`},
	} {
		if _, err := ParseStart(c.text); err == nil || err.Error() != c.want {
			t.Errorf("ParseStart(%q): error %v, want %q", c.text, err, c.want)
		}
	}
	if s := (Start{Kind: 9}).String(); s != "start(9)" || StartKind(9).Valid() || StartKind(-1).Valid() || !StartSingle.Valid() {
		t.Errorf("an unknown kind: %q, valid %v", s, StartKind(9).Valid())
	}
}

// Resolved rounds a multiple of T to jobs; Total counts the jobs on n
// servers (half: the floor of n/2 servers; spread: n·M/2).
func TestStartJobs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		st             Start
		n              int
		T, jobs, total float64
	}{
		{Start{Kind: StartEmpty}, 10, 100, 0, 0},
		{Start{Kind: StartBalanced, Value: 3}, 10, 100, 3, 30},
		{Start{Kind: StartHalf, Value: 0.1, PerRefresh: true}, 11, 36, 4, 20},
		{Start{Kind: StartSpread, Value: 99}, 100, 1, 99, 4950},
		{Start{Kind: StartSingle, Value: 2.5}, 100, 1, 3, 3},
	} {
		if j, tot := c.st.Resolved(c.T), c.st.Total(c.n, c.T); j != c.jobs || tot != c.total {
			t.Errorf("%s on %d servers at T = %g: %g jobs, %g in all; want %g, %g", c.st, c.n, c.T, j, tot, c.jobs, c.total)
		}
	}
	if tot := (Start{Kind: StartBalanced, Value: 1e308}).Total(1000, 1); !math.IsInf(tot, 1) {
		t.Errorf("1e308 jobs on 1000 servers: %g, want +Inf (never wrapped)", tot)
	}
}
