package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"herd/compare/sweep"
)

// runShards runs every shard of a sweep in-process (workers alternating
// between 1 and 2, which must not matter) into dir.
func runShards(t *testing.T, dir string, n int, args ...string) {
	t.Helper()
	for i := range n {
		a := append(append([]string(nil), args...), "--shards", strconv.Itoa(n), "--shard", strconv.Itoa(i),
			"--out", dir, "--workers", strconv.Itoa(1+i%2))
		out, errs, code := herd(t, a...)
		if code != 0 || out != "" {
			t.Fatalf("shard %d: exit %d, stdout %q, stderr %q", i, code, out, errs)
		}
	}
}

// A sharded sweep merged prints the unsharded command's bytes, in every
// format and plot, for each command under the contract and for more
// shards than runs.
func TestShardMergeSameBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		shards int
		args   []string
		plot   bool
	}{
		{"sim", 4, simSmall, true},
		{"sim-more-shards-than-runs", 7, []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "2", "--load", "0.5,0.8"}, false},
		{"sim-one-shard", 1, []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "3", "--sizes", "pareto:1.5"}, false},
		{"point", 3, []string{"point", "--dispatchers", "5", "--load", "0.9", "--refresh", "20,400", "--start", "empty,balanced:6"}, false},
		{"model", 3, []string{"model", "--policy", "rr,sq2,ll", "--refresh", "0,5", "--servers", "0,10"}, false},
		// Repeated N and grid values; at k = 4, λ = 0.8 the model's edge is
		// quick to compute and these short runs tip at some T and not others.
		{"bracket", 3, []string{"bracket", "--dispatchers", "4", "--load", "0.8", "--servers", "20,24,20",
			"--grid", "1,1.5,2,2,2.5,3.5", "--runs", "3", "--refreshes", "50"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			parts := filepath.Join(dir, "parts")
			runShards(t, parts, tc.shards, tc.args...)
			formats := []string{"text", "csv", "json"}
			if tc.args[0] == "bracket" {
				formats = []string{"csv"} // each bracket computes the model's edge: keep it short
			}
			for _, format := range formats {
				plain := append(append([]string(nil), tc.args...), "--format", format)
				merge := []string{"merge", parts, "--format", format}
				if tc.plot && format == "csv" {
					plain = append(plain, "--plot", filepath.Join(dir, "plain.svg"))
					merge = append(merge, "--plot", filepath.Join(dir, "merged.svg"))
					if tc.args[0] == "bracket" {
						plain = append(plain, "--points", filepath.Join(dir, "plain.points"))
						merge = append(merge, "--points", filepath.Join(dir, "merged.points"))
					}
				}
				want, errs, wcode := herd(t, plain...)
				got, merrs, mcode := herd(t, merge...)
				if mcode != wcode || got != want {
					t.Errorf("%s: merged (exit %d, %s)\n%s\nunsharded (exit %d, %s)\n%s", format, mcode, merrs, got, wcode, errs, want)
				}
			}
			files := []string{"svg"}
			if tc.args[0] == "bracket" {
				files = append(files, "points")
			}
			for _, ext := range files {
				if !tc.plot {
					break
				}
				a, err1 := os.ReadFile(filepath.Join(dir, "plain."+ext))
				b, err2 := os.ReadFile(filepath.Join(dir, "merged."+ext))
				if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s files differ (%v, %v)", ext, err1, err2)
				}
			}
		})
	}
}

// The sweep's own output flags are recorded in the parts and used by
// merge; --format on merge overrides them.
func TestMergeUsesRecordedFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "2", "--format", "csv"}
	runShards(t, dir, 2, args...)
	want, _, _ := herd(t, args...)
	got, errs, code := herd(t, "merge", dir)
	if code != 0 || got != want || !strings.HasPrefix(got, "servers,") {
		t.Errorf("merge: exit %d (%s)\n%s\nwant\n%s", code, errs, got, want)
	}
}

// A sharded herd point whose point is an aperiodic herd merges to the
// unsharded output (merge refused the kind as corrupt).
func TestMergeAperiodicPoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"point", "--refresh", "100,400", "--settle", "16", "--average", "16", "--format", "csv"}
	runShards(t, dir, 2, args...)
	want, _, _ := herd(t, args...)
	got, errs, code := herd(t, "merge", dir)
	if code != 0 || got != want || !strings.Contains(got, ",aperiodic,") {
		t.Errorf("merge: exit %d (%s)\n%s\nwant\n%s", code, errs, got, want)
	}
}

