package main

// The sharding contract (issue 7) on the command line; the contract
// itself (run numbering, part files, merging) is package sweep's. A
// command whose work is a list of independent runs (herd sim, herd point,
// herd model, herd bracket --grid) takes
//
//	--shards N --shard I --out DIR
//
// and runs only the runs whose index i ≡ I (mod N), writing their raw
// results to DIR/part-I-of-N.json and printing nothing on stdout. Without
// --shard, I comes from $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX
// (a Kubernetes indexed job); N never comes from the environment. herd
// merge DIR reads the parts back and prints what the unsharded command
// prints, byte for byte: the command is run again from the argument list
// recorded in the parts, with its runs taken from them instead of
// simulated.
//
// A command joins the contract in a few lines: addShardFlags on its flag
// set, a sweep with the identity of each run, runSweep with a function
// that does a subset of the runs (its result type R must round-trip
// through encoding/json; sweep.Float keeps NaN and ±Inf), and an entry in
// mergeCommands (merge.go).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"herd/compare/sweep"
)

// getenv and executable are the environment the contract reads; tests
// replace them.
var (
	getenv     = os.Getenv
	executable = os.Executable
)

// shardFlags are the contract's flags on one command.
type shardFlags struct {
	shards, shard *int
	out           *string
	script        *bool
	// outIsLog: --out has a meaning of its own without --shards (herd
	// bracket's run log).
	outIsLog bool
}

// addShardFlags adds --shards, --shard, --slurm-script and, if out is nil,
// --out (the part directory). herd bracket passes its own --out, which is
// the run log when the command is not sharded.
func addShardFlags(fs *pflag.FlagSet, out *string) *shardFlags {
	f := &shardFlags{outIsLog: out != nil}
	f.shards = fs.Int("shards", 0, "split the runs over N shards: run only those with index ≡ --shard (mod N) and write them to --out DIR for herd merge (0: not sharded)")
	f.shard = fs.Int("shard", -1, "this shard's index in [0, N) (default: $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX)")
	if out == nil {
		out = fs.String("out", "", "with --shards: the directory of the part files (one per shard)")
	}
	f.out = out
	f.script = fs.Bool("slurm-script", false, "print an sbatch script that runs this command as a job array of --shards tasks into --out DIR, and exit")
	return f
}

// noCanonical are the flags left out of a part's argument list: they say
// how and where the runs are done, not what they are.
var noCanonical = map[string]bool{"shards": true, "shard": true, "out": true, "slurm-script": true, "workers": true, "progress": true}

