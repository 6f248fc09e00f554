package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// pointCkptArgs is a sweep of three quick points: the aperiodic herds at
// T = 100 and 287 (k = 5, λ = 0.9, averaged over 16 maps after 16, in 36
// and 60 maps) and the balanced fixed point at T = 400 with its spectral
// radius (23 maps).
var pointCkptArgs = []string{"point", "--dispatchers", "5", "--load", "0.9", "--refresh", "100,287,400", "--settle", "16", "--average", "16"}

// countdownCtx is cancelled at its n-th Err: herd point polls Err after
// every map of every point (stopOn), so n picks the map where Ctrl-C
// lands.
type countdownCtx struct {
	context.Context
	cancel context.CancelFunc
	left   atomic.Int64
}

func newCountdown(n int) *countdownCtx {
	ctx, cancel := context.WithCancel(context.Background())
	c := &countdownCtx{Context: ctx, cancel: cancel}
	c.left.Store(int64(n))
	return c
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) == 0 {
		c.cancel()
	}
	return c.Context.Err()
}

// herdCtx runs the command line in-process with ctx.
func herdCtx(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return out.String(), errb.String(), code
}

// TestPointCheckpointResume: herd point interrupted (Ctrl-C at the n-th
// poll, one to three times) with --checkpoint F writes its finished rows
// marked partial, exits 1 and says that F resumes; the same command with
// F then prints the bytes of a run never interrupted and never
// checkpointed (text and JSON, whose meta records the command line), for
// one worker and two, with a state taken at the stop only (the default
// --checkpoint-every) or after every map. A rerun of a finished
// checkpoint recomputes nothing.
func TestPointCheckpointResume(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		base := append(append([]string(nil), pointCkptArgs...), "--format", format)
		want, errs, code := herd(t, base...)
		if code != 0 {
			t.Fatalf("%s: uninterrupted: exit %d, %s", format, code, errs)
		}
		for _, c := range []struct {
			cuts    []int
			workers string
			every   string
		}{
			{[]int{1}, "1", "2m"},
			{[]int{10}, "1", "2m"},
			{[]int{40}, "1", "1ns"},
			{[]int{70, 30}, "1", "2m"},
			{[]int{5, 5, 5}, "2", "1ns"},
			{[]int{50}, "2", "2m"},
		} {
			name := fmt.Sprintf("%s cuts %v workers %s every %s", format, c.cuts, c.workers, c.every)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				path := filepath.Join(t.TempDir(), "p.ckpt")
				args := append(append([]string(nil), base...), "--workers", c.workers, "--checkpoint", path, "--checkpoint-every", c.every)
				for _, n := range c.cuts {
					out, errs, code := herdCtx(newCountdown(n), args...)
					t.Logf("cut at %d: exit %d, %s", n, code, errs)
					if code == 0 {
						continue // finished before the cut
					}
					if code != 1 || !strings.Contains(errs, "interrupted") || !strings.Contains(errs, "the same command with --checkpoint "+path+" resumes") {
						t.Fatalf("cut at %d: exit %d, stderr %q; want 1, interrupted, and how to resume", n, code, errs)
					}
					if partial := `"partial": true`; format == "json" && !strings.Contains(out, partial) {
						t.Fatalf("cut at %d: stdout not marked partial:\n%s", n, out)
					}
				}
				got, errs, code := herd(t, args...)
				t.Logf("resumed: %s", errs)
				if code != 0 || got != want {
					t.Fatalf("resumed: exit %d, stderr %q; stdout\n%s\nwant (uninterrupted)\n%s", code, errs, got, want)
				}
				// Finished: a rerun prints the rows from the file alone (a
				// row edited there shows).
				data, err := os.ReadFile(path)
				var ck pointCheckpoint
				if err == nil {
					err = json.Unmarshal(data, &ck)
				}
				if err != nil || len(ck.Points) != 3 || ck.Points[0].Result == nil {
					t.Fatalf("finished checkpoint: %v, %+v", err, ck)
				}
				ck.Points[0].Result.Iterations = 12345
				edited, _ := json.Marshal(&ck)
				write(t, filepath.Dir(path), filepath.Base(path), string(edited))
				again, errs, code := herd(t, args...)
				if code != 0 || !strings.Contains(again, "12345") || !strings.Contains(errs, "3 of 3 points finished") {
					t.Errorf("rerun of a finished checkpoint: exit %d, stderr %q, stdout\n%s", code, errs, again)
				}
			})
		}
	}
}

