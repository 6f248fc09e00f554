package main

// herd point's checkpoint (--checkpoint FILE): one file per
// command holding, for every point of the sweep, its row once it has
// finished, or else the state of its run (meanfield.RunState: the last
// boards, the map count, the herd watch's counters and averaging window)
// as last taken. The same command with the same FILE does not recompute
// the finished points and continues the others from their state; the
// maps are those of an uninterrupted run, so stdout is the same bytes,
// whatever --workers.
//
// The file is JSON: a header naming what it is for (format, herd
// version, the command's canonical arguments), then the points in the
// command's order. encoding/json writes a float64 in the shortest form
// that reads back to the same bits and reads it back exactly, so the
// boards round-trip; the rows keep NaN and ±Inf as sweep.Float does. JSON
// rather than gob: the header is readable by anything (which arguments a
// stray checkpoint was made for), a reader refuses unknown fields where
// gob would quietly drop them, and it is the format of herd's part files.
// It costs about 20 bytes a float against gob's 9: a few MB for a herd
// of 10⁴ rows.
//
// It is written atomically (atomicfile: a temporary file renamed over
// FILE, so a kill leaves the last whole checkpoint) when the run begins,
// when a point finishes, at most every --checkpoint-every while points
// run, and when the run ends or is interrupted. A point's state is taken
// after a map: at the first one that ends at least --checkpoint-every
// after its last, and at the one where Ctrl-C or SIGTERM stops it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/compare/atomicfile"
	"herd/meanfield"
)

// checkpointFormat names the checkpoint format; a reader refuses others.
const checkpointFormat = "herd-point-checkpoint/1"

// defaultCheckpointEvery is --checkpoint-every's default.
const defaultCheckpointEvery = 2 * time.Minute

// pointCheckpoint is the checkpoint file.
type pointCheckpoint struct {
	Format  string   `json:"format"`  // checkpointFormat
	Version string   `json:"version"` // the writing herd's version
	Command string   `json:"command"` // "point"
	Args    []string `json:"args"`    // checkpointArgs
	// Points are the sweep's points, in the command's order.
	Points []pointSaved `json:"points"`
}

// pointSaved is one point of a checkpoint: its identity, and its row once
// finished or else the state of its run (neither: not begun).
type pointSaved struct {
	ID     string              `json:"id"`
	Result *pointRun           `json:"result,omitempty"`
	State  *meanfield.RunState `json:"state,omitempty"`
}

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

// checkpointer keeps a command's checkpoint file while its points run.
type checkpointer struct {
	path   string
	every  time.Duration
	stderr io.Writer
	check  func(*meanfield.RunState) error // a saved state's fit to the run

	mu     sync.Mutex
	file   pointCheckpoint
	wrote  time.Time   // the last write
	took   []time.Time // by point: when its state was last taken
	warned bool        // a failed write has been reported
}

// openCheckpoint reads the checkpoint at path, or makes a new one for want
// (its Points holding the IDs alone) when there is none, and writes it, so
// that a file that cannot be written fails before any work. A file made
// for another command, arguments or version, and one that is not a
// checkpoint, are usage errors naming --checkpoint.
func openCheckpoint(path string, every time.Duration, want pointCheckpoint, check func(*meanfield.RunState) error, stderr io.Writer) (*checkpointer, error) {
	now := time.Now()
	c := &checkpointer{path: path, every: every, stderr: stderr, check: check, file: want, wrote: now, took: make([]time.Time, len(want.Points))}
	for i := range c.took {
		c.took[i] = now
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := c.write(now); err != nil {
			return nil, usagef("--checkpoint %s: %v", path, err)
		}
		return c, nil
	case err != nil:
		return nil, usagef("--checkpoint %s: %v", path, err)
	}
	got, err := readCheckpoint(data)
	if err != nil {
		return nil, usagef("--checkpoint %s: not a herd point checkpoint: %v (delete it, or name another file, to start afresh)", path, err)
	}
	if err := c.matches(got); err != nil {
		return nil, err
	}
	c.file = *got
	finished, running := c.counts()
	fmt.Fprintf(stderr, "herd point: --checkpoint %s: resuming: %d of %d points finished, %d continued from their saved state\n",
		path, finished, len(got.Points), running)
	return c, nil
}

// readCheckpoint decodes a checkpoint strictly: one JSON document of
// known fields, in the known format, each point finished or not.
func readCheckpoint(data []byte) (*pointCheckpoint, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	var p pointCheckpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON document")
	}
	if p.Format != checkpointFormat {
		return nil, fmt.Errorf("format %q, want %q", p.Format, checkpointFormat)
	}
	for i, s := range p.Points {
		if s.Result == nil {
			continue
		}
		r := s.Result
		switch {
		case s.State != nil:
			return nil, fmt.Errorf("point %d (%s) holds both a row and a run's state", i, s.ID)
		case r.Kind < meanfield.Unconverged || r.Kind > meanfield.Aperiodic || r.Iterations < 1 || !(r.Truncation >= 0 && r.Truncation <= 1):
			return nil, fmt.Errorf("point %d (%s): corrupt row (attractor %d, %d maps, truncation %v)", i, s.ID, int(r.Kind), r.Iterations, float64(r.Truncation))
		}
	}
	return &p, nil
}

