package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"herd/compare"
	"herd/meanfield"
)

// finiteCommands are the two commands that take --servers N, each with a
// small valid rest of the command line (herd edge's no-edge cell fails
// fast, after parsing, so a usage error is seen before any work).
var finiteCommands = []struct {
	name string
	args []string
}{
	{"edge", []string{"edge", "--dispatchers", "2", "--load", "0.8"}},
	{"point", []string{"point", "--dispatchers", "2", "--load", "0.5", "--refresh", "2"}},
}

// finiteArgs returns finiteCommands[i]'s command line followed by extra,
// in a new slice.
func finiteArgs(i int, extra ...string) []string {
	return append(append([]string(nil), finiteCommands[i].args...), extra...)
}

// TestFiniteServersBadInput: a --servers value out of [2, 1e9], or one
// that is not an integer, exits 2 before any work, with a message naming
// the flag (and its range, where herd parses it: herd edge takes a list,
// herd point one integer, which pflag parses); so do the flags --servers
// refuses to combine with.
func TestFiniteServersBadInput(t *testing.T) {
	t.Parallel()
	const want = "want an integer in [2, 1e9]"
	values := []struct {
		value, edge, point string
	}{
		{"0", "--servers 0: " + want, "--servers 0: " + want},
		{"1", "--servers 1: " + want, "--servers 1: " + want},
		{"-3", "--servers -3: " + want, "--servers -3: " + want},
		{"1000000001", "--servers 1000000001: " + want, "--servers 1000000001: " + want},
		{"100,1", "--servers 1: " + want, `invalid argument "100,1" for "--servers" flag: must be an integer`},
		{"", "--servers is empty", `invalid argument "" for "--servers" flag: must be an integer`},
		{"2.5", "--servers 2.5: " + want, `invalid argument "2.5" for "--servers" flag: must be an integer`},
		{"1e3", "--servers 1e3: " + want, `invalid argument "1e3" for "--servers" flag: must be an integer`},
		{"ten", "--servers ten: " + want, `invalid argument "ten" for "--servers" flag: must be an integer`},
		{"99999999999999999999", "--servers 99999999999999999999: " + want, `invalid argument "99999999999999999999" for "--servers" flag`},
	}
	for _, c := range finiteCommands {
		for _, v := range values {
			args := append(append([]string(nil), c.args...), "--servers", v.value)
			w := v.point
			if c.name == "edge" {
				w = v.edge
			}
			out, errs, code := herd(t, args...)
			if code != 2 || !strings.Contains(errs, w) || out != "" {
				t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 and %q", args, code, errs, out, w)
			}
		}
	}
	combos := []struct {
		args []string
		want string
	}{
		{finiteArgs(0, "--servers", "10", "--plot", "edge.svg"), "--servers does not go with --plot"},
		{finiteArgs(0, "--servers", "10", "--confirm"), "--servers does not go with --confirm"},
		{finiteArgs(0, "--servers", "10", "--method", "exact"), "--servers does not go with --method"},
		{finiteArgs(1, "--servers", "10", "--start", "balanced"), "--servers does not go with --start"},
		{finiteArgs(1, "--servers", "10", "--shards", "2", "--shard", "0", "--out", t.TempDir()), "--servers does not go with --shards"},
		{finiteArgs(1, "--servers", "10", "--checkpoint", "point.ckpt"), "--servers does not go with --checkpoint"},
	}
	for _, c := range combos {
		out, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, errs, out, c.want)
		}
	}
}

// TestFiniteServersIgnoredFlags: flags that the finite computation never
// reads (the map's edge search's and the attractor run's) exit 2 with
// --servers, naming the flag, like --plot and --start: a flag that would
// change no row is not quietly accepted.
func TestFiniteServersIgnoredFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		flag string
	}{
		{finiteArgs(0, "--servers", "10", "--herd"), "--herd"},
		{finiteArgs(0, "--servers", "10", "--tolerance", "0.01"), "--tolerance"},
		{finiteArgs(0, "--servers", "10", "--branch-from", "2"), "--branch-from"},
		{finiteArgs(1, "--servers", "10", "--max-iter", "1"), "--max-iter"},
		{finiteArgs(1, "--servers", "10", "--tol", "0.5"), "--tol"},
		{finiteArgs(1, "--servers", "10", "--settle", "5"), "--settle"},
		{finiteArgs(1, "--servers", "10", "--average", "16"), "--average"},
	}
	for _, c := range cases {
		_, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.flag) {
			t.Errorf("herd %v: exit %d, stderr %q; want exit 2 naming %s", c.args, code, errs, c.flag)
		}
	}
}

