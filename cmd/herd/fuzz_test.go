package main

// Fuzz targets for each command's flag parsing and validation (issue 14),
// seeded with the hostile invocations. A command runs in-process with a
// context that is already cancelled, so only its parsing and validation
// do work: the pools start nothing. Flags that name files or directories
// are dropped from the fuzzed arguments (the fuzzer would otherwise write
// anywhere), and the target runs in a temporary directory. Properties:
// no panic; exit 0, 2 (a message that names no internal field), or 1 only
// for the interruption; within the time the fuzzing engine allows.
//
// CI runs each for a few seconds (.ci/run); a longer run:
//
//	go test ./cmd/herd -run '^$' -fuzz '^FuzzSim$' -fuzztime 60s

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"herd/compare"
	"herd/compare/sweep"
)

// pathFlags name files or directories: never fuzzed.
var pathFlags = []string{"--out", "--plot", "--points", "--from", "--dir", "--slurm-script", "--shard"}

// fuzzArgs splits line into arguments, dropping path flags (and their
// values) and positional arguments that could be paths.
func fuzzArgs(line string) []string {
	var out []string
	fields := strings.Fields(line)
	for i := 0; i < len(fields); i++ {
		a := fields[i]
		name, _, hasValue := strings.Cut(a, "=")
		drop := false
		for _, p := range pathFlags {
			if strings.HasPrefix(name, p) {
				drop = true
			}
		}
		if drop {
			if !hasValue {
				i++ // its value
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// internalRE matches a Go field name in a message: usage errors must name
// the command-line flag instead.
var internalRE = regexp.MustCompile(`\b(Servers|Dispatchers|Load|Refresh|Period|Horizon|Warmup|Policy|Start|Grid|RelTol|BranchFrom|MaxIter|Tol|Cut|Runs|Refreshes|Bins|Balls|Batch|FirstDiffCap) = |Settings\.|Config\b`)

// fuzzCommand runs herd cmd with the fuzzed arguments and checks the
// properties above.
func fuzzCommand(t *testing.T, cmd, line string) {
	t.Chdir(t.TempDir())
	args := append([]string{cmd}, fuzzArgs(line)...)
	for _, a := range args[1:] {
		if a == "-h" || a == "--help" || strings.HasPrefix(a, "--help=") {
			return // usage text, exit 0
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	msg := stderr.String()
	switch code {
	case 0:
	case 1:
		if !strings.Contains(msg, "interrupted") {
			t.Fatalf("herd %q: exit 1 without running anything: %s", args, msg)
		}
	case 2:
		if !strings.HasPrefix(msg, "herd ") {
			t.Fatalf("herd %q: exit 2 with stderr %q", args, msg)
		}
		if internalRE.MatchString(msg) {
			t.Fatalf("herd %q: the usage error names an internal field: %s", args, msg)
		}
	default:
		t.Fatalf("herd %q: exit %d", args, code)
	}
}

// seeds adds the hostile invocations of cmd, and extra, to f's corpus.
func seeds(f *testing.F, cmd string, extra ...string) {
	for _, tc := range hostileCases() {
		if tc.args[0] == cmd {
			f.Add(strings.Join(tc.args[1:], " "))
		}
	}
	for _, s := range extra {
		f.Add(s)
	}
}

func FuzzSim(f *testing.F) {
	seeds(f, "sim", "", "--servers 10,20 --dispatchers 2 --policy sqd:2,left:2,firstdiff:3 --tally own,scaled --refresh 1,2",
		"--start half:0.1T --refresh 10 --refreshes 20", "--sizes h2:10,pareto:2.5 --warmup 0", "--partitioned --servers 3 --dispatchers 5",
		"--horizon 1e-9 --runs 1", "--firstdiff-cap 3 --policy firstdiff:2 --shards 3")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "sim", line) })
}

func FuzzPoint(f *testing.F) {
	seeds(f, "point", "--refresh 300", "--refresh 300,500 --start half:0.1T,geometric,balanced:3 --dispatchers 1,5",
		"--refresh 10 --load 0.999999 --max-iter 0", "--refresh 10 --tol 0")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "point", line) })
}

func FuzzHysteresis(f *testing.F) {
	seeds(f, "hysteresis", "", "--servers 25 --runs 2 --refreshes 4 --tally scaled", "--starts spread:0.1T,half:3 --partitioned --servers 3")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "hysteresis", line) })
}

func FuzzEdge(f *testing.F) {
	seeds(f, "edge", "", "--dispatchers 1,2,256 --load 0.5,0.99", "--tolerance 0.099")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "edge", line) })
}

func FuzzBalls(f *testing.F) {
	seeds(f, "balls", "", "--bins 16,32 --balls 1000 --policy left:4,firstdiff:2 --batch 8 --firstdiff-cap 3", "--bins 134217728 --balls 1 --runs 1")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "balls", line) })
}

func FuzzModel(f *testing.F) {
	seeds(f, "model", "", "--policy sqd:1000000 --load 0.999999", "--policy rr --servers 1000000000000", "--policy ll,sq2 --refresh 1e-300,1e300")
	f.Fuzz(func(t *testing.T, line string) { fuzzCommand(t, "model", line) })
}

