package compare

import (
	"context"
	"fmt"
	"math"
)

// Fixed-grid brackets (BracketSettings.Fixed) are a list of runs known in
// advance, so they can be split over machines (package sweep's shards)
// and put back together: each shard runs Bracket with a ShardStore, which
// claims every run but the shard's own, so only those are simulated; the
// merge runs Bracket with a RunSet holding every run of the parts, so
// nothing is simulated and the brackets are exactly the unsplit ones.

// FixedGridRuns lists the runs of fixed-grid brackets in the order Bracket
// does them: each setting (N), each grid value, each replication; a run
// repeated (a grid value given twice, or an N given twice) is listed
// once. TippedAt is left 0.
func FixedGridRuns(set []BracketSettings) []RunRecord {
	var recs []RunRecord
	seen := map[string]bool{}
	for _, s := range set {
		d := s.withDefaults()
		for _, x := range s.Grid {
			for rep := 0; rep < d.Runs; rep++ {
				r := RunRecord{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Scaled: x,
					Refreshes: d.Refreshes, Rep: rep, Seed: d.Seed, Sizes: RecordSizes(s.Sizes)}
				if !seen[r.Key()] {
					seen[r.Key()] = true
					recs = append(recs, r)
				}
			}
		}
	}
	return recs
}

// RunShard does the runs at indices own of runs (FixedGridRuns(set)) for
// the fixed-grid brackets of set: it brackets each setting of which the
// shard owns a run still to do, through a ShardStore that hands each run
// the shard finishes to put, and without the model's edge (only the runs
// are wanted). h's Begin and End, if set, bracket each bracket.
func RunShard(ctx context.Context, set []BracketSettings, runs []RunRecord, own []int, put func(i int, r RunRecord), h BracketsHooks) error {
	st := NewShardStore(runs, own, put)
	for _, s := range set {
		if !st.OwnsAny(s) {
			continue
		}
		s.ModelScaled = math.NaN()
		if _, err := h.bracket(ctx, s, st); err != nil {
			return err
		}
		if err := st.Err(); err != nil {
			return err
		}
	}
	return nil
}

// ShardStore is the Store of one shard of a fixed-grid bracket sweep: Get
// claims every run the shard does not own (as survived, so Bracket skips
// it) and Put hands the shard's own runs to put, once each.
type ShardStore struct {
	index map[string]int // run key → index in the sweep's list
	own   map[int]bool   // the shard's runs not yet done
	put   func(i int, r RunRecord)
	err   error
}

// NewShardStore returns the store of the shard owning the runs at indices
// own of runs (FixedGridRuns' list); put(i, r) receives each run i the
// shard finishes.
func NewShardStore(runs []RunRecord, own []int, put func(i int, r RunRecord)) *ShardStore {
	s := &ShardStore{index: make(map[string]int, len(runs)), own: make(map[int]bool, len(own)), put: put}
	for i, r := range runs {
		s.index[r.Key()] = i
	}
	for _, i := range own {
		s.own[i] = true
	}
	return s
}

// OwnsAny reports whether the shard owns a run of bracket b still to do.
func (s *ShardStore) OwnsAny(b BracketSettings) bool {
	for _, r := range FixedGridRuns([]BracketSettings{b}) {
		if s.own[s.index[r.Key()]] {
			return true
		}
	}
	return false
}

// Err is the first run Bracket asked for that is not in the sweep's list
// (a bug: the settings and the list disagree).
func (s *ShardStore) Err() error { return s.err }

// Get claims every run but the shard's own.
func (s *ShardStore) Get(key string) (RunRecord, bool) {
	i, ok := s.index[key]
	if !ok {
		if s.err == nil {
			s.err = fmt.Errorf("bracket run %q is not in the sweep's list (a bug)", key)
		}
		return RunRecord{TippedAt: -1}, true
	}
	if s.own[i] {
		return RunRecord{}, false
	}
	return RunRecord{TippedAt: -1}, true // another shard's: not run here
}

// Put hands one of the shard's runs to put.
func (s *ShardStore) Put(r RunRecord) error {
	i, ok := s.index[r.Key()]
	if !ok || !s.own[i] {
		return fmt.Errorf("bracket run %q is not this shard's (a bug)", r.Key())
	}
	delete(s.own, i) // a run repeated under another N is done once
	s.put(i, r)
	return nil
}

// RunSet is a Store holding every run of a merged sweep, by key: Bracket
// finds all of its runs there, and a run missing from it is an error.
type RunSet map[string]RunRecord

// Get returns the run with key.
func (s RunSet) Get(key string) (RunRecord, bool) {
	r, ok := s[key]
	return r, ok
}

// Put refuses: every run must be in the set already.
func (s RunSet) Put(r RunRecord) error {
	return fmt.Errorf("run %q is not in the parts", r.Key())
}
