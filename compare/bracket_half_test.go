package compare

import (
	"math"
	"strings"
	"testing"
)

// TestBracketHalfWidth: with HalfWidth the bracket goes on until T_½'s 95%
// interval is at most that wide, leaving the bracket itself as it was; the
// points it runs in full report every replication; interrupted and resumed
// from its store, or run on one worker, it ends with the same points and
// T_½.
func TestBracketHalfWidth(t *testing.T) {
	t.Parallel()
	s := smallBracket()
	plain := mustBracket(t, s)
	w0 := plain.Half.Upper - plain.Half.Lower
	if !plain.Half.Bounded() || plain.HalfPoints != 0 {
		t.Fatalf("the plain bracket's T_½ %+v, %d points refined: want a bounded interval and none", plain.Half, plain.HalfPoints)
	}
	s.HalfWidth = w0 / 2
	full := mustBracket(t, s)
	h := full.Half
	if !h.Bounded() || h.Upper-h.Lower > s.HalfWidth {
		t.Errorf("T_½ %v [%v, %v] after %d points run in full: want an interval at most %v wide", h.Scaled, h.Lower, h.Upper, full.HalfPoints, s.HalfWidth)
	}
	if full.Lower != plain.Lower || full.Upper != plain.Upper || full.LowerCut != plain.LowerCut || full.UpperCut != plain.UpperCut {
		t.Errorf("the bracket moved: [%v, %v] cut [%v, %v], without HalfWidth [%v, %v] cut [%v, %v]",
			full.Lower, full.Upper, full.LowerCut, full.UpperCut, plain.Lower, plain.Upper, plain.LowerCut, plain.UpperCut)
	}
	complete := 0
	for _, p := range full.Points {
		if p.Runs == s.Runs && p.RunsCut == s.Runs {
			complete++
		}
	}
	if full.HalfPoints == 0 || complete < full.HalfPoints {
		t.Errorf("%d points refined, %d report all %d runs: want at least one, and each refined point complete", full.HalfPoints, complete, s.Runs)
	}
	if refit := FitTipHalf(full.Points); refit != h {
		t.Errorf("Half %+v is not the fit of the points it reports, %+v", h, refit)
	}
	// Interrupted during the refinement and resumed.
	resumed := interruptResume(t, s, full.Runs-5)
	samePoints(t, "resumed", resumed.Points, full.Points)
	if resumed.Half != h || resumed.HalfPoints != full.HalfPoints {
		t.Errorf("resumed: T_½ %+v after %d points, uninterrupted %+v after %d", resumed.Half, resumed.HalfPoints, h, full.HalfPoints)
	}
	one := s
	one.Workers = 1
	samePoints(t, "one worker", mustBracket(t, one).Points, full.Points)
	t.Logf("T_½ %.4f [%.4f, %.4f] from %d points, %d runs; refined (≤ %.4f): %.4f [%.4f, %.4f], %d points run in full, %d in all, %d runs",
		plain.Half.Scaled, plain.Half.Lower, plain.Half.Upper, len(plain.Points), plain.Runs, s.HalfWidth, h.Scaled, h.Lower, h.Upper, full.HalfPoints, len(full.Points), full.Runs)
}

// TestBracketHalfWidthBad: a negative, NaN or infinite HalfWidth, and one
// with a fixed grid, are errors naming it.
func TestBracketHalfWidthBad(t *testing.T) {
	t.Parallel()
	ok := BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9}
	for _, c := range []BracketSettings{
		{HalfWidth: -0.1}, {HalfWidth: math.NaN()}, {HalfWidth: math.Inf(1)}, {HalfWidth: 0.1, Fixed: true, Grid: []float64{3}},
	} {
		s := ok
		s.HalfWidth, s.Fixed, s.Grid = c.HalfWidth, c.Fixed, c.Grid
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "HalfWidth") {
			t.Errorf("HalfWidth %v, Fixed %v: err = %v, want one naming HalfWidth", c.HalfWidth, c.Fixed, err)
		}
	}
}
