package meanfield

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"time"
)

// This file keeps an edge search's journal (EdgeSettings.Journal), so
// that a search of hours (heavy tails, loads near 1) can be stopped and
// continued. Edge is deterministic: given its settings, it makes the same
// runs in the same order (runBatch), whatever Workers. Its work is
// iteration runs (runOn), the herd's classification (herd) and the
// crossing's spectra (crossing); the journal keeps the outcome of each,
// keyed by what determines it (the period, the start, the tolerance), and
// the state of the plain runs in progress (RunState, between two maps). A
// search given the journal of an earlier one takes each outcome found
// there instead of computing it, with its cost, and continues a run in
// progress from its state, so its result, Maps and Work included, is the
// uninterrupted search's (TestEdgeJournalResume).

// EdgeJournal is what an edge search has computed: its finished runs,
// its herd classification and spectra, and the state of its plain runs
// in progress. Use one journal for one search (one EdgeSettings); it is
// safe for concurrent use by the search's workers.
type EdgeJournal struct {
	// Every is how often a plain run in progress saves its state (at the
	// end of the first map this long after its last save, and when the
	// search is stopped); zero: only when stopped.
	Every time.Duration

	mu    sync.Mutex
	d     journalData
	saved map[string]time.Time
}

// journalData is what MarshalBinary writes.
type journalData struct {
	Runs    map[string]journalRun
	Herds   map[string]journalHerd
	Spectra map[string]journalSpectrum
	Open    map[string]journalOpen
}

// journalRun is a finished iteration run (runOut without its error: a run
// that fails ends the search and is not kept).
type journalRun struct {
	OK   bool
	Att  Attractor
	Maps int
	Work float64
}

// journalHerd is a finished herd classification (findHerdAttractor).
type journalHerd struct {
	H            HerdAttractor
	NotConverged bool
}

// journalSpectrum is a finished spectrum (leadingEigenvalues).
type journalSpectrum struct {
	Ev   []complex128
	Maps int
}

// journalOpen is a plain run in progress: its RunState, and what runOn
// keeps beside it (the maps in a row leaving the basin, the run's work).
type journalOpen struct {
	State *RunState
	High  int
	Work  float64
}

// NewEdgeJournal returns an empty journal.
func NewEdgeJournal() *EdgeJournal {
	return &EdgeJournal{d: journalData{Runs: map[string]journalRun{}, Herds: map[string]journalHerd{},
		Spectra: map[string]journalSpectrum{}, Open: map[string]journalOpen{}}, saved: map[string]time.Time{}}
}

// MarshalBinary encodes the journal (encoding/gob: every float64 exactly,
// NaN included).
func (j *EdgeJournal) MarshalBinary() ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(&j.d)
	return b.Bytes(), err
}

// UnmarshalBinary replaces the journal's contents by those MarshalBinary
// encoded.
func (j *EdgeJournal) UnmarshalBinary(data []byte) error {
	var d journalData
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&d); err != nil {
		return fmt.Errorf("meanfield: edge journal: %w", err)
	}
	// gob leaves empty maps nil.
	fresh := NewEdgeJournal()
	if d.Runs == nil {
		d.Runs = fresh.d.Runs
	}
	if d.Herds == nil {
		d.Herds = fresh.d.Herds
	}
	if d.Spectra == nil {
		d.Spectra = fresh.d.Spectra
	}
	if d.Open == nil {
		d.Open = fresh.d.Open
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.d, j.saved = d, map[string]time.Time{}
	return nil
}

// JournalCounts is what a journal holds: finished runs, herd
// classifications and spectra, runs saved part way and their maps so far.
type JournalCounts struct {
	Runs, Herds, Spectra, Open int
	OpenMaps                   []int
}

// Counts reports what the journal holds.
func (j *EdgeJournal) Counts() JournalCounts {
	j.mu.Lock()
	defer j.mu.Unlock()
	c := JournalCounts{Runs: len(j.d.Runs), Herds: len(j.d.Herds), Spectra: len(j.d.Spectra), Open: len(j.d.Open)}
	for _, o := range j.d.Open {
		c.OpenMaps = append(c.OpenMaps, o.State.Maps)
	}
	slices.Sort(c.OpenMaps)
	return c
}

