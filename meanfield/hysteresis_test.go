package meanfield

import (
	"errors"
	"math"
	"os"
	"testing"

	"herd/fleet"
)

// herdSlow reports whether the slow herd checks run (HERD_SLOW=1).
func herdSlow() bool { return os.Getenv("HERD_SLOW") == "1" }

// TestHerdBranchPublished checks the herd reached from half:0.1T at k = 5,
// λ = 0.9 against the 100-server simulator: validation.md, "same, half the
// servers start with 0.1T jobs: T = 1,100: 449; T = 3,000: 1,200; herd mean
// ≈ 0.40·T", and herd's own simulator (herd sim, 100 servers, 5
// dispatchers, not an independent re-run): 441.5 ± 0.3 at T = 1,100 and
// 1,201 ± 0.3 at T = 3,000; the published 449 is disputed by both
// (compare/validation.md). The model is the N → ∞ limit of that
// simulator, so the band is a finite-size allowance of 1%, not a sampling
// band (the model lands within 0.05% of herd sim).
func TestHerdBranchPublished(t *testing.T) {
	t.Parallel()
	cases := []struct {
		T, sim float64
	}{
		{1100, 441.5}, // issue 6 re-run of the simulator, ± 0.3
		{3000, 1201},  // issue 6 re-run of the simulator, ± 0.3
	}
	Ts := make([]float64, len(cases))
	for i, c := range cases {
		Ts[i] = c.T
	}
	br, err := HerdBranch(BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: Ts})
	if err != nil {
		t.Fatal(err)
	}
	pts := br.Points
	for i, c := range cases {
		p := pts[i]
		a := p.Attractor
		if !p.Attractor.Herd || a.Status != Periodic || a.Period != 2 || p.Start != "half:0.1T" {
			t.Errorf("T = %g: herd %v, kind %v, period %d, start %q; want a period-2 herd from half:0.1T", c.T, p.Attractor.Herd, a.Status, a.Period, p.Start)
		}
		if rel := math.Abs(a.Response-c.sim) / c.sim; rel > 0.01 {
			t.Errorf("T = %g: response %.3f, simulator %.1f (rel. diff %.3g > 1%%)", c.T, a.Response, c.sim, rel)
		}
		// validation.md: herd mean ≈ 0.40·T.
		if r := a.BoardMean / c.T; math.Abs(r-0.40) > 0.005 {
			t.Errorf("T = %g: board mean %.3f = %.4f·T, want 0.40·T", c.T, a.BoardMean, r)
		}
		if a.Truncation >= DefaultRefreshTol {
			t.Errorf("T = %g: truncation %.3g ≥ %g", c.T, a.Truncation, DefaultRefreshTol)
		}
		t.Logf("T = %g: %s, board mean %.4f (%.5f·T), response %.4f (sim %.1f), rows %d (1.1(2λ−1)T = %.0f), truncation %.2g, %d maps",
			c.T, a.Status, a.BoardMean, a.BoardMean/c.T, a.Response, c.sim, a.Rows, 1.1*0.8*c.T, a.Truncation, a.Maps)
	}
}

