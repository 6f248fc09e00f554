package compare

import (
	"context"
	"math"
	"strings"
	"testing"

	"herd/meanfield"
)

// lawBrackets draws brackets of half-width 0.05 around e + a·N^(−β), each
// shifted by its entry of off.
func lawBrackets(ns []int, e, a, beta float64, off []float64) (lo, hi []float64) {
	for i, n := range ns {
		y := e + a*math.Pow(float64(n), -beta) + off[i]
		lo = append(lo, y-0.05)
		hi = append(hi, y+0.05)
	}
	return lo, hi
}

// Three brackets leave no degree of freedom: refused, whatever they hold.
// Four give one; the fit reports it with χ² and its p-value.
func TestFitScalingDegreesOfFreedom(t *testing.T) {
	t.Parallel()
	ns := []int{25, 100, 400, 1600}
	lo, hi := lawBrackets(ns, 2.9, 6, 0.5, []float64{0.01, -0.02, 0.015, -0.01}) // a made-up law
	_, err := FitScaling(ns[:3], lo[:3], hi[:3])
	if err == nil || !strings.Contains(err.Error(), "at least 4 complete brackets") {
		t.Errorf("three brackets: error %v, want 'at least 4 complete brackets'", err)
	}
	// A repeated N does not count twice.
	if _, err := FitScaling([]int{25, 100, 400, 400}, lo, hi); err == nil {
		t.Error("three distinct N: want an error")
	}
	fit, err := FitScaling(ns, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	if fit.DF != 1 || fit.Points != 4 {
		t.Errorf("DF = %d, Points = %d; want 1, 4", fit.DF, fit.Points)
	}
	if !(fit.PValue > 0 && fit.PValue <= 1) || !(fit.Chi2 >= 0) {
		t.Errorf("χ² = %v, p = %v", fit.Chi2, fit.PValue)
	}
	if fit.BetaOnBound {
		t.Errorf("β = %v flagged on its bound", fit.Beta)
	}
}

// FitScalingHalf fits the law to T_½ with the standard deviations their
// 95% intervals imply: the same points as brackets of matching uniform
// error give the same fit, T_½ lying exactly on a law (β on the grid)
// give it back with χ² = 0, and an interval open at an end (or the zero
// TipHalf) does not count.
func TestFitScalingHalf(t *testing.T) {
	t.Parallel()
	ns := []int{25, 100, 400, 1600}
	lo, hi := lawBrackets(ns, 2.9, 6, 0.5, []float64{0.01, -0.02, 0.015, -0.01})
	halves := make([]TipHalf, len(ns))
	for i := range ns {
		// A 95% interval of width 3.92·σ, σ the brackets' (hi − lo)/√12.
		mid, w := (lo[i]+hi[i])/2, (hi[i]-lo[i])/math.Sqrt(12)*3.92
		halves[i] = TipHalf{Scaled: mid, Lower: mid - w/2, Upper: mid + w/2}
	}
	fb, err := FitScaling(ns, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := FitScalingHalf(ns, halves)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fh.EdgeInf-fb.EdgeInf) > 1e-9 || fh.Beta != fb.Beta || math.Abs(fh.Chi2-fb.Chi2) > 1e-9*(1+fb.Chi2) {
		t.Errorf("T_½ fit %+v, want the brackets' %+v", fh, fb)
	}
	for i, n := range ns {
		y := 28.1 + 60*math.Pow(float64(n), -0.67)
		halves[i] = TipHalf{Scaled: y, Lower: y - 0.1, Upper: y + 0.3} // asymmetric: σ = 0.4/3.92
	}
	fh, err = FitScalingHalf(ns, halves)
	if err != nil || math.Abs(fh.EdgeInf-28.1) > 1e-9 || fh.Beta != 0.67 || fh.Chi2 > 1e-18 {
		t.Errorf("exact law: %+v (%v), want edge(∞) 28.1, β 0.67, χ² 0", fh, err)
	}
	halves[2].Upper = math.NaN()
	if _, err := FitScalingHalf(ns, halves); err == nil || !strings.Contains(err.Error(), "at least 4 bounded T_½") {
		t.Errorf("an open interval counted: %v", err)
	}
	halves[2] = TipHalf{}
	if _, err := FitScalingHalf(ns, halves); err == nil {
		t.Error("the zero TipHalf counted")
	}
}

// Brackets that keep falling faster than any β on the grid allows put the
// best β on its upper bound, and the fit says so.
func TestFitScalingBetaOnBound(t *testing.T) {
	t.Parallel()
	ns := []int{2, 3, 4, 5}
	lo, hi := lawBrackets(ns, 3, 400, 6, []float64{0, 0, 0, 0}) // β = 6, beyond BetaMax
	fit, err := FitScaling(ns, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.BetaOnBound || fit.Beta != BetaMax {
		t.Errorf("β = %v, on bound %v; want %v, true", fit.Beta, fit.BetaOnBound, BetaMax)
	}
}

// PredictScaling predicts at each bracket's N with the bracket's own
// settings: the row's prediction is meanfield.FiniteEdge's, bit for bit,
// with the bracket's run length, runs and seed; a cell without an edge
// (k = 2, λ = 0.8: meanfield's package doc, §5) gives NaN and its error;
// a cancelled context predicts nothing. The runs are short (60 refreshes,
// 2 runs per period: about a second) because only the plumbing is under
// test; the model edge 3.102502873593299 at k = 5, λ = 0.7 is meanfield.Edge's.
func TestPredictScaling(t *testing.T) {
	t.Parallel()
	const model = 3.102502873593299
	br := func(n, k int, load float64) BracketResult {
		return BracketResult{Settings: BracketSettings{Servers: n, Dispatchers: k, Load: load, Runs: 2, Refreshes: 60, Seed: 3},
			Lower: 3.2, Upper: 3.3, ModelScaled: model}
	}
	results := []BracketResult{br(10, 5, 0.7), br(10, 2, 0.8)}
	results[1].ModelScaled = math.NaN()
	rows, errs := PredictScaling(context.Background(), results, 2, PredictHooks{})
	if len(rows) != 2 || len(errs) != 2 {
		t.Fatalf("%d rows, %d errors; want 2, 2", len(rows), len(errs))
	}
	if errs[0] != nil {
		t.Fatalf("N = 10, k = 5: %v", errs[0])
	}
	e, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.7, Servers: 10, Refreshes: 60, Replications: 2,
		ModelScaled: model, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Predicted != e.Scaled || r.PredictedLower != e.Lower || r.PredictedUpper != e.Upper || r.ModelScaled != model {
		t.Errorf("row %+v, want FiniteEdge's %v [%v, %v]", r, e.Scaled, e.Lower, e.Upper)
	}
	if miss, widths, _ := bracketMiss(e.Scaled, 3.2, 3.3); r.Miss != miss || r.Widths != widths || r.BracketLower != 3.2 || r.BracketUpper != 3.3 {
		t.Errorf("miss %v (%v widths), want %v (%v)", r.Miss, r.Widths, miss, widths)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "N = 10") || !math.IsNaN(rows[1].Predicted) || rows[1].Holds {
		t.Errorf("no-edge cell: row %+v, error %v; want NaN and an error naming N", rows[1], errs[1])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rows, errs := PredictScaling(ctx, results, 1, PredictHooks{}); len(rows) != 0 || len(errs) != 0 {
		t.Errorf("cancelled: %d rows, %d errors; want none", len(rows), len(errs))
	}
}
