package compare

import (
	"context"
	"math"
	"testing"

	"herd/meanfield"
	"herd/sim"
)

// The verdict rules, on made-up numbers: they must be able to fail.
func TestVerdictRules(t *testing.T) {
	t.Parallel()
	if r := exact("2.614", 2.614, 0.0005, 2.61406); r.Verdict != Pass {
		t.Errorf("2.61406 vs 2.614: %v", r.Verdict)
	}
	if r := exact("2.614", 2.614, 0.0005, 2.6146); r.Verdict != Fail {
		t.Errorf("2.6146 vs 2.614: %v", r.Verdict)
	}
	// 8 runs: the band is t(0.9995, 7) = 5.408 s.e.
	s := sim.Stat{Mean: 10.3, SE: 0.05, N: 8}
	if r := againstReference(blank(), s, 10, ""); r.Verdict != Fail || math.Abs(r.Z-6) > 1e-9 {
		t.Errorf("10.3 ± 0.05 vs 10: %v, z %v", r.Verdict, r.Z)
	}
	if r := againstReference(blank(), s, 10.05, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 vs 10.05 (5 s.e., band 5.41): %v", r.Verdict)
	}
	// The same 5 s.e. from only 4 runs is inside t(0.9995, 3) = 12.92.
	if r := againstReference(blank(), sim.Stat{Mean: 10.3, SE: 0.05, N: 4}, 10.05, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 (4 runs) vs 10.05: %v", r.Verdict)
	}
	if r := againstReference(blank(), sim.Stat{Mean: 10.3, SE: 0.01, N: 4}, 10.05, ""); r.Verdict != Fail {
		t.Errorf("10.3 ± 0.01 (4 runs) vs 10.05 (25 s.e.): %v", r.Verdict)
	}
	if r := againstPublished("10.1–10.2", 10.1, 10.2, s); r.Verdict != Pass || math.Abs(r.Z-2) > 1e-9 {
		t.Errorf("10.3 ± 0.05 vs [10.1, 10.2] (2 s.e. out): %v, z %v", r.Verdict, r.Z)
	}
	tight := sim.Stat{Mean: 10.3, SE: 0.01, N: 8}
	if r := againstPublished("10.1–10.2", 10.1, 10.2, tight); r.Verdict != Fail || math.Abs(r.Z-10) > 1e-6 {
		t.Errorf("10.3 ± 0.01 vs [10.1, 10.2]: %v, z %v", r.Verdict, r.Z)
	}
	if r := againstPublished("10.1–10.4", 10.1, 10.4, s); r.Verdict != Pass || r.Z != 0 {
		t.Errorf("10.3 ± 0.05 vs [10.1, 10.4]: %v, z %v", r.Verdict, r.Z)
	}
	// One run has no standard error: it cannot pass.
	if r := againstPublished("10", 9.5, 10.5, sim.Stat{Mean: 10, SE: math.NaN(), N: 1}); r.Verdict != Fail {
		t.Errorf("one run: %v", r.Verdict)
	}
}

// Band is the Student-t quantile t(1 − 0.0005, n − 1) (values from
// standard t tables, two-sided 0.001).
func TestBand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		want float64
	}{{4, 12.924}, {6, 6.869}, {8, 5.408}, {12, 4.437}} {
		if got := Band(c.n); math.Abs(got-c.want) > 0.001 {
			t.Errorf("Band(%d) = %.4f, want %.3f", c.n, got, c.want)
		}
	}
	if !math.IsNaN(Band(1)) {
		t.Errorf("Band(1) = %v, want NaN", Band(1))
	}
}

// settle: every combination of the three facts.
func TestSettle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pub, recorded, rerun bool
		want                 Verdict
	}{
		{true, false, false, Pass}, {true, true, false, Pass}, {true, true, true, Pass},
		{false, true, true, Disputed},
		{false, true, false, Fail},  // a dispute is recorded, but the value matches neither
		{false, false, true, Fail},  // agreeing with an unrecorded re-run does not count
		{false, false, false, Fail}, // an ordinary miss
	} {
		if got := settle(c.pub, c.recorded, c.rerun); got != c.want {
			t.Errorf("settle(published %v, recorded %v, re-run %v) = %v, want %v", c.pub, c.recorded, c.rerun, got, c.want)
		}
	}
}

