package compare

import (
	"strings"
	"testing"

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
