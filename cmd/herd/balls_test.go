package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// balls runs herd balls in-process through runBalls, with run's exit
// statuses: 0 success, 2 bad usage, 1 anything else.
func balls(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	err := runBalls(ctx, &env{stdout: &out, stderr: &errb}, args)
	var ue *usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		errb.WriteString("herd balls: " + err.Error() + "\n")
		code = 2
	default:
		errb.WriteString("herd balls: " + err.Error() + "\n")
		code = 1
	}
	return out.String(), errb.String(), code
}

var ballsSmall = []string{"--bins", "64,256", "--balls", "n,4n", "--policy", "uniform,greedy:2,left:2,firstdiff:3",
	"--firstdiff-rule", "allowance,cap:2d", "--batch", "1,16", "--runs", "12", "--seed", "5"}

func TestBallsGolden(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, errs, code := balls(context.Background(), append(ballsSmall, "--format", format)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, "balls."+format, out)
		})
	}
}

// The CSV header is the documented one, in order.
func TestBallsColumns(t *testing.T) {
	t.Parallel()
	out, errs, code := balls(context.Background(), "--bins", "16", "--runs", "2", "--format", "csv")
	const want = "bins,balls,policy,rule,probe_cap,batch,runs,max_load_mean,max_load_se,gap_mean,gap_se,probes_mean,probes_se,probes_max,max_load_dist,meta_title,"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d (%s): header %q, want %q", code, errs, strings.SplitN(out, "\n", 2)[0], want)
	}
}

// The same flags and seed print the same bytes whatever the number of workers.
func TestBallsWorkersSameBytes(t *testing.T) {
	t.Parallel()
	one, _, c1 := balls(context.Background(), append(ballsSmall, "--format", "csv", "--workers", "1")...)
	four, _, c4 := balls(context.Background(), append(ballsSmall, "--format", "csv", "--workers", "4")...)
	if c1 != 0 || c4 != 0 || one != four {
		t.Errorf("--workers 1 and 4 differ (exit %d, %d):\n%s\n%s", c1, c4, one, four)
	}
}

// Bad input exits 2 with a message naming the flag and its range.
func TestBallsBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bins", "0"}, "--bins 0: want an integer ≥ 1"},
		{[]string{"--policy", "uniform,greedy:2", "--firstdiff-rule", "cap:3"}, "--firstdiff-rule: no --policy is firstdiff:D, so it would change no row"},
		{[]string{"--policy", "left:2", "--firstdiff-cap", "3"}, "--firstdiff-cap: no --policy is firstdiff:D, so it would change no row"},
		{[]string{"--bins", "-4"}, "--bins -4: want an integer ≥ 1"},
		{[]string{"--balls", "0"}, "--balls: 0: want an integer ≥ 1, n, or cn"},
		{[]string{"--balls", "0n"}, "--balls: \"0n\": want an integer ≥ 1, n, or cn"},
		{[]string{"--balls", "xn"}, "--balls: \"xn\": want an integer ≥ 1, n, or cn"},
		{[]string{"--balls", "2147483648"}, "--balls 2147483648: want at most 2147483647"},
		{[]string{"--balls", "64n", "--bins", "67108864"}, "--balls 64n with --bins 67108864: m = c·n must be at most 2147483647"},
		{[]string{"--firstdiff-rule", "patience"}, "--firstdiff-rule: unknown firstdiff rule \"patience\""},
		{[]string{"--firstdiff-rule", "cap:0"}, "--firstdiff-rule: probe cap \"0\": want a whole number ≥ 1"},
		{[]string{"--firstdiff-rule", "cap:n^4", "--policy", "firstdiff:2"}, "--firstdiff-rule cap:n^4 with --policy firstdiff:2 and --bins 1024: FirstDiffRule cap:n^4: probe cap n^4 with d = 2, n = 1024 is above 2147483647"},
		{[]string{"--batch", "0"}, "--batch 0: want an integer ≥ 1"},
		{[]string{"--policy", "greedy:0"}, "--policy: policy \"greedy:0\": D must be an integer ≥ 1"},
		{[]string{"--policy", "left:0"}, "--policy: policy \"left:0\": D must be an integer ≥ 1"},
		{[]string{"--policy", "firstdiff:0"}, "--policy: policy \"firstdiff:0\": D must be an integer ≥ 1"},
		{[]string{"--policy", "greedy"}, "--policy: policy \"greedy\" needs a number of probes"},
		{[]string{"--policy", "sq2"}, "--policy: unknown policy \"sq2\""},
		{[]string{"--bins", "3", "--policy", "left:4"}, "--policy: policy left:4: D must be in [1, 3]"},
		{[]string{"--runs", "0"}, "--runs 0: want an integer in [1, 1000000]"},
		{[]string{"--firstdiff-cap", "-1"}, "--firstdiff-cap -1: want an integer ≥ 0"},
		{[]string{"--plot", "x.tiff", "--bins", "8,16"}, "--plot \"x.tiff\": want a file name ending in .png, .svg, .pdf or .eps"},
		{[]string{"--plot", "x.svg"}, "--plot needs a --bins list"},
		{[]string{"--format", "xml"}, "--format \"xml\": want text, csv or json"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	}
	for _, tc := range cases {
		out, errs, code := balls(context.Background(), tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("herd balls %v: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
				tc.args, code, errs, out, tc.want)
		}
	}
}

// The plot is written and is an SVG.
func TestBallsPlot(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "balls.svg")
	_, errs, code := balls(context.Background(), "--bins", "16,64,256", "--runs", "4", "--plot", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("plot not written: %v", err)
	}
}

// An interrupted run prints what finished, marked partial, and fails.
func TestBallsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, errs, code := balls(ctx, append(ballsSmall, "--format", "json")...)
	if code != 1 || !strings.Contains(out, `"partial": true`) || !strings.Contains(errs, "interrupted") {
		t.Errorf("cancelled run: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// --firstdiff-cap is the allowance's: with only cap:C rules it is ignored,
// and the output says so.
func TestBallsCapFlagIgnoredWarning(t *testing.T) {
	t.Parallel()
	out, errs, code := balls(context.Background(), "--bins", "16", "--policy", "firstdiff:2",
		"--firstdiff-rule", "cap:d", "--firstdiff-cap", "3", "--runs", "2", "--format", "json")
	if code != 0 || !strings.Contains(out, "--firstdiff-cap applies to the allowance rule only") {
		t.Errorf("exit %d (%s): no warning in %s", code, errs, out)
	}
}
