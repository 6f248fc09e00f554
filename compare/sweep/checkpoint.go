package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"herd/compare/atomicfile"
)

// A checkpoint (herd point --checkpoint FILE) is one file per sweep
// holding, for every point of the sweep, its result R once it has
// finished, or else the saved state S of its run as last taken (for herd
// point, meanfield.RunState: the last boards, the map count, the herd
// watch's counters and averaging window). A sweep opened on the same file
// does not redo the finished points and continues the others from their
// state; a run continued from its state is the uninterrupted run, so the
// results are the same, whatever the number of workers.
//
// The file is JSON: a header naming what it is for (format, version, the
// command's canonical arguments), then the points in the sweep's order.
// encoding/json writes a float64 in the shortest form that reads back to
// the same bits and reads it back exactly, so the states round-trip; the
// results keep NaN and ±Inf as Float does. JSON rather than gob: the
// header is readable by anything (which arguments a stray checkpoint was
// made for), a reader refuses unknown fields where gob would quietly drop
// them, and it is the format of the part files. It costs about 20 bytes a
// float against gob's 9: a few MB for a herd point sweep of 10⁴ rows.
//
// It is written atomically (atomicfile: a temporary file renamed over the
// file, so a kill leaves the last whole checkpoint) when the sweep opens
// it, when a point finishes, at most every Every while points run, and
// when the caller flushes it. A point's state is taken when its run
// offers it (Save): at the first offer at least Every after the last,
// and at the one where the run is stopped.

// Checkpoint is the checkpoint file: R is a finished point's result, S a
// running point's saved state; both must round-trip through
// encoding/json.
type Checkpoint[R, S any] struct {
	Format  string   `json:"format"`  // the caller's, e.g. "herd-point-checkpoint/1"
	Version string   `json:"version"` // the writing program's version
	Command string   `json:"command"` // the sweep's command ("point")
	Args    []string `json:"args"`    // its canonical arguments
	// Points are the sweep's points, in the sweep's order.
	Points []CheckpointPoint[R, S] `json:"points"`
}

// CheckpointPoint is one point of a checkpoint: its identity, and its
// result once finished or else the state of its run (neither: not
// begun).
type CheckpointPoint[R, S any] struct {
	ID     string `json:"id"`
	Result *R     `json:"result,omitempty"`
	State  *S     `json:"state,omitempty"`
}

// CheckpointSettings say which checkpoint a sweep keeps and how.
type CheckpointSettings[R, S any] struct {
	Path  string
	Every time.Duration // how often a running point's state is taken and the file written
	// Want is the checkpoint this sweep writes: its header, and its
	// Points holding the IDs alone. A file on Path must match it.
	Want Checkpoint[R, S]
	// CheckResult, when not nil, refuses a finished result that no run
	// can produce (a corrupt file).
	CheckResult func(R) error
	// CheckState, when not nil, refuses a saved state that does not fit
	// the sweep's runs.
	CheckState func(*S) error
	// Warn, when not nil, is told of the first write that fails; the
	// sweep goes on.
	Warn func(error)
}

// Checkpointer keeps a sweep's checkpoint file while its points run. Its
// methods may be called from the goroutines running the points.
type Checkpointer[R, S any] struct {
	s       CheckpointSettings[R, S]
	resumed bool // the file was there and is continued

	mu     sync.Mutex
	file   Checkpoint[R, S]
	wrote  time.Time   // the last write
	took   []time.Time // by point: when its state was last taken
	warned bool        // a failed write has been reported
}

// OpenCheckpoint reads the checkpoint at s.Path, or makes one from s.Want
// when there is none and writes it, so that a file that cannot be written
// fails before any work. A file that is not such a checkpoint, or one
// made for another command, arguments or version, or holding a state
// that does not fit, is refused with an error that says so and how to
// start afresh, for the caller to prefix with the file's name.
func OpenCheckpoint[R, S any](s CheckpointSettings[R, S]) (*Checkpointer[R, S], error) {
	now := time.Now()
	c := &Checkpointer[R, S]{s: s, file: s.Want, wrote: now, took: make([]time.Time, len(s.Want.Points))}
	for i := range c.took {
		c.took[i] = now
	}
	data, err := os.ReadFile(s.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := c.write(now); err != nil {
			return nil, err
		}
		return c, nil
	case err != nil:
		return nil, err
	}
	got, err := c.read(data)
	if err != nil {
		return nil, fmt.Errorf("not a herd %s checkpoint: %v (delete it, or name another file, to start afresh)", s.Want.Command, err)
	}
	if err := c.matches(got); err != nil {
		return nil, err
	}
	c.file, c.resumed = *got, true
	return c, nil
}