// A disputed published figure, with synthetic estimates: agreeing with the
// published figure passes, with the re-run only is disputed, with neither
// fails.
func TestDisputedFigure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		s    sim.Stat
		want Verdict
	}{
		{"published", sim.Stat{Mean: 1.181, SE: 0.001, N: 8}, Pass},
		{"re-run", sim.Stat{Mean: 1.150, SE: 0.001, N: 8}, Disputed},
		{"neither, between", sim.Stat{Mean: 1.165, SE: 0.001, N: 8}, Fail},
		{"neither, below both", sim.Stat{Mean: 1.10, SE: 0.001, N: 8}, Fail},
		{"both within a wide band", sim.Stat{Mean: 1.165, SE: 0.01, N: 8}, Pass},
	} {
		r := disputedFigure("1.18", 1.175, 1.185, "1.15", 1.145, 1.155, c.s)
		if r.Verdict != c.want {
			t.Errorf("%s: %.4g ± %.2g: %v (%s), want %v", c.name, c.s.Mean, c.s.SE, r.Verdict, r.Note, c.want)
		}
	}
}

// edgesAt makes synthetic edges with the given ratios to the law (NaN: no
// edge).
func edgesAt(ratios ...float64) []meanfield.EdgeResult {
	out := make([]meanfield.EdgeResult, len(lawKs))
	for i, k := range lawKs {
		if math.IsNaN(ratios[i]) {
			out[i] = meanfield.EdgeResult{Scaled: math.NaN()}
			continue
		}
		out[i] = meanfield.EdgeResult{Status: meanfield.Found, Scaled: ratios[i] * 0.9 * float64(k-2)}
	}
	return out
}

// The edge-law checks on synthetic edges: every verdict branch, including
// edges that match neither the published bound nor the independent solver.
func TestEdgeLawVerdicts(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	cases := []struct {
		name       string
		load       float64
		edges      []meanfield.EdgeResult
		law, rerun Verdict
	}{
		{"λ 0.9 as the solver", 0.9, edgesAt(1.10332, 1.09421, 1.07378, 1.04658, 1.01352, 0.98531), Disputed, Pass},
		{"λ 0.9 within 10%", 0.9, edgesAt(1.09, 1.08, 1.07, 1.04, 1.01, 0.98), Pass, Fail},
		{"λ 0.9 matching neither", 0.9, edgesAt(1.12, 1.094, 1.074, 1.047, 1.014, 0.985), Fail, Fail},
		{"λ 0.9 an edge missing", 0.9, edgesAt(nan, 1.094, 1.074, 1.047, 1.014, 0.985), Fail, Fail},
		{"λ 0.8 as the solver", 0.8, edgesAt(nan, 1.1734, 1.1716, 1.15, 1.111, 1.071), Disputed, Pass},
		{"λ 0.8 within 15%", 0.8, edgesAt(1.10, 1.14, 1.13, 1.12, 1.11, 1.07), Pass, Fail},
		{"λ 0.8 largest elsewhere", 0.8, edgesAt(nan, 1.173, 1.18, 1.15, 1.111, 1.071), Fail, Fail},
		{"λ 0.8 an edge at k = 3", 0.8, edgesAt(1.2, 1.173, 1.17, 1.15, 1.111, 1.071), Fail, Fail},
	}
	for _, c := range cases {
		re, maxOnly, lo, hi := rerun09, 0, 0.9, 1.1
		if c.load == 0.8 {
			re, maxOnly, lo, hi = rerun08, 4, 1, 1.15
		}
		v := &validator{edgeCache: map[float64][]meanfield.EdgeResult{c.load: c.edges}}
		law, err := edgeLawCheck(c.load, "law", lo, hi, re, maxOnly).run(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := edgeRerunCheck(c.load, re, maxOnly).run(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		if law.Verdict != c.law || rr.Verdict != c.rerun {
			t.Errorf("%s: law %v (%s), re-run %v (%s); want %v, %v", c.name, law.Verdict, law.Note, rr.Verdict, rr.Note, c.law, c.rerun)
		}
	}
}

// combine on made-up estimates: the standard error adds in quadrature and
// the degrees of freedom are Welch–Satterthwaite's, worked by hand.
func TestCombine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name         string
		c            []float64
		xs           []estimate
		mean, se, df float64
	}{
		// (1² + 1²)^½ = √2; ν = 2²/(1/3 + 1/3) = 6.
		{"difference", []float64{1, -1}, []estimate{{5, 1, 3}, {2, 1, 3}}, 3, math.Sqrt2, 6},
		// 1/N extrapolation from N and 4N: (4·10.15 − 10.3)/3 = 10.1;
		// variances 0.3²/9 = 0.01 and (4/3)²·0.15² = 0.04, se = √0.05;
		// ν = 0.05²/(0.01²/7 + 0.04²/7) = 0.0175/0.0017.
		{"extrapolation", []float64{-1.0 / 3, 4.0 / 3}, []estimate{{10.3, 0.3, 7}, {10.15, 0.15, 7}}, 10.1, math.Sqrt(0.05), 0.0175 / 0.0017},
	} {
		got := combine(c.c, c.xs)
		if math.Abs(got.Mean-c.mean) > 1e-12 || math.Abs(got.SE-c.se) > 1e-12 || math.Abs(got.DF-c.df) > 1e-9 {
			t.Errorf("%s: got %.6g ± %.6g (%.6g d.f.), want %.6g ± %.6g (%.6g d.f.)", c.name, got.Mean, got.SE, got.DF, c.mean, c.se, c.df)
		}
	}
	// bandDF agrees with Band at whole degrees of freedom.
	if got, want := bandDF(7), Band(8); got != want {
		t.Errorf("bandDF(7) = %v, Band(8) = %v", got, want)
	}
}

