package compare

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"herd/fixedpoint/root"
	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// Sources of the figures (the Sources list of compare/validation.md).
const (
	srcClosed   = "validation.md: closed forms"
	srcSim      = "validation.md: simulator figures"
	srcMap      = "validation.md: refresh map"
	srcClosedEN = "herd: closed forms (E_N/M/1)"
	srcLiveSQ2  = "validation.md: best of two, live, N = 1,000"
)

// length picks a run length: quick for CI, full for the published runs.
func (v *validator) length(quick, full float64) float64 {
	if v.opt.Quick {
		return quick
	}
	return full
}

func (v *validator) runs(quick, full int) int {
	if v.opt.Quick {
		return quick
	}
	return full
}

var (
	ll     = fleet.Policy{Kind: fleet.LeastLoaded}
	sq2    = fleet.Policy{Kind: fleet.BestOfD, D: 2}
	rr     = fleet.Policy{Kind: fleet.RoundRobin}
	random = fleet.Policy{Kind: fleet.Random}
)

func h2(c float64) fleet.Sizes { return fleet.Sizes{Kind: fleet.H2, Param: c} }

// simCheck is a check of one simulated configuration against a reference
// (closed form or model) or a published interval.
func simCheck(name, source string, quick bool, c sim.Config, quickLen, fullLen float64, quickRuns, fullRuns int,
	compare func(v *validator, s sim.Summary) (Row, error)) check {
	return check{name: name, source: source, quick: quick, run: func(ctx context.Context, v *validator) (Row, error) {
		c := c
		c.Horizon = v.length(quickLen, fullLen)
		s, length, err := v.simulate(ctx, c, v.runs(quickRuns, fullRuns))
		if err != nil {
			return Row{}, err
		}
		r, err := compare(v, s)
		r.Runs = length
		return r, err
	}}
}

// published returns a compare function against a published interval.
func published(text string, lo, hi float64) func(*validator, sim.Summary) (Row, error) {
	return func(_ *validator, s sim.Summary) (Row, error) {
		return againstPublished(text, lo, hi, s.Response), nil
	}
}

// reference returns a compare function against an exact value, with the
// published figure shown beside it.
func reference(text string, ref func() (float64, error), note string) func(*validator, sim.Summary) (Row, error) {
	return func(_ *validator, s sim.Summary) (Row, error) {
		x, err := ref()
		if err != nil {
			return Row{}, err
		}
		r := blank()
		r.Published = text
		return againstReference(r, s.Response, x, note), nil
	}
}

// referenceBiased is reference for a finite system whose mean sits bias
// (a measured estimate, signed: x_N − x_∞) away from its N → ∞ reference:
// the simulated mean less bias is compared with the reference, with both
// standard errors (combine).
func referenceBiased(text string, ref func() (float64, error), bias estimate, how, note string) func(*validator, sim.Summary) (Row, error) {
	return func(_ *validator, s sim.Summary) (Row, error) {
		x, err := ref()
		if err != nil {
			return Row{}, err
		}
		r := blank()
		r.Published = text
		lim := combine([]float64{1, -1}, []estimate{fromStat(s.Response), bias})
		return againstLimit(r, s.Response, lim, x, how, note), nil
	}
}

func gim1(f func() (meanfield.GIM1Result, error)) func() (float64, error) {
	return func() (float64, error) {
		r, err := f()
		return r.Response, err
	}
}

// checks is the validation list, in the order of validation.md: closed
// forms, the simulator against closed forms and against published
// figures, and the refresh map.
func checks() []check {
	var cs []check
	for _, group := range [][]check{closedFormChecks(), simClosedFormChecks(), simPublishedChecks(), mapChecks()} {
		cs = append(cs, group...)
	}
	return cs
}

// closedFormChecks are the closed forms and the exact models.
func closedFormChecks() []check {
	return []check{
		// Closed forms.
		{name: "M/M/1 mean time, λ = 0.9", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			x, err := meanfield.MM1Response(0.9)
			return exact("10", 10, 0.5e-9, x), err
		}},
		{name: "supermarket SQ(2) fixed point, λ = 0.9", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			x, err := meanfield.SupermarketResponse(2, 0.9)
			return exact("2.614", 2.614, 0.0005, x), err
		}},
		{name: "round robin N → ∞ (D/M/1), λ = 0.9", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			r, err := meanfield.DM1(0.9)
			return exact("5.18", 5.18, 0.005, r.Response), err
		}},
		{name: "round robin = live SQ(2) crossing load", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			c, err := meanfield.SupermarketRoundRobinCrossing(2)
			return exact("0.52", 0.52, 0.005, c.Load), err
		}},
		{name: "Pollaczek–Khinchine, h2 C = 10, λ = 0.9", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			x, err := meanfield.PKResponse(0.9, 11)
			return exact("50.5", 50.5, 0.05, x), err
		}},
		{name: "Pollaczek–Khinchine, h2 C = 30, λ = 0.9", source: srcClosed, quick: true, run: func(context.Context, *validator) (Row, error) {
			x, err := meanfield.PKResponse(0.9, 31)
			return exact("140.5", 140.5, 0.05, x), err
		}},
		modelExact("model: supermarket SQ(2), λ = 0.5", "herd: closed forms", "1.26569", 1.26569, 0.000005, func() (float64, error) { return meanfield.SupermarketResponse(2, 0.5) }),
		modelExact("model: supermarket SQ(2), λ = 0.99", "herd: closed forms", "5.43200", 5.432, 0.000005, func() (float64, error) { return meanfield.SupermarketResponse(2, 0.99) }),
		modelExact("model: E_2/M/1, λ = 0.9", "herd: closed forms", "7.588284", 7.588284, 0.0000005, gim1(func() (meanfield.GIM1Result, error) { return meanfield.ErlangM1(2, 0.9) })),
		modelExact("model: E_10/M/1, λ = 0.9", "herd: closed forms", "5.660276", 5.660276, 0.0000005, gim1(func() (meanfield.GIM1Result, error) { return meanfield.ErlangM1(10, 0.9) })),
		modelExact("model: E_100/M/1, λ = 0.9", "herd: closed forms", "5.226811", 5.226811, 0.0000005, gim1(func() (meanfield.GIM1Result, error) { return meanfield.ErlangM1(100, 0.9) })),
		{name: "model: periodic-update SQ(2), T = 0.01 → supermarket", source: "herd: model limits", quick: true, run: periodicLimit},
		{name: "model: periodic-update, random (d = 1) = M/M/1 at every T", source: "herd: closed forms", quick: true, run: func(context.Context, *validator) (Row, error) {
			row := blank()
			row.Published = "1/(1−λ) = 10"
			worst := 0.0
			// The M/M/1 law (1 − λ)λ^q must be a fixed point of the d = 1
			// period map at every T, with mean time exactly 1/(1 − λ).
			for _, T := range []float64{0.5, 5, 50} {
				r, err := meanfield.PeriodicUpdate{D: 1, Load: 0.9, Period: T}.Solve(meanfield.BoardGeometric(0.9, 0))
				if err != nil {
					return Row{}, err
				}
				worst = math.Max(worst, math.Abs(r.Response-10))
			}
			row.Reference = 10
			row.Verdict, row.Note = Pass, fmt.Sprintf("the M/M/1 law is a fixed point; largest difference %.2g at T = 0.5, 5, 50", worst)
			if worst > 1e-9 {
				row.Verdict = Fail
			}
			return row, nil
		}},
	}
}

