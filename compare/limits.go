package compare

// The refresh map's inputs that herd's model commands accept (herd point,
// herd hysteresis, herd edge, herd plan): meanfield's own bounds, and
// tighter ones where the map's answers stop meaning anything or its cost
// runs away.
const (
	// ModelMaxDispatchers is meanfield's own bound on k (Refresh.Validate).
	ModelMaxDispatchers = 256
	// ModelMinRefresh: below T = 0.01 the map contracts so slowly that it
	// does not settle in the default 5,000 maps, and rounding shows (at
	// T = 10⁻³ the unconverged board reports a mean time below one
	// service time; at T ≤ 10⁻¹² the board collapses to one row).
	ModelMinRefresh = 0.01
	// ModelMaxRefresh is meanfield's bound on T.
	ModelMaxRefresh = 1e6
	// ModelMinLoad: the map drops up to its truncation tolerance (10⁻¹²)
	// of mass per application, so the mean queue is exact to about
	// 10⁻¹²/λ relative; λ ≥ 10⁻⁶ keeps that below 10⁻⁶ (at λ = 10⁻¹¹ the
	// board mean comes out 0).
	ModelMinLoad = 1e-6
	// ModelMaxStart bounds the queue length of a start board (its rows):
	// each map application costs time in proportion to the rows, and a
	// queue drains at only 1 − λ per service time.
	ModelMaxStart = 10_000
)

// The periodic-update models' inputs (meanfield.PeriodicUpdate: SQ(D) and
// least loaded on a board refreshed every T, herd model and herd plan).
const (
	// PeriodicMaxRefresh is meanfield's bound on T. Below
	// ModelMinRefresh the map does not settle and rounding shows (at
	// T = 10⁻³ least loaded reports a mean time below one service time,
	// at T = 10⁻³⁰⁰ exactly 0, marked converged).
	PeriodicMaxRefresh = 1e4
	// PeriodicMaxD is meanfield's bound on D.
	PeriodicMaxD = 64
)
