// Package sim is herd's finite discrete-event simulator of load balancing
// on a stale board: an independent witness of the mean-field
// models, which it never imports.
//
// The system. N identical FCFS servers, each serving at rate 1 (job sizes
// have mean 1: exponential, det, hyperexponential h2:C with balanced
// means, Erlang-K, or Pareto with shape A); Poisson arrivals at total rate λN, each
// handed to one of k dispatchers uniformly at random. At refresh instants
// 0, T, 2T, … the board records every server's queue length (jobs in
// system); between refreshes it does not change; T = 0 is a live board.
// Every dispatcher runs the same rule (random, round robin, least loaded,
// best of D, Left[D], FirstDiff[D], the least-work oracle), optionally
// corrected by a tally of sends since the refresh (own, shared, or own
// counted k times), optionally within its own block of servers. Time is in
// mean service times.
//
// The method. With FCFS and sizes drawn at arrival, a job's departure is
// known when it arrives — Lindley's recursion, d = max(a, last departure
// at that server) + size — so there is no global event queue: one arrival
// stream drives everything. Queue lengths are needed only where a rule
// reads them: live least loaded keeps them exactly (bucket lists by queue
// length and a departure heap); the live probing rules keep each server's
// departure times in a ring; every other rule needs them only at board
// records and logs just the jobs still present at the next record. Least
// loaded with a tally is a water level (water.go): O(1) per job, each pass
// over a level in random order. Random numbers come from xoshiro256++
// with a ziggurat exponential (rng.go).
//
// Outputs. A run (Run) reports the mean time in system of jobs arriving
// after the warm-up, the mean board value at refreshes (on a live board, a
// sample every SampleEvery), probes per job, and optionally every board
// record (KeepTrace) or a callback at each (Observe: compare's tipping
// detector stops runs with it). Replications (Replicate, RunAll) run in
// parallel, each seed derived from one master seed and the run's identity
// (Seed), with results stored by index: the output never depends on the
// number of workers. Summaries carry standard errors across replications.
// Balls into bins (balls.go) reuses the probing rules on bin loads.
//
// References:
//   - D. V. Lindley, "The theory of queues with a single server", Proc.
//     Cambridge Philos. Soc. 48(2), 1952 (the recursion).
//   - M. Mitzenmacher, "How useful is old information?", IEEE TPDS 11(1),
//     2000 (stale boards, periodic updates).
//   - B. Vöcking, "How asymmetry helps load balancing", J. ACM 50(4), 2003
//     (Left[d]).
//   - J. Augustine, W. K. Moses Jr., A. Redlich and E. Upfal, "Balanced
//     allocation: patience is not a virtue", SODA 2016 (FirstDiff[d]).
//   - D. Blackman and S. Vigna, "Scrambled linear pseudorandom number
//     generators", ACM TOMS 47(4), 2021; G. Marsaglia and W. W. Tsang, "The
//     ziggurat method for generating random variables", J. Stat. Software
//     5(8), 2000.
package sim
