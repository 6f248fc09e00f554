package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"herd/fleet"
	"herd/sim"
)

// feed gives a DriftWatch n records, step apart from time 0, with board
// means f(time) plus independent normal noise of s.d. 1.
func feed(w *DriftWatch, n int, step float64, f func(float64) float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i++ {
		t := float64(i) * step
		w.Add(sim.BoardStat{Time: t, Mean: f(t) + rng.NormFloat64()})
	}
}

// Batches double in size as records come, 10 to 19 complete ones are kept
// plus the incomplete last, records before the warm-up are ignored, and
// too few records or too short batches are not tested.
func TestDriftWatchBatches(t *testing.T) {
	t.Parallel()
	flat := func(float64) float64 { return 5 }
	cases := []struct {
		n        int
		warmup   float64
		batches  int
		span     float64
		minSpan  float64
		untested bool
	}{
		{9, 0, 0, 0, 0, true},          // fewer than 10 records
		{10, 0, 10, 1, 0, false},       // one record per batch
		{19, 0, 19, 1, 0, false},       //
		{20, 0, 10, 2, 0, false},       // merged: 10 of 2
		{43, 0, 11, 4, 0, false},       // 10 of 4 and an incomplete one of 3
		{43, 3, 10, 4, 0, false},       // 40 records after the warm-up: 10 of 4
		{1500, 0, 12, 128, 0, false},   // 11 of 128 and one of 92
		{1500, 0, 0, 128, 129, true},   // batches too short
		{1500, 0, 12, 128, 128, false}, // just long enough
	}
	for _, c := range cases {
		w := &DriftWatch{Warmup: c.warmup}
		feed(w, c.n, 1, flat, 1)
		d := w.Test(c.minSpan)
		if d.Batches != c.batches || d.Span != c.span && c.n >= 10 {
			t.Errorf("%d records, warm-up %v: %d batches spanning %v, want %d spanning %v", c.n, c.warmup, d.Batches, d.Span, c.batches, c.span)
		}
		if c.untested && d.Drifted(1) {
			t.Errorf("%d records: untested, yet drifted", c.n)
		}
	}
}

// The trend test sees a steady rise, a steady fall and a step half way,
// and stays silent on noise; the ends reported are the first and last batches' means.
func TestDriftTrend(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		f     func(float64) float64
		drift bool
	}{
		{"flat", func(float64) float64 { return 6 }, false},
		{"rise of 3 s.d.", func(t float64) float64 { return 6 + 3*t/1000 }, true},
		{"fall of 3 s.d.", func(t float64) float64 { return 9 - 3*t/1000 }, true},
		{"step half way", func(t float64) float64 { return 6 + 100*float64(btoi(t >= 500)) }, true},
	}
	for _, c := range cases {
		w := &DriftWatch{}
		feed(w, 1000, 1, c.f, 2)
		d := w.Test(0)
		if got := d.Drifted(8); got != c.drift {
			t.Errorf("%s: drifted %v (%s), want %v", c.name, got, d, c.drift)
		}
		if strings.HasPrefix(c.name, "rise") && (math.Abs(d.From-6.1) > 0.3 || math.Abs(d.To-8.9) > 0.3) {
			t.Errorf("%s: first and last batch %v → %v, want about 6.1 → 8.9", c.name, d.From, d.To)
		}
	}
	// A run that tips late: flat at 2, then a steep climb. The fitted
	// line starts below 0; the ends reported are the batches' own means.
	w0 := &DriftWatch{}
	feed(w0, 1000, 1, func(t float64) float64 { return 2 + 2*max(0, t-700) }, 3)
	if d := w0.Test(0); !d.Drifted(1) || math.Abs(d.From-2) > 0.5 || d.To < 200 {
		t.Errorf("late tip: %s, want drifted from about 2 to over 200", d)
	}
	// An exact line has no residual: the largest finite t.
	w := &DriftWatch{}
	for i := 0; i < 30; i++ {
		w.Add(sim.BoardStat{Time: float64(i), Mean: float64(i)})
	}
	if d := w.Test(0); d.T != math.MaxFloat64 || !d.Drifted(8) {
		t.Errorf("exact line: %s", d)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// driftRow runs runs replications of c (herd sim's seeds) with the drift
// test and returns the row's verdicts.
func driftRow(t *testing.T, c sim.Config, runs int, master uint64) []Drift {
	t.Helper()
	c = c.Normalized()
	ws := make([]*DriftWatch, runs)
	tasks := make([]sim.Task, runs)
	for i := range tasks {
		w := &DriftWatch{Warmup: c.Warmup}
		ws[i] = w
		cc := c
		cc.Observe = func(b sim.BoardStat) bool { w.Add(b); return true }
		tasks[i] = sim.Task{Config: cc, Seed: sim.Seed(master, c.Key(), i)}
	}
	if _, _, err := sim.RunAll(context.Background(), tasks, 2, nil); err != nil {
		t.Fatal(err)
	}
	ds := make([]Drift, runs)
	for i, w := range ws {
		ds[i] = w.Test(DriftMinSpan(c.Load))
	}
	return ds
}

// Stationary rows at herd sim's default length (N = 25, λ = 0.9: random,
// round robin and live least loaded, and random with board records every
// T = 350) do not warn; a row near the finite-size edge (5 dispatchers,
// seed 2, 20,000 service times), where four of eight runs tip during
// measurement, does.
func TestDriftRows(t *testing.T) {
	t.Parallel()
	stationary := []sim.Config{
		{Servers: 25, Policy: fleet.Policy{Kind: fleet.Random}},
		{Servers: 25, Policy: fleet.Policy{Kind: fleet.RoundRobin}},
		{Servers: 25, Policy: fleet.Policy{Kind: fleet.LeastLoaded}},
		{Servers: 25, Policy: fleet.Policy{Kind: fleet.Random}, Refresh: 350},
	}
	for _, c := range stationary {
		ds := driftRow(t, c, 8, 1)
		for i, d := range ds {
			if d.Batches == 0 {
				t.Errorf("%s run %d: not tested (span %v)", c.Key(), i, d.Span)
			}
		}
		if w := DriftWarning("row", ds, 5000, 20000); w != nil {
			t.Errorf("%s: stationary, yet %q", c.Key(), w)
		}
	}
	c := sim.Config{Servers: 25, Dispatchers: 5, Refresh: 350, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn,
		Start: fleet.Start{Kind: fleet.StartBalanced, Value: 6}, Horizon: 20000} // herd sim's default before sim.AutoHorizon
	w := DriftWarning("row", driftRow(t, c, 8, 2), 5000, 20000)
	if len(w) != 1 || !strings.Contains(w[0], "2 of 8 runs drifted") {
		t.Errorf("tipping row: %q, want 2 of 8 runs drifted", w)
	}
}
