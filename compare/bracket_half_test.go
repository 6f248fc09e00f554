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
	// Interrupted at several places and resumed: the same result; and
	// what the interrupted bracket reports of a point is a part of what
	// the whole one does (no run not yet known counted as a survivor).
	byX := map[float64]PointStat{}
	for _, p := range full.Points {
		byX[p.Scaled] = p
	}
	for stop := 7; stop < full.Runs; stop += 7 {
		resumed, cut := interruptResume(t, s, stop)
		samePoints(t, "resumed", resumed.Points, full.Points)
		if resumed.Half != h || resumed.HalfPoints != full.HalfPoints {
			t.Errorf("cut after %d runs, resumed: T_½ %+v after %d points, uninterrupted %+v after %d", stop, resumed.Half, resumed.HalfPoints, h, full.HalfPoints)
		}
		for _, p := range cut.Points {
			w := byX[p.Scaled]
			if p.Tipped > w.Tipped || p.Runs-p.Tipped > w.Runs-w.Tipped {
				t.Errorf("cut after %d runs: T(1−λ)² = %v reports %d of %d tipped, the whole bracket %d of %d", stop, p.Scaled, p.Tipped, p.Runs, w.Tipped, w.Runs)
			}
		}
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

// TestBracketHalfWidthCap: a HalfWidth no bracket reaches adds exactly
// HalfMaxPoints points and stops, its interval still wider.
func TestBracketHalfWidthCap(t *testing.T) {
	t.Parallel()
	s := smallBracket()
	plain := mustBracket(t, s)
	s.HalfWidth = 1e-6
	r := mustBracket(t, s)
	if added := len(r.Points) - len(plain.Points); added != HalfMaxPoints || r.Half.Upper-r.Half.Lower <= s.HalfWidth {
		t.Errorf("%d points added, T_½ [%v, %v]: want %d and an interval wider than %v", added, r.Half.Lower, r.Half.Upper, HalfMaxPoints, s.HalfWidth)
	}
}

// TestHalfTarget: refineHalf's points turn through T_½ − d, T_½ + d and
// T_½ (d = ln 4/|slope|); a point of the bracket within d/4 whose table
// leaves runs out is taken up, one whose table is whole is passed over,
// and a new point is moved on by Resolution/4 past a point visited.
func TestHalfTarget(t *testing.T) {
	t.Parallel()
	const u = unknown
	b := &bracketer{s: smallBracket().withDefaults(), points: map[float64]*PointStat{},
		reps: map[float64][]int{}, past: map[float64][]bool{}, asked: map[float64]int{}}
	add := func(x float64, asked int, reps ...int) {
		b.points[x] = &PointStat{Scaled: x}
		b.reps[x], b.past[x], b.asked[x] = reps, make([]bool, len(reps)), asked
	}
	add(3.0, qAll, 5, 5, 5, 5)                            // all tipped: whole
	add(3.5, qAll, 5, -1, u, u)                           // settled at its first survivor: 2 of 4 reported
	add(4.0, qAtMostOne, -1, -1, -1, u)                   // at most one: 3 survivors settle it
	h := TipHalf{Scaled: 3.55, Slope: -math.Log(4) / 0.4} // d = 0.4
	for _, c := range []struct {
		i    int
		want float64
	}{
		{0, 3.15}, // 3.55 − 0.4: nothing within 0.1, a new point
		{1, 4.0},  // 3.95: 4.0 within 0.1 and not whole
		{2, 3.5},  // 3.55: 3.5 within 0.1 and not whole
		{3, 3.15},
	} {
		if got := b.halfTarget(h, c.i); got != c.want {
			t.Errorf("point %d: %v, want %v", c.i, got, c.want)
		}
	}
	add(3.95, qEvery, -1, -1, -1, -1) // run in full
	add(3.15, qEvery, 5, 5, -1, 5)
	add(3.12, qAll, 5, 5, 5, 5) // whole without qEvery: passed over, and not named again
	b.asked[4.0] |= qEvery
	for _, c := range []struct {
		i    int
		want float64
	}{
		{0, 3.1},  // 3.15 visited (3.12 whole, passed over): on by −0.05
		{1, 4.05}, // 3.95 and 4.0 run in full: on by +0.05 twice
		{2, 3.5},  // still not whole
	} {
		if got := b.halfTarget(h, c.i); got != c.want {
			t.Errorf("after: point %d: %v, want %v", c.i, got, c.want)
		}
	}
}
