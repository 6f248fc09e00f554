package meanfield

import (
	"errors"
	"fmt"
	"math"

	"herd/fixedpoint"
)

// This file saves and restores the state of an attractor run
// (FindAttractor, FindHerdAttractor) between two maps, so that a run of
// hours (k = 10, h2:30 at T ≈ 20,000: maps of one to two minutes) can be
// stopped and continued. What a run carries from map to map is:
//
//   - the last MaxPeriod + 1 boards p_{n−P} … p_n (the ring of
//     fixedpoint.Orbit: the period test compares p_{n+1} with
//     p_{n+1−P}, P ≤ MaxPeriod, and the next map is applied to p_n);
//   - the observables of the last MaxPeriod maps (describeOrbit averages a
//     closed orbit's P ≤ MaxPeriod maps, and an unconverged run reports
//     its last map's);
//   - the map count, the largest truncation mass and the last residual;
//   - for FindHerdAttractor, its herdWatch: the consecutive maps in the
//     herd regime, the most rows and the work so far, and the board and
//     queue means of the last Average maps (the aperiodic average's
//     batches).
//
// Nothing else persists: the RefreshMap's workspace does not change a
// result (TestRefreshGolden applies one map twice), the orbit's stored
// distances are recomputed by every period test before they are read, and
// the iteration has no acceleration (iterateAccelerated's jump is Edge's
// alone). A run resumed from its state therefore makes the same maps and
// returns the same result, bit for bit, as the run that was not stopped
// (TestResumeSameBits).

// ErrRunState is returned, wrapped, when AttractorSettings.Resume holds a
// state that the run's settings cannot have produced.
var ErrRunState = errors.New("meanfield: run state does not fit the run")

// RunState is where an attractor run stands after its n-th map: what
// AttractorSettings.Checkpoint hands out and AttractorSettings.Resume
// continues from. Its fields are exported so that a caller may store it
// (encoding/json keeps every float64 exactly); they are not meant to be
// edited.
type RunState struct {
	// Maps is n, the maps made: the run's boards are p_0 … p_n.
	Maps int `json:"maps"`
	// Boards are p_{n+1−len} … p_n, oldest first: the last
	// min(n, MaxPeriod) + 1 boards (phase states for phase-type sizes,
	// Service.Lift).
	Boards [][]float64 `json:"boards"`
	// Recent are the observables of maps n − len … n − 1 (map m takes
	// p_m to p_{m+1}), oldest first: the last min(n, MaxPeriod).
	Recent []MapStat `json:"recent"`
	// Truncation is the largest truncation mass of one map so far and
	// Residual the last ‖p_n − p_{n−1}‖₁.
	Truncation float64 `json:"truncation"`
	Residual   float64 `json:"residual"`
	// Herd is FindHerdAttractor's own state; nil for FindAttractor.
	Herd *HerdRunState `json:"herd,omitempty"`
}

// MapStat is what a run keeps of one map: the board mean of its input,
// the time-averaged queue, and its cut (RefreshResult's fields).
type MapStat struct {
	BoardMean    float64 `json:"board_mean"`
	QueueMean    float64 `json:"queue_mean"`
	CutPhase     float64 `json:"cut_phase"`
	KinkDistance float64 `json:"kink_distance"`
	Window       int     `json:"window"`
}

// HerdRunState is the part of a RunState that FindHerdAttractor adds.
type HerdRunState struct {
	// Run is the number of consecutive maps, up to map n − 1, in the herd
	// regime; Rows the most queue rows one map held; Work Σ windows·rows
	// over the maps made (HerdAttractor.Work).
	Run  int     `json:"run"`
	Rows int     `json:"rows"`
	Work float64 `json:"work"`
	// BoardMeans and QueueMeans are those of maps n − len … n − 1, oldest
	// first: the last min(n, Average), which an aperiodic verdict averages.
	BoardMeans []float64 `json:"board_means"`
	QueueMeans []float64 `json:"queue_means"`
}

// saveRun returns the state of a run after n = out.Maps maps: o's newest
// point is p_n (o.Len() is n, or less in a resumed run, whose orbit began
// with the boards it was saved with), and stats is iterateAccelerated's
// ring (map m at index m − n + o.Len(), modulo P + 1). The boards are
// copied: the run reuses their storage.
func saveRun(o *fixedpoint.Orbit, stats []orbitStat, out *Attractor) *RunState {
	P, at := o.MaxPeriod(), o.Len()
	st := &RunState{Maps: out.Maps, Truncation: out.Truncation, Residual: out.Residual}
	for d := min(out.Maps, P); d >= 0; d-- {
		st.Boards = append(st.Boards, append([]float64(nil), o.Back(d)...))
	}
	for j := min(out.Maps, P); j >= 1; j-- {
		s := stats[(at-j)%(P+1)]
		st.Recent = append(st.Recent, MapStat{s.board, s.queue, s.phase, s.kink, s.window})
	}
	return st
}

