package compare

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/meanfield"
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
	return fitScaling(xs, ys, ws, "complete brackets")
}

// FitScalingHalf is FitScaling on the brackets' T_½ instead of their
// ends: each enters at T_½ with the standard deviation its 95% interval
// implies, (upper − lower)/3.92 (TipHalf: a fit to all of a bracket's
// points, with an error the bracket's two end points do not state). Needs
// at least MinScalingBrackets bounded T_½ (TipHalf.Bounded) at distinct N.
func FitScalingHalf(ns []int, halves []TipHalf) (ScalingFit, error) {
	if len(ns) != len(halves) {
		panic("compare: FitScalingHalf: lengths differ")
	}
	var xs, ys, ws []float64
	seen := map[int]bool{}
	for i, n := range ns {
		h := halves[i]
		if !h.Bounded() || n < 1 || seen[n] {
			continue
		}
		seen[n] = true
		sd := (h.Upper - h.Lower) / 3.92
		xs = append(xs, float64(n))
		ys = append(ys, h.Scaled)
		ws = append(ws, 1/(sd*sd))
	}
	return fitScaling(xs, ys, ws, "bounded T_½")
}

// fitScaling fits y = e + a·N^(−β) with weights ws (1/variance) at the
// servers xs; what names the points in its error.
func fitScaling(xs, ys, ws []float64, what string) (ScalingFit, error) {
	fit := ScalingFit{Points: len(xs), DF: len(xs) - 3, EdgeInf: math.NaN(), EdgeInfLow: math.NaN(), EdgeInfHigh: math.NaN(),
		A: math.NaN(), Beta: math.NaN(), Chi2: math.NaN(), PValue: math.NaN()}
	if len(xs) < MinScalingBrackets {
		return fit, fmt.Errorf("compare: a scaling fit of edge(∞), a and β needs at least %d %s at distinct N (it has %d): with fewer there is no degree of freedom left to test the law", MinScalingBrackets, what, len(xs))
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

// PredictHooks reports on PredictScaling's predictions: Begin when the
// one of results[i] starts, returning a Stop for its particle runs (nil:
// none), polled before every refresh period (a progress report counts the
// periods), and a Progress called after each of its probes (nil: none;
// meanfield.FiniteEdgeSettings.Progress); End when it ends, with its
// error.
type PredictHooks struct {
	Begin func(i int) (stop func() bool, progress func(meanfield.FiniteEdgeProgress))
	End   func(i int, err error)
}

// PredictScaling predicts the finite-N edge at the N of each bracket
// (issue 45: herd scaling --predict), by FiniteEdgeCheck with the bracket
// passed in: meanfield.FiniteEdge with the bracket's dispatchers, load,
// sizes, run length (Settings.Refreshes; herd bracket's start and
// detector), seed, and its runs per period as the prediction's
// replications (where they are in FiniteEdge's [2, 1000], else its
// default), starting from the bracket's model edge. Nothing is fitted to
// the brackets. Rows and errors are by index; a row whose prediction
// failed has NaN predictions and its error beside it. Once ctx is
// cancelled the rows not finished are left out (rows is shorter than
// results; the caller sees ctx.Err()). The predictions run one
// after another, each with workers runs at once; their values do not
// depend on workers. hooks reports on them (its zero value: nothing).
func PredictScaling(ctx context.Context, results []BracketResult, workers int, hooks PredictHooks) (rows []FiniteEdgeRow, errs []error) {
	for i, r := range results {
		if ctx.Err() != nil {
			break
		}
		s := r.Settings
		reps := 0
		if s.Runs >= 2 && s.Runs <= 1000 {
			reps = s.Runs
		}
		model := 0.0
		if r.ModelScaled > 0 && r.ModelScaled <= 1000 {
			model = r.ModelScaled
		}
		br := r
		var stop func() bool
		var prog func(meanfield.FiniteEdgeProgress)
		if hooks.Begin != nil {
			stop, prog = hooks.Begin(i)
		}
		row, err := FiniteEdgeCheck(ctx, FiniteEdgeSettings{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load,
			Sizes: s.Sizes, ModelScaled: model, Replications: reps, Refreshes: s.Refreshes, Bracket: &br,
			Seed: s.Seed, Workers: max(workers, 1), Stop: stop, Progress: prog})
		if hooks.End != nil {
			hooks.End(i, err)
		}
		if err != nil {
			row.Predicted, row.PredictedLower, row.PredictedUpper = math.NaN(), math.NaN(), math.NaN()
			row.Miss, row.Widths, row.Holds, row.HalfZ = math.NaN(), math.NaN(), false, math.NaN()
			row.PredictedHalf = NoTipHalf("no prediction")
			row.PredictedHalfZ = math.NaN()
			row.BracketLower, row.BracketUpper = r.Lower, r.Upper
			if row.ModelScaled == 0 {
				row.ModelScaled = r.ModelScaled
			}
			if errors.Is(err, meanfield.ErrStopped) {
				break
			}
			err = fmt.Errorf("compare: prediction at N = %d: %w", s.Servers, err)
		}
		rows = append(rows, row)
		errs = append(errs, err)
	}
	return rows, errs
}
