package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"herd/compare"
	"herd/sim"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// Progress is shown only on a terminal: a plain file or buffer gets none.
func TestProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	for _, w := range []any{f, &b} {
		p := newProgress(w.(interface{ Write([]byte) (int, error) }), "sim", "runs")
		p.update(1, 2)
		p.updateETA(1, 2, time.Now())
		p.finish()
		fp := newFigureProgress(w.(interface{ Write([]byte) (int, error) }), compare.Figures())
		fp.update(compare.FigureProgress{Figure: 0, Stage: "runs", Done: 1, Total: 2, TotalKnown: true})
		fp.written(0, nil)
		fp.close()
	}
	if st, _ := f.Stat(); st.Size() != 0 || b.Len() != 0 {
		t.Errorf("progress written to a file (%d bytes) or a buffer (%q); want nothing off a terminal", st.Size(), b.String())
	}
}

// The estimate weighs items by cost: after a run of 1 unit out of 1 + 999,
// 10 s in, about 9,990 s are left (a count would say 10 s).
func TestProgressWeighted(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := newProgress(&b, "sim", "runs")
	p.w, p.now, p.start = &b, clk.now, clk.t
	p.weigh([]float64{1, 999})
	clk.t = clk.t.Add(10 * time.Second)
	p.notify(0, sim.Result{}, 1, 2)
	if want := "sim: 1/2 runs (0% by cost), 10s elapsed, about 2h46m30s left"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want it to contain %q", b.String(), want)
	}
	b.Reset()
	clk.t = clk.t.Add(time.Hour)
	p.notify(1, sim.Result{}, 2, 2)
	if got := b.String(); !strings.Contains(got, "2/2 runs (100% by cost), 1h0m10s elapsed, all done") {
		t.Errorf("got %q after the last run", got)
	}
	// Unweighted: counts.
	b.Reset()
	q := newProgress(&b, "model", "points")
	q.w, q.now, q.start = &b, clk.now, clk.t.Add(-4*time.Second)
	q.update(1, 5)
	if want := "model: 1/5 points, 4s elapsed, about 16s left"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A search whose total grows never claims "0s left" (issue 19: herd
// bracket said "about 0s left" each time the known runs were done).
func TestProgressGrowing(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(60, 0)}
	p := newProgress(&b, "bracket N=100", "runs")
	p.w, p.now = &b, clk.now
	start := time.Unix(0, 0)
	for _, dt := range [][2]int{{6, 6}, {7, 12}, {12, 12}} {
		p.updateETA(dt[0], dt[1], start)
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

// herd figures' line: figures done of n, elapsed, each working figure's
// stage with its share by cost and estimate; a bracket's stage without
// one; a line per figure written.
func TestFigureProgress(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	figs := compare.Figures()
	p := newFigureProgress(&b, figs)
	p.w, p.now, p.start = &b, clk.now, clk.t
	p.update(compare.FigureProgress{Figure: 0, Stage: "runs", Total: 100, TotalKnown: true})
	p.update(compare.FigureProgress{Figure: 4, Stage: "brackets (0 of 6 done)", Done: 4, Total: 4})
	clk.t = clk.t.Add(30 * time.Second)
	p.update(compare.FigureProgress{Figure: 0, Stage: "runs", Done: 25, Total: 100, TotalKnown: true})
	line := p.line(clk.t)
	for _, want := range []string{"figures: 0 of 7 done, 30s elapsed", "figure 1: runs 25% by cost, about 1m30s left", "figure 5: brackets (0 of 6 done), 4 runs so far"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	p.written(2, []*compare.FigurePlot{{Stem: "fig3-round-robin"}})
	if want := "figures: figure 3 written (fig3-round-robin: .svg, .png, .csv); 1 of 7 figures done, 30s elapsed\n"; !strings.Contains(b.String(), want) {
		t.Errorf("got %q, want it to contain %q", b.String(), want)
	}
}

// After Ctrl-C herd figures says exactly what it wrote: here nothing.
func TestFiguresInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"figures", dir, "--quick"}, &out, &errb)
	want := "interrupted: nothing was written; figures 1, 2, 3, 4, 5, 6, 7 not made (no file of them written); index.md not written"
	if code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files in %s, want none", len(ents), dir)
	}
	a := &figuresArgs{dir: "D", only: "1,5", chosen: []compare.Figure{compare.Figures()[0], compare.Figures()[4]}}
	got := figuresWritten(a, [][]*compare.FigurePlot{{{Stem: "fig1-stale-board"}}, nil})
	if want := "figure 1 written to D (fig1-stale-board, each as .svg, .png and .csv); figure 5 not made (no file of it written)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// /dev/null is a character device but not a terminal: progress stays off
// when stderr is redirected there (Linux asks the terminal driver).
func TestDevNullIsNotATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the terminal driver is asked on Linux only")
	}
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("isTerminal(/dev/null) = true")
	}
}
