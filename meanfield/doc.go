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
// ErrNotConverged. Results of iterative methods carry iteration counts,
// residuals and truncation mass beside the answer.
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
//     herds (model.md §2).
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