// journalKey names a computation by what determines it: a kind, numbers
// (exact bits) and a state (hashed).
func journalKey(kind string, state []float64, nums ...float64) string {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range state {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	s := fmt.Sprintf("%s/%d/%016x", kind, len(state), h.Sum64())
	for _, x := range nums {
		s += fmt.Sprintf("/%016x", math.Float64bits(x))
	}
	return s
}

// run returns the finished run named key, if the journal holds it.
func (j *EdgeJournal) run(key string) (runOut, bool) {
	if j == nil {
		return runOut{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.d.Runs[key]
	if !ok {
		return runOut{}, false
	}
	return runOut{ok: r.OK, att: r.Att, maps: r.Maps, work: r.Work}, true
}

// keepRun records the finished run key, unless it failed, and drops its
// saved state.
func (j *EdgeJournal) keepRun(key string, o runOut) {
	if j == nil || o.err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.d.Runs[key] = journalRun{OK: o.ok, Att: o.att, Maps: o.maps, Work: o.work}
	delete(j.d.Open, key)
	delete(j.saved, key)
}

// open returns the state saved for the run in progress named key.
func (j *EdgeJournal) open(key string) (journalOpen, bool) {
	if j == nil {
		return journalOpen{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	o, ok := j.d.Open[key]
	return o, ok
}

// due reports whether the run in progress named key should save its
// state now: when stopping, or Every after its last save (or its start).
func (j *EdgeJournal) due(key string, stopping bool) bool {
	if j == nil {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	last, ok := j.saved[key]
	if !ok {
		j.saved[key] = time.Now()
	}
	return stopping || (j.Every > 0 && ok && time.Since(last) >= j.Every)
}

// keepOpen saves the state of the run in progress named key.
func (j *EdgeJournal) keepOpen(key string, o journalOpen) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.d.Open[key] = o
	j.saved[key] = time.Now()
}

// dropOpen forgets the state of a run in progress that was cancelled.
func (j *EdgeJournal) dropOpen(key string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.d.Open, key)
	delete(j.saved, key)
}

// herd returns the finished classification named key.
func (j *EdgeJournal) herd(key string) (HerdAttractor, error, bool) {
	if j == nil {
		return HerdAttractor{}, nil, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	h, ok := j.d.Herds[key]
	if !ok {
		return HerdAttractor{}, nil, false
	}
	if h.NotConverged {
		return h.H, ErrNotConverged, true
	}
	return h.H, nil, true
}

// keepHerd records a finished classification.
func (j *EdgeJournal) keepHerd(key string, h HerdAttractor, err error) {
	if j == nil || (err != nil && !errors.Is(err, ErrNotConverged)) {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.d.Herds[key] = journalHerd{H: h, NotConverged: err != nil}
	delete(j.d.Open, key)
	delete(j.saved, key)
}

// findHerd is findHerdAttractor(m, board, hs) through the journal, as
// the run named key: taken from it when there, else computed, its state
// saved as it goes (Every, and when a stop ends it) and continued from
// the state saved, and kept once it ends other than stopped or failed
// (keepHerd; a run that ends on its own after a stop was asked for is
// kept too: with several workers one run may close its orbit while
// another is being stopped). A nil journal computes it.
func (j *EdgeJournal) findHerd(key string, m *RefreshMap, board []float64, hs HerdSettings) (HerdAttractor, error) {
	if j == nil {
		return findHerdAttractor(m, board, hs)
	}
	if h, err, ok := j.herd(key); ok {
		return h, err
	}
	if st, ok := j.open(key); ok {
		hs.Resume = st.State
	}
	hs.Checkpoint = func(stopping bool, state func() *RunState) {
		if j.due(key, stopping) {
			j.keepOpen(key, journalOpen{State: state()})
		}
	}
	h, err := findHerdAttractor(m, board, hs)
	j.keepHerd(key, h, err)
	return h, err
}

// spectrum returns the finished spectrum named key.
func (j *EdgeJournal) spectrum(key string) ([]complex128, int, bool) {
	if j == nil {
		return nil, 0, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.d.Spectra[key]
	return s.Ev, s.Maps, ok
}

// keepSpectrum records a finished spectrum.
func (j *EdgeJournal) keepSpectrum(key string, ev []complex128, maps int) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.d.Spectra[key] = journalSpectrum{Ev: ev, Maps: maps}
}