// FuzzBracket checks herd bracket's (and herd scaling's) flag validation
// only: a bracket computes the model's edge before its first run, which
// a cancelled context does not skip.
func FuzzBracket(f *testing.F) {
	seeds(f, "bracket", "", "--servers 25,100 --grid 1,2,3 --cut 10 --refreshes 10", "--dispatchers 256 --load 1e-6 --resolution 1e-300")
	f.Fuzz(func(t *testing.T, line string) {
		e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		fs := newFlags(e, "bracket", "bracket")
		bf := addBracketFlags(fs)
		shard := addShardFlags(fs, bf.out)
		err := parse(fs, fuzzArgs(line))
		if err == nil {
			_, err = bf.outFlags.check()
		}
		if err == nil {
			err = shard.check(fs)
		}
		if err == nil {
			_, err = bf.settings()
		}
		if err != nil && !errors.Is(err, pflag.ErrHelp) {
			var ue *usageError
			if !asUsage(err, &ue) {
				t.Fatalf("%q: not a usage error: %v", line, err)
			}
			if internalRE.MatchString(err.Error()) {
				t.Fatalf("%q: the usage error names an internal field: %v", line, err)
			}
		}
	})
}

func asUsage(err error, ue **usageError) bool {
	u, ok := err.(*usageError)
	*ue = u
	return ok
}

// FuzzScalingFrom: herd scaling --from reads any CSV without panicking,
// and what it reads fits or fails with an error.
func FuzzScalingFrom(f *testing.F) {
	f.Add("servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300\n25,5,0.9,6,1000,2,3,2.7,2,3\n")
	f.Add("servers,dispatchers,load,runs,refreshes,lower_scaled,upper_scaled,model_scaled,lower_scaled_300,upper_scaled_300,cut,points,resolution,seed\n25,5,0.9,6,1000,2,3,2.7,2,3,300,999999999999,0.05,1\n100,5,0.9,6,1000,2.2,2.9,2.7,,,300,7,0.05,1\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "b.csv")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := readBrackets(nil, path)
		if err != nil {
			return
		}
		var ns []int
		var lo, hi []float64
		for _, r := range res {
			ns, lo, hi = append(ns, r.Settings.Servers), append(lo, r.Lower), append(hi, r.Upper)
		}
		compare.FitScaling(ns, lo, hi)
	})
}

// FuzzRunLog: herd bracket --out opens any file without panicking, and
// refuses what is not a run log or holds a value out of range.
func FuzzRunLog(f *testing.F) {
	f.Add("hello\n")
	f.Add(compare.RunLogMagic + "\n" + compare.RunLogHeader + "\n25,5,0.9,2,10,0,1,-1\n25,5,0.9,2,10,1,1,3\n25,5,0.9,2,10,2,1")
	f.Add(compare.RunLogHeader + "\n25,5,0.9,1,10,0,1,-5\n")
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(t.TempDir(), "runs.csv")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := openFileStore(path)
		if err != nil {
			return
		}
		defer s.Close()
		if !strings.HasPrefix(data, compare.RunLogMagic) && !strings.HasPrefix(data, compare.RunLogHeader) && data != "" {
			t.Fatalf("accepted a log that starts %.40q", data)
		}
		for k, r := range s.Records() {
			if !r.Plausible() {
				t.Fatalf("accepted run %s out of range: %+v", k, r)
			}
		}
	})
}

// FuzzMergePart: herd merge reads any part file without panicking; a
// sweep it accepts is printed from the parts (the sim sweep's flags are
// fuzzed through the part's argument list, path flags excepted).
func FuzzMergePart(f *testing.F) {
	f.Add(`{"format":"herd-part/1","version":"` + version + `","command":"sim","args":["--servers=10","--horizon=50","--runs=2"],"shards":1,"shard":0,"total":2,"owned":[0,1],"complete":true,"results":[{"index":0,"id":"x","result":{"response_mean":1.5,"jobs":-5,"arrivals":400,"board_mean":0.8,"records":4,"probes_mean":0,"end":50,"stopped":false}},{"index":1,"id":"y","result":{}}]}`)
	f.Add(`{"format":"herd-part/1","version":"` + version + `","command":"point","args":["--refresh=1e-300"],"shards":1,"shard":0,"total":0,"owned":[],"complete":true,"results":[]}`)
	f.Fuzz(func(t *testing.T, data string) {
		var p sweep.Part
		if json.Unmarshal([]byte(data), &p) == nil {
			for _, a := range p.Args {
				if len(fuzzArgs(a)) == 0 || strings.ContainsAny(a, "/\\") {
					return // a path flag: not fuzzed
				}
			}
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "part-0-of-1.json"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var stdout, stderr bytes.Buffer
		if code := run(ctx, []string{"merge", dir}, &stdout, &stderr); code != 0 && code != 1 && code != 2 {
			t.Fatalf("exit %d", code)
		}
	})
}
