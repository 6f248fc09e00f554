package compare

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MinScalingBrackets is the fewest complete brackets, at distinct N, that
// FitScaling accepts: three parameters (edge(∞), a, β) need at least one
// degree of freedom left to test the law.
const MinScalingBrackets = 4

// The grid of β searched by FitScaling: BetaMin, BetaMin + 0.01, …, BetaMax.
const (
	BetaMin = 0.01
	BetaMax = 3.0
)

// ScalingFit is a fit of the finite-size law edge(N) = edge(∞) + a·N^(−β)
// to edge brackets.
type ScalingFit struct {
	EdgeInf float64 // edge(∞), in T(1−λ)²
	// EdgeInfLow and EdgeInfHigh bound edge(∞): the range over every β
	// whose χ² is within 1 of the best, each widened by its own standard
	// error (profile likelihood plus the linear covariance).
	EdgeInfLow, EdgeInfHigh float64
	A, Beta                 float64
	Chi2                    float64 // at the best β
	Points                  int
	// DF is the fit's degrees of freedom, Points − 3.
	DF int
	// PValue is P(χ²_DF ≥ Chi2), the probability of a worse fit if the
	// law and the brackets' uniform errors hold.
	PValue float64
	// BetaOnBound is true when the best β is an end of its search grid
	// (BetaMin or BetaMax): the minimum lies outside, and edge(∞) and its
	// range are not to be trusted.
	BetaOnBound bool
}

// At is the fitted law at N servers: edge(∞) + a·N^(−β).
func (f ScalingFit) At(n float64) float64 { return f.EdgeInf + f.A*math.Pow(n, -f.Beta) }

// FitScaling fits edge(N) = e + a·N^(−β) by weighted least squares. Each
// bracket [lo, hi] enters at its midpoint with the standard deviation of
// a uniform law on it, (hi − lo)/√12: the edge is somewhere inside, with
// nothing to favour any part. For each β on a grid over [BetaMin,
// BetaMax] in steps of 0.01 the fit is linear in (e, a) and solved exactly; β is then chosen by least χ². Needs
// at least MinScalingBrackets brackets of positive width at distinct N.
func FitScaling(ns []int, lo, hi []float64) (ScalingFit, error) {
	if len(ns) != len(lo) || len(ns) != len(hi) {
		panic("compare: FitScaling: lengths differ")
	}
	var xs, ys, ws []float64
	seen := map[int]bool{}
	for i, n := range ns {
		if math.IsNaN(lo[i]) || math.IsNaN(hi[i]) || !(hi[i] > lo[i]) || n < 1 || seen[n] {
			continue
		}
		seen[n] = true
		sd := (hi[i] - lo[i]) / math.Sqrt(12)
		xs = append(xs, float64(n))
		ys = append(ys, (lo[i]+hi[i])/2)
		ws = append(ws, 1/(sd*sd))
	}
	fit := ScalingFit{Points: len(xs), DF: len(xs) - 3, EdgeInf: math.NaN(), EdgeInfLow: math.NaN(), EdgeInfHigh: math.NaN(),
		A: math.NaN(), Beta: math.NaN(), Chi2: math.NaN(), PValue: math.NaN()}
	if len(xs) < MinScalingBrackets {
		return fit, fmt.Errorf("compare: a scaling fit of edge(∞), a and β needs at least %d complete brackets at distinct N (it has %d): with fewer there is no degree of freedom left to test the law", MinScalingBrackets, len(xs))
	}
	type sol struct{ beta, e, a, se, chi2 float64 }
	var sols []sol
	best := sol{chi2: math.Inf(1)}
	steps := int(math.Round((BetaMax - BetaMin) / 0.01))
	for i := 0; i <= steps; i++ {
		beta := float64(int(math.Round(BetaMin*100))+i) / 100 // exact hundredths
		// Weighted normal equations for y = e + a·u, u = N^(−β).
		var sw, su, suu, sy, suy float64
		for j := range xs {
			u := math.Pow(xs[j], -beta)
			w := ws[j]
			sw += w
			su += w * u
			suu += w * u * u
			sy += w * ys[j]
			suy += w * u * ys[j]
		}
		det := sw*suu - su*su
		if !(det > 0) {
			continue
		}
		e := (suu*sy - su*suy) / det
		a := (sw*suy - su*sy) / det
		var chi2 float64
		for j := range xs {
			r := ys[j] - e - a*math.Pow(xs[j], -beta)
			chi2 += ws[j] * r * r
		}
		s := sol{beta, e, a, math.Sqrt(suu / det), chi2}
		sols = append(sols, s)
		if chi2 < best.chi2 {
			best = s
		}
	}
	if math.IsInf(best.chi2, 1) {
		return fit, fmt.Errorf("compare: scaling fit: no β in [%g, %g] gives a solvable fit", BetaMin, BetaMax)
	}
	fit.EdgeInf, fit.A, fit.Beta, fit.Chi2 = best.e, best.a, best.beta, best.chi2
	fit.PValue = distuv.ChiSquared{K: float64(fit.DF)}.Survival(best.chi2)
	fit.BetaOnBound = best.beta < BetaMin+0.005 || best.beta > BetaMax-0.005
	fit.EdgeInfLow, fit.EdgeInfHigh = math.Inf(1), math.Inf(-1)
	for _, s := range sols {
		if s.chi2 <= best.chi2+1 {
			fit.EdgeInfLow = math.Min(fit.EdgeInfLow, s.e-s.se)
			fit.EdgeInfHigh = math.Max(fit.EdgeInfHigh, s.e+s.se)
		}
	}
	return fit, nil
}
