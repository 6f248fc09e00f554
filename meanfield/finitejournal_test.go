package meanfield

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

// TestFiniteJournalResume checks that a FiniteEdge search stopped part way
// and given its journal back ends with the uninterrupted search's result,
// bit for bit, Maps included, for the particle map and the servers' runs,
// and that it ran again only what the journal lacked: given a full
// journal it runs no period at all, and stopped and resumed it runs the
// uninterrupted search's periods and at most the runs cut short besides.
func TestFiniteJournalResume(t *testing.T) {
	t.Parallel()
	base := FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 30, ModelScaled: 3.1631964844955442, Seed: 1, Refreshes: 100, Replications: 4, Levels: 1, Workers: 2}
	show := func(r FiniteEdgeResult) string {
		out := fmt.Sprintf("%v %v %x %x %x %d", r.Status, r.HazardFit, math.Float64bits(r.Scaled), math.Float64bits(r.Lower), math.Float64bits(r.Upper), r.Maps)
		for _, p := range r.Points {
			out += fmt.Sprintf(" |%x %v %d %d %x %x", math.Float64bits(p.Scaled), p.Balanced, p.Runs, p.Tipped, math.Float64bits(p.Exposure), math.Float64bits(p.MedianTip))
		}
		return out
	}
	for _, kind := range []Particles{ParticlesBoard, ParticlesServers} {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			run := func(j *FiniteJournal, stopAt int64) (FiniteEdgeResult, int64, error) {
				s := base
				s.Particles, s.Journal = kind, j
				var periods atomic.Int64
				s.Stop = func() bool { return periods.Add(1) > stopAt }
				r, err := FiniteEdge(s)
				return r, min(periods.Load(), stopAt), err
			}
			full, err := NewFiniteJournal(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, periods, err := run(full, math.MaxInt64)
			if err != nil {
				t.Fatal(err)
			}
			if full.Len() != len(want.Points)*base.Replications-unbalanced(want)*base.Replications {
				t.Errorf("the journal keeps %d runs, the search made %d", full.Len(), len(want.Points)*base.Replications)
			}
			again := reload(t, full)
			got, n, err := run(again, math.MaxInt64)
			if err != nil || show(got) != show(want) || n != 0 {
				t.Errorf("given its full journal: %v, %d periods run\n%s\nwant\n%s", err, n, show(got), show(want))
			}
			// Stopped at about a third and at two thirds of its periods,
			// each time resumed from the journal the stop left.
			j, _ := NewFiniteJournal(nil)
			var spent int64
			for _, at := range []int64{periods / 3, periods / 3} {
				_, n, err := run(j, at)
				if !errors.Is(err, ErrStopped) {
					t.Fatalf("stopped after %d periods: err = %v, want ErrStopped", at, err)
				}
				spent += n
				j = reload(t, j)
			}
			got, n, err = run(j, math.MaxInt64)
			spent += n
			if err != nil || show(got) != show(want) {
				t.Errorf("stopped twice and resumed: %v\n%s\nwant\n%s", err, show(got), show(want))
			}
			// Each stop loses at most the runs in flight, Workers of them,
			// each at most Refreshes periods.
			if lost := spent - periods; lost < 0 || lost > 2*int64(base.Workers*base.Refreshes) {
				t.Errorf("stopped twice and resumed: %d periods against %d uninterrupted", spent, periods)
			}
		})
	}
}

// reload returns the journal MarshalBinary and UnmarshalBinary make of
// j, as herd edge --checkpoint writes and reads it.
func reload(t *testing.T, j *FiniteJournal) *FiniteJournal {
	t.Helper()
	b, err := j.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	k, _ := NewFiniteJournal(nil)
	if err := k.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	return k
}

// unbalanced counts the points where the map itself does not reach the
// balanced state, which make no runs.
func unbalanced(r FiniteEdgeResult) int {
	n := 0
	for _, p := range r.Points {
		if !p.Balanced {
			n++
		}
	}
	return n
}

// TestFiniteJournalRefuses checks that records no search makes are errors
// naming what is wrong, and that Records orders the runs.
func TestFiniteJournalRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		recs []FiniteRunRecord
		want string
	}{
		{[]FiniteRunRecord{{Key: 0, Rep: 0}}, "run key"},
		{[]FiniteRunRecord{{Key: math.NaN(), Rep: 0}}, "run key"},
		{[]FiniteRunRecord{{Key: math.Inf(1), Rep: 0}}, "run key"},
		{[]FiniteRunRecord{{Key: 1.01, Rep: -1}}, "replication"},
		{[]FiniteRunRecord{{Key: 1.01, Rep: 1000}}, "replication"},
		{[]FiniteRunRecord{{Key: 1.01, Tip: -1}}, "tips at"},
		{[]FiniteRunRecord{{Key: 1.01, Maps: -1}}, "tips at"},
		{[]FiniteRunRecord{{Key: 1.01, Rep: 2}, {Key: 1.01, Rep: 2, Tip: 5}}, "twice"},
	} {
		if _, err := NewFiniteJournal(c.recs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one saying %q", c.recs, err, c.want)
		}
	}
	var k FiniteJournal
	for _, bad := range []string{`[{"key":1.01,"rep":0},{"key":1.01,"rep":0}]`, `[{"key":1.01,"rep":"a"}]`, `{}`} {
		if err := k.UnmarshalBinary([]byte(bad)); err == nil {
			t.Errorf("UnmarshalBinary(%s) = nil, want an error", bad)
		}
	}
	j, err := NewFiniteJournal([]FiniteRunRecord{{Key: 1.02, Rep: 1}, {Key: 1.01, Rep: 3}, {Key: 1.02, Rep: 0}, {Key: 1.01, Rep: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(j.Records()); got != "[{1.01 0 0 0} {1.01 3 0 0} {1.02 0 0 0} {1.02 1 0 0}]" {
		t.Errorf("Records = %s, want them by key and replication", got)
	}
}
