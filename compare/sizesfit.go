package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"herd/fixedpoint"
	"herd/fleet"
	"herd/meanfield"
)

// SizesFit is a phase-type law fitted to observed service times by their
// first two moments: the mean and the squared coefficient of variation
// C = variance/mean². C > 1 + FitExpBand gives h2:C (balanced means, the
// law the refresh map and the simulator take), C < 1 − FitExpBand gives
// erlang:K with K = round(1/C) (the nearest C the map has: 1/K), and C
// within FitExpBand of 1 gives exp. The fit matches the mean exactly and
// C to 3 digits for h2 (exp: within FitExpBand); for erlang its C is 1/K.
type SizesFit struct {
	Sizes fleet.Sizes
	N     int     // samples
	Mean  float64 // sample mean, in the samples' unit
	SCV   float64 // sample squared coefficient of variation
	// Quantiles of the samples and of the fitted law (scaled to the
	// sample mean) at FitQuantiles, to show where the tail departs.
	Sample, Fitted [len(FitQuantiles)]float64
}

// FitExpBand is how close to 1 a sample's C must be to be fitted by exp.
const FitExpBand = 0.05

// FitQuantiles are the quantiles a fit is compared at.
var FitQuantiles = [3]float64{0.5, 0.99, 0.999}

// FitMinSamples is the fewest samples FitSizes takes: fewer cannot show a
// 99th percentile.
const FitMinSamples = 100

// FitTailRatio is the ratio of the sample's 99.9th percentile to the
// fit's above which the fit's tail is too light (SizesFit.TailWarning).
const FitTailRatio = 1.2

// ErrFitSamples: too few samples, one that is not a time ≥ 0, or all 0.
var ErrFitSamples = errors.New("compare: sizes fit needs positive service times")

// FitSizes fits a phase-type law to xs, service times ≥ 0 (not all 0)
// in any one unit.
func FitSizes(xs []float64) (SizesFit, error) {
	if len(xs) < FitMinSamples {
		return SizesFit{}, fmt.Errorf("%w: %d samples, want at least %d", ErrFitSamples, len(xs), FitMinSamples)
	}
	for i, x := range xs {
		if !(x >= 0) || math.IsInf(x, 0) {
			return SizesFit{}, fmt.Errorf("%w: sample %d is %g", ErrFitSamples, i+1, x)
		}
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	if !(mean > 0) {
		return SizesFit{}, fmt.Errorf("%w: every sample is 0", ErrFitSamples)
	}
	f := SizesFit{N: len(xs), Mean: mean, SCV: sd * sd / (mean * mean)}
	switch {
	case f.SCV > 1+FitExpBand:
		f.Sizes = fleet.Sizes{Kind: fleet.H2, Param: math.Min(round3(f.SCV), meanfield.MaxServiceSCV)}
	case f.SCV < 1-FitExpBand:
		k := math.Min(math.Max(math.Round(1/f.SCV), 1), meanfield.MaxServicePhases)
		f.Sizes = fleet.Sizes{Kind: fleet.Erlang, Param: k}
	default:
		f.Sizes = fleet.Sizes{Kind: fleet.Exp}
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	for i, q := range FitQuantiles {
		f.Sample[i] = stat.Quantile(q, stat.Empirical, sorted, nil)
		f.Fitted[i] = mean * SizesQuantile(f.Sizes, q)
	}
	return f, nil
}

// round3 rounds x > 0 to 3 significant digits: a sample's C is not known
// better (its standard error is several per cent even for 10⁴ samples of
// a long tail), and h2:4.02 reads better than h2:4.0213876.
func round3(x float64) float64 {
	p := math.Pow(10, 2-math.Floor(math.Log10(x)))
	return math.Round(x*p) / p
}

// TailWarning says, when the samples' 99.9th percentile exceeds the
// fitted law's by more than FitTailRatio, how much heavier the tail is
// ("" otherwise): the fit's two moments then understate the rare long
// jobs, and the model's answer is optimistic.
func (f SizesFit) TailWarning() string {
	last := len(FitQuantiles) - 1
	if r := f.Sample[last] / f.Fitted[last]; r > FitTailRatio {
		return fmt.Sprintf("the samples' tail is heavier than the fit's: their 99.9th percentile is %.3g times the fitted %s's (%.4g against %.4g, in the samples' unit); the answers below take the fitted law and understate the long jobs",
			r, f.Sizes, f.Sample[last], f.Fitted[last])
	}
	return ""
}

// SizesQuantile is the q-quantile of the job-size law z (mean 1) for exp,
// h2:C and erlang:K; NaN for others.
func SizesQuantile(z fleet.Sizes, q float64) float64 {
	switch z.Kind {
	case fleet.Exp:
		return -math.Log1p(-q)
	case fleet.Erlang:
		k := z.Param
		return distuv.Gamma{Alpha: k, Beta: k}.Quantile(q)
	case fleet.H2:
		p, m1, m2 := z.H2Phases()
		surv := func(x float64) float64 { return p*math.Exp(-x/m1) + (1-p)*math.Exp(-x/m2) }
		// The quantile lies between the phases' own q-quantiles.
		lo, hi := -m1*math.Log1p(-q), -m2*math.Log1p(-q)
		below := func(x float64) (bool, error) { return surv(x) > 1-q, nil }
		x, _, _ := fixedpoint.BisectGeometric(below, lo, hi, 1e-12)
		return x
	}
	return math.NaN()
}
