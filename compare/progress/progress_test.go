package progress

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// Line and Stages show only on a terminal: told w is not one (a plain
// file or a buffer), they write nothing.
func TestOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, w := range []io.Writer{f, &b} {
		p := NewLine(w, false, "sim", "runs")
		p.Update(1, 2)
		p.Growing(1, 2, time.Now())
		p.Finish()
		if p.Terminal() != nil {
			t.Errorf("Terminal() = %v off a terminal, want nil", p.Terminal())
		}
		fp := NewStages(w, false, Auto, "figures", "figure", []string{"1", "2"})
		fp.Update(Stage{Job: 0, Name: "runs", Done: 1, Total: 2, TotalKnown: true})
		fp.Written(0, "")
		fp.Close()
	}
	if st, _ := f.Stat(); st.Size() != 0 || b.Len() != 0 {
		t.Errorf("progress written to a file (%d bytes) or a buffer (%q); want nothing off a terminal", st.Size(), b.String())
	}
}

// The estimate weighs items by cost: after a run of 1 unit out of 1 + 999,
// 10 s in, about 9,990 s are left (a count would say 10 s).
func TestLineWeighted(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewLine(&b, false, "sim", "runs")
	p.w, p.now, p.start = &b, clk.now, clk.t
	p.Weigh([]float64{1, 999})
	clk.t = clk.t.Add(10 * time.Second)
	p.Notify(0, 1, 2)
	if want := "sim: 1/2 runs (0% by cost), 10s elapsed, about 2h46m30s left"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want it to contain %q", b.String(), want)
	}
	b.Reset()
	clk.t = clk.t.Add(time.Hour)
	p.Notify(1, 2, 2)
	if got := b.String(); !strings.Contains(got, "2/2 runs (100% by cost), 1h0m10s elapsed, all done") {
		t.Errorf("got %q after the last run", got)
	}
	// Unweighted: counts.
	b.Reset()
	q := NewLine(&b, false, "model", "points")
	q.w, q.now, q.start = &b, clk.now, clk.t.Add(-4*time.Second)
	q.Update(1, 5)
	if want := "model: 1/5 points, 4s elapsed, about 16s left"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A search whose total grows never claims "0s left" (issue 19: herd
// bracket said "about 0s left" each time the known runs were done).
func TestLineGrowing(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(60, 0)}
	p := NewLine(&b, false, "bracket N=100", "runs")
	p.w, p.now = &b, clk.now
	start := time.Unix(0, 0)
	for _, dt := range [][2]int{{6, 6}, {7, 12}, {12, 12}} {
		p.Growing(dt[0], dt[1], start)
		clk.t = clk.t.Add(time.Second)
	}
	got := b.String()
	if strings.Contains(got, "0s left") || strings.Count(got, "time left unknown") != 3 {
		t.Errorf("got %q; want three lines, each saying the time left is unknown", got)
	}
	if !strings.Contains(got, "7 runs done (5 more queued), 1m1s elapsed") {
		t.Errorf("got %q; want the runs done and queued", got)
	}
}

// Stages' line: jobs done of n, elapsed, each working job's stage with its
// share by cost and estimate; a growing stage without one; a line per job
// written.
func TestStages(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewStages(&b, true, Auto, "figures", "figure", []string{"1", "2", "3", "4", "5", "6", "7"})
	p.now, p.start = clk.now, clk.t
	p.Update(Stage{Job: 0, Name: "runs", Total: 100, TotalKnown: true})
	p.Update(Stage{Job: 4, Name: "brackets (0 of 6 done)", Done: 4, Total: 4})
	clk.t = clk.t.Add(30 * time.Second)
	p.Update(Stage{Job: 0, Name: "runs", Done: 25, Total: 100, TotalKnown: true})
	line := p.line(clk.t)
	if got, want := p.head(clk.t, true), "figures: 0 of 7 done, 30s elapsed, about 1m30s left in all (the work known so far at the rate so far; searches whose total grows not counted)"; got != want {
		t.Errorf("heartbeat head %q, want %q", got, want)
	}
	for _, want := range []string{
		// Whole run: 30 s·(100 − 25)/25; figure 5's brackets are not in it.
		"figures: 0 of 7 done, 30s elapsed, about 1m30s left in all; figure 1",
		"figure 1: runs 25% by cost, about 1m30s left", "figure 5: brackets (0 of 6 done), 4 runs so far"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	p.Written(2, "fig3-round-robin: .svg, .png, .csv")
	if want := "figures: figure 3 written (fig3-round-robin: .svg, .png, .csv); 1 of 7 figures done, 30s elapsed\n"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want it to contain %q", b.String(), want)
	}
}