// simClosedFormChecks are the simulator against closed forms.
func simClosedFormChecks() []check {
	return []check{
		// Simulator against closed forms.
		simCheck("sim random = M/M/1", srcSim, true, sim.Config{Policy: random}, 20000, 100000, 8, 8,
			reference("10.08 ± 0.08", func() (float64, error) { return meanfield.MM1Response(0.9) }, "")),
		simCheck("sim live SQ(2), N = 1,000 = supermarket + c/N", srcLiveSQ2, true, sim.Config{Servers: 1000, Policy: sq2}, 4000, 20000, 8, 8,
			referenceBiased("2.616 ± 0.012", func() (float64, error) { return meanfield.SupermarketResponse(2, 0.9) }, liveSQ2Bias(1000), "simulated − c/N",
				fmt.Sprintf("finite-N bias c/N = +%.2g ± %.1g: the N = 1,000 system sits above its N → ∞ limit by c/N, c = %g ± %g measured at N = 100, 200, 400", liveSQ2BiasN/1000, liveSQ2BiasNSE/1000, liveSQ2BiasN, liveSQ2BiasNSE))),
		simCheck("sim round robin, N = 100 = E_100/M/1", srcSim, true, sim.Config{Policy: rr}, 20000, 100000, 8, 8,
			reference("5.2", gim1(func() (meanfield.GIM1Result, error) { return meanfield.ErlangM1(100, 0.9) }), "")),
		simCheck("sim round robin, N = 10 = E_10/M/1", srcClosedEN, false, sim.Config{Servers: 10, Policy: rr}, 20000, 400000, 8, 8,
			reference("5.660", gim1(func() (meanfield.GIM1Result, error) { return meanfield.ErlangM1(10, 0.9) }), "")),
		simCheck("sim random, h2 C = 10 = P-K", srcSim, true, sim.Config{Sizes: h2(10)}, 20000, 400000, 12, 8,
			reference("51.1", func() (float64, error) { return meanfield.PKResponse(0.9, 11) }, "")),
		simCheck("sim random, h2 C = 30 = P-K", srcSim, false, sim.Config{Sizes: h2(30)}, 20000, 400000, 8, 8,
			reference("139.9", func() (float64, error) { return meanfield.PKResponse(0.9, 31) }, "")),
	}
}

// simPublishedChecks are the simulator against published figures.
func simPublishedChecks() []check {
	return []check{
		// Simulator against published figures.
		simCheck("sim live least loaded", srcSim, true, sim.Config{Policy: ll}, 20000, 100000, 8, 8,
			published("1.07", 1.065, 1.075)),
		{name: "sim least loaded, T = 20", source: srcSim, run: llT20},
		{name: "sim least loaded, T = 100", source: srcSim, run: llT100},
		simCheck("sim best of two, T = 10", srcSim, true, sim.Config{Policy: sq2, Refresh: 10}, 20000, 100000, 8, 8,
			published("5.1", 5.05, 5.15)),
		periodicCheck(1), periodicCheck(5), periodicCheck(10), periodicCheck(20),
		phaseMapCheck(1200), phaseMapCheck(2000),
		{name: "sim least loaded crosses random where the model says", source: "herd: closed forms", run: llCrossing},
		simCheck("sim 3 dispatchers, ll + own tally, T = 20", srcSim, false, sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 3, Refresh: 20}, 20000, 400000, 6, 6,
			published("≈ random (10)", 9.5, 10.5)),
		simCheck("sim 3 dispatchers, ll + own tally, T = 100", srcSim, false, sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 3, Refresh: 100}, 20000, 400000, 6, 6,
			published("42", 41.5, 42.5)),
		simCheck("sim 3 dispatchers, ll + own tally, T = 200", srcSim, true, sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 3, Refresh: 200}, 40000, 400000, 6, 6,
			published("6.4", 6.35, 6.45)),
		simCheck("sim 10 dispatchers, ll + own tally, T = 500", srcSim, false, sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 10, Refresh: 500}, 20000, 200000, 6, 6,
			published("590", 585, 595)),
		simCheck("sim 10 dispatchers, ll + own tally, T = 1,000", srcSim, false, sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 10, Refresh: 1000}, 20000, 400000, 6, 6,
			published("10", 9.5, 10.5)),
		{name: "sim ll + own tally vs round robin, λ = 0.5, T = 3,000", source: srcSim, run: llVsRRHalfLoad},
		simCheck("sim h2 C = 30: least loaded, live", srcSim, false, sim.Config{Policy: ll, Sizes: h2(30)}, 20000, 400000, 8, 8,
			published("1.5", 1.45, 1.55)),
		{name: "sim h2 C = 30: least-work oracle, live", source: srcSim, run: oracleC30},
		herdCheck(1100, "449", 448.5, 449.5, 20000, 220000, herd1100),
		herdCheck(3000, "1,200", 1195, 1205, 30000, 600000, nil),
		simCheck("sim 5 dispatchers, balanced start, T = 1,100", srcSim, false,
			sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 5, Refresh: 1100, Start: fleet.Start{Kind: fleet.StartBalanced}}, 20000, 220000, 4, 4,
			published("6.4", 6.35, 6.45)),
		simCheck("sim 5 dispatchers partitioned, half 0.1T, T = 300", srcSim, false,
			sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 5, Partitioned: true, Refresh: 300, Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}}, 20000, 60000, 4, 4,
			published("3.9–5.5", 3.9, 5.5)),
		{name: "sim 2 dispatchers recover from half 0.2T, T = 5–300", source: srcSim, run: k2Recovers},
		{name: "sim herd mean time / T, half 0.1T start, T = 300–3,000", source: srcSim, run: herdBacklog},
		simCheck("sim 5 dispatchers partitioned, balanced, T = 3,000", srcSim, false,
			sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 5, Partitioned: true, Refresh: 3000, Start: fleet.Start{Kind: fleet.StartBalanced}}, 30000, 600000, 4, 4,
			published("3.9–5.5", 3.9, 5.5)),
		simCheck("sim 5 dispatchers partitioned, half 0.1T, T = 30", srcSim, false,
			sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 5, Partitioned: true, Refresh: 30, Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}}, 6000, 6000, 4, 4,
			published("3.9–5.5", 3.9, 5.5)),
		lowLoadCheck(20), lowLoadCheck(30), lowLoadCheck(45),
		{name: "sim 3 dispatchers, λ = 0.8, N = 800: falls with T (T = 20 > 30 > 45)", source: srcSim, run: lowLoadFalls},
	}
}

