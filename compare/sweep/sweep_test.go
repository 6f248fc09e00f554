package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Float round-trips every float64 through JSON, NaN and ±Inf included.
func TestFloatRoundTrip(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -2.5, 1e-300, 5e-324, math.MaxFloat64, 0.1 + 0.2, math.NaN(), math.Inf(1), math.Inf(-1)} {
		b, err := json.Marshal(Float(x))
		if err != nil {
			t.Fatalf("%v: %v", x, err)
		}
		var y Float
		if err := json.Unmarshal(b, &y); err != nil {
			t.Fatalf("%v (%s): %v", x, b, err)
		}
		if math.Float64bits(float64(y)) != math.Float64bits(x) && !(math.IsNaN(x) && math.IsNaN(float64(y))) {
			t.Errorf("%v → %s → %v", x, b, float64(y))
		}
	}
	var y Float
	if err := json.Unmarshal([]byte(`"fast"`), &y); err == nil {
		t.Errorf(`"fast" decoded as %v`, y)
	}
}

func TestShardList(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   []int
		want string
	}{
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{9, 0, 1, 5, 7, 8}, "0-1,5,7-9"},
	}
	for _, tc := range cases {
		if got := ShardList(tc.in); got != tc.want {
			t.Errorf("ShardList(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// PartName pads the shard index to the width of N − 1, so that the parts
// sort in shard order; Owned is round robin.
func TestPartNameOwned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, i int
		want string
	}{{1, 0, "part-0-of-1.json"}, {10, 3, "part-3-of-10.json"}, {11, 3, "part-03-of-11.json"}, {1000, 7, "part-007-of-1000.json"}} {
		if got := PartName(tc.n, tc.i); got != tc.want {
			t.Errorf("PartName(%d, %d) = %q, want %q", tc.n, tc.i, got, tc.want)
		}
	}
	if got, want := Owned(10, 4, 1), []int{1, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("Owned(10, 4, 1) = %v, want %v", got, want)
	}
	if got := Owned(2, 4, 3); got != nil {
		t.Errorf("Owned(2, 4, 3) = %v, want none", got)
	}
}

// result is a run's result as a test sweep keeps it.
type result struct {
	X Float `json:"x"`
}

func (r result) Check() error {
	if r.X < 0 {
		return errors.New("x < 0")
	}
	return nil
}

// square is an Exec: run i's result is i², or NaN for i = 2; it stops
// (as a cancelled pool does) once ctx is done.
func square(ctx context.Context, idx []int, put func(int, result)) error {
	for _, i := range idx {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		x := float64(i * i)
		if i == 2 {
			x = math.NaN()
		}
		put(i, result{Float(x)})
	}
	return nil
}

func testSweep(n int) *Sweep {
	s := &Sweep{Command: "square", Version: "test", Args: []string{"--n=" + strconv.Itoa(n)}}
	for i := range n {
		s.IDs = append(s.IDs, "run "+string(rune('a'+i)))
	}
	return s
}

// Sharded runs merged give the unsharded results exactly (NaN included),
// whatever the number of shards.
func TestShardMergeSameResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want, done, err := Run(ctx, testSweep(7), square)
	if err != nil || slices.Contains(done, false) {
		t.Fatalf("unsharded: %v, done %v", err, done)
	}
	for _, n := range []int{1, 3, 7, 9} {
		dir := t.TempDir()
		var log bytes.Buffer
		for i := range n {
			s := testSweep(7)
			s.Shard, s.Log = &Shard{N: n, I: i, Dir: dir}, &log
			if _, _, err := Run(ctx, s, square); err != nil {
				t.Fatalf("%d shards, shard %d: %v", n, i, err)
			}
		}
		parts, err := ReadParts(dir, "test", func(c string) bool { return c == "square" })
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		s := testSweep(7)
		s.Merged = Merge(parts)
		got, _, err := Run(ctx, s, square)
		if err != nil {
			t.Fatalf("%d shards: merge: %v", n, err)
		}
		for i := range want {
			if math.Float64bits(float64(got[i].X)) != math.Float64bits(float64(want[i].X)) {
				t.Errorf("%d shards: run %d = %v, want %v", n, i, got[i].X, want[i].X)
			}
		}
		if c := strings.Count(log.String(), ", complete: "); c != n {
			t.Errorf("%d shards: %d lines say complete:\n%s", n, c, log.String())
		}
	}
}

