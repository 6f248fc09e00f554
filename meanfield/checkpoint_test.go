package meanfield

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// resumeCase is one attractor run for TestResumeSameBits.
type resumeCase struct {
	name  string
	r     Refresh
	start []float64
	herd  bool // FindHerdAttractor (else FindAttractor)
	s     HerdSettings
}

// run runs c with Stop true at the stop-th poll (0: never), Checkpoint
// keeping the state it is handed when stopping, from resume (nil: from
// the start). polls counts Stop's polls.
func (c resumeCase) run(stop int, resume *RunState) (HerdAttractor, *RunState, error) {
	a, saved, _, err := c.runPolls(stop, resume)
	return a, saved, err
}

func (c resumeCase) runPolls(stop int, resume *RunState) (a HerdAttractor, saved *RunState, polls int, err error) {
	s := c.s
	s.Stop = func() bool { polls++; return polls == stop }
	s.Checkpoint = func(stopping bool, state func() *RunState) {
		if stopping {
			saved = state()
		}
	}
	s.Resume = resume
	if c.herd {
		a, err = FindHerdAttractor(c.r, c.start, s)
	} else {
		a.Attractor, err = FindAttractor(c.r, c.start, s.AttractorSettings)
	}
	a.Runtime = 0
	return a, saved, polls, err
}

// TestResumeSameBits: a run stopped after m maps, its state written to
// JSON and read back, and resumed (stopped again, for some, and resumed
// once more) returns the uninterrupted run's result bit for bit, every
// field printed with %v (shortest round-trip floats; the boards whole).
// Cases: the aperiodic herd at k = 5, λ = 0.9, T = 100 (Settle = Average
// = 16; herd point's golden point-aperiodic.text is this point with the
// defaults), the balanced fixed point at T = 400 with its spectral radius
// (validation.md: board mean 5.49), FindHerdAttractor's period-2 herd at
// T = 1,100 from half:0.1T (golden point-herd.text), h2:4 sizes (a phase
// state; ExampleService's fixed point) and an unconverged run stopped at
// its last map. The stops fall before the ring of MaxPeriod + 1 = 9
// boards fills, at its edge and well past it.
func TestResumeSameBits(t *testing.T) {
	t.Parallel()
	h2 := Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: H2Service(4)}
	cases := []resumeCase{
		{"aperiodic", Refresh{Dispatchers: 5, Load: 0.9, Period: 100}, BoardEmpty(), true, HerdSettings{Settle: 16, Average: 16}},
		{"fixed_spectrum", Refresh{Dispatchers: 5, Load: 0.9, Period: 400}, BoardEmpty(), false,
			HerdSettings{AttractorSettings: AttractorSettings{Spectrum: true}}},
		{"herd_period2", Refresh{Dispatchers: 5, Load: 0.9, Period: 1100}, HerdStartBoard(DefaultHerdStart(), 1100), true, HerdSettings{}},
		{"h2_fixed", h2, h2.Service.Lift(BoardEmpty()), true, HerdSettings{}},
		{"unconverged", Refresh{Dispatchers: 5, Load: 0.9, Period: 100}, BoardEmpty(), true,
			HerdSettings{AttractorSettings: AttractorSettings{MaxIter: 40}, Settle: 200}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// maps: the maps after which Stop is polled (all but one that
			// closes an orbit or ends a herd's averaging, and the
			// spectrum's).
			want, _, maps, wantErr := c.runPolls(0, nil)
			if c.name == "unconverged" && !errors.Is(wantErr, ErrNotConverged) || c.name != "unconverged" && wantErr != nil {
				t.Fatalf("uninterrupted: %v", wantErr)
			}
			if c.name == "aperiodic" && want.Status != Aperiodic || c.name == "herd_period2" && want.Period != 2 {
				t.Fatalf("uninterrupted: %v period %d, not the case's attractor", want.Status, want.Period)
			}
			wantText := fmt.Sprintf("%+v", want)
			t.Logf("%v, period %d, %d maps, %d polls", want.Status, want.Period, want.Maps, maps)
			stops := [][]int{{1}, {8}, {9}, {10}, {maps / 2, 3}, {maps}}
			for _, st := range stops {
				if st[0] < 1 || st[0] > maps {
					continue
				}
				var state *RunState
				var got HerdAttractor
				var err error
				made := 0
				for i := 0; i <= len(st); i++ {
					stop := 0
					if i < len(st) {
						stop = st[i]
					}
					var saved *RunState
					got, saved, err = c.run(stop, state)
					if stop != 0 {
						if !errors.Is(err, ErrStopped) || saved == nil {
							t.Fatalf("stops %v: run %d: %v, state %v; want stopped with its state", st, i, err, saved != nil)
						}
						made += stop
						if saved.Maps != made {
							t.Fatalf("stops %v: run %d saved after %d maps, want %d", st, i, saved.Maps, made)
						}
						state = jsonRoundTrip(t, saved)
					}
				}
				if (err == nil) != (wantErr == nil) {
					t.Fatalf("stops %v: resumed error %v, uninterrupted %v", st, err, wantErr)
				}
				if got := fmt.Sprintf("%+v", got); got != wantText {
					t.Errorf("stops %v: resumed result differs:\n got %.600s\nwant %.600s", st, got, wantText)
				}
			}
		})
	}
}

