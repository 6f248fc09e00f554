package meanfield

import "herd/fleet"

// StartBoard returns the board of the fleet start state st whose queue
// length is q (package doc, §2, start states): balanced, every server at
// q (BoardBalanced); half, half the servers at q (BoardHalf); spread,
// queue lengths spread evenly over 0 … q (BoardSpread); empty and single,
// the empty board (one server is nothing as N → ∞). It is the one place
// a start state becomes a board: StartBoardAt, HerdStartBoard and herd's
// commands all come here, while sim lays the same state down on N servers.
func StartBoard(st fleet.Start, q int) []float64 {
	switch st.Kind {
	case fleet.StartBalanced:
		return BoardBalanced(q)
	case fleet.StartHalf:
		return BoardHalf(q)
	case fleet.StartSpread:
		return BoardSpread(q)
	}
	return BoardEmpty()
}

// StartBoardAt returns StartBoard at refresh period T, the queue length
// st.Resolved(T) (a multiple of T resolved and rounded); the caller
// bounds it (compare.ModelMaxStart).
func StartBoardAt(st fleet.Start, T float64) []float64 {
	return StartBoard(st, int(st.Resolved(T)))
}
