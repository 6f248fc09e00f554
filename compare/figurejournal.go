package compare

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"herd/sim"
)

// FigureJournal keeps the finished work of MakeFigures in a file (herd
// figures' DIR/.figures-journal), so that a run interrupted after hours
// keeps every simulator run and every bracket run it finished, and a
// rerun of the same command resumes from them. One line per finished
// unit, appended and flushed as the unit finishes (as RunLog does):
//
//	figures<TAB>-<TAB>the IDs of the figures a run set out to make (1,5,7)
//	run<TAB>sim.Config.Key and seed<TAB>the sim.Result's fields
//	bracket<TAB>RunRecord.Key<TAB>the RunRecord as JSON
//
// Floats are written with strconv's 'g' format, precision −1 (JSON's
// float64 encoding is the same), so they read back bit for bit and a
// resumed run writes the bytes of an uninterrupted one. A torn last
// line (the process killed mid-write) is ignored and cut off.
//
// The first line is FigureJournalMagic, the second the settings the
// numbers depend on (quick and seed): OpenFigureJournal refuses a journal
// of other settings (a *FigureJournalMismatchError), so runs of --quick
// and full length, or of two seeds, never mix. Model points and model
// edges are not journaled: they are recomputed (deterministically).
type FigureJournal struct {
	path     string
	mu       sync.Mutex
	f        *os.File
	w        *bufio.Writer
	runs     map[string]sim.Result
	brackets map[string]RunRecord
	figures  map[string]bool // figures some run on the journal set out to make
	reused   atomic.Int64
	// afterPut, if set (tests), is called after each unit is recorded.
	afterPut func()
}

// FigureJournalMagic is a figure journal's first line.
const FigureJournalMagic = "# herd figures journal 1"

// figureJournalSettings is the journal's second line for s.
func figureJournalSettings(s FigureSettings) string {
	return fmt.Sprintf("# quick=%t seed=%d", s.Quick, s.Seed)
}

// FigureJournalMismatchError is OpenFigureJournal's refusal of a journal
// made with other settings.
type FigureJournalMismatchError struct {
	Path     string
	Have     string // the journal's settings line, "quick=true seed=1"
	Want     string // this run's
	Finished int    // units the journal holds
}

func (e *FigureJournalMismatchError) Error() string {
	return fmt.Sprintf("%s holds %d finished runs of an interrupted herd figures with %s, not this run's %s: "+
		"run that command again to finish it, or delete the file to start afresh", e.Path, e.Finished, e.Have, e.Want)
}

// OpenFigureJournal opens the journal at path for settings s, creating it
// if need be, with the units it holds.
func OpenFigureJournal(path string, s FigureSettings) (*FigureJournal, error) {
	j := &FigureJournal{path: path, runs: map[string]sim.Result{}, brackets: map[string]RunRecord{}, figures: map[string]bool{}}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	complete := len(data)
	if complete > 0 && data[complete-1] != '\n' {
		complete = bytes.LastIndexByte(data, '\n') + 1 // drop a torn last line
	}
	data = data[:complete]
	want := figureJournalSettings(s)
	if len(data) > 0 {
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if lines[0] != FigureJournalMagic {
			return nil, fmt.Errorf("compare: %s is not a herd figures journal (its first line is %.60q, want %q): move it away", path, lines[0], FigureJournalMagic)
		}
		if len(lines) < 2 {
			complete = 0 // torn before the settings: start afresh
		} else {
			for i, l := range lines[2:] {
				if err := j.read(l); err != nil {
					return nil, fmt.Errorf("compare: %s:%d: a corrupt figures journal (delete it to start afresh): %w", path, i+3, err)
				}
			}
			if lines[1] != want && len(j.runs)+len(j.brackets) == 0 {
				complete = 0 // keeps nothing: start afresh
				j.figures = map[string]bool{}
			} else if lines[1] != want {
				return nil, &FigureJournalMismatchError{Path: path, Have: strings.TrimPrefix(lines[1], "# "),
					Want: strings.TrimPrefix(want, "# "), Finished: len(j.runs) + len(j.brackets)}
			}
		}
	}
	if j.f, j.w, err = openAppend(path, complete, FigureJournalMagic, want); err != nil {
		return nil, err
	}
	return j, nil
}

// read takes one complete line.
func (j *FigureJournal) read(line string) error {
	kind, rest, _ := strings.Cut(line, "\t")
	key, val, ok := strings.Cut(rest, "\t")
	if !ok {
		return fmt.Errorf("%.60q: want kind, key and value separated by tabs", line)
	}
	switch kind {
	case "figures":
		for _, id := range strings.Split(val, ",") {
			j.figures[id] = true
		}
	case "run":
		r, err := parseJournalResult(val)
		if err != nil {
			return err
		}
		j.runs[key] = r
	case "bracket":
		var r RunRecord
		if err := json.Unmarshal([]byte(val), &r); err != nil || !r.Plausible() || r.Key() != key {
			return fmt.Errorf("bracket run %.60q: not a plausible run record", val)
		}
		j.brackets[key] = r
	default:
		return fmt.Errorf("unknown kind %q", kind)
	}
	return nil
}

// formatJournalResult writes a run's result (Trace is not kept: the
// figures keep none).
func formatJournalResult(r sim.Result) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return strings.Join([]string{g(r.ResponseMean), strconv.FormatInt(r.Jobs, 10), strconv.FormatInt(r.Arrivals, 10),
		g(r.BoardMean), strconv.Itoa(r.Records), g(r.ProbesMean), g(r.End), strconv.FormatBool(r.Stopped)}, "\t")
}

