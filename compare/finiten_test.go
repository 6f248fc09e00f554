package compare

import (
	"context"
	"math"
	"testing"
)

// TestBracketMiss checks the distance of a prediction from a bracket, in
// scaled units and in bracket widths.
func TestBracketMiss(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		x, lo, hi    float64
		miss, widths float64
		holds        bool
	}{
		{"inside", 3.3, 3.2, 3.4, 0, 0, true},
		{"below, half a width", 3.15, 3.2, 3.4, 0.05, 0.25, true},
		{"above, one width", 3.6, 3.2, 3.4, 0.2, 1, true},
		{"above, two widths", 3.8, 3.2, 3.4, 0.4, 2, false},
	}
	for _, c := range cases {
		m, w, h := bracketMiss(c.x, c.lo, c.hi)
		if math.Abs(m-c.miss) > 1e-12 || math.Abs(w-c.widths) > 1e-9 || h != c.holds {
			t.Errorf("%s: got (%.4g, %.4g, %v), want (%.4g, %.4g, %v)", c.name, m, w, h, c.miss, c.widths, c.holds)
		}
	}
}

// TestFiniteEdgeCheckK5 sets the prediction at k = 5, λ = 0.8, N = 100
// against the bracket herd bracket measured for issue 45 (--servers 100
// --dispatchers 5 --load 0.8, seed 1: [3.47952, 3.5586], model edge
// 3.16320): the row must hold (within one bracket width).
func TestFiniteEdgeCheckK5(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the particle map (about 15 s)")
	}
	t.Parallel()
	br := &BracketResult{Lower: 3.47952, Upper: 3.5586, ModelScaled: 3.1631964844955442}
	row, err := FiniteEdgeCheck(context.Background(), FiniteEdgeSettings{Servers: 100, Dispatchers: 5, Load: 0.8,
		Bracket: br, Replications: 6, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !row.Holds {
		t.Errorf("predicted %.4f [%.4f, %.4f], bracket [%.4f, %.4f]: %.2f widths off", row.Predicted, row.PredictedLower, row.PredictedUpper, row.BracketLower, row.BracketUpper, row.Widths)
	}
	if row.Sizes != "exp" || row.ModelScaled != br.ModelScaled {
		t.Errorf("row %+v", row)
	}
}
