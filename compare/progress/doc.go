// Package progress reports long computations on a terminal or in a log:
// what is done, the time elapsed and an estimate of the time left.
//
//   - Line: one line rewritten in place, only on a terminal, over a batch
//     of items (runs, model points) that may differ in cost;
//   - Items: a line per finished item (edges) and a heartbeat while items
//     run, for terminals and logs (a Slurm job's output);
//   - Stages: one line over several jobs at work at once (herd figures'
//     figures), each at a named stage, with an estimate for the whole run
//     (the cost left over the rate of the pool the jobs share); a Tally
//     takes one job through its stages, adding up the cost done;
//   - Paced: a Line and the heartbeat of Items over items that report as
//     they go (maps of the refresh map), each item's note read from its
//     last report and the pace of its reports.
//
// In a log a heartbeat is a head line (the count, the time elapsed, the
// estimate) and then one line per item at work, each never cut, so that
// no line grows with the number of workers.
//
// Every estimate scales the time elapsed by the cost left over the cost
// done, L = E·(cost left)/(cost done): by default every item costs the
// same; given costs (a simulator run's expected number of jobs), an
// estimate over items that differ a thousandfold is not misled by counts.
// A search whose total grows as it goes (a bracket's runs) gets no
// estimate, rather than one that says "0s left" each time the known work
// is done.
//
// All reporters are safe for concurrent use, and write nothing when they
// have nowhere to write (not a terminal, mode never). Whether w is a
// terminal is the caller's to say: the package touches no file itself.
package progress
