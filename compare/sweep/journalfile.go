package sweep

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
)

// A journal file (herd edge --checkpoint FILE) is one file per command
// holding one journal per search (for herd edge, meanfield.EdgeJournal:
// the search's finished runs, herd classification and spectra, and the
// state of its plain runs in progress). The same command opened on the
// same file gives each search its journal back, so the searches make no
// run twice and end with the results of an uninterrupted command,
// whatever the number of workers.
//
// The file is JSON: a header naming what it is for (format, version, the
// command's canonical arguments), then the journals, each the bytes of its
// MarshalBinary (base64 in the JSON). It is written atomically
// (atomicfile) when opened, every Every while the searches run, and when
// the caller flushes or closes it.

// Journal is a search's journal as a journal file keeps it.
type Journal interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// journalFile is the file's contents.
type journalFile struct {
	Format   string   `json:"format"`
	Version  string   `json:"version"`
	Command  string   `json:"command"`
	Args     []string `json:"args"`
	Journals [][]byte `json:"journals"`
}

// JournalFileSettings says what a journal file is for.
type JournalFileSettings struct {
	Path string
	// Format names the file's format (e.g. "herd-edge-checkpoint/1"); a
	// file of another is refused.
	Format string
	// Every is how often the file is written while the searches run (> 0).
	Every time.Duration
	// Version, Command and Args name the command: a file written for
	// another is refused.
	Version, Command string
	Args             []string
	// Journals are the searches' journals, in the command's order, empty;
	// a file that exists fills them.
	Journals []Journal
	// Warn, if not nil, hears of a write that failed while the searches
	// run (the run goes on).
	Warn func(error)
}

// JournalFile keeps a journal file while the searches run.
type JournalFile struct {
	s       JournalFileSettings
	resumed bool
	mu      sync.Mutex // one write at a time
	done    chan struct{}
	wg      sync.WaitGroup
}

// OpenJournalFile reads the journal file at s.Path into s.Journals, or
// makes a new one when there is none, and writes it (so that a file that
// cannot be written fails before any work), then writes it every s.Every
// until Close. A file made for another command, arguments or version, and
// one not of s.Format, are errors.
func OpenJournalFile(s JournalFileSettings) (*JournalFile, error) {
	if s.Every <= 0 || len(s.Journals) < 1 {
		return nil, fmt.Errorf("journal file: Every %v, %d journals: want both > 0", s.Every, len(s.Journals))
	}
	c := &JournalFile{s: s, done: make(chan struct{})}
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
func (c *JournalFile) load(data []byte) error {
	var f journalFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || f.Format != c.s.Format {
		return fmt.Errorf("not a checkpoint of this command (format %q, want %q)", f.Format, c.s.Format)
	}
	switch {
	case f.Version != c.s.Version:
		return fmt.Errorf("written by herd %s, this is %s: remove it to start afresh", f.Version, c.s.Version)
	case f.Command != c.s.Command || !slices.Equal(f.Args, c.s.Args):
		return fmt.Errorf("made for herd %s %v, not this command (herd %s %v): remove it or choose another file", f.Command, f.Args, c.s.Command, c.s.Args)
	case len(f.Journals) != len(c.s.Journals):
		return fmt.Errorf("holds %d searches, the command makes %d", len(f.Journals), len(c.s.Journals))
	}
	for i, b := range f.Journals {
		if err := c.s.Journals[i].UnmarshalBinary(b); err != nil {
			return fmt.Errorf("search %d: %w", i+1, err)
		}
	}
	return nil
}

// Resumed reports whether the file existed when opened.
func (c *JournalFile) Resumed() bool { return c.resumed }

// Flush writes the file as it stands.
func (c *JournalFile) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := journalFile{Format: c.s.Format, Version: c.s.Version, Command: c.s.Command, Args: c.s.Args}
	for _, j := range c.s.Journals {
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
func (c *JournalFile) Close() error {
	close(c.done)
	c.wg.Wait()
	return c.Flush()
}
