package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"herd/compare/progress"
)

// bracketTiny is an adaptive bracket at two N that takes milliseconds:
// the model's edge given, runs of 10 refreshes, 2 replications.
var bracketTiny = []string{"--servers", "25,50", "--model-edge", "3", "--runs", "2", "--refreshes", "10", "--format", "csv", "--workers", "1"}

// Off a terminal (a log), herd bracket's --progress auto and always print
// a heartbeat naming the bracket's N with its runs done and the bracket at
// work among --servers, and never prints nothing; stdout is the same
// bytes whatever --progress says. Not parallel: it shortens the heartbeat
// of every command that starts one meanwhile.
func TestBracketProgressHeartbeat(t *testing.T) {
	defer progress.SetHeartbeat(time.Millisecond)()
	head := regexp.MustCompile(`(?m)^bracket N=(25|50): (\d+) runs done.*, \d+s elapsed, the last finished \d+s ago; (about \d+\S* left for the \d+ queued|time left unknown)`)
	_, stderr := heartbeatModes(t, append([]string{"bracket"}, bracketTiny...), head)
	// Either bracket: the first (N = 25) can end before the heartbeat's
	// first tick on a busy machine.
	atWork := regexp.MustCompile(`bracket [12] of 2 \(N = 25, 50\), `)
	for mode, errs := range stderr {
		if !atWork.MatchString(errs) {
			t.Errorf("--progress %s: stderr has no heartbeat naming the bracket at work:\n%s", mode, errs)
		}
	}
}

// herd scaling runs its brackets with the same progress, and without
// --model-edge the model's edge follows --progress too (herd edge's
// heartbeat off a terminal, nothing with never). Not parallel, as above.
func TestScalingProgressHeartbeat(t *testing.T) {
	defer progress.SetHeartbeat(time.Millisecond)()
	args := []string{"scaling", "--servers", "25,30,35,40", "--model-edge", "3", "--runs", "2", "--refreshes", "10", "--format", "csv"}
	want, errs, code := herd(t, append(args, "--progress", "never")...)
	if errs != "" && !strings.HasPrefix(errs, "warning:") {
		t.Fatalf("--progress never: exit %d, stderr %q; want no progress", code, errs)
	}
	out, errs2, code2 := herd(t, append(args, "--progress", "auto")...)
	if code2 != code || out != want {
		t.Errorf("--progress auto: exit %d, stdout\n%s\nwant exit %d and the bytes of --progress never\n%s", code2, out, code, want)
	}
	if !regexp.MustCompile(`(?m)^bracket N=(25|30|35|40): (\d+ runs done|no runs finished yet)`).MatchString(errs2) {
		t.Errorf("--progress auto: no bracket heartbeat on stderr:\n%s", errs2)
	}

	// The model's edge computed (k = 4, λ = 0.8: quick), one N.
	edge := []string{"bracket", "--servers", "25", "--dispatchers", "4", "--load", "0.8", "--grid", "2,3", "--runs", "2", "--refreshes", "10", "--format", "csv"}
	want, errs, _ = herd(t, append(edge, "--progress", "never")...)
	if strings.Contains(errs, "the model's edge") {
		t.Errorf("--progress never: the model's edge shows progress: %q", errs)
	}
	out, errs, _ = herd(t, append(edge, "--progress", "auto")...)
	if out != want || !strings.Contains(errs, "bracket: the model's edge: 0/1 edges done") {
		t.Errorf("--progress auto: stdout same %v; stderr %q, want the model edge's heartbeat", out == want, errs)
	}
}

// A bad --progress exits 2 naming the flag and its values, before any
// work, in herd bracket and herd scaling (with --from too).
func TestBracketProgressBadValue(t *testing.T) {
	t.Parallel()
	from := filepath.Join(t.TempDir(), "brackets.csv") // never read: the flag is checked first
	for _, args := range [][]string{
		{"bracket", "--servers", "25", "--progress", "sometimes"},
		{"bracket", "--servers", "25", "--grid", "2,3", "--shards", "2", "--shard", "0", "--out", t.TempDir(), "--progress", "sometimes"},
		{"scaling", "--servers", "25,30,35,40", "--progress", "sometimes"},
		{"scaling", "--from", from, "--progress", "sometimes"},
	} {
		_, errs, code := herd(t, args...)
		if code != 2 || !strings.Contains(errs, `--progress "sometimes": want auto, always or never`) {
			t.Errorf("herd %s: exit %d, stderr %q; want 2 naming --progress and its values", strings.Join(args, " "), code, errs)
		}
	}
}

