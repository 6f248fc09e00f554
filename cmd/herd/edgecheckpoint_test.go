package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// TestEdgeCheckpointResume: herd edge interrupted (Ctrl-C at the n-th poll
// of its context, once or twice) with --checkpoint F exits 1 and says that
// F resumes; the same command with F then prints the bytes of a run never
// interrupted (JSON, whose meta records the command line), whatever
// --workers, and a rerun on the finished file prints them again.
func TestEdgeCheckpointResume(t *testing.T) {
	t.Parallel()
	base := []string{"edge", "--dispatchers", "5", "--load", "0.9", "--format", "json"}
	want, errs, code := herd(t, base...)
	if code != 0 {
		t.Fatalf("uninterrupted: exit %d, %s", code, errs)
	}
	for _, c := range []struct {
		cuts    []int
		workers string
		every   string
	}{
		{[]int{30}, "1", "1ns"},
		{[]int{20, 60}, "2", "1ns"},
		{[]int{100}, "2", "2m"},
	} {
		name := fmt.Sprintf("cuts %v workers %s every %s", c.cuts, c.workers, c.every)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "e.ckpt")
			args := append(append([]string(nil), base...), "--workers", c.workers, "--checkpoint", path, "--checkpoint-every", c.every)
			for _, n := range c.cuts {
				out, errs, code := herdCtx(newCountdown(n), args...)
				t.Logf("cut at %d: exit %d, %s", n, code, errs)
				if code == 0 {
					continue
				}
				if code != 1 || !strings.Contains(errs, "the same command with --checkpoint "+path+" resumes") || !strings.Contains(out, `"partial": true`) {
					t.Fatalf("cut at %d: exit %d, stderr %q, stdout %s; want 1, partial, and how to resume", n, code, errs, out)
				}
			}
			for i := range 2 {
				got, errs, code := herd(t, args...)
				if code != 0 || got != want || !strings.Contains(errs, "resuming") {
					t.Fatalf("resumed (%d): exit %d, stderr %q; stdout\n%s\nwant (uninterrupted)\n%s", i, code, errs, got, want)
				}
			}
		})
	}
}