// Missing, partial, corrupt and foreign parts: merge exits 1 and names
// the shards to rerun, in the form sbatch --array takes.
func TestMergeIncomplete(t *testing.T) {
	t.Parallel()
	args := []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "3", "--load", "0.5,0.8"}
	dir := t.TempDir()
	runShards(t, dir, 5, args...)
	want, _, _ := herd(t, args...)

	must := func(name string, code int, errs string, subs ...string) {
		t.Helper()
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (%s)", name, code, errs)
		}
		for _, s := range subs {
			if !strings.Contains(errs, s) {
				t.Errorf("%s: stderr %q lacks %q", name, errs, s)
			}
		}
	}

	// Two shards missing.
	for _, i := range []int{1, 2, 4} {
		if err := os.Rename(filepath.Join(dir, sweep.PartName(5, i)), filepath.Join(dir, sweep.PartName(5, i)+".away")); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := herd(t, "merge", dir)
	must("missing", code, errs, "3 of 5 shards missing or incomplete", "1 missing", "--array=1-2,4")
	if out != "" {
		t.Errorf("missing shards: stdout %q, want nothing", out)
	}
	for _, i := range []int{1, 2, 4} {
		os.Rename(filepath.Join(dir, sweep.PartName(5, i)+".away"), filepath.Join(dir, sweep.PartName(5, i)))
	}

	// A corrupt part (truncated) is an error naming the file, not a skip.
	p2 := filepath.Join(dir, sweep.PartName(5, 2))
	good, _ := os.ReadFile(p2)
	os.WriteFile(p2, good[:len(good)/2], 0o644)
	_, errs, code = herd(t, "merge", dir)
	must("corrupt", code, errs, "part-2-of-5.json: corrupt part file", "--array=2")
	// A result that does not decode, and a result under another shard's index.
	var p sweep.Part
	if err := json.Unmarshal(good, &p); err != nil {
		t.Fatal(err)
	}
	bad := p
	bad.Results = append([]sweep.Record(nil), p.Results...)
	bad.Results[0].Result = json.RawMessage(`{"response_mean": "fast"}`)
	data, _ := json.Marshal(bad)
	os.WriteFile(p2, data, 0o644)
	_, errs, code = herd(t, "merge", dir)
	must("bad result", code, errs, "corrupt result")
	bad.Results[0] = p.Results[0]
	bad.Results[0].Index = 3
	data, _ = json.Marshal(bad)
	os.WriteFile(p2, data, 0o644)
	_, errs, code = herd(t, "merge", dir)
	must("wrong index", code, errs, "part-2-of-5.json", "not this shard's")
	os.WriteFile(p2, good, 0o644)

	// A part of another sweep in the same directory.
	other := t.TempDir()
	runShards(t, other, 5, "sim", "--servers", "10", "--horizon", "200", "--runs", "3", "--load", "0.5,0.7")
	o3, _ := os.ReadFile(filepath.Join(other, sweep.PartName(5, 3)))
	p3 := filepath.Join(dir, sweep.PartName(5, 3))
	mine, _ := os.ReadFile(p3)
	os.WriteFile(p3, o3, 0o644)
	_, errs, code = herd(t, "merge", dir)
	must("foreign", code, errs, "belong to different sweeps")
	os.WriteFile(p3, mine, 0o644)

	got, errs, code := herd(t, "merge", dir)
	if code != 0 || got != want {
		t.Errorf("repaired: exit %d (%s)\n%s\nwant\n%s", code, errs, got, want)
	}
}

// An interrupted shard writes a partial part and exits 1; merge lists it;
// the rerun does only the missing runs and completes it.
func TestShardInterruptedResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"sim", "--servers", "10", "--horizon", "200", "--runs", "4"}
	want, _, _ := herd(t, args...)
	runShards(t, dir, 2, args...)
	path := filepath.Join(dir, sweep.PartName(2, 1))
	data, _ := os.ReadFile(path)
	var p sweep.Part
	json.Unmarshal(data, &p)
	p.Results, p.Complete = p.Results[:1], false // as an interrupted shard leaves it
	data, _ = json.Marshal(p)
	os.WriteFile(path, data, 0o644)
	_, errs, code := herd(t, "merge", dir)
	if code != 1 || !strings.Contains(errs, "1 partial (1 of 2 runs)") || !strings.Contains(errs, "--array=1") {
		t.Errorf("partial part: exit %d, %q", code, errs)
	}
	_, errs, code = herd(t, append(args, "--shards", "2", "--shard", "1", "--out", dir)...)
	if code != 0 || !strings.Contains(errs, "2 of 2 runs (1 from an earlier try), complete") {
		t.Errorf("rerun: exit %d, %q", code, errs)
	}
	got, errs, code := herd(t, "merge", dir)
	if code != 0 || got != want {
		t.Errorf("merge after rerun: exit %d (%s)\n%s\nwant\n%s", code, errs, got, want)
	}

	// A cancelled shard writes a partial part, and says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	d2 := t.TempDir()
	code = run(ctx, append(args, "--shards", "2", "--shard", "0", "--out", d2), &out, &errb)
	data, err := os.ReadFile(filepath.Join(d2, sweep.PartName(2, 0)))
	if code != 1 || err != nil || !strings.Contains(string(data), `"complete": false`) || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("cancelled shard: exit %d, %v, stderr %q", code, err, errb.String())
	}
}