// jsonRoundTrip writes st as JSON and reads it back.
func jsonRoundTrip(t *testing.T, st *RunState) *RunState {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back RunState
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestResumeBadState: a state the settings cannot have made is an error
// wrapping ErrRunState, before any map.
func TestResumeBadState(t *testing.T) {
	t.Parallel()
	c := resumeCase{"aperiodic", Refresh{Dispatchers: 5, Load: 0.9, Period: 100}, BoardEmpty(), true, HerdSettings{Settle: 16, Average: 16}}
	_, good, err := c.run(12, nil)
	if good == nil || !errors.Is(err, ErrStopped) {
		t.Fatalf("no state after 12 maps: %v", err)
	}
	for _, b := range []struct {
		name string
		edit func(st *RunState)
		herd bool
		want string
	}{
		{"maps", func(st *RunState) { st.Maps = 0 }, true, "0 maps"},
		{"past_max_iter", func(st *RunState) { st.Maps = 6000 }, true, "6000 maps"},
		{"boards", func(st *RunState) { st.Boards = st.Boards[1:] }, true, "8 boards after 12 maps, want 9"},
		{"recent", func(st *RunState) { st.Recent = st.Recent[:3] }, true, "3 maps' observables"},
		{"negative", func(st *RunState) { st.Boards[2][0] = -1 }, true, "board 2 holds -1"},
		{"empty_board", func(st *RunState) { st.Boards[0] = nil }, true, "board 0 is empty"},
		{"herd_run", func(st *RunState) { st.Herd.Run = 32 }, true, "32 maps in the herd regime"},
		{"herd_means", func(st *RunState) { st.Herd.QueueMeans = st.Herd.QueueMeans[1:] }, true, "12 board and 11 queue means"},
		{"no_herd", func(st *RunState) { st.Herd = nil }, true, "the state of a FindAttractor run"},
		{"herd_in_plain", func(st *RunState) {}, false, "the state of a FindHerdAttractor run"},
	} {
		t.Run(b.name, func(t *testing.T) {
			st := jsonRoundTrip(t, good)
			b.edit(st)
			c := c
			c.herd = b.herd
			a, _, err := c.run(0, st)
			if !errors.Is(err, ErrRunState) || !strings.Contains(err.Error(), b.want) || a.Maps != 0 {
				t.Errorf("error %v after %d maps, want ErrRunState saying %q before any map", err, a.Maps, b.want)
			}
		})
	}
}