// restoreRun checks st against a run of maxIter maps and periods up to P
// and returns its orbit, its stats ring (map m at m − n + o.Len(),
// modulo P + 1, as saveRun reads it) and the result so far. The boards
// are copied.
func restoreRun(st *RunState, P, maxIter int) (*fixedpoint.Orbit, []orbitStat, Attractor, error) {
	var out Attractor
	if err := st.check(P, maxIter); err != nil {
		return nil, nil, out, err
	}
	o := fixedpoint.NewOrbit(P, append([]float64(nil), st.Boards[0]...), l1)
	for _, b := range st.Boards[1:] {
		o.Push(append([]float64(nil), b...))
	}
	stats := make([]orbitStat, P+1)
	for j, s := range st.Recent { // maps n − len … n − 1
		stats[(o.Len()-len(st.Recent)+j)%(P+1)] = orbitStat{s.BoardMean, s.QueueMean, s.CutPhase, s.KinkDistance, s.Window}
	}
	out.Maps, out.Truncation, out.Residual = st.Maps, st.Truncation, st.Residual
	out.SpectralRadius = math.NaN()
	return o, stats, out, nil
}

// check reports the first way st cannot be the state of a run of at most
// maxIter maps that detects periods up to P (its Herd part aside).
func (st *RunState) check(P, maxIter int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("meanfield: AttractorSettings.Resume: "+format+": %w", append(args, ErrRunState)...)
	}
	n := st.Maps
	switch {
	case n < 1 || n > maxIter:
		return bad("%d maps, want 1 to MaxIter = %d", n, maxIter)
	case len(st.Boards) != min(n, P)+1:
		return bad("%d boards after %d maps, want %d (MaxPeriod %d)", len(st.Boards), n, min(n, P)+1, P)
	case len(st.Recent) != min(n, P):
		return bad("%d maps' observables after %d maps, want %d (MaxPeriod %d)", len(st.Recent), n, min(n, P), P)
	case !(st.Truncation >= 0 && st.Truncation <= 1) || !nonNegative(st.Residual):
		return bad("truncation %v, residual %v", st.Truncation, st.Residual)
	}
	for i, b := range st.Boards {
		if len(b) == 0 {
			return bad("board %d is empty", i)
		}
		for _, x := range b {
			if !nonNegative(x) {
				return bad("board %d holds %v", i, x)
			}
		}
	}
	for i, s := range st.Recent {
		// A map of boards only (Edge's, RefreshMap.boardOnly) reports the
		// queue as NaN.
		if !finite(s.BoardMean) || !(finite(s.QueueMean) || math.IsNaN(s.QueueMean)) || !finite(s.CutPhase) || !finite(s.KinkDistance) || s.Window < 0 {
			return bad("map %d's observables %+v", n-len(st.Recent)+i, s)
		}
	}
	return nil
}

// CheckResume reports whether st can be the state of a FindHerdAttractor
// run with settings s, as Resume would: an error wrapping ErrRunState if
// not. (Whether it is the state of a run of the same map, from the same
// start, is the caller's to know.)
func (s HerdSettings) CheckResume(st *RunState) error {
	s = s.withDefaults()
	if st.Herd == nil {
		return fmt.Errorf("meanfield: AttractorSettings.Resume: the state of a FindAttractor run: %w", ErrRunState)
	}
	if err := st.check(s.MaxPeriod, s.MaxIter); err != nil {
		return err
	}
	return st.Herd.check(st.Maps, s)
}

// check reports the first way h cannot be the herd state of a run of
// n maps with these settings, which would not have gone on past n maps.
func (h *HerdRunState) check(n int, s HerdSettings) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("meanfield: AttractorSettings.Resume: herd state: "+format+": %w", append(args, ErrRunState)...)
	}
	want := min(n, s.Average)
	switch {
	case h.Run < 0 || h.Run > n || h.Run >= s.Settle+s.Average:
		return bad("%d maps in the herd regime after %d maps (Settle + Average = %d ends the run)", h.Run, n, s.Settle+s.Average)
	case h.Rows < 0 || !nonNegative(h.Work):
		return bad("rows %d, work %v", h.Rows, h.Work)
	case len(h.BoardMeans) != want || len(h.QueueMeans) != want:
		return bad("%d board and %d queue means after %d maps, want %d (Average %d)", len(h.BoardMeans), len(h.QueueMeans), n, want, s.Average)
	}
	for i := range want {
		// A run of board-only maps (Edge's herd, ConfirmEdge's runs)
		// reports the queue as NaN.
		if !finite(h.BoardMeans[i]) || !(finite(h.QueueMeans[i]) || math.IsNaN(h.QueueMeans[i])) {
			return bad("map %d's means %v, %v", n-want+i, h.BoardMeans[i], h.QueueMeans[i])
		}
	}
	return nil
}

// save returns the watch's state after its n maps.
func (w *herdWatch) save() *HerdRunState {
	k := min(w.n, w.s.Average)
	h := &HerdRunState{Run: w.run, Rows: w.rows, Work: w.work, BoardMeans: make([]float64, k), QueueMeans: make([]float64, k)}
	for j := range k { // maps n − k + j
		s := w.hist[(w.n-k+j)%w.s.Average]
		h.BoardMeans[j], h.QueueMeans[j] = s.board, s.queue
	}
	return h
}

// restore sets the watch to the state h after n maps.
func (w *herdWatch) restore(n int, h *HerdRunState) {
	w.n, w.run, w.rows, w.work = n, h.Run, h.Rows, h.Work
	k := len(h.BoardMeans)
	for j := range k {
		w.hist[(n-k+j)%w.s.Average] = orbitStat{board: h.BoardMeans[j], queue: h.QueueMeans[j]}
	}
}

// nonNegative reports whether x is finite and at least 0.
func nonNegative(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