// mapChecks are the refresh map against published values and the law.
func mapChecks() []check {
	return []check{
		// The refresh map.
		mapCheck("map board mean, k = 1, T = 600", 1, 600, "4.73", 4.725, 4.735),
		mapCheck("map board mean, k = 5, T = 400", 5, 400, "5.49", 5.485, 5.495),
		mapCheck("map board mean, k = 5, T = 20 (herded)", 5, 20, "15.9", 15.85, 15.95),
		{name: "map edge T(1−λ)², k = 5, λ = 0.9", source: srcMap, quick: true, run: func(context.Context, *validator) (Row, error) {
			e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: 5, Load: 0.9})
			if err != nil {
				return Row{}, err
			}
			r := exact("2.90", 2.90, 0.005, e.Scaled)
			r.Note += "; crossing " + e.Crossing
			if e.Crossing != meanfield.CrossingBorder {
				r.Verdict = Fail
			}
			return r, nil
		}},
		{name: "map: k = 2 never tips, λ = 0.9", source: srcMap, quick: true, run: func(context.Context, *validator) (Row, error) {
			e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: 2, Load: 0.9})
			if err != nil {
				return Row{}, err
			}
			r := blank()
			r.Published = "never tips"
			r.Verdict, r.Note = Pass, "no edge down to T(1−λ)² = 0.02"
			if e.Status == meanfield.Found {
				r.Reference = e.Scaled
				r.Verdict, r.Note = Fail, "an edge was found"
			}
			return r, nil
		}},
		edgeLawCheck(0.9, "within about 10% of 0.9(k−2)", 0.90, 1.10, rerun09, 0),
		edgeRerunCheck(0.9, rerun09, 0),
		edgeLawCheck(0.8, "up to about 15% above 0.9(k−2)", 1, 1.15, rerun08, 4),
		edgeRerunCheck(0.8, rerun08, 4),
	}
}

// mapCheck compares the refresh map's board mean at its attractor from an
// empty board with the published model value.
func mapCheck(name string, k int, T float64, text string, lo, hi float64) check {
	return check{name: name, source: srcMap, quick: true, run: func(context.Context, *validator) (Row, error) {
		a, err := meanfield.FindAttractor(meanfield.Refresh{Dispatchers: k, Load: 0.9, Period: T}, meanfield.BoardEmpty(), meanfield.AttractorSettings{})
		if err != nil {
			return Row{}, err
		}
		return exact(text, (lo+hi)/2, (hi-lo)/2, a.BoardMean), nil
	}}
}

// lawKs are the dispatcher counts of the edge-law checks.
var lawKs = []int{3, 4, 5, 6, 8, 10}

// lawRatio is the edge over the law, T_edge(1−λ)²/(0.9(k−2)).
func lawRatio(k int, e meanfield.EdgeResult) float64 { return e.Scaled / fleet.LawScaled(k) }

// edges returns the refresh map's edges at lawKs for one load, computed
// once per validate run (two checks read them).
func (v *validator) edges(load float64) ([]meanfield.EdgeResult, error) {
	if r, ok := v.edgeCache[load]; ok {
		return r, nil
	}
	var out []meanfield.EdgeResult
	for _, k := range lawKs {
		e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: k, Load: load})
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if v.edgeCache == nil {
		v.edgeCache = map[float64][]meanfield.EdgeResult{}
	}
	v.edgeCache[load] = out
	return out, nil
}

// rerunEdges is validation.md's independent solver at one load: the ratio
// to the law recorded for each k (NaN: not recorded; Inf: no edge found
// down to T(1−λ)² = 0.02), and the largest ratio with its k where only
// that is recorded. Ratios are quoted to 3 decimals.
type rerunEdges struct {
	text   string
	ratios map[int]float64
}

var rerun09 = rerunEdges{"1.103, 1.094, 1.074, 1.047, 1.014, 0.985 for k = 3, 4, 5, 6, 8, 10",
	map[int]float64{3: 1.103, 4: 1.094, 5: 1.074, 6: 1.047, 8: 1.014, 10: 0.985}}
var rerun08 = rerunEdges{"no edge for k = 3; largest 1.173 (+17.3%), at k = 4",
	map[int]float64{3: math.Inf(1), 4: 1.173}}

// agrees reports whether herd's edges match the re-run within the stated
// precision: half a unit of the third decimal plus the edge's own relative
// precision (EdgeSettings.RelTol, 10⁻⁴); where only the largest ratio is
// recorded, herd's largest must be at the same k. why says the first
// disagreement.
func (re rerunEdges) agrees(es []meanfield.EdgeResult, maxOnly int) (ok bool, why string) {
	worstK, worst := 0, math.Inf(-1)
	for i, k := range lawKs {
		if es[i].Status == meanfield.Found && lawRatio(k, es[i]) > worst {
			worstK, worst = k, lawRatio(k, es[i])
		}
	}
	for i, k := range lawKs {
		want, rec := re.ratios[k]
		if !rec {
			continue
		}
		e := es[i]
		switch {
		case math.IsInf(want, 1):
			if e.Status == meanfield.Found {
				return false, fmt.Sprintf("k = %d: herd finds an edge (ratio %.4f), the re-run none", k, lawRatio(k, e))
			}
		case e.Status != meanfield.Found:
			return false, fmt.Sprintf("k = %d: herd finds no edge, the re-run %.3f", k, want)
		case math.Abs(lawRatio(k, e)-want) > 0.0005+1e-4*want:
			return false, fmt.Sprintf("k = %d: ratio %.5f, the re-run %.3f", k, lawRatio(k, e), want)
		case k == maxOnly && worstK != k:
			return false, fmt.Sprintf("largest ratio at k = %d (%.4f), the re-run at k = %d", worstK, worst, k)
		}
	}
	return true, ""
}