// TestHerdAperiodic: at k = 5, λ = 0.9, T = 300 the herd from half:0.1T
// alternates like a 2-cycle but drifts (‖p_n − p_{n−2}‖₁ ≈ 2·10⁻⁶ for
// thousands of maps), so it is Aperiodic with NearPeriod 2; its board mean
// is ≈ 0.40·T (validation.md: herd mean ≈ 0.40·T from T = 300).
func TestHerdAperiodic(t *testing.T) {
	t.Parallel()
	a, err := FindHerdAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, HerdStartBoard(fleet.Start{}, 300), HerdSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != Aperiodic || !a.Herd || a.NearPeriod != 2 || a.Period != 0 {
		t.Fatalf("kind %v, herd %v, near period %d, period %d; want an aperiodic herd near period 2", a.Status, a.Herd, a.NearPeriod, a.Period)
	}
	if a.Averaged != DefaultHerdAverage || a.Batches < 2 || a.Maps != DefaultHerdSettle+DefaultHerdAverage {
		t.Errorf("averaged %d in %d batches after %d maps", a.Averaged, a.Batches, a.Maps)
	}
	if r := a.BoardMean / 300; math.Abs(r-0.40) > 0.01 {
		t.Errorf("board mean %.3f = %.4f·T, want 0.40·T", a.BoardMean, r)
	}
	// The window's spread is tiny next to the herd's size.
	if !(a.BoardMeanSE < 1e-3 && a.ResponseSE < 1e-3) || a.Residual != a.NearResidual || a.Residual > 1e-4 {
		t.Errorf("SE %.3g / %.3g, residual %.3g, near %.3g", a.BoardMeanSE, a.ResponseSE, a.Residual, a.NearResidual)
	}
	if a.Status.String() != "aperiodic" {
		t.Errorf("name %q", a.Status)
	}
	t.Logf("board mean %.4f ± %.2g, response %.4f ± %.2g, near period %d at %.2g, drift %.2g per map, %d maps",
		a.BoardMean, a.BoardMeanSE, a.Response, a.ResponseSE, a.NearPeriod, a.NearResidual, a.Drift, a.Maps)
}

// TestMinTipBacklog: validation.md, "5 dispatchers, λ = 0.9 … 0.1T tips,
// 0.05T recovers, at T from 450 to 2,000" (100-server simulation). The
// model's threshold at T = 1,100 must lie between.
func TestMinTipBacklog(t *testing.T) {
	t.Parallel()
	Ts := []float64{1100}
	if herdSlow() {
		Ts = append(Ts, 450, 2000)
	}
	for _, T := range Ts {
		tr, err := MinTipBacklog(TipSettings{Dispatchers: 5, Load: 0.9, Refresh: T})
		f, evals := tr.Fraction, tr.Probes
		if err != nil {
			t.Fatal(err)
		}
		if !(f > 0.05 && f < 0.1) {
			t.Errorf("T = %g: smallest tipping backlog %.4f·T, want in (0.05, 0.1)·T", T, f)
		}
		t.Logf("T = %g: smallest tipping half backlog %.4f·T (%d evaluations)", T, f, evals)
	}
}

// TestHerdOneDispatcher: partitioning and shared tallies reduce to the
// k = 1 map (see the file comment), which never tips (validation.md: "k = 2
// never tips"; package doc, §2: with k = 1 the map approaches round robin):
// from half starts with B up to T, and a spread start over 0 … T, the
// attractor is balanced.
func TestHerdOneDispatcher(t *testing.T) {
	t.Parallel()
	starts := []fleet.Start{{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}, {Kind: fleet.StartHalf, Value: 1, PerRefresh: true}, {Kind: fleet.StartSpread, Value: 1, PerRefresh: true}}
	Ts := []float64{300, 1100}
	if herdSlow() {
		Ts = append(Ts, 3000)
	}
	for _, st := range starts {
		br, err := HerdBranch(BranchSettings{Dispatchers: 1, Load: 0.9, Refresh: Ts, Start: st})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range br.Points {
			a := p.Attractor
			if p.Attractor.Herd || !a.Balanced {
				t.Errorf("k = 1, T = %g, %s: %v, herd %v, board mean %.3f; want balanced", p.Mu, p.Start, a.Status, p.Attractor.Herd, a.BoardMean)
			}
			t.Logf("k = 1, T = %g, %s: %v, board mean %.4f, response %.4f, %d maps", p.Mu, p.Start, a.Status, a.BoardMean, a.Response, a.Maps)
		}
	}
}

