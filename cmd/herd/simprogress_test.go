package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"herd/compare"
	"herd/compare/progress"
)

// runsProgressCases are herd sim, herd balls and herd hysteresis's
// simulator runs at sizes whose runs take a few milliseconds each, one
// worker: tens of 1 ms heartbeats while they run. head is a heartbeat with the runs done (weighted by cost), the time
// elapsed and the time left, the line's own text (progress.Line).
var runsProgressCases = []struct {
	name string
	args []string
	head *regexp.Regexp
}{
	{"sim", []string{"sim", "--servers", "50", "--horizon", "2000", "--runs", "4", "--load", "0.5,0.8", "--format", "csv", "--workers", "1"},
		regexp.MustCompile(`(?m)^sim: [1-7]/8 runs \(\d+% by cost\), \d+s elapsed, about [0-9hms]+ left$`)},
	{"balls", []string{"balls", "--bins", "65536", "--runs", "4", "--format", "csv", "--workers", "1"},
		regexp.MustCompile(`(?m)^balls: ([1-9]|1[0-5])/16 runs \(\d+% by cost\), \d+s elapsed, about [0-9hms]+ left$`)},
	// 2,000 refreshes: about 25 ms a run (at 200, 2.5 ms, a heartbeat
	// between runs was missed once in four full test runs under load).
	{"hysteresis", []string{"hysteresis", "--servers", "50", "--runs", "4", "--refreshes", "2000", "--refresh", "20", "--starts", "empty", "--bistable=false", "--format", "csv", "--workers", "1"},
		regexp.MustCompile(`(?m)^hysteresis: [1-3]/4 runs \(\d+% by cost\), \d+s elapsed, about [0-9hms]+ left$`)},
}

// Off a terminal (a log, a Slurm job), herd sim's and herd balls'
// --progress auto and always print a heartbeat with the runs done, the
// time elapsed and the time left, and never prints nothing; stdout is the
// same bytes whatever --progress says. Not parallel: it shortens the
// heartbeat of every command that starts one meanwhile.
func TestSimBallsProgressHeartbeat(t *testing.T) {
	defer progress.SetHeartbeat(time.Millisecond)()
	for _, tc := range runsProgressCases {
		heartbeatModes(t, tc.args, tc.head)
	}
}

// heartbeatModes runs the command args with --progress never, auto and
// always, off a terminal, and checks what every such command promises:
// never prints nothing on stderr, auto and always print the heartbeat head
// matches, no line is rewritten in place, and stdout is the same bytes
// whatever --progress says. It returns that stdout and auto's and
// always's stderr, for the caller's own checks.
func heartbeatModes(t *testing.T, args []string, head *regexp.Regexp) (string, map[string]string) {
	t.Helper()
	name := args[0]
	want, errs, code := herd(t, append(args, "--progress", "never")...)
	if code != 0 || errs != "" {
		t.Fatalf("%s --progress never: exit %d, stderr %q; want 0 and nothing on stderr", name, code, errs)
	}
	stderr := map[string]string{}
	for _, mode := range []string{"auto", "always"} {
		out, errs, code := herd(t, append(args, "--progress", mode)...)
		stderr[mode] = errs
		if code != 0 || out != want {
			t.Errorf("%s --progress %s: exit %d, stdout\n%s\nwant the bytes of --progress never\n%s", name, mode, code, out, want)
		}
		if !head.MatchString(errs) {
			t.Errorf("%s --progress %s: stderr has no heartbeat like %s:\n%s", name, mode, head, errs)
		}
		if strings.Contains(errs, "\r") {
			t.Errorf("%s --progress %s: a line rewritten in place off a terminal:\n%q", name, mode, errs)
		}
	}
	return want, stderr
}

// fakeChecks stands for compare.Validate in the test below: three checks
// of 10 ms each, reported as compare.Validate reports them, whose rows
// say which options they were given.
func fakeChecks(ctx context.Context, opt compare.Options) ([]compare.Row, error) {
	var rows []compare.Row
	for i := range 3 {
		time.Sleep(10 * time.Millisecond)
		rows = append(rows, compare.Row{Check: string(rune('a' + i)), Source: "test", Reference: 1, Simulated: 1,
			SimulatedSE: 0.1, Z: 0, Verdict: compare.Pass, Note: fmt.Sprintf("quick %v, workers %d", opt.Quick, opt.Workers)})
		if opt.Progress != nil {
			opt.Progress(i+1, 3)
		}
	}
	return rows, ctx.Err()
}

// Off a terminal, herd validate's --progress auto and always print a
// heartbeat with the checks done, the time elapsed and the time left, and
// never prints nothing; stdout is the same bytes whatever --progress says.
// The checks are fakeChecks (the quick ones take seconds). Not parallel:
// it replaces validateChecks and shortens the heartbeat.
func TestValidateProgressHeartbeat(t *testing.T) {
	defer progress.SetHeartbeat(time.Millisecond)()
	validateChecks = fakeChecks
	defer func() { validateChecks = compare.Validate }()
	args := []string{"validate", "--quick", "--format", "csv", "--workers", "2"}
	out, _ := heartbeatModes(t, args, regexp.MustCompile(`(?m)^validate: [12]/3 checks, \d+s elapsed, about [0-9hms]+ left$`))
	if !strings.Contains(out, "quick true, workers 2") {
		t.Errorf("stdout lacks the fake checks' rows with --quick and --workers:\n%s", out)
	}
}

// A bad --progress exits 2 naming the flag and its values, before any
// work, in herd sim (sharded too), herd validate (--table too) and herd
// balls. The context is cancelled, so that a command that missed the
// value stops at once (a full herd validate runs for minutes) and exits 1.
func TestSimValidateBallsProgressBadValue(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"sim", "--servers", "10", "--horizon", "200", "--progress", "sometimes"},
		{"sim", "--servers", "10", "--horizon", "200", "--shards", "2", "--shard", "0", "--out", t.TempDir(), "--progress", "sometimes"},
		{"sim", "--servers", "10", "--shards", "2", "--out", t.TempDir(), "--slurm-script", "--progress", "sometimes"},
		{"validate", "--progress", "sometimes"},
		{"validate", "--table", "--progress", "sometimes"},
		{"balls", "--bins", "16", "--progress", "sometimes"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(ctx, args, &stdout, &stderr)
		out, errs := stdout.String(), stderr.String()
		if code != 2 || out != "" || !strings.Contains(errs, `--progress "sometimes": want auto, always or never`) {
			t.Errorf("herd %s: exit %d, stdout %q, stderr %q; want 2, no output and --progress named with its values", strings.Join(args, " "), code, out, errs)
		}
	}
}

// --progress is how a shard of herd sim reports, not what it computes:
// shards run with different values merge into the unsharded output, and
// the Slurm script's command line leaves it out.
func TestSimProgressShards(t *testing.T) {
	t.Parallel()
	args := []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "3", "--load", "0.5,0.8", "--format", "csv"}
	shardsMergeWhateverProgress(t, args, "never", "always", "auto")
	dir := filepath.Join(t.TempDir(), "parts")
	script, errs, code := herd(t, append(args, "--shards", "3", "--out", dir, "--slurm-script", "--progress", "always")...)
	if code != 0 || !strings.Contains(script, "--servers=10") || strings.Contains(script, "progress") {
		t.Errorf("--slurm-script --progress always: exit %d (%s), want a script without --progress:\n%s", code, errs, script)
	}
}