// describeEdges lists herd's ratios to the law.
func describeEdges(es []meanfield.EdgeResult) (string, float64) {
	var parts []string
	worst := math.NaN()
	for i, k := range lawKs {
		if es[i].Status != meanfield.Found {
			parts = append(parts, fmt.Sprintf("k = %d none", k))
			continue
		}
		r := lawRatio(k, es[i])
		parts = append(parts, fmt.Sprintf("k = %d %.4f", k, r))
		if math.IsNaN(worst) || math.Abs(r-1) > math.Abs(worst-1) {
			worst = r
		}
	}
	return "ratio to 0.9(k−2): " + strings.Join(parts, ", "), worst
}

// edgeLawCheck compares the refresh map's edges for k = 3 … 10 with the
// published law: every edge must exist and its ratio to 0.9(k−2) lie in
// [lo, hi] (the published "within about 10%" is read as 10%, no more).
// validation.md records an independent solver that disputes the published
// bound; the row is disputed when herd's edges agree with that solver.
func edgeLawCheck(load float64, text string, lo, hi float64, re rerunEdges, maxOnly int) check {
	name := fmt.Sprintf("map edges k = 3…10 vs 0.9(k−2), λ = %g", load)
	return check{name: name, source: srcMap, run: func(_ context.Context, v *validator) (Row, error) {
		es, err := v.edges(load)
		if err != nil {
			return Row{}, err
		}
		r := blank()
		r.Published = text
		pubOK := true
		for i, k := range lawKs {
			if es[i].Status != meanfield.Found || lawRatio(k, es[i]) < lo || lawRatio(k, es[i]) > hi {
				pubOK = false
			}
		}
		rerunOK, why := re.agrees(es, maxOnly)
		desc, worst := describeEdges(es)
		r.Reference = worst
		r.Verdict = settle(pubOK, true, rerunOK)
		switch r.Verdict {
		case Pass:
			r.Note = fmt.Sprintf("every ratio in [%g, %g]; %s", lo, hi, desc)
		case Disputed:
			r.Note = fmt.Sprintf("not every ratio in [%g, %g]; agrees with the independent solver (%s); %s", lo, hi, re.text, desc)
		default:
			r.Note = fmt.Sprintf("not every ratio in [%g, %g], and disagrees with the independent solver: %s; %s", lo, hi, why, desc)
		}
		return r, nil
	}}
}

// edgeRerunCheck is the ordinary check of the refresh map's edges against
// validation.md's independent solver.
func edgeRerunCheck(load float64, re rerunEdges, maxOnly int) check {
	name := fmt.Sprintf("map edges k = 3…10 vs the independent solver, λ = %g", load)
	return check{name: name, source: srcMap, run: func(_ context.Context, v *validator) (Row, error) {
		es, err := v.edges(load)
		if err != nil {
			return Row{}, err
		}
		r := blank()
		r.Published = re.text
		ok, why := re.agrees(es, maxOnly)
		desc, worst := describeEdges(es)
		r.Reference = worst
		if ok {
			r.Verdict, r.Note = Pass, "every recorded ratio matches to its third decimal; "+desc
		} else {
			r.Verdict, r.Note = Fail, why+"; "+desc
		}
		return r, nil
	}}
}

// llT100: the published "over 1,400" is disputed by an independent re-run
// with long warm-ups (1,350–1,370, validation.md).
func llT100(ctx context.Context, v *validator) (Row, error) {
	c := sim.Config{Policy: ll, Refresh: 100, Horizon: v.length(100000, 400000), Warmup: v.length(25000, 100000)}
	s, length, err := v.simulate(ctx, c, 8)
	if err != nil {
		return Row{}, err
	}
	r := disputedFigure("over 1,400", 1400, math.Inf(1), "1,350–1,370", 1350, 1370, s.Response)
	r.Runs = length
	return r, nil
}

// oracleC30: published 1.18, disputed by an independent re-run's 1.15
// (validation.md); both are read to half a unit of their last digit.
func oracleC30(ctx context.Context, v *validator) (Row, error) {
	c := sim.Config{Policy: fleet.Policy{Kind: fleet.Oracle}, Sizes: h2(30), Horizon: v.length(20000, 400000)}
	s, length, err := v.simulate(ctx, c, 8)
	if err != nil {
		return Row{}, err
	}
	r := disputedFigure("1.18", 1.175, 1.185, "1.15", 1.145, 1.155, s.Response)
	r.Runs = length
	return r, nil
}

// modelExact compares a model or closed-form value with a figure quoted to
// the digits given.
func modelExact(name, source, text string, pub, halfUnit float64, f func() (float64, error)) check {
	return check{name: name, source: source, quick: true, run: func(context.Context, *validator) (Row, error) {
		x, err := f()
		return exact(text, pub, halfUnit, x), err
	}}
}

// liveSQ2BiasN ± liveSQ2BiasNSE is c in the finite-N bias c/N of live
// best of two (distinct probes) at λ = 0.9: N·(x_N − x_∞) measured with
// herd sim at N = 100, 200 and 400 (32 runs each, N × horizon × runs =
// 8·10⁸): 3.174 ± 0.064, 2.834 ± 0.169, 3.379 ± 0.266; the weighted fit of
// c/N gives c = 3.14 ± 0.06, χ² = 4.4 on 2 d.f. At N = 1,000 that is
// 0.0031 (it was an assumed 0.005). sim's TestLiveBestOfTwoSupermarket
// uses the same c.
const (
	liveSQ2BiasN   = 3.14
	liveSQ2BiasNSE = 0.06
	// liveSQ2BiasDF is the degrees of freedom of c's standard error: 3
	// sizes of 32 runs, 3·31.
	liveSQ2BiasDF = 93
)

// liveSQ2Bias is the finite-N bias x_N − x_∞ = c/N of live best of two at
// N servers, with its standard error.
func liveSQ2Bias(n float64) estimate {
	return estimate{Mean: liveSQ2BiasN / n, SE: liveSQ2BiasNSE / n, DF: liveSQ2BiasDF}
}

// extrapolate is the 1/N (Richardson) extrapolation to N → ∞ from a
// simulation at N and one at 4N: x_∞ = (4·x_4N − x_N)/3, the N-server value
// less its measured bias b = (x_N − x_4N)/(1 − 1/4). Written as one linear
// combination, each run's standard error enters once (the bias is made
// from x_N too, so x_N − b cannot be formed with two independent errors).
func extrapolate(n, n4 sim.Stat) (lim estimate, bias float64) {
	lim = combine([]float64{-1.0 / 3, 4.0 / 3}, []estimate{fromStat(n), fromStat(n4)})
	return lim, (n.Mean - n4.Mean) / 0.75
}

