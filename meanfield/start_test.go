package meanfield

import (
	"slices"
	"testing"

	"herd/fleet"
)

// A fleet start state's board: balanced, half and spread at the queue
// length given (a multiple of T resolved and rounded), empty and single
// (one server: nothing as N → ∞) empty; a herd start's backlog is at
// least 1.
func TestStartBoard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		st   fleet.Start
		T    float64
		want []float64
	}{
		{"empty", fleet.Start{Kind: fleet.StartEmpty}, 10, BoardEmpty()},
		{"single:5", fleet.Start{Kind: fleet.StartSingle, Value: 5}, 10, BoardEmpty()},
		{"balanced:2", fleet.Start{Kind: fleet.StartBalanced, Value: 2}, 10, BoardBalanced(2)},
		{"half:0.1T", fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 36, BoardHalf(4)},
		{"half:0.1T", fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 4, BoardEmpty()},
		{"spread:3", fleet.Start{Kind: fleet.StartSpread, Value: 3}, 10, BoardSpread(3)},
	} {
		if got := StartBoardAt(c.st, c.T); c.st.String() != c.name || !slices.Equal(got, c.want) {
			t.Errorf("%s at T = %g: %s, %v; want %v", c.name, c.T, c.st, got, c.want)
		}
	}
	for _, c := range []struct {
		h    fleet.Start
		T    float64
		want fleet.Start
		q    int
	}{
		{fleet.Start{}, 36, fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 4},
		{fleet.Start{}, 4, fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 1},
		{fleet.Start{Kind: fleet.StartSpread, Value: 0.5, PerRefresh: true}, 9, fleet.Start{Kind: fleet.StartSpread, Value: 0.5, PerRefresh: true}, 5},
	} {
		if st := herdStart(c.h); st != c.want || !slices.Equal(HerdStartBoard(c.h, c.T), StartBoard(st, c.q)) {
			t.Errorf("%+v at T = %g: %s, board %v; want %s, backlog %d", c.h, c.T, st, HerdStartBoard(c.h, c.T), c.want, c.q)
		}
	}
}
