package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/compare"
)

// Durations, rates and the load convert both ways: λ = rate·service/N
// and back.
func TestPlanUnits(t *testing.T) {
	for _, c := range []struct {
		s    string
		want time.Duration
	}{{"250ms", 250 * time.Millisecond}, {"1s", time.Second}, {"1m30s", 90 * time.Second}, {" 100us ", 100 * time.Microsecond}} {
		if d, err := parseDuration("refresh", c.s); err != nil || d != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", c.s, d, err, c.want)
		}
	}
	for _, c := range []struct {
		s    string
		want float64
	}{{"3200/s", 3200}, {"192000/min", 3200}, {"3.2/ms", 3200}, {"11520000/h", 3200}} {
		r, err := parseRate(c.s)
		if err != nil || math.Abs(r/c.want-1) > 1e-12 {
			t.Errorf("parseRate(%q) = %v, %v; want %v", c.s, r, err, c.want)
		}
	}
	for _, c := range []struct {
		rate float64
		svc  time.Duration
		n    int
	}{{3200, 50 * time.Millisecond, 200}, {25600, 50 * time.Millisecond, 1600}, {12.5, 2 * time.Second, 32}, {7, 900 * time.Microsecond, 10}} {
		lam, err := planLoad(c.rate, c.svc, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if back := lam * float64(c.n) / c.svc.Seconds(); math.Abs(back/c.rate-1) > 1e-12 {
			t.Errorf("rate %g, service %v, N %d: λ = %g gives back %g per s", c.rate, c.svc, c.n, lam, back)
		}
	}
	if got := fmtDuration(0.0123456); got != "12.35ms" {
		t.Errorf("fmtDuration(0.0123456) = %q, want 12.35ms", got)
	}
}

// TestPlanAsPrinted: a refresh period herd plan suggests is the one its
// printed flag reads back, to the bit (the simulator's seeds follow the
// configuration's bits, so anything else would give other runs than the
// row shows). It fails without the rounding (asPrinted returning t).
func TestPlanAsPrinted(t *testing.T) {
	for _, svc := range []time.Duration{50 * time.Millisecond, 37 * time.Millisecond, 1300 * time.Microsecond, 2 * time.Second} {
		in := planInput{service: svc}
		for _, T := range []float64{0.0137, 1, 13.6302, 164.98901, 2719.5, 99999.7} {
			got := in.asPrinted(T)
			d, err := parseDuration("refresh", fmtDuration(in.seconds(T)))
			if err != nil {
				t.Fatal(err)
			}
			if want := d.Seconds() / svc.Seconds(); got != want || math.Abs(got/T-1) > 1e-3 {
				t.Errorf("service %v, T = %v: asPrinted %v, the printed flag %s reads back %v", svc, T, got, fmtDuration(in.seconds(T)), want)
			}
		}
	}
}

// planFleet is a small fleet's flags; the tests add to them.
var planFleet = []string{"plan", "--servers", "200", "--dispatchers", "8", "--refresh", "1s", "--service", "50ms"}

func TestPlanBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	words := filepath.Join(dir, "words.txt")
	few := filepath.Join(dir, "few.txt")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(words, []byte("12.5\nfast\n"), 0o644)
	os.WriteFile(few, []byte("1\n2\n3\n"), 0o644)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--rate", "4000/s"}, "--rate"},                   // capacity 200/50ms = 4000/s
		{[]string{"--rate", "3200"}, "--rate"},                     // no unit
		{[]string{"--rate", "3200/fortnight"}, "--rate"},           // unknown unit
		{[]string{"--load", "0.8", "--refresh", "1"}, "--refresh"}, // a duration without a unit
		{[]string{"--load", "0.8", "--service", "0s"}, "--service"},
		{[]string{"--load", "0.8", "--sizes-file", empty}, "--sizes-file"},
		{[]string{"--load", "0.8", "--sizes-file", words}, "--sizes-file"},
		{[]string{"--load", "0.8", "--sizes-file", few}, "--sizes-file"},
		{[]string{"--load", "0.8", "--sizes-file", filepath.Join(dir, "absent")}, "--sizes-file"},
		{[]string{"--load", "0.8", "--sizes", "h2:4", "--sizes-file", words}, "--sizes"},
		{[]string{"--load", "0.8", "--sizes-unit", "1s"}, "--sizes-unit"},
		{[]string{"--load", "0.8", "--rate", "3200/s"}, "--load"},
		{[]string{"--load", "1"}, "--load"},
		{[]string{"--load", "0.8", "--policy", "left:2"}, "--policy"},
		{[]string{"--load", "0.8", "--tally", "gossip"}, "--tally"},
		{[]string{"--load", "0.8", "--runs", "1"}, "--runs"},
		{[]string{"--load", "0.8", "--refresh", "1ns"}, "--refresh"}, // 2e-8 service times
		{[]string{}, "--load"},
	} {
		_, errs, code := herd(t, append(slicesClone(planFleet), c.args...)...)
		if code != 2 || !strings.Contains(errs, c.flag) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s", c.args, code, errs, c.flag)
		}
	}
	// --partitioned with fewer backends than dispatchers.
	_, errs, code := herd(t, "plan", "--servers", "4", "--dispatchers", "8", "--refresh", "1s", "--service", "50ms", "--load", "0.5", "--partitioned")
	if code != 2 || !strings.Contains(errs, "--dispatchers 8: want at most --servers (4)") {
		t.Errorf("N < k partitioned: exit %d, %q", code, errs)
	}
	// Required flags are named.
	_, errs, code = herd(t, "plan", "--servers", "4")
	if code != 2 || !strings.Contains(errs, "--dispatchers is required") {
		t.Errorf("no --dispatchers: exit %d, %q", code, errs)
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// planJSON runs herd plan with --format json and returns its meta.
func planJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errs, code := herd(t, append(slicesClone(args), "--format", "json", "--progress", "never")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var doc struct {
		Meta map[string]any   `json:"meta"`
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return doc.Meta
}

// Plan's model edge is herd edge's at the converted (k, λ, sizes), to
// every digit (JSON floats round-trip).
func TestPlanEdgeIsHerdEdge(t *testing.T) {
	t.Parallel()
	meta := planJSON(t, "plan", "--servers", "200", "--dispatchers", "5", "--refresh", "400ms", "--service", "50ms",
		"--rate", "3600/s", "--no-bracket", "--runs", "2", "--refreshes", "10")
	lam := strconv.FormatFloat(meta["load"].(float64), 'g', -1, 64)
	out, errs, code := herd(t, "edge", "--dispatchers", "5", "--load", lam, "--format", "json", "--progress", "never")
	if code != 0 {
		t.Fatalf("herd edge: exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("herd edge output: %v\n%s", err, out)
	}
	if got, want := meta["edge_scaled"], doc.Rows[0]["edge_scaled"]; got != want {
		t.Errorf("plan's edge_scaled %v, herd edge's %v", got, want)
	}
	if got, want := meta["edge_ms"].(float64), doc.Rows[0]["edge_refresh"].(float64)*50; math.Abs(got/want-1) > 1e-12 {
		t.Errorf("plan's edge_ms %v, herd edge's edge_refresh × 50 ms = %v", got, want)
	}
	if meta["edge_method"] != "exact" {
		t.Errorf("edge_method %v, want exact", meta["edge_method"])
	}
}

// Where the exact search is priced above planExactBudget (h2:30 sizes at
// k = 10, λ = 0.9: about 30 min by compare.EdgeCostSized, 20 min
// measured), plan's edge is the heavy-traffic limit map's x*(k) for the
// sizes, to every digit, and says it is an approximation whose ± is the
// limit's precision, not its distance from the edge at the fleet's load
// (h2:30 at k = 10: 203.96 against 198.998 at λ = 0.9); h2:4 at k = 5,
// λ = 0.8 (about 1 s) it searches exactly.
func TestPlanLimitEdge(t *testing.T) {
	t.Parallel()
	args := []string{"plan", "--servers", "100", "--dispatchers", "10", "--refresh", "1s", "--service", "10ms", "--load", "0.9",
		"--sizes", "h2:30", "--no-bracket", "--runs", "2", "--refreshes", "10"}
	meta := planJSON(t, args...)
	l, err := compare.MapLimit(10, compare.MapLimitSettings{Variance: 30, Workers: 2})
	if err != nil || !l.Exists {
		t.Fatalf("limit map: %v, exists %v", err, l.Exists)
	}
	if meta["edge_method"] != "limit" || meta["edge_scaled"] != l.Value {
		t.Errorf("edge_method %v, edge_scaled %v; want limit and the limit map's %v", meta["edge_method"], meta["edge_scaled"], l.Value)
	}
	out, errs, code := herd(t, append(args, "--progress", "never")...)
	if code != 0 || !strings.Contains(out, "heavy-traffic limit map, an APPROXIMATION") || !strings.Contains(out, "not its distance from the edge at λ = 0.9") {
		t.Errorf("text output (exit %d, %s) does not label the edge an approximation whose ± is not its error at λ = 0.9:\n%s", code, errs, out)
	}
	exact := planJSON(t, "plan", "--servers", "100", "--dispatchers", "5", "--refresh", "1s", "--service", "40ms", "--load", "0.8",
		"--sizes", "h2:4", "--no-bracket", "--runs", "2", "--refreshes", "10")
	if exact["edge_method"] != "exact" {
		t.Errorf("h2:4, k = 5, λ = 0.8: edge_method %v, want exact", exact["edge_method"])
	}
}

// For three fleets, plan's bracket at N contains the midpoint of a
// separate herd bracket run at the same run length (herd bracket's finer
// default resolution, its own model edge).
func TestPlanBracketHoldsHerdBracket(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, k, load string }{{"25", "3", "0.9"}, {"50", "5", "0.8"}, {"100", "4", "0.85"}} {
		meta := planJSON(t, "plan", "--servers", c.n, "--dispatchers", c.k, "--refresh", "1s", "--service", "50ms",
			"--load", c.load, "--runs", "2", "--refreshes", "100")
		out, errs, code := herd(t, "bracket", "--servers", c.n, "--dispatchers", c.k, "--load", c.load,
			"--refreshes", "100", "--cut", "100", "--format", "json")
		if code != 0 {
			t.Fatalf("herd bracket: exit %d: %s", code, errs)
		}
		var doc struct {
			Rows []map[string]any `json:"rows"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rows) != 1 {
			t.Fatalf("herd bracket output: %v\n%s", err, out)
		}
		lam, _ := strconv.ParseFloat(c.load, 64)
		toMs := 50 / ((1 - lam) * (1 - lam)) // x → ms: T = x/(1−λ)², 50 ms each
		mid := (doc.Rows[0]["lower_scaled"].(float64) + doc.Rows[0]["upper_scaled"].(float64)) / 2 * toMs
		lo, hi := meta["edge_n_lower_ms"].(float64), meta["edge_n_upper_ms"].(float64)
		if !(lo <= mid && mid <= hi) {
			t.Errorf("N=%s k=%s λ=%s: plan's bracket [%g, %g] ms misses herd bracket's midpoint %g ms", c.n, c.k, c.load, lo, hi, mid)
		}
	}
}

// The same flags give the same bytes whatever --workers.
func TestPlanWorkersSameBytes(t *testing.T) {
	t.Parallel()
	args := []string{"plan", "--servers", "50", "--dispatchers", "4", "--refresh", "200ms", "--service", "20ms", "--load", "0.85",
		"--runs", "2", "--refreshes", "50", "--format", "csv", "--progress", "never"}
	one, _, c1 := herd(t, append(slicesClone(args), "--workers", "1")...)
	two, _, c2 := herd(t, append(slicesClone(args), "--workers", "2")...)
	if c1 != 0 || c2 != 0 || one != two {
		t.Errorf("--workers 1 and 2 differ (exit %d, %d):\n%s\n%s", c1, c2, one, two)
	}
}

// A sizes file drawn from h2:4 is fitted as about h2:4 and the fit is
// shown.
func TestPlanSizesFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "times.txt")
	var b strings.Builder
	b.WriteString("# service times in ms\n")
	for _, x := range planH2Sample(4, 20000) {
		b.WriteString(strconv.FormatFloat(50*x, 'f', 3, 64) + "\n")
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	meta := planJSON(t, "plan", "--servers", "50", "--dispatchers", "3", "--refresh", "50ms", "--sizes-file", path,
		"--load", "0.8", "--runs", "2", "--refreshes", "20", "--no-bracket")
	sizes := meta["sizes"].(string)
	c, err := strconv.ParseFloat(strings.TrimPrefix(sizes, "h2:"), 64)
	if !strings.HasPrefix(sizes, "h2:") || err != nil || math.Abs(c/4-1) > 0.1 {
		t.Errorf("sizes %q, want h2:C with C within 10%% of 4", sizes)
	}
	if svc := meta["service"].(string); !strings.HasPrefix(svc, "4") && !strings.HasPrefix(svc, "5") {
		t.Errorf("service %q: want the file's mean, about 50ms", svc)
	}
}

// planH2Sample draws n sizes of h2:c (balanced means, mean 1) from a
// fixed seed, as meanfield's package doc states the law.
func planH2Sample(c float64, n int) []float64 {
	r := rand.New(rand.NewPCG(3, 4))
	p := (1 + math.Sqrt((c-1)/(c+1))) / 2
	xs := make([]float64, n)
	for i := range xs {
		if r.Float64() < p {
			xs[i] = r.ExpFloat64() / (2 * p)
		} else {
			xs[i] = r.ExpFloat64() / (2 * (1 - p))
		}
	}
	return xs
}

// The margin's words keep a margin that whole percents would round away.
func TestPlanMarginWords(t *testing.T) {
	t.Parallel()
	for m, want := range map[float64]string{
		1.0004: "0.04% above the edge",
		0.9996: "the refresh period is 99.96% of the edge's",
		1.25:   "25% above the edge",
		0.133:  "the refresh period is 13% of the edge's",
		1:      "0% above the edge",
	} {
		if got := planMarginWords(m); !strings.HasPrefix(got, want) {
			t.Errorf("planMarginWords(%v) = %q, want it to start %q", m, got, want)
		}
	}
}
