package meanfield

import (
	"errors"
	"fmt"
	"time"
)

// EdgeConfirmation is the check of an edge by plain iteration (ConfirmEdge).
type EdgeConfirmation struct {
	// Above and Below are the periods checked, T_edge(1 ± Rel).
	Above, Below float64
	// AboveStart is the index in the low boards (0 empty, 1 all at 1, 2 all
	// at 3) of the first that reaches a balanced fixed point at Above, or −1
	// when none does.
	AboveStart int
	// BelowBalanced is the number of low boards that reach a balanced fixed
	// point at Below (0 confirms the edge).
	BelowBalanced int
	// BelowKinds are the attractors the low boards end in at Below.
	BelowKinds []HerdAttractor
	// Stats.Maps counts the refresh-map applications.
	Stats
}

// DefaultConfirmRel is ConfirmSettings.Rel's default.
const DefaultConfirmRel = 1e-4

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
	// MaxIter bounds the maps of each attractor. Zero means 2000.
	MaxIter int
	// Service is the job-size law (zero value: exponential).
	Service Service
	// Stop, when not nil, is polled before every map; once it returns
	// true, ConfirmEdge returns an error wrapping ErrStopped.
	Stop func() bool `json:"-"`
}

// Confirmed reports whether the edge is confirmed: a low board reaches a
// balanced state just above it and none just below.
func (c EdgeConfirmation) Confirmed() bool { return c.AboveStart >= 0 && c.BelowBalanced == 0 }

// ConfirmEdge checks an edge T_edge (as a period) for k dispatchers at
// load λ by plain iteration, independent of Edge's search and its early
// exits: at T_edge(1 + Rel) it iterates the low boards of the package doc, §5
// (empty, all at 1, all at 3), in turn until one ends in a balanced fixed
// point, and at T_edge(1 − Rel) it iterates all three to their attractors
// (FindHerdAttractor: a fixed point, a period-P orbit, or an aperiodic
// herd after 32 consecutive maps in the herd regime, board mean above
// BalancedQueueScale/(1−λ) at λ > ½, where Edge's own probes stop after 2 rising
// maps; at most MaxIter maps each), with job sizes Service (the low
// boards are lifted with fresh phases).
func ConfirmEdge(s ConfirmSettings) (EdgeConfirmation, error) {
	start := time.Now()
	rel := s.Rel
	if rel == 0 {
		rel = DefaultConfirmRel
	}
	c, err := confirmEdge(s.Dispatchers, s.Load, s.Edge, rel, s.MaxIter, s.Service, s.Stop)
	c.Runtime = time.Since(start)
	return c, err
}

func confirmEdge(k int, load, edge, rel float64, maxIter int, svc Service, stop func() bool) (EdgeConfirmation, error) {
	if !(rel > 0 && rel < 0.1) {
		return EdgeConfirmation{}, fmt.Errorf("meanfield: ConfirmSettings.Rel = %v outside (0, 0.1)", rel)
	}
	if maxIter <= 0 {
		maxIter = 2000
	}
	c := EdgeConfirmation{Above: edge * (1 + rel), Below: edge * (1 - rel), AboveStart: -1}
	hs := HerdSettings{
		AttractorSettings: AttractorSettings{MaxIter: maxIter, Tol: edgeFPTol, MaxPeriod: DefaultAttractorMaxPeriod},
		Settle:            16, Average: 16}.withDefaults()
	for _, side := range []float64{c.Above, c.Below} {
		m, err := NewRefreshMap(Refresh{Dispatchers: k, Load: load, Period: side, Service: svc})
		if err != nil {
			return c, err
		}
		m.stop = stop
		for i, start := range lowBoards() {
			a, err := findHerdAttractor(m, svc.Lift(start), hs)
			c.Maps += a.Maps
			if err != nil && !errors.Is(err, ErrNotConverged) {
				return c, err
			}
			if side == c.Above {
				if a.Balanced {
					c.AboveStart = i
					break
				}
				continue
			}
			c.BelowKinds = append(c.BelowKinds, a)
			if a.Balanced {
				c.BelowBalanced++
			}
		}
	}
	return c, nil
}
