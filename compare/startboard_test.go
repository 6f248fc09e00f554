package compare

import (
	"slices"
	"testing"

	"herd/meanfield"
	"herd/sim"
)

// A simulator start state's board for the refresh map: balanced, half and
// spread at the queue length given (a multiple of T resolved and
// rounded), empty and single (one server: nothing as N → ∞) empty.
func TestStartBoard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		st   sim.Start
		T    float64
		want []float64
	}{
		{"empty", sim.Start{Kind: sim.StartEmpty}, 10, meanfield.BoardEmpty()},
		{"single:5", sim.Start{Kind: sim.StartSingle, Value: 5}, 10, meanfield.BoardEmpty()},
		{"balanced:2", sim.Start{Kind: sim.StartBalanced, Value: 2}, 10, meanfield.BoardBalanced(2)},
		{"half:0.1T", sim.Start{Kind: sim.StartHalf, Value: 0.1, PerRefresh: true}, 36, meanfield.BoardHalf(4)},
		{"spread:3", sim.Start{Kind: sim.StartSpread, Value: 3}, 10, meanfield.BoardSpread(3)},
	} {
		if got := ModelBoard(c.st, c.T); !slices.Equal(got, c.want) {
			t.Errorf("%s at T = %g: %v, want %v", c.name, c.T, got, c.want)
		}
	}
}
