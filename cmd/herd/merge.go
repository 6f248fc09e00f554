package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare/sweep"
)

// mergeCommands are the commands whose sweeps herd merge can combine:
// each runs the command from its arguments, with its runs taken from
// merged when that is set (see runSweep).
var mergeCommands = map[string]func(ctx context.Context, e *env, args []string, merged *sweep.Merged) error{
	"bracket": runBracketSweep,
	"model":   runModelSweep,
	"point":   runPointSweep,
	"sim":     runSimSweep,
}

// runMerge combines the part files of a sharded sweep (issue 7) into the
// output the unsharded command prints: it checks that DIR holds one
// complete part for every shard of one sweep, then runs the command from
// the argument list the parts record, with the runs read from the parts.
// Missing or partial shards are listed (exit 1) in the form
// sbatch --array takes; a corrupt part file is an error, never skipped.
func runMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "merge", "merge DIR [--format F] [--plot FILE] [--points FILE]   (DIR: the --out of a sweep run with --shards)")
	o := &mergeOpts{fs: fs}
	o.format = fs.String("format", "", "output format, text, csv or json (default: the sweep's own --format)")
	o.plot = fs.String("plot", "", "draw the sweep's plot "+plotFiles+" (default: the sweep's own --plot)")
	o.points = fs.String("points", "", "herd bracket: write the per-T tipping table to FILE (default: the sweep's own --points)")
	if err := o.parse(args); err != nil {
		return err
	}
	dir := fs.Arg(0)
	parts, err := sweep.ReadParts(dir, version, func(c string) bool { _, ok := mergeCommands[c]; return ok })
	if err != nil {
		return err
	}
	first := parts[0]
	cmdArgs, err := o.sweepArgs(dir, first)
	if err != nil {
		return err
	}
	m := sweep.Merge(parts)
	runCmd := mergeCommands[first.Command]
	me := *e // the output records the sweep's command line, not merge's
	me.command = first.Command
	if err := runCmd(ctx, &me, cmdArgs, m); err != nil {
		var ue *usageError
		if errors.As(err, &ue) && !o.overrides() {
			return fmt.Errorf("%s: the parts' arguments %q: %w", dir, first.Args, err)
		}
		return err
	}
	return nil
}

// mergeOpts are herd merge's flags: overrides of the sweep's own.
type mergeOpts struct {
	fs                   *pflag.FlagSet
	format, plot, points *string
}

// parse parses herd merge's arguments and checks the overrides given.
func (o *mergeOpts) parse(args []string) error {
	fs := o.fs
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		return err
	}
	if err != nil {
		if m := unknownFlagRE.FindStringSubmatch(err.Error()); m != nil && m[1] == "out" {
			return usagef("%v: the directory of the parts is merge's argument, herd merge DIR", err)
		}
		return usagef("%v", err)
	}
	if err := checkEmpty(fs); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one directory, the --out of the sharded sweep (have %d arguments)", fs.NArg())
	}
	if strings.TrimSpace(fs.Arg(0)) == "" {
		return usagef("the directory is empty: want the --out of the sharded sweep")
	}
	if fs.Changed("format") {
		if _, err := table.ParseFormat(*o.format); err != nil {
			return usagef("--format: %v", err)
		}
	}
	if fs.Changed("plot") {
		if err := checkPlotPath(*o.plot); err != nil {
			return err
		}
	}
	if fs.Changed("points") {
		return checkOutputDir("points", *o.points)
	}
	return nil
}

// overrides reports whether any override was given.
func (o *mergeOpts) overrides() bool {
	return o.fs.Changed("format") || o.fs.Changed("plot") || o.fs.Changed("points")
}

// sweepArgs is the argument list the parts record, with the overrides
// given appended; an override the sweep's command lacks is an error.
func (o *mergeOpts) sweepArgs(dir string, first *sweep.Part) ([]string, error) {
	// The overrides each command takes.
	takes := map[string]map[string]bool{"plot": {"sim": true, "bracket": true}, "points": {"bracket": true}}
	for _, name := range []string{"plot", "points"} {
		if o.fs.Changed(name) && !takes[name][first.Command] {
			return nil, usagef("--%s: %s holds a herd %s sweep, which has no --%s", name, dir, first.Command, name)
		}
	}
	cmdArgs := append([]string(nil), first.Args...)
	for _, f := range []struct {
		name string
		v    *string
	}{{"format", o.format}, {"plot", o.plot}, {"points", o.points}} {
		if o.fs.Changed(f.name) {
			cmdArgs = append(cmdArgs, "--"+f.name+"="+*f.v)
		}
	}
	return cmdArgs, nil
}