// The finite-N bias is signed and each standard error counts once: a miss
// against the bias's direction fails, where the former allowance (|bias| +
// band·(s.e. + bias s.e.), unsigned, beside the band on the simulation's
// own s.e.) passed it.
func TestFiniteNBias(t *testing.T) {
	t.Parallel()
	s := sim.Stat{Mean: 10.3, SE: 0.05, N: 8}
	bias := estimate{Mean: 0.2, SE: 0.01, DF: 93}
	for _, c := range []struct {
		name string
		bias estimate
		want Verdict
	}{
		// 10.3 − 0.2 = 10.1 ± 0.051: z = 1.96, band t(≈7.3 d.f.) ≈ 5.3.
		{"bias +0.2 (sits above its limit)", bias, Pass},
		// 10.3 + 0.2 = 10.5: z ≈ 9.8. The old rule passed it: 0.3 ≤ 5.41·0.05 + 0.2.
		{"bias −0.2 (would sit below)", estimate{Mean: -0.2, SE: 0.01, DF: 93}, Fail},
	} {
		lim := combine([]float64{1, -1}, []estimate{fromStat(s), c.bias})
		if r := againstLimit(blank(), s, lim, 10, "s − bias", ""); r.Verdict != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, r.Verdict, r.Note, c.want)
		}
	}
	// Extrapolation from N and 4N: x_N = 10.3 ± 0.05, x_4N = 10.15 ± 0.05,
	// so x_∞ = 10.1 ± 0.0687 (bias +0.2 ± 0.094 at N).
	n, n4 := sim.Stat{Mean: 10.3, SE: 0.05, N: 8}, sim.Stat{Mean: 10.15, SE: 0.05, N: 8}
	lim, b := extrapolate(n, n4)
	if math.Abs(lim.Mean-10.1) > 1e-12 || math.Abs(lim.SE-math.Sqrt(17*0.0025)/3) > 1e-12 || math.Abs(b-0.2) > 1e-12 {
		t.Errorf("extrapolate: %v, bias %v; want 10.1 ± %.4g, bias 0.2", lim, b, math.Sqrt(17*0.0025)/3)
	}
	for _, c := range []struct {
		ref  float64
		want Verdict
	}{
		{10, Pass},   // z = 1.46
		{10.7, Fail}, // z = −8.7; the old rule passed it: 0.4 ≤ 5.41·0.05 + 0.2 + 5.41·0.094
		{9.5, Fail},  // z = 8.7; the old rule passed it: 0.8 ≤ 0.27 + 0.71
	} {
		if r := againstLimit(blank(), n, lim, c.ref, "x_∞", ""); r.Verdict != c.want {
			t.Errorf("x_∞ = 10.1 ± 0.069 vs %g: %v (%s), want %v", c.ref, r.Verdict, r.Note, c.want)
		}
	}
}