// periodicLimit: the periodic-update best-of-two model tends to the
// supermarket model as T → 0, and at first order: the gap x(T) − x(0) is
// a·T + O(T²) (a ≈ 0.349 at λ = 0.9; gap/T = 0.3465, 0.3479, 0.3486,
// 0.3489, 0.3490 at T = 0.08, 0.04, 0.02, 0.01, 0.005). Richardson's
// extrapolation from T = 0.02 and 0.01, 2·x(0.01) − x(0.02), removes the
// first-order term and leaves O(T²) (6.5·10⁻⁶ here); it must round to the
// published 2.614, as any model value must, and the step ratio
// gap(0.02)/gap(0.01) shows the order (2 at first order). No tolerance is
// chosen: the published figure's digits are the precision.
func periodicLimit(context.Context, *validator) (Row, error) {
	x1, err := meanfield.ClassicModel(meanfield.ClassicSettings{Policy: sq2, Load: 0.9, Refresh: 0.01})
	if err != nil {
		return Row{}, err
	}
	x2, err := meanfield.ClassicModel(meanfield.ClassicSettings{Policy: sq2, Load: 0.9, Refresh: 0.02})
	if err != nil {
		return Row{}, err
	}
	sm, err := meanfield.SupermarketResponse(2, 0.9)
	if err != nil {
		return Row{}, err
	}
	lim := 2*x1.ResponseMean - x2.ResponseMean
	r := exact("2.614", 2.614, 0.0005, lim)
	r.Published = "→ 2.614 as T → 0"
	r.Note = fmt.Sprintf("%s; 2·x(0.01) − x(0.02) = %.6g (x(0.01) = %.6g, x(0.02) = %.6g; gap ratio %.3f, 2 at first order; the supermarket value %.6g)",
		r.Note, lim, x1.ResponseMean, x2.ResponseMean, (x2.ResponseMean-sm)/(x1.ResponseMean-sm), sm)
	return r, nil
}

// periodicCheck compares the periodic-update SQ(2) model (N → ∞, sampling
// with replacement as in the literature) with a 1,000-server simulation of
// best of two (distinct probes, as herd simulates) on a board refreshed
// every T. The finite-N bias is measured, not assumed: the same
// configuration at N = 4,000 gives the N → ∞ value by 1/N extrapolation
// (extrapolate), which is compared with the model; the bias is signed and
// each simulation's standard error counts once.
func periodicCheck(T float64) check {
	return check{name: fmt.Sprintf("model vs sim: periodic-update SQ(2), T = %g", T), source: "herd: closed forms", run: func(ctx context.Context, v *validator) (Row, error) {
		m, err := meanfield.ClassicModel(meanfield.ClassicSettings{Policy: sq2, Load: 0.9, Refresh: T})
		if err != nil {
			return Row{}, err
		}
		h := v.length(2000, 10000)
		s1, length, err := v.simulate(ctx, sim.Config{Servers: 1000, Policy: sq2, Refresh: T, Horizon: h}, 8)
		if err != nil {
			return Row{}, err
		}
		s4, _, err := v.simulate(ctx, sim.Config{Servers: 4000, Policy: sq2, Refresh: T, Horizon: h / 2}, 8)
		if err != nil {
			return Row{}, err
		}
		lim, bias := extrapolate(s1.Response, s4.Response)
		r := blank()
		r.Published = "model"
		r = againstLimit(r, s1.Response, lim, m.ResponseMean, "N → ∞ estimate (4·x₄₀₀₀ − x₁₀₀₀)/3",
			fmt.Sprintf("finite-N bias at N = 1,000 measured %+.3g (N = 4,000: %.5g ± %.2g)", bias, s4.Response.Mean, s4.Response.SE))
		r.Runs = length + "; N = 4,000 at half the horizon"
		return r, nil
	}}
}

// llCrossing: on a board refreshed every T, least loaded gets worse than
// random (M/M/1: 10 at λ = 0.9) past some T. The periodic-update model's
// crossing is computed when the check runs (modelCrossing). The simulator
// (N = 1,000, 4 runs per T) is run at T = 1, 2, …, 8, and each mean is
// classed against 10 with its standard error: below or above when it lies
// more than Band(4) standard errors from 10, else undecided. The
// simulated crossing is bracketed by the last T below and the first T
// above (any undecided T between them widens the bracket); the row passes
// when every T before the bracket is below and the model's crossing lies
// in the bracket. The precision is the grid's. The row's simulated value
// is the crossing interpolated linearly between the bracket's ends, with
// its standard error by the delta method (shown, not tested: the curve
// between grid points is not a line).
func llCrossing(ctx context.Context, v *validator) (Row, error) {
	m, err := modelCrossing()
	if err != nil {
		return Row{}, err
	}
	r := blank()
	r.Published, r.Reference = "the model's crossing", m
	var pts []crossPoint
	for T := 1.0; T <= 8; T++ {
		s, length, err := v.simulate(ctx, sim.Config{Servers: 1000, Policy: ll, Refresh: T, Horizon: v.length(2000, 10000)}, 4)
		if err != nil {
			return Row{}, err
		}
		r.Runs = length + " per T"
		pts = append(pts, crossPoint{T: T, s: s.Response})
		if (s.Response.Mean-10)/s.Response.SE > Band(s.Response.N) {
			break
		}
	}
	return crossingRow(r, m, pts), nil
}

// crossPoint is one grid point of llCrossing: the refresh period and the
// simulated mean time there.
type crossPoint struct {
	T float64
	s sim.Stat
}

