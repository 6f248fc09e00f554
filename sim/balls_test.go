package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fleet"
)

// falseAlarm is the probability that one check of a simulated mean
// against an exact value fails when the simulator is right: the band is
// t(1 − falseAlarm/2, runs − 1) standard errors, Student-t because the s.e.
// is estimated from the runs (herd validate's rule, compare.FalseAlarm).
// The former "4 s.e., once in 16,000" assumed a normal law; with the
// thousands of runs these tests make the t band is 3.3–3.5 s.e.
const falseAlarm = 0.001

// bandOf is the band, in standard errors, for estimates over the given
// runs (the fewest runs when there are several: a conservative d.f.).
func bandOf(stats ...Stat) float64 {
	n := stats[0].N
	for _, s := range stats {
		n = min(n, s.N)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - falseAlarm/2)
}

// expectedMaxUniform is E[max load] for m balls thrown uniformly into n
// bins, by enumerating all n^m equally likely assignments.
func expectedMaxUniform(n, m int) float64 {
	load := make([]int, n)
	var total, count float64
	var rec func(ball, mx int)
	rec = func(ball, mx int) {
		if ball == m {
			total += float64(mx)
			count++
			return
		}
		for b := range load {
			load[b]++
			rec(ball+1, max(mx, load[b]))
			load[b]--
		}
	}
	rec(0, 0)
	return total / count
}

func TestExpectedMaxEnumeration(t *testing.T) {
	t.Parallel()
	// n = m = 2: max is 2 with probability 1/2, else 1. n = m = 3: all
	// distinct with probability 6/27, all in one bin 3/27, else 2.
	for _, tc := range []struct {
		n    int
		want float64
	}{{2, 1.5}, {3, (6*1 + 18*2 + 3*3) / 27.0}} {
		if got := expectedMaxUniform(tc.n, tc.n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("n = %d: enumeration gives %v, want %v", tc.n, got, tc.want)
		}
	}
}

// Uniform with m = n matches the exact expected maximum (enumeration).
func TestBallsUniformExact(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3, 5, 7} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			t.Parallel()
			want := expectedMaxUniform(n, n) // exact, by enumeration
			s, err := ReplicateBalls(context.Background(), BallsConfig{Bins: n}, 20000, 11, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := s.MaxLoad.Mean - want; math.Abs(d) > bandOf(s.MaxLoad)*s.MaxLoad.SE {
				t.Errorf("mean max load %.4f ± %.4f, want %.4f (exact); difference %.4f is over t(0.9995, runs − 1) s.e.",
					s.MaxLoad.Mean, s.MaxLoad.SE, want, d)
			}
		})
	}
}

// Greedy[2], Left[2] and uniform at n = m = 2^12 (and 2^20 with
// HERD_SLOW=1) against Vöcking's experimental averages ("How asymmetry
// helps load balancing", J. ACM 50(4), 2003, experimental table, as quoted
// in herd issue 8). The band is t(0.9995, runs − 1) standard errors (bandOf)
// of the difference: ours from the runs, and that of the published mean,
// whose two-valued distribution has variance p(1 − p) for fractional part
// p, over the same number of runs.
func TestBallsVocking(t *testing.T) {
	t.Parallel()
	type tc struct {
		logn   int
		policy string
		want   float64
	}
	cases := []tc{
		{12, "uniform", 6.16}, {12, "greedy:2", 3.01}, {12, "left:2", 3.00},
	}
	if os.Getenv("HERD_SLOW") == "1" {
		cases = append(cases, tc{20, "uniform", 8.86}, tc{20, "greedy:2", 4.00}, tc{20, "left:2", 3.04})
	}
	const runs = 48
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/n=2^%d", c.policy, c.logn), func(t *testing.T) {
			t.Parallel()
			p, err := fleet.ParseBallsPolicy(c.policy)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ReplicateBalls(context.Background(), BallsConfig{Bins: 1 << c.logn, Policy: p}, runs, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			frac := c.want - math.Floor(c.want)
			pubSE := math.Sqrt(frac * (1 - frac) / runs)
			band := bandOf(s.MaxLoad) * math.Hypot(s.MaxLoad.SE, pubSE)
			if d := s.MaxLoad.Mean - c.want; math.Abs(d) > band+1e-9 {
				t.Errorf("mean max load %.3f ± %.3f (%v), want %.2f (Vöcking); difference %.3f exceeds %.3f",
					s.MaxLoad.Mean, s.MaxLoad.SE, s.Dist, c.want, d, band)
			}
		})
	}
}