// The whole run's estimate is the cost left over the rate of the pool the
// jobs share: E·(cost left)/(cost done), summing every job's stages of
// known total, finished ones included; unknown until some cost is done.
func TestStagesWholeRun(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewStages(io.Discard, false, Never, "figures", "figure", []string{"1", "2", "3"})
	p.now, p.start = clk.now, clk.t
	p.Update(Stage{Job: 0, Name: "runs", Total: 100, TotalKnown: true})
	p.Update(Stage{Job: 1, Name: "runs", Total: 200, TotalKnown: true})
	if got, want := p.head(clk.t, true), "figures: 0 of 3 done, 0s elapsed, time left unknown until some work is done"; got != want {
		t.Errorf("before any cost is done: %q, want %q", got, want)
	}
	clk.t = clk.t.Add(60 * time.Second)
	p.Update(Stage{Job: 0, Name: "runs", Done: 100, Total: 100, TotalKnown: true})
	p.Update(Stage{Job: 0, Name: "model points", Total: 50, TotalKnown: true})
	p.Update(Stage{Job: 1, Name: "runs", Done: 50, Total: 200, TotalKnown: true})
	// Done 100 (figure 1's runs, finished) + 50; left 50 + 150: 60 s·200/150.
	if got, want := p.head(clk.t, true), "figures: 0 of 3 done, 1m0s elapsed, about 1m20s left in all (the work known so far at the rate so far)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Figure 1 computed and written: its cost stays done, none is left.
	p.Update(Stage{Job: 0, Finished: true, TotalKnown: true})
	p.Written(0, "")
	// Done 150, left 150: 60 s.
	if got, want := p.head(clk.t, true), "figures: 1 of 3 done, 1m0s elapsed, about 1m0s left in all (the work known so far at the rate so far)"; got != want {
		t.Errorf("after figure 1 is written: %q, want %q", got, want)
	}
}

// In a log the heartbeat is a head line and one line per job at work,
// however long: nothing is cut.
func TestStagesHeartbeatLines(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	ids := []string{"1", "2", "3", "4", "5", "6", "7"}
	p := NewStages(&b, false, Never, "figures", "figure", ids)
	p.w, p.now, p.start = &b, clk.now, clk.t
	for i := range ids {
		p.Update(Stage{Job: i, Name: "runs of a stage with a long name, " + strings.Repeat("x", 40), Total: 10, TotalKnown: true})
	}
	clk.t = clk.t.Add(10 * time.Second)
	for i := range ids {
		p.Update(Stage{Job: i, Name: "runs of a stage with a long name, " + strings.Repeat("x", 40), Done: 5, Total: 10, TotalKnown: true})
	}
	p.heartbeat()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 1+len(ids) {
		t.Fatalf("%d lines, want a head and one per figure: %q", len(lines), b.String())
	}
	if want := "figures: 0 of 7 done, 10s elapsed, about 10s left in all"; !strings.HasPrefix(lines[0], want) {
		t.Errorf("head %q, want it to start %q", lines[0], want)
	}
	for i, l := range lines[1:] {
		want := "figures: figure " + ids[i] + ": runs of a stage with a long name, " + strings.Repeat("x", 40) + " 50% by cost, about 10s left"
		if l != want {
			t.Errorf("line %d: %q, want %q", i+2, l, want)
		}
	}
	if strings.Contains(b.String(), "…") {
		t.Errorf("a heartbeat line was cut: %q", b.String())
	}
	// The line rewritten on a terminal is cut, after the head.
	if l := p.line(clk.t); len([]rune(l)) != 200 || !strings.HasPrefix(l, p.head(clk.t, false)+"; figure 1: ") {
		t.Errorf("terminal line (%d characters) %q, want 200 starting with the head", len([]rune(l)), l)
	}
}

