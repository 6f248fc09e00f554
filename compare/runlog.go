package compare

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"herd/fleet"
)

// RunLog is a Store kept in a file (herd bracket --out): one CSV line per
// finished run, appended and flushed as each run finishes, so an interrupted bracket loses at
// most the runs in flight. A torn last line is ignored on reading.
type RunLog struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	runs map[string]RunRecord
}

// RunLogMagic is the first line of a run log: OpenRunLog refuses any
// other file. Logs written before it begin with RunLogHeader, which is
// accepted too.
const RunLogMagic = "# herd bracket run log 1"

// RunLogHeader is a run log's CSV header, its second line.
const RunLogHeader = "servers,dispatchers,load,scaled,refreshes,rep,seed,tipped_at"

// OpenRunLog opens the run log at path, creating it if need be, with the
// runs it holds; a non-empty file that is not a run log is a
// *NotRunLogError.
func OpenRunLog(path string) (*RunLog, error) {
	s := &RunLog{runs: map[string]RunRecord{}}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := checkRunLogHead(data); err != nil {
		return nil, err
	}
	complete := len(data)
	if complete > 0 && data[complete-1] != '\n' {
		complete = bytes.LastIndexByte(data, '\n') + 1 // drop a torn last line
	}
	if s.runs, err = readRunLog(path, data[:complete]); err != nil {
		return nil, err
	}
	if s.f, s.w, err = openAppend(path, complete, RunLogMagic, RunLogHeader); err != nil {
		return nil, err
	}
	return s, nil
}

// openAppend opens the file at path for appending after its first
// complete bytes (a torn last line is cut off), writing head's lines
// first when it keeps none; the journals of bracket and figures share it.
func openAppend(path string, complete int, head ...string) (*os.File, *bufio.Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Truncate(int64(complete)); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(int64(complete), io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	w := bufio.NewWriter(f)
	if complete == 0 {
		for _, h := range head {
			fmt.Fprintln(w, h)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, w, nil
}

// readRunLog reads a run log's complete lines.
func readRunLog(path string, data []byte) (map[string]RunRecord, error) {
	runs := map[string]RunRecord{}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.Comment = '#'
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return runs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: a corrupt run log: %w", path, err)
		}
		if len(rec) == 8 && rec[0] == "servers" {
			continue
		}
		if len(rec) != 8 && len(rec) != 9 {
			line, _ := r.FieldPos(0)
			return nil, fmt.Errorf("%s:%d: a corrupt run log: %d fields, want 8 (9 with sizes other than exp)", path, line, len(rec))
		}
		x, ok := parseRunRecord(rec)
		if !ok {
			line, _ := r.FieldPos(0)
			return nil, fmt.Errorf("%s:%d: a corrupt run log: %q", path, line, strings.Join(rec, ","))
		}
		runs[x.Key()] = x
	}
}

// parseRunRecord reads one run log line of 8 or 9 fields; false: corrupt.
func parseRunRecord(rec []string) (RunRecord, bool) {
	var x RunRecord
	var e [8]error
	x.Servers, e[0] = strconv.Atoi(rec[0])
	x.Dispatchers, e[1] = strconv.Atoi(rec[1])
	x.Load, e[2] = strconv.ParseFloat(rec[2], 64)
	x.Scaled, e[3] = strconv.ParseFloat(rec[3], 64)
	x.Refreshes, e[4] = strconv.Atoi(rec[4])
	x.Rep, e[5] = strconv.Atoi(rec[5])
	x.Seed, e[6] = strconv.ParseUint(rec[6], 10, 64)
	x.TippedAt, e[7] = strconv.Atoi(rec[7])
	if len(rec) == 9 {
		x.Sizes = rec[8] // a ninth field: sizes other than exp
		if z, err := fleet.ParseSizes(x.Sizes); err != nil || z.Kind == fleet.Exp {
			e[0] = errors.Join(e[0], fmt.Errorf("sizes %q", x.Sizes))
		}
	}
	return x, errors.Join(e[:]...) == nil && x.Plausible()
}

// Get returns the run recorded under key.
func (s *RunLog) Get(key string) (RunRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[key]
	return r, ok
}

// Put records r and flushes it to the file.
func (s *RunLog) Put(r RunRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[r.Key()] = r
	fmt.Fprintf(s.w, "%d,%d,%s,%s,%d,%d,%d,%d", r.Servers, r.Dispatchers,
		strconv.FormatFloat(r.Load, 'g', -1, 64), strconv.FormatFloat(r.Scaled, 'g', -1, 64),
		r.Refreshes, r.Rep, r.Seed, r.TippedAt)
	if r.Sizes != "" {
		fmt.Fprintf(s.w, ",%s", r.Sizes) // exp lines keep their eight fields
	}
	fmt.Fprintln(s.w)
	return s.w.Flush()
}

// Close flushes and closes the file.
func (s *RunLog) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.w.Flush()
	return errors.Join(err, s.f.Close())
}

// checkRunLogHead refuses a non-empty --out file that is not a herd run
// log: its first line must be RunLogMagic (or, in logs written before
// RunLogMagic, RunLogHeader).
func checkRunLogHead(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if string(first) == RunLogMagic || string(first) == RunLogHeader {
		return nil
	}
	if len(first) > 60 {
		first = append(first[:60:60], "…"...)
	}
	return &NotRunLogError{First: string(first)}
}

// NotRunLogError is OpenRunLog's refusal of a file that is not a run log.
type NotRunLogError struct {
	First string // the file's first line, cut to 60 bytes
}

func (e *NotRunLogError) Error() string {
	return fmt.Sprintf("the file is not a herd bracket run log (its first line is %q, want %q): give a new file name", e.First, RunLogMagic)
}

// Records returns the runs the log holds, by key.
func (s *RunLog) Records() map[string]RunRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.runs)
}

// Plausible reports whether a run read back from a run log is within
// range.
func (r RunRecord) Plausible() bool {
	return r.Servers >= 1 && r.Dispatchers >= 1 && r.Load > 0 && r.Load < 1 &&
		r.Scaled > 0 && !math.IsInf(r.Scaled, 0) && r.Refreshes >= 1 && r.Rep >= 0 &&
		r.TippedAt >= -1 && r.TippedAt <= r.Refreshes
}
