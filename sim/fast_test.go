package sim

import (
	"context"
	"testing"

	"herd/fleet"
)

// The specialised arrival loops (fast.go) give bit-identical results to
// the generic loop: same draws in the same order.
func TestFastLoops(t *testing.T) {
	ll := fleet.Policy{Kind: fleet.LeastLoaded}
	sq2 := fleet.Policy{Kind: fleet.BestOfD, D: 2}
	cases := []Config{
		{Servers: 100, Refresh: 10, Policy: ll},
		{Servers: 50, Dispatchers: 5, Refresh: 30, Policy: ll, Tally: TallyOwn},
		{Servers: 50, Dispatchers: 3, Refresh: 30, Policy: ll, Tally: TallyShared, Partitioned: true},
		{Servers: 50, Dispatchers: 3, Refresh: 30, Policy: ll, Tally: TallyScaled},
		{Servers: 40, Dispatchers: 4, Refresh: 300, Policy: ll, Tally: TallyOwn, Start: fleet.Start{Kind: fleet.StartBalanced, Value: 3}},
		{Servers: 100, Policy: sq2},
		{Servers: 30, Dispatchers: 3, Policy: sq2, Load: 0.95},
	}
	for i, c := range cases {
		c.Horizon = 2000
		var got [2]Result
		for j, slow := range []bool{false, true} {
			noFast = slow
			res, err := Run(c, uint64(i+1))
			noFast = false
			if err != nil {
				t.Fatal(err)
			}
			got[j] = res
		}
		if got[0].Arrivals == 0 || got[0].ResponseMean != got[1].ResponseMean || got[0].BoardMean != got[1].BoardMean ||
			got[0].Arrivals != got[1].Arrivals || got[0].ProbesMean != got[1].ProbesMean {
			t.Errorf("case %d %+v: fast loop %+v, generic %+v", i, c, got[0], got[1])
		}
	}
}

// A Stepper advanced in uneven steps, paused and resumed, ends with Run's
// result.
func TestStepper(t *testing.T) {
	t.Parallel()
	c := Config{Servers: 40, Dispatchers: 4, Refresh: 30, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn, Horizon: 3000}
	want, err := Run(c, 9)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStepper(c, 9)
	if err != nil {
		t.Fatal(err)
	}
	for u := 7.0; st.Advance(context.Background(), u); u *= 1.7 {
	}
	if got := st.Result(); got.ResponseMean != want.ResponseMean || got.Arrivals != want.Arrivals || got.BoardMean != want.BoardMean {
		t.Errorf("stepped %+v, Run %+v", got, want)
	}
}