// finitePointColumns are herd point --servers' columns, in CSV order.
var finitePointColumns = []string{"dispatchers", "load", "refresh", "servers",
	"board_mean", "board_mean_refined", "board_mean_sd", "response_mean", "response_refined",
	"response_particle", "response_particle_se", "particle_tipped",
	"border", "border_sd", "border_z", "cross_per_period", "spectral_radius"}

// finiteEdgeColumns are herd edge --servers' columns, in CSV order.
var finiteEdgeColumns = []string{"dispatchers", "load", "servers", "particles", "model_scaled",
	"edge_scaled", "edge_lower", "edge_upper", "edge_refresh", "hazard_fit", "hazard_slope", "points", "maps",
	"half_scaled", "half_lower", "half_upper"}

// TestFinitePointMatchesAPI: herd point --servers 10 at k = 2, λ = 0.5,
// T = 2 (a small board: about 0.1 s) prints, to the last bit (CSV writes
// round-trip floats), what meanfield.FiniteMean returns with the command's
// settings (seed 1, the default run); JSON carries the same columns.
func TestFinitePointMatchesAPI(t *testing.T) {
	t.Parallel()
	args := finiteArgs(1, "--servers", "10")
	out, errs, code := herd(t, append(args, "--format", "csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	header := strings.SplitN(out, "\n", 2)[0]
	if got := strings.Split(header, ",")[:len(finitePointColumns)]; !reflect.DeepEqual(got, finitePointColumns) {
		t.Errorf("CSV columns %v, want %v", got, finitePointColumns)
	}
	rows := csvRows(t, out)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1:\n%s", len(rows), out)
	}
	f, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2}, Servers: 10},
		meanfield.FiniteRun{Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := f.Linear
	want := map[string]float64{
		"servers": 10, "board_mean": l.BoardMean, "board_mean_refined": l.RefinedBoardMean, "board_mean_sd": l.BoardMeanSD,
		"response_mean": l.Response, "response_refined": l.RefinedResponse,
		"response_particle": f.Response, "response_particle_se": f.ResponseSE, "particle_tipped": float64(f.Tipped),
		"border": l.Border, "border_sd": l.BorderSD, "border_z": l.BorderZ, "cross_per_period": l.CrossPerPeriod,
		"spectral_radius": l.SpectralRadius,
	}
	checkFiniteRow(t, rows[0], want)

	js, errs, code := herd(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	checkFiniteJSON(t, js, finitePointColumns, map[string]any{"servers": 10.0, "seed": 1.0}, want)
}

// TestFiniteEdgeNoEdge: cells where the map has no edge (k = 2, λ = 0.8,
// package doc §5) give each an empty row, a warning naming the cell and a
// progress line with the time it took, exit 1, and every column, in CSV
// and in JSON.
func TestFiniteEdgeNoEdge(t *testing.T) {
	t.Parallel()
	args := finiteArgs(0, "--servers", "10,20")
	out, errs, code := herd(t, append(args, "--format", "csv")...)
	for _, n := range []string{"10", "20"} {
		if code != 1 || !strings.Contains(errs, "k=2 λ=0.8 N="+n+": meanfield: finite edge: the map has no edge") || !strings.Contains(errs, "2 edge(s) failed") {
			t.Errorf("exit %d, stderr %q; want exit 1 and each cell's warning", code, errs)
		}
	}
	header := strings.SplitN(out, "\n", 2)[0]
	if got := strings.Split(header, ",")[:len(finiteEdgeColumns)]; !reflect.DeepEqual(got, finiteEdgeColumns) {
		t.Errorf("CSV columns %v, want %v", got, finiteEdgeColumns)
	}
	rows := csvRows(t, out)
	if len(rows) != 2 || rows[0]["servers"] != "10" || rows[1]["servers"] != "20" || rows[0]["edge_scaled"] != "" || rows[1]["edge_scaled"] != "" {
		t.Errorf("rows %v, want servers 10 and 20 with no edge", rows)
	}
	js, jerrs, code := herd(t, append(args, "--format", "json", "--progress", "always")...)
	if code != 1 {
		t.Errorf("json: exit %d, want 1", code)
	}
	if !regexp.MustCompile(`edge 1/2: k=2 λ=0\.8 N=10: failed in [0-9.]+(ns|µs|ms|s);`).MatchString(jerrs) {
		t.Errorf("--progress always: stderr %q, want the cell's progress line and its time", jerrs)
	}
	doc := finiteJSON(t, js, finiteEdgeColumns)
	if w, _ := doc.Meta["warnings"].([]any); len(w) != 2 || !strings.Contains(w[1].(string), "N=20: meanfield: finite edge: the map has no edge") {
		t.Errorf("JSON warnings %v, want the no-edge warning", doc.Meta["warnings"])
	}
	if len(doc.Rows) != 2 || doc.Rows[0]["edge_scaled"] != nil || doc.Rows[1]["edge_scaled"] != nil {
		t.Errorf("JSON rows %v, want two with a null edge", doc.Rows)
	}
}

// TestFiniteEdgeModelStops: herd edge --servers without --model-edge
// searches the map's edge with herd edge's own search, which polls Ctrl-C
// after its maps, before any particle run: the run polls its context more
// than the same run given that edge, by more than half the search's maps
// (414 polls for 427 maps when written), and a cut among those polls ends
// it with no particle run (no row). Before, the search polled nothing.
func TestFiniteEdgeModelStops(t *testing.T) {
	t.Parallel()
	base := []string{"edge", "--dispatchers", "5", "--load", "0.8", "--servers", "30", "--refreshes", "100", "--runs", "4", "--format", "csv", "--workers", "1"}
	model, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: 5, Load: 0.8, HerdMaps: -1})
	if err != nil || model.Status != meanfield.Found {
		t.Fatalf("the map's edge: %v, %v", model.Status, err)
	}
	polls := func(args ...string) (int64, map[string]string) {
		ctx := newCountdown(1 << 40)
		out, errs, code := herdCtx(ctx, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errs)
		}
		return 1<<40 - ctx.left.Load(), csvRows(t, out)[0]
	}
	searched, row := polls(base...)
	given, grow := polls(append(base, "--model-edge", strconv.FormatFloat(model.Scaled, 'g', -1, 64))...)
	maps, _ := strconv.Atoi(row["maps"])
	gmaps, _ := strconv.Atoi(grow["maps"])
	if model := int64(maps - gmaps); model <= 0 || 2*(searched-given) <= model {
		t.Fatalf("%d polls with the map's edge searched (%d maps), %d with it given (%d maps): want more than one for every two maps more", searched, maps, given, gmaps)
	}
	out, errs, code := herdCtx(newCountdown(int(searched-given)/2), append(base, "--format", "json")...)
	if doc := finiteJSON(t, out, finiteEdgeColumns); code != 1 || len(doc.Rows) != 0 || !strings.Contains(out, `"partial": true`) {
		t.Errorf("cut in the map's edge search: exit %d, stderr %q, stdout\n%s\nwant exit 1, partial, no row", code, errs, out)
	}
}

