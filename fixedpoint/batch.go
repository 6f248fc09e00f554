package fixedpoint

import "math"

// BatchMeans returns the means of nb consecutive batches of bl values of
// a correlated series x(0), …, x(nb·bl − 1) (Flyvbjerg & Petersen 1989:
// batches much longer than the correlation time are nearly independent,
// so their means estimate the error of the series' mean; see BatchSE).
// meanfield averages the irregular attractors of its maps so.
func BatchMeans(x func(i int) float64, nb, bl int) []float64 {
	means := make([]float64, nb)
	for b := range means {
		for j := 0; j < bl; j++ {
			means[b] += x(b*bl + j)
		}
		means[b] /= float64(bl)
	}
	return means
}

// BatchSE returns the batch-means standard error of mean, the mean of the
// batch means: √(Σ_b (m_b − mean)²/(nb − 1)/nb), 0 for fewer than two
// batches.
func BatchSE(means []float64, mean float64) float64 {
	nb := len(means)
	if nb < 2 {
		return 0
	}
	var v float64
	for _, m := range means {
		v += (m - mean) * (m - mean)
	}
	return math.Sqrt(v / float64(nb-1) / float64(nb))
}

// BatchSlope returns the least-squares slope of the batch means against
// their index, centred on their mean, per batch: the drift of a series
// that has not settled (at least two batches).
func BatchSlope(means []float64, mean float64) float64 {
	var sxy, sxx float64
	xc := float64(len(means)-1) / 2
	for b, m := range means {
		x := float64(b) - xc
		sxy += x * (m - mean)
		sxx += x * x
	}
	return sxy / sxx
}
