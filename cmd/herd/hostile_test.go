//go:build unix

package main

// Hostile invocations (issue 14): every one either runs correctly or exits
// 2 naming its flag, without a stack trace, within 20 s and 4 GB. Each
// runs herd as a subprocess (this test binary, re-executed with
// HERD_TEST_MAIN set: see TestMain) under an address-space limit of 4 GiB,
// so an out-of-memory crash or a panic is caught as such.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	hostileTimeout = 20 * time.Second
	hostileMemory  = 4 << 30 // bytes of address space
)

// TestMain runs herd itself when HERD_TEST_MAIN is set: the subprocess
// the hostile and signal tests start.
func TestMain(m *testing.M) {
	if os.Getenv("HERD_TEST_MAIN") == "1" {
		lim := &syscall.Rlimit{Cur: hostileMemory, Max: hostileMemory}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			fmt.Fprintln(os.Stderr, "setrlimit:", err)
			os.Exit(3)
		}
		os.Args = append([]string{"herd"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// herdProc returns the command that runs herd with args in dir.
func herdProc(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HERD_TEST_MAIN=1")
	return cmd
}

// crashRE matches what a Go crash prints.
var crashRE = regexp.MustCompile(`panic:|goroutine \d+ \[|fatal error:|runtime error`)

// hostileCase is one invocation: flag is the flag a usage error (exit 2)
// must name, or "" when the command must succeed (exit 0) and print want
// on stdout or stderr.
type hostileCase struct {
	args []string
	flag string
	want string
}

func hostileCases() []hostileCase {
	u := func(flag string, args ...string) hostileCase { return hostileCase{args: args, flag: flag} }
	ok := func(want string, args ...string) hostileCase { return hostileCase{args: args, want: want} }
	noJob := "a run measured no job"
	return []hostileCase{
		// Panics.
		u("--start", "point", "--refresh", "10", "--start", "balanced:1e308"),
		u("--start", "point", "--refresh", "10", "--start", "half:1e308T"),
		u("--starts", "hysteresis", "--refresh", "300", "--starts", "half:1e308", "--bistable=false"),
		u("--starts", "hysteresis", "--refresh", "300", "--starts", "half:1e300T", "--bistable=false"),
		u("--load", "point", "--refresh", "10", "--load", "1e-300"),
		u("--refresh", "point", "--refresh", "1e-300", "--max-iter", "5"),
		// Out of memory.
		u("--servers", "sim", "--servers", "1000000000000", "--horizon", "1", "--runs", "1"),
		u("--servers", "sim", "--servers", "2147483648", "--horizon", "1", "--runs", "1"),
		u("--start", "sim", "--start", "balanced:1e9", "--horizon", "1", "--runs", "1"),
		u("--start", "sim", "--start", "single:1e12", "--horizon", "1", "--runs", "1"),
		u("--start", "sim", "--start", "spread:1e9", "--horizon", "1", "--runs", "1"),
		u("--start", "sim", "--start", "half:1e9T", "--refresh", "10", "--horizon", "1", "--runs", "1"),
		u("--start", "point", "--refresh", "10", "--start", "balanced:1e9"),
		u("--start", "point", "--refresh", "10", "--start", "half:3e9"),
		u("--starts", "hysteresis", "--starts", "spread:1e12", "--bistable=false"),
		u("--starts", "hysteresis", "--starts", "balanced:1e10", "--bistable=false"),
		u("--bins", "balls", "--bins", "2147483647", "--balls", "1"),
		// Wrong numbers.
		u("--start", "sim", "--start", "balanced:1e308", "--horizon", "10", "--runs", "1"),
		u("--start", "sim", "--start", "half:1e308T", "--refresh", "10", "--policy", "ll", "--horizon", "10", "--runs", "1"),
		ok(noJob, "sim", "--horizon", "1e-9"),
		ok(noJob, "sim", "--horizon", "1e-300"),
		ok(noJob, "sim", "--refresh", "1e-300", "--refreshes", "10"),
		ok(noJob, "sim", "--load", "1e-300"),
		u("--refresh", "hysteresis", "--refresh", "1e9", "--bistable=false"),
		// Signals (also in TestSignalStops): rejected up front.
		u("--refresh", "sim", "--refresh", "1e-9", "--policy", "ll", "--tally", "own", "--horizon", "10", "--runs", "2"),
		u("--policy", "sim", "--policy", "sqd:1000000", "--with-replacement", "--horizon", "10", "--runs", "2"),
		// Usage errors that exited 1 or named no flag.
		u("--grid", "bracket", "--grid", "1e308"),
		u("--load", "bracket", "--servers", "25", "--load", "0.999", "--runs", "2", "--refreshes", "10"),
		u("--dispatchers", "bracket", "--servers", "25", "--dispatchers", "1", "--runs", "2", "--refreshes", "10"),
		u("--refreshes", "sim", "--refresh", "1e300", "--refreshes", "2000000000"),
		u("--dispatchers", "edge", "--dispatchers", "1000"),
		u("--tolerance", "edge", "--tolerance", "1e-300"),
		u("--refresh", "point", "--refresh", "1e9"),
		u("--dispatchers", "point", "--refresh", "10", "--dispatchers", "1000"),
		u("--policy", "sim", "--policy", "sqd:200"),
		u("--policy", "sim", "--policy", "left:101"),
		u("--format", "merge", "empty", "--format", "xml"),
		u("--cut", "bracket", "--servers", "25", "--runs", "2", "--refreshes", "10", "--cut", "5000"),
		u("--out", "bracket", "--servers", "25", "--runs", "2", "--refreshes", "10", "--grid", "1", "--out", "text.txt"),
		u("has no --points", "merge", "simsweep", "--points", "p.csv"),
		u("--from", "scaling", "--from", "one.csv"),
		u("--plot", "sim", "--servers", "10", "--horizon", "10", "--runs", "2", "--refresh", "1,2", "--plot", "missing/dir/x.png"),
		// A merge of parts holding an impossible value.
		{args: []string{"merge", "badsweep"}, flag: "", want: "jobs -5"},
		// More of the same kind, found while fixing the above.
		u("--runs", "sim", "--runs", "2000000000"),
		u("--dispatchers", "sim", "--dispatchers", "100000", "--tally", "scaled", "--policy", "ll", "--refresh", "1"),
		u("--horizon", "sim", "--horizon", "1e300", "--load", "1e-300"),
		u("--policy", "balls", "--policy", "greedy:100000"),
		u("--balls", "balls", "--balls", "1000000000000"),
		u("--refresh", "model", "--policy", "ll", "--refresh", "1e-300"),
		u("--refresh", "model", "--policy", "ll,sq2", "--refresh", "1e300"),
		u("--policy", "model", "--policy", "sqd:1000000", "--refresh", "10"),
		u("--start", "point", "--refresh", "10", "--start", "balanced:100000"),
		u("--shards", "sim", "--shards", "1000000000", "--out", "sweep"),
		u("DIR", "figures", "text.txt", "--only", "1"),
		u("--load", "hysteresis", "--load", "0.999"),
		u("--out", "sim", "--shards", "2", "--shard", "0", "--out", "text.txt"),
	}
}

// hostileDir prepares the files the cases read: a text file that is not
// a run log, a CSV of one bracket, an empty directory, the parts of a
// small sharded sim sweep, and the same with one run's jobs set to −5.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("text.txt", "hello\n")
	write("one.csv", "servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300\n25,5,0.9,6,1000,2,3,2.7,2,3\n")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sweep := range []string{"simsweep", "badsweep"} {
		cmd := herdProc(dir, "sim", "--servers", "10", "--horizon", "50", "--runs", "2", "--shards", "1", "--shard", "0", "--out", sweep)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sharded sim: %v: %s", err, out)
		}
	}
	part := filepath.Join(dir, "badsweep", "part-0-of-1.json")
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	bad := regexp.MustCompile(`"jobs": ?[0-9]+`).ReplaceAll(data, []byte(`"jobs": -5`))
	if bytes.Equal(bad, data) || !json.Valid(bad) {
		t.Fatalf("could not corrupt %s", part)
	}
	if err := os.WriteFile(part, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHostileInvocations(t *testing.T) {
	dir := hostileDir(t)
	for _, tc := range hostileCases() {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := herdProc(dir, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(hostileTimeout, func() { cmd.Process.Kill() })
			err := cmd.Wait()
			timer.Stop()
			took := time.Since(start)
			code := cmd.ProcessState.ExitCode()
			if took >= hostileTimeout {
				t.Fatalf("still running after %v (killed)", hostileTimeout)
			}
			if crashRE.Match(stderr.Bytes()) {
				t.Fatalf("crashed (exit %d): %.600s", code, stderr.String())
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > hostileMemory {
				t.Errorf("peak memory %d MB, want under %d MB", ru.Maxrss/1024, hostileMemory>>20)
			}
			switch {
			case tc.flag != "":
				if code != 2 || !strings.Contains(stderr.String(), tc.flag) {
					t.Errorf("exit %d, stderr %q; want exit 2 naming %s", code, stderr.String(), tc.flag)
				}
			case tc.want == "jobs -5": // a corrupt part: a runtime failure that says why
				if code != 1 || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("exit %d, stderr %q; want exit 1 naming %q", code, stderr.String(), tc.want)
				}
			default:
				if err != nil || code != 0 {
					t.Errorf("exit %d (%v), stderr %q; want success", code, err, stderr.String())
				}
				if out := stdout.String() + stderr.String(); !strings.Contains(out, tc.want) {
					t.Errorf("output lacks %q:\n%s", tc.want, out)
				}
			}
		})
	}
}