// TestFiniteEdgeMatchesAPI: herd edge --servers 11,14 at k = 5, λ = 0.7
// (cheap cells with a fitted hazard: about 4.5 s of CPU per N, twice that
// here for the direct calls; the runs' seeds once followed the period, so
// each change in the map edge's last bits drew them anew and moved which
// N had a fit; they now follow the probe's place relative to the edge,
// TestFiniteEdgeSeedsStable) prints in each row, to the last
// bit, what meanfield.FiniteEdge returns alone at that N with the
// command's settings (seed 1, the default 1,000 refreshes and 6 runs per
// period; the result does not depend on the workers), the map's edge,
// which the command computes once, counted in both rows' maps.
func TestFiniteEdgeMatchesAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the particle map four times (about 18 s of CPU)")
	}
	t.Parallel()
	out, errs, code := herd(t, "edge", "--dispatchers", "5", "--load", "0.7", "--servers", "11,14", "--format", "csv", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := csvRows(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2:\n%s", len(rows), out)
	}
	for i, n := range []int{11, 14} {
		r, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.7, Servers: n, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != meanfield.Found || !r.HazardFit || r.ModelMaps == 0 {
			t.Fatalf("FiniteEdge at N = %d: status %v, hazard fit %v, model maps %d: not the known case", n, r.Status, r.HazardFit, r.ModelMaps)
		}
		checkFiniteRow(t, rows[i], map[string]float64{
			"servers": float64(n), "model_scaled": r.ModelScaled, "edge_scaled": r.Scaled, "edge_lower": r.Lower, "edge_upper": r.Upper,
			"edge_refresh": r.Refresh, "hazard_slope": r.HazardSlope, "points": float64(len(r.Points)), "maps": float64(r.Maps),
		})
		if rows[i]["hazard_fit"] != "true" {
			t.Errorf("N = %d: hazard_fit %q, want true", n, rows[i]["hazard_fit"])
		}
	}
}