// TestHerdTwoDispatchers: validation.md, "2 dispatchers, ll + own tally,
// half start with 0.2T: recovers at every T from 5 to 300".
func TestHerdTwoDispatchers(t *testing.T) {
	t.Parallel()
	Ts := []float64{5, 10, 20, 50, 100, 200, 300}
	br, err := HerdBranch(BranchSettings{Dispatchers: 2, Load: 0.9, Refresh: Ts, Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.2, PerRefresh: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range br.Points {
		a := p.Attractor
		if p.Attractor.Herd || !a.Balanced {
			t.Errorf("k = 2, T = %g: %v, herd %v, board mean %.3f; want balanced", p.Mu, a.Status, p.Attractor.Herd, a.BoardMean)
		}
		t.Logf("k = 2, T = %g: %v, board mean %.4f, response %.4f, %d maps", p.Mu, a.Status, a.BoardMean, a.Response, a.Maps)
	}
}

// TestBistable: a herd attractor coexists with the balanced fixed points far
// above the edge (package doc, §4: for k = 5, λ = 0.9 at least up to
// T(1−λ)² = 30), and the edge 2.90 (validation.md). By default (CI) it checks
// k = 5 on a coarse scan up to T(1−λ)² = 4; HERD_SLOW=1 runs k = 3, 5 and 10
// up to 30 (minutes).
func TestBistable(t *testing.T) {
	t.Parallel()
	ks := []int{5}
	set := func(k int) BistableSettings {
		return BistableSettings{Dispatchers: k, Load: 0.9, MaxScaled: 4, MinScaled: 1.5, Step: 2, RelTol: 0.05}
	}
	if herdSlow() {
		ks = []int{3, 5, 10}
		set = func(k int) BistableSettings { return BistableSettings{Dispatchers: k, Load: 0.9} }
	}
	for _, k := range ks {
		s := set(k)
		r, err := Bistable(s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("k = %d: edge %.2f (%.3f), herd [%.1f, %.1f] = [%.3f, %.2f]·(1−λ)⁻², open %v/%v, bistable [%.1f, %.1f], %d maps",
			k, r.EdgeRefresh, r.EdgeScaled, r.HerdLow, r.HerdHigh, r.LowScaled, r.HighScaled, r.LowOpen, r.HighOpen, r.Low, r.High, r.Maps)
		if k == 5 {
			// The herd reaches the top of the scan (open), so the bistable
			// range runs from the edge to it.
			if math.Abs(r.EdgeScaled-2.90) > 0.005 || r.Status != Found || !r.HighOpen || r.High != r.HerdHigh || r.Low != r.EdgeRefresh {
				t.Errorf("k = 5: edge %.4f, herd found %v, high open %v, bistable [%v, %v]; want edge 2.90 and a herd up to T(1−λ)² = %g", r.EdgeScaled, r.Status == Found, r.HighOpen, r.Low, r.High, s.MaxScaled)
			}
		}
	}
}

func TestHerdSettingsValidate(t *testing.T) {
	t.Parallel()
	bad := []error{
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartSingle, Value: 0.1, PerRefresh: true}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartHalf, Value: -1, PerRefresh: true}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartHalf, Value: 5, PerRefresh: true}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartHalf, Value: 0, PerRefresh: true}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartHalf, Value: 10}}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, Start: fleet.Start{Kind: fleet.StartEmpty, PerRefresh: true}}.Validate(),
		HerdSettings{AttractorSettings: AttractorSettings{MaxIter: -1}}.Validate(),
		HerdSettings{AttractorSettings: AttractorSettings{Tol: math.NaN()}}.Validate(),
		HerdSettings{AttractorSettings: AttractorSettings{MaxPeriod: 65}}.Validate(),
		HerdSettings{Settle: -1}.Validate(),
		HerdSettings{Average: 8}.Validate(),
		BranchSettings{Dispatchers: 0, Load: 0.9, Refresh: []float64{10}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 1, Refresh: []float64{10}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10, -1}}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, MaxScaled: -1}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, MinScaled: 40}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, Step: 1}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, RelTol: 1}.Validate(),
	}
	for i, err := range bad {
		if err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	for i, err := range []error{
		HerdSettings{}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}}.Validate(),
		BranchSettings{Dispatchers: 5, Load: 0.9, Refresh: []float64{10}, Start: fleet.Start{Kind: fleet.StartSpread, Value: 4, PerRefresh: true}}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9, Start: fleet.Start{Kind: fleet.StartHalf, Value: 0.001, PerRefresh: true}}.Validate(),
		BistableSettings{Dispatchers: 5, Load: 0.9}.Validate(),
	} {
		if err != nil {
			t.Errorf("valid case %d: %v", i, err)
		}
	}
	// A bad start names its field and the starts allowed.
	err := BistableSettings{Dispatchers: 5, Load: 0.9, Start: fleet.Start{Kind: fleet.StartHalf, Value: 5, PerRefresh: true}}.Validate()
	if want := "meanfield: BistableSettings.Start = half:5T, want half:FT or spread:FT with F in (0, 4] (the zero value means half:0.1T)"; err == nil || err.Error() != want {
		t.Errorf("bad start: %v; want %s", err, want)
	}
	if _, err := MinTipBacklog(TipSettings{Dispatchers: 5, Load: 0.9, Refresh: 100, Tol: 2}); err == nil {
		t.Error("MinTipBacklog accepted tol = 2")
	}
	if _, err := HerdBranch(BranchSettings{Dispatchers: 5, Load: 0.9}); err == nil {
		t.Error("HerdBranch accepted no T")
	}
}

