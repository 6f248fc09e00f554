package main

import (
	"fmt"
	"runtime"
	"strconv"

	"github.com/spf13/pflag"

	"herd/meanfield"
)

// This file defines the flags that several commands share, each with one
// help text: a command passes what differs (its default, its allowed
// range, what a list means to it) and the words around it are the same
// everywhere. A help ending in "(list)" takes a comma list (see isList).

// plotFiles is the tail of every --plot help: the formats plotting writes.
const plotFiles = "into FILE.png, .svg, .pdf or .eps"

// dispatchersFlag defines --dispatchers as one integer; rng is its range.
func dispatchersFlag(fs *pflag.FlagSet, def int, rng string) *int {
	return fs.Int("dispatchers", def, "dispatchers k, "+rng)
}

// dispatchersList defines --dispatchers as a comma list.
func dispatchersList(fs *pflag.FlagSet, def, rng string) *string {
	return fs.String("dispatchers", def, "dispatchers k, "+rng+" (list)")
}

// loadText is --load's help: what λ is, then its range.
func loadText(rng string) string {
	return "load λ (arrivals per server per mean service time), " + rng
}

// loadFlag defines --load as one number; rng is its range.
func loadFlag(fs *pflag.FlagSet, def float64, rng string) *float64 {
	return fs.Float64("load", def, loadText(rng))
}

// loadList defines --load as a comma list.
func loadList(fs *pflag.FlagSet, def, rng string) *string {
	return fs.String("load", def, loadText(rng)+" (list)")
}

// serversFlag defines --servers as one integer; rng is its range.
func serversFlag(fs *pflag.FlagSet, def int, rng string) *int {
	return fs.Int("servers", def, "servers N, "+rng)
}

// serversList defines --servers as a comma list.
func serversList(fs *pflag.FlagSet, def, rng string) *string {
	return fs.String("servers", def, "servers N, "+rng+" (list)")
}

// refreshList defines --refresh, the board's refresh periods.
func refreshList(fs *pflag.FlagSet, def, rng string) *string {
	return fs.String("refresh", def, "board refresh period T in mean service times, "+rng+" (list)")
}

// refreshesFlag defines --refreshes, a run's length in refresh periods;
// note says what else the command does with it.
func refreshesFlag(fs *pflag.FlagSet, def int, note string) *int {
	return fs.Int("refreshes", def, "refresh periods per run"+note)
}

// runsFlag defines --runs: independent runs per unit ("row", "point"), at
// least least; capped adds the bound on the runs of one command.
func runsFlag(fs *pflag.FlagSet, def int, per string, least int, capped bool) *int {
	help := "independent runs per " + per + ", integer ≥ " + strconv.Itoa(least)
	if least < 2 {
		help += " (standard errors need ≥ 2)"
	}
	if capped {
		help += "; at most " + strconv.Itoa(maxSweepRuns) + " runs in all"
	}
	return fs.Int("runs", def, help)
}

// finiteRunFlags are --refreshes, --runs and --seed of herd edge and herd
// point with --servers: the particle runs' length, count and master seed.
type finiteRunFlags struct {
	refreshes, runs *int
	seed            *uint64
	particles       *string
}

// finiteRun is finiteRunFlags' values.
type finiteRun struct {
	refreshes, runs int
	seed            uint64
	particles       meanfield.Particles
}

// The ranges of finiteRunFlags (meanfield.FiniteEdgeSettings' and
// FiniteRun's).
const (
	maxFiniteRefreshes = 1_000_000
	maxFiniteRuns      = 1000
)