// canonicalArgs is the command's argument list without the sharding flags,
// --workers and --progress (none changes a result), one --name=value per
// flag set, in the flag set's order.
func canonicalArgs(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed && !noCanonical[f.Name] {
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	return out
}

// check validates the sharding flags (usage errors); it is called before
// any work. It does not resolve the shard index.
func (f *shardFlags) check(fs *pflag.FlagSet) error {
	sharded := fs.Changed("shards")
	switch {
	case sharded && (*f.shards < 1 || *f.shards > sweep.MaxRuns):
		return usagef("--shards %d: want an integer in [1, %d]", *f.shards, sweep.MaxRuns)
	case fs.Changed("shard") && !sharded:
		return usagef("--shard needs --shards N")
	case *f.script && !sharded:
		return usagef("--slurm-script needs --shards N (the array size) and --out DIR")
	case sharded && *f.out == "":
		return usagef("--shards needs --out DIR, the directory of the part files")
	case fs.Changed("out") && !sharded && !f.outIsLog:
		return usagef("--out needs --shards N (--out is the directory of the part files)")
	case fs.Changed("shard") && (*f.shard < 0 || *f.shard >= *f.shards):
		return usagef("--shard %d: want an integer in [0, %d)", *f.shard, *f.shards)
	}
	return nil
}

// plan returns the shard to run, or nil when the command is not sharded.
// The index comes from --shard, else from the environment
// (sweep.IndexFromEnv).
func (f *shardFlags) plan(fs *pflag.FlagSet) (*sweep.Shard, error) {
	if !fs.Changed("shards") {
		return nil, nil
	}
	p := &sweep.Shard{N: *f.shards, I: *f.shard, Dir: *f.out}
	if fs.Changed("shard") {
		return p, nil
	}
	i, ok, err := sweep.IndexFromEnv(p.N, getenv)
	switch {
	case err != nil:
		return nil, usagef("%v (--shards %d)", err, p.N)
	case ok:
		p.I = i
		return p, nil
	}
	return nil, usagef("--shards %d: give --shard I, or run as a Slurm array task ($SLURM_ARRAY_TASK_ID) or a Kubernetes indexed job ($JOB_COMPLETION_INDEX)", p.N)
}

// sweepCmd is what the contract needs of a command's plan.
type sweepCmd struct {
	e       *env
	command string
	fs      *pflag.FlagSet
	flags   *shardFlags
	ids     []string      // the identity of each run, in order
	merged  *sweep.Merged // set when herd merge supplies the runs
}

// runSweep does a command's runs through sweep.Run and returns their
// results by index, with done[i] set for each run that finished:
//   - plain: every run, through exec;
//   - merge (sw.merged set): none; the results are decoded from the parts;
//   - --slurm-script: prints the script and returns handled;
//   - --shards: the shard's runs (less those a partial part of an earlier
//     try holds), written to the part file; returns handled.
//
// exec runs the runs at indices idx and calls put(i, r) for each that
// finishes (serially); its error is a failed or interrupted run. When
// handled is set the command stops and returns err.
func runSweep[R any](ctx context.Context, sw *sweepCmd, exec sweep.Exec[R]) (results []R, done []bool, handled bool, err error) {
	s := &sweep.Sweep{Command: sw.command, Version: version, IDs: sw.ids, Merged: sw.merged, Log: sw.e.stderr}
	if sw.merged == nil {
		if *sw.flags.script {
			return nil, nil, true, writeSlurmScript(sw)
		}
		if s.Shard, err = sw.flags.plan(sw.fs); err != nil {
			return nil, nil, true, err
		}
		if s.Shard != nil {
			s.Args = canonicalArgs(sw.fs)
			_, _, err = sweep.Run(ctx, s, exec)
			return nil, nil, true, shardError(err)
		}
	}
	results, done, err = sweep.Run(ctx, s, exec)
	return results, done, sw.merged != nil && err != nil, err
}

// shardError words a shard's error for the command line: an interrupted
// shard's partial part is errInterrupted (exit 1), a part directory that
// cannot be created is bad usage naming --out.
func shardError(err error) error {
	var de *sweep.DirError
	switch {
	case errors.Is(err, sweep.ErrIncomplete):
		return errInterrupted
	case errors.As(err, &de) && de.Op == "create":
		return usagef("--out %s: %v", de.Dir, de.Err) // before any run
	case errors.As(err, &de):
		return fmt.Errorf("--out: %w", de.Err)
	}
	return err
}

// writeSlurmScript prints an sbatch script that runs the sweep as a job
// array (sweep.WriteSlurmScript) with this binary, unless it is a go run
// binary, which is deleted on exit: then with herd from $PATH.
func writeSlurmScript(sw *sweepCmd) error {
	bin := "herd"
	if exe, err := executable(); err == nil && !strings.Contains(exe, "go-build") {
		bin = exe
	}
	err := sweep.WriteSlurmScript(sw.e.stdout, sweep.Script{Bin: bin, Command: sw.command,
		Args: canonicalArgs(sw.fs), Shards: *sw.flags.shards, Dir: *sw.flags.out})
	var de *sweep.DirError
	if errors.As(err, &de) {
		return fmt.Errorf("--out: %w", de.Err)
	}
	return err
}
