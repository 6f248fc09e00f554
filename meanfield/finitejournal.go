package meanfield

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
)

// A finite-N edge search (FiniteEdge) is a sequence of probes, each a set
// of independent runs whose seeds follow from the master seed, the probe's
// place and the replication; where the search goes next depends on the
// runs' outcomes alone. The journal keeps each finished run's outcome, so a
// search given the journal of an interrupted one takes those outcomes
// instead of running them again and ends with the uninterrupted search's
// result, Maps included (TestFiniteJournalResume). A run stopped part way
// is not kept: at N = 1,600 with phase-type sizes a run is minutes and a
// search hours, so the run is the unit that is lost.

// FiniteRunRecord is one finished run of a FiniteEdge probe: Key is the
// probe's seed key (its period over the map's edge, an exact binary
// fraction of the search's scan and bisection), Rep the replication, Tip
// the period at which it tipped (0: it did not within the run length) and
// Maps the maps it made (0 for the servers' runs).
type FiniteRunRecord struct {
	Key  float64 `json:"key"`
	Rep  int     `json:"rep"`
	Tip  int     `json:"tip"`
	Maps int     `json:"maps"`
}

// FiniteJournal keeps a FiniteEdge search's finished runs
// (FiniteEdgeSettings.Journal). Use one journal for one search (one
// FiniteEdgeSettings but for Workers, Stop and Progress); it is safe for
// concurrent use by the search's workers. The zero value is an empty
// journal.
type FiniteJournal struct {
	mu   sync.Mutex
	runs map[finiteRunKey]FiniteRunRecord
}

type finiteRunKey struct {
	key uint64
	rep int
}

// NewFiniteJournal returns a journal holding recs (an earlier search's
// Records), checked: each key positive and finite, each replication in
// [0, 1000), each tip in [0, 1e6] and maps ≥ 0, no run twice.
func NewFiniteJournal(recs []FiniteRunRecord) (*FiniteJournal, error) {
	j := &FiniteJournal{runs: make(map[finiteRunKey]FiniteRunRecord, len(recs))}
	for _, r := range recs {
		switch {
		case !(r.Key > 0 && !math.IsInf(r.Key, 1)):
			return nil, fmt.Errorf("meanfield: finite journal: run key %v, want a positive finite value", r.Key)
		case r.Rep < 0 || r.Rep >= 1000:
			return nil, fmt.Errorf("meanfield: finite journal: replication %d, want an integer in [0, 1000)", r.Rep)
		case r.Tip < 0 || r.Tip > 1e6 || r.Maps < 0:
			return nil, fmt.Errorf("meanfield: finite journal: run (key %v, replication %d) tips at %d after %d maps, want a tip in [0, 1e6] and maps ≥ 0", r.Key, r.Rep, r.Tip, r.Maps)
		}
		k := finiteRunKey{math.Float64bits(r.Key), r.Rep}
		if _, dup := j.runs[k]; dup {
			return nil, fmt.Errorf("meanfield: finite journal: run (key %v, replication %d) twice", r.Key, r.Rep)
		}
		j.runs[k] = r
	}
	return j, nil
}

// Records returns the runs kept, ordered by key and replication, so that
// the same runs give the same list however the workers finished them.
func (j *FiniteJournal) Records() []FiniteRunRecord {
	j.mu.Lock()
	out := make([]FiniteRunRecord, 0, len(j.runs))
	for _, r := range j.runs {
		out = append(out, r)
	}
	j.mu.Unlock()
	slices.SortFunc(out, func(a, b FiniteRunRecord) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Rep, b.Rep))
	})
	return out
}

// Len is the number of runs kept.
func (j *FiniteJournal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.runs)
}

// recall returns the run (key, rep) if it is kept; a nil journal keeps
// none.
func (j *FiniteJournal) recall(key float64, rep int) (FiniteRunRecord, bool) {
	if j == nil {
		return FiniteRunRecord{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.runs[finiteRunKey{math.Float64bits(key), rep}]
	return r, ok
}

// keep records a finished run; a nil journal drops it.
func (j *FiniteJournal) keep(r FiniteRunRecord) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.runs == nil {
		j.runs = make(map[finiteRunKey]FiniteRunRecord)
	}
	j.runs[finiteRunKey{math.Float64bits(r.Key), r.Rep}] = r
}

// MarshalBinary encodes the runs kept (JSON of Records: every float64
// exactly, in the order Records gives).
func (j *FiniteJournal) MarshalBinary() ([]byte, error) {
	return json.Marshal(j.Records())
}

// UnmarshalBinary replaces the journal's runs by those MarshalBinary
// encoded, checked as NewFiniteJournal checks them.
func (j *FiniteJournal) UnmarshalBinary(data []byte) error {
	var recs []FiniteRunRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return fmt.Errorf("meanfield: finite journal: %v", err)
	}
	k, err := NewFiniteJournal(recs)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.runs = k.runs
	j.mu.Unlock()
	return nil
}