// FirstDiff[D] makes at most D probes per ball on average (the allowance
// makes it exact over every run), and it beats Greedy[D].
func TestBallsFirstDiffProbes(t *testing.T) {
	t.Parallel()
	for _, D := range []int{2, 3, 4} {
		t.Run(fmt.Sprint("d=", D), func(t *testing.T) {
			t.Parallel()
			s, err := ReplicateBalls(context.Background(), BallsConfig{Bins: 1 << 12, Policy: fleet.Policy{Kind: fleet.FirstDiff, D: D}}, 16, 3, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range s.Results {
				if r.ProbesMean > float64(D) {
					t.Errorf("run %d: %.4f probes per ball, want ≤ %d", i, r.ProbesMean, D)
				}
			}
			if s.Probes.Mean < 1 {
				t.Errorf("mean probes %.3f < 1: every ball probes once", s.Probes.Mean)
			}
		})
	}
}

// A single bin takes every ball; n = 1 with B > 1 and Left[D] at D = n are
// edge cases that must not fail.
func TestBallsEdgeCases(t *testing.T) {
	t.Parallel()
	for _, c := range []BallsConfig{
		{Bins: 1, Balls: 100},
		{Bins: 1, Balls: 100, Batch: 7, Policy: fleet.Policy{Kind: fleet.FirstDiff, D: 3}},
		{Bins: 4, Balls: 4000, Batch: 4000, Policy: fleet.Policy{Kind: fleet.Left, D: 4}},
		{Bins: 10, Balls: 1000, Policy: fleet.Policy{Kind: fleet.BestOfD, D: 40}},
	} {
		r, err := RunBalls(c, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.Key(), err)
		}
		if c.Bins == 1 && r.MaxLoad != c.Balls {
			t.Errorf("%s: max load %d, want %d", c.Key(), r.MaxLoad, c.Balls)
		}
		if r.MaxLoad*c.Bins < c.Balls {
			t.Errorf("%s: max load %d below the average", c.Key(), r.MaxLoad)
		}
	}
}

// With B = m every probe reads the empty start, so every rule is as blind
// as uniform: Greedy[2] takes the first probe (ties), which is uniform.
func TestBallsBatchAllStale(t *testing.T) {
	t.Parallel()
	n := 1 << 10
	u, err := ReplicateBalls(context.Background(), BallsConfig{Bins: n}, 400, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReplicateBalls(context.Background(), BallsConfig{Bins: n, Batch: n, Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}}, 400, 6, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d := g.MaxLoad.Mean - u.MaxLoad.Mean; math.Abs(d) > bandOf(g.MaxLoad, u.MaxLoad)*math.Hypot(g.MaxLoad.SE, u.MaxLoad.SE) {
		t.Errorf("greedy:2 with B = m: %.3f ± %.3f, uniform %.3f ± %.3f: should agree",
			g.MaxLoad.Mean, g.MaxLoad.SE, u.MaxLoad.Mean, u.MaxLoad.SE)
	}
}

// The snapshot with B = 1 is the live load, and the results depend only
// on the configuration and the seed.
func TestBallsDeterministic(t *testing.T) {
	t.Parallel()
	c := BallsConfig{Bins: 1000, Balls: 5000, Policy: fleet.Policy{Kind: fleet.FirstDiff, D: 3}, Batch: 17}
	a, _ := RunBalls(c, 9)
	b, _ := RunBalls(c, 9)
	if a != b {
		t.Errorf("same seed, different results: %+v, %+v", a, b)
	}
	w1, _, _ := RunBallsAll(context.Background(), []BallsTask{{c, 1}, {c, 2}, {c, 3}}, 1, nil)
	w3, _, _ := RunBallsAll(context.Background(), []BallsTask{{c, 1}, {c, 2}, {c, 3}}, 3, nil)
	for i := range w1 {
		if w1[i] != w3[i] {
			t.Errorf("task %d differs with 1 and 3 workers: %+v, %+v", i, w1[i], w3[i])
		}
	}
}

func TestBallsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    BallsConfig
		want string
	}{
		{BallsConfig{Bins: -1}, "Bins = -1"},
		{BallsConfig{Batch: -2}, "Batch = -2"},
		{BallsConfig{Balls: -3}, "Balls = -3"},
		{BallsConfig{Policy: fleet.Policy{Kind: fleet.BestOfD}}, "D must be ≥ 1"},
		{BallsConfig{Bins: 3, Policy: fleet.Policy{Kind: fleet.Left, D: 4}}, "D must be in [1, 3]"},
		{BallsConfig{Policy: fleet.Policy{Kind: fleet.LeastLoaded}}, "not a balls-into-bins rule"},
		{BallsConfig{FirstDiffCap: -1}, "FirstDiffCap = -1"},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.c, err, tc.want)
		}
	}
}

