package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/compare"
	"herd/meanfield"
)

// The footer counts a load where the law 0.9(k−2) predicts an edge and the
// model finds none (λ = 0.8, k = 3: validation.md, an independent solver
// finds no edge down to T(1−λ)² = 0.02).
func TestEdgeFooterCountsMissingEdge(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "edge", "--dispatchers", "3", "--load", "0.8", "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "λ = 0.8: largest deviation from the law 0.9(k−2): no edge at all for k = 3, where the law predicts one"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// --progress takes auto, always or never.
func TestEdgeProgressFlag(t *testing.T) {
	t.Parallel()
	_, errs, code := herd(t, "edge", "--progress", "sometimes")
	if code != 2 || !strings.Contains(errs, "--progress") || !strings.Contains(errs, "auto, always or never") {
		t.Errorf("exit %d, stderr %q; want 2 naming --progress and its values", code, errs)
	}
}

// A progress line says "stopped" for an edge that Ctrl-C ended (an error
// wrapping meanfield.ErrStopped) and "failed" for any other error.
func TestEdgeStatusStopped(t *testing.T) {
	t.Parallel()
	stopped := compare.EdgePoint{Err: fmt.Errorf("edge search at T = 290: %w", meanfield.ErrStopped)}
	failed := compare.EdgePoint{Err: errors.New("meanfield: refresh map: too many rows")}
	if got := edgeStatus(stopped); got != "stopped" {
		t.Errorf("stopped edge: status %q, want \"stopped\"", got)
	}
	if got := edgeStatus(failed); got != "failed" {
		t.Errorf("failed edge: status %q, want \"failed\"", got)
	}
}

// The heartbeat names an edge's step, its maps and its last run, and
// prices the maps it estimates are left at its pace.
func TestEdgeStep(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    meanfield.EdgeProgress
		want string
	}{
		{meanfield.EdgeProgress{Step: "confirm", Maps: 1234, Scaled: 9.57613, Ran: true, Reached: true}, "confirm, 1234 maps; last run T(1−λ)² = 9.5761: balanced"},
		{meanfield.EdgeProgress{Step: "follow", Maps: 7, Scaled: 30, Ran: true}, "follow, 7 maps; last run T(1−λ)² = 30.0000: not balanced"},
		{meanfield.EdgeProgress{Step: "herd", Maps: 880, Scaled: 28.5}, "herd, 880 maps; from T(1−λ)² = 28.5000"},
		{meanfield.EdgeProgress{Step: "spectra and herd", Maps: 880, Scaled: 28.5, HerdMaps: 7, HerdLeft: 25}, "spectra and herd, 880 maps; the herd's 7 maps, at most 25 left"},
	} {
		if got := edgeStep(c.p); got != c.want {
			t.Errorf("edgeStep(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	if got := mapsSince(523); got != "523 maps since" {
		t.Errorf("mapsSince(523) = %q", got)
	}
	if got := mapsSince(0); got != "" {
		t.Errorf("mapsSince(0) = %q, want nothing", got)
	}
	// 300 maps left at 10 s for the search's 150: 20 s; no estimate, none.
	if got := searchLeft(300, 150, 10*time.Second); got != 20*time.Second {
		t.Errorf("searchLeft(300, 150, 10s) = %v, want 20s", got)
	}
	if got := searchLeft(0, 150, 10*time.Second); got != 0 {
		t.Errorf("searchLeft(0, 150, 10s) = %v, want 0", got)
	}
	// The herd's classification: its maps left at the cost of its last
	// ones, which grow; the step's opening and the search's runs give none.
	var h herdPace
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		p    meanfield.EdgeProgress
		at   time.Duration
		want time.Duration
	}{
		{meanfield.EdgeProgress{Step: "confirm", Ran: true, Maps: 900}, 0, 0},
		{meanfield.EdgeProgress{Step: "spectra and herd", Maps: 900}, 10 * time.Second, 0},
		{meanfield.EdgeProgress{Step: "spectra and herd", Maps: 900, HerdMaps: 3, HerdLeft: 30}, 16 * time.Second, 60 * time.Second},
		{meanfield.EdgeProgress{Step: "spectra and herd", Maps: 900, HerdMaps: 4, HerdLeft: 29}, 21 * time.Second, 145 * time.Second},
		{meanfield.EdgeProgress{Step: "spectra and herd", Maps: 900, HerdMaps: 5, HerdLeft: 0}, 30 * time.Second, 0},
	} {
		if got := h.left(c.p, t0.Add(c.at)); got != c.want {
			t.Errorf("herdPace.left(%+v) at %v = %v, want %v", c.p, c.at, got, c.want)
		}
	}
}

// Above λ = 0.99 herd edge answers by the heavy-traffic expansion, labelled
// as such with its error estimate, in its own columns: at k = 5 the
// expansion at λ = 0.99 lies within its error estimate of the exact edge
// there, x = 2.806721 (herd edge --dispatchers 5 --load 0.99 --confirm, a
// border collision), which the expansion never sees.
func TestEdgeExpansionMethod(t *testing.T) {
	t.Parallel()
	plot := filepath.Join(t.TempDir(), "edge.svg")
	out, errs, code := herd(t, "edge", "--dispatchers", "5", "--load", "0.99,0.9999", "--method", "expansion", "--format", "csv", "--plot", plot)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := csvRows(t, out)
	if len(rows) != 2 || !strings.Contains(rows[0]["meta_notes"], "method expansion: an approximation, not the refresh map's edge") {
		t.Fatalf("rows %v: want two, the expansion labelled in the notes", rows)
	}
	r := rows[0]
	const exact = 2.806721
	x, errX := parseFloat(t, r["edge_scaled"]), parseFloat(t, r["edge_error"])
	if r["method"] != "expansion" || !(errX > 0 && errX < 0.01) || math.Abs(x-exact) > errX {
		t.Errorf("expansion at λ = 0.99: x = %v ± %v, method %s; want within its error of the exact %v", x, errX, r["method"], exact)
	}
	if T := parseFloat(t, r["edge_refresh"]); math.Abs(T-x/1e-4) > 1e-6*T {
		t.Errorf("edge_refresh %v, want x/(1−λ)² = %v", T, x/1e-4)
	}
	// At λ = 0.9999 the expansion is within its error of the limit map's
	// x*(5) = 2.81059 (compare.MapLimit, default grid, ± 0.0006).
	if x4, e4 := parseFloat(t, rows[1]["edge_scaled"]), parseFloat(t, rows[1]["edge_error"]); !(math.Abs(x4-2.81059) <= e4) {
		t.Errorf("expansion at λ = 0.9999: %v ± %v, want within its error of x*(5) = 2.81059", x4, e4)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.Contains(string(b), "(expansion, an approximation)") {
		t.Errorf("plot: %v; want the expansion's points drawn and labelled", err)
	}
	for _, tc := range []struct{ args, want string }{
		{"--method fast", `--method "fast": want exact, expansion or auto`},
		{"--method expansion --load 0.95", "--method expansion with --load 0.95: want loads above 0.97"},
	} {
		_, errs, code := herd(t, append([]string{"edge"}, strings.Fields(tc.args)...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("herd edge %s: exit %d, %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// --method auto: the exact search up to λ = 0.99, the expansion above;
// exact as asked.
func TestEdgeMethods(t *testing.T) {
	t.Parallel()
	grid := compare.EdgeGrid([]int{3, 5}, []float64{0.9, 0.99, 0.995}, meanfield.EdgeSettings{})
	for _, tc := range []struct {
		method string
		want   []bool
	}{
		{methodAuto, []bool{false, false, false, false, true, true}},
		{methodExact, []bool{false, false, false, false, false, false}},
	} {
		got, err := edgeMethods(tc.method, grid)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.method, got, err, tc.want)
		}
	}
}

// csvRows reads a herd CSV into one map per row, keyed by column.
func csvRows(t *testing.T, out string) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 1 {
		t.Fatalf("CSV %q: %v", out, err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for j, h := range recs[0] {
			m[h] = rec[j]
		}
		rows = append(rows, m)
	}
	return rows
}

// parseFloat reads a CSV number.
func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return x
}

// The warning before dear exact searches prices them on this machine: the
// k = 5 edge at λ = 0.995 at EdgeCost's 8 times the k = 5, λ = 0.99 edge
// the probe scales, and the k = 20 edge at √(20/5) = 2 times more (to the
// rounding of both to seconds); that reference within [4 s, 20 min]
// (24–44 s here; a machine 5 times slower or 30 times slower and busy
// still passes, a probe broken by orders of magnitude does not).
func TestExactWarningScaled(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k      int
		factor time.Duration
	}{{5, 8}, {20, 16}} {
		w := exactWarning([]meanfield.EdgeSettings{{Dispatchers: c.k, Load: 0.995}}, edgeOutput{expansion: []bool{false}}, 2)
		m := regexp.MustCompile(`estimated at about (\S+) \(√k/\(1−λ\)³ scaled from k = 5, λ = 0\.99: (\S+) on two cores of this machine`).FindStringSubmatch(w)
		if m == nil {
			t.Fatalf("warning %q", w)
		}
		est, err1 := time.ParseDuration(m[1])
		ref, err2 := time.ParseDuration(m[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("warning %q: %v, %v", w, err1, err2)
		}
		if ref < 4*time.Second || ref > 20*time.Minute {
			t.Errorf("the k = 5, λ = 0.99 edge priced at %v on this machine", ref)
		}
		if lo, hi := c.factor*(ref-time.Second), c.factor*(ref+time.Second); est < lo || est > hi {
			t.Errorf("k = %d, λ = 0.995 priced at %v, want %d × %v", c.k, est, c.factor, ref)
		}
	}
}

// The check's runs on the heartbeat: nothing before its first map; then
// each run's maps, above and below, and how far a run in the herd regime
// is from its classification.
func TestCheckRuns(t *testing.T) {
	t.Parallel()
	var c checkRuns
	if got := c.String(); got != "" {
		t.Errorf("before the check: %q", got)
	}
	c.setAt(0, meanfield.MapReport{Maps: 35}, time.Now())
	c.setAt(1, meanfield.MapReport{Maps: 410}, time.Now())
	c.setAt(2, meanfield.MapReport{Maps: 380, HerdRun: 12, HerdNeed: 32}, time.Now())
	c.setAt(3, meanfield.MapReport{Maps: 290}, time.Now())
	if got, want := c.String(), "check maps: above [35], below [410, 380 (12 of 32 in the herd regime), 290]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var d checkRuns
	d.setAt(4, meanfield.MapReport{Maps: 7}, time.Now())
	if got, want := d.String(), "check maps: above [7]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The check's time left (checkRuns.left), which the heartbeat shows while
// a check runs for hours at λ = 0.995: none before a run below the edge
// enters the herd regime; then that run's maps still needed at its last
// map's cost, and each run below not yet begun as long as that run is
// projected to take in all, shared by the workers.
func TestCheckRunsLeft(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	var c checkRuns
	c.setAt(0, meanfield.MapReport{Maps: 1}, t0)
	c.setAt(0, meanfield.MapReport{Maps: 40}, t0.Add(time.Minute))
	c.setAt(1, meanfield.MapReport{Maps: 1}, t0)
	c.setAt(1, meanfield.MapReport{Maps: 150}, t0.Add(20*time.Minute))
	if got := c.left(t0.Add(20*time.Minute), 1); got != 0 {
		t.Errorf("before the herd regime: %v, want none", got)
	}
	// Run 1: 26 of 32 herd-regime maps, its last map 4 minutes, begun 100
	// minutes ago: 24 minutes left, 124 in all; runs 2 and 3 not begun.
	now := t0.Add(100 * time.Minute)
	c.setAt(1, meanfield.MapReport{Maps: 196, HerdRun: 25, HerdNeed: 32}, now.Add(-4*time.Minute))
	c.setAt(1, meanfield.MapReport{Maps: 197, HerdRun: 26, HerdNeed: 32}, now)
	for _, w := range []struct {
		workers int
		want    time.Duration
	}{{1, 272 * time.Minute}, {2, 136 * time.Minute}, {4, 68 * time.Minute}} {
		if got := c.left(now, w.workers); got != w.want {
			t.Errorf("%d workers: %v left, want %v", w.workers, got, w.want)
		}
	}
	// Every run below in the herd regime: the longest one's maps bound it.
	c.setAt(2, meanfield.MapReport{Maps: 1}, now.Add(-30*time.Minute))
	c.setAt(2, meanfield.MapReport{Maps: 90, HerdRun: 31, HerdNeed: 32}, now.Add(-time.Minute))
	c.setAt(2, meanfield.MapReport{Maps: 91, HerdRun: 32, HerdNeed: 32}, now)
	c.setAt(3, meanfield.MapReport{Maps: 1}, now.Add(-10*time.Minute))
	c.setAt(3, meanfield.MapReport{Maps: 60, HerdRun: 2, HerdNeed: 32}, now.Add(-2*time.Minute))
	c.setAt(3, meanfield.MapReport{Maps: 61, HerdRun: 3, HerdNeed: 32}, now)
	if got, want := c.left(now, 2), 58*time.Minute; got != want {
		t.Errorf("all below in the herd regime: %v left, want %v (run 3: 29 maps of 2 minutes)", got, want)
	}
}

// --confirm-maps bounds each run of the check: at k = 3, λ = 0.97 (edge
// x = 0.95634) 100 maps bring no low board to the balanced state above the
// edge and classify none below it, so the edge is not confirmed (three
// runs undecided), where the default 2,000 confirm it (TestConfirmEdge's
// kind of case at λ = 0.9). About 3 s.
func TestEdgeConfirmMaps(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "edge", "--dispatchers", "3", "--load", "0.97", "--confirm", "--confirm-maps", "100", "--format", "csv", "--progress", "always")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%v: %d records\n%s", err, len(recs), out)
	}
	col := map[string]string{}
	for i, name := range recs[0] {
		col[name] = recs[1][i]
	}
	if col["above_reached"] != "none" || col["below_balanced"] != "0" || col["below_undecided"] != "3" {
		t.Errorf("above_reached %q, below_balanced %q, below_undecided %q; want none, 0, 3", col["above_reached"], col["below_balanced"], col["below_undecided"])
	}
	if !strings.Contains(col["meta_notes"], "unclassified after 100 maps") || !strings.Contains(errs, "NOT confirmed") {
		t.Errorf("notes %q, stderr %q: want the bound and the verdict", col["meta_notes"], errs)
	}
}