// Items: Always gives a line per item with its time, the time elapsed and
// the time left (none after the last); Auto on a writer that is not a
// terminal gives only heartbeat lines; Never gives nothing.
func TestItems(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = 20 * time.Millisecond
	defer func() { heartbeatEvery = old }()
	labels := []string{"k=3 λ=0.9", "k=5 λ=0.9"}
	weights := []float64{1, 3}

	var b bytes.Buffer
	p := NewItems(&b, false, Always, "edge", "edges", labels, weights)
	p.Begin(0)
	p.End(0, "edge 0.9930")
	p.Begin(1)
	p.Status(1, "follow, 120 maps")
	asked := 0 // the live note, asked anew by each heartbeat (under p's lock)
	p.Live(1, func() string { asked++; return fmt.Sprintf("%d maps since", asked) })
	time.Sleep(70 * time.Millisecond)
	p.End(1, "edge 2.8992")
	p.Close()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var items []string
	var beats int
	for _, l := range lines {
		if strings.HasPrefix(l, "edge ") {
			items = append(items, l)
		} else if strings.HasPrefix(l, "edge: ") && !strings.HasPrefix(l, "edge: running ") {
			beats++
		}
	}
	if len(items) != 2 || !strings.HasPrefix(items[0], "edge 1/2: k=3 λ=0.9: edge 0.9930 in ") ||
		!strings.Contains(items[0], "elapsed, about ") || !strings.Contains(items[0], "left") ||
		strings.Contains(items[1], "left") {
		t.Errorf("item lines %q", items)
	}
	if beats == 0 || !strings.Contains(b.String(), "\nedge: running k=5 λ=0.9 for") {
		t.Errorf("no heartbeat line naming the running item in %q", b.String())
	}
	if !regexp.MustCompile(`(?m)^edge: running k=5 λ=0\.9 for \d+s \(follow, 120 maps; 1 maps since\)$`).MatchString(b.String()) {
		t.Errorf("no heartbeat with the running item's status and live note in %q", b.String())
	}
	if beats >= 2 && !strings.Contains(b.String(), "(follow, 120 maps; 2 maps since)") {
		t.Errorf("%d heartbeats, but the live note was not asked anew: %q", beats, b.String())
	}

	b.Reset()
	p = NewItems(&b, false, Auto, "edge", "edges", labels, weights)
	p.Begin(0)
	time.Sleep(50 * time.Millisecond)
	p.End(0, "none")
	p.Close()
	if s := b.String(); strings.Contains(s, "edge 1/2") || !strings.Contains(s, "edge: 0/2 edges done") {
		t.Errorf("auto, not a terminal: %q, want heartbeat lines only", s)
	}

	b.Reset()
	p = NewItems(&b, false, Never, "edge", "edges", labels, weights)
	p.Begin(0)
	p.End(0, "none")
	p.Close()
	if b.Len() != 0 {
		t.Errorf("never: %q", b.String())
	}
}