// BenchmarkBalls: whole runs at n = m = 2^20, one core; balls/s.
func BenchmarkBalls(b *testing.B) {
	const n = 1 << 20
	for _, name := range []string{"uniform", "greedy:2", "greedy:3", "left:2", "left:3", "firstdiff:2", "firstdiff:3", "firstdiff:3/cap:d^2", "firstdiff:3/cap:n"} {
		pn, rn, _ := strings.Cut(name, "/")
		p, err := fleet.ParseBallsPolicy(pn)
		if err != nil {
			b.Fatal(err)
		}
		var r FirstDiffRule
		if rn != "" {
			if r, err = ParseFirstDiffRule(rn); err != nil {
				b.Fatal(err)
			}
		}
		for _, B := range []int{1, 64} {
			c := BallsConfig{Bins: n, Policy: p, Batch: B, FirstDiffRule: r}
			b.Run(fmt.Sprintf("%s/B=%d", name, B), func(b *testing.B) {
				b.ReportAllocs()
				var balls float64
				seed := uint64(0)
				for b.Loop() {
					seed++
					if _, err := RunBalls(c, seed); err != nil {
						b.Fatal(err)
					}
					balls += n
				}
				b.ReportMetric(balls/b.Elapsed().Seconds(), "balls/s")
			})
		}
	}
}

func TestCapExpr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		name string
		d, n int
		want int
	}{
		{"d", "d", 3, 1024, 3},
		{"2d", "2d", 3, 1024, 6},
		{"2*d", "2d", 3, 1024, 6},
		{"d^2", "d^2", 3, 1024, 9},
		{"4d^2", "4d^2", 3, 1024, 36},
		{"n", "n", 3, 1024, 1024},
		{"2n", "2n", 4, 1024, 2048},
		{"17", "17", 2, 8, 17},
		{" 1 ", "1", 2, 8, 1},
		{"d^3", "d^3", 4, 8, 64},
	} {
		e, err := ParseCapExpr(tc.in)
		if err != nil {
			t.Errorf("ParseCapExpr(%q): %v", tc.in, err)
			continue
		}
		got, err := e.Eval(tc.d, tc.n)
		if err != nil || got != tc.want || e.String() != tc.name {
			t.Errorf("%q with d = %d, n = %d: %d (%v), name %q; want %d, %q", tc.in, tc.d, tc.n, got, err, e, tc.want, tc.name)
		}
	}
	for _, s := range []string{"", "0", "-1", "0d", "x", "d^", "d^0", "d^-1", "d^+2", "dd", "2*", "*d", "d2", "2.5d", "n^x", "+2"} {
		if e, err := ParseCapExpr(s); err == nil {
			t.Errorf("ParseCapExpr(%q) = %+v, want an error", s, e)
		}
	}
	// Values above MaxProbeCap fail rather than wrap.
	for _, s := range []string{"n^2", "2147483648", "d^40"} {
		e, err := ParseCapExpr(s)
		if err != nil {
			continue // 2147483648 may not parse on 32-bit ints
		}
		if v, err := e.Eval(4, 1<<20); err == nil {
			t.Errorf("%s with d = 4, n = 2^20: %d, want an error (above %d)", s, v, MaxProbeCap)
		}
	}
}

