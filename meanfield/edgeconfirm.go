package meanfield

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"herd/internal/pool"
)

// EdgeConfirmation is the check of an edge by plain iteration (ConfirmEdge).
type EdgeConfirmation struct {
	// Above and Below are the periods checked, T_edge(1 ± Rel).
	Above, Below float64
	// AboveStart is the index in the low boards (0 empty, 1 all at 1, 2 all
	// at 3) of the first that reaches a balanced fixed point at Above, or −1
	// when none does within MaxIter maps.
	AboveStart int
	// BelowBalanced is the number of low boards that reach a balanced fixed
	// point at Below, and BelowUndecided the number whose runs end after
	// MaxIter maps unclassified (neither a fixed point, an orbit nor an
	// aperiodic herd); the edge is confirmed only when both are 0.
	BelowBalanced, BelowUndecided int
	// BelowKinds are the attractors the low boards end in at Below. The
	// runs map boards only (the same boards as full maps, to the bit), so
	// their QueueMean and Response are NaN.
	BelowKinds []HerdAttractor
	// Stats.Maps counts the refresh-map applications.
	Stats
}

// confirmMaxRows bounds the queue rows of the check's maps, above
// DefaultRefreshMaxRows (2²²): the herds below the edge grow with T, and
// at k = 16, λ = 0.995 (T ≈ 440,000) all three runs below needed more than
// 2²² rows at their 20th map in the herd regime, which ended the check
// with an error. 2²⁴ rows are 128 MiB a vector.
const confirmMaxRows = 1 << 24

// DefaultConfirmRel and DefaultConfirmMaxIter are ConfirmSettings.Rel's
// and MaxIter's defaults.
const (
	DefaultConfirmRel     = 1e-4
	DefaultConfirmMaxIter = 2000
)

// ConfirmSettings controls ConfirmEdge. The zero value of each optional
// field means its default.
type ConfirmSettings struct {
	// Dispatchers is k and Load is λ, as in EdgeSettings.
	Dispatchers int
	Load        float64
	// Edge is the edge T_edge to check, as a period.
	Edge float64
	// Rel is the relative distance of the periods checked, in (0, 0.1).
	// Zero means 1e-4.
	Rel float64
	// MaxIter bounds the maps of each attractor. Zero means 2000
	// (DefaultConfirmMaxIter).
	MaxIter int
	// Service is the job-size law (zero value: exponential).
	Service Service
	// Workers is the number of runs made at once, in [0, 64]; zero means
	// 1. The confirmation, Maps included, does not depend on it.
	Workers int
	// Stop, when not nil, is polled after every map; once it returns
	// true, ConfirmEdge returns an error wrapping ErrStopped.
	Stop func() bool `json:"-"`
	// Mapped, when not nil, is called after every map of run run (0 the
	// empty board above, 1–3 the low boards below, in lowBoards' order, 4
	// and 5 the others above) with the map's report (MapReport: the run's
	// maps, and its maps in a row in the herd regime against the number
	// that classify it), from the goroutine making it (several at once
	// with Workers > 1): a heartbeat's live count.
	Mapped func(run int, r MapReport) `json:"-"`
	// Journal, when not nil, keeps the runs' outcomes and the state of the
	// runs in progress (saved every Journal.Every and when Stop ends
	// them), and supplies those it holds: a confirmation stopped part way
	// and made again with its journal continues where it stopped, with the
	// uninterrupted result, Maps included. It may be the journal of the
	// edge's search (EdgeSettings.Journal). Like Stop, Mapped and Workers,
	// it is not a setting of the computation.
	Journal *EdgeJournal `json:"-"`
}

// Confirmed reports whether the edge is confirmed: a low board reaches a
// balanced state just above it, and each low board just below it ends in
// an attractor that is not balanced.
func (c EdgeConfirmation) Confirmed() bool {
	return c.AboveStart >= 0 && c.BelowBalanced == 0 && c.BelowUndecided == 0
}

// ConfirmEdge checks an edge T_edge (as a period) for k dispatchers at
// load λ by plain iteration, independent of Edge's search and its early
// exits: at T_edge(1 + Rel) it iterates the low boards of the package doc, §5
// (empty, all at 1, all at 3), in turn until one ends in a balanced fixed
// point, and at T_edge(1 − Rel) it iterates all three to their attractors
// (FindHerdAttractor: a fixed point, a period-P orbit, or an aperiodic
// herd after 32 consecutive maps in the herd regime, board mean above
// BalancedQueueScale/(1−λ) at λ > ½, where Edge's own probes stop after 2 rising
// maps; at most MaxIter maps each), with job sizes Service (the low
// boards are lifted with fresh phases). The empty board's run above and
// the three below are made at once (Workers); the other runs above only
// when the empty board's does not reach a balanced state. The check's
// maps allow 2²⁴ queue rows, not DefaultRefreshMaxRows; a run that needs
// more ends it with an error wrapping ErrRefreshRows.
func ConfirmEdge(s ConfirmSettings) (EdgeConfirmation, error) {
	start := time.Now()
	c, err := confirmEdge(s)
	c.Runtime = time.Since(start)
	return c, err
}