// The shard index comes from --shard, else $SLURM_ARRAY_TASK_ID, else
// $JOB_COMPLETION_INDEX; N never from the environment.
func TestShardIndexFromEnv(t *testing.T) {
	args := []string{"point", "--refresh", "20,30,40", "--shards", "3"}
	cases := []struct {
		name        string
		slurm, k8s  string
		flag        []string
		code        int
		part, error string
	}{
		{"slurm", "2", "", nil, 0, sweep.PartName(3, 2), ""},
		{"kubernetes", "", "1", nil, 0, sweep.PartName(3, 1), ""},
		{"slurm first", "0", "1", nil, 0, sweep.PartName(3, 0), ""},
		{"flag first", "0", "", []string{"--shard", "1"}, 0, sweep.PartName(3, 1), ""},
		{"none", "", "", nil, 2, "", "give --shard I, or run as a Slurm array task"},
		{"out of range", "3", "", nil, 2, "", "$SLURM_ARRAY_TASK_ID = \"3\": want a shard index in [0, 3)"},
		{"not a number", "", "x", nil, 2, "", "$JOB_COMPLETION_INDEX = \"x\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SLURM_ARRAY_TASK_ID", tc.slurm)
			t.Setenv("JOB_COMPLETION_INDEX", tc.k8s)
			dir := t.TempDir()
			_, errs, code := herd(t, append(append(args, "--out", dir), tc.flag...)...)
			if code != tc.code || !strings.Contains(errs, tc.error) {
				t.Fatalf("exit %d, %q; want %d and %q", code, errs, tc.code, tc.error)
			}
			if tc.part != "" {
				if _, err := os.Stat(filepath.Join(dir, tc.part)); err != nil {
					t.Errorf("want %s: %v", tc.part, err)
				}
			}
		})
	}
}

// Bad sharding flags are usage errors naming the flag.
func TestShardBadFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--shard", "1"}, "--shard needs --shards N"},
		{[]string{"sim", "--shards", "0", "--out", dir}, "--shards 0: want an integer in [1, 1000000]"},
		{[]string{"sim", "--shards", "2"}, "--shards needs --out DIR"},
		{[]string{"sim", "--out", dir}, "--out needs --shards N"},
		{[]string{"sim", "--shards", "2", "--shard", "2", "--out", dir}, "--shard 2: want an integer in [0, 2)"},
		{[]string{"point", "--refresh", "5", "--slurm-script"}, "--slurm-script needs --shards N"},
		{[]string{"bracket", "--servers", "25", "--shards", "2", "--shard", "0", "--out", dir}, "--shards needs --grid"},
		{[]string{"merge"}, "want one directory"},
		{[]string{"merge", dir, dir}, "want one directory"},
	}
	for _, tc := range cases {
		_, errs, code := herd(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("herd %v: exit %d, %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	_, errs, code := herd(t, "merge", dir)
	if code != 1 || !strings.Contains(errs, "no part files") {
		t.Errorf("merge of an empty directory: exit %d, %q", code, errs)
	}
}

// --slurm-script prints an sbatch array script running the same command
// with --shards, and runs nothing.
func TestSlurmScript(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my sweep")
	out, errs, code := herd(t, "bracket", "--servers", "25", "--grid", "2,3", "--runs", "2", "--format", "csv",
		"--shards", "8", "--out", dir, "--workers", "3", "--slurm-script")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --array=0-7\n",
		"#SBATCH --cpus-per-task=1\n",
		"#SBATCH --output=" + dir + "/logs/%A_%a.out\n",
		" bracket --servers=25 --runs=2 --grid=2,3 --format=csv --shards=8 '--out=" + dir + "' --workers=1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("script lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "logs")); err != nil || !st.IsDir() {
		t.Errorf("the log directory was not made: %v", err)
	}
	if ps, _ := filepath.Glob(filepath.Join(dir, "part-*")); len(ps) != 0 {
		t.Errorf("--slurm-script ran shards: %v", ps)
	}
}
