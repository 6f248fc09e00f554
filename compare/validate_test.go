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
	if r := againstReference(blank(), s, 10, 0, ""); r.Verdict != Fail || math.Abs(r.Z-6) > 1e-9 {
		t.Errorf("10.3 ± 0.05 vs 10: %v, z %v", r.Verdict, r.Z)
	}
	if r := againstReference(blank(), s, 10.05, 0, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 vs 10.05 (5 s.e., band 5.41): %v", r.Verdict)
	}
	if r := againstReference(blank(), s, 10, 0.2, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 vs 10 with bias 0.2: %v", r.Verdict)
	}
	// The same 5 s.e. from only 4 runs is inside t(0.9995, 3) = 12.92.
	if r := againstReference(blank(), sim.Stat{Mean: 10.3, SE: 0.05, N: 4}, 10.05, 0, ""); r.Verdict != Pass {
		t.Errorf("10.3 ± 0.05 (4 runs) vs 10.05: %v", r.Verdict)
	}
	if r := againstReference(blank(), sim.Stat{Mean: 10.3, SE: 0.01, N: 4}, 10.05, 0, ""); r.Verdict != Fail {
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
