package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"--sizes", "h2:0.5"}, "--sizes: sizes h2:0.5: C must be ≥ 1"},
		{[]string{"--sizes", "pareto:1"}, "--sizes: sizes pareto:1: A must be > 1"},
		{[]string{"--sizes", "weibull"}, "--sizes: unknown sizes"},
		{[]string{"--start", "full"}, "--start: unknown start"},
		{[]string{"--start", "half:0.1T"}, "--start half:0.1T is a multiple of T but --refresh is 0"},
		{[]string{"--tally", "mine"}, "--tally: unknown tally"},
		{[]string{"--runs", "0"}, "--runs 0: want an integer ≥ 1"},
		{[]string{"--horizon", "-5"}, "--horizon -5: want a number > 0"},
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
		{[]string{"point", "--refresh", "100", "--load", "1.5"}, "--load 1.5: want a number in (0, 1)"},
		{[]string{"point", "--refresh", "100", "--dispatchers", "0"}, "--dispatchers 0: want an integer ≥ 1"},
		{[]string{"point", "--refresh", "100", "--start", "half"}, "--start: start \"half\" needs a number"},
		{[]string{"point", "--refresh", "100", "--start", "half:x"}, "the number must be ≥ 0"},
		{[]string{"point", "--refresh", "100", "--start", "lopsided"}, "unknown start"},
		{[]string{"point", "--refresh", "100", "--max-iter", "0"}, "--max-iter 0"},
		{[]string{"edge", "--load", "0"}, "--load 0: want a number in (0, 1)"},
		{[]string{"edge", "--load", "1"}, "--load 1: want a number in (0, 1)"},
		{[]string{"edge", "--dispatchers", "0"}, "--dispatchers 0: want an integer ≥ 1"},
		{[]string{"edge", "--tolerance", "0"}, "--tolerance 0"},
		{[]string{"edge", "--workers", "0"}, "--workers 0"},
		{[]string{"edge", "--plot", "x.pdf"}, "--plot \"x.pdf\": want a file name ending in .png or .svg"},
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
	if code != 0 || !strings.HasPrefix(out, "dispatchers,load,edge_refresh,edge_scaled,branch_scaled,law_scaled,ratio,crossing,node_radius,herd_period,herd_board_mean") {
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
	if got := strings.Count(string(data), "\n"); got != 1+4*3 {
		t.Errorf("run log has %d lines, want a header and 12 runs", got)
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

// herd hysteresis (model only, two points) prints both branches; bad
// input exits 2.
func TestHysteresisCLI(t *testing.T) {
	t.Parallel()
	out, errs, code := herd(t, "hysteresis", "--refresh", "1100", "--bistable=false", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The published herd at T = 1,100 from half 0.1T is 449 (simulator;
	// the map gives 441.35); balanced 6.4.
	if !strings.Contains(out, "1100,half:0.1T,period-2,true,440.4") || !strings.Contains(out, "1100,balanced,fixed,false,5.11") {
		t.Errorf("output:\n%s", out)
	}
	for _, tc := range []struct{ args, want string }{
		{"--load 1", "--load 1: want a number in (0, 1)"},
		{"--tally none", "--tally \"none\": want own, shared or scaled"},
		{"--runs 1", "--runs 1: want an integer ≥ 2"},
		{"--refresh 0", "--refresh 0: want a number > 0"},
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