// confirmOut is one run of a confirmation.
type confirmOut struct {
	a   HerdAttractor
	err error
}

func confirmEdge(s ConfirmSettings) (EdgeConfirmation, error) {
	rel, maxIter := s.Rel, s.MaxIter
	if rel == 0 {
		rel = DefaultConfirmRel
	}
	if !(rel > 0 && rel < 0.1) {
		return EdgeConfirmation{}, fmt.Errorf("meanfield: ConfirmSettings.Rel = %v outside (0, 0.1)", rel)
	}
	if s.Workers < 0 || s.Workers > maxEdgeWorkers {
		return EdgeConfirmation{}, fmt.Errorf("meanfield: ConfirmSettings.Workers = %d outside [0, %d] (0 means 1)", s.Workers, maxEdgeWorkers)
	}
	if maxIter <= 0 {
		maxIter = DefaultConfirmMaxIter
	}
	c := EdgeConfirmation{Above: s.Edge * (1 + rel), Below: s.Edge * (1 - rel), AboveStart: -1}
	hs := HerdSettings{
		AttractorSettings: AttractorSettings{MaxIter: maxIter, Tol: edgeFPTol, MaxPeriod: DefaultAttractorMaxPeriod},
		Settle:            16, Average: 16}.withDefaults()
	lows := lowBoards()
	if stop := s.Stop; stop != nil {
		// Once Stop has reported true, no run starts or goes on.
		var stopped atomic.Bool
		s.Stop = func() bool {
			if !stopped.Load() && stop() {
				stopped.Store(true)
			}
			return stopped.Load()
		}
	}
	// run is run number id (Mapped) at T from low board low.
	run := func(id int, T float64, low int) confirmOut {
		if s.Stop != nil && s.Stop() {
			return confirmOut{err: fmt.Errorf("meanfield: confirmation: %w", ErrStopped)}
		}
		hs := hs
		if s.Mapped != nil {
			hs.Mapped = func(r MapReport) { s.Mapped(id, r) }
		}
		a, err := confirmRun(s, T, s.Service.Lift(lows[low]), hs)
		return confirmOut{a, err}
	}
	// The empty board above and the three below, at once; their maps are
	// counted whatever the outcome, so Maps does not depend on Workers.
	first, _ := pool.Parallel(context.Background(), 1+len(lows), s.Workers, func(i int) (confirmOut, bool) {
		if i == 0 {
			return run(0, c.Above, 0), true
		}
		return run(i, c.Below, i-1), true
	}, nil)
	above := []confirmOut{first[0]}
	for i := 1; i < len(lows) && !anyFailed(first) && !anyFailed(above) && !above[i-1].a.Balanced; i++ {
		above = append(above, run(len(lows)+i, c.Above, i))
	}
	all := append(slices.Clone(above), first[1:]...)
	for _, o := range all {
		c.Maps += o.a.Maps
	}
	for _, o := range all {
		if o.err != nil && !errors.Is(o.err, ErrNotConverged) {
			return c, o.err
		}
	}
	for i, o := range above {
		if o.a.Balanced {
			c.AboveStart = i
			break
		}
	}
	for _, o := range first[1:] {
		c.BelowKinds = append(c.BelowKinds, o.a)
		switch {
		case o.a.Balanced:
			c.BelowBalanced++
		case o.err != nil:
			c.BelowUndecided++
		}
	}
	return c, nil
}

// anyFailed reports whether a run of outs ended in an error other than
// ErrNotConverged.
func anyFailed(outs []confirmOut) bool {
	for _, o := range outs {
		if o.err != nil && !errors.Is(o.err, ErrNotConverged) {
			return true
		}
	}
	return false
}

// confirmMap is the map of a confirmation's runs at period T: board-only
// maps with the search's shortcuts (RefreshMap.boardOnly; the verdicts
// need the boards alone, at a fourth of the cost of a herd's full map),
// with up to confirmMaxRows rows.
func confirmMap(s ConfirmSettings, T float64) (*RefreshMap, error) {
	m, err := NewRefreshMap(Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: T, Service: s.Service, MaxRows: confirmMaxRows})
	if err != nil {
		return nil, err
	}
	m.boardOnly = true
	return m, nil
}

// confirmRun is one run of a confirmation: findHerdAttractor at period T
// from board, through s.Journal (EdgeJournal.findHerd).
func confirmRun(s ConfirmSettings, T float64, board []float64, hs HerdSettings) (HerdAttractor, error) {
	m, err := confirmMap(s, T)
	if err != nil {
		return HerdAttractor{}, err
	}
	hs.Stop = s.Stop
	key := journalKey("confirm", board, T, float64(hs.MaxIter), hs.Tol, float64(hs.Settle), float64(hs.Average))
	return s.Journal.findHerd(key, m, board, hs)
}
