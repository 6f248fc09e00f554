package sim

import (
	"errors"
	"math"
	"strings"
	"testing"

	"herd/fleet"
)

// stale returns a runner for c with the board set to board (one refresh's
// worth of state) and tallies cleared, for checking single picks.
func stale(t *testing.T, c Config, board []int32) *runner {
	t.Helper()
	c.Servers = len(board)
	if c.Refresh == 0 {
		c.Refresh = 10
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	r := newRunner(c.withDefaults(), 7)
	copy(r.board, board)
	r.refreshPolicy()
	return r
}

// sqd:D samples D distinct servers: with D = N every server is probed, so
// every pick is the unique minimum; with replacement some picks miss it.
func TestBestOfDDistinct(t *testing.T) {
	t.Parallel()
	board := []int32{5, 3, 9, 1, 7, 4, 8, 6, 2, 10}
	for _, D := range []int{10, 20 /* > 16: the marked path */} {
		b := board
		if D == 20 {
			b = make([]int32, 20)
			for i := range b {
				b[i] = int32(20 - i)
			}
		}
		r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.BestOfD, D: D}}, b)
		want := int32(len(b) - 1)
		if D == 10 {
			want = 3
		}
		for i := 0; i < 2000; i++ {
			if s := r.choose(0, 1); s != want {
				t.Fatalf("sqd:%d over %d servers picked %d (board %d), want the minimum %d", D, len(b), s, b[s], want)
			}
		}
	}
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.BestOfD, D: 10, WithReplacement: true}}, board)
	miss := 0
	for i := 0; i < 2000; i++ {
		if r.choose(0, 1) != 3 {
			miss++
		}
	}
	// P(miss) = (9/10)^10 = 0.349; 2000 picks: 697 ± 21 expected.
	if miss < 600 || miss > 800 {
		t.Errorf("sqd:10 with replacement missed the minimum %d times in 2000, want about 697", miss)
	}
}

// Least loaded with an own tally is a water level: starting from an even
// board, every server gets one job per pass, in random order.
func TestWaterLevelPasses(t *testing.T) {
	t.Parallel()
	board := make([]int32, 50)
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn}, board)
	count := make([]int, len(board))
	for pass := 1; pass <= 4; pass++ {
		for i := 0; i < len(board); i++ {
			count[r.choose(0, 1)]++
		}
		for s, c := range count {
			if c != pass {
				t.Fatalf("after %d passes server %d has %d jobs, want %d", pass, s, c, pass)
			}
		}
	}
	// An uneven board: level 0 servers fill to the next class first.
	board = []int32{2, 0, 1, 0}
	r = stale(t, Config{Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn}, board)
	eff := append([]int32(nil), board...)
	for i := 0; i < 12; i++ {
		s := r.choose(0, 1)
		lo := eff[0]
		for _, v := range eff {
			lo = min(lo, v)
		}
		if eff[s] != lo {
			t.Fatalf("pick %d: server %d has effective value %d, minimum is %d", i, s, eff[s], lo)
		}
		eff[s]++
	}
}

// Without a tally, least loaded sends every job to the board's minimum class.
func TestLeastLoadedNoTallyHerds(t *testing.T) {
	t.Parallel()
	board := []int32{3, 1, 4, 1, 5}
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.LeastLoaded}}, board)
	seen := map[int32]int{}
	for i := 0; i < 1000; i++ {
		seen[r.choose(0, 1)]++
	}
	if len(seen) != 2 || seen[1] == 0 || seen[3] == 0 {
		t.Errorf("picks %v, want only servers 1 and 3 (board value 1)", seen)
	}
}

// Left[D]: one probe per contiguous group; ties go to the leftmost group.
func TestLeftTiesLeftmost(t *testing.T) {
	t.Parallel()
	board := []int32{1, 1, 1, 1, 1, 1} // groups {0,1,2} and {3,4,5}
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.Left, D: 2}}, board)
	for i := 0; i < 500; i++ {
		if s := r.choose(0, 1); s > 2 {
			t.Fatalf("tie went to server %d in the right group", s)
		}
	}
	board = []int32{5, 5, 5, 0, 0, 0}
	r = stale(t, Config{Policy: fleet.Policy{Kind: fleet.Left, D: 2}}, board)
	for i := 0; i < 500; i++ {
		if s := r.choose(0, 1); s < 3 {
			t.Fatalf("picked server %d (value 5) over the right group's 0", s)
		}
	}
}

