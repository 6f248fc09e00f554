package compare

import (
	"context"
	"errors"
	"math"
	"testing"

	"herd/fleet"
	"herd/sim"
)

// memStore is an in-memory Store.
type memStore map[string]RunRecord

func (m memStore) Get(k string) (RunRecord, bool) { r, ok := m[k]; return r, ok }
func (m memStore) Put(r RunRecord) error          { m[r.Key()] = r; return nil }

// A small bracket at N = 25 (5 dispatchers, λ = 0.9) finds both ends,
// refines to the resolution, and a resumed bracket — half of its runs
// recorded, then interrupted — ends with the same result.
func TestBracketResume(t *testing.T) {
	t.Parallel()
	s := smallBracket()
	full := mustBracket(t, s)
	if math.IsNaN(full.Lower) || math.IsNaN(full.Upper) || !(full.Lower < full.Upper) {
		t.Fatalf("bracket [%v, %v], want both ends", full.Lower, full.Upper)
	}
	resumed, _ := interruptResume(t, s, 10)
	if resumed.Lower != full.Lower || resumed.Upper != full.Upper || resumed.LowerCut != full.LowerCut ||
		len(resumed.Points) != len(full.Points) {
		t.Errorf("resumed [%v, %v] (%d points), uninterrupted [%v, %v] (%d points)",
			resumed.Lower, resumed.Upper, len(resumed.Points), full.Lower, full.Upper, len(full.Points))
	}
	samePoints(t, "resumed", resumed.Points, full.Points)
	// One worker: the same points, run counts and tips (what --points
	// prints), whatever the timing of the runs in flight.
	one := s
	one.Workers = 1
	samePoints(t, "one worker", mustBracket(t, one).Points, full.Points)
	t.Logf("N = 25, 100 refreshes: [%v, %v], %d points", full.Lower, full.Upper, len(full.Points))
}

// smallBracket is a bracket of seconds: N = 25, k = 5, λ = 0.9, 4 runs of
// 100 refreshes a point, resolution 0.2, on two workers.
func smallBracket() BracketSettings {
	return BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9, Runs: 4, Refreshes: 100, Resolution: 0.2,
		ModelScaled: 2.8992 /* herd edge, k = 5, λ = 0.9 */, Workers: 2}
}

// mustBracket is Bracket without a store, failing the test on an error.
func mustBracket(t *testing.T, s BracketSettings) BracketResult {
	t.Helper()
	r, err := Bracket(context.Background(), s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// interruptResume runs the bracket with a store, interrupts it after stop
// runs, checks that it failed and kept at least those runs, and returns the
// bracket resumed from the store and the interrupted one.
func interruptResume(t *testing.T, s BracketSettings, stop int) (resumed, cut BracketResult) {
	t.Helper()
	store := memStore{}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	cut, err := Bracket(ctx, s, store, func(done, total int) {
		if n++; n == stop {
			cancel()
		}
	})
	if err == nil {
		t.Fatalf("bracket interrupted after %d runs returned no error", stop)
	}
	if len(store) < stop {
		t.Fatalf("%d runs recorded before the interruption, want at least %d", len(store), stop)
	}
	resumed, err = Bracket(context.Background(), s, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resumed, cut
}

// samePoints fails when two brackets' per-point tables differ.
func samePoints(t *testing.T, name string, got, want []PointStat) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d points, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] && !(math.IsNaN(want[i].MedianTip) && math.IsNaN(got[i].MedianTip)) {
			t.Errorf("point %d: %s %+v, want %+v", i, name, got[i], want[i])
		}
	}
}

func TestBracketOf(t *testing.T) {
	t.Parallel()
	pts := []PointStat{
		{Scaled: 1, Runs: 6, Tipped: 6, TippedCut: 6},
		{Scaled: 2, Runs: 6, Tipped: 6, TippedCut: 3},
		{Scaled: 3, Runs: 6, Tipped: 4, TippedCut: 1},
		{Scaled: 4, Runs: 6, Tipped: 1, TippedCut: 0},
		{Scaled: 5, Runs: 6, Tipped: 0, TippedCut: 0},
	}
	if lo, hi := bracketOf(pts, 6, false); lo != 2 || hi != 4 {
		t.Errorf("full runs: [%v, %v], want [2, 4]", lo, hi)
	}
	if lo, hi := bracketOf(pts, 6, true); lo != 1 || hi != 3 {
		t.Errorf("cut runs: [%v, %v], want [1, 3]", lo, hi)
	}
}

