package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
)

// mergeCommands are the commands whose sweeps herd merge can combine:
// each runs the command from its arguments, with its runs taken from
// merged when that is set (see runSweep).
var mergeCommands = map[string]func(ctx context.Context, e *env, args []string, merged *mergedRuns) error{
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
	parts, err := readParts(dir)
	if err != nil {
		return err
	}
	first := parts[0]
	cmdArgs, err := o.sweepArgs(dir, first)
	if err != nil {
		return err
	}
	m := &mergedRuns{total: first.Total, ids: make([]string, first.Total), raw: make([]json.RawMessage, first.Total)}
	for _, p := range parts {
		for _, r := range p.Results {
			m.ids[r.Index], m.raw[r.Index] = r.ID, r.Result
		}
	}
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
		return usagef("%v", err)
	}
	if fs.NArg() != 1 {
		return usagef("want one directory, the --out of the sharded sweep (have %d arguments)", fs.NArg())
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
func (o *mergeOpts) sweepArgs(dir string, first *partFile) ([]string, error) {
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

// readParts reads every part file in dir (part-I-of-N.json) and checks
// that they are one whole sweep: one command, argument list, herd version
// and N, every shard present once and complete. Corrupt files, parts of
// another sweep and duplicate shards are errors; missing and partial
// shards are listed with the sbatch --array list that reruns them.
func readParts(dir string) ([]*partFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, de := range entries {
		if partNameRE.MatchString(de.Name()) {
			names = append(names, de.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no part files (part-I-of-N.json): is it the --out of a sweep run with --shards?", dir)
	}
	var parts []*partFile
	var bad []string
	var badShards []int
	for _, name := range names {
		p, err := readPart(filepath.Join(dir, name))
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			if m := partNameRE.FindStringSubmatch(name); m != nil {
				if i, err := strconv.Atoi(m[1]); err == nil {
					badShards = append(badShards, i)
				}
			}
			continue
		}
		parts = append(parts, p)
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s: %d unreadable part file(s):\n  %s\ndelete them and rerun those shards: sbatch --array=%s SCRIPT",
			dir, len(bad), strings.Join(bad, "\n  "), shardList(badShards))
	}
	first := parts[0]
	if first.Version != version {
		return nil, fmt.Errorf("%s: the parts were written by herd %s, this is herd %s", dir, first.Version, version)
	}
	if _, ok := mergeCommands[first.Command]; !ok {
		return nil, fmt.Errorf("%s: %s: herd merge cannot combine %q sweeps", dir, names[0], first.Command)
	}
	byShard := map[int]*partFile{}
	for k, p := range parts {
		if !p.sameSweep(first) {
			return nil, fmt.Errorf("%s: %s and %s belong to different sweeps (herd %s %s, %d shards; herd %s %s, %d shards): use one directory per sweep",
				dir, names[0], names[k], first.Command, strings.Join(first.Args, " "), first.Shards, p.Command, strings.Join(p.Args, " "), p.Shards)
		}
		if _, dup := byShard[p.Shard]; dup {
			return nil, fmt.Errorf("%s: shard %d appears twice", dir, p.Shard)
		}
		byShard[p.Shard] = p
	}
	var rerun, why []string
	var list []int
	for i := range first.Shards {
		p, ok := byShard[i]
		switch {
		case !ok:
			list = append(list, i)
			why = append(why, fmt.Sprintf("%d missing", i))
		case !p.Complete:
			list = append(list, i)
			why = append(why, fmt.Sprintf("%d partial (%d of %d runs)", i, len(p.Results), len(p.Owned)))
		}
	}
	if len(list) > 0 {
		rerun = append(rerun,
			fmt.Sprintf("%s: %d of %d shards missing or incomplete: %s", dir, len(list), first.Shards, strings.Join(why, ", ")),
			fmt.Sprintf("rerun them: sbatch --array=%s SCRIPT   (or: herd %s ... --shards %d --shard I --out %s, for I in %s)",
				shardList(list), first.Command, first.Shards, dir, shardList(list)))
		return nil, errors.New(strings.Join(rerun, "\n"))
	}
	return parts, nil
}
