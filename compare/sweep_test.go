package compare

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"testing"

	"herd/fleet"
	"herd/meanfield"
)

// ModelGrid expands policy outermost and servers innermost, and stops at
// the check's first error with no points.
func TestModelGridOrderAndCheck(t *testing.T) {
	t.Parallel()
	pols := []fleet.Policy{{Kind: fleet.Random}, {Kind: fleet.BestOfD, D: 2}}
	var seen []ModelPoint
	pts, err := ModelGrid(pols, []float64{0.5, 0.9}, []float64{0}, []int{0, 10}, func(i int, p ModelPoint) error {
		if i != len(seen) {
			t.Errorf("check called with index %d after %d points", i, len(seen))
		}
		seen = append(seen, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ModelPoint{
		{pols[0], 0.5, 0, 0}, {pols[0], 0.5, 0, 10}, {pols[0], 0.9, 0, 0}, {pols[0], 0.9, 0, 10},
		{pols[1], 0.5, 0, 0}, {pols[1], 0.5, 0, 10}, {pols[1], 0.9, 0, 0}, {pols[1], 0.9, 0, 10},
	}
	if !reflect.DeepEqual(pts, want) {
		t.Errorf("points\n got %v\nwant %v", pts, want)
	}
	stop := errors.New("too many")
	pts, err = ModelGrid(pols, []float64{0.5}, []float64{0}, []int{0, 10}, func(i int, _ ModelPoint) error {
		if i == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || pts != nil {
		t.Errorf("got %v, %v; want nil and the check's error", pts, err)
	}
}

// ParseModelPolicy reads the policies with a classic model as fleet does
// (the names herd model prints back), and refuses the others, and what is
// no policy, with herd model's words.
func TestParseModelPolicy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want fleet.Policy
	}{
		{"random", fleet.Policy{Kind: fleet.Random}},
		{"rr", fleet.Policy{Kind: fleet.RoundRobin}},
		{"sq2", fleet.Policy{Kind: fleet.BestOfD, D: 2}},
		{"sqd:3", fleet.Policy{Kind: fleet.BestOfD, D: 3}},
		{"ll", fleet.Policy{Kind: fleet.LeastLoaded}},
	} {
		p, err := ParseModelPolicy(c.in)
		if err != nil || p != c.want || p.String() != c.in {
			t.Errorf("ParseModelPolicy(%q) = %+v (%s), %v; want %+v", c.in, p, p, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"oracle", `policy "oracle" has no mean-field model here: want random, rr, sqd:D (sq2) or ll`},
		{"left:2", `policy "left:2" has no mean-field model here: want random, rr, sqd:D (sq2) or ll`},
		{"firstdiff:02", `policy "firstdiff:02" has no mean-field model here: want random, rr, sqd:D (sq2) or ll`},
		{"sqd:0", `fleet: policy "sqd:0": D must be an integer ≥ 1`},
		{"p2c", `fleet: unknown policy "p2c": want random, rr, ll, sqd:D, sq2, left:D, firstdiff:D or oracle`},
	} {
		p, err := ParseModelPolicy(c.in)
		if err == nil || err.Error() != c.want || p != (fleet.Policy{}) {
			t.Errorf("ParseModelPolicy(%q) = %+v, %v; want the error %s", c.in, p, err, c.want)
		}
	}
}

// LawDeviations reports, per load, the largest |edge/law − 1| among edges
// found and the k ≥ 3 without an edge; k ≤ 2, failed and unfinished
// searches do not count.
func TestLawDeviations(t *testing.T) {
	t.Parallel()
	pt := func(k int, load, scaled float64, found, done bool, err error) EdgePoint {
		st := meanfield.NotFound
		if found {
			st = meanfield.Found
		}
		return EdgePoint{Settings: meanfield.EdgeSettings{Dispatchers: k, Load: load}, Done: done, Err: err,
			Result: meanfield.EdgeResult{Status: st, Scaled: scaled}}
	}
	pts := []EdgePoint{
		pt(2, 0.8, 5, true, true, nil),                   // law 0: not judged
		pt(3, 0.8, 0.9*1.05, true, true, nil),            // +5 %
		pt(4, 0.8, 1.8*0.9, true, true, nil),             // −10 %: the worst
		pt(5, 0.8, 0, false, true, nil),                  // no edge where the law predicts one
		pt(6, 0.8, 100, true, false, nil),                // unfinished
		pt(7, 0.8, 100, true, true, errors.New("fails")), // failed
		pt(3, 0.9, 0.9, true, true, nil),                 // exactly the law
		pt(3, 0.95, 0, false, false, nil),                // nothing to report at 0.95
	}
	got := LawDeviations(pts, []float64{0.8, 0.9, 0.95})
	if len(got) != 2 {
		t.Fatalf("got %d loads, want 2: %+v", len(got), got)
	}
	d := got[0]
	if d.Load != 0.8 || !d.Any || d.WorstK != 4 || math.Abs(d.Worst-(-0.1)) > 1e-12 || !reflect.DeepEqual(d.None, []int{5}) {
		t.Errorf("λ = 0.8: got %+v, want worst −0.1 at k = 4 and no edge at k = 5", d)
	}
	if d := got[1]; d.Load != 0.9 || !d.Any || d.WorstK != 3 || d.Worst != 0 || d.None != nil {
		t.Errorf("λ = 0.9: got %+v, want worst 0 at k = 3", d)
	}
}

// LawSettings.Loads merges the fit loads and the ladder, increasing,
// each once; Edges is one search per (load, k), load outermost.
func TestLawSettingsLoads(t *testing.T) {
	t.Parallel()
	s := LawSettings{Dispatchers: []int{3, 4}, FitLoads: []float64{0.9, 0.8}, Ladder: []float64{0.95, 0.9}, RelTol: 1e-3}
	if got, want := s.Loads(), []float64{0.8, 0.9, 0.95}; !reflect.DeepEqual(got, want) {
		t.Errorf("loads %v, want %v", got, want)
	}
	es := s.Edges()
	if len(es) != 6 || es[1].Dispatchers != 4 || es[1].Load != 0.8 || es[2].Load != 0.9 || es[5].RelTol != 1e-3 {
		t.Errorf("edges %+v: want (0.8, 3), (0.8, 4), (0.9, 3), … with RelTol 1e-3", es)
	}
}

// AnalyseLaw on edges exactly on the law 0.9(k−2) at every load: each fit
// is a = 0.9, b = 2, each limit is the law itself, and every verdict
// says the limit is within the band. The rows come in table order.
func TestAnalyseLawOnTheLaw(t *testing.T) {
	t.Parallel()
	s := LawSettings{Dispatchers: []int{3, 4, 5, 6}, FitLoads: []float64{0.8}, Ladder: []float64{0.8, 0.9}, Band: 0.1, RelTol: 1e-4}
	var pts []EdgePoint
	for _, es := range s.Edges() {
		x := fleet.LawScaled(es.Dispatchers)
		pts = append(pts, EdgePoint{Settings: es, Done: true, Result: meanfield.EdgeResult{Status: meanfield.Found, Scaled: x}})
	}
	l := AnalyseLaw(s, pts)
	var kinds []string
	for _, r := range l.Rows {
		kinds = append(kinds, r.Kind)
	}
	want := []string{"edge", "edge", "edge", "edge", "edge", "edge", "edge", "edge", "fit", "fit",
		"extrapolation", "extrapolation", "extrapolation", "extrapolation", "extrapolation", "extrapolation",
		"extrapolation", "extrapolation", "fit_limit", "verdict", "verdict", "verdict", "verdict"}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("row kinds\n got %v\nwant %v", kinds, want)
	}
	if len(l.Warnings) != 0 {
		t.Errorf("warnings %q, want none", l.Warnings)
	}
	for _, f := range append(l.Fits, l.LimitFit) {
		if f == nil || math.Abs(f.A-0.9) > 1e-9 || math.Abs(f.B-2) > 1e-9 {
			t.Errorf("fit %+v, want a = 0.9, b = 2", f)
		}
	}
	for _, r := range l.Rows[19:] {
		law := fleet.LawScaled(r.Dispatchers)
		if math.Abs(r.X-law) > 1e-9 || r.LimitInBand != InBandYes || r.LawFrom != 0.8 || r.LawTo != 0.9 {
			t.Errorf("verdict k = %d: limit %v (law %v), in band %q, loads [%v, %v]; want the law, yes, [0.8, 0.9]",
				r.Dispatchers, r.X, law, r.LimitInBand, r.LawFrom, r.LawTo)
		}
	}
}

// The progress costs: periodic-update models grow with T, closed forms
// are nearly free, and hysteresis gives one cost per pool item (rows, then
// the bistable range).
func TestSweepCosts(t *testing.T) {
	ll := ModelPoint{Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Load: 0.9, Refresh: 100}
	mm1 := ModelPoint{Policy: fleet.Policy{Kind: fleet.Random}, Load: 0.9, Refresh: 100}
	if !(ModelCost(ll) == 100 && ModelCost(mm1) < 1) {
		t.Errorf("ModelCost: ll T = 100 %g, random %g", ModelCost(ll), ModelCost(mm1))
	}
	rows := []HysteresisRow{{Refresh: 300}, {Refresh: 0.5}}
	got := HysteresisModelCosts(HysteresisSettings{Bistable: true}, rows)
	if len(got) != 3 || got[0] != 300 || got[1] != 1 || got[2] != 301 {
		t.Errorf("HysteresisModelCosts = %v, want [300 1 301]", got)
	}
	if c := PointCost(PointJob{Refresh: meanfield.Refresh{Period: 20}}); c != 20 {
		t.Errorf("PointCost(T = 20) = %g", c)
	}
}

// Edges passes each search's progress reports to EdgeHooks.Status with the
// search's index, the last one a step after the runs: the herd's, or with
// confirm the check by plain iteration.
func TestEdgesStatus(t *testing.T) {
	t.Parallel()
	settings := EdgeGrid([]int{3, 5}, []float64{0.8}, meanfield.EdgeSettings{})
	for _, confirm := range []int{0, meanfield.DefaultConfirmMaxIter} {
		var mu sync.Mutex
		last := make([]meanfield.EdgeProgress, len(settings))
		n := make([]int, len(settings))
		pts := Edges(settings, confirm, func(n int, f func(int)) []bool {
			for j := 0; j < n; j++ {
				f(j)
			}
			return slices.Repeat([]bool{true}, n)
		}, EdgeHooks{Status: func(i int, p meanfield.EdgeProgress) {
			mu.Lock()
			defer mu.Unlock()
			last[i] = p
			n[i]++
		}})
		for i, p := range pts {
			if n[i] == 0 || last[i].Maps > p.Result.Maps {
				t.Errorf("edge %d: %d reports, the last %+v; result %d maps", i, n[i], last[i], p.Result.Maps)
			}
			want := "herd"
			if confirm > 0 {
				want = CheckStep
			}
			if p.Result.Status == meanfield.Found && last[i].Step != want {
				t.Errorf("confirm %d, edge %d: last step %q, want %q", confirm, i, last[i].Step, want)
			}
		}
		if pts[1].Result.Status != meanfield.Found { // k = 5, λ = 0.8: 3.1632 (README's table)
			t.Errorf("k = 5, λ = 0.8: no edge")
		}
	}
}