func TestParseFirstDiffRule(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"allowance", "cap:d", "cap:4d^2", "cap:n", "cap:12"} {
		r, err := ParseFirstDiffRule(s)
		if err != nil || r.String() != s {
			t.Errorf("ParseFirstDiffRule(%q) = %v, %v", s, r, err)
		}
	}
	for _, s := range []string{"", "cap", "cap:", "cap:0", "patience", "allowance:2"} {
		if _, err := ParseFirstDiffRule(s); err == nil {
			t.Errorf("ParseFirstDiffRule(%q): no error", s)
		}
	}
	c := BallsConfig{Bins: 4, Policy: fleet.Policy{Kind: fleet.FirstDiff, D: 2}, FirstDiffRule: FirstDiffRule{PerBall: true, Cap: CapExpr{K: 1, Var: 'n', Pow: 40}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "FirstDiffRule cap:n^40") {
		t.Errorf("cap n^40: error %v, want one naming FirstDiffRule", err)
	}
}

// perBall is FirstDiff[d] under the per-ball rule with the cap written as s.
func perBall(t testing.TB, d int, s string) BallsConfig {
	r, err := ParseFirstDiffRule("cap:" + s)
	if err != nil {
		t.Fatal(err)
	}
	return BallsConfig{Policy: fleet.Policy{Kind: fleet.FirstDiff, D: d}, FirstDiffRule: r}
}

// With C = 1 FirstDiff makes one uniform probe and places the ball there:
// the same draws as uniform, so the same seed gives the same loads, bin by
// bin, whatever d and the batch.
func TestBallsCapOneIsUniform(t *testing.T) {
	t.Parallel()
	for _, B := range []int{1, 7} {
		for seed := uint64(1); seed <= 5; seed++ {
			u := BallsConfig{Bins: 100, Balls: 1000, Batch: B}.withDefaults()
			f := perBall(t, 3, "1")
			f.Bins, f.Balls, f.Batch = 100, 1000, B
			f = f.withDefaults()
			lu, lf := make([]int32, 100), make([]int32, 100)
			ru, _ := runBallsInto(context.Background(), u, seed, lu)
			rf, _ := runBallsInto(context.Background(), f, seed, lf)
			if !slices.Equal(lu, lf) || ru.MaxLoad != rf.MaxLoad || rf.ProbesMean != 1 || rf.ProbesMax != 1 {
				t.Errorf("B = %d, seed %d: cap:1 max %d (probes %v, max %d), uniform max %d; loads equal: %v",
					B, seed, rf.MaxLoad, rf.ProbesMean, rf.ProbesMax, ru.MaxLoad, slices.Equal(lu, lf))
			}
		}
	}
}

// With C = 2 FirstDiff draws two probes and takes the second only if its
// load is smaller: Greedy[2] with replacement and ties to the first, draw
// for draw, so the same seed gives the same loads.
func TestBallsCapTwoIsGreedy2(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		g := BallsConfig{Bins: 100, Balls: 3000, Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}}.withDefaults()
		f := perBall(t, 4, "2")
		f.Bins, f.Balls = 100, 3000
		f = f.withDefaults()
		lg, lf := make([]int32, 100), make([]int32, 100)
		rg, _ := runBallsInto(context.Background(), g, seed, lg)
		rf, _ := runBallsInto(context.Background(), f, seed, lf)
		if !slices.Equal(lg, lf) || rg != rf {
			t.Errorf("seed %d: cap:2 %+v, greedy:2 %+v; loads equal: %v", seed, rf, rg, slices.Equal(lg, lf))
		}
	}
}