// The scaling fit recovers a known law from brackets drawn around it.
func TestFitScaling(t *testing.T) {
	t.Parallel()
	const e, a, beta = 2.9, 6.0, 0.5 // a made-up law
	ns := []int{25, 100, 400, 1600}
	var lo, hi []float64
	for i, n := range ns {
		y := e + a*math.Pow(float64(n), -beta)
		off := []float64{0.01, -0.02, 0.015, -0.01}[i]
		lo = append(lo, y+off-0.05)
		hi = append(hi, y+off+0.05)
	}
	fit, err := FitScaling(ns, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	if !(fit.EdgeInfLow <= e && e <= fit.EdgeInfHigh) || math.Abs(fit.EdgeInf-e) > 0.1 {
		t.Errorf("edge(∞) = %.4g in [%.4g, %.4g], want %v inside and within 0.1", fit.EdgeInf, fit.EdgeInfLow, fit.EdgeInfHigh, e)
	}
	if _, err := FitScaling(ns[:2], lo[:2], hi[:2]); err == nil {
		t.Error("two brackets: want an error")
	}
}

// The sequential bracket agrees with the exhaustive one (herd's search
// before sequential stopping, every run of every point to its end) at N =
// 100 and 400 and two seeds: each end within the resolution (the two
// searches may visit different points, and the bracket is only defined up
// to the resolution), with no more jobs simulated. Run lengths are short
// to keep the test CI-sized; the rule does not depend on them.
func TestBracketSequentialAgrees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, refreshes int
		seed         uint64
	}{{100, 40, 1}, {100, 40, 2}, {400, 16, 1}, {400, 16, 2}} {
		s := BracketSettings{Servers: tc.n, Dispatchers: 5, Load: 0.9, Runs: 4, Refreshes: tc.refreshes, Cut: tc.refreshes / 3,
			Resolution: 0.1, ModelScaled: 2.8992, Seed: tc.seed, Workers: 2}
		seq, err := Bracket(context.Background(), s, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Exhaustive = true
		full, err := Bracket(context.Background(), s, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		near := func(a, b float64) bool {
			return math.Abs(a-b) <= s.Resolution*(1+1e-9) || math.IsNaN(a) && math.IsNaN(b)
		}
		if !near(seq.Lower, full.Lower) || !near(seq.Upper, full.Upper) || !near(seq.LowerCut, full.LowerCut) || !near(seq.UpperCut, full.UpperCut) {
			t.Errorf("N = %d, seed %d: sequential [%v, %v] cut [%v, %v], exhaustive [%v, %v] cut [%v, %v]: want each end within %v",
				tc.n, tc.seed, seq.Lower, seq.Upper, seq.LowerCut, seq.UpperCut,
				full.Lower, full.Upper, full.LowerCut, full.UpperCut, s.Resolution)
		}
		if seq.Jobs > full.Jobs {
			t.Errorf("N = %d, seed %d: sequential simulated %d jobs, exhaustive %d: want no more", tc.n, tc.seed, seq.Jobs, full.Jobs)
		}
		t.Logf("N = %d, seed %d: sequential [%v, %v] cut [%v, %v], %d points, %.3g jobs (%d runs ended, %d left unfinished); exhaustive [%v, %v] cut [%v, %v], %d points, %.3g jobs (%d runs)",
			tc.n, tc.seed, seq.Lower, seq.Upper, seq.LowerCut, seq.UpperCut, len(seq.Points), float64(seq.Jobs), seq.Runs, seq.Stopped,
			full.Lower, full.Upper, full.LowerCut, full.UpperCut, len(full.Points), float64(full.Jobs), full.Runs)
	}
}

// Sequential stopping gives every point the verdicts of full-length runs:
// on a grid of points across the edge (N = 25), each of the four
// questions (all tipped, at most one, and both within Cut refreshes) is
// settled sequentially, with runs paused and resumed, and compared with
// the answer from every run simulated to its horizon without stopping.
func TestSequentialVerdicts(t *testing.T) {
	t.Parallel()
	s := BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9, Runs: 6, Refreshes: 60, Cut: 20, ModelScaled: 2.8992, Workers: 2}.withDefaults()
	agree, total, seqJobs, fullJobs := 0, 0, int64(0), int64(0)
	var kinds [3]int // points where all tipped, where at most one did, and the others
	for i := 0; i < 12; i++ {
		x := round6(2 + 0.2*float64(i))
		// Full length: every replication to its horizon, never stopped.
		var tips []int
		for rep := 0; rep < s.Runs; rep++ {
			b := &bracketer{s: s}
			task, _ := b.task(x, rep)
			det := NewDetector(s.Load, task.Config.Refresh, false)
			task.Config.Observe = det.Observe
			r, err := sim.Run(task.Config, task.Seed)
			if err != nil {
				t.Fatal(err)
			}
			fullJobs += r.Arrivals
			at := -1
			if tipped, a := det.Tipped(); tipped {
				at = a
			}
			tips = append(tips, at)
		}
		var tipped, tippedCut int
		for _, at := range tips {
			if at >= 0 {
				tipped++
				if at <= s.Cut {
					tippedCut++
				}
			}
		}
		want := map[int]bool{qAll: tipped == s.Runs, qAtMostOne: tipped <= 1, qAllCut: tippedCut == s.Runs, qAtMostOneCut: tippedCut <= 1}
		switch {
		case want[qAll]:
			kinds[0]++
		case want[qAtMostOne]:
			kinds[1]++
		default:
			kinds[2]++
		}
		// Sequential: the questions in the order a bracket asks them.
		res := BracketResult{}
		b := &bracketer{s: s, points: map[float64]*PointStat{}, res: &res}
		if err := b.visit(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		for _, q := range []int{qAll, qAtMostOne, qAllCut, qAtMostOneCut} {
			b.asked[x] |= q
			if err := b.resolve(context.Background(), x, q); err != nil {
				t.Fatal(err)
			}
			got := b.answer(x, q, s.Runs)
			total++
			if (got == yes) == want[q] && got != open {
				agree++
			} else {
				t.Errorf("T(1−λ)² = %v, question %d: sequential %d, full-length runs %v (tips at %v)", x, q, got, want[q], tips)
			}
		}
		seqJobs += res.Jobs
	}
	if kinds[0] == 0 || kinds[1] == 0 || kinds[2] == 0 {
		t.Errorf("points where all tipped, at most one, neither: %v; want the grid to cross the edge", kinds)
	}
	t.Logf("sequential verdicts agree with full-length runs on %d of %d (%.0f%%) over points where all tipped, at most one, neither: %v; jobs %.3g sequential, %.3g full length",
		agree, total, 100*float64(agree)/float64(total), kinds, float64(seqJobs), float64(fullJobs))
}

// upperGap bisects the gap below the next point the upper end's search
// would ask "at most one" of, when the gap exceeds the resolution, and
// leaves the search alone when the gap is narrow or an upper end is known.
func TestUpperGap(t *testing.T) {
	t.Parallel()
	const u = unknown
	const both = qAll | qAtMostOne
	for _, tc := range []struct {
		name  string
		far   []int // replications at the far point 1.3
		asked int   // questions asked of it
		want  float64
	}{
		{"far point open, gap 0.25", []int{-1, u, u, u}, qAll, 1.175},
		{"far point holds", []int{-1, -1, -1, u}, both, math.NaN()},
		// Only "all" was asked of the far point, settled by its first run;
		// its later runs finished while they were being stopped. Whether
		// they did depends on timing, so they must not count.
		{"far point's later runs finished by chance", []int{-1, -1, -1, u}, qAll, 1.175},
	} {
		b := &bracketer{s: BracketSettings{Runs: 4, Resolution: 0.1}, points: map[float64]*PointStat{},
			reps:  map[float64][]int{1: {3, 4, 5, 6}, 1.05: {-1, 7, 8, u}, 1.3: tc.far},
			asked: map[float64]int{1: qAll, 1.05: both, 1.3: tc.asked}}
		for x := range b.reps {
			b.points[x] = &PointStat{Scaled: x}
		}
		if got := b.upperGap(1); got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: upperGap(1) = %v, want %v", tc.name, got, tc.want)
		}
		// A narrow gap is left to the search: ask the point itself.
		b.reps[1.12], b.points[1.12], b.asked[1.12] = tc.far, &PointStat{Scaled: 1.12}, tc.asked
		delete(b.reps, 1.3)
		delete(b.points, 1.3)
		if got := b.upperGap(1); !math.IsNaN(got) {
			t.Errorf("%s, far point at 1.12: upperGap(1) = %v, want NaN", tc.name, got)
		}
	}
	// The same for a point below the far one: "at most one" is "no" only
	// when asked, so a chance finish cannot make the walk pass it by.
	b := &bracketer{s: BracketSettings{Runs: 4, Resolution: 0.1}, points: map[float64]*PointStat{},
		reps:  map[float64][]int{1: {3, 4, 5, 6}, 1.05: {-1, 7, 8, u}, 1.3: {-1, u, u, u}},
		asked: map[float64]int{1: qAll, 1.05: qAll, 1.3: qAll}}
	for x := range b.reps {
		b.points[x] = &PointStat{Scaled: x}
	}
	if got := b.upperGap(1); !math.IsNaN(got) {
		t.Errorf("point 1.05 asked only \"all\": upperGap(1) = %v, want NaN (its gap to 1 is within the resolution)", got)
	}
}

