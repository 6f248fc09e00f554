package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"herd/fleet"
	"herd/sim"
)

// tinyFigure simulates 12 short runs (4 configurations, 3 runs each) and
// one small bracket, and plots the runs' means and the bracket.
func tinyFigure() Figure {
	return Figure{ID: "t", make: func(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
		var cfgs []sim.Config
		for _, T := range []float64{1, 2, 4, 8} {
			cfgs = append(cfgs, sim.Config{Servers: 10, Load: 0.9, Refresh: T, Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Horizon: 300})
		}
		sums, err := r.simulate(ctx, cfgs, 3)
		if err != nil {
			return nil, err
		}
		brs, err := r.brackets(ctx, 1, func(int) (BracketSettings, error) {
			return BracketSettings{Servers: 20, Dispatchers: 5, Load: 0.9, ModelScaled: 1.5, Seed: r.Seed, Workers: r.Workers,
				Runs: 3, Refreshes: 50, Cut: 50, Resolution: 0.5}, nil
		})
		if err != nil {
			return nil, err
		}
		s := FigureSeries{Name: "sim"}
		for i, c := range cfgs {
			s.X, s.Y = append(s.X, c.Refresh), append(s.Y, sums[i].Response.Mean, sums[i].Board.Mean)
		}
		b := FigureSeries{Name: "bracket", X: []float64{brs[0].Lower, brs[0].Upper, brs[0].LowerCut, brs[0].UpperCut}}
		for _, p := range brs[0].Points {
			b.Y = append(b.Y, p.Scaled, float64(p.Runs), float64(p.Tipped), p.MedianTip)
		}
		return []*FigurePlot{{Stem: "tiny", Series: []FigureSeries{s, b}}}, nil
	}}
}

// makeTiny makes tinyFigure with journal j (nil: none), cancelling after
// cancelAfter units are journaled (0: never).
func makeTiny(t *testing.T, set FigureSettings, j *FigureJournal, cancelAfter int) ([]*FigurePlot, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if j != nil && cancelAfter > 0 {
		n := 0
		j.afterPut = func() {
			n++ // puts are serial under the test's one worker
			if n == cancelAfter {
				cancel()
			}
		}
	}
	set.Journal = j
	var got []*FigurePlot
	err := MakeFigures(ctx, set, []Figure{tinyFigure()}, func(_ int, ps []*FigurePlot) error { got = ps; return nil })
	return got, err
}

// plotText prints plots' series, NaN as NaN (reflect.DeepEqual would
// find NaN unequal to itself).
func plotText(ps []*FigurePlot) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s: %+v\n", p.Stem, p.Series)
	}
	return b.String()
}

// A figure run cancelled part-way keeps its finished runs in the journal;
// a rerun with the journal reuses them and makes the same plots as an
// uninterrupted run without one.
func TestFigureJournalResume(t *testing.T) {
	t.Parallel()
	set := FigureSettings{Quick: true, Seed: 3, Workers: 1}
	want, err := makeTiny(t, set, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Cancelled among the simulator runs (5 of 12 done), and inside the
	// bracket (2 of its runs done).
	for _, after := range []int{5, 14} {
		t.Run(fmt.Sprint(after), func(t *testing.T) { resumeTiny(t, set, want, after) })
	}
}

func resumeTiny(t *testing.T, set FigureSettings, want []*FigurePlot, after int) {
	path := filepath.Join(t.TempDir(), "journal")
	j, err := OpenFigureJournal(path, set)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := makeTiny(t, set, j, after); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err %v, want context.Canceled", err)
	}
	kept := j.Len()
	j.Close()
	if kept < after {
		t.Fatalf("cancelled after %d finished runs, the journal keeps %d", after, kept)
	}
	j, err = OpenFigureJournal(path, set)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Len() != kept {
		t.Fatalf("reopened journal holds %d runs, wrote %d", j.Len(), kept)
	}
	got, err := makeTiny(t, set, j, 0)
	if err != nil {
		t.Fatal(err)
	}
	if j.Reused() < kept {
		t.Errorf("resumed run reused %d units, want the %d kept", j.Reused(), kept)
	}
	if plotText(got) != plotText(want) {
		t.Errorf("resumed plots differ from an uninterrupted run's:\ngot  %s\nwant %s", plotText(got), plotText(want))
	}
	// A second rerun takes everything from the journal.
	before := j.Len()
	again, err := makeTiny(t, set, j, 0)
	if err != nil || plotText(again) != plotText(want) || j.Len() != before {
		t.Errorf("rerun on a full journal: err %v, journal grew %d → %d, same plots %t", err, before, j.Len(), plotText(again) == plotText(want))
	}
}

