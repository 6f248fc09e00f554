// Package meanfield implements infinite-server (mean-field) models of load
// balancing and the classical closed forms they are checked against.
//
// # Units and conventions
//
// Time is measured in mean service times: every server serves at rate 1 and
// job sizes have mean 1. λ is the per-server load, the arrival rate per
// server, with 0 < λ < 1; k is the number of dispatchers, d the number of
// servers sampled per job, and T the board refresh period. Mean times in
// system include service, so every policy has a mean time of at least 1.
// Functions return an error, never panic, on a parameter outside its range
// (load outside (0, 1), d < 1, n < 1, C < 1, α ≤ 1, …); the message is
// lowercase, starts with "meanfield: " and names the parameter and its
// allowed range. Numerical failure returns an error wrapping
// ErrNotConverged. The solvers return their answer in the shape of
// gonum's optimize.Result: the answer, a Stats of the work done (map
// applications, probes, continuation steps, wall time) and a Status
// (FixedPoint, Periodic, Aperiodic, Found, NotFound, or Unconverged, whose
// Err is ErrNotConverged), with residuals and truncation mass where they
// apply. They take one settings struct each (ClassicSettings, EdgeSettings,
// TipSettings, …), whose zero fields mean their defaults. The search
// algorithms (branch following, border-collision location, bisection)
// are fixedpoint's: Follow, BorderEstimate, Refine, BisectInt,
// BisectGeometric.
//
// # Models
//
// The state of the infinite-server models is a distribution over queue
// lengths: the tail fractions s_i (the share of servers holding at least i
// jobs, s_0 = 1) for the supermarket model, and the board distribution p_b
// (the share of servers whose board reads b, F(v) = Σ_{b≤v} p_b) for the
// models with a stale board.
//
//   - The refresh map (Refresh, RefreshMap): k dispatchers, each running
//     least loaded with its own tally on a board refreshed every T. One
//     period maps p_b to the queue-length distribution at the next refresh;
//     its fixed points are the balanced states and its other attractors the
//     herds. It is written out in full in the next section.
//   - The supermarket model SQ(d) with live information: the fixed point
//     s_i = λ^((d^i−1)/(d−1)) of ds_i/dt = λ(s_{i−1}^d − s_i^d) − (s_i − s_{i+1})
//     (Vvedenskaya, Dobrushin & Karpelevich 1996; Mitzenmacher 2001), mean
//     time in system Σ_{i≥1} s_i/λ (SupermarketTails, SupermarketResponse).
//   - Periodic-update models with one dispatcher and no tally (Mitzenmacher
//     2000): during a period the board is fixed, so a server with board b
//     receives Poisson arrivals at rate λ·a_b/p_b, with a_b the probability
//     that the policy (SQ(d) or least loaded) picks a server of board b; the
//     period map is the transient of these birth–death chains.
//   - Random dispatching: each server is an M/M/1 queue, mean time
//     1/(1 − λ) (MM1Response), or with general sizes an M/G/1 queue, mean
//     time by Pollaczek–Khinchine (PKResponse, with the second moments of
//     the simulator's size families from SecondMomentH2 and
//     SecondMomentPareto).
//   - Round robin over n servers fed by one Poisson stream: each server
//     sees every n-th arrival, Erlang-n interarrival times, so it is an
//     E_n/M/1 queue (ErlangM1); n → ∞ gives D/M/1 (DM1). Both are GI/M/1
//     queues solved by GIM1 from σ = A*(1 − σ). SupermarketRoundRobinCrossing
//     finds the load (about 0.52 for d = 2) above which live best of d
//     beats round robin.
//   - The supermarket transient (SupermarketTransient, SupermarketDrift:
//     Dormand–Prince RK5(4) on the tails, cut adaptively) and the
//     periodic-update map (PeriodicUpdate, PeriodicMap: exact class
//     transients by uniformisation, cycles detected and averaged over);
//     ClassicModel gives the CLI's model answer for random, rr, sqd:D and
//     ll, live or with a refresh period.
//
// # The refresh map
//
// The finite system it describes: N servers, each a FCFS queue served at
// rate 1 with exponential job sizes of mean 1; Poisson arrivals at total
// rate λN, each job handed to one of k dispatchers uniformly at random; a
// board that records every server's queue length (jobs present, including
// the one in service) at the refresh instants 0, T, 2T, … and does not
// change in between. Every dispatcher sends each job to a server whose
// board value plus its own tally is smallest (ties uniformly at random);
// its tally counts the jobs it has itself sent to each server since the
// last refresh and is reset to zero at every refresh. RefreshMap is the
// limit N → ∞ of this system, one period at a time.
//
// State. The board distribution p = (p_0, p_1, …), p_b the share of servers
// whose board reads b, and its distribution function F(v) = Σ_{b≤v} p_b
// (F(v) = 1 for v beyond the largest occupied b). At a refresh the board is
// exact: a server with board b holds b jobs.
//
// Windows. A dispatcher with its own tally fills the board like water: it
// sends one job to each server at the lowest effective value v (in random
// order) before any server reaches v + 1. Such a pass over every server
// with board ≤ v needs N·F(v) of its jobs; jobs reach one dispatcher at
// rate λN/k, so the pass lasts
//
//	W_v = k·F(v)/λ,
//
// the same for all k dispatchers, which therefore move in lock-step. The
// windows are
//
//	τ_0 = 0,   τ_{v+1} = τ_v + W_v   (v = 0, 1, 2, …),
//
// with W_v = 0 where F(v) = 0 and W_v = k/λ once v is past the top of the
// board. Windows are used in order until the period ends at T; the window
// v with τ_v ≤ T < τ_{v+1} is the cut window (RefreshResult.Window) and
// φ = (T − τ_v)/W_v its cut phase. Past the top of the board
// τ_v = (k/λ)(v − Σ_b b·p_b), so the cut phase is fixed by the board mean.
//
// Arrivals in window v. Every server with board ≤ v receives exactly k jobs
// during the window, one from each dispatcher, at k independent times
// uniform on the whole window [τ_v, τ_v + W_v); a time that falls after T
// does not happen, because the refresh comes first and resets the tallies.
// Servers with board > v receive nothing in window v: until τ_b a server
// of board b only drains (a pure-death process at rate 1), so at τ_b it
// holds b − d jobs with probability Pois(τ_b; d) for d < b and 0 jobs with
// the remaining probability. The arrivals are not Poisson at rate λ/F(v):
// conditioning on exactly k jobs per window is what makes one dispatcher
// with a very stale board approach round robin rather than M/M/1.
//
// The map. p ↦ p', the distribution of queue lengths at time T. It is
// continuous in p and T but only piecewise smooth: its derivative jumps
// where a window boundary τ_v crosses T (RefreshResult.KinkDistance is the
// distance to the nearest one).
//
// Observables. The board mean Σ_b b·p_b; the time-averaged mean queue over
// the period, (1/T)∫₀ᵀ E[q(t)] dt (RefreshResult.QueueMean); and by Little's
// law the mean time in system, QueueMean/λ. For a periodic or irregular
// attractor the reported means are averages over its refreshes.
//
// How the map is computed (aggregating the servers already reached by the
// water, uniformisation of the chain on (queue, arrivals so far in the
// window), Gauss–Legendre for the queue mean) and its truncation are
// documented on Refresh.
//
// # Attractors, balanced states and herds
//
// FindAttractor iterates the map from a start board until the board repeats
// itself after P maps (‖p_n − p_{n−P}‖₁ ≤ Tol, P ≤ MaxPeriod): a fixed
// point (P = 1) or a periodic orbit. A herd stores a backlog that grows
// with T, while a working (balanced) state keeps a queue that does not,
// whatever T. A fixed point is balanced unless its board mean is a herd's,
// which takes two things:
//
//   - a load λ > ½ and a board mean of at least ½(λ − ½)·T. In a herd the
//     water of the dispatchers, reading a stale board, floods the share f
//     of servers that read low at rate λ/f; it falls (λ/f − 1)·T behind
//     in a period, reads high at the next refresh, and the rest, a share
//     of at least 1 − f, is flooded in turn. Both shares are overloaded
//     only if λ > ½: at λ ≤ ½ there is no herd. The period-2 herd floods
//     half the servers and has board mean (λ − ½)·T; the map's herds have
//     0.2–0.26·T at λ = 0.7, 0.3–1.2·T at 0.8 and 0.4–3.2·T at 0.9, so
//     half of (λ − ½)·T leaves a factor 2;
//   - a board mean above the working-state scale BalancedQueueScale/(1 − λ)
//     = 1.2/(1 − λ) (widened by Service.QueueScale for other job sizes):
//     a working state keeps a queue of order 1/(1 − λ), and at short
//     periods that can exceed ½(λ − ½)·T.
//
// Each alone misclassifies: the working-state scale, measured at high
// load, takes for herds the working states of many dispatchers at light
// load (k = 32, λ = 0.5, T = 54: a fixed point with board mean 2.77 > 2.4
// whose mean falls as T grows, 1.18 at T = 108); there, at T ≈ k/λ, a
// server that reads empty receives k jobs in about k/λ·F(0) ≈ k mean
// service times, a critically loaded queue that grows only as √k (board
// means ≈ 0.52·√k at λ = ½, k = 8…256). The backlog alone takes the
// working states of short periods for herds. TestHerdRuleGrid checks the
// rule on λ = 0.1…0.99 × k = 3…64 against the definition itself: the
// attractor's board mean followed from T to T/2 (a herd's halves, a
// working state's does not). Several stable balanced fixed points, each
// with T in a different window, and a herd can coexist at one T, so a
// start state is classified by the attractor it ends in.
//
// # The edge
//
// The edge of the balanced state for given (k, λ) is the lowest refresh
// period T_edge at which the map, iterated from a low board — the empty
// board, then all servers at 1, then all at 3, stopping at the first that
// succeeds — converges to a balanced fixed point (Edge, EdgeResult.Refresh).
// It is reported both as T_edge and scaled as T_edge·(1 − λ)²
// (EdgeResult.Scaled), to relative precision RelTol in T. Only T down to
// T(1 − λ)² = MinScaled (0.02) is searched; where a balanced state
// persists that far (k = 2, and k = 3 at λ = 0.8) there is no edge.
// Beside it Edge reports the edge of the branch followed down from
// T(1 − λ)² = 8 by continuation (BranchScaled; it lies at or slightly
// above the protocol edge), how the balanced branch on which the edge lies
// is lost (Crossing, judged at the branch's lowest point, at or a little
// below the protocol edge), the spectral radius of the stable node there,
// the leading eigenvalue of its unstable partner, and the herd reached
// just below the edge.
//
// The balanced state does not lose stability through an eigenvalue
// reaching ±1. It is lost in a border collision: a stable node, with T just
// before the end of its window, meets an unstable saddle, with T just after
// it, at the window boundary and both disappear; below the edge there is
// no balanced fixed point and the iteration runs into the herd. Edge
// checks this rather than assuming it: a loss through an eigenvalue −1 or
// +1 would be reported as CrossingFlip or CrossingFold. The scaled edge is
// compared with the empirical law T_edge(1 − λ)² ≈ 0.9(k − 2) by herd edge.
//
// # Truncation
//
// Infinite state spaces are cut where the neglected probability is below a
// stated tolerance, and the cut is reported: the supermarket tails stop at
// the first level with s_i < 10⁻¹⁶ (SupermarketCutoff), beyond which the
// doubly exponential decay leaves less than 2·10⁻³² for d ≥ 2; the refresh
// map keeps queue rows adaptively and reports the mass it drops (see
// Refresh). The GI/M/1 root is found to machine precision in 1 − σ, with an
// estimate of its rounding error (GIM1Result.RelativeError).
//
// # References
//
// Comments in this package cite "model.md §n" and "validation.md": the
// project's specification of the models and its table of published
// figures. This package documentation states the models in full; the
// published figures and the disputes about them are in package compare
// and printed by herd validate.
//
//   - N. D. Vvedenskaya, R. L. Dobrushin, F. I. Karpelevich, Queueing system
//     with selection of the shortest of two queues: an asymptotic approach,
//     Problems of Information Transmission 32(1):15–27, 1996.
//   - M. Mitzenmacher, The power of two choices in randomized load
//     balancing, IEEE Transactions on Parallel and Distributed Systems
//     12(10):1094–1104, 2001.
//   - M. Mitzenmacher, How useful is old information?, IEEE Transactions on
//     Parallel and Distributed Systems 11(1):6–20, 2000.
//   - L. Kleinrock, Queueing Systems, Volume 1: Theory, Wiley, 1975
//     (M/M/1 §3.2; M/G/1 and the Pollaczek–Khinchine mean-value formula,
//     Ch. 5; GI/M/1 §6.4).
//   - R. P. Brent, Algorithms for Minimization without Derivatives,
//     Prentice-Hall, 1973, Ch. 4 (the bracketed root finder used by GIM1).
package meanfield
