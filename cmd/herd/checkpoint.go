package main

// herd point's checkpoint (--checkpoint FILE) on the command line; the
// file itself (what it holds, when it is written, how a sweep resumes
// from it) is sweep.Checkpointer's, with herd point's rows and the
// refresh map's run states (meanfield.RunState). The same command with
// the same FILE does not recompute the finished points and continues the
// others from their state, so stdout is the bytes of an uninterrupted
// run, whatever --workers. It is written when the run begins, when a
// point finishes, at most every --checkpoint-every while points run, and
// when the run ends or is interrupted (Ctrl-C or SIGTERM).

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/compare/sweep"
	"herd/meanfield"
)

// checkpointFormat names the checkpoint format; a reader refuses others.
const checkpointFormat = "herd-point-checkpoint/1"

// defaultCheckpointEvery is --checkpoint-every's default.
const defaultCheckpointEvery = 2 * time.Minute

// pointCheckpoint is the checkpoint file.
type pointCheckpoint = sweep.Checkpoint[pointRun, meanfield.RunState]

// pointSaved is one point of a checkpoint.
type pointSaved = sweep.CheckpointPoint[pointRun, meanfield.RunState]

// checkpointFlags are --checkpoint and --checkpoint-every.
type checkpointFlags struct {
	path  *string
	every *time.Duration
}

func addCheckpointFlags(fs *pflag.FlagSet) *checkpointFlags {
	return &checkpointFlags{
		path: fs.String("checkpoint", "", "keep the run's state in FILE (atomically: every --checkpoint-every, as each point finishes, and on Ctrl-C); "+
			"the same command with the same FILE continues from it, finished points not recomputed, with the output of an uninterrupted run"),
		every: fs.Duration("checkpoint-every", defaultCheckpointEvery, "with --checkpoint: how often a running point's state is saved, at the end of the first map this long after its last save (a Go duration: 30s, 2m, 1h)"),
	}
}

// check validates the flags (usage errors) before any work.
func (f *checkpointFlags) check(fs *pflag.FlagSet, sharded bool) error {
	switch {
	case fs.Changed("checkpoint-every") && *f.path == "":
		return usagef("--checkpoint-every needs --checkpoint FILE")
	case *f.every <= 0:
		return usagef("--checkpoint-every %v: want a duration > 0 (30s, 2m, 1h)", *f.every)
	case *f.path != "" && sharded:
		return usagef("--checkpoint does not go with --shards: a shard keeps its finished points in its part file, and the shards of one command would share FILE")
	case *f.path != "":
		return checkOutputDir("checkpoint", *f.path)
	}
	return nil
}

// checkpointArgs is what a checkpoint is for: the canonical argument list
// (canonicalArgs) less --format, --checkpoint and --checkpoint-every,
// which change no point's run.
func checkpointArgs(fs *pflag.FlagSet) []string {
	args := []string{}
	for _, a := range canonicalArgs(fs) {
		name, _, _ := strings.Cut(a, "=")
		if name != "--format" && name != "--checkpoint" && name != "--checkpoint-every" {
			args = append(args, a)
		}
	}
	return args
}

// checkpointer keeps herd point's checkpoint file while its points run.
type checkpointer struct {
	*sweep.Checkpointer[pointRun, meanfield.RunState]
	path string
}

// openCheckpoint reads the checkpoint at path, or makes a new one for want
// (its Points holding the IDs alone) when there is none, and writes it, so
// that a file that cannot be written fails before any work. A file made
// for another command, arguments or version, and one that is not a
// checkpoint, are usage errors naming --checkpoint.
func openCheckpoint(path string, every time.Duration, want pointCheckpoint, check func(*meanfield.RunState) error, stderr io.Writer) (*checkpointer, error) {
	c, err := sweep.OpenCheckpoint(sweep.CheckpointSettings[pointRun, meanfield.RunState]{
		Path: path, Every: every, Want: want, CheckResult: checkpointRow, CheckState: check,
		Warn: func(err error) {
			fmt.Fprintf(stderr, "herd point: --checkpoint %s: not written: %v (the run goes on)\n", path, err)
		},
	})
	if err != nil {
		return nil, usagef("--checkpoint %s: %v", path, err)
	}
	ck := &checkpointer{c, path}
	if c.Resumed() {
		finished, running := c.Counts()
		fmt.Fprintf(stderr, "herd point: --checkpoint %s: resuming: %d of %d points finished, %d continued from their saved state\n",
			path, finished, c.Len(), running)
	}
	return ck, nil
}

// checkpointRow refuses a finished row that no run can produce.
func checkpointRow(r pointRun) error {
	if r.Kind < meanfield.Unconverged || r.Kind > meanfield.Aperiodic || r.Iterations < 1 || !(r.Truncation >= 0 && r.Truncation <= 1) {
		return fmt.Errorf("corrupt row (attractor %d, %d maps, truncation %v)", int(r.Kind), r.Iterations, float64(r.Truncation))
	}
	return nil
}

// finished returns point i's row when the checkpoint (if any) holds it.
func (c *checkpointer) finished(i int) (pointRun, bool) {
	if c == nil {
		return pointRun{}, false
	}
	return c.Finished(i)
}

// flush writes the file as it stands.
func (c *checkpointer) flush() error { return c.Flush() }

// interrupted tells on stderr what an interrupted run leaves to resume.
func (c *checkpointer) interrupted(stderr io.Writer) {
	if c == nil {
		fmt.Fprintln(stderr, "herd point: nothing saved to resume from: with --checkpoint FILE an interrupted run continues where it stopped")
		return
	}
	finished, running := c.Counts()
	where := ""
	if running > 0 {
		var maps []string
		for _, p := range c.Points() {
			if p.Result == nil && p.State != nil {
				maps = append(maps, fmt.Sprint(p.State.Maps))
			}
		}
		where = " (after " + strings.Join(maps, ", ") + " maps)"
	}
	fmt.Fprintf(stderr, "herd point: --checkpoint %s holds %d of %d points finished and %d saved part way%s: the same command with --checkpoint %s resumes\n",
		c.path, finished, c.Len(), running, where, c.path)
}

// pointHooks sets s's Resume, Checkpoint and Finished for the points
// todo (place k is point todo[k]) from c.
func (c *checkpointer) pointHooks(s *compare.PointSettings, todo []int) {
	s.Resume = func(k int) *meanfield.RunState { return c.State(todo[k]) }
	s.Checkpoint = func(k int, stopping bool, state func() *meanfield.RunState) { c.Save(todo[k], stopping, state) }
	s.Finished = func(k int, a meanfield.HerdAttractor, err error) {
		// A run that was stopped or failed keeps its saved state.
		if err == nil || errors.Is(err, meanfield.ErrNotConverged) {
			c.Finish(todo[k], toPointRun(a))
		}
	}
}