// TestEdgeCheckpointBad: a checkpoint made for other arguments (with
// --servers too) and a file that is not one exit 2 naming --checkpoint.
func TestEdgeCheckpointBad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	made := filepath.Join(dir, "made.ckpt")
	if _, errs, code := herdCtx(newCountdown(10), "edge", "--dispatchers", "5", "--load", "0.9", "--checkpoint", made); code != 1 {
		t.Fatalf("making a checkpoint: exit %d, %s", code, errs)
	}
	junk := filepath.Join(dir, "junk.ckpt")
	if err := os.WriteFile(junk, []byte(`{"format":"herd-point-checkpoint/1","version":"x","command":"point","args":[],"points":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"edge", "--dispatchers", "6", "--load", "0.9", "--checkpoint", made}, "not for this herd edge"},
		{[]string{"edge", "--dispatchers", "5", "--load", "0.9", "--checkpoint", junk}, "not a herd edge checkpoint"},
		{[]string{"edge", "--dispatchers", "5", "--load", "0.9", "--servers", "100", "--checkpoint", made}, `format "herd-edge-checkpoint/2", want "herd-edge-servers-checkpoint/1"`},
		{[]string{"edge", "--dispatchers", "5", "--checkpoint-every", "1m"}, "--checkpoint-every needs --checkpoint"},
		{[]string{"edge", "--dispatchers", "5", "--checkpoint", made, "--checkpoint-every", "0s"}, "--checkpoint-every"},
	} {
		_, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || !strings.Contains(errs, "--checkpoint") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestEdgeCheckpointConfirm: herd edge --confirm interrupted during the
// check by plain iteration resumes the check's runs from their saved
// states and prints the bytes of a run never interrupted, with one worker
// or two.
func TestEdgeCheckpointConfirm(t *testing.T) {
	t.Parallel()
	base := []string{"edge", "--dispatchers", "5", "--load", "0.9", "--format", "json", "--workers", "1"}
	// The polls of the search alone and of the search and its check.
	polls := func(args ...string) int {
		ctx := newCountdown(1 << 40)
		if _, errs, code := herdCtx(ctx, args...); code != 0 {
			t.Fatalf("herd %s: exit %d, %s", strings.Join(args, " "), code, errs)
		}
		return 1<<40 - int(ctx.left.Load())
	}
	search, all := polls(base...), polls(append(base, "--confirm")...)
	want, errs, code := herd(t, append(base, "--confirm")...)
	if code != 0 || !strings.Contains(want, `"below_undecided": 0`) {
		t.Fatalf("uninterrupted: exit %d, %s\n%s", code, errs, want)
	}
	for _, workers := range []string{"1", "2"} {
		path := filepath.Join(t.TempDir(), "e.ckpt")
		args := append(append([]string(nil), base...), "--confirm", "--checkpoint", path, "--checkpoint-every", "1ns")
		cut := search + (all-search)/2
		if _, errs, code := herdCtx(newCountdown(cut), args...); code != 1 {
			t.Fatalf("cut at poll %d of %d (the check from %d): exit %d, %s", cut, all, search, code, errs)
		}
		args[len(base)-1] = workers
		got, errs, code := herd(t, args...)
		if code != 0 || got != want || !regexp.MustCompile(`resuming: \d+ runs finished and [1-9]\d* saved part way`).MatchString(errs) {
			t.Fatalf("resumed with %s workers: exit %d, stderr %q; stdout\n%s\nwant (uninterrupted)\n%s", workers, code, errs, got, want)
		}
	}
}

// TestEdgeServersCheckpoint: herd edge --servers interrupted once or twice
// with --checkpoint F exits 1 saying that F resumes; the same command with
// F then prints the bytes of a run never interrupted, whether cut and
// resumed with one worker or two, having taken the finished particle runs
// from F.
func TestEdgeServersCheckpoint(t *testing.T) {
	t.Parallel()
	base := []string{"edge", "--dispatchers", "5", "--load", "0.8", "--servers", "30,40", "--model-edge", "3.1631964844955442",
		"--refreshes", "100", "--runs", "4", "--format", "json"}
	want, errs, code := herd(t, base...)
	if code != 0 {
		t.Fatalf("uninterrupted: exit %d, %s", code, errs)
	}
	// The polls: one per refresh period of every run, and a few more.
	ctx := newCountdown(1 << 40)
	if _, errs, code := herdCtx(ctx, base...); code != 0 {
		t.Fatalf("counting polls: exit %d, %s", code, errs)
	}
	all := int(1<<40 - ctx.left.Load())
	for _, c := range []struct {
		cuts             []int
		workers, resumed string
	}{
		{[]int{all / 2}, "1", "2"},
		{[]int{all / 4, all / 4}, "2", "1"},
	} {
		t.Run(fmt.Sprint(c.cuts, c.workers), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.ckpt")
			args := append(append([]string(nil), base...), "--checkpoint", path, "--checkpoint-every", "1h", "--workers", c.workers)
			for _, n := range c.cuts {
				out, errs, code := herdCtx(newCountdown(n), args...)
				if code != 1 || !strings.Contains(errs, "holds ") || !strings.Contains(errs, "the same command with --checkpoint "+path+" resumes") || !strings.Contains(out, `"partial": true`) {
					t.Fatalf("cut at poll %d of %d: exit %d, stderr %q, stdout %s; want 1, partial, and how to resume", n, all, code, errs, out)
				}
			}
			args[len(args)-1] = c.resumed
			got, errs, code := herd(t, args...)
			if code != 0 || got != want || !regexp.MustCompile(`resuming: [1-9]\d* runs finished`).MatchString(errs) {
				t.Fatalf("resumed: exit %d, stderr %q; stdout\n%s\nwant (uninterrupted)\n%s", code, errs, got, want)
			}
		})
	}
}

// snapshotCtx is a context that copies a file when polled for the n-th
// time: what a hard kill (no Ctrl-C, no last write) would leave there.
type snapshotCtx struct {
	context.Context
	path string
	left atomic.Int64
	snap []byte
	err  error
}

func (c *snapshotCtx) Err() error {
	if c.left.Add(-1) == 0 {
		c.snap, c.err = os.ReadFile(c.path)
	}
	return c.Context.Err()
}

// TestEdgeCheckpointEachEnd: herd edge --checkpoint writes a search's
// journal as the search ends, not only every --checkpoint-every and at
// exit: the file as it stands in the last search (with --checkpoint-every
// 1h, so that only an end writes it) resumes the ended searches without
// running them again, to the uninterrupted run's bytes.
func TestEdgeCheckpointEachEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		flag, a, b string // two searches: --flag a,b
		common     []string
	}{
		{"map", "--dispatchers", "4", "5", []string{"--load", "0.9"}},
		{"servers", "--servers", "30", "40",
			[]string{"--dispatchers", "5", "--load", "0.8", "--model-edge", "3.1631964844955442", "--refreshes", "100", "--runs", "4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			common := append([]string{"--workers", "1", "--format", "json"}, c.common...)
			cmd := func(v string) []string { return append([]string{"edge", c.flag, v}, common...) }
			base := cmd(c.a + "," + c.b)
			want, errs, code := herd(t, base...)
			if code != 0 {
				t.Fatalf("uninterrupted: exit %d, %s", code, errs)
			}
			// The polls of each search alone: a few past the larger
			// count, one search has ended and the other is at work,
			// whichever runs first.
			var polls int64
			for _, v := range []string{c.a, c.b} {
				count := newCountdown(1 << 40)
				if _, errs, code := herdCtx(count, cmd(v)...); code != 0 {
					t.Fatalf("%s %s alone: exit %d, %s", c.flag, v, code, errs)
				}
				polls = max(polls, int64(1<<40)-count.left.Load())
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "e.ckpt")
			snap := &snapshotCtx{Context: context.Background(), path: path}
			snap.left.Store(polls + 3)
			args := append(append([]string(nil), base...), "--checkpoint", path, "--checkpoint-every", "1h")
			if got, errs, code := herdCtx(snap, args...); code != 0 || got != want {
				t.Fatalf("with --checkpoint: exit %d, %s; stdout\n%s\nwant\n%s", code, errs, got, want)
			}
			if snap.err != nil || snap.snap == nil {
				t.Fatalf("no file at poll %d: %v", polls+3, snap.err)
			}
			if err := os.WriteFile(path, snap.snap, 0o644); err != nil {
				t.Fatal(err)
			}
			got, errs, code := herd(t, args...)
			if code != 0 || got != want || !regexp.MustCompile(`resuming: [1-9]\d* runs finished`).MatchString(errs) {
				t.Fatalf("resumed from the file at poll %d: exit %d, stderr %q; stdout\n%s\nwant\n%s", polls+3, code, errs, got, want)
			}
		})
	}
}