// matches reports, as a usage error naming --checkpoint, how got differs
// from the checkpoint this command would write, and whether a saved state
// does not fit the run.
func (c *checkpointer) matches(got *pointCheckpoint) error {
	want := c.file
	same := got.Command == want.Command && slices.Equal(got.Args, want.Args) && len(got.Points) == len(want.Points)
	for i := 0; same && i < len(got.Points); i++ {
		same = got.Points[i].ID == want.Points[i].ID
	}
	switch {
	case got.Version != want.Version:
		return usagef("--checkpoint %s: written by herd %s, this is herd %s: a checkpoint resumes in the version that wrote it (delete it, or name another file, to start afresh)",
			c.path, got.Version, want.Version)
	case !same:
		return usagef("--checkpoint %s: made for herd %s %s, not for this herd %s %s: name another file, or give the arguments it was made for",
			c.path, got.Command, strings.Join(got.Args, " "), want.Command, strings.Join(want.Args, " "))
	}
	for _, s := range got.Points {
		if s.State == nil {
			continue
		}
		if err := c.check(s.State); err != nil {
			return usagef("--checkpoint %s: point %s: %v (delete the file to start afresh)", c.path, s.ID, err)
		}
	}
	return nil
}

// counts returns the points finished and those with a saved state.
func (c *checkpointer) counts() (finished, running int) {
	for _, s := range c.file.Points {
		switch {
		case s.Result != nil:
			finished++
		case s.State != nil:
			running++
		}
	}
	return finished, running
}

// finished returns point i's row when the checkpoint holds it.
func (c *checkpointer) finished(i int) (pointRun, bool) {
	if c == nil || c.file.Points[i].Result == nil {
		return pointRun{}, false
	}
	return *c.file.Points[i].Result, true
}

// state returns point i's saved state, or nil.
func (c *checkpointer) state(i int) *meanfield.RunState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.file.Points[i].State
}

// save is point i's meanfield.AttractorSettings.Checkpoint: it takes the
// run's state when stopping or --checkpoint-every after it last did, and
// writes the file when it was last written --checkpoint-every ago.
func (c *checkpointer) save(i int, stopping bool, state func() *meanfield.RunState) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !stopping && now.Sub(c.took[i]) < c.every {
		return
	}
	c.file.Points[i].State, c.took[i] = state(), now
	if !stopping && now.Sub(c.wrote) >= c.every {
		c.write(now)
	}
}

// finish records point i's row and writes the file.
func (c *checkpointer) finish(i int, r pointRun) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.file.Points[i].Result, c.file.Points[i].State = &r, nil
	c.write(time.Now())
}

// flush writes the file as it stands.
func (c *checkpointer) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(time.Now())
}

// write writes the file atomically (c.mu held). A failure is reported
// on stderr once; the run goes on.
func (c *checkpointer) write(now time.Time) error {
	c.wrote = now
	data, err := json.Marshal(&c.file)
	if err == nil {
		err = atomicfile.WriteFile(c.path, append(data, '\n'))
	}
	if err != nil && !c.warned && c.stderr != nil {
		fmt.Fprintf(c.stderr, "herd point: --checkpoint %s: not written: %v (the run goes on)\n", c.path, err)
		c.warned = true
	}
	return err
}

// interrupted tells on stderr what an interrupted run leaves to resume.
func (c *checkpointer) interrupted(stderr io.Writer) {
	if c == nil {
		fmt.Fprintln(stderr, "herd point: nothing saved to resume from: with --checkpoint FILE an interrupted run continues where it stopped")
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	finished, running := c.counts()
	var at []string
	for _, s := range c.file.Points {
		if s.Result == nil && s.State != nil {
			at = append(at, fmt.Sprint(s.State.Maps))
		}
	}
	where := ""
	if running > 0 {
		where = " (after " + strings.Join(at, ", ") + " maps)"
	}
	fmt.Fprintf(stderr, "herd point: --checkpoint %s holds %d of %d points finished and %d saved part way%s: the same command with --checkpoint %s resumes\n",
		c.path, finished, len(c.file.Points), running, where, c.path)
}

// pointHooks sets s's Resume, Checkpoint and Finished for the points
// todo (place k is point todo[k]) from c.
func (c *checkpointer) pointHooks(s *compare.PointSettings, todo []int) {
	s.Resume = func(k int) *meanfield.RunState { return c.state(todo[k]) }
	s.Checkpoint = func(k int, stopping bool, state func() *meanfield.RunState) { c.save(todo[k], stopping, state) }
	s.Finished = func(k int, a meanfield.HerdAttractor, err error) {
		// A run that was stopped or failed keeps its saved state.
		if err == nil || errors.Is(err, meanfield.ErrNotConverged) {
			c.finish(todo[k], toPointRun(a))
		}
	}
}