// TestFiniteEdgeHalf: herd edge --servers' half_* columns are
// compare.FitTipHalf over meanfield.FiniteEdge's probes with runs, each in
// its own column (a cell whose interval is bounded at both ends: k = 5,
// λ = 0.8, N = 30, 4 runs of 100 refreshes, about 1 s); a row without an
// edge (N = 4, seed 5: the runs still tip at the scan's end, where the
// logistic curve put T_½ at 719) leaves them empty, and hazard_slope
// with them (no hazard fit); and an estimate
// outside the probes is not given.
func TestFiniteEdgeHalf(t *testing.T) {
	t.Parallel()
	const model = 3.1631926534274837 // the map's edge at k = 5, λ = 0.8
	out, errs, code := herd(t, "edge", "--dispatchers", "5", "--load", "0.8", "--servers", "30", "--model-edge", strconv.FormatFloat(model, 'g', -1, 64),
		"--refreshes", "100", "--runs", "4", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 30, ModelScaled: model, Refreshes: 100, Replications: 4, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var stats []compare.PointStat
	for _, p := range r.Points {
		if p.Runs > 0 {
			stats = append(stats, compare.PointStat{Scaled: p.Scaled, Runs: p.Runs, Tipped: p.Tipped})
		}
	}
	h := compare.FitTipHalf(stats)
	if !h.Bounded() || r.Status != meanfield.Found {
		t.Fatalf("FiniteEdge %v, T_½ of its probes %+v: not the known case (bounded)", r.Status, h)
	}
	checkFiniteRow(t, csvRows(t, out)[0], map[string]float64{"edge_scaled": r.Scaled, "half_scaled": h.Scaled, "half_lower": h.Lower, "half_upper": h.Upper})

	out, _, code = herd(t, "edge", "--dispatchers", "5", "--load", "0.7", "--servers", "4", "--runs", "2", "--refreshes", "2000", "--seed", "5",
		"--model-edge", "3.1025028818615663", "--format", "csv")
	row := csvRows(t, out)[0]
	if code != 1 || row["edge_scaled"] != "" || row["points"] == "0" || row["hazard_slope"] != "" || row["half_scaled"] != "" || row["half_lower"] != "" || row["half_upper"] != "" {
		t.Errorf("a row without an edge: exit %d, row %v; want exit 1, probes, and no edge_scaled, hazard_slope or half_*", code, row)
	}

	// Probes that all tip but the highest: the logistic estimate lies
	// above the span, and is not given; one probe more above, it is.
	pts := []meanfield.FiniteEdgePoint{{Scaled: 1, Balanced: true, Runs: 6, Tipped: 6}, {Scaled: 1.1, Balanced: true, Runs: 6, Tipped: 6},
		{Scaled: 1.2, Balanced: true, Runs: 6, Tipped: 5}, {Scaled: 0.9}}
	if got := compare.FiniteTipHalf(pts); !math.IsNaN(got.Scaled) || !math.IsNaN(got.Lower) || !math.IsNaN(got.Upper) {
		t.Errorf("estimate above the probes: %+v, want none", got)
	}
	pts = append(pts, meanfield.FiniteEdgePoint{Scaled: 1.3, Balanced: true, Runs: 6, Tipped: 0})
	want := compare.FitTipHalf([]compare.PointStat{{Scaled: 1, Runs: 6, Tipped: 6}, {Scaled: 1.1, Runs: 6, Tipped: 6}, {Scaled: 1.2, Runs: 6, Tipped: 5}, {Scaled: 1.3, Runs: 6, Tipped: 0}})
	if got := compare.FiniteTipHalf(pts); got != want || !(got.Scaled > 1.2 && got.Scaled < 1.3) {
		t.Errorf("with a probe above: %+v, want FitTipHalf's %+v inside (1.2, 1.3)", got, want)
	}
}

// TestFiniteRunFlags: herd edge --servers with --runs, --refreshes and
// --seed prints, to the last bit, what meanfield.FiniteEdge returns with
// those Replications, Refreshes and Seed (short runs: 50 refreshes, 3 runs
// a period, under a second), records them in the metadata and the note,
// and differs from the same run at seed 1; herd point --servers passes them
// to meanfield.FiniteRun as Periods, Replications and Seed; the three flags
// without --servers, or out of their ranges, exit 2 naming the flag.
func TestFiniteRunFlags(t *testing.T) {
	t.Parallel()
	args := []string{"edge", "--dispatchers", "5", "--load", "0.8", "--servers", "14", "--runs", "3", "--refreshes", "50", "--seed", "7"}
	out, errs, code := herd(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 14, Replications: 3, Refreshes: 50, Seed: 7, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != meanfield.Found {
		t.Fatalf("FiniteEdge: status %v: not the known case", r.Status)
	}
	checkFiniteJSON(t, out, finiteEdgeColumns, map[string]any{"refreshes": 50.0, "replications": 3.0, "seed": 7.0}, map[string]float64{
		"servers": 14, "model_scaled": r.ModelScaled, "edge_scaled": r.Scaled, "edge_lower": r.Lower, "edge_upper": r.Upper,
		"edge_refresh": r.Refresh, "points": float64(len(r.Points)), "maps": float64(r.Maps),
	})
	if !strings.Contains(out, "tips within 50 refreshes") {
		t.Errorf("the note does not give the run length of 50 refreshes:\n%s", out)
	}
	d, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 14, Replications: 3, Refreshes: 50, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d.Scaled == r.Scaled {
		t.Errorf("seed 1 and 7 give the same edge %v: --seed would not be seen", r.Scaled)
	}
	pargs := finiteArgs(1, "--servers", "10", "--runs", "3", "--refreshes", "40", "--seed", "5", "--format", "json")
	js, errs, code := herd(t, pargs...)
	if code != 0 {
		t.Fatalf("herd %v: exit %d: %s", pargs, code, errs)
	}
	f, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2}, Servers: 10},
		meanfield.FiniteRun{Periods: 40, Replications: 3, Seed: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkFiniteJSON(t, js, finitePointColumns, map[string]any{"periods": 40.0, "replications": 3.0, "seed": 5.0, "particles": "servers"},
		map[string]float64{"response_particle": f.Response, "response_particle_se": f.ResponseSE, "particle_tipped": float64(f.Tipped)})
	// --particles: herd point's auto runs the servers at any sizes (herd
	// edge's, tested below, the board for exponential ones); each kind
	// asked for is the API's, and the two differ.
	h2 := meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2, Service: meanfield.H2Service(4)}
	for _, c := range []struct {
		flag, sizes, meta string
		want              meanfield.Particles
		r                 meanfield.Refresh
	}{
		{"auto", "h2:4", "servers", meanfield.ParticlesServers, h2},
		{"auto", "exp", "servers", meanfield.ParticlesServers, meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2}},
		{"board", "exp", "board", meanfield.ParticlesBoard, meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2}},
		{"board", "h2:4", "board", meanfield.ParticlesBoard, h2},
		{"servers", "exp", "servers", meanfield.ParticlesServers, meanfield.Refresh{Dispatchers: 2, Load: 0.5, Period: 2}},
	} {
		args := finiteArgs(1, "--servers", "10", "--runs", "3", "--refreshes", "40", "--sizes", c.sizes, "--particles", c.flag, "--format", "json")
		js, errs, code := herd(t, args...)
		if code != 0 {
			t.Fatalf("herd %v: exit %d: %s", args, code, errs)
		}
		f, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: c.r, Servers: 10},
			meanfield.FiniteRun{Periods: 40, Replications: 3, Seed: 1, Workers: 1, Particles: c.want})
		if err != nil {
			t.Fatal(err)
		}
		o, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: c.r, Servers: 10},
			meanfield.FiniteRun{Periods: 40, Replications: 3, Seed: 1, Workers: 1, Particles: 3 - c.want})
		if err != nil {
			t.Fatal(err)
		}
		if o.Response == f.Response {
			t.Errorf("--particles %s, --sizes %s: board and servers give the same response %v", c.flag, c.sizes, f.Response)
		}
		checkFiniteJSON(t, js, finitePointColumns, map[string]any{"particles": c.meta},
			map[string]float64{"response_particle": f.Response, "response_particle_se": f.ResponseSE})
	}
	// --model-edge: FiniteEdge from the edge given, said in a note.
	margs := []string{"edge", "--dispatchers", "5", "--load", "0.8", "--servers", "14", "--runs", "3", "--refreshes", "50", "--model-edge", "3.2", "--format", "json"}
	mjs, errs, code := herd(t, margs...)
	if code != 0 {
		t.Fatalf("herd %v: exit %d: %s", margs, code, errs)
	}
	m, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: 5, Load: 0.8, Servers: 14, Replications: 3, Refreshes: 50, Seed: 1, Workers: 2, ModelScaled: 3.2})
	if err != nil {
		t.Fatal(err)
	}
	checkFiniteJSON(t, mjs, finiteEdgeColumns, nil, map[string]float64{"model_scaled": 3.2, "edge_scaled": m.Scaled, "maps": float64(m.Maps)})
	if !strings.Contains(mjs, "model_scaled = 3.2 is --model-edge as given") {
		t.Errorf("--model-edge: no note says the model edge was given:\n%s", mjs)
	}
	eout, errs, code := herd(t, "edge", "--dispatchers", "5", "--load", "0.8", "--servers", "14,200000", "--runs", "3", "--refreshes", "50", "--format", "csv")
	if rows := csvRows(t, eout); code != 0 || len(rows) != 2 || rows[0]["particles"] != "board" || rows[1]["particles"] != "board" {
		t.Errorf("herd edge --servers 14,200000: exit %d (%s), rows %v; want the particles column board, board", code, errs, rows)
	}
	bad := []struct {
		args []string
		want string
	}{
		{finiteArgs(0, "--runs", "4"), "--runs needs --servers"},
		{finiteArgs(1, "--runs", "4"), "--runs needs --servers"},
		{finiteArgs(1, "--servers", "10", "--refreshes", "5"), "--refreshes 5: want an integer in [10, 1000000]"},
		{finiteArgs(0, "--refreshes", "100"), "--refreshes needs --servers"},
		{finiteArgs(0, "--seed", "2"), "--seed needs --servers"},
		{finiteArgs(0, "--servers", "10", "--runs", "1"), "--runs 1: want an integer in [2, 1000]"},
		{finiteArgs(0, "--servers", "10", "--runs", "1001"), "--runs 1001: want an integer in [2, 1000]"},
		{finiteArgs(0, "--servers", "10", "--refreshes", "9"), "--refreshes 9: want an integer in [10, 1000000]"},
		{finiteArgs(0, "--servers", "10", "--refreshes", "1000001"), "--refreshes 1000001: want an integer in [10, 1000000]"},
		{finiteArgs(0, "--servers", "10", "--refreshes", ""), `invalid argument "" for "--refreshes"`},
		{finiteArgs(0, "--servers", "10", "--seed", "-1"), `invalid argument "-1" for "--seed"`},
		{finiteArgs(0, "--particles", "board"), "--particles needs --servers"},
		{finiteArgs(0, "--servers", "10", "--particles", "cells"), `--particles "cells": want auto, board or servers`},
		{finiteArgs(0, "--servers", "10", "--particles", ""), "--particles is empty"},
		{finiteArgs(0, "--servers", "10,100001", "--particles", "servers"), "--particles servers runs at most 100,000 servers, not --servers 100001"},
		{finiteArgs(1, "--servers", "100001", "--particles", "servers"), "--particles servers runs at most 100,000 servers, not --servers 100001"},
		{finiteArgs(0, "--model-edge", "3"), "--model-edge needs --servers"},
		{[]string{"edge", "--dispatchers", "2,3", "--load", "0.8", "--servers", "10", "--model-edge", "3"}, "--model-edge needs one --dispatchers and one --load, not 2 and 1"},
		{finiteArgs(0, "--servers", "10", "--model-edge", "1001"), "--model-edge 1001: want 0 (compute it) or a number in (0, 1000]"},
		{finiteArgs(0, "--servers", "10", "--model-edge", "NaN"), "--model-edge NaN: want 0"},
		{finiteArgs(0, "--servers", "10", "--model-edge", ""), `invalid argument "" for "--model-edge"`},
	}
	for _, c := range bad {
		out, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, errs, out, c.want)
		}
	}
}