func parseJournalResult(s string) (sim.Result, error) {
	f := strings.Split(s, "\t")
	if len(f) != 8 {
		return sim.Result{}, fmt.Errorf("run result %.60q: %d fields, want 8", s, len(f))
	}
	var r sim.Result
	var e [8]error
	r.ResponseMean, e[0] = strconv.ParseFloat(f[0], 64)
	r.Jobs, e[1] = strconv.ParseInt(f[1], 10, 64)
	r.Arrivals, e[2] = strconv.ParseInt(f[2], 10, 64)
	r.BoardMean, e[3] = strconv.ParseFloat(f[3], 64)
	r.Records, e[4] = strconv.Atoi(f[4])
	r.ProbesMean, e[5] = strconv.ParseFloat(f[5], 64)
	r.End, e[6] = strconv.ParseFloat(f[6], 64)
	r.Stopped, e[7] = strconv.ParseBool(f[7])
	if err := errors.Join(e[:]...); err != nil {
		return sim.Result{}, fmt.Errorf("run result %.60q: %w", s, err)
	}
	return r, nil
}

// journalable reports whether key can be a journal key.
func journalable(key string) bool { return !strings.ContainsAny(key, "\t\n") }

// run returns the journaled result of the run under key; a nil journal
// holds nothing.
func (j *FigureJournal) run(key string) (sim.Result, bool) {
	if j == nil {
		return sim.Result{}, false
	}
	j.mu.Lock()
	r, ok := j.runs[key]
	j.mu.Unlock()
	if ok {
		j.reused.Add(1)
	}
	return r, ok
}

// putRun records a finished run (a nil journal records nothing).
func (j *FigureJournal) putRun(key string, r sim.Result) error {
	if j == nil || r.Trace != nil || !journalable(key) {
		return nil
	}
	return j.put(func() { j.runs[key] = r }, "run\t"+key+"\t"+formatJournalResult(r))
}

// put records a unit with add (under the lock) and appends its line.
func (j *FigureJournal) put(add func(), line string) error {
	err := j.write(add, line)
	if j.afterPut != nil {
		j.afterPut()
	}
	return err
}

// write appends line, calling add under the lock.
func (j *FigureJournal) write(add func(), line string) error {
	j.mu.Lock()
	add()
	j.w.WriteString(line)
	j.w.WriteByte('\n')
	err := j.w.Flush()
	j.mu.Unlock()
	return err
}

// bracketStore is the journal as a bracket's Store, or nil (no store)
// for a nil journal.
func (j *FigureJournal) bracketStore() Store {
	if j == nil {
		return nil
	}
	return journalStore{j}
}

// journalStore keeps a bracket's runs in the journal.
type journalStore struct{ j *FigureJournal }

func (s journalStore) Get(key string) (RunRecord, bool) {
	s.j.mu.Lock()
	r, ok := s.j.brackets[key]
	s.j.mu.Unlock()
	if ok {
		s.j.reused.Add(1)
	}
	return r, ok
}

func (s journalStore) Put(r RunRecord) error {
	key := r.Key()
	b, err := json.Marshal(r)
	if err != nil || !journalable(key) {
		return err
	}
	return s.j.put(func() { s.j.brackets[key] = r }, "bracket\t"+key+"\t"+string(b))
}

// addFigures records that a run sets out to make figures ids.
func (j *FigureJournal) addFigures(ids []string) error {
	if j == nil {
		return nil
	}
	return j.write(func() {
		for _, id := range ids {
			j.figures[id] = true
		}
	}, "figures\t-\t"+strings.Join(ids, ","))
}

// Covers reports whether figures ids include every figure that a run on
// the journal (this one included) set out to make: once they are written,
// nothing the journal keeps is needed.
func (j *FigureJournal) Covers(ids []string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	have := map[string]bool{}
	for _, id := range ids {
		have[id] = true
	}
	for id := range j.figures {
		if !have[id] {
			return false
		}
	}
	return true
}

// Len returns the number of finished units (simulator runs and bracket
// runs) the journal holds.
func (j *FigureJournal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.runs) + len(j.brackets)
}

// Reused returns how many units were taken from the journal rather than
// computed (a unit asked for twice counts twice).
func (j *FigureJournal) Reused() int { return int(j.reused.Load()) }

// Abandon closes the journal of a run that failed or was interrupted and
// returns the finished units it keeps for a rerun; one that keeps none
// is deleted.
func (j *FigureJournal) Abandon() int {
	n := j.Len()
	if n == 0 && j.Close() == nil {
		os.Remove(j.path)
	}
	return n
}

// Finish closes the journal of a run that made every figure of ids and
// deletes it, its work done, unless a run on it set out to make figures
// that ids lack (Covers: an interrupted run of all figures, then one of
// figure 3 alone): it is then kept for them, and Finish reports false.
func (j *FigureJournal) Finish(ids []string) (deleted bool, err error) {
	covered := j.Covers(ids)
	if err := j.Close(); err != nil || !covered {
		return false, err
	}
	return true, os.Remove(j.path)
}

// Close flushes and closes the file.
func (j *FigureJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.w.Flush()
	return errors.Join(err, j.f.Close())
}
