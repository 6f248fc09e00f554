//go:build unix

package main

import (
	"bytes"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalStops: the invocations that ignored Ctrl-C (issue 14) stop
// within one second of SIGINT, keeping what finished, or are refused up
// front (exit 2 naming the flag) before any work. The two the issue
// lists are refused: 10¹⁰ board refreshes per run (--refresh 1e-9 over a
// horizon of 10) and D = 10⁶ probes per job. The strict cases are
// accepted runs at the limits' edge whose latency rests on the event
// loop checking cancellation on elapsed work (sim/run.go counts
// arrivals, probes and board records as work), and a single edge search,
// point, hysteresis row or bistable range, each of which polls for the
// signal after every map.
func TestSignalStops(t *testing.T) {
	cases := [][]string{
		{"sim", "--refresh", "1e-9", "--policy", "ll", "--tally", "own", "--horizon", "10", "--runs", "2"},
		{"sim", "--policy", "sqd:1000000", "--with-replacement", "--horizon", "10", "--runs", "2"},
		{"sim", "--refresh", "1e-4", "--policy", "ll", "--tally", "own", "--horizon", "1e4", "--runs", "2", "--workers", "1"},
		{"sim", "--policy", "sqd:1024", "--with-replacement", "--horizon", "1e5", "--runs", "2", "--workers", "1"},
		// One edge search of minutes (k = 5, λ = 0.99, maps of about
		// 0.05 s): it stops within a map (meanfield.EdgeSettings.Stop),
		// not when the search ends.
		{"edge", "--dispatchers", "5", "--load", "0.99", "--workers", "1"},
		// One point, one hysteresis row and one bistable range of minutes
		// each: their runs poll for the signal after every map
		// (meanfield.AttractorSettings.Stop; the bistable range's edge
		// search by EdgeSettings.Stop), not only between points.
		{"point", "--dispatchers", "5", "--load", "0.99", "--refresh", "28000", "--workers", "1"},
		{"hysteresis", "--dispatchers", "5", "--load", "0.99", "--refresh", "28000", "--starts", "balanced", "--bistable=false", "--workers", "1"},
		{"hysteresis", "--dispatchers", "5", "--load", "0.99", "--refresh", "1", "--starts", "balanced", "--workers", "1"},
		// One periodic-update point whose maps take seconds each: it
		// polls before every board class of a map.
		{"model", "--policy", "sqd:64", "--load", "0.999", "--refresh", "10000", "--workers", "1"},
	}
	dir := t.TempDir()
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := herdProc(dir, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			select {
			case <-exited: // refused up front
				if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "--") {
					t.Fatalf("exited before the signal with %d, stderr %q; want a usage error (2) naming a flag, or a run to interrupt", code, stderr.String())
				}
				return
			case <-time.After(500 * time.Millisecond):
			}
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			if took := time.Since(sent); took > time.Second {
				t.Errorf("stopped %.1f s after SIGINT, want ≤ 1 s", took.Seconds())
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("exit %d, stderr %q; want 1 and the interruption reported", code, stderr.String())
			}
		})
	}
}
