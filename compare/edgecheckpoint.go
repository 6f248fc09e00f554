package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"herd/compare/atomicfile"
	"herd/meanfield"
)

// An edge checkpoint (herd edge --checkpoint FILE) is one file per
// command holding one journal per edge search (meanfield.EdgeJournal: the
// search's finished runs, herd classification and spectra, and the state
// of its plain runs in progress). The same command opened on the same file
// gives each search its journal, so the searches make no run twice and
// end with the results of an uninterrupted command, Maps and Work
// included, whatever the number of workers.
//
// The file is JSON: a header naming what it is for (format, version, the
// command's canonical arguments), then the journals, each the bytes of
// EdgeJournal.MarshalBinary (gob, which keeps NaN; base64 in the JSON).
// It is written atomically (atomicfile) when opened, every Every while the
// searches run, and when the caller flushes or closes it.

// EdgeCheckpointFormat names the edge checkpoint format; a reader refuses
// others.
const EdgeCheckpointFormat = "herd-edge-checkpoint/1"

// edgeCheckpointFile is the file's contents.
type edgeCheckpointFile struct {
	Format   string   `json:"format"`
	Version  string   `json:"version"`
	Command  string   `json:"command"`
	Args     []string `json:"args"`
	Journals [][]byte `json:"journals"`
}

// EdgeCheckpointSettings says what an edge checkpoint is for.
type EdgeCheckpointSettings struct {
	Path string
	// Every is how often the file is written while the searches run, and
	// how often a plain run in progress saves its state (> 0).
	Every time.Duration
	// Version, Command and Args name the command: a file written for
	// another is refused.
	Version, Command string
	Args             []string
	// Searches is the number of edge searches, in the command's order.
	Searches int
	// Warn, if not nil, hears of a write that failed while the searches
	// run (the run goes on).
	Warn func(error)
}

// EdgeCheckpointer keeps an edge checkpoint file while the searches run.
type EdgeCheckpointer struct {
	s        EdgeCheckpointSettings
	journals []*meanfield.EdgeJournal
	resumed  bool
	mu       sync.Mutex // one write at a time
	done     chan struct{}
	wg       sync.WaitGroup
}

// OpenEdgeCheckpoint reads the checkpoint at s.Path, or makes a new one
// when there is none, and writes it (so that a file that cannot be
// written fails before any work), then writes it every s.Every until
// Close. A file made for another command, arguments or version, and one
// that is not an edge checkpoint, are errors.
func OpenEdgeCheckpoint(s EdgeCheckpointSettings) (*EdgeCheckpointer, error) {
	if s.Every <= 0 || s.Searches < 1 {
		return nil, fmt.Errorf("edge checkpoint: Every %v, Searches %d: want both > 0", s.Every, s.Searches)
	}
	c := &EdgeCheckpointer{s: s, done: make(chan struct{})}
	for range s.Searches {
		j := meanfield.NewEdgeJournal()
		j.Every = s.Every
		c.journals = append(c.journals, j)
	}
	data, err := os.ReadFile(s.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := c.load(data); err != nil {
			return nil, err
		}
		c.resumed = true
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		tick := time.NewTicker(s.Every)
		defer tick.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-tick.C:
				if err := c.Flush(); err != nil && s.Warn != nil {
					s.Warn(err)
				}
			}
		}
	}()
	return c, nil
}

// load reads a file's journals, refusing one made for another command.
func (c *EdgeCheckpointer) load(data []byte) error {
	var f edgeCheckpointFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || f.Format != EdgeCheckpointFormat {
		return fmt.Errorf("not an edge checkpoint (format %q, want %q)", f.Format, EdgeCheckpointFormat)
	}
	switch {
	case f.Version != c.s.Version:
		return fmt.Errorf("written by herd %s, this is %s: remove it to start afresh", f.Version, c.s.Version)
	case f.Command != c.s.Command || !slices.Equal(f.Args, c.s.Args):
		return fmt.Errorf("made for herd %s %v, not this command (herd %s %v): remove it or choose another file", f.Command, f.Args, c.s.Command, c.s.Args)
	case len(f.Journals) != len(c.journals):
		return fmt.Errorf("holds %d searches, the command makes %d", len(f.Journals), len(c.journals))
	}
	for i, b := range f.Journals {
		if err := c.journals[i].UnmarshalBinary(b); err != nil {
			return fmt.Errorf("search %d: %w", i+1, err)
		}
	}
	return nil
}

// Journal returns search i's journal (EdgeSettings.Journal).
func (c *EdgeCheckpointer) Journal(i int) *meanfield.EdgeJournal { return c.journals[i] }

// Resumed reports whether the file existed when opened.
func (c *EdgeCheckpointer) Resumed() bool { return c.resumed }

// Counts sums what the journals hold: finished runs, runs saved part way
// and the maps those have made.
func (c *EdgeCheckpointer) Counts() (runs, open, openMaps int) {
	for _, j := range c.journals {
		n := j.Counts()
		runs += n.Runs
		open += n.Open
		for _, m := range n.OpenMaps {
			openMaps += m
		}
	}
	return runs, open, openMaps
}

// Flush writes the file as it stands.
func (c *EdgeCheckpointer) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := edgeCheckpointFile{Format: EdgeCheckpointFormat, Version: c.s.Version, Command: c.s.Command, Args: c.s.Args}
	for _, j := range c.journals {
		b, err := j.MarshalBinary()
		if err != nil {
			return err
		}
		f.Journals = append(f.Journals, b)
	}
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(c.s.Path, append(data, '\n'))
}

// Close stops the periodic writes and writes the file a last time.
func (c *EdgeCheckpointer) Close() error {
	close(c.done)
	c.wg.Wait()
	return c.Flush()
}
