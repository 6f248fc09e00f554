package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
)

// outputFlags are the flags every table-writing command shares.
type outputFlags struct {
	format  *string
	workers *int
}

// addOutputFlags adds --workers (what is computed in parallel) and --format.
func addOutputFlags(fs *pflag.FlagSet, what string) *outputFlags {
	return &outputFlags{
		workers: fs.Int("workers", runtime.NumCPU(), what+" in parallel (the output does not depend on it)"),
		format:  fs.String("format", "text", "output format: text, csv or json"),
	}
}

// check validates the shared flags and returns the format.
func (o *outputFlags) check() (string, error) {
	f, err := table.ParseFormat(*o.format)
	if err != nil {
		return "", usagef("%v", err)
	}
	if *o.workers < 1 {
		return "", usagef("--workers %d: want an integer ≥ 1", *o.workers)
	}
	return f, nil
}

// writeTable writes t, marked partial when ctx was cancelled; extra runs
// after the table is written (plots) and before the interruption is
// reported.
func writeTable(ctx context.Context, e *env, t *table.Table, format string, extra func() error) error {
	if ctx.Err() != nil {
		t.Partial = true
	}
	if err := t.Write(e.stdout, format); err != nil {
		return err
	}
	// Warnings also go to stderr, whatever the format (CSV has no place
	// for them).
	for _, w := range t.Warnings {
		fmt.Fprintln(e.stderr, "warning: "+w)
	}
	if extra != nil {
		if err := extra(); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// checkPlotPath rejects a --plot file that cannot be written as a plot
// before any work is done.
func checkPlotPath(path string) error {
	if path == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg":
		return nil
	}
	return usagef("--plot %q: want a file name ending in .png or .svg", path)
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so path holds either its old content or all of
// the new.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	// CreateTemp makes the file private (0600); an output file is not.
	if err = f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