// Stages off a terminal (a log): Auto and Always print the progress line
// as a heartbeat line, Never nothing; no line is rewritten in place.
func TestStagesHeartbeat(t *testing.T) {
	old := heartbeatEvery
	heartbeatEvery = 20 * time.Millisecond
	defer func() { heartbeatEvery = old }()
	for _, mode := range []Mode{Auto, Always, Never} {
		var b syncBuffer
		p := NewStages(&b, false, mode, "figures", "figure", []string{"1", "2"})
		p.Update(Stage{Job: 1, Name: "runs", Done: 1, Total: 4, TotalKnown: true})
		time.Sleep(70 * time.Millisecond)
		p.Written(0, "fig1: .svg")
		p.Close()
		p.Close()
		s := b.String()
		want := mode != Never
		if got := strings.Contains(s, "figures: 0 of 2 done") && strings.Contains(s, "figure 2: runs 25% by cost"); got != want {
			t.Errorf("%s: heartbeat %t, want %t: %q", mode, got, want, s)
		}
		if strings.Contains(s, "\r") {
			t.Errorf("%s: a line rewritten in place off a terminal: %q", mode, s)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the heartbeat's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Items with a cost model's prior: before any item ends, the time left is
// the batch's weight at the prior's rate less the time elapsed, said to be
// the cost model's, and past it once elapsed; after one ends, the
// measured pace's.
func TestItemsPrior(t *testing.T) {
	t.Parallel()
	p := NewItems(io.Discard, false, Never, "edge", "edges", []string{"a", "b"}, []float64{100, 300})
	p.SetPrior(func() float64 { return 1 }) // 400 s in all
	p.start = time.Now().Add(-100 * time.Second)
	if got := p.left(); got != ", about 5m0s left by the cost model" {
		t.Errorf("before any item ends: %q", got)
	}
	p.start = time.Now().Add(-500 * time.Second)
	if got := p.left(); got != ", past the cost model's estimate of 6m40s" {
		t.Errorf("past the estimate: %q", got)
	}
	p.start = time.Now().Add(-50 * time.Second)
	p.End(0, "edge")
	if got := p.left(); got != ", about 2m30s left" {
		t.Errorf("after one item: %q, want the measured pace's 50 s·300/100", got)
	}
}

// A Line's heartbeat on a growing search: before any report the time
// left is unknown; then an estimate for the runs queued at the pace of
// the runs finished here (runs done before, a resumed run's, are not in
// it: 2 reports in 65 s, 32.5 s a run, 2 queued: 1m5s), labelled as not
// counting later runs; with none queued, no estimate; the note's line
// after the head line.
func TestLineHeartbeatGrowing(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewLine(&b, false, "bracket N=400", "runs")
	p.beat, p.now, p.start = &b, clk.now, clk.t
	p.note = func() string { return "bracket 3 of 4" }
	start := clk.t
	clk.t = clk.t.Add(20 * time.Second)
	p.heartbeat()
	p.Growing(5, 8, start) // 4 runs from a run log, 1 finished here
	clk.t = clk.t.Add(40 * time.Second)
	p.Growing(6, 8, start)
	clk.t = clk.t.Add(5 * time.Second)
	p.heartbeat()
	p.Growing(8, 8, start)
	p.heartbeat()
	got := strings.Split(b.String(), "\n")
	want := []string{
		"bracket N=400: no runs finished yet, 20s elapsed; time left unknown until one finishes",
		"bracket N=400: bracket 3 of 4",
		"bracket N=400: 6 runs done (2 more queued), 1m5s elapsed, the last finished 5s ago; about 1m5s left for the 2 queued at the pace so far, not counting any the search queues after them",
		"bracket N=400: bracket 3 of 4",
		"bracket N=400: 8 runs done, 1m5s elapsed, the last finished 0s ago; time left unknown: the search queues its next from these results, counted when one finishes",
		"bracket N=400: bracket 3 of 4",
		"",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\ngot  %q\nwant %q", i, got[i], want[i])
		}
	}
}

// NewLineMode: Auto shows the line on a terminal and the heartbeat off
// one; Always both (the heartbeat clearing the line first); Never
// nothing; Logged names the heartbeat's writer once one was printed.
func TestLineMode(t *testing.T) {
	defer SetHeartbeat(2 * time.Millisecond)()
	for _, c := range []struct {
		mode       Mode
		term       bool
		line, beat bool
	}{
		{Auto, true, true, false},
		{Auto, false, false, true},
		{Always, true, true, true},
		{Always, false, false, true},
		{Never, true, false, false},
		{Never, false, false, false},
	} {
		var b bytes.Buffer
		p := NewLineMode(&b, c.term, c.mode, "bracket N=25", "runs", func() string { return "at work" })
		p.Growing(1, 3, time.Now())
		time.Sleep(20 * time.Millisecond)
		logged := p.Logged()
		p.Finish()
		s := b.String()
		line := strings.Contains(s, "\r")
		beat := strings.Contains(s, "\nbracket N=25: at work\n")
		if line != c.line || beat != c.beat || (logged != nil) != c.beat {
			t.Errorf("mode %s, term %v: line %v, heartbeat %v, logged %v; want %v, %v, %v: %q", c.mode, c.term, line, beat, logged != nil, c.line, c.beat, c.beat, s)
		}
		if c.line && c.beat && !strings.Contains(s, "\r\x1b[Kbracket N=25: 1 runs done") {
			t.Errorf("mode %s on a terminal: the heartbeat does not clear the line first: %q", c.mode, s)
		}
	}
}

// Items with items' own estimates (Estimate): the heartbeat shows each on
// its item's line; once every item has started and each one at work has
// one, the head line's time left is the longest, in place of the cost
// model's; an item without one (withdrawn, or run out) brings the cost
// model back.
func TestItemsEstimate(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := NewItems(&b, false, Never, "edge", "edges", []string{"a", "b"}, []float64{100, 300})
	p.w = &b
	p.SetPrior(func() float64 { return 1 })
	p.Begin(0)
	p.Estimate(0, 90*time.Second)
	if got := p.left(); !strings.Contains(got, "by the cost model") {
		t.Errorf("b not started: %q, want the cost model's", got)
	}
	p.Begin(1)
	p.Estimate(1, 200*time.Second)
	if got := p.left(); got != ", about 3m20s left" {
		t.Errorf("both at work with estimates: %q, want the longer, 3m20s", got)
	}
	p.heartbeat()
	if got := b.String(); !strings.Contains(got, "running a for 0s (about 1m30s left)") || !strings.Contains(got, "running b for 0s (about 3m20s left)") {
		t.Errorf("heartbeat:\n%s", got)
	}
	p.End(1, "edge")
	if got := p.left(); got != ", about 1m30s left" {
		t.Errorf("b done: %q, want a's 1m30s", got)
	}
	p.Estimate(0, 0)
	if got := p.left(); strings.Contains(got, "1m30s") {
		t.Errorf("a's estimate withdrawn: %q", got)
	}
	// An estimate whose time has passed says nothing (not "0s left").
	p.Estimate(0, time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	if d, ok := p.itemLeft(0); ok {
		t.Errorf("an estimate run out: %v left", d)
	}
	p.start = time.Now().Add(-100 * time.Second)
	if got := p.left(); got != ", about 33s left" {
		t.Errorf("an estimate run out: %q, want the measured pace's 100 s·100/300", got)
	}
}