// TippedFraction is Tipped/Runs and TippedCut/RunsCut, NaN with no run;
// RunConfig is the bracket's run at x = T(1−λ)², T = x/(1−λ)².
func TestBracketPointHelpers(t *testing.T) {
	t.Parallel()
	full, cut := PointStat{Runs: 4, Tipped: 1, RunsCut: 0}.TippedFraction()
	if full != 0.25 || !math.IsNaN(cut) {
		t.Errorf("TippedFraction = %v, %v; want 0.25, NaN", full, cut)
	}
	c := BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9, Refreshes: 50}.RunConfig(2)
	// T = 2/(1 − 0.9)² = 200 (to rounding), horizon 50·T.
	if math.Abs(c.Refresh-200) > 1e-9 || c.Horizon != 50*c.Refresh || c.Policy.Kind != fleet.LeastLoaded || c.Tally != sim.TallyOwn ||
		c.Start.Kind != fleet.StartBalanced || !c.NoWarmup || c.Servers != 25 || c.Dispatchers != 5 {
		t.Errorf("RunConfig(2) = %+v", c)
	}
	if d := (BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9}).RunConfig(2); d.Horizon != 1000*d.Refresh {
		t.Errorf("RunConfig without Refreshes: horizon %v, want the default 1000 periods", d.Horizon)
	}
}