// TestPointCheckpointBad: a checkpoint made for other arguments or
// another version, an empty or corrupt file and a state that does not
// fit the run are refused (exit 2, naming --checkpoint) before any work;
// so are --checkpoint-every without --checkpoint or at 0, --checkpoint
// with --shards and one in a missing directory. --format and
// --checkpoint-every are not part of what a checkpoint is for.
func TestPointCheckpointBad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := func(path string, more ...string) []string {
		return append(append(append([]string(nil), pointCkptArgs...), "--checkpoint", path), more...)
	}
	// A checkpoint stopped part way, after 10 polls on one worker.
	made := filepath.Join(dir, "made.ckpt")
	if _, errs, code := herdCtx(newCountdown(10), args(made, "--workers", "1")...); code != 1 {
		t.Fatalf("making a checkpoint: exit %d, %s", code, errs)
	}
	data, err := os.ReadFile(made)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(name string, f func(c *pointCheckpoint)) string {
		var c pointCheckpoint
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
		f(&c)
		b, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		return write(t, dir, name, string(b))
	}
	copyOf := func(name string) string { return write(t, dir, name, string(data)) }
	running := func(c *pointCheckpoint) *pointSaved {
		for i := range c.Points {
			if c.Points[i].State != nil {
				return &c.Points[i]
			}
		}
		t.Fatal("no point saved part way")
		return nil
	}
	for _, c := range []struct {
		args []string
		want string // in stderr, with exit 2
	}{
		{append(args(copyOf("other.ckpt")), "--refresh", "100,287,401"), "made for herd point --dispatchers=5 --load=0.9 --refresh=100,287,400"},
		{append(args(copyOf("settle.ckpt")), "--settle", "17"), "not for this herd point"},
		{args(edit("version.ckpt", func(c *pointCheckpoint) { c.Version = "0.0.1" })), "written by herd 0.0.1"},
		{args(write(t, dir, "empty.ckpt", "")), "not a herd point checkpoint: the file is empty"},
		{args(write(t, dir, "cut.ckpt", string(data[:len(data)/2]))), "not a herd point checkpoint: unexpected EOF"},
		{args(write(t, dir, "csv.ckpt", "dispatchers,load\n5,0.9\n")), "not a herd point checkpoint: invalid character"},
		{args(edit("format.ckpt", func(c *pointCheckpoint) { c.Format = "herd-part/1" })), `format "herd-part/1"`},
		{args(edit("maps.ckpt", func(c *pointCheckpoint) { running(c).State.Maps = 9000 })), "9000 maps, want 1 to MaxIter = 5000"},
		{args(edit("nostate.ckpt", func(c *pointCheckpoint) { running(c).State.Herd = nil })), "the state of a FindAttractor run"},
		{args(edit("both.ckpt", func(c *pointCheckpoint) { p := running(c); p.Result = &pointRun{Iterations: 3} })), "holds both a row and a run's state"},
		{append(pointCkptArgs, "--checkpoint-every", "1m"), "--checkpoint-every needs --checkpoint FILE"},
		{args(filepath.Join(dir, "zero.ckpt"), "--checkpoint-every", "0s"), "--checkpoint-every 0s: want a duration > 0"},
		{args(filepath.Join(dir, "shard.ckpt"), "--shards", "2", "--shard", "0", "--out", dir), "--checkpoint does not go with --shards"},
		{args(filepath.Join(dir, "missing", "p.ckpt")), "--checkpoint"},
	} {
		out, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, "--checkpoint") || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("herd %s:\nexit %d, stderr %q, stdout %q; want exit 2 saying %q", strings.Join(c.args, " "), code, errs, out, c.want)
		}
	}
	// --format and --checkpoint-every may change between runs.
	if out, errs, code := herd(t, args(copyOf("format-ok.ckpt"), "--format", "csv", "--checkpoint-every", "1h")...); code != 0 || !strings.Contains(out, "aperiodic") {
		t.Errorf("resumed as CSV: exit %d, stderr %q", code, errs)
	}
}

// write writes a file in dir and returns its path.
func write(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