// TestHerdStartBoard checks the start boards of the package doc, §2.
func TestHerdStartBoard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    fleet.Start
		T    float64
		name string
		mean float64
	}{
		{fleet.Start{}, 1100, "half:0.1T", 55},                                                        // the default, half at B = 110
		{fleet.Start{Kind: fleet.StartSpread, Value: 0.5, PerRefresh: true}, 300, "spread:0.5T", 75},  // 0 … 150 evenly
		{fleet.Start{Kind: fleet.StartHalf, Value: 0.001, PerRefresh: true}, 100, "half:0.001T", 0.5}, // B rounds up to 1
	}
	for _, c := range cases {
		p := HerdStartBoard(c.s, c.T)
		var mass, mean float64
		for b, x := range p {
			mass += x
			mean += float64(b) * x
		}
		if name := herdStart(c.s).String(); name != c.name || math.Abs(mass-1) > 1e-12 || math.Abs(mean-c.mean) > 1e-9 {
			t.Errorf("%s: got %q, mass %v, mean %v; want %q, 1, %v", c.name, name, mass, mean, c.name, c.mean)
		}
	}
	// rescaleBoard keeps the mass and scales the mean.
	q := rescaleBoard(BoardHalf(100), 1000, 2000)
	var mass, mean float64
	for b, x := range q {
		mass += x
		mean += float64(b) * x
	}
	if math.Abs(mass-1) > 1e-12 || math.Abs(mean-100) > 1e-9 {
		t.Errorf("rescaled half:100 to twice T: mass %v, mean %v; want 1, 100", mass, mean)
	}
}

// TestMinTipBacklogNoTip: k = 1 never tips (see TestHerdOneDispatcher), so
// MinTipBacklog reports ErrNoTip.
func TestMinTipBacklogNoTip(t *testing.T) {
	t.Parallel()
	tr, err := MinTipBacklog(TipSettings{Dispatchers: 1, Load: 0.9, Refresh: 300})
	f, evals := tr.Fraction, tr.Probes
	if !errors.Is(err, ErrNoTip) || !math.IsNaN(f) || evals != 1 || tr.Status != NotFound {
		t.Errorf("got %v, %d evaluations, %v; want NaN, 1, ErrNoTip", f, evals, err)
	}
}