// A cancelled shard writes a partial part; ReadParts lists it for a
// rerun, and the rerun does only the runs it lacks.
func TestShardPartialRerun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	s := testSweep(6)
	s.Shard = &Shard{N: 2, I: 0, Dir: dir}
	stopAfterOne := func(ctx context.Context, idx []int, put func(int, result)) error {
		put(idx[0], result{1})
		cancel()
		return ctx.Err()
	}
	if _, _, err := Run(ctx, s, stopAfterOne); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("cancelled shard: %v, want ErrIncomplete", err)
	}
	s1 := testSweep(6)
	s1.Shard = &Shard{N: 2, I: 1, Dir: dir}
	if _, _, err := Run(context.Background(), s1, square); err != nil {
		t.Fatal(err)
	}
	_, err := ReadParts(dir, "test", func(string) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "0 partial (1 of 3 runs)") || !strings.Contains(err.Error(), "--array=0 ") {
		t.Fatalf("ReadParts: %v, want shard 0 listed partial", err)
	}
	var ran []int
	s.Log = &bytes.Buffer{}
	record := func(ctx context.Context, idx []int, put func(int, result)) error {
		ran = append(ran, idx...)
		return square(ctx, idx, put)
	}
	if _, _, err := Run(context.Background(), s, record); err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 4}; !slices.Equal(ran, want) {
		t.Errorf("rerun did runs %v, want %v", ran, want)
	}
	if !strings.Contains(s.Log.(*bytes.Buffer).String(), "3 of 3 runs (1 from an earlier try), complete") {
		t.Errorf("rerun log: %q", s.Log.(*bytes.Buffer).String())
	}
}

// ReadParts and Run refuse what does not belong together: a corrupt part,
// parts of two sweeps, another version, a result its Check refuses, a
// sweep whose runs changed.
func TestReadPartsRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	write := func(dir string, n int, edit func(*Sweep)) {
		for i := range n {
			s := testSweep(4)
			s.Shard = &Shard{N: n, I: i, Dir: dir}
			if edit != nil {
				edit(s)
			}
			if _, _, err := Run(ctx, s, square); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := func(string) bool { return true }
	cases := []struct {
		name, want string
		setup      func(dir string)
	}{
		{"empty", "no part files", func(string) {}},
		{"corrupt", "1 unreadable part file(s)", func(dir string) {
			write(dir, 2, nil)
			os.WriteFile(filepath.Join(dir, PartName(2, 1)), []byte(`{"format":"herd-part/1"`), 0o644)
		}},
		{"misnamed", "belongs in part-0-of-2.json", func(dir string) {
			write(dir, 2, nil)
			os.Rename(filepath.Join(dir, PartName(2, 0)), filepath.Join(dir, PartName(2, 1)))
		}},
		{"two sweeps", "belong to different sweeps", func(dir string) {
			write(dir, 2, nil)
			other := t.TempDir()
			write(other, 2, func(s *Sweep) { s.Args = []string{"--other"} })
			data, _ := os.ReadFile(filepath.Join(other, PartName(2, 1)))
			os.WriteFile(filepath.Join(dir, PartName(2, 1)), data, 0o644)
		}},
		{"version", "written by herd old", func(dir string) { write(dir, 1, func(s *Sweep) { s.Version = "old" }) }},
		{"missing", "1 of 3 shards missing or incomplete: 2 missing", func(dir string) {
			write(dir, 3, nil)
			os.Remove(filepath.Join(dir, PartName(3, 2)))
		}},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		tc.setup(dir)
		if _, err := ReadParts(dir, "test", all); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}

	dir := t.TempDir()
	write(dir, 1, nil)
	parts, err := ReadParts(dir, "test", all)
	if err != nil {
		t.Fatal(err)
	}
	m := Merge(parts)
	s := testSweep(5)
	s.Merged = m
	if _, _, err := Run(ctx, s, square); err == nil || !strings.Contains(err.Error(), "a sweep of 4 runs; its arguments now give 5") {
		t.Errorf("another length: %v", err)
	}
	m.Raw[1] = json.RawMessage(`{"x":-1}`)
	s = testSweep(4)
	s.Merged = m
	if _, _, err := Run(ctx, s, square); err == nil || !strings.Contains(err.Error(), "run 1 (run b): corrupt result: x < 0") {
		t.Errorf("a result Check refuses: %v", err)
	}
}

// The Slurm script runs every shard of the sweep with one worker, quoting
// what the shell would split, and makes the log directory.
func TestWriteSlurmScript(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my sweep")
	var b bytes.Buffer
	err := WriteSlurmScript(&b, Script{Bin: "/opt/herd", Command: "sim", Args: []string{"--load=0.5,0.9", "--start=it's"}, Shards: 4, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --job-name=herd-sim\n",
		"#SBATCH --array=0-3\n",
		"#SBATCH --output=" + dir + "/logs/%A_%a.out\n",
		"exec /opt/herd sim --load=0.5,0.9 '--start=it'\\''s' --shards=4 '--out=" + dir + "' --workers=1\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("script lacks %q:\n%s", want, b.String())
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "logs")); err != nil || !st.IsDir() {
		t.Errorf("logs/ not made: %v", err)
	}
}