// Brackets computes nothing it is given: with a fixed grid and the
// model's edge NaN (none), each bracket is its grid's runs; without a
// grid and no edge it stops at once with ErrNoModelEdge; the hooks see
// every bracket begin and end.
func TestBrackets(t *testing.T) {
	t.Parallel()
	set := []BracketSettings{
		{Servers: 10, Dispatchers: 2, Load: 0.5, Runs: 2, Refreshes: 10, Grid: []float64{0.5}, Fixed: true, ModelScaled: math.NaN()},
		{Servers: 20, Dispatchers: 2, Load: 0.5, Runs: 2, Refreshes: 10, Grid: []float64{0.5}, Fixed: true, ModelScaled: math.NaN()},
	}
	var begun, ended int
	h := BracketsHooks{
		Begin: func(BracketSettings) func(done, total int) { begun++; return nil },
		End:   func(BracketResult, error) { ended++ },
	}
	got, err := Brackets(context.Background(), set, nil, h)
	if err != nil || len(got) != 2 || begun != 2 || ended != 2 || got[1].Settings.Servers != 20 {
		t.Fatalf("fixed grids: %d results, %v, hooks %d, %d", len(got), err, begun, ended)
	}
	edge := func(BracketSettings) (float64, error) { return math.NaN(), nil }
	if got, err := Brackets(context.Background(), []BracketSettings{{Servers: 10, Dispatchers: 2, Load: 0.5}}, nil, BracketsHooks{ModelEdge: edge}); !errors.Is(err, ErrNoModelEdge) || len(got) != 0 {
		t.Errorf("no edge, no grid: %d results, %v; want ErrNoModelEdge", len(got), err)
	}
}

// TestResolveFlights settles one point's replications on the workers of
// a pool.Group, first two questions (which pause the runs still going;
// the first is settled by a run's report that it went past Cut) and then
// every run to its end (which resumes them), with 1 and 3 workers:
// each run's tipping refresh and the jobs counted must be those of the
// run simulated alone in one go, so no flight's report was lost, taken
// twice, or counted while its run went on.
func TestResolveFlights(t *testing.T) {
	t.Parallel()
	const x = 3.6
	for _, workers := range []int{1, 3} {
		s := BracketSettings{Servers: 25, Dispatchers: 5, Load: 0.9, Runs: 6, Refreshes: 60, Cut: 20, ModelScaled: 2.8992, Workers: workers}.withDefaults()
		res := BracketResult{}
		b := &bracketer{s: s, points: map[float64]*PointStat{}, res: &res}
		if err := b.visit(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		paused := 0 // runs left paused by a question, summed over the questions
		for _, q := range []int{qAllCut, qAtMostOne, 0} {
			b.asked[x] |= q
			if err := b.resolve(context.Background(), x, q); err != nil {
				t.Fatal(err)
			}
			paused += len(b.paused[x])
		}
		var jobs int64
		for rep := 0; rep < s.Runs; rep++ {
			task, det := b.task(x, rep)
			r, err := sim.Run(task.Config, task.Seed)
			if err != nil {
				t.Fatal(err)
			}
			jobs += r.Arrivals
			at := -1
			if tipped, a := det.Tipped(); tipped {
				at = a
			}
			if got := b.reps[x][rep]; got != at {
				t.Errorf("%d workers, run %d: tipped at %d, alone %d", workers, rep, got, at)
			}
		}
		if res.Jobs != jobs || res.Runs != s.Runs {
			t.Errorf("%d workers: %d jobs in %d runs, alone %d in %d", workers, res.Jobs, res.Runs, jobs, s.Runs)
		}
		t.Logf("%d workers: tips %v, %d jobs, %d runs left paused", workers, b.reps[x], res.Jobs, paused)
	}
}