// read decodes a checkpoint strictly: one JSON document of known fields,
// in the wanted format, each point finished or not.
func (c *Checkpointer[R, S]) read(data []byte) (*Checkpoint[R, S], error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	var p Checkpoint[R, S]
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON document")
	}
	if p.Format != c.s.Want.Format {
		return nil, fmt.Errorf("format %q, want %q", p.Format, c.s.Want.Format)
	}
	for i, pt := range p.Points {
		if pt.Result == nil {
			continue
		}
		if pt.State != nil {
			return nil, fmt.Errorf("point %d (%s) holds both a row and a run's state", i, pt.ID)
		}
		if c.s.CheckResult != nil {
			if err := c.s.CheckResult(*pt.Result); err != nil {
				return nil, fmt.Errorf("point %d (%s): %w", i, pt.ID, err)
			}
		}
	}
	return &p, nil
}

// matches says how got differs from the checkpoint this sweep would
// write, and whether a saved state does not fit its runs.
func (c *Checkpointer[R, S]) matches(got *Checkpoint[R, S]) error {
	want := c.file
	same := got.Command == want.Command && slices.Equal(got.Args, want.Args) && len(got.Points) == len(want.Points)
	for i := 0; same && i < len(got.Points); i++ {
		same = got.Points[i].ID == want.Points[i].ID
	}
	switch {
	case got.Version != want.Version:
		return fmt.Errorf("written by herd %s, this is herd %s: a checkpoint resumes in the version that wrote it (delete it, or name another file, to start afresh)",
			got.Version, want.Version)
	case !same:
		return fmt.Errorf("made for herd %s %s, not for this herd %s %s: name another file, or give the arguments it was made for",
			got.Command, strings.Join(got.Args, " "), want.Command, strings.Join(want.Args, " "))
	}
	for _, pt := range got.Points {
		if pt.State == nil || c.s.CheckState == nil {
			continue
		}
		if err := c.s.CheckState(pt.State); err != nil {
			return fmt.Errorf("point %s: %v (delete the file to start afresh)", pt.ID, err)
		}
	}
	return nil
}

// Resumed reports whether the file was there when opened: the sweep
// continues it.
func (c *Checkpointer[R, S]) Resumed() bool { return c.resumed }

// Points returns the points as the checkpoint holds them now (a copy of
// the list; the results and states it points to are not changed later).
func (c *Checkpointer[R, S]) Points() []CheckpointPoint[R, S] {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.file.Points)
}

// Counts returns how many points the checkpoint holds finished and how
// many with a saved state, of Len.
func (c *Checkpointer[R, S]) Counts() (finished, running int) {
	for _, p := range c.Points() {
		switch {
		case p.Result != nil:
			finished++
		case p.State != nil:
			running++
		}
	}
	return finished, running
}

// Len is the number of points of the sweep.
func (c *Checkpointer[R, S]) Len() int { return len(c.took) }

// Finished returns point i's result when the checkpoint holds it.
func (c *Checkpointer[R, S]) Finished(i int) (R, bool) {
	var r R
	if c.file.Points[i].Result == nil {
		return r, false
	}
	return *c.file.Points[i].Result, true
}

// State returns point i's saved state, or nil.
func (c *Checkpointer[R, S]) State(i int) *S {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.file.Points[i].State
}

// Save offers point i's state: it is taken when stopping or Every after
// it last was, and the file is written when it was last written Every
// ago.
func (c *Checkpointer[R, S]) Save(i int, stopping bool, state func() *S) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !stopping && now.Sub(c.took[i]) < c.s.Every {
		return
	}
	c.file.Points[i].State, c.took[i] = state(), now
	if !stopping && now.Sub(c.wrote) >= c.s.Every {
		c.write(now)
	}
}

// Finish records point i's result and writes the file.
func (c *Checkpointer[R, S]) Finish(i int, r R) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.file.Points[i].Result, c.file.Points[i].State = &r, nil
	c.write(time.Now())
}

// Flush writes the file as it stands.
func (c *Checkpointer[R, S]) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(time.Now())
}

// write writes the file atomically (c.mu held). A failure is told to Warn
// once; the sweep goes on.
func (c *Checkpointer[R, S]) write(now time.Time) error {
	c.wrote = now
	data, err := json.Marshal(&c.file)
	if err == nil {
		err = atomicfile.WriteFile(c.s.Path, append(data, '\n'))
	}
	if err != nil && !c.warned && c.s.Warn != nil {
		c.s.Warn(err)
		c.warned = true
	}
	return err
}