// FirstDiff never uses more than D probes per job on average, and sends to
// the smaller of the first two differing values.
func TestFirstDiffProbes(t *testing.T) {
	t.Parallel()
	for _, D := range []int{2, 3, 4} {
		c := Config{Servers: 100, Load: 0.9, Policy: fleet.Policy{Kind: fleet.FirstDiff, D: D}, Horizon: 2000}
		res, err := Run(c, 11)
		if err != nil {
			t.Fatal(err)
		}
		if res.ProbesMean > float64(D) || res.ProbesMean < 1 {
			t.Errorf("firstdiff:%d: %.4f probes per job, want in [1, %d]", D, res.ProbesMean, D)
		}
	}
	board := []int32{4, 4, 4, 4, 2}
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.FirstDiff, D: 3}}, board)
	for i := 0; i < 300; i++ {
		s := r.choose(0, 1)
		if board[s] != 4 && s != 4 {
			t.Fatalf("picked %d", s)
		}
	}
}

// Round robin visits its block in order; partitioned dispatchers stay in
// their blocks, whose sizes differ by at most one.
func TestRoundRobinAndPartitions(t *testing.T) {
	t.Parallel()
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.RoundRobin}, Dispatchers: 3, Partitioned: true}, make([]int32, 10))
	for d := 0; d < 3; d++ {
		dom := r.doms[r.domOf[d]]
		if n := dom.size(); n < 3 || n > 4 {
			t.Errorf("dispatcher %d block size %d, want 3 or 4", d, n)
		}
		prev := r.choose(d, 1)
		for i := 0; i < 20; i++ {
			s := r.choose(d, 1)
			if s < dom.lo || s >= dom.hi {
				t.Fatalf("dispatcher %d sent to %d outside [%d, %d)", d, s, dom.lo, dom.hi)
			}
			if want := dom.lo + (prev-dom.lo+1)%int32(dom.size()); s != want {
				t.Fatalf("round robin went %d → %d, want %d", prev, s, want)
			}
			prev = s
		}
	}
	for s := int32(0); s < 10; s++ {
		di := r.domainOfServer(s)
		if s < r.doms[di].lo || s >= r.doms[di].hi {
			t.Errorf("server %d mapped to block %d = [%d, %d)", s, di, r.doms[di].lo, r.doms[di].hi)
		}
	}
}

// Start states lay down exactly the queues fleet.StartKind describes; the
// first board record (at time 0) shows them.
func TestStartStates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		start          fleet.Start
		mean           float64
		minimum, maxim int32
	}{
		{fleet.Start{Kind: fleet.StartEmpty}, 0, 0, 0},
		{fleet.Start{Kind: fleet.StartBalanced, Value: 3}, 3, 3, 3},
		{fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, 5, 0, 10}, // 0.1T = 10 on half of 100
		{fleet.Start{Kind: fleet.StartSpread, Value: 99}, 49.5, 0, 99},
		{fleet.Start{Kind: fleet.StartSingle, Value: 40}, 0.4, 0, 40},
	}
	for _, tc := range cases {
		c := Config{Servers: 100, Refresh: 100, Start: tc.start, Horizon: 10, KeepTrace: true, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn}
		res, err := Run(c, 3)
		if err != nil {
			t.Fatal(err)
		}
		b := res.Trace[0]
		if b.Time != 0 || math.Abs(b.Mean-tc.mean) > 1e-12 || b.Min != tc.minimum || b.Max != tc.maxim {
			t.Errorf("start %s: first record %+v, want mean %g, min %d, max %d", tc.start, b, tc.mean, tc.minimum, tc.maxim)
		}
	}
}