// crossingRow is llCrossing's verdict on the grid points pts (ending at the
// first above 10, if any) given the model's crossing m.
func crossingRow(r Row, m float64, pts []crossPoint) Row {
	const random = 10
	z := func(p crossPoint) float64 { return (p.s.Mean - random) / p.s.SE }
	above := func(p crossPoint) bool { return z(p) > Band(p.s.N) }
	describe := func(p crossPoint) string {
		return fmt.Sprintf("T = %g: %.4g ± %.2g (z = %.1f)", p.T, p.s.Mean, p.s.SE, z(p))
	}
	last := pts[len(pts)-1]
	if !above(last) {
		r.Verdict, r.Note = Fail, fmt.Sprintf("model crosses 10 at T = %.4f; the simulation is not above 10 by %.3g s.e. up to T = %g (%s)", m, Band(last.s.N), last.T, describe(last))
		return r
	}
	lo := -1 // the last T below 10
	for i, p := range pts[:len(pts)-1] {
		switch {
		case above(p):
			r.Verdict, r.Note = Fail, fmt.Sprintf("the simulation is above 10 at %s before %s", describe(p), describe(last))
			return r
		case z(p) < -Band(p.s.N):
			if lo != i-1 {
				r.Verdict, r.Note = Fail, fmt.Sprintf("the simulation is below 10 at %s after an undecided T = %g", describe(p), pts[lo+1].T)
				return r
			}
			lo = i
		}
	}
	if lo < 0 {
		r.Verdict, r.Note = Fail, fmt.Sprintf("model crosses 10 at T = %.4f; the simulation is not below 10 by %.3g s.e. at T = %g (%s)", m, Band(pts[0].s.N), pts[0].T, describe(pts[0]))
		return r
	}
	below := pts[lo]
	// Linear interpolation T* = T₀ + (10 − x₀)(T₁ − T₀)/(x₁ − x₀); by the
	// delta method var T* = (T₁ − T₀)²·((x₁ − 10)²·se₀² + (10 − x₀)²·se₁²)/(x₁ − x₀)⁴.
	dx := last.s.Mean - below.s.Mean
	w := last.T - below.T
	r.Simulated = below.T + (random-below.s.Mean)*w/dx
	r.SimulatedSE = w * math.Hypot((last.s.Mean-random)*below.s.SE, (random-below.s.Mean)*last.s.SE) / (dx * dx)
	if below.T < m && m <= last.T {
		r.Verdict = Pass
	} else {
		r.Verdict = Fail
	}
	r.Note = fmt.Sprintf("model crosses 10 at T = %.4f; simulated least loaded is below 10 (by more than %.3g s.e.) at %s and above at %s (grid spacing 1); linear interpolation puts the crossing at T = %.4f ± %.2g",
		m, Band(below.s.N), describe(below), describe(last), r.Simulated, r.SimulatedSE)
	if n := len(pts) - lo - 2; n > 0 {
		r.Note += fmt.Sprintf("; undecided between them: %d T", n)
	}
	return r
}

// llT20: published 55 without a standard error or run length, and no
// recorded dispute: an ordinary check of herd's long runs.
func llT20(ctx context.Context, v *validator) (Row, error) {
	long, length, err := v.simulate(ctx, sim.Config{Policy: ll, Refresh: 20, Horizon: v.length(100000, 400000), Warmup: v.length(25000, 100000)}, 8)
	if err != nil {
		return Row{}, err
	}
	r := againstPublished("55", 54.5, 55.5, long.Response)
	r.Runs = length
	return r, nil
}

// llVsRRHalfLoad: "at 50% load, very stale board: 1.33 vs round robin
// 1.26" is a comparison; herd checks the difference, 0.07 with ±0.01 for
// the rounding of both figures.
func llVsRRHalfLoad(ctx context.Context, v *validator) (Row, error) {
	a, length, err := v.simulate(ctx, sim.Config{Policy: ll, Tally: sim.TallyOwn, Load: 0.5, Refresh: 3000, Horizon: v.length(60000, 900000)}, 6)
	if err != nil {
		return Row{}, err
	}
	b, _, err := v.simulate(ctx, sim.Config{Policy: rr, Load: 0.5, Horizon: v.length(60000, 900000)}, 6)
	if err != nil {
		return Row{}, err
	}
	d := sim.Stat{Mean: a.Response.Mean - b.Response.Mean, SE: math.Hypot(a.Response.SE, b.Response.SE), N: a.Response.N}
	r := againstPublished("1.33 vs 1.26 (difference 0.07)", 0.06, 0.08, d)
	r.Note += fmt.Sprintf("; ll + own tally %.4g ± %.2g, round robin %.4g ± %.2g", a.Response.Mean, a.Response.SE, b.Response.Mean, b.Response.SE)
	r.Runs = length
	return r, nil
}

// k2Recovers: 2 dispatchers with own tallies recover from a start with
// half the servers at 0.2T at every T from 5 to 300: no run tips (the
// detector of tipping.go). That is the whole test; the largest mean time
// is reported, not tested (the published figure gives none).
func k2Recovers(ctx context.Context, v *validator) (Row, error) {
	r := blank()
	r.Published = "recovers at every T from 5 to 300"
	worst := 0.0
	for _, T := range []float64{5, 20, 100, 300} {
		for rep := 0; rep < 4; rep++ {
			det := NewDetector(0.9, T, false)
			c := sim.Config{Dispatchers: 2, Policy: ll, Tally: sim.TallyOwn, Refresh: T, Horizon: 300 * T,
				Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.2, PerRefresh: true}, Observe: det.Observe}
			res, err := sim.Run(c, sim.Seed(v.opt.Seed, c.Key(), rep))
			if err != nil {
				return Row{}, err
			}
			if tipped, at := det.Tipped(); tipped {
				r.Verdict, r.Note = Fail, fmt.Sprintf("T = %g, run %d tipped at refresh %d", T, rep, at)
				return r, nil
			}
			worst = math.Max(worst, res.ResponseMean)
		}
	}
	r.Simulated = worst
	r.Verdict, r.Note = Pass, fmt.Sprintf("16 runs of 300 refreshes, none tipped; largest mean time %.3g", worst)
	r.Runs = "4 runs × 300 refreshes per T"
	return r, nil
}

// lowLoad is the configuration of the 80%-load rows: 3 dispatchers, least
// loaded + own tally, N = 800, refresh period T.
func lowLoad(v *validator, T float64) sim.Config {
	return sim.Config{Servers: 800, Policy: ll, Tally: sim.TallyOwn, Dispatchers: 3, Load: 0.8, Refresh: T, Horizon: v.length(3000, 15000)}
}

// lowLoadCheck: "80% load, 3 dispatchers, T = 20–45, 100 or 800 servers:
// no herd: 3.5–5.6, falling with T" gives no value for one T alone, so
// each T = 20, 30, 45 is checked against the whole published range (the
// row's name says so), and lowLoadFalls checks the order between them.
// The ends of the range are not read as the values at T = 20 and 45: the
// publication does not say which N or T gives them (validation.md).
func lowLoadCheck(T float64) check {
	name := fmt.Sprintf("sim 3 dispatchers, λ = 0.8, N = 800, T = %g: in 3.5–5.6 (published for T = 20–45)", T)
	return check{name: name, source: srcSim, run: func(ctx context.Context, v *validator) (Row, error) {
		s, length, err := v.simulate(ctx, lowLoad(v, T), 4)
		if err != nil {
			return Row{}, err
		}
		r := againstPublished("3.5–5.6 (T = 20–45)", 3.5, 5.6, s.Response)
		r.Runs = length
		return r, nil
	}}
}

