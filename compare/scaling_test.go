package compare

import (
	"math"
	"strings"
	"testing"
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
