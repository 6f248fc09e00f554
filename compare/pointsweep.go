package compare

import (
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
	// Settle and Average are meanfield.HerdSettings': the maps in the herd
	// regime taken as transient, and the maps averaged, before an orbit
	// that does not settle is reported Aperiodic. Zero means their
	// defaults (200 and 256).
	Settle, Average int
	// Stop, when not nil, is polled after every map; once it reports true
	// the point's run ends with an error wrapping meanfield.ErrStopped.
	Stop func() bool
	// Mapped, when not nil, is called after each map of a point's
	// iteration, from the goroutine computing it, with the point's place k
	// in PointAttractors' idx (0 from PointAttractor) and the map's report:
	// a heartbeat's count.
	Mapped func(k int, r meanfield.MapReport)
}

// PointAttractors finds the attractor of each job at idx (PointAttractor)
// on pool: got[k] and errs[k] are jobs[idx[k]]'s, done[k] false when it
// did not finish.
func PointAttractors(jobs []PointJob, idx []int, s PointSettings, pool Pool) (got []meanfield.HerdAttractor, errs []error, done []bool) {
	got = make([]meanfield.HerdAttractor, len(idx))
	errs = make([]error, len(idx))
	done = pool(len(idx), func(k int) {
		j := jobs[idx[k]]
		sk := s
		if s.Mapped != nil {
			sk.Mapped = func(_ int, r meanfield.MapReport) { s.Mapped(k, r) }
		}
		got[k], errs[k] = PointAttractor(j.Refresh, j.Refresh.Service.Lift(j.Board()), sk)
	})
	return got, errs, done
}

// PointAttractor finds the attractor of one point with
// FindHerdAttractor, whose classification (herd hysteresis uses the same)
// recognises an orbit that stays in the herd regime without settling as
// aperiodic, with orbit averages and their standard errors; a fixed point
// comes with its spectral radius from the same run. A fixed point, cycle
// or unconverged orbit is reported as FindAttractor reports it from the
// same start (the same maps; the herd's own fields are left zero).
func PointAttractor(r meanfield.Refresh, start []float64, s PointSettings) (meanfield.HerdAttractor, error) {
	as := meanfield.AttractorSettings{MaxIter: s.MaxIter, Tol: s.Tol, Spectrum: true, Stop: s.Stop}
	if s.Mapped != nil {
		as.Mapped = func(r meanfield.MapReport) { s.Mapped(0, r) }
	}
	if s.Tol >= 1 {
		a, err := meanfield.FindAttractor(r, start, as)
		return meanfield.HerdAttractor{Attractor: a}, err
	}
	h, err := meanfield.FindHerdAttractor(r, start, meanfield.HerdSettings{AttractorSettings: as, Settle: s.Settle, Average: s.Average})
	if err == nil && h.Status == meanfield.Aperiodic {
		h.SpectralRadius = math.NaN()
		return h, nil
	}
	return meanfield.HerdAttractor{Attractor: h.Attractor}, err
}