// One run depends only on its configuration and seed; with one dispatcher
// an own tally and a shared tally are the same rule and draw the same
// random numbers.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	c := Config{Servers: 50, Dispatchers: 1, Refresh: 20, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyOwn, Horizon: 3000}
	a, _ := Run(c, 99)
	b, _ := Run(c, 99)
	if a.ResponseMean != b.ResponseMean || a.BoardMean != b.BoardMean || a.Jobs != b.Jobs {
		t.Errorf("same seed, different runs: %+v vs %+v", a, b)
	}
	c.Tally = TallyShared
	s, _ := Run(c, 99)
	if s.ResponseMean != a.ResponseMean {
		t.Errorf("k = 1: own tally %v, shared tally %v, want equal", a.ResponseMean, s.ResponseMean)
	}
	d, _ := Run(c, 100)
	if d.ResponseMean == a.ResponseMean {
		t.Errorf("different seeds gave the same mean %v", a.ResponseMean)
	}
}

// Observe can stop a run; the result says so.
func TestObserveStops(t *testing.T) {
	t.Parallel()
	n := 0
	c := Config{Servers: 20, Refresh: 10, Horizon: 1000, Observe: func(BoardStat) bool { n++; return n < 5 }}
	res, err := Run(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.End != 40 || n != 5 {
		t.Errorf("stopped %v at %v after %d records, want stopped at 40 after 5", res.Stopped, res.End, n)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		c    Config
		want string
	}{
		{"load 1", Config{Load: 1}, "Load"},
		{"load negative", Config{Load: -0.5}, "Load"},
		{"dispatchers", Config{Dispatchers: -1}, "Dispatchers"},
		{"servers", Config{Servers: -3}, "Servers"},
		{"partition", Config{Servers: 3, Dispatchers: 5, Partitioned: true}, "Partitioned"},
		{"refresh", Config{Refresh: -1}, "Refresh"},
		{"refresh NaN", Config{Refresh: math.NaN()}, "Refresh"},
		{"sqd:0", Config{Policy: fleet.Policy{Kind: fleet.BestOfD, D: 0}}, "sqd"},
		{"sqd too many", Config{Servers: 3, Policy: fleet.Policy{Kind: fleet.BestOfD, D: 4}}, "distinct"},
		{"h2 C<1", Config{Sizes: fleet.Sizes{Kind: fleet.H2, Param: 0.5}}, "h2"},
		{"pareto A<=1", Config{Sizes: fleet.Sizes{Kind: fleet.Pareto, Param: 1}}, "pareto"},
		{"warmup", Config{Horizon: 10, Warmup: 20}, "Warmup"},
		{"T start live", Config{Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}}, "multiple of T"},
	}
	for _, tc := range cases {
		err := tc.c.Validate()
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an ErrConfig naming %q", tc.name, err, tc.want)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
}

// A scaled tally raises a server k levels per own send: from an even board
// a dispatcher of k = 3 visits every server once, then again only after the
// level has risen three times, so one pass of N jobs still covers every
// server exactly once, and the effective values it sees are board + 3·sends.
func TestScaledTallyWater(t *testing.T) {
	t.Parallel()
	board := []int32{0, 0, 1, 2, 5, 0}
	r := stale(t, Config{Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: TallyScaled, Dispatchers: 3}, board)
	eff := append([]int32(nil), board...)
	for i := 0; i < 40; i++ {
		s := r.choose(0, 1)
		lo := eff[0]
		for _, v := range eff {
			lo = min(lo, v)
		}
		if eff[s] != lo {
			t.Fatalf("pick %d: server %d has effective value %d, minimum is %d (%v)", i, s, eff[s], lo, eff)
		}
		eff[s] += 3
	}
	// Probing rules add k to the tally.
	r = stale(t, Config{Policy: fleet.Policy{Kind: fleet.BestOfD, D: 6}, Tally: TallyScaled, Dispatchers: 3}, board)
	s := r.choose(1, 1)
	if got := r.tallies[r.tallyOf[1]][s]; got != 3 {
		t.Errorf("scaled tally after one send: %d, want 3", got)
	}
}
