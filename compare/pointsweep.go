package compare

import (
	"errors"
	"math"

	"herd/meanfield"
)

// PointJob is one point of herd point: the refresh map and its start
// board, built when the point is computed (a board may be long).
type PointJob struct {
	Refresh meanfield.Refresh
	Board   func() []float64
}

// PointCost is a point's relative cost, for a progress estimate only: one
// refresh map walks about λT/k windows over its rows, so its work grows
// with the period T (at least 1).
func PointCost(j PointJob) float64 { return max(1, j.Refresh.Period) }

// PointSettings are the iteration limits of herd point.
type PointSettings struct {
	MaxIter int     // most refresh-map applications
	Tol     float64 // L1 distance between a board and the one a period earlier
}

// PointAttractors finds the attractor of each job at idx (PointAttractor)
// on pool: got[k] and errs[k] are jobs[idx[k]]'s, done[k] false when it
// did not finish.
func PointAttractors(jobs []PointJob, idx []int, s PointSettings, pool Pool) (got []meanfield.HerdAttractor, errs []error, done []bool) {
	got = make([]meanfield.HerdAttractor, len(idx))
	errs = make([]error, len(idx))
	done = pool(len(idx), func(k int) {
		j := jobs[idx[k]]
		got[k], errs[k] = PointAttractor(j.Refresh, j.Refresh.Service.Lift(j.Board()), s.MaxIter, s.Tol)
	})
	return got, errs, done
}

// PointAttractor finds the attractor of one point with
// FindHerdAttractor, whose classification (herd hysteresis uses the same)
// recognises an orbit that stays in the herd regime without settling as
// aperiodic, with orbit averages and their standard errors. A fixed point
// or cycle, or an orbit that establishes nothing, is then found again by
// FindAttractor from the same start, as before, for the spectral radius
// of a fixed point and the last map of an unconverged orbit.
func PointAttractor(r meanfield.Refresh, start []float64, maxIter int, tol float64) (meanfield.HerdAttractor, error) {
	if tol < 1 {
		h, err := meanfield.FindHerdAttractor(r, start, meanfield.HerdSettings{AttractorSettings: meanfield.AttractorSettings{MaxIter: maxIter, Tol: tol}})
		if err != nil && !errors.Is(err, meanfield.ErrNotConverged) {
			return h, err
		}
		if h.Status == meanfield.Aperiodic {
			h.SpectralRadius = math.NaN()
			return h, nil
		}
	}
	a, err := meanfield.FindAttractor(r, start, meanfield.AttractorSettings{MaxIter: maxIter, Tol: tol, Spectrum: true})
	return meanfield.HerdAttractor{Attractor: a}, err
}
