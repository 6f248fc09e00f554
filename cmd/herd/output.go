package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"herd/cmd/internal/table"
	"herd/compare/sweep"
)

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
	if t.Command == "" && e.command != "" {
		t.Command = commandLine(e)
	}
	if err := t.Write(e.stdout, format); err != nil {
		return err
	}
	// Warnings also go to stderr, whatever the format (CSV has no place
	// for them), except where stdout and stderr are one terminal and the
	// table has just shown them there: each warning once on a screen.
	if format == "csv" || !sameTerminal(e.stdout, e.stderr) {
		for _, w := range t.Warnings {
			fmt.Fprintln(e.stderr, "warning: "+w)
		}
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
	case ".png", ".svg", ".pdf", ".eps":
		return checkOutputDir("plot", path)
	}
	return usagef("--plot %q: want a file name ending in .png, .svg, .pdf or .eps", path)
}

// checkOutputDir rejects an output file whose directory does not exist
// or is not a directory, or which is itself a directory, before any work
// is done.
func checkOutputDir(flag, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--%s %q: is a directory, want a file name", flag, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("--%s %q: the directory %q does not exist", flag, path, dir)
	case !fi.IsDir():
		return usagef("--%s %q: %q is not a directory", flag, path, dir)
	}
	return nil
}

// outputOnlyFlags choose where and how output goes, not what is computed;
// commandLine leaves them out, so that the recorded command line, like the
// numbers, does not depend on them (a merged sweep records the same line as
// the unsharded run).
var outputOnlyFlags = map[string]bool{
	"format": true, "plot": true, "points": true, "out": true, "workers": true,
	"shards": true, "shard": true, "slurm-script": true, "progress": true,
	"checkpoint": true, "checkpoint-every": true,
}

// commandLine is the command line CSV and JSON output record: "herd NAME"
// and every flag that was set, as --flag=value in the order the command
// defines its flags, less the output-only flags; each word is quoted for a
// POSIX shell where it needs it (shellQuote, shard.go). Built from the
// parsed flags rather than the raw arguments, it is the same however the
// flags were spelled, and the same for a merged sweep as for the unsharded
// run.
func commandLine(e *env) string {
	words := []string{"herd", e.command}
	if e.flags != nil {
		e.flags.VisitAll(func(f *pflag.Flag) { // definition order: SortFlags is false
			if f.Changed && !outputOnlyFlags[f.Name] {
				words = append(words, sweep.ShellQuote("--"+f.Name+"="+f.Value.String()))
			}
		})
	}
	return strings.Join(words, " ")
}

// readRecords reads a table that herd wrote, for a --from flag: CSV, or
// the JSON of --format json (its columns and rows, turned into the same
// records as the CSV, with numbers in their written form). path "-" reads
// stdin. Anything else is an error that says what was expected.
func readRecords(stdin io.Reader, path string) ([][]string, error) {
	var data []byte
	var err error
	if path == "-" {
		if stdin == nil {
			return nil, fmt.Errorf("-: no standard input")
		}
		data, err = io.ReadAll(stdin)
		path = "standard input"
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s is empty: want the CSV or JSON that herd wrote", path)
	}
	if trimmed[0] == '{' {
		recs, err := jsonRecords(trimmed)
		if err != nil {
			return nil, fmt.Errorf("%s: not herd's JSON output (--format json): %v", path, err)
		}
		return recs, nil
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: not CSV (want herd's --format csv or json output): %v", path, err)
	}
	return recs, nil
}

// jsonRecords turns herd's JSON table into CSV-like records: the header
// from "columns", then each row's cells in that order ("" for null).
func jsonRecords(data []byte) ([][]string, error) {
	var doc struct {
		Columns []string                     `json:"columns"`
		Rows    []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Columns) == 0 {
		return nil, fmt.Errorf("no \"columns\"")
	}
	recs := [][]string{doc.Columns}
	for i, row := range doc.Rows {
		rec := make([]string, len(doc.Columns))
		for j, c := range doc.Columns {
			raw, ok := row[c]
			if !ok {
				return nil, fmt.Errorf("row %d has no %q", i, c)
			}
			var s string
			switch {
			case string(raw) == "null":
			case len(raw) > 0 && raw[0] == '"':
				if err := json.Unmarshal(raw, &s); err != nil {
					return nil, fmt.Errorf("row %d %s: %v", i, c, err)
				}
			default:
				s = string(raw) // a number or boolean, as written
			}
			rec[j] = s
		}
		recs = append(recs, rec)
	}
	return recs, nil
}