// A journal of other settings (seed, quick) is refused and left as it is;
// a journal with a torn last line loses that line only; a file that is not
// a journal is refused.
func TestFigureJournalOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := FigureSettings{Quick: true, Seed: 1}
	res := sim.Result{ResponseMean: 1.0 / 3, Jobs: 7, Arrivals: 9, BoardMean: 0.1 + 0.2, Records: 4, ProbesMean: 2, End: 300, Stopped: true}
	path := filepath.Join(dir, "j")
	j, err := OpenFigureJournal(path, set)
	if err != nil {
		t.Fatal(err)
	}
	rec := RunRecord{Servers: 20, Dispatchers: 5, Load: 0.9, Scaled: 1.1, Refreshes: 50, Rep: 2, Seed: 1, TippedAt: 17}
	if err := errors.Join(j.putRun("a", res), j.putRun("b", res), j.bracketStore().Put(rec)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	data, _ := os.ReadFile(path)

	for _, other := range []FigureSettings{{Quick: true, Seed: 2}, {Quick: false, Seed: 1}} {
		_, err := OpenFigureJournal(path, other)
		var mis *FigureJournalMismatchError
		if !errors.As(err, &mis) || mis.Finished != 3 || !strings.Contains(err.Error(), "quick=true seed=1") {
			t.Errorf("settings %+v: err %v, want a mismatch naming quick=true seed=1 and 3 runs", other, err)
		}
		if now, _ := os.ReadFile(path); string(now) != string(data) {
			t.Errorf("settings %+v: the refused journal changed", other)
		}
	}

	torn := filepath.Join(dir, "torn")
	cut := strings.LastIndex(string(data[:len(data)-1]), "\n") + 1 // the bracket line
	os.WriteFile(torn, append(data[:cut:cut], data[cut:len(data)-5]...), 0o644)
	j, err = OpenFigureJournal(torn, set)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := j.run("b")
	if _, br := j.bracketStore().Get(rec.Key()); !ok || !reflect.DeepEqual(got, res) || br || j.Len() != 2 {
		t.Errorf("torn journal: run b %v %+v (want %+v), torn bracket line read %t, %d units (want 2)", ok, got, res, br, j.Len())
	}
	if err := j.bracketStore().Put(rec); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if now, _ := os.ReadFile(torn); string(now) != string(data) {
		t.Errorf("torn journal after a put:\n%s\nwant\n%s", now, data)
	}

	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("x,y\n1,2\n"), 0o644)
	if _, err := OpenFigureJournal(other, set); err == nil || !strings.Contains(err.Error(), "not a herd figures journal") {
		t.Errorf("a CSV file: err %v, want a refusal", err)
	}
}

// Results round-trip bit for bit, NaN and infinities included.
func TestFigureJournalRoundTrip(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0.1 + 0.2, 1e-300, 5e-324, 1.7976931348623157e308} {
		r := sim.Result{ResponseMean: x, BoardMean: -x, ProbesMean: x / 3, End: x * 7, Jobs: 1 << 62}
		got, err := parseJournalResult(formatJournalResult(r))
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("%v: got %+v, %v", x, got, err)
		}
	}
	got, err := parseJournalResult(formatJournalResult(sim.Result{ResponseMean: math.NaN(), BoardMean: math.Inf(-1)}))
	if err != nil || !math.IsNaN(got.ResponseMean) || !math.IsInf(got.BoardMean, -1) {
		t.Errorf("NaN, -Inf: got %v, %v, %v", got.ResponseMean, got.BoardMean, err)
	}
}

// Covers: a journal is done with once the figures every run on it set
// out to make are written; a journal of other settings that keeps no run
// is started afresh.
func TestFigureJournalCovers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j")
	set := FigureSettings{Seed: 4}
	j, err := OpenFigureJournal(path, set)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.addFigures([]string{"1", "5"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := OpenFigureJournal(path, FigureSettings{Seed: 5}); err != nil {
		t.Fatalf("a journal of other settings with no run: %v, want it started afresh", err)
	}
	j, _ = OpenFigureJournal(path, set) // now seed 5's: refused, as it holds no run it is started afresh
	j.Close()
	j, err = OpenFigureJournal(path, set)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(j.addFigures([]string{"1", "5"}), j.putRun("a", sim.Result{})); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if j, err = OpenFigureJournal(path, set); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, c := range []struct {
		ids  []string
		want bool
	}{{[]string{"1"}, false}, {[]string{"5", "1"}, true}, {[]string{"1", "3", "5"}, true}} {
		if got := j.Covers(c.ids); got != c.want {
			t.Errorf("Covers(%v) = %t, want %t (runs on it set out to make 1, 5)", c.ids, got, c.want)
		}
	}
}

// Abandon keeps a journal that holds finished runs and deletes one that
// holds none; Finish deletes the journal once the figures every run on
// it set out to make are made, and keeps it otherwise.
func TestFigureJournalEnd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	set := FigureSettings{Seed: 4}
	open := func(name string, runs int, figures ...string) *FigureJournal {
		j, err := OpenFigureJournal(filepath.Join(dir, name), set)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.addFigures(figures); err != nil {
			t.Fatal(err)
		}
		for i := range runs {
			if err := j.putRun(fmt.Sprint(i), sim.Result{}); err != nil {
				t.Fatal(err)
			}
		}
		return j
	}
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	if n := open("empty", 0, "1").Abandon(); n != 0 || exists("empty") {
		t.Errorf("Abandon of an empty journal: kept %d, file there %t; want 0, deleted", n, exists("empty"))
	}
	if n := open("two", 2, "1").Abandon(); n != 2 || !exists("two") {
		t.Errorf("Abandon of a journal of 2 runs: kept %d, file there %t; want 2, kept", n, exists("two"))
	}
	if deleted, err := open("other", 1, "1", "5").Finish([]string{"1"}); deleted || err != nil || !exists("other") {
		t.Errorf("Finish of figure 1 on a journal of 1 and 5: deleted %t, %v; want it kept", deleted, err)
	}
	if deleted, err := open("done", 1, "1", "5").Finish([]string{"5", "1"}); !deleted || err != nil || exists("done") {
		t.Errorf("Finish of figures 1 and 5: deleted %t, %v; want it deleted", deleted, err)
	}
}