// TestHerdTenDispatchers: validation.md, "10 dispatchers, ll + own tally:
// 590 at T = 500; 10 at T = 1,000" (100-server simulation from the empty
// board). Below the edge (T(1−λ)² = 5 < 7.09) the empty board ends in a
// herd that does not settle (near period 4, return distance ≈ 0.8), of
// board mean ≈ 1.1·T; above it, in the balanced state. The band is a 5%
// finite-size allowance (the simulator has 100 servers), not a sampling
// band. By default (CI) the herd at T = 500 is averaged over 64 maps after
// 40 (HERD_SLOW=1: the default 256 after 200).
func TestHerdTenDispatchers(t *testing.T) {
	t.Parallel()
	hs := HerdSettings{Settle: 40, Average: 64}
	if herdSlow() {
		hs = HerdSettings{}
	}
	cases := []struct {
		T, sim float64
		herd   bool
	}{
		{500, 590, true},  // validation.md
		{1000, 10, false}, // validation.md
	}
	for _, c := range cases {
		a, err := FindHerdAttractor(Refresh{Dispatchers: 10, Load: 0.9, Period: c.T}, BoardEmpty(), hs)
		if err != nil {
			t.Fatal(err)
		}
		if a.Herd != c.herd || math.Abs(a.Response-c.sim)/c.sim > 0.05 {
			t.Errorf("T = %g: %v, herd %v, response %.3f ± %.2g; want herd %v, %.0f within 5%%", c.T, a.Status, a.Herd, a.Response, a.ResponseSE, c.herd, c.sim)
		}
		t.Logf("k = 10, T = %g: %v (near period %d at %.2g), board mean %.3f, response %.3f ± %.2g (sim %.0f), %d maps",
			c.T, a.Status, a.NearPeriod, a.NearResidual, a.BoardMean, a.Response, a.ResponseSE, c.sim, a.Maps)
	}
}

// TestHerdWorkBudget: findHerdAttractor with maxWork (Edge's budget) stops,
// Unconverged with an error wrapping ErrNotConverged, at the first map n
// after which either the work so far W_n exceeds the budget or W_n plus
// the maps an aperiodic classification still needs (Settle + Average − r_n,
// r_n the maps in a row in the herd regime) at map n's cost c_n would:
// the work and regime of every map are recomputed here from plain maps.
// Work is Σ windows·rows over the maps made, the same with or without a
// budget.
func TestHerdWorkBudget(t *testing.T) {
	t.Parallel()
	m, err := NewRefreshMap(Refresh{Dispatchers: 5, Load: 0.9, Period: 300})
	if err != nil {
		t.Fatal(err)
	}
	hs := HerdSettings{AttractorSettings: AttractorSettings{MaxIter: 40}, Settle: 20, Average: 20}.withDefaults()
	start := HerdStartBoard(fleet.Start{}, 300)
	full, err := findHerdAttractor(m, start, hs)
	if err != nil || full.Status != Aperiodic || full.Maps != 40 {
		t.Fatalf("without a budget: %v after %d maps (%v), want aperiodic after 40", full.Status, full.Maps, err)
	}
	// Each map's work and the herd regime's run, from plain maps.
	var works []float64
	var runs []int
	p, run := start, 0
	for range full.Maps {
		r, err := m.Apply(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		works = append(works, mapWork(r))
		if balancedMeanFor(r.BoardMean, 0.9, Service{}) {
			run = 0
		} else {
			run++
		}
		runs = append(runs, run)
		p = r.Next
	}
	var total float64
	for _, w := range works {
		total += w
	}
	if total != full.Work {
		t.Fatalf("work of 40 plain maps %.6g, findHerdAttractor's %.6g", total, full.Work)
	}
	// need[n]: the rule's price after map n (the larger of the two terms).
	need := make([]float64, len(works))
	sum := 0.0
	for n, w := range works {
		sum += w
		need[n] = max(sum, sum+float64(hs.Settle+hs.Average-runs[n])*w)
	}
	// Budgets just below need[n] for every n that the maps before it
	// stay within: the run must stop after exactly n+1 maps.
	tried, prev := 0, 0.0
	for n := range works {
		b := need[n] * (1 - 1e-9)
		if n > 0 && prev < b {
			hs.maxWork = b
			cut, err := findHerdAttractor(m, start, hs)
			if !errors.Is(err, ErrNotConverged) || cut.Status != Unconverged {
				t.Fatalf("with budget %.6g: %v, %v; want Unconverged and ErrNotConverged", hs.maxWork, cut.Status, err)
			}
			if cut.Maps != n+1 {
				t.Errorf("with budget %.6g: stopped after %d maps, want %d", hs.maxWork, cut.Maps, n+1)
			}
			tried++
		}
		prev = max(prev, need[n])
	}
	if tried < 3 {
		t.Errorf("only %d budgets tried", tried)
	}
	t.Logf("40 maps: work %.4g; %d budgets, each stopping where the rule fires", full.Work, tried)
}
