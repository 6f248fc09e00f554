package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"herd/fleet"
)

// Balls into bins (validation.md, "Balls into bins"): m balls go one at a
// time into n bins; each ball's rule probes bins and reads their loads.
// The rules are the queueing simulator's own (bestOf, leftOf, firstDiffOf
// in choose.go), instantiated over a load array:
//
//   - uniform: one uniform bin (fleet.Policy{Kind: fleet.Random}).
//   - greedy:D, Greedy[D] (Azar, Broder, Karlin & Upfal, "Balanced
//     allocations", SIAM J. Comput. 29(1), 1999): D independent uniform
//     probes, with replacement (fleet.Policy{Kind: fleet.BestOfD,
//     WithReplacement: true}); the least loaded, ties to the first drawn of
//     the tied probes, which is a uniform choice among them since probes
//     come in random order. ln ln n / ln D + O(1) for m = n.
//   - left:D, Left[D] (Vöcking, "How asymmetry helps load balancing",
//     J. ACM 50(4), 2003): D contiguous groups, one uniform probe each,
//     ties to the left. ln ln n / (D ln φ_D) + O(1), φ_D the D-th
//     generalised golden ratio.
//   - firstdiff:D, FirstDiff[D] (Augustine, Moses, Redlich & Upfal,
//     "Balanced allocation: patience is not a virtue", SODA 2016; SIAM J.
//     Comput. 2022; arXiv:1602.08298): probe independent uniform bins (with
//     replacement) until a load differs from the first probe's, then place
//     the ball in the smaller of those two. The paper's per-ball limit on
//     the probes is not restated here (its text was not reachable offline),
//     so herd offers two rules (BallsConfig.FirstDiffRule):
//     the allowance (the default; firstDiffOf): the run earns D probes per
//     ball and a ball probes again only while the allowance covers it, so
//     the mean is at most D probes per ball exactly, and no ball makes more
//     than BallsConfig.FirstDiffCap probes; or the per-ball cap cap:C
//     (firstDiffCapOf): every ball may probe up to C bins whatever the
//     others did, C written in terms of D and n (CapExpr), and the mean
//     probes per ball is whatever the process makes it (at most C).
//
// Heavily loaded: m may be any multiple of n (or any m ≥ 1); the gap
// max load − m/n is reported with the maximum load.
//
// Stale loads: with Batch = B the probes read the loads as of the last
// multiple of B balls (B = 1 is the classic, exact setting). The snapshot
// is kept by a change log of the bins filled since it was taken, so a
// batch costs O(B), not O(n).

// BallsConfig describes one balls-into-bins experiment. The zero value of
// each field means its default.
type BallsConfig struct {
	Bins  int // n ≥ 1; default 1,024
	Balls int // m ≥ 1; default n
	// Policy is fleet.Random (uniform), fleet.BestOfD with WithReplacement
	// (Greedy[D]), fleet.Left or fleet.FirstDiff; fleet.ParseBallsPolicy
	// reads the names. Default uniform.
	Policy fleet.Policy
	// Batch is B ≥ 1: probes see the loads as of the last multiple of B
	// balls; default 1 (exact loads).
	Batch int
	// FirstDiffCap is the most probes one FirstDiff ball may make under the
	// allowance rule; default (0) the number of bins. Under a per-ball rule
	// it is set from FirstDiffRule.Cap (Normalized reports it).
	FirstDiffCap int
	// FirstDiffRule is how FirstDiff[D] limits its probes: the zero value
	// is the allowance; PerBall gives each ball a cap of Cap probes,
	// evaluated with the policy's D and Bins. Moot for other policies.
	FirstDiffRule FirstDiffRule
}

// MaxProbeCap is the largest per-ball probe cap: one ball's probes are
// counted in an int and made without a cancellation check.
const MaxProbeCap = 1<<31 - 1

// CapExpr is a per-ball probe cap written in terms of the policy's d and
// the number of bins n: a whole number k ≥ 1, or k·d^p or k·n^p with the
// coefficient k ≥ 1 and the power p ≥ 1 optional ("d", "2d", "d^2",
// "4d^2", "n", "2*n", "16").
type CapExpr struct {
	K   int  // coefficient (or the number itself), ≥ 1
	Var byte // 0 for a plain number, 'd' or 'n'
	Pow int  // power of Var, ≥ 1; 0 for a plain number
}

