// Package sweep splits a list of independent runs over shards and puts
// their results back together: the sharding contract of herd's sweeps
// (herd sim, herd point, herd model, herd bracket --grid), usable by any
// program whose work is a numbered list of runs.
//
// A sweep numbers its runs 0, 1, …, n−1 in the order the unsharded
// program does them and gives each an identity (a string naming what the
// run is). Shard I of N does only the runs whose index i ≡ I (mod N) and
// writes their raw results to DIR/part-I-of-N.json (atomically: a
// temporary file and a rename). Each run's seed must depend only on the
// master seed and the run's identity, so the runs are the same whichever
// shard does them. ReadParts reads a directory of parts back, checking
// that they are one whole sweep; Merge collects their runs, and Run with
// Sweep.Merged set decodes them in place of doing them, so the merged
// output is the unsharded one, byte for byte.
//
// Round robin (i mod N) rather than a split by estimated cost: a sweep's
// rows are consecutive runs (a row's replications, a bracket's runs at
// one T), so i mod N gives every shard one run of each costly row, and
// which shard holds run i is known without knowing the costs.
//
// A shard stopped part way (its context cancelled) writes a partial part
// holding the runs that finished; a rerun of the shard does only the rest.
// A run's result type must round-trip through encoding/json (Float keeps
// NaN and ±Inf); if it has a method Check() error, results read back from
// parts are checked with it, so a corrupt part is an error, never output.
//
// WriteSlurmScript writes an sbatch script that runs a sweep as a Slurm
// job array, one shard per array task; a shard started without its index
// reads it from the environment (IndexFromEnv).
//
// A Checkpointer keeps one file holding a sweep's finished results and
// its running points' saved states (herd point --checkpoint), so that a
// sweep stopped part way resumes where it stopped on one machine.
package sweep