// firstDiffBrute is E[probes, all balls] and E[max load] for m balls in n
// bins under FirstDiff with a per-ball cap C, by enumerating every sequence
// of C probes for every ball (n^C each, equally likely, with replacement):
// the rule reads a prefix of the sequence.
func firstDiffBrute(n, m, C int) (probes, maxLoad float64) {
	load := make([]int, n)
	seq := make([]int, C)
	seqs := 1
	for range C {
		seqs *= n
	}
	w := 1 / float64(seqs)
	var rec func(ball int, pr float64)
	rec = func(ball int, pr float64) {
		if ball == m {
			maxLoad += pr * float64(slices.Max(load))
			return
		}
		for code := range seqs {
			for k, x := 0, code; k < C; k, x = k+1, x/n {
				seq[k] = x % n
			}
			first := seq[0]
			place, used := first, C
			for p := 1; p < C; p++ {
				if b := seq[p]; load[b] != load[first] {
					used = p + 1
					if load[b] < load[first] {
						place = b
					}
					break
				}
			}
			probes += pr * w * float64(used)
			load[place]++
			rec(ball+1, pr*w)
			load[place]--
		}
	}
	rec(0, 1)
	return probes, maxLoad
}

// firstDiffExact is firstDiffBrute for any cap: after the first probe i,
// each further probe differs from it with probability q = (bins whose load
// differs from i's)/n, so a ball makes 1 + E[min(G, C−1)] probes, G
// geometric with success q: 1 + (1 − (1−q)^(C−1))/q, and C when q = 0; the
// first different bin is uniform among those q·n bins; with probability
// (1−q)^(C−1) none appears and the ball goes to i.
func firstDiffExact(n, m, C int) (probes, maxLoad float64) {
	load := make([]int, n)
	var rec func(ball int, pr float64)
	rec = func(ball int, pr float64) {
		if ball == m {
			maxLoad += pr * float64(slices.Max(load))
			return
		}
		for i := range load {
			p1 := pr / float64(n)
			var diff []int
			for j := range load {
				if load[j] != load[i] {
					diff = append(diff, j)
				}
			}
			if len(diff) == 0 {
				probes += p1 * float64(C)
				load[i]++
				rec(ball+1, p1)
				load[i]--
				continue
			}
			q := float64(len(diff)) / float64(n)
			miss := math.Pow(1-q, float64(C-1))
			probes += p1 * (1 + (1-miss)/q)
			for _, j := range diff {
				tgt := i
				if load[j] < load[i] {
					tgt = j
				}
				load[tgt]++
				rec(ball+1, p1*(1-miss)/float64(len(diff)))
				load[tgt]--
			}
			if miss > 0 {
				load[i]++
				rec(ball+1, p1*miss)
				load[i]--
			}
		}
	}
	rec(0, 1)
	return probes, maxLoad
}

// The two enumerations agree for small caps, and at C = 1 the maximum is
// uniform's (expectedMaxUniform) with one probe per ball.
func TestFirstDiffEnumerations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, m, C int }{
		{3, 2, 1}, {3, 3, 1}, {3, 3, 2}, {3, 3, 3}, {3, 3, 4}, {4, 3, 2}, {4, 3, 3}, {2, 4, 3},
	} {
		bp, bm := firstDiffBrute(tc.n, tc.m, tc.C)
		ep, em := firstDiffExact(tc.n, tc.m, tc.C)
		// Up to 81^3 products of probabilities summed in float64: agreement
		// to 1e−9 relative is the precision of the sums, not a statistical band.
		if math.Abs(bp-ep) > 1e-9*ep || math.Abs(bm-em) > 1e-9*em {
			t.Errorf("n = %d, m = %d, C = %d: brute force (probes %.15g, max %.15g), closed form (%.15g, %.15g)",
				tc.n, tc.m, tc.C, bp, bm, ep, em)
		}
		if tc.C == 1 {
			if u := expectedMaxUniform(tc.n, tc.m); math.Abs(em-u) > 1e-9*u || math.Abs(ep-float64(tc.m)) > 1e-9*ep {
				t.Errorf("n = %d, m = %d, C = 1: max %.15g, uniform %.15g; probes %g, want %d", tc.n, tc.m, em, u, ep, tc.m)
			}
		}
	}
}