// --progress is how a shard reports, not what it computes: shards run with
// different values merge into the unsharded output.
func TestBracketProgressShards(t *testing.T) {
	t.Parallel()
	shardsMergeWhateverProgress(t, []string{"bracket", "--servers", "25", "--model-edge", "3", "--grid", "1,2,3", "--runs", "2", "--refreshes", "10", "--format", "csv"},
		"never", "always")
}

// shardsMergeWhateverProgress runs the command args as one shard per
// --progress mode (shard i with modes[i]) and checks that herd merge gives
// the unsharded output.
func shardsMergeWhateverProgress(t *testing.T, args []string, modes ...string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "parts")
	for i, mode := range modes {
		a := append(append([]string(nil), args...), "--shards", fmt.Sprint(len(modes)), "--shard", fmt.Sprint(i), "--out", dir, "--progress", mode)
		if out, errs, code := herd(t, a...); code != 0 || out != "" {
			t.Fatalf("shard %d: exit %d, stdout %q, stderr %q", i, code, out, errs)
		}
	}
	want, _, _ := herd(t, args...)
	got, errs, code := herd(t, "merge", dir)
	if code != 0 || got != want {
		t.Errorf("merge: exit %d (%s)\n%s\nwant\n%s", code, errs, got, want)
	}
}

// herd scaling --predict's predictions report as herd edge --servers'
// cells do: off a terminal a heartbeat names the N at work with the
// refresh periods simulated; the table is the same whatever --progress
// but for predict_seconds, a wall time. Not parallel, as above; about 4 s
// of CPU a run (TestScalingPredict's cells).
func TestScalingPredictProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("eight short particle-map edge searches a run")
	}
	defer progress.SetHeartbeat(time.Millisecond)()
	from := filepath.Join(t.TempDir(), "br.csv")
	if err := os.WriteFile(from, []byte(scalingPredictCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"scaling", "--from", from, "--predict", "--format", "csv", "--workers", "2"}
	table := func(out string) []map[string]string {
		rows := csvRows(t, out)
		for _, r := range rows {
			delete(r, "predict_seconds")
		}
		return rows
	}
	never, errs, code := herd(t, append(args, "--progress", "never")...)
	if code != 0 || errs != "" {
		t.Fatalf("--progress never: exit %d, stderr %q; want 0 and nothing on stderr", code, errs)
	}
	out, errs, code := herd(t, append(args, "--progress", "always")...)
	if code != 0 || !reflect.DeepEqual(table(out), table(never)) {
		t.Errorf("--progress always: exit %d, stdout\n%s\nwant the table of --progress never\n%s", code, out, never)
	}
	if !regexp.MustCompile(`(?m)^scaling --predict: [0-3]/4 predictions`).MatchString(errs) ||
		!regexp.MustCompile(`N=(10|25|100|400).*\d+ refresh periods simulated`).MatchString(errs) {
		t.Errorf("--progress always: no heartbeat with the predictions done and the N at work with its periods:\n%s", errs)
	}
}

// herd edge --servers and herd point --servers give their cell a time
// left, where they said "time left unknown" until the cell ended: edge once
// a probe has ended (the fewest probes to come at the length of the
// longest so far, at the cell's pace), point from its runs × refreshes;
// the table is the same whatever --progress. Not parallel, as above. The
// cells are long beside the 2 ms heartbeat (point: 400,000 periods, about
// 0.2 s; edge: 0.1 s of probes) so that a heartbeat lands while an
// estimate stands: with 12,000 periods a fast machine ended the point
// cell within one heartbeat.
func TestFiniteTimeLeft(t *testing.T) {
	defer progress.SetHeartbeat(2 * time.Millisecond)()
	cases := []struct {
		args []string
		cell string
	}{
		{[]string{"edge", "--dispatchers", "5", "--load", "0.8", "--servers", "14", "--runs", "3", "--refreshes", "1000"}, `k=5 λ=0\.8`},
		{[]string{"point", "--dispatchers", "2", "--load", "0.5", "--refresh", "2", "--servers", "10", "--runs", "4", "--refreshes", "100000"}, `k=2 λ=0\.5 T=2`},
	}
	for _, c := range cases {
		args := append(c.args, "--format", "csv")
		never, errs, code := herd(t, append(args, "--progress", "never")...)
		if code != 0 || errs != "" {
			t.Fatalf("%v --progress never: exit %d, stderr %q", args, code, errs)
		}
		out, errs, code := herd(t, append(args, "--progress", "always")...)
		if code != 0 || out != never {
			t.Errorf("%v --progress always: exit %d, stdout\n%s\nwant that of --progress never\n%s", args, code, out, never)
		}
		if !regexp.MustCompile(`running ` + c.cell + ` for \S+ \([1-9]\d* refresh periods simulated; about \S+ left\)`).MatchString(errs) {
			t.Errorf("%v: no heartbeat with the cell's time left:\n%s", args, errs)
		}
	}
}
