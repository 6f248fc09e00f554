package meanfield

import (
	"fmt"
	"time"
)

// Every solver of this package returns its answer in the shape of gonum's
// optimize.Result: the answer itself (the Location: a board, a period, a
// response), a Stats of the work it took, and a Status saying how it
// ended, whose Err is nil unless the solver ran out of its budget.

// Status says how a solver ended: the kind of attractor reached
// (FixedPoint, Periodic, Aperiodic), whether a search found what it looked
// for (Found, NotFound), or that its budget ran out first (Unconverged).
type Status int

const (
	// Unconverged: the budget (MaxIter maps) ran out before a fixed point,
	// a periodic orbit or a search's answer was established.
	Unconverged Status = iota
	// FixedPoint: ‖p_{n+1} − p_n‖₁ ≤ Tol (for a closed form: a stationary
	// state).
	FixedPoint
	// Periodic: ‖p_{n+1} − p_{n+1−P}‖₁ ≤ Tol for a period 2 ≤ P ≤ MaxPeriod.
	Periodic
	// Aperiodic: the orbit neither settled on a fixed point nor on a
	// period ≤ MaxPeriod, and its observables are long-run averages over a
	// window of maps (HerdAttractor, and the least-loaded periodic-update
	// map at long periods). FindAttractor never returns it.
	Aperiodic
	// Found: a search located its answer (Edge: an edge; Bistable: a herd
	// at the seed; MinTipBacklog: a tipping backlog).
	Found
	// NotFound: a search ended within its range without its answer (Edge:
	// a balanced state persists down to MinScaled; Bistable: no herd at
	// the seed).
	NotFound
)

var statusNames = [...]string{"unconverged", "fixed", "periodic", "aperiodic", "found", "not found"}

// String returns "unconverged", "fixed", "periodic", "aperiodic", "found"
// or "not found".
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Err returns ErrNotConverged for Unconverged and nil for every other
// status (as gonum's optimize.Status.Err does for its failures).
func (s Status) Err() error {
	if s == Unconverged {
		return ErrNotConverged
	}
	return nil
}

// Stats is the work a solver did.
type Stats struct {
	// Maps counts applications of the model's map (for the closed forms
	// solved by root finding: evaluations of the function whose root they
	// seek), spectra included.
	Maps int
	// Probes counts the verdicts a search evaluated from cold starts (an
	// attractor iterated from a start board: Edge's protocol evaluations,
	// MinTipBacklog's backlogs, Bistable's herd points).
	Probes int
	// Steps counts warm continuation steps (Edge's descent) and bisection
	// steps (SupermarketRoundRobinCrossing).
	Steps int
	// Runtime is the wall time the solver took; it is the only
	// nondeterministic field of a result and is never printed.
	Runtime time.Duration
}