// ParseCapExpr reads a CapExpr.
func ParseCapExpr(s string) (CapExpr, error) {
	bad := fmt.Errorf("sim: probe cap %q: want a whole number ≥ 1, or k·d^p or k·n^p such as d, 2d, d^2, 4d^2, n (k, p whole numbers ≥ 1)", s)
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	e := CapExpr{K: 1}
	if i > 0 {
		k, err := strconv.Atoi(t[:i])
		if err != nil || k < 1 {
			return CapExpr{}, bad
		}
		e.K = k
	}
	if i == 0 && strings.HasPrefix(t, "*") {
		return CapExpr{}, bad
	}
	rest := strings.TrimPrefix(t[i:], "*")
	if rest == "" {
		if i == 0 || len(rest) != len(t[i:]) {
			return CapExpr{}, bad
		}
		return e, nil
	}
	switch rest[0] {
	case 'd', 'n':
		e.Var, e.Pow = rest[0], 1
	default:
		return CapExpr{}, bad
	}
	if rest = rest[1:]; rest != "" {
		p, ok := strings.CutPrefix(rest, "^")
		v, err := strconv.Atoi(p)
		if !ok || err != nil || v < 1 || p[0] == '+' {
			return CapExpr{}, bad
		}
		e.Pow = v
	}
	return e, nil
}

// String writes e as ParseCapExpr reads it, canonically ("4d^2").
func (e CapExpr) String() string {
	if e.Var == 0 {
		return strconv.Itoa(e.K)
	}
	s := ""
	if e.K != 1 {
		s = strconv.Itoa(e.K)
	}
	s += string(e.Var)
	if e.Pow != 1 {
		s += "^" + strconv.Itoa(e.Pow)
	}
	return s
}

// Eval is the cap for the policy's d and n bins; it fails when the value
// is above MaxProbeCap or e is not a valid expression.
func (e CapExpr) Eval(d, n int) (int, error) {
	if e.K < 1 || (e.Var != 0 && e.Pow < 1) {
		return 0, fmt.Errorf("sim: probe cap %+v is not a valid expression", e)
	}
	base := 1
	switch e.Var {
	case 0:
	case 'd':
		base = d
	case 'n':
		base = n
	default:
		return 0, fmt.Errorf("sim: probe cap %+v: variable must be d or n", e)
	}
	v := e.K
	for range e.Pow {
		if base < 1 || v > MaxProbeCap/base {
			return 0, fmt.Errorf("sim: probe cap %s with d = %d, n = %d is above %d", e, d, n, MaxProbeCap)
		}
		v *= base
	}
	if v > MaxProbeCap || v < 1 {
		return 0, fmt.Errorf("sim: probe cap %s with d = %d, n = %d is not in [1, %d]", e, d, n, MaxProbeCap)
	}
	return v, nil
}

// FirstDiffRule is how FirstDiff[D] limits a ball's probes.
type FirstDiffRule struct {
	// PerBall false is the allowance (the zero value): the run earns D
	// probes per ball. PerBall true gives each ball up to Cap probes.
	PerBall bool
	Cap     CapExpr
}

// ParseFirstDiffRule reads "allowance" or "cap:C" with C a CapExpr.
func ParseFirstDiffRule(s string) (FirstDiffRule, error) {
	t := strings.TrimSpace(s)
	if t == "allowance" {
		return FirstDiffRule{}, nil
	}
	c, ok := strings.CutPrefix(t, "cap:")
	if !ok {
		return FirstDiffRule{}, fmt.Errorf("sim: unknown firstdiff rule %q: want allowance or cap:C (C such as d, 2d, d^2, 4d^2, n or a whole number)", s)
	}
	e, err := ParseCapExpr(c)
	if err != nil {
		return FirstDiffRule{}, err
	}
	return FirstDiffRule{PerBall: true, Cap: e}, nil
}

// String writes r as ParseFirstDiffRule reads it.
func (r FirstDiffRule) String() string {
	if !r.PerBall {
		return "allowance"
	}
	return "cap:" + r.Cap.String()
}

func (c BallsConfig) withDefaults() BallsConfig {
	if c.Bins == 0 {
		c.Bins = 1024
	}
	if c.Balls == 0 {
		c.Balls = c.Bins
	}
	if c.Batch == 0 {
		c.Batch = 1
	}
	if c.Policy.Kind != fleet.FirstDiff {
		c.FirstDiffRule = FirstDiffRule{}
	}
	if c.FirstDiffRule.PerBall {
		// Validate has checked the expression; a failure here leaves the
		// cap at 1 for a configuration that Validate rejects.
		c.FirstDiffCap, _ = c.FirstDiffRule.Cap.Eval(c.Policy.D, c.Bins)
		c.FirstDiffCap = max(c.FirstDiffCap, 1)
	}
	if c.FirstDiffCap == 0 {
		c.FirstDiffCap = c.Bins
	}
	if c.Policy.Kind == fleet.BestOfD {
		c.Policy.WithReplacement = true
	}
	if c.Policy.Kind == fleet.Random {
		c.Policy.D = 0
	}
	return c
}

