package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// herd runs the command line in-process.
func herd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/herd -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

var simSmall = []string{"sim", "--servers", "20", "--horizon", "400", "--runs", "3",
	"--policy", "ll,sq2,rr", "--refresh", "0,5", "--seed", "7"}

func TestSimGolden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, errs, code := herd(t, append(simSmall, "--format", format)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, "sim."+format, out)
		})
	}
}

// The same flags and seed print the same bytes whatever the number of workers.
func TestSimWorkersSameBytes(t *testing.T) {
	t.Parallel()
	one, _, c1 := herd(t, append(simSmall, "--format", "csv", "--workers", "1")...)
	eight, _, c8 := herd(t, append(simSmall, "--format", "csv", "--workers", "8")...)
	if c1 != 0 || c8 != 0 || one != eight {
		t.Errorf("--workers 1 and 8 differ (exit %d, %d):\n%s\n%s", c1, c8, one, eight)
	}
}

// Bad input exits 2 with a message naming the flag and its range.
func TestSimBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--load", "1"}, "--load 1: want a number in (0, 1)"},
		{[]string{"--load", "0"}, "--load 0: want a number in (0, 1)"},
		{[]string{"--load", "NaN"}, "--load NaN"},
		{[]string{"--dispatchers", "0"}, "--dispatchers 0: want an integer ≥ 1"},
		{[]string{"--servers", "0"}, "--servers 0: want an integer ≥ 1"},
		{[]string{"--servers", "3", "--dispatchers", "5", "--partitioned"}, "--partitioned needs --servers ≥ --dispatchers"},
		{[]string{"--refresh", "-1"}, "--refresh -1: want a number ≥ 0"},
		{[]string{"--policy", "jsq"}, "--policy: unknown policy \"jsq\""},
		{[]string{"--policy", "sqd:0"}, "--policy: policy \"sqd:0\": D must be an integer ≥ 1"},
		{[]string{"--sizes", "h2:0.5"}, "--sizes: sizes h2:0.5: C must be in [1, 1e+09]"},
		{[]string{"--sizes", "h2:1e10"}, "--sizes: sizes h2:1e+10: C must be in [1, 1e+09]"},
		{[]string{"--sizes", "pareto:1"}, "--sizes: sizes pareto:1: A must be > 1"},
		{[]string{"--sizes", "weibull"}, "--sizes: unknown sizes"},
		{[]string{"--start", "full"}, "--start: unknown start"},
		// Options no listed policy reads would change no row.
		{[]string{"--policy", "random,ll", "--with-replacement"}, "--with-replacement: no --policy samples (sqd:D, sq2), so it would change no row"},
		{[]string{"--policy", "sq2", "--firstdiff-cap", "3"}, "--firstdiff-cap: no --policy is firstdiff:D, so it would change no row"},
		{[]string{"--start", "half:0.1T"}, "--start half:0.1T is a multiple of T but --refresh is 0"},
		{[]string{"--tally", "mine"}, "--tally: unknown tally"},
		{[]string{"--runs", "0"}, "--runs 0: want an integer in [1, 1000000]"},
		{[]string{"--horizon", "-5"}, "--horizon -5: want auto or a number > 0"},
		{[]string{"--warmup", "30000"}, "--warmup 30000: want less than the horizon"},
		{[]string{"--format", "xml"}, "--format \"xml\": want text, csv or json"},
		{[]string{"--refreshes", "10"}, "--refreshes needs --refresh > 0"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"--servers", "2", "--policy", "sqd:3"}, "samples 3 distinct servers but a dispatcher reaches only 2"},
	}
	for _, tc := range cases {
		out, errs, code := herd(t, append([]string{"sim"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("herd sim %v: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
				tc.args, code, errs, out, tc.want)
		}
		if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine") {
			t.Errorf("herd sim %v panicked: %s", tc.args, errs)
		}
	}
}

func TestHelpAndUnknown(t *testing.T) {
	t.Parallel()
	out, _, code := herd(t, "help")
	if code != 0 || !strings.Contains(out, "sim") {
		t.Errorf("herd help: exit %d, %q", code, out)
	}
	out, _, code = herd(t, "sim", "-h")
	if code != 0 || !strings.Contains(out, "--refresh") {
		t.Errorf("herd sim -h: exit %d, %q", code, out)
	}
	_, errs, code := herd(t, "frobnicate")
	if code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("herd frobnicate: exit %d, %q", code, errs)
	}
}

// The plot is written (atomically, by plotting.Save) and is an SVG.
func TestSimPlot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sim.svg")
	_, errs, code := herd(t, append(simSmall, "--plot", path)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("plot not written: %v", err)
	}
	_, errs, code = herd(t, "sim", "--servers", "10", "--horizon", "50", "--runs", "2", "--plot", path)
	if code != 2 || !strings.Contains(errs, "--plot needs a list-valued numeric flag") {
		t.Errorf("plot without a list: exit %d, %q", code, errs)
	}
}