// checkFiniteRow compares a CSV row's cells with the values the API gave,
// bit for bit (NaN as an empty cell).
func checkFiniteRow(t *testing.T, row map[string]string, want map[string]float64) {
	t.Helper()
	for col, w := range want {
		cell, ok := row[col]
		if !ok {
			t.Errorf("column %s missing", col)
			continue
		}
		if math.IsNaN(w) {
			if cell != "" {
				t.Errorf("%s = %q, want empty (NaN)", col, cell)
			}
			continue
		}
		got, err := strconv.ParseFloat(cell, 64)
		if err != nil || got != w {
			t.Errorf("%s = %q, want %v (API; difference %.3g)", col, cell, w, got-w)
		}
	}
}

// finiteDoc is a JSON table as the tests read it.
type finiteDoc struct {
	Meta    map[string]any   `json:"meta"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

// finiteJSON decodes a JSON table and checks its columns.
func finiteJSON(t *testing.T, js string, cols []string) finiteDoc {
	t.Helper()
	var doc finiteDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("json: %v\n%s", err, js)
	}
	if !reflect.DeepEqual(doc.Columns, cols) {
		t.Errorf("JSON columns %v, want %v", doc.Columns, cols)
	}
	return doc
}

// checkFiniteJSON checks a JSON document's columns, metadata and single
// row against the same values.
func checkFiniteJSON(t *testing.T, js string, cols []string, meta map[string]any, want map[string]float64) {
	t.Helper()
	doc := finiteJSON(t, js, cols)
	for k, v := range meta {
		if doc.Meta[k] != v {
			t.Errorf("JSON meta %s = %v, want %v", k, doc.Meta[k], v)
		}
	}
	if len(doc.Rows) != 1 {
		t.Fatalf("JSON: %d rows, want 1", len(doc.Rows))
	}
	for col, w := range want {
		got, ok := doc.Rows[0][col].(float64)
		if math.IsNaN(w) {
			if doc.Rows[0][col] != nil {
				t.Errorf("JSON %s = %v, want null (NaN)", col, doc.Rows[0][col])
			}
			continue
		}
		if !ok || got != w {
			t.Errorf("JSON %s = %v, want %v", col, doc.Rows[0][col], w)
		}
	}
}

// scalingPredictCSV is four brackets (the fit's minimum) in herd bracket's
// columns at k = 5, λ = 0.7 with the model edge meanfield.Edge gives
// there; the bracket ends are made up, and the run length (30 refreshes,
// 2 runs per period) is short so that the four predictions take about a
// second: only the plumbing of --predict is under test.
const scalingPredictCSV = "servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300,cut,points,resolution,seed,half_scaled,half_lower,half_upper\n" +
	"10,5,0.7,2,30,3.2,3.5,3.102502873593299,3.2,3.5,30,5,0.5,1,3.3,3.1,3.6\n" +
	"25,5,0.7,2,30,3.15,3.3,3.102502873593299,3.15,3.3,30,4,0.5,1,3.2,3.1,\n" +
	"100,5,0.7,2,30,3.11,3.2,3.102502873593299,3.11,3.2,30,4,0.5,1,3.15,3.1,3.2\n" +
	"400,5,0.7,2,30,3.10,3.15,3.102502873593299,3.10,3.15,30,4,0.5,1,3.12,3.1,3.14\n"

// TestScalingPredict: herd scaling --predict adds the predicted_* columns,
// each row what compare.PredictScaling gives for that bracket (bit for
// bit), and draws the prediction on --plot; bad input exits 2 naming the
// flag.
func TestScalingPredict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight short particle-map edge searches (about 4 s of CPU)")
	}
	t.Parallel()
	dir := t.TempDir()
	from := filepath.Join(dir, "br.csv")
	if err := os.WriteFile(from, []byte(scalingPredictCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	plot := filepath.Join(dir, "scaling.svg")
	out, errs, code := herd(t, "scaling", "--from", from, "--predict", "--format", "csv", "--plot", plot, "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := csvRows(t, out)
	recs, err := csv.NewReader(strings.NewReader(scalingPredictCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	results, err := compare.BracketsFromTable(recs)
	if err != nil {
		t.Fatal(err)
	}
	preds, perrs := compare.PredictScaling(context.Background(), results, 1, compare.PredictHooks{})
	if len(rows) != 4 || len(preds) != 4 {
		t.Fatalf("%d rows, %d predictions; want 4", len(rows), len(preds))
	}
	for i, p := range preds {
		if perrs[i] != nil {
			t.Fatalf("N = %d: %v", p.Servers, perrs[i])
		}
		checkFiniteRow(t, rows[i], map[string]float64{"servers": float64(p.Servers), "predicted_scaled": p.Predicted,
			"predicted_lower": p.PredictedLower, "predicted_upper": p.PredictedUpper, "predicted_widths": p.Widths,
			"predicted_half_z": p.HalfZ, "half_scaled": results[i].Half.Scaled})
		sp, sh := (p.PredictedUpper-p.PredictedLower)/3.92, (results[i].Half.Upper-results[i].Half.Lower)/3.92
		if z := (p.Predicted - results[i].Half.Scaled) / math.Sqrt(sp*sp+sh*sh); !(z == p.HalfZ || math.IsNaN(z) && math.IsNaN(p.HalfZ)) || (i == 1) != math.IsNaN(z) {
			t.Errorf("row %d: predicted_half_z %v, want %v (empty only at N = 25, its half_upper empty)", i, p.HalfZ, z)
		}
		if _, ok := rows[i]["predict_seconds"]; !ok {
			t.Errorf("row %d: no predict_seconds", i)
		}
		// One estimator on both sides: the bracket's logistic T_½ of the
		// prediction's own runs against the bracket's.
		ph := p.PredictedHalf
		lz := math.NaN()
		if ph.Bounded() && results[i].Half.Bounded() {
			sp, sh := (ph.Upper-ph.Lower)/3.92, (results[i].Half.Upper-results[i].Half.Lower)/3.92
			lz = (ph.Scaled - results[i].Half.Scaled) / math.Sqrt(sp*sp+sh*sh)
		}
		checkFiniteRow(t, rows[i], map[string]float64{"predicted_logistic": ph.Scaled, "predicted_logistic_lower": ph.Lower,
			"predicted_logistic_upper": ph.Upper, "predicted_logistic_z": lz})
		if !(lz == p.PredictedHalfZ || math.IsNaN(lz) && math.IsNaN(p.PredictedHalfZ)) {
			t.Errorf("row %d: PredictedHalfZ %v, want %v", i, p.PredictedHalfZ, lz)
		}
	}
	svg, err := os.ReadFile(plot)
	if err != nil || !bytes.Contains(svg, []byte("prediction at N")) {
		t.Errorf("--plot: %v; want the prediction's line in the legend", err)
	}
	// Without --predict the columns are absent.
	plain, _, _ := herd(t, "scaling", "--from", from, "--format", "csv")
	if strings.Contains(plain, "predicted_scaled") {
		t.Error("predicted_scaled without --predict")
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--from", from, "--predict=maybe"}, `invalid argument "maybe" for "--predict" flag`},
		{[]string{"--from", from, "--predict", "--sizes", "pareto:2"}, `--sizes "pareto:2": the refresh map needs phase-type sizes`},
		{[]string{"--from", from, "--sizes", "h2:4"}, "--sizes: the brackets are read from --from " + from + ", not run, so it would change no row"},
	}
	for _, b := range bad {
		out, errs, code := herd(t, append([]string{"scaling"}, b.args...)...)
		if code != 2 || !strings.Contains(errs, b.want) || out != "" {
			t.Errorf("herd scaling %v: exit %d, stderr %q; want exit 2 and %q", b.args, code, errs, b.want)
		}
	}
}
