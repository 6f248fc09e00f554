package meanfield

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestEdgeJournalResume: a search stopped part way several times (within
// runs, so that plain runs save their state mid-run, and in the herd's
// classification), its journal encoded and decoded at each stop, and run
// again each time with the journal, ends with the uninterrupted search's
// result, Maps and Work included, whatever Workers; and a search given a
// finished search's journal makes no map.
func TestEdgeJournalResume(t *testing.T) {
	t.Parallel()
	base := EdgeSettings{Dispatchers: 5, Load: 0.9, HerdFull: true, HerdMaps: 120}
	want, err := Edge(base)
	if err != nil {
		t.Fatal(err)
	}
	want.Runtime, want.Herd.Runtime = 0, 0
	wantS := fmt.Sprintf("%+v", want)

	j := NewEdgeJournal()
	var mid int // runs saved part way, over the stops
	total := 0
	for i, after := range []int64{25, 60, 45, 80, 100, 1 << 40} {
		s := base
		s.Workers = 1 + i%2
		s.Journal = j
		var made *atomic.Int64
		s.Mapped, s.Stop, made = stopAtMaps(after)
		r, err := Edge(s)
		total += int(made.Load())
		mid += j.Counts().Open
		j = reopen(t, j)
		if err == nil {
			r.Runtime, r.Herd.Runtime = 0, 0
			if got := fmt.Sprintf("%+v", r); got != wantS {
				t.Fatalf("after %d stops: %s\nuninterrupted: %s", i, got, wantS)
			}
			if mid == 0 {
				t.Error("no run was saved part way: the stops fell between runs only")
			}
			t.Logf("%d maps over %d searches stopped and resumed; %d uninterrupted (with the herd's)", total, i+1, want.Maps)
			// A finished search's journal: the same result, and with one
			// worker (none started ahead, to be cancelled) no map.
			s.Stop, s.Workers = nil, 1
			made.Store(0)
			r, err := Edge(s)
			if err != nil {
				t.Fatal(err)
			}
			r.Runtime, r.Herd.Runtime = 0, 0
			if got := fmt.Sprintf("%+v", r); got != wantS || made.Load() != 0 {
				t.Errorf("from a finished journal: %d maps made, result %s", made.Load(), got)
			}
			return
		}
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("stop %d: %v", i, err)
		}
	}
	t.Fatal("the search did not finish within the stops")
}

// TestConfirmEdgeJournalResume: a confirmation stopped part way, again
// and again, and continued each time with its journal (encoded and
// decoded between the stops), ends with the uninterrupted confirmation,
// Maps included, without making any map twice; with any number of workers the
// confirmation is the same; and from a finished journal it makes no map.
func TestConfirmEdgeJournalResume(t *testing.T) {
	t.Parallel()
	const edge = 289.92 // as TestConfirmEdge
	base := ConfirmSettings{Dispatchers: 5, Load: 0.9, Edge: edge}
	show := func(c EdgeConfirmation) string {
		c.Runtime = 0
		for i := range c.BelowKinds {
			c.BelowKinds[i].Runtime = 0
		}
		return fmt.Sprintf("%+v", c)
	}
	want, err := ConfirmEdge(base)
	if err != nil {
		t.Fatal(err)
	}
	wantS := show(want)
	for _, w := range []int{2, 4} {
		s := base
		s.Workers = w
		c, err := ConfirmEdge(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := show(c); got != wantS {
			t.Errorf("%d workers: %s\none: %s", w, got, wantS)
		}
	}

	j := NewEdgeJournal()
	j.Every = time.Nanosecond // every map
	mid, total := 0, 0
	for i, after := range []int64{20, 35, 50, 70, 1 << 40} {
		s := base
		s.Workers = 1 + i%3
		s.Journal = j
		var made *atomic.Int64
		var mapped func()
		mapped, s.Stop, made = stopAtMaps(after)
		s.Mapped = func(int, MapReport) { mapped() }
		c, err := ConfirmEdge(s)
		total += int(made.Load())
		mid += j.Counts().Open
		j = reopen(t, j)
		if err == nil {
			if got := show(c); got != wantS {
				t.Fatalf("after %d stops: %s\nuninterrupted: %s", i, got, wantS)
			}
			if mid == 0 || total != want.Maps {
				t.Errorf("%d runs saved part way, %d maps made over the stops: want some, and %d (no map twice)", mid, total, want.Maps)
			}
			s.Stop = nil
			made.Store(0)
			c, err := ConfirmEdge(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := show(c); got != wantS || made.Load() != 0 {
				t.Errorf("from a finished journal: %d maps made, %s", made.Load(), got)
			}
			return
		}
		if !errors.Is(err, ErrStopped) {
			t.Fatalf("stop %d: %v", i, err)
		}
	}
	t.Fatal("the confirmation did not finish within the stops")
}

// stopAtMaps returns a Mapped that counts the maps made and a Stop that
// reports true once after of them are made.
func stopAtMaps(after int64) (mapped func(), stop func() bool, made *atomic.Int64) {
	made = new(atomic.Int64)
	return func() { made.Add(1) }, func() bool { return made.Load() >= after }, made
}

// reopen is j encoded and decoded, as a checkpoint file carries it from a
// run to the next, with its Every.
func reopen(t *testing.T, j *EdgeJournal) *EdgeJournal {
	t.Helper()
	data, err := j.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r := NewEdgeJournal()
	r.Every = j.Every
	if err := r.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestConfirmEdgeKeepsFinishedRun: a run that ends on its own is kept in
// the journal even when a stop is asked for right after it (with several
// workers another run may be stopped as this one closes its orbit): the
// empty board's run above, stopped at the poll after its last map, is
// there finished, and the resumed confirmation does not make it again.
func TestConfirmEdgeKeepsFinishedRun(t *testing.T) {
	t.Parallel()
	base := ConfirmSettings{Dispatchers: 5, Load: 0.9, Edge: 289.92} // as TestConfirmEdge
	first := 0                                                       // maps of the run above
	base.Mapped = func(run int, r MapReport) {
		if run == 0 {
			first = max(first, r.Maps)
		}
	}
	want, err := ConfirmEdge(base)
	if err != nil || first == 0 {
		t.Fatalf("%v, %d maps above", err, first)
	}
	// Polls: one before the run, one after each of its maps but the
	// last (which closes its fixed point); the next poll stops.
	s := base
	s.Journal = NewEdgeJournal()
	s.Mapped = nil
	stop, _ := stopAfter(int64(first))
	s.Stop = stop
	if _, err := ConfirmEdge(s); !errors.Is(err, ErrStopped) {
		t.Fatalf("err %v, want ErrStopped", err)
	}
	if n := s.Journal.Counts(); n.Herds != 1 || n.Open != 0 {
		t.Errorf("journal holds %d finished runs and %d part way, want the run above finished", n.Herds, n.Open)
	}
	s.Stop = nil
	var made atomic.Int64
	s.Mapped = func(int, MapReport) { made.Add(1) }
	c, err := ConfirmEdge(s)
	if err != nil {
		t.Fatal(err)
	}
	if c.Maps != want.Maps || int(made.Load()) != want.Maps-first {
		t.Errorf("resumed: %d maps in all, %d made; want %d and %d", c.Maps, made.Load(), want.Maps, want.Maps-first)
	}
}