// Normalized returns the configuration with defaults filled in.
func (c BallsConfig) Normalized() BallsConfig { return c.withDefaults() }

// Validate reports the first invalid field, naming its allowed range.
func (c BallsConfig) Validate() error {
	if c.FirstDiffCap < 0 {
		return cfgErr("FirstDiffCap = %d, want ≥ 0 (0 is the number of bins)", c.FirstDiffCap)
	}
	c = c.withDefaults()
	switch {
	case c.Bins < 1 || c.Bins > 1<<31-1:
		return cfgErr("Bins = %d, want in [1, 2³¹−1]", c.Bins)
	case c.Balls < 1 || c.Balls > 1<<31-1:
		return cfgErr("Balls = %d, want in [1, 2³¹−1]", c.Balls)
	case c.Batch < 1:
		return cfgErr("Batch = %d, want ≥ 1", c.Batch)
	}
	switch c.Policy.Kind {
	case fleet.Random:
	case fleet.BestOfD, fleet.FirstDiff:
		if c.Policy.D < 1 {
			return cfgErr("policy %s: D must be ≥ 1", fleet.BallsPolicyName(c.Policy))
		}
		if r := c.FirstDiffRule; c.Policy.Kind == fleet.FirstDiff && r.PerBall {
			if _, err := r.Cap.Eval(c.Policy.D, c.Bins); err != nil {
				return cfgErr("FirstDiffRule %s: %s", r, strings.TrimPrefix(err.Error(), "sim: "))
			}
		}
	case fleet.Left:
		if c.Policy.D < 1 || c.Policy.D > c.Bins {
			return cfgErr("policy %s: D must be in [1, %d] (the bins)", fleet.BallsPolicyName(c.Policy), c.Bins)
		}
	default:
		return cfgErr("policy %s is not a balls-into-bins rule: want uniform, greedy:D, left:D or firstdiff:D", c.Policy)
	}
	return nil
}

// Key is a canonical description of the configuration: the identity from
// which a run's seed is derived (with the replication index).
func (c BallsConfig) Key() string {
	c = c.withDefaults()
	k := fmt.Sprintf("balls bins=%d balls=%d policy=%s batch=%d cap=%d",
		c.Bins, c.Balls, fleet.BallsPolicyName(c.Policy), c.Batch, c.FirstDiffCap)
	if c.FirstDiffRule.PerBall {
		// Only the per-ball rule adds to the key, so that the allowance's
		// seeds (and outputs) are those of earlier versions.
		k += " rule=perball"
	}
	return k
}

// BallsResult is one run.
type BallsResult struct {
	MaxLoad    int     // the fullest bin's load after the last ball
	Gap        float64 // MaxLoad − Balls/Bins
	Probes     int64   // bins probed, all balls (0 for uniform)
	ProbesMean float64 // Probes / Balls
	ProbesMax  int     // the most probes one ball made
}

// loadView reads a load array: the live loads, or the batch's snapshot.
type loadView []int32

func (v loadView) value(s int32) int32 { return v[s] }

// RunBalls throws c.Balls balls into c.Bins bins with the given seed. The
// result depends only on c and seed.
func RunBalls(c BallsConfig, seed uint64) (BallsResult, error) {
	if err := c.Validate(); err != nil {
		return BallsResult{}, err
	}
	res, _ := runBalls(context.Background(), c.withDefaults(), seed)
	return res, nil
}

// ballsCheckEvery is the work (balls plus probes) between two checks of the
// context: a few milliseconds.
const ballsCheckEvery = 1 << 22

// runBalls is one run; it checks ctx every ballsCheckEvery balls plus probes
// (one ball's probes are never interrupted: at most MaxProbeCap) and
// reports false when cancelled.
func runBalls(ctx context.Context, c BallsConfig, seed uint64) (BallsResult, bool) {
	return runBallsInto(ctx, c, seed, make([]int32, c.Bins))
}