// lowLoadFalls: the published "falling with T", at T = 20, 30, 45 (the
// runs of lowLoadCheck): each step down, x(T) − x(T'), must exceed its
// band, bandDF(ν)·se with se and ν from combine (Welch–Satterthwaite). The
// row shows the smaller step.
func lowLoadFalls(ctx context.Context, v *validator) (Row, error) {
	var xs []sim.Stat
	var length string
	Ts := []float64{20, 30, 45}
	for _, T := range Ts {
		s, l, err := v.simulate(ctx, lowLoad(v, T), 4)
		if err != nil {
			return Row{}, err
		}
		xs, length = append(xs, s.Response), l+" per T"
	}
	r := blank()
	r.Published, r.Verdict, r.Runs = "falling with T", Pass, length
	var notes []string
	for i := 0; i+1 < len(xs); i++ {
		d := combine([]float64{1, -1}, []estimate{fromStat(xs[i]), fromStat(xs[i+1])})
		z, band := d.Mean/d.SE, bandDF(d.DF)
		if !(z > band) {
			r.Verdict = Fail
		}
		if i == 0 || z < r.Z {
			r.Simulated, r.SimulatedSE, r.Z = d.Mean, d.SE, z
		}
		notes = append(notes, fmt.Sprintf("x(%g) − x(%g) = %.4g ± %.2g (z = %.1f, band %.3g s.e., %.3g d.f.)", Ts[i], Ts[i+1], d.Mean, d.SE, z, band, d.DF))
	}
	r.Note = fmt.Sprintf("x(20), x(30), x(45) = %.4g ± %.2g, %.4g ± %.2g, %.4g ± %.2g; each step must exceed its band: %s",
		xs[0].Mean, xs[0].SE, xs[1].Mean, xs[1].SE, xs[2].Mean, xs[2].SE, strings.Join(notes, "; "))
	return r, nil
}

// herdBacklog: from half the servers at 0.1T, 5 dispatchers herd with a
// mean time of about 0.40·T at every T from 300 to 3,000 (validation.md:
// "herd mean ≈ 0.40·T", read as the mean time in system; "≈" read as ±5%,
// validate.go). Each T is checked with its own standard error; the row
// shows the worst.
func herdBacklog(ctx context.Context, v *validator) (Row, error) {
	var worst Row
	var notes []string
	var length string
	for i, T := range []float64{300, 500, 1100, 3000} {
		c := sim.Config{Dispatchers: 5, Policy: ll, Tally: sim.TallyOwn, Refresh: T, Horizon: v.length(50, 400) * T,
			Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}}
		s, l, err := v.simulate(ctx, c, v.runs(4, 8))
		if err != nil {
			return Row{}, err
		}
		length = l + " per T"
		x := sim.Stat{Mean: s.Response.Mean / T, SE: s.Response.SE / T, N: s.Response.N}
		r := againstPublished("≈ 0.40·T (mean time / T)", 0.38, 0.42, x)
		notes = append(notes, fmt.Sprintf("T = %g: %.3f ± %.3f", T, x.Mean, x.SE))
		if i == 0 || math.Abs(r.Z) > math.Abs(worst.Z) || (r.Verdict == Fail && worst.Verdict != Fail) {
			worst = r
		}
	}
	worst.Note = strings.Join(notes, "; ") + " — " + worst.Note
	worst.Runs = length
	return worst, nil
}

// herdDispute is validation.md's record of herd's own evidence against a
// published herd figure, where no independent re-run was published: the
// refresh map's herd from the same start (N → ∞; the simulator shares no
// code with the map), quoted to the digits given, and the simulator on a
// second seed stream at the publisher's longest run length, 1,000
// refreshes. The row is disputed only when all three agree when it runs:
// the map still gives the recorded value, and both simulations agree with
// the map within their bands.
type herdDispute struct {
	model, halfUnit float64 // the map's herd mean time as recorded, and half a unit of its last digit
	text            string  // the record, as the row quotes it
}

// herd1100 is the record for T = 1,100 (validation.md): the map gives
// 441.35 (441.34 from half 0.2T–0.5T: the same herd); herd sim gives
// 441.45 ± 0.28 (seed 1, 4 × 220,000), 441.53 ± 0.25 and 441.43 ± 0.16
// (seeds 2, 3), 441.36 ± 0.07 (8 × 1,000 refreshes, seed 2); the row's
// second stream, 441.43 ± 0.05 (4 × 1,000 refreshes).
var herd1100 = &herdDispute{model: 441.35, halfUnit: 0.005,
	text: "herd's map gives 441.35 from half 0.1T and herd sim 441.4 (N = 100, several seed streams, 200 and 1,000 refreshes)"}

// secondStream is the master seed of a check's second seed stream: a
// stream of runs that shares no seed with the first.
func (v *validator) secondStream() uint64 {
	return sim.Seed(v.opt.Seed, "herd validate: second seed stream", 0)
}

// settle gives the verdict of a row r (againstPublished of the first
// simulation, s) given the map's herd m now and the second seed stream's
// s2 (run as length2): pass on the published figure, else disputed when
// the map still gives the recorded value and s and s2 each agree with it
// within their bands, else fail.
func (d *herdDispute) settle(r Row, m float64, s, s2 sim.Stat, length2 string) Row {
	modelOK := math.Abs(m-d.model) <= d.halfUnit*(1+1e-9)
	recorded := "matches"
	if !modelOK {
		recorded = "differs"
	}
	first := againstReference(blank(), s, m, "")
	second := againstReference(blank(), s2, m, "")
	r.Reference = m
	r.Verdict = settle(r.Verdict == Pass, true, modelOK && first.Verdict == Pass && second.Verdict == Pass)
	r.Note += fmt.Sprintf("; the refresh map's herd from half 0.1T (N → ∞): %.6g (recorded %.6g: %s); against it this simulation z = %.2f (%s), the second seed stream (%s) %.5g ± %.2g, z = %.2f (%s)",
		m, d.model, recorded, first.Z, first.Verdict, length2, s2.Mean, s2.SE, second.Z, second.Verdict)
	switch r.Verdict {
	case Disputed:
		r.Note += "; validation.md records the dispute: " + d.text
	case Fail:
		r.Note += "; matches neither the published figure nor herd's recorded evidence"
	}
	return r
}