// An interrupted run prints what finished, marked partial, and exits 1.
func TestSimInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, append(simSmall, "--format", "json"), &out, &errb)
	if code != 1 || !strings.Contains(out.String(), `"partial": true`) || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("cancelled run: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// herd point and herd edge: bad input exits 2 naming the flag and range.
func TestModelBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"point", "--refresh", "0"}, "--refresh 0: want a number > 0"},
		{[]string{"point", "--refresh", "-3"}, "--refresh -3: want a number > 0"},
		{[]string{"point"}, "--refresh is required"},
		{[]string{"point", "--refresh", "100", "--load", "1.5"}, "--load 1.5: want a number in [1e-06, 1) (the refresh map's range)"},
		{[]string{"point", "--refresh", "100", "--dispatchers", "0"}, "--dispatchers 0: want an integer in [1, 256] (the refresh map's range)"},
		{[]string{"point", "--refresh", "100", "--start", "half"}, "--start: start \"half\" needs a number"},
		{[]string{"point", "--refresh", "100", "--start", "half:x"}, "the number must be ≥ 0"},
		{[]string{"point", "--refresh", "100", "--start", "lopsided"}, "unknown start"},
		{[]string{"point", "--refresh", "100", "--max-iter", "0"}, "--max-iter 0"},
		{[]string{"point", "--refresh", "100", "--tol", "2"}, "--tol 2: want a number in (0, 1)"},
		{[]string{"point", "--refresh", "100", "--progress", "loud"}, "--progress \"loud\": want auto, always or never"},
		{[]string{"point", "--refresh", "100", "--settle", "0"}, "--settle 0: want an integer in [1, 100000]"},
		{[]string{"point", "--refresh", "100", "--average", "15"}, "--average 15: want an integer in [16, 65536]"},
		{[]string{"point", "--refresh", "100", "--average", "65537"}, "--average 65537: want an integer in [16, 65536]"},
		{[]string{"point", "--refresh", "100", "--max-iter", "300", "--average", "101"}, "--settle 200 + --average 101 exceed --max-iter 300"},
		{[]string{"edge", "--load", "0"}, "--load 0: want a number in [1e-06, 1) (the refresh map's range)"},
		{[]string{"edge", "--load", "1"}, "--load 1: want a number in [1e-06, 1) (the refresh map's range)"},
		{[]string{"edge", "--dispatchers", "0"}, "--dispatchers 0: want an integer in [1, 256] (the refresh map's range)"},
		{[]string{"edge", "--tolerance", "0"}, "--tolerance 0"},
		{[]string{"edge", "--workers", "0"}, "--workers 0"},
		{[]string{"edge", "--plot", "x.tiff"}, "--plot \"x.tiff\": want a file name ending in .png, .svg, .pdf or .eps"},
		{[]string{"edge", "--confirm", "--confirm-maps", "99"}, "--confirm-maps 99: want an integer in [100, 1000000]"},
		{[]string{"edge", "--confirm", "--confirm-maps", "1000001"}, "--confirm-maps 1000001: want an integer in [100, 1000000]"},
		{[]string{"edge", "--confirm-maps", "500"}, "--confirm-maps needs --confirm"},
		{[]string{"--format", "yaml"}, "--format \"yaml\""},
	}
	for _, tc := range cases {
		out, errs, code := herd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("herd %v: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
				tc.args, code, errs, out, tc.want)
		}
	}
}

// herd point and herd edge print their tables (text, rounded to the digits
// shown): the published board means 5.49 (k = 5, T = 400) and 15.9 (T =
// 20, herded), and the edge 2.90 at k = 5, λ = 0.9 with none at k = 2.
func TestModelGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
	}{
		{"point.text", []string{"point", "--dispatchers", "5", "--load", "0.9", "--refresh", "20,400"}},
		{"point-herd.text", []string{"point", "--dispatchers", "5", "--load", "0.9", "--refresh", "1100", "--start", "half:0.1T,balanced:6"}},
		// The herd at T = 100 neither settles nor leaves: an aperiodic
		// attractor, exit 0.
		{"point-aperiodic.text", []string{"point", "--dispatchers", "5", "--load", "0.9", "--refresh", "100"}},
		{"edge.text", []string{"edge", "--dispatchers", "2,5", "--load", "0.9"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, code := herd(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tc.name, out)
		})
	}
}

// The default job is herd edge.
func TestDefaultIsEdge(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "--dispatchers", "2", "--load", "0.9", "--format", "csv")
	if code != 0 || !strings.HasPrefix(out, "dispatchers,load,method,edge_refresh,edge_scaled,edge_error,branch_scaled,law_scaled,ratio,crossing,node_radius,herd,herd_period,herd_board_mean") {
		t.Errorf("plain herd: exit %d, %q, %q", code, out, errs)
	}
}

// herd validate --quick passes: every quick check agrees with its closed
// form, model or published figure.
func TestValidateQuick(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "validate", "--quick", "--format", "csv")
	if code != 0 {
		t.Fatalf("herd validate --quick: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.HasPrefix(out, "check,source,published,closed_form_or_model,simulated,simulated_se,z,verdict") {
		t.Errorf("header: %q", strings.SplitN(out, "\n", 2)[0])
	}
}

