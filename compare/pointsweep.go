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
	// Resume, when not nil, returns the state to continue the point at
	// place k from (meanfield.AttractorSettings.Resume; nil: its start
	// board), and Checkpoint, when not nil, is the point's
	// meanfield.AttractorSettings.Checkpoint, with its place k; both
	// called from the goroutine computing it. Finished, when not nil, is
	// called there once the point's run returns, with its result.
	Resume     func(k int) *meanfield.RunState
	Checkpoint func(k int, stopping bool, state func() *meanfield.RunState)
	Finished   func(k int, a meanfield.HerdAttractor, err error)
}

// PointAttractors finds the attractor of each job at idx (PointAttractor)
// on pool: got[k] and errs[k] are jobs[idx[k]]'s, done[k] false when it
// did not finish. A job that s.Resume gives a state continues from it
// (its start board is not built).
func PointAttractors(jobs []PointJob, idx []int, s PointSettings, pool Pool) (got []meanfield.HerdAttractor, errs []error, done []bool) {
	got = make([]meanfield.HerdAttractor, len(idx))
	errs = make([]error, len(idx))
	done = pool(len(idx), func(k int) {
		j := jobs[idx[k]]
		sk := s
		if s.Mapped != nil {
			sk.Mapped = func(_ int, r meanfield.MapReport) { s.Mapped(k, r) }
		}
		if s.Checkpoint != nil {
			sk.Checkpoint = func(_ int, stopping bool, state func() *meanfield.RunState) { s.Checkpoint(k, stopping, state) }
		}
		var st *meanfield.RunState
		if s.Resume != nil {
			st = s.Resume(k)
		}
		sk.Resume = func(int) *meanfield.RunState { return st }
		var start []float64 // a resumed run does not read it
		if st == nil {
			start = j.Refresh.Service.Lift(j.Board())
		}
		got[k], errs[k] = PointAttractor(j.Refresh, start, sk)
		if s.Finished != nil {
			s.Finished(k, got[k], errs[k])
		}
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
	hs := s.herdSettings()
	as := hs.AttractorSettings
	if s.Mapped != nil {
		as.Mapped = func(r meanfield.MapReport) { s.Mapped(0, r) }
	}
	if s.Checkpoint != nil {
		as.Checkpoint = func(stopping bool, state func() *meanfield.RunState) { s.Checkpoint(0, stopping, state) }
	}
	if s.Resume != nil {
		as.Resume = s.Resume(0)
	}
	if s.Tol >= 1 {
		a, err := meanfield.FindAttractor(r, start, as)
		return meanfield.HerdAttractor{Attractor: a}, err
	}
	hs.AttractorSettings = as
	h, err := meanfield.FindHerdAttractor(r, start, hs)
	if err == nil && h.Status == meanfield.Aperiodic {
		h.SpectralRadius = math.NaN()
		return h, nil
	}
	return meanfield.HerdAttractor{Attractor: h.Attractor}, err
}

// herdSettings are the settings of a point's FindHerdAttractor run (its
// AttractorSettings those of FindAttractor when Tol ≥ 1), the hooks of s
// aside.
func (s PointSettings) herdSettings() meanfield.HerdSettings {
	as := meanfield.AttractorSettings{MaxIter: s.MaxIter, Tol: s.Tol, Spectrum: true, Stop: s.Stop}
	return meanfield.HerdSettings{AttractorSettings: as, Settle: s.Settle, Average: s.Average}
}

// CheckResume reports whether st can be the saved state of a point's run
// with these settings (meanfield.HerdSettings.CheckResume), before the
// run: an error wrapping meanfield.ErrRunState if not.
func (s PointSettings) CheckResume(st *meanfield.RunState) error {
	if s.Tol >= 1 {
		return nil // FindAttractor refuses the settings themselves
	}
	return s.herdSettings().CheckResume(st)
}