// The T = 1,100 herd row on synthetic estimates: the dispute holds only
// while the map gives the recorded value and both seed streams agree with
// it; a value on the published figure passes.
func TestHerdDispute(t *testing.T) {
	t.Parallel()
	// herd's own numbers (validation.md): seed 1, 4 × 220,000: 441.45 ±
	// 0.28; the second stream at 1,000 refreshes ≈ 441.36 ± 0.07; the map
	// 441.3501.
	first, second, m := sim.Stat{Mean: 441.45, SE: 0.28, N: 4}, sim.Stat{Mean: 441.36, SE: 0.07, N: 4}, 441.3501
	for _, c := range []struct {
		name          string
		first, second sim.Stat
		m             float64
		want          Verdict
	}{
		{"herd's values", first, second, m, Disputed},
		{"on the published 449", sim.Stat{Mean: 449.1, SE: 0.28, N: 4}, second, m, Pass},
		{"the map moved from its record", first, second, 441.40, Fail},
		{"second stream off the map", first, sim.Stat{Mean: 442.5, SE: 0.07, N: 4}, m, Fail},
		{"first stream off the map", sim.Stat{Mean: 445, SE: 0.2, N: 4}, second, m, Fail},
	} {
		r := againstPublished("449", 448.5, 449.5, c.first)
		if r = herd1100.settle(r, c.m, c.first, c.second, "4 runs"); r.Verdict != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, r.Verdict, r.Note, c.want)
		}
	}
}

// llCrossing's verdict on synthetic grids (4 runs a point, band 12.9 s.e.).
// The first grid is herd's own (N = 1,000, 4 × 10,000, seed 1).
func TestCrossingRow(t *testing.T) {
	t.Parallel()
	grid := func(xs ...[2]float64) []crossPoint {
		var out []crossPoint
		for i, x := range xs {
			out = append(out, crossPoint{T: float64(i + 1), s: sim.Stat{Mean: x[0], SE: x[1], N: 4}})
		}
		return out
	}
	herd := grid([2]float64{3.76, 0.007}, [2]float64{5.72, 0.009}, [2]float64{7.55, 0.016}, [2]float64{9.43, 0.036}, [2]float64{11.29, 0.02})
	undecided := grid([2]float64{3.76, 0.007}, [2]float64{5.72, 0.009}, [2]float64{7.55, 0.016}, [2]float64{9.9, 0.05}, [2]float64{11.29, 0.02})
	for _, c := range []struct {
		name string
		pts  []crossPoint
		m    float64
		want Verdict
	}{
		{"in the bracket", herd, 4.3, Pass},
		{"above the bracket", herd, 5.2, Fail},
		{"below the bracket", herd, 3.9, Fail},
		{"an undecided T widens the bracket", undecided, 3.5, Pass},
		{"never above", herd[:4], 4.3, Fail},
		{"below after undecided", grid([2]float64{9.9, 0.05}, [2]float64{9.0, 0.01}, [2]float64{11, 0.01}), 2.5, Fail},
	} {
		if r := crossingRow(blank(), c.m, c.pts); r.Verdict != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, r.Verdict, r.Note, c.want)
		}
	}
	// The interpolated crossing: 4 + (10 − 9.43)/(11.29 − 9.43).
	if r := crossingRow(blank(), 4.3, herd); math.Abs(r.Simulated-(4+0.57/1.86)) > 1e-9 || !(r.SimulatedSE > 0) {
		t.Errorf("interpolated crossing %v ± %v, want %v", r.Simulated, r.SimulatedSE, 4+0.57/1.86)
	}
}
