package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Sweep is a list of runs and the way to do them this time: all of them,
// one shard's (Shard set) or none, their results decoded from a merged
// sweep's parts (Merged set).
type Sweep struct {
	Command string   // the command the runs belong to, recorded in parts
	Version string   // the program's version, recorded in parts
	Args    []string // the canonical argument list, recorded in parts
	IDs     []string // the identity of each run, in order
	Merged  *Merged  // set: take the results from these parts
	Shard   *Shard   // set (and Merged nil): do only this shard's runs
	// Log receives a shard's closing line and warnings about an unreadable
	// earlier part (nil: discarded).
	Log io.Writer
}

// Shard is shard I of N, writing its part file into Dir.
type Shard struct {
	N, I int
	Dir  string
}

// Exec does the runs at indices idx and calls put(i, r) for each that
// finishes, serially; its error is a failed or interrupted run.
type Exec[R any] func(ctx context.Context, idx []int, put func(i int, r R)) error

// ErrIncomplete is returned by Run for a shard stopped before all of its
// runs finished: its part file, marked partial, holds those that did.
var ErrIncomplete = errors.New("sweep: shard incomplete")

// DirError is a failure to create the part directory (Op "create") or
// to write a file in it (Op "write").
type DirError struct {
	Op, Dir string
	Err     error
}

func (e *DirError) Error() string { return "sweep: " + e.Op + " " + e.Dir + ": " + e.Err.Error() }

func (e *DirError) Unwrap() error { return e.Err }

// Run does a sweep's runs and returns their results by index, with done[i]
// set for each run that finished:
//   - Merged set: none are run; the results are decoded from the parts,
//     checked against the sweep's identities and, if R has a method
//     Check() error, by it;
//   - Shard set: the shard's runs (less those a partial part of an earlier
//     try of the same sweep holds) are run and written to its part file,
//     complete, or partial (ErrIncomplete) when ctx is cancelled; a run
//     that fails otherwise writes nothing. Run returns no results;
//   - otherwise every run, through exec.
func Run[R any](ctx context.Context, s *Sweep, exec Exec[R]) (results []R, done []bool, err error) {
	if s.Merged != nil {
		return decode[R](s)
	}
	if s.Shard != nil {
		return nil, nil, runShard(ctx, s, exec)
	}
	n := len(s.IDs)
	results, done = make([]R, n), make([]bool, n)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	err = exec(ctx, all, func(i int, r R) { results[i], done[i] = r, true })
	return results, done, err
}

// decode returns the results of a merged sweep.
func decode[R any](s *Sweep) ([]R, []bool, error) {
	m, n := s.Merged, len(s.IDs)
	if m.Total != n {
		return nil, nil, fmt.Errorf("the parts hold a sweep of %d runs; its arguments now give %d (a different herd?)", m.Total, n)
	}
	results, done := make([]R, n), make([]bool, n)
	for i := range n {
		if m.IDs[i] != s.IDs[i] {
			return nil, nil, fmt.Errorf("run %d is %q in the parts but %q now (a different herd?)", i, m.IDs[i], s.IDs[i])
		}
		var r R
		if err := json.Unmarshal(m.Raw[i], &r); err != nil {
			return nil, nil, fmt.Errorf("run %d (%s): corrupt result: %w", i, s.IDs[i], err)
		}
		if c, ok := any(r).(interface{ Check() error }); ok {
			if err := c.Check(); err != nil {
				return nil, nil, fmt.Errorf("run %d (%s): corrupt result: %w", i, s.IDs[i], err)
			}
		}
		results[i], done[i] = r, true
	}
	return results, done, nil
}

// runShard does one shard's runs and writes its part file.
func runShard[R any](ctx context.Context, s *Sweep, exec Exec[R]) error {
	sh := s.Shard
	p := &Part{
		Format: Format, Version: s.Version, Command: s.Command, Args: s.Args,
		Shards: sh.N, Shard: sh.I, Total: len(s.IDs), Owned: Owned(len(s.IDs), sh.N, sh.I),
	}
	if p.Args == nil {
		p.Args = []string{}
	}
	if p.Owned == nil {
		p.Owned = []int{}
	}
	if err := os.MkdirAll(sh.Dir, 0o755); err != nil {
		return &DirError{Op: "create", Dir: sh.Dir, Err: err} // before any run
	}
	path := filepath.Join(sh.Dir, PartName(sh.N, sh.I))
	have := earlierRuns(s, p, path)
	var todo []int
	for _, i := range p.Owned {
		if _, ok := have[i]; !ok {
			todo = append(todo, i)
		}
	}
	got := map[int]json.RawMessage{}
	var encErr error
	runErr := exec(ctx, todo, func(i int, r R) {
		b, err := json.Marshal(r)
		if err != nil && encErr == nil {
			encErr = fmt.Errorf("run %d: %w", i, err)
		}
		got[i] = b
	})
	if encErr != nil {
		return encErr
	}
	if runErr != nil && ctx.Err() == nil {
		return runErr // a failed run: no part file, the shard is reported missing
	}
	for _, i := range p.Owned {
		raw, ok := have[i]
		if !ok {
			raw, ok = got[i]
		}
		if ok {
			p.Results = append(p.Results, Record{Index: i, ID: s.IDs[i], Result: raw})
		}
	}
	p.Complete = len(p.Results) == len(p.Owned)
	if err := p.Write(path); err != nil {
		return &DirError{Op: "write", Dir: sh.Dir, Err: err}
	}
	state := "complete"
	if !p.Complete {
		state = "partial"
	}
	logf(s.Log, "herd %s: shard %d of %d: %d of %d runs (%d from an earlier try), %s: %s\n",
		s.Command, sh.I, sh.N, len(p.Results), len(p.Owned), len(have), state, path)
	if !p.Complete {
		return ErrIncomplete
	}
	return nil
}

// earlierRuns are the runs of p that an earlier try of the same sweep
// left in the part file at path, by index.
func earlierRuns(s *Sweep, p *Part, path string) map[int]json.RawMessage {
	have := map[int]json.RawMessage{}
	if old, err := ReadPart(path); err == nil && old.SameSweep(p) {
		for _, r := range old.Results {
			if r.ID == s.IDs[r.Index] {
				have[r.Index] = r.Result
			}
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		logf(s.Log, "herd %s: %s: %v; running the shard afresh\n", s.Command, path, err)
	}
	return have
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