// herdCheck: 5 dispatchers, least loaded + own tally, half the servers at
// 0.1T (the published start: "half the servers start with 0.1T jobs"),
// against the published 100-server figure. The refresh map's herd from
// the same start (N → ∞) is shown as the reference. Without a dispute it
// takes no part in the verdict (an ordinary check); with one (d), the row
// is disputed when it misses the published figure and agrees with d's
// evidence (herdDispute).
func herdCheck(T float64, text string, lo, hi, quickLen, fullLen float64, d *herdDispute) check {
	return check{name: fmt.Sprintf("sim 5 dispatchers, half 0.1T start, T = %s", commas(T)), source: srcSim, run: func(ctx context.Context, v *validator) (Row, error) {
		m, err := meanfield.FindHerdAttractor(meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: T},
			meanfield.BoardHalf(int(math.Round(0.1*T))), meanfield.HerdSettings{})
		if err != nil {
			return Row{}, err
		}
		c := sim.Config{Policy: ll, Tally: sim.TallyOwn, Dispatchers: 5, Refresh: T, Horizon: v.length(quickLen, fullLen),
			Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}}
		s, length, err := v.simulate(ctx, c, 4)
		if err != nil {
			return Row{}, err
		}
		r := againstPublished(text, lo, hi, s.Response)
		r.Reference = m.Response
		r.Runs = length
		if d == nil {
			r.Note += fmt.Sprintf("; the refresh map's herd from half 0.1T (N → ∞, not part of the verdict): %.5g", m.Response)
			return r, nil
		}
		c.Horizon = v.length(quickLen, 1000*T)
		s2, length2, err := v.simulateSeed(ctx, c, 4, v.secondStream())
		if err != nil {
			return Row{}, err
		}
		r = d.settle(r, m.Response, s.Response, s2.Response, length2)
		r.Runs = length + "; second stream " + length2
		return r, nil
	}}
}

func commas(x float64) string {
	s := strconv.FormatFloat(x, 'f', 0, 64)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

// modelCrossing returns the refresh period at which the periodic-update
// least-loaded model (N → ∞, λ = 0.9) becomes worse than random
// dispatching (M/M/1: 10), by bisection on [4, 5] to a width of 10⁻³
// (meanfield's TestPeriodicLeastLoaded: both ends are fixed points, below
// and above 10).
func modelCrossing() (float64, error) {
	const load = 0.9
	random := 1 / (1 - load)
	resp := func(T float64) (float64, error) {
		r, err := meanfield.PeriodicUpdate{Policy: meanfield.UpdateLeastLoaded, Load: load, Period: T, MaxIter: 20000}.Solve(nil)
		return r.Response, err
	}
	lo, hi := 4.0, 5.0
	a, err := resp(lo)
	if err != nil {
		return math.NaN(), err
	}
	b, err := resp(hi)
	if err != nil {
		return math.NaN(), err
	}
	if !(a < random && b > random) {
		return math.NaN(), fmt.Errorf("compare: the least-loaded model does not cross %g in T = [%g, %g] (%.5g, %.5g)", random, lo, hi, a, b)
	}
	worse := func(T float64) (bool, error) { // false at lo, true at hi
		x, err := resp(T)
		return !(x < random), err
	}
	lo, hi, err = root.Bisect(worse, lo, hi, root.Midpoint(1e-3, 0))
	if err != nil {
		return math.NaN(), err
	}
	return (lo + hi) / 2, nil
}

// phaseMapCheck is herd's check of the phase-type refresh map against
// the simulator with matching sizes: h2:10, k = 3 with own tallies,
// λ = 0.9, at T above the map's edge (T(1−λ)² = 9.5753, T = 957.5), the
// map's balanced fixed point from the empty board against N = 1,600 from
// a balanced start. The finite-N bias is measured as periodicCheck's
// (N = 6,400 at half the horizon, 1/N extrapolation to N → ∞). Both the response
// and the board mean must agree; the row shows the response.
func phaseMapCheck(T float64) check {
	return check{name: fmt.Sprintf("model vs sim: h2:10 balanced state, k = 3, T = %s", commas(T)), source: "herd: model vs sim", run: func(ctx context.Context, v *validator) (Row, error) {
		svc := meanfield.H2Service(10)
		m, err := meanfield.FindAttractor(meanfield.Refresh{Dispatchers: 3, Load: 0.9, Period: T, Service: svc},
			svc.Lift(meanfield.BoardEmpty()), meanfield.AttractorSettings{})
		if err != nil {
			return Row{}, err
		}
		if !m.Balanced {
			return Row{}, fmt.Errorf("compare: the map at T = %g reaches no balanced state (%v, board mean %.4g)", T, m.Status, m.BoardMean)
		}
		c := sim.Config{Servers: 1600, Dispatchers: 3, Load: 0.9, Policy: ll, Tally: sim.TallyOwn, Sizes: h2(10), Refresh: T,
			Start: fleet.Start{Kind: fleet.StartBalanced}, Horizon: 40 * T}
		s1, length, err := v.simulate(ctx, c, 8)
		if err != nil {
			return Row{}, err
		}
		c.Servers, c.Horizon = 6400, 20*T
		s4, _, err := v.simulate(ctx, c, 8)
		if err != nil {
			return Row{}, err
		}
		rl, rb := extrapolate(s1.Response, s4.Response)
		bl, bb := extrapolate(s1.Board, s4.Board)
		board := againstLimit(blank(), s1.Board, bl, m.BoardMean, "board", "")
		r := blank()
		r.Published = "model"
		r = againstLimit(r, s1.Response, rl, m.Response, "N → ∞ estimate (4·x₆₄₀₀ − x₁₆₀₀)/3",
			fmt.Sprintf("finite-N bias at N = 1,600 measured %+.3g (N = 6,400: %.5g ± %.2g); board mean %.5g ± %.2g (bias %+.3g, N = 6,400: %.5g ± %.2g), N → ∞ estimate %.5g ± %.2g against the map's %.5g (z = %.2f): %s",
				rb, s4.Response.Mean, s4.Response.SE, s1.Board.Mean, s1.Board.SE, bb, s4.Board.Mean, s4.Board.SE, bl.Mean, bl.SE, m.BoardMean, board.Z, board.Verdict))
		if board.Verdict != Pass {
			r.Verdict = Fail
		}
		r.Runs = length + "; N = 6,400 at half the horizon"
		return r, nil
	}}
}