// With a very large cap (C = 1000: a ball that meets a different load gives
// up with probability at most (3/4)^999 < 1e−124) on a tiny instance the
// simulated mean probes per ball and mean maximum load match the exact
// enumeration. The first ball meets equal (empty) loads and makes C probes.
// (With patience this long the loads stay within one of each other — a ball
// that sees loads L and L+1 goes to L — so the maximum is ⌈m/n⌉ but for
// misses of probability below 1e−124; the enumeration says so too, to its
// float64 precision, hence the 1e−9 beside the band of a zero variance.)
func TestBallsFirstDiffCapExact(t *testing.T) {
	t.Parallel()
	const runs = 20000
	// The small caps make the maximum load random: they test the placement.
	for _, tc := range []struct{ n, m, C int }{{3, 3, 1000}, {4, 3, 1000}, {3, 5, 1000}, {4, 4, 2}, {3, 4, 3}} {
		C := tc.C
		t.Run(fmt.Sprintf("n=%d,m=%d,C=%d", tc.n, tc.m, C), func(t *testing.T) {
			t.Parallel()
			probes, maxLoad := firstDiffExact(tc.n, tc.m, C) // exact
			wantProbes := probes / float64(tc.m)
			c := perBall(t, 2, strconv.Itoa(C))
			c.Bins, c.Balls = tc.n, tc.m
			s, err := ReplicateBalls(context.Background(), c, runs, 21, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := s.Probes.Mean - wantProbes; math.Abs(d) > bandOf(s.Probes)*s.Probes.SE {
				t.Errorf("probes per ball %.4f ± %.4f, want %.4f (exact); difference %.4f over t(0.9995, runs − 1) s.e.",
					s.Probes.Mean, s.Probes.SE, wantProbes, d)
			}
			if d := s.MaxLoad.Mean - maxLoad; math.Abs(d) > bandOf(s.MaxLoad)*s.MaxLoad.SE+1e-9 {
				t.Errorf("max load %.4f ± %.4f, want %.4f (exact); difference %.4f over t(0.9995, runs − 1) s.e.",
					s.MaxLoad.Mean, s.MaxLoad.SE, maxLoad, d)
			}
			if s.ProbesMax != C {
				t.Errorf("most probes by one ball %d, want %d (the first ball meets equal loads)", s.ProbesMax, C)
			}
		})
	}
}

// twoBinsExact is E[max load] and E[probes per ball] for m balls in two
// bins when, with the loads D > 0 apart, a ball goes to the fuller bin with
// probability up and makes probesDiff probes on average, and with equal
// loads it goes to either and makes probesTie: a walk on D, summed exactly.
func twoBinsExact(m int, up, probesTie, probesDiff float64) (maxLoad, probesPerBall float64) {
	p := make([]float64, m+2)
	p[0] = 1
	var probes float64
	for range m {
		q := make([]float64, m+2)
		for k, x := range p {
			switch {
			case x == 0:
			case k == 0:
				q[1] += x
				probes += x * probesTie
			default:
				q[k+1] += x * up
				q[k-1] += x * (1 - up)
				probes += x * probesDiff
			}
		}
		p = q
	}
	for k, x := range p {
		maxLoad += x * float64(m+k) / 2
	}
	return maxLoad, probes / float64(m)
}

// The heavily loaded setting, m = 64n with n = 2, against the exact walk
// on the load difference: uniform goes up with probability 1/2; Greedy[d]
// (with replacement) only when all d probes hit the fuller bin, 2^−d; the
// per-ball FirstDiff with cap C when the first probe is the fuller bin and
// C − 1 more find no difference, 2^−C, with 1 + (1 − 2^−(C−1))/(1/2)
// probes when the loads differ and C when they are equal; Left[2] always
// takes the emptier bin, ties left, so its maximum is ⌈m/2⌉ exactly.
func TestBallsHeavyTwoBins(t *testing.T) {
	t.Parallel()
	const m, runs = 128, 4000
	type tc struct {
		name                  string
		c                     BallsConfig
		up, tie, diff, probes float64
	}
	cases := []tc{
		{"uniform", BallsConfig{}, 0.5, 0, 0, 0},
		{"greedy:2", BallsConfig{Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}}, 0.25, 2, 2, 0},
		{"greedy:3", BallsConfig{Policy: fleet.Policy{Kind: fleet.BestOfD, D: 3}}, 0.125, 3, 3, 0},
		{"left:2", BallsConfig{Policy: fleet.Policy{Kind: fleet.Left, D: 2}}, 0, 2, 2, 0},
		{"firstdiff:2 cap:d", perBall(t, 2, "d"), 0.25, 2, 3 - 1, 0},
		{"firstdiff:2 cap:3", perBall(t, 2, "3"), 0.125, 3, 3 - 0.5, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := c.c
			cfg.Bins, cfg.Balls = 2, m
			want, wantProbes := twoBinsExact(m, c.up, c.tie, c.diff)
			s, err := ReplicateBalls(context.Background(), cfg, runs, 8, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := s.MaxLoad.Mean - want; math.Abs(d) > bandOf(s.MaxLoad)*s.MaxLoad.SE+1e-12 {
				t.Errorf("max load %.4f ± %.4f, want %.4f (exact); difference %.4f over t(0.9995, runs − 1) s.e.", s.MaxLoad.Mean, s.MaxLoad.SE, want, d)
			}
			if d := s.Gap.Mean - (want - m/2); math.Abs(d) > bandOf(s.Gap)*s.Gap.SE+1e-12 {
				t.Errorf("gap %.4f ± %.4f, want %.4f (exact)", s.Gap.Mean, s.Gap.SE, want-m/2)
			}
			if d := s.Probes.Mean - wantProbes; math.Abs(d) > bandOf(s.Probes)*s.Probes.SE+1e-12 {
				t.Errorf("probes per ball %.4f ± %.4f, want %.4f (exact)", s.Probes.Mean, s.Probes.SE, wantProbes)
			}
		})
	}
}