// herd bracket: bad input exits 2 naming the flag; a run log (--out) makes
// a rerun skip recorded runs and print the same bytes.
func TestBracketCLI(t *testing.T) {
	t.Parallel()
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--servers", "3"}, "--servers 3: want at least --dispatchers = 5"},
		{[]string{"--runs", "1"}, "--runs 1: want an integer ≥ 2"},
		{[]string{"--resolution", "0"}, "--resolution 0: want a number > 0"},
		{[]string{"--refreshes", "5"}, "--refreshes 5: want an integer ≥ 10"},
		{[]string{"--load", "1"}, "--load 1: want a number in (0, 1)"},
		{[]string{"--dispatchers", "0"}, "--dispatchers 0: want an integer ≥ 1"},
		{[]string{"--grid", "1,-2"}, "--grid -2"},
		{[]string{"--model-edge", "-1"}, "--model-edge -1: want 0 (compute it) or a number in (0, 1000]"},
		{[]string{"--model-edge", "NaN"}, "--model-edge NaN: want 0"},
		{[]string{"--model-edge", "2000"}, "--model-edge 2000: want 0"},
		{[]string{"--half-width", "0"}, "--half-width 0: want a number > 0"},
		{[]string{"--half-width", "-0.1"}, "--half-width -0.1: want a number > 0"},
		{[]string{"--half-width", "Inf"}, "--half-width +Inf: want a number > 0"},
		{[]string{"--half-width", ""}, `invalid argument "" for "--half-width"`},
		{[]string{"--half-width", "0.1", "--grid", "3,4"}, "--half-width does not go with --grid"},
	}
	for _, tc := range bad {
		_, errs, code := herd(t, append([]string{"bracket"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("herd bracket %v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.csv")
	args := []string{"bracket", "--servers", "25", "--runs", "3", "--refreshes", "50", "--grid", "2,3,4,5", "--format", "csv", "--out", log}
	first, errs, code := herd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "\n"); got != 2+4*3 {
		t.Errorf("run log has %d lines, want the magic line, a header and 12 runs", got)
	}
	// Keep half the log, tear the last line, and rerun.
	lines := strings.SplitAfter(string(data), "\n")
	torn := strings.Join(lines[:7], "") + lines[7][:5]
	if err := os.WriteFile(log, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	again, errs, code := herd(t, args...)
	if code != 0 || again != first {
		t.Errorf("resumed run: exit %d (%s), output\n%s\nwant\n%s", code, errs, again, first)
	}
}

// herd bracket --half-width: the bracket goes on until half_scaled's
// interval is that narrow, says how many points it ran for it, leaves the
// bracket's ends as they were, and resumes from its run log to the same
// bytes.
func TestBracketHalfWidthCLI(t *testing.T) {
	t.Parallel()
	base := []string{"bracket", "--servers", "25", "--runs", "4", "--refreshes", "100", "--resolution", "0.2", "--model-edge", "2.8992", "--format", "csv"}
	plain, errs, code := herd(t, base...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	log := filepath.Join(t.TempDir(), "runs.csv")
	args := append(append([]string(nil), base...), "--half-width", "0.16", "--out", log)
	first, errs, code := herd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	row := func(out string) map[string]string {
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%v: %d rows in\n%s", err, len(rows), out)
		}
		m := map[string]string{}
		for i, name := range rows[0] {
			m[name] = rows[1][i]
		}
		return m
	}
	p, r := row(plain), row(first)
	lo, _ := strconv.ParseFloat(r["half_lower"], 64)
	hi, _ := strconv.ParseFloat(r["half_upper"], 64)
	if !(hi-lo <= 0.16) || r["meta_warnings"] != "" || !strings.Contains(r["meta_notes"], "--half-width 0.16: points run in full") {
		t.Errorf("half_scaled [%v, %v], warnings %q, notes %q: want an interval at most 0.16 wide, no warning, and the note", lo, hi, r["meta_warnings"], r["meta_notes"])
	}
	for _, c := range []string{"lower_scaled", "upper_scaled", "lower_scaled_300", "upper_scaled_300"} {
		if p[c] != r[c] {
			t.Errorf("%s %s, without --half-width %s: the bracket moved", c, r[c], p[c])
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(log, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, errs, code := herd(t, args...); code != 0 || again != first {
		t.Errorf("resumed from half the log: exit %d (%s), output\n%s\nwant\n%s", code, errs, again, first)
	}
}

// herd bracket --model-edge: the adaptive search starts from the given
// edge (its first point is 0.8 times it, at N = 25 all tipped), reports
// it as model_scaled and says it was given; the map's edge (2.8992) is
// not computed.
func TestBracketModelEdge(t *testing.T) {
	t.Parallel()
	points := filepath.Join(t.TempDir(), "points.csv")
	out, errs, code := herd(t, "bracket", "--servers", "25", "--model-edge", "3.5", "--runs", "2", "--refreshes", "20",
		"--format", "csv", "--points", points)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("output %q: %v", out, err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	if got := rows[1][col["model_scaled"]]; got != "3.5" {
		t.Errorf("model_scaled = %s, want 3.5", got)
	}
	if note := rows[1][col["meta_notes"]]; !strings.Contains(note, "model_scaled = 3.5 is --model-edge as given, not computed") {
		t.Errorf("notes %q lack the given model edge", note)
	}
	data, err := os.ReadFile(points)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n25,5,0.9,2.8,") {
		t.Errorf("points do not include 0.8 × 3.5 = 2.8:\n%s", data)
	}
	// half_* is compare.FitTipHalf of the points table's runs.
	prow, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pcol := map[string]int{}
	for i, name := range prow[0] {
		pcol[name] = i
	}
	var pts []compare.PointStat
	for _, r := range prow[1:] {
		x, _ := strconv.ParseFloat(r[pcol["scaled"]], 64)
		runs, _ := strconv.Atoi(r[pcol["runs"]])
		tipped, _ := strconv.Atoi(r[pcol["tipped"]])
		pts = append(pts, compare.PointStat{Scaled: x, Runs: runs, Tipped: tipped})
	}
	h := compare.FitTipHalf(pts)
	for name, want := range map[string]float64{"half_scaled": h.Scaled, "half_lower": h.Lower, "half_upper": h.Upper} {
		cell := rows[1][col[name]]
		got, err := strconv.ParseFloat(cell, 64)
		if cell == "" {
			got, err = math.NaN(), nil // an end the points do not bound
		}
		if err != nil || !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("%s = %q, want %v (FitTipHalf of --points: %+v)", name, rows[1][col[name]], want, h)
		}
	}
}

// herd hysteresis (model only, two points) prints both branches; bad
// input exits 2.
func TestHysteresisCLI(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "hysteresis", "--refresh", "1100", "--bistable=false", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The published herd at T = 1,100 from half 0.1T is 449, disputed (the
	// map gives 441.35 and herd sim 441.45: compare/validation.md);
	// balanced 6.4.
	if !strings.Contains(out, "1100,half:0.1T,period-2,true,440.4") || !strings.Contains(out, "1100,balanced,fixed,false,5.11") {
		t.Errorf("output:\n%s", out)
	}
	for _, tc := range []struct{ args, want string }{
		{"--load 1", "--load 1: want a number in (0, 1)"},
		{"--tally none", "--tally \"none\": want own, shared or scaled"},
		{"--runs 1", "--runs 1: want an integer in [2, 1000000]"},
		{"--refresh 0", "--refresh 0: want a number > 0"},
		// Requests with nothing to compute: simulator flags without the
		// simulator, a tally only the simulator has.
		{"--runs 3", "--runs: it sets the simulator's runs, and --servers is 0 (model only), so it would change no row"},
		{"--seed 2", "--seed: it sets the simulator's runs"},
		{"--tally scaled", "--tally scaled: the model has no scaled tally, so with --servers 0 (model only) no row would have a value"},
	} {
		_, errs, code := herd(t, append([]string{"hysteresis"}, strings.Fields(tc.args)...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("herd hysteresis %s: exit %d, %q", tc.args, code, errs)
		}
	}
}

// herd model prints the closed forms and models (issue 4's values) and
// rejects policies without a model.
func TestModelCLI(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "model", "--policy", "rr,sq2", "--servers", "2,10,100", "--refresh", "0", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"rr,0.9,0,2,7.58828",  // E_2/M/1 (issue 4: 7.588284)
		"rr,0.9,0,10,5.66027", // E_10/M/1 (5.660276)
		"rr,0.9,0,100,5.2268", // E_100/M/1 (5.226811)
		"sq2,0.9,0,2,2.61405", // supermarket SQ(2) (2.614057)
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "policy,load,refresh,servers,response_mean,queue_mean,period") {
		t.Errorf("header %q", strings.SplitN(out, "\n", 2)[0])
	}
	_, errs, code = herd(t, "model", "--policy", "oracle")
	if code != 2 || !strings.Contains(errs, "no mean-field model") {
		t.Errorf("oracle: exit %d, %q", code, errs)
	}
}

// TestJSONShape reads herd sim's JSON with encoding/json into the shape the
// README documents: {"meta": {...typed values...}, "columns": [...],
// "rows": [{column: value}]}; its CSV carries the same values in meta_
// columns.
func TestJSONShape(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, append(simSmall, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Meta struct {
			Title    string   `json:"title"`
			Command  string   `json:"command"`
			Partial  bool     `json:"partial"`
			Version  string   `json:"version"`
			Seed     uint64   `json:"seed"` // a number, not "7"
			Runs     int      `json:"runs"`
			Notes    []string `json:"notes"`
			Warnings []string `json:"warnings"`
		} `json:"meta"`
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("decode: %v\n%s", err, out)
	}
	m := doc.Meta
	const wantCmd = "herd sim --servers=20 --refresh=0,5 --policy=ll,sq2,rr --horizon=400 --runs=3 --seed=7"
	if m.Seed != 7 || m.Runs != 3 || m.Version != version || m.Command != wantCmd || m.Partial || m.Notes == nil || m.Warnings == nil {
		t.Errorf("meta = %+v, want seed 7, runs 3, version %s, command %q, lists not null", m, version, wantCmd)
	}
	if len(doc.Rows) != 6 {
		t.Fatalf("got %d rows, want 6 (3 policies × 2 refresh periods)", len(doc.Rows))
	}
	for i, r := range doc.Rows {
		if len(r) != len(doc.Columns) {
			t.Errorf("row %d has %d keys, want the %d columns", i, len(r), len(doc.Columns))
		}
		if _, ok := r["response_mean"].(float64); !ok {
			t.Errorf("row %d response_mean = %#v, want a number", i, r["response_mean"])
		}
	}
	csvOut, _, _ := herd(t, append(simSmall, "--format", "csv")...)
	recs, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range recs[0] {
		col[h] = j
	}
	for name, want := range map[string]string{"meta_seed": "7", "meta_version": version, "meta_command": wantCmd, "meta_partial": "false"} {
		if j, ok := col[name]; !ok || recs[1][j] != want {
			t.Errorf("CSV %s: got %v (present %v), want %q", name, recs[1][min(j, len(recs[1])-1)], ok, want)
		}
	}
}

// The top-level flags, suggestions and the flag listing of -h.
func TestCLINiceties(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args     []string
		code     int
		out, err string // substrings of stdout and stderr
	}{
		{[]string{"--help"}, 0, "Commands:\n  balls", ""},
		{[]string{"-h"}, 0, "  sim ", ""},
		{[]string{"--version"}, 0, "herd " + version + "\n", ""},
		{[]string{"sims"}, 2, "", `unknown command "sims" (did you mean sim?)`},
		{[]string{"help", "bracke"}, 2, "", "(did you mean bracket?)"},
		{[]string{"sim", "--lod", "0.5"}, 2, "", "unknown flag: --lod (did you mean --load?)"},
		{[]string{"--dispachers", "3"}, 2, "", "(did you mean --dispatchers?)"},
		{[]string{"sim", "-h"}, 0, "  --servers list ", ""},
		{[]string{"sim", "-h"}, 0, "  --partitioned   ", ""},
		{[]string{"bracket", "-h"}, 0, "  --plot file ", ""},
		{[]string{"completion", "tcsh"}, 2, "", `unknown shell "tcsh": want bash, zsh or fish`},
		{[]string{"completion"}, 2, "", "want one shell"},
		{[]string{"completion", "-h"}, 0, "Usage: herd completion bash|zsh|fish", ""},
		{[]string{"help", "completion"}, 0, "fish: herd completion fish", ""},
	}
	for _, tc := range cases {
		out, errs, code := herd(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
			t.Errorf("herd %q: exit %d, stdout %q, stderr %q; want exit %d, stdout containing %q, stderr containing %q",
				tc.args, code, out, errs, tc.code, tc.out, tc.err)
		}
	}
	// --shard's help states its default once.
	out, _, _ := herd(t, "sim", "-h")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  --shard ") && strings.Count(l, "default") != 1 {
			t.Errorf("--shard help says default %d times: %q", strings.Count(l, "default"), l)
		}
	}
}

// A value of the wrong type for a numeric flag (--servers 2.5) exits 2
// naming the flag and the values it takes (its help), for every numeric
// flag of every command.
func TestBadFlagValueNamesRange(t *testing.T) {
	t.Parallel()
	flagLine := regexp.MustCompile(`^  --([a-z0-9-]+) (int|float|duration|uint64) +(\S.*)$`)
	checked := 0
	for _, c := range commands() {
		out, _, _ := herd(t, c.name, "-h")
		for _, l := range strings.Split(out, "\n") {
			m := flagLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			checked++
			_, errs, code := herd(t, c.name, "--"+m[1], "x")
			usage := strings.SplitN(m[3], " (default", 2)[0]
			if want := "(--" + m[1] + ": " + usage; code != 2 || !strings.Contains(errs, want) {
				t.Errorf("herd %s --%s x: exit %d, stderr %q; want exit 2 and %q", c.name, m[1], code, errs, want)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d numeric flags: the help's flag lines were not recognised", checked)
	}
}

// The bash completion script completes commands, a command's flags and
// --format's values when bash sources it.
func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash not found: %v", err) // CI runs in a shell image with bash
	}
	script, errs, code := herd(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	path := filepath.Join(t.TempDir(), "herd.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ words, want string }{
		{"herd si", "sim"},
		{"herd sim --ser", "--servers"},
		{"herd --lo", "--load"}, // plain herd takes edge's flags
		{"herd edge --format j", "json"},
		{"herd completion f", "fish"},
	}
	for _, tc := range cases {
		words := strings.Fields(tc.words)
		cmd := exec.Command(bash, "-c", `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _herd; echo "${COMPREPLY[*]}"`, "x", path)
		cmd.Args = append(cmd.Args, words...)
		got, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(got)) != tc.want {
			t.Errorf("complete %q: got %q (%v), want %q", tc.words, got, err, tc.want)
		}
	}
	for _, sh := range []string{"zsh", "fish"} {
		out, errs, code := herd(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "servers") || !strings.Contains(out, "sim") {
			t.Errorf("herd completion %s: exit %d (%s), no sim or servers in the script", sh, code, errs)
		}
	}
}

// herd scaling --from reads the CSV or the JSON of herd bracket, from a
// file or from stdin ("-"), and says what it wanted when given anything
// else.
func TestScalingFrom(t *testing.T) {
	t.Parallel()
	// Four brackets (the fit's minimum) in herd bracket's columns (values made up; only the
	// reading is under test, and every form must give the same fit).
	const brCSV = "servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300,cut,points,resolution,seed\n" +
		"25,5,0.9,2,60,3.18913,3.47905,2.8992,3.18913,3.47905,300,5,0.5,1\n" +
		"50,5,0.9,2,60,2.8992,3.18913,2.8992,2.8992,3.18913,300,4,0.5,1\n" +
		"100,5,0.9,2,60,2.8992,3.18913,2.8992,2.8992,3.18913,300,4,0.5,1\n" +
		"400,5,0.9,2,60,2.8992,3.04416,2.8992,2.8992,3.04416,300,4,0.5,1\n"
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "br.csv")
	if err := os.WriteFile(csvPath, []byte(brCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	scaling := func(stdin string, args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, command: "scaling"}
		err := runScaling(context.Background(), e, args)
		return out.String(), errb.String(), err
	}
	want, _, err := scaling("", "--from", csvPath, "--format", "json")
	if err != nil {
		t.Fatalf("--from FILE: %v", err)
	}
	jsonPath := filepath.Join(dir, "br.json")
	tab := &table.Table{}
	recs, _ := csv.NewReader(strings.NewReader(brCSV)).ReadAll()
	for _, h := range recs[0] {
		tab.Columns = append(tab.Columns, table.Column{Name: h})
	}
	for _, r := range recs[1:] {
		row := make([]any, len(r))
		for j, c := range r {
			if n, err := strconv.Atoi(c); err == nil {
				row[j] = n
			} else if x, err := strconv.ParseFloat(c, 64); err == nil {
				row[j] = x
			}
		}
		tab.AddRow(row...)
	}
	var jb bytes.Buffer
	if err := tab.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jsonPath, jb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, stdin string
		args        []string
	}{
		{"stdin csv", brCSV, []string{"--from", "-"}},
		{"json file", "", []string{"--from", jsonPath}},
		{"stdin json", jb.String(), []string{"--from", "-"}},
	} {
		got, _, err := scaling(tc.stdin, append(tc.args, "--format", "json")...)
		got = strings.Replace(got, strings.Join(tc.args, "="), "--from="+csvPath, 1)
		if err != nil || got != want {
			t.Errorf("%s: err %v, output\n%s\nwant\n%s", tc.name, err, got, want)
		}
	}
	for _, tc := range []struct{ stdin, want string }{
		{"", "standard input is empty: want the CSV or JSON that herd wrote"},
		{`{"meta": {}}`, `standard input: not herd's JSON output (--format json): no "columns"`},
		{"a,b\n1,2,3\n", "standard input: not CSV"},
		{"a,b\n1,2\n", "not a herd bracket CSV"},
	} {
		_, _, err := scaling(tc.stdin, "--from", "-")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--from - with %q: err %v, want it to contain %q", tc.stdin, err, tc.want)
		}
	}
	// A bracket flag beside --from would change nothing: refused.
	_, _, err = scaling("", "--from", csvPath, "--runs", "8")
	if want := "--runs: the brackets are read from --from " + csvPath + ", not run, so it would change no row"; err == nil || err.Error() != want {
		t.Errorf("--from with --runs: err %v, want %q", err, want)
	}
	// --fit half fits the T_½ columns (compare.FitScalingHalf); a table
	// without them, or a --fit that is neither, is refused.
	_, _, err = scaling("", "--from", csvPath, "--fit", "half")
	if err == nil || !strings.Contains(err.Error(), "0 bounded T_½ (half_* columns) at distinct N") {
		t.Errorf("--fit half without half_* columns: err %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", csvPath, "--fit", "half", "--half-width", "0.1"}, "--half-width: the brackets are read from --from"},
		{[]string{"--half-width", "0.1"}, "--half-width narrows each bracket's T_½, which only --fit half uses"},
	} {
		if _, _, err := scaling("", c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
	_, _, err = scaling("", "--from", csvPath, "--fit", "ends")
	if err == nil || err.Error() != `--fit "ends": want bracket or half` {
		t.Errorf("--fit ends: err %v", err)
	}
	halfCSV := strings.Replace(brCSV, "seed\n", "seed,half_scaled,half_lower,half_upper\n", 1)
	var b strings.Builder
	for i, line := range strings.SplitAfter(halfCSV, "\n") {
		if i == 0 || line == "" {
			b.WriteString(line)
			continue
		}
		h := []string{"3.3,3.2,3.45", "3.1,3.0,3.25", "3.0,2.95,3.06", "2.95,2.92,2.99"}[i-1]
		b.WriteString(strings.TrimSuffix(line, "\n") + "," + h + "\n")
	}
	halfPath := filepath.Join(dir, "half.csv")
	if err := os.WriteFile(halfPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := scaling("", "--from", halfPath, "--fit", "half", "--format", "json")
	if err != nil {
		t.Fatalf("--fit half: %v (%s)", err, errs)
	}
	var doc struct {
		Meta map[string]any `json:"meta"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	fit, err := compare.FitScalingHalf([]int{25, 50, 100, 400}, []compare.TipHalf{
		{Scaled: 3.3, Lower: 3.2, Upper: 3.45}, {Scaled: 3.1, Lower: 3.0, Upper: 3.25},
		{Scaled: 3.0, Lower: 2.95, Upper: 3.06}, {Scaled: 2.95, Lower: 2.92, Upper: 2.99}})
	if err != nil {
		t.Fatal(err)
	}
	want6, _ := strconv.ParseFloat(strconv.FormatFloat(fit.EdgeInf, 'g', 6, 64), 64)
	if doc.Meta["fit_on"] != "half" || doc.Meta["edge_inf"] != want6 {
		t.Errorf("--fit half: meta fit_on %v, edge_inf %v; want half, %v", doc.Meta["fit_on"], doc.Meta["edge_inf"], want6)
	}
}

// herd validate --table prints the table of published figures with its
// disputes, and runs nothing.
func TestValidateTable(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "validate", "--table")
	if code != 0 || !strings.HasPrefix(out, "# The figures herd validate checks") ||
		!strings.Contains(out, "1,350–1,370") || !strings.Contains(out, "1.103, 1.094") {
		t.Errorf("herd validate --table: exit %d, stderr %q, output starts %.80q", code, errs, out)
	}
}

// herd scaling refuses fewer than four brackets (three parameters leave no
// degree of freedom), from --servers before running and from --from.
func TestScalingNeedsFourBrackets(t *testing.T) {
	t.Parallel()
	_, errs, code := herd(t, "scaling", "--servers", "25,100,400")
	if code != 2 || !strings.Contains(errs, "--servers 25,100,400: 3 distinct values") || !strings.Contains(errs, "at least 4") {
		t.Errorf("three --servers: exit %d, %q", code, errs)
	}
	path := filepath.Join(t.TempDir(), "b.csv")
	csv := "servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300\n" +
		"25,5,0.9,4,300,3.4,3.6,2.9,,\n100,5,0.9,4,300,3.1,3.3,2.9,,\n400,5,0.9,4,300,2.95,3.1,2.9,,\n1600,5,0.9,4,300,,,2.9,,\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code = herd(t, "scaling", "--from", path)
	if code != 2 || !strings.Contains(errs, "3 complete brackets") {
		t.Errorf("three complete brackets in --from: exit %d, %q", code, errs)
	}
	csv = strings.Replace(csv, "1600,5,0.9,4,300,,,", "1600,5,0.9,4,300,2.9,3.0,", 1)
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := herd(t, "scaling", "--from", path, "--format", "csv")
	if code != 0 || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "fit_edge_inf") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "fit_df") {
		t.Errorf("four brackets: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	out, _, _ = herd(t, "scaling", "--from", path, "--format", "json")
	if !strings.Contains(out, `"key": "df"`) && !strings.Contains(out, `"df"`) {
		t.Errorf("json lacks the fit's d.f.: %s", out)
	}
}

// herd point exits 1 only when nothing is established within --max-iter,
// and says so for each such point.
func TestPointUnconverged(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "point", "--refresh", "100", "--max-iter", "300", "--format", "csv")
	if code != 1 || !strings.Contains(out, ",unconverged,") || !strings.Contains(errs, "no fixed point, cycle or stationary herd after 300 maps") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, an unconverged row and the reason", code, out, errs)
	}
}

// TestPointAveraging: --settle and --average set an aperiodic herd's
// transient and averaging window (the herd just below the k = 5, λ = 0.9
// edge, T = 287: aperiodic in 484 maps with the defaults 200 and 256),
// and the table's meta records them; with their defaults --max-iter may
// stay below their sum (a fixed point needs no averaging).
func TestPointAveraging(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "point", "--refresh", "287", "--settle", "16", "--average", "20", "--format", "json")
	var got struct {
		Rows []struct {
			Attractor  string `json:"attractor"`
			Averaged   int    `json:"averaged"`
			Iterations int    `json:"iterations"`
		} `json:"rows"`
		Meta map[string]any `json:"meta"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || len(got.Rows) != 1 {
		t.Fatalf("exit %d, stderr %q, json error %v: %s", code, errs, err, out)
	}
	if r := got.Rows[0]; r.Attractor != "aperiodic" || r.Averaged != 20 || r.Iterations >= 484 {
		t.Errorf("row %+v: want an aperiodic herd averaged over 20 maps, in fewer than the defaults' 484", r)
	}
	if fmt.Sprint(got.Meta["settle"]) != "16" || fmt.Sprint(got.Meta["average"]) != "20" {
		t.Errorf("meta %v: want settle 16 and average 20", got.Meta)
	}
	if _, errs, code := herd(t, "point", "--refresh", "100", "--max-iter", "300", "--format", "csv"); code == 2 {
		t.Errorf("--max-iter 300 with the default averaging: exit 2 (%q); want it accepted", errs)
	}
	// --progress says where progress goes, not what is computed: the same
	// bytes on stdout, the command line in the meta included.
	args := []string{"point", "--refresh", "287,300", "--settle", "16", "--average", "20", "--format", "csv"}
	never, _, _ := herd(t, append(args, "--progress", "never")...)
	always, _, _ := herd(t, append(args, "--progress", "always")...)
	if never != always || !strings.Contains(never, "aperiodic") {
		t.Errorf("--progress never and always differ, or no aperiodic row:\n%s\n%s", never, always)
	}
}

// TestMapNote: the point heartbeat's note on a point at work names its
// maps and last board mean, and the herd regime's count only once the run
// is in it, never past what the verdict needs.
func TestMapNote(t *testing.T) {
	for _, c := range []struct {
		r    *meanfield.MapReport
		want string
	}{
		{nil, "0 maps"},
		{&meanfield.MapReport{Maps: 3, BoardMean: 41.25, HerdNeed: 96}, "3 maps, board mean 41.2"},
		{&meanfield.MapReport{Maps: 52, BoardMean: 8123.46, HerdRun: 23, HerdNeed: 96}, "52 maps, board mean 8123.5, 23 of the 96 maps in the herd regime an aperiodic verdict needs"},
		{&meanfield.MapReport{Maps: 97, BoardMean: 8000, HerdRun: 97, HerdNeed: 96}, "97 maps, board mean 8000.0, 96 of the 96 maps in the herd regime an aperiodic verdict needs"},
	} {
		if got := mapNote(c.r, 0); got != c.want {
			t.Errorf("mapNote(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
	// With a pace: the maps left to an aperiodic verdict at that pace, an
	// upper bound (the run may close an orbit sooner); none once reached.
	for _, c := range []struct {
		r    *meanfield.MapReport
		want string
	}{
		{&meanfield.MapReport{Maps: 52, BoardMean: 8123.46, HerdRun: 23, HerdNeed: 96}, "52 maps, board mean 8123.5, 23 of the 96 maps in the herd regime an aperiodic verdict needs, at most about 1h0m50s left at 50s a map"},
		{&meanfield.MapReport{Maps: 3, BoardMean: 41.25, HerdNeed: 96}, "3 maps, board mean 41.2"},
		{&meanfield.MapReport{Maps: 97, BoardMean: 8000, HerdRun: 97, HerdNeed: 96}, "97 maps, board mean 8000.0, 96 of the 96 maps in the herd regime an aperiodic verdict needs"},
	} {
		if got := mapNote(c.r, 50*time.Second); got != c.want {
			t.Errorf("mapNote(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

// TestInputColumnsExact: text tables echo the load and refresh as given
// (table.Column.Exact): a load of 0.999999 is not "1", nor a period of
// 2835.421875 "2835".
func TestInputColumnsExact(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "model", "--policy", "random", "--load", "0.999999,0.9")
	if code != 0 || !strings.Contains(out, "0.999999") {
		t.Errorf("herd model: exit %d, stderr %q, stdout %q; want the load 0.999999 as given", code, errs, out)
	}
	out, errs, code = herd(t, "point", "--dispatchers", "3", "--refresh", "2835.421875", "--max-iter", "1")
	if !strings.Contains(out, "2835.421875") {
		t.Errorf("herd point: exit %d, stderr %q, stdout %q; want the refresh 2835.421875 as given", code, errs, out)
	}
}

// mapsNote: a model point's maps of the most it makes and, at a pace, the
// most time the rest takes; a closed form (no maps) has no note.
func TestMapsNote(t *testing.T) {
	for _, c := range []struct {
		maps, most int
		per        time.Duration
		want       string
	}{
		{0, 0, 0, ""},
		{10, 3000, 0, "10 of at most 3000 maps"},
		{1000, 3000, 250 * time.Millisecond, "1000 of at most 3000 maps, at most about 8m20s left at 250ms a map"},
		{3000, 3000, time.Second, "3000 of at most 3000 maps"},
	} {
		if got := mapsNote(c.maps, c.most, c.per); got != c.want {
			t.Errorf("mapsNote(%d, %d, %v) = %q, want %q", c.maps, c.most, c.per, got, c.want)
		}
	}
}