// addFiniteRunFlags defines finiteRunFlags; length says what the run
// length means to the command, runs what its runs are per, defRuns their
// default.
func addFiniteRunFlags(fs *pflag.FlagSet, length string, defRuns int, per string) finiteRunFlags {
	return finiteRunFlags{
		refreshes: fs.Int("refreshes", 1000, fmt.Sprintf("with --servers: refresh periods per particle run; %s; integer in [10, %d]", length, maxFiniteRefreshes)),
		runs:      fs.Int("runs", defRuns, fmt.Sprintf("with --servers: independent particle runs %s, integer in [2, %d]", per, maxFiniteRuns)),
		seed:      fs.Uint64("seed", 1, "with --servers: master seed of the particle runs; each run's seed is derived from it and the run's place in the computation"),
		particles: fs.String("particles", "auto", fmt.Sprintf("with --servers: how the N servers run (go doc herd/meanfield, §8.6): servers (the N servers themselves, each keeping its queue and job in service from one refresh to the next, each dispatcher filling the water on its own Poisson clock; about N·λ·T jobs a refresh, so minutes at N = 1,000 and hours at 10⁵; N ≤ %s), board (the particle map: each refresh the board is N independent draws from the map's image at a noisy load, so a server forgets its past; any N) or auto (up to %[1]s servers, servers for herd point at any --sizes and for herd edge with phase-type --sizes; board otherwise)", groupThousands(meanfield.ServerParticlesMaxN))),
	}
}

// check returns the flags' values after checking their ranges, and that
// none is given without --servers (they would change nothing).
func (f finiteRunFlags) check(fs *pflag.FlagSet) (finiteRun, error) {
	if !fs.Changed("servers") {
		for _, name := range []string{"refreshes", "runs", "seed", "particles"} {
			if fs.Changed(name) {
				return finiteRun{}, usagef("--%s needs --servers (it sets the finite fleet's particle runs)", name)
			}
		}
	}
	if *f.refreshes < 10 || *f.refreshes > maxFiniteRefreshes {
		return finiteRun{}, usagef("--refreshes %d: want an integer in [10, %d]", *f.refreshes, maxFiniteRefreshes)
	}
	if *f.runs < 2 || *f.runs > maxFiniteRuns {
		return finiteRun{}, usagef("--runs %d: want an integer in [2, %d]", *f.runs, maxFiniteRuns)
	}
	p, err := meanfield.ParseParticles(*f.particles)
	if err != nil {
		return finiteRun{}, usagef("--particles %q: want auto, board or servers", *f.particles)
	}
	return finiteRun{*f.refreshes, *f.runs, *f.seed, p}, nil
}

// checkServers reports an N that --particles servers cannot run.
func (r finiteRun) checkServers(ns ...int) error {
	for _, n := range ns {
		if r.particles == meanfield.ParticlesServers && n > meanfield.ServerParticlesMaxN {
			return usagef("--particles servers runs at most %s servers, not --servers %d: use --particles board", groupThousands(meanfield.ServerParticlesMaxN), n)
		}
	}
	return nil
}

// seedFlag defines --seed.
func seedFlag(fs *pflag.FlagSet) *uint64 {
	return fs.Uint64("seed", 1, "master seed; each run's seed is derived from it and the run's parameters")
}

// partitionedFlag defines --partitioned; note adds what it means to the
// command's model.
func partitionedFlag(fs *pflag.FlagSet, note string) *bool {
	return fs.Bool("partitioned", false, "each dispatcher owns a contiguous block of N/k servers"+note)
}

// sizesFlag defines --sizes: what the sizes are of, then the values
// allowed.
func sizesFlag(fs *pflag.FlagSet, what, values string) *string {
	return fs.String("sizes", "exp", what+", mean 1: "+values)
}

// plotFlag defines --plot; what says what is drawn.
func plotFlag(fs *pflag.FlagSet, what string) *string {
	return fs.String("plot", "", "also draw "+what+" "+plotFiles)
}

// workersFlag defines --workers; what says what is computed in parallel.
func workersFlag(fs *pflag.FlagSet, def int, what string) *int {
	return fs.Int("workers", def, what+" in parallel (the output does not depend on it)")
}

// outputFlags are the flags every table-writing command shares.
type outputFlags struct {
	format  *string
	workers *int
}

// addOutputFlags adds --workers (what is computed in parallel) and --format.
func addOutputFlags(fs *pflag.FlagSet, what string) *outputFlags {
	return &outputFlags{
		workers: workersFlag(fs, runtime.NumCPU(), what),
		format:  fs.String("format", "text", "output format: text, csv or json"),
	}
}

// idleFlag refuses a flag given a value that no row of the sweep reads (a
// sampling option with no sampling policy listed): the request would run
// as if it had not been made. none says what the lists lack.
func idleFlag(flag string, given bool, none string) error {
	if given {
		return usagef("--%s: %s, so it would change no row", flag, none)
	}
	return nil
}