// Under the per-ball rule no ball makes more than C probes, so the mean is
// at most C too, in the classic and the heavily loaded settings.
func TestBallsPerBallWithinCap(t *testing.T) {
	t.Parallel()
	const n = 1 << 10
	for _, d := range []int{2, 3, 4} {
		for _, capS := range []string{"d", "d^2", "n"} {
			for _, m := range []int{n, 4 * n} {
				c := perBall(t, d, capS)
				c.Bins, c.Balls = n, m
				C, _ := c.FirstDiffRule.Cap.Eval(d, n)
				s, err := ReplicateBalls(context.Background(), c, 4, 2, 1)
				if err != nil {
					t.Fatal(err)
				}
				if s.ProbesMax > C || s.Probes.Mean < 1 {
					t.Errorf("d = %d, cap %s = %d, m = %d: most probes %d, mean %.3f", d, capS, C, m, s.ProbesMax, s.Probes.Mean)
				}
				for i, r := range s.Results {
					if r.ProbesMean > float64(C) {
						t.Errorf("d = %d, cap %s = %d, m = %d, run %d: mean probes %.3f above the cap", d, capS, C, m, i, r.ProbesMean)
					}
				}
			}
		}
	}
}

// A run allocates its arrays and nothing per ball: a run of 100 times
// more balls makes as many allocations.
func TestBallsNoAllocsPerBall(t *testing.T) {
	for _, c := range []BallsConfig{
		{}, {Policy: fleet.Policy{Kind: fleet.BestOfD, D: 3}}, {Policy: fleet.Policy{Kind: fleet.Left, D: 2}},
		{Policy: fleet.Policy{Kind: fleet.FirstDiff, D: 3}}, perBall(t, 3, "d^2"), {Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}, Batch: 16},
	} {
		allocs := func(m int) float64 {
			c.Bins, c.Balls = 256, m
			return testing.AllocsPerRun(3, func() {
				if _, err := RunBalls(c, 1); err != nil {
					t.Fatal(err)
				}
			})
		}
		if a, b := allocs(1000), allocs(100000); a != b {
			t.Errorf("%s: %v allocations with 1,000 balls, %v with 100,000", c.Key(), a, b)
		}
	}
}

// A cancelled run stops within a few milliseconds of work even when each
// ball makes many probes: two bins are equal every other ball, and then a
// ball probes all C = 2^20 times; the whole run would be 2^39 probes.
func TestBallsCancelManyProbes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := perBall(t, 2, "1048576")
	c.Bins, c.Balls = 2, 1<<20
	if _, ok := runBalls(ctx, c.withDefaults(), 1); ok {
		t.Errorf("cancelled run reported finished")
	}
}