// runBallsInto is runBalls with the load array given (len c.Bins, zero):
// the final loads are left in it. c has its defaults filled in.
func runBallsInto(ctx context.Context, c BallsConfig, seed uint64, load []int32) (BallsResult, bool) {
	n, m, B := c.Bins, c.Balls, c.Batch
	g := newRNG(seed)
	// Probes read view: the loads themselves when B = 1, else a snapshot
	// refreshed every B balls from the log of bins filled since.
	view := loadView(load)
	var touched []int32
	if B > 1 {
		view = make(loadView, n)
		touched = make([]int32, 0, min(B, m))
	}
	var maxLoad int32
	var probes int64
	probesMax := 0
	credit := 0
	var marks probeMarks // unused: Greedy[D] draws with replacement
	D := c.Policy.D
	kind := c.Policy.Kind
	if kind == fleet.FirstDiff && c.FirstDiffRule.PerBall {
		kind = firstDiffPerBall
	}
	nn := uint64(n)
	left := B // balls until the next snapshot
	work := ballsCheckEvery
	for i := 0; i < m; i++ {
		if left == 0 {
			for _, s := range touched {
				view[s] = load[s]
			}
			touched = touched[:0]
			left = B
		}
		left--
		if work <= 0 {
			if ctx.Err() != nil {
				return BallsResult{}, false
			}
			work = ballsCheckEvery
		}
		var s int32
		p := D
		switch kind {
		case fleet.BestOfD:
			s = bestOf(g, view, 0, nn, D, true, &marks)
		case fleet.Left:
			s = leftOf(g, view, 0, n, D)
		case fleet.FirstDiff:
			s, p = firstDiffOf(g, view, 0, nn, D, &credit, c.FirstDiffCap)
		case firstDiffPerBall:
			s, p = firstDiffCapOf(g, view, 0, nn, c.FirstDiffCap)
		case fleet.Random:
			s, p = int32(g.Uint64N(nn)), 0
		}
		work -= p + 1
		probes += int64(p)
		probesMax = max(probesMax, p)
		l := load[s] + 1
		load[s] = l
		maxLoad = max(maxLoad, l)
		if B > 1 {
			touched = append(touched, s)
		}
	}
	return BallsResult{
		MaxLoad:    int(maxLoad),
		Gap:        float64(maxLoad) - float64(m)/float64(n),
		Probes:     probes,
		ProbesMean: float64(probes) / float64(m),
		ProbesMax:  probesMax,
	}, true
}

// firstDiffPerBall is FirstDiff under the per-ball rule, inside runBalls.
const firstDiffPerBall fleet.PolicyKind = -1

// LoadCount is one value of the maximum load and the runs that ended with it.
type LoadCount struct {
	Load, Runs int
}

// BallsSummary gathers the runs of one configuration.
type BallsSummary struct {
	Config    BallsConfig
	Runs      int
	MaxLoad   Stat        // maximum load over runs
	Gap       Stat        // maximum − average load
	Probes    Stat        // probes per ball
	ProbesMax int         // the most probes one ball made in any run
	Dist      []LoadCount // the maximum loads seen, ascending, with their runs
	Results   []BallsResult
}

// SummarizeBalls combines runs of c.
func SummarizeBalls(c BallsConfig, results []BallsResult) BallsSummary {
	s := BallsSummary{Config: c.withDefaults(), Runs: len(results), Results: results}
	var ml, gap, pr []float64
	for _, r := range results {
		ml = append(ml, float64(r.MaxLoad))
		gap = append(gap, r.Gap)
		pr = append(pr, r.ProbesMean)
		s.ProbesMax = max(s.ProbesMax, r.ProbesMax)
		i, found := slices.BinarySearchFunc(s.Dist, r.MaxLoad, func(lc LoadCount, l int) int { return lc.Load - l })
		if found {
			s.Dist[i].Runs++
		} else {
			s.Dist = slices.Insert(s.Dist, i, LoadCount{r.MaxLoad, 1})
		}
	}
	s.MaxLoad, s.Gap, s.Probes = NewStat(ml), NewStat(gap), NewStat(pr)
	return s
}

// RunBallsAll is RunAll for balls into bins: runs stop within 2^22 balls
// plus probes of a cancellation.
func RunBallsAll(ctx context.Context, tasks []BallsTask, workers int, progress func(done, total int)) (results []BallsResult, done []bool, err error) {
	return runJobs(ctx, tasks, workers, progressNotify[BallsResult](progress))
}

// RunBallsAllNotify is RunBallsAll reporting which task finished (as
// RunAllNotify), for progress weighted by each run's cost.
func RunBallsAllNotify(ctx context.Context, tasks []BallsTask, workers int, notify func(i int, r BallsResult, done, total int)) (results []BallsResult, done []bool, err error) {
	return runJobs(ctx, tasks, workers, notify)
}

// ReplicateBalls is Replicate for balls into bins.
func ReplicateBalls(ctx context.Context, c BallsConfig, runs int, master uint64, workers int) (BallsSummary, error) {
	res, err := replicas[BallsConfig, BallsResult](ctx, c, runs, master, workers)
	if err != nil {
		return BallsSummary{}, err
	}
	return SummarizeBalls(c, res), nil
}
