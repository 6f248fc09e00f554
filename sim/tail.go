package sim

import (
	"math"
	"slices"
)

// responseHist counts measured response times in bins of equal relative
// width: a bin is a float64's exponent and the top tailBits bits of its
// mantissa, so a bin's ends differ by a factor of at most 1 + 2^−tailBits
// (0.8%), and a quantile read off the bins is within 0.4% of the sample's
// (the bin's middle stands for every time in it). Times below 2^tailMinExp
// share the first bin and times of 2^tailMaxExp or more the last.
type responseHist struct {
	counts []int64
	n      int64
}

const (
	tailBits   = 7
	tailMinExp = -30 // 2^−30 ≈ 1e−9 service times
	tailMaxExp = 50  // 2^50 ≈ 1e15 service times
	tailShift  = 52 - tailBits
	tailFirst  = uint64(1023+tailMinExp) << tailBits
	tailBins   = (tailMaxExp - tailMinExp) << tailBits
)

func newResponseHist() *responseHist {
	return &responseHist{counts: make([]int64, tailBins)}
}

// add counts one response time x > 0.
func (h *responseHist) add(x float64) {
	i := math.Float64bits(x)>>tailShift - tailFirst
	if int64(i) < 0 { // below 2^tailMinExp: the subtraction wrapped
		i = 0
	} else if i >= tailBins {
		i = tailBins - 1
	}
	h.counts[i]++
	h.n++
}

// binMid is the middle of bin i (the geometric middle differs from it
// by less than 2^−2·tailBits).
func binMid(i int) float64 {
	lo := math.Float64frombits((uint64(i) + tailFirst) << tailShift)
	hi := math.Float64frombits((uint64(i) + 1 + tailFirst) << tailShift)
	return (lo + hi) / 2
}

// quantile is the q-quantile of the counted times: the middle of the
// bin holding the ⌈q·n⌉-th smallest; NaN with nothing counted.
func (h *responseHist) quantile(q float64) float64 {
	if h == nil || h.n == 0 {
		return math.NaN()
	}
	rank := max(int64(math.Ceil(q*float64(h.n))), 1)
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return binMid(i)
		}
	}
	return binMid(len(h.counts) - 1)
}

// TailBinError bounds the relative error of a quantile read off the bins
// (half a bin).
const TailBinError = 1.0 / (1 << (tailBits + 1))

// TailQuantile is the response-time quantile Config.Tail measures: the
// 99th percentile.
const TailQuantile = 0.99

// quantileOf is the q-quantile of xs by the same rule (the ⌈q·n⌉-th
// smallest), for tests.
func quantileOf(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
}
