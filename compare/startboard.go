package compare

import (
	"math"

	"herd/meanfield"
	"herd/sim"
)

// StartBoard is the refresh map's start board (meanfield's boards) for a
// simulator start state whose queue length is q: balanced, every queue at
// q; half, half the queues at q; spread, queue lengths spread evenly over
// 0 … q; empty and single, the empty board (one server is nothing as
// N → ∞). The simulator's grammar of start states is sim.ParseStart's;
// this is its model side, so that sim stays independent of meanfield.
func StartBoard(st sim.Start, q int) []float64 {
	switch st.Kind {
	case sim.StartBalanced:
		return meanfield.BoardBalanced(q)
	case sim.StartHalf:
		return meanfield.BoardHalf(q)
	case sim.StartSpread:
		return meanfield.BoardSpread(q)
	}
	return meanfield.BoardEmpty()
}

// ModelBoard is StartBoard at refresh period T, a queue length given as a
// multiple of T resolved and rounded (herd hysteresis, the figures).
func ModelBoard(st sim.Start, T float64) []float64 {
	return StartBoard(st, int(math.Round(st.Resolved(T))))
}
