package main

// The sharding contract (issue 7). A command whose work is a list of
// independent runs (herd sim, herd point, herd bracket --grid) numbers its
// runs 0, 1, …, n−1 in the order the unsharded command does them, and
//
//	--shards N --shard I --out DIR
//
// runs only the runs whose index i ≡ I (mod N) and writes their raw
// results to DIR/part-I-of-N.json (atomically: a temporary file and a
// rename), printing nothing on stdout. Without --shard, I comes from
// $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX (a Kubernetes indexed
// job); N never comes from the environment. Each run's seed depends only
// on the master seed and the run's identity, so the runs are the same
// whichever shard does them. herd merge DIR reads the parts back and
// prints what the unsharded command prints, byte for byte: the command is
// run again from the argument list recorded in the parts, with its runs
// taken from them instead of simulated.
//
// Round robin (i mod N) rather than a split by estimated cost: a sweep's
// rows are consecutive runs (sim's replications of one row, bracket's runs
// at one T), so i mod N gives every shard one run of each costly row, and
// which shard holds run i is known without knowing the costs.
//
// A command joins the contract in a few lines: addShardFlags on its flag
// set, a sweep with the identity of each run, runSweep with a function
// that does a subset of the runs (its result type R must round-trip
// through encoding/json; jfloat keeps NaN and ±Inf), and an entry in
// mergeCommands (merge.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// partFormat names the part file format; a reader refuses others.
const partFormat = "herd-part/1"

// getenv and executable are the environment the contract reads; tests
// replace them.
var (
	getenv     = os.Getenv
	executable = os.Executable
)

// shardEnv lists the variables the shard index is taken from, in order.
var shardEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// shardFlags are the contract's flags on one command.
type shardFlags struct {
	shards, shard *int
	out           *string
	script        *bool
	// outIsLog: --out has a meaning of its own without --shards (herd
	// bracket's run log).
	outIsLog bool
}

// addShardFlags adds --shards, --shard, --slurm-script and, if out is nil,
// --out (the part directory). herd bracket passes its own --out, which is
// the run log when the command is not sharded.
func addShardFlags(fs *pflag.FlagSet, out *string) *shardFlags {
	f := &shardFlags{outIsLog: out != nil}
	f.shards = fs.Int("shards", 0, "split the runs over N shards: run only those with index ≡ --shard (mod N) and write them to --out DIR for herd merge (0: not sharded)")
	f.shard = fs.Int("shard", -1, "this shard's index in [0, N) (default: $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX)")
	if out == nil {
		out = fs.String("out", "", "with --shards: the directory of the part files (one per shard)")
	}
	f.out = out
	f.script = fs.Bool("slurm-script", false, "print an sbatch script that runs this command as a job array of --shards tasks into --out DIR, and exit")
	return f
}

// noCanonical are the flags left out of a part's argument list: they say
// how and where the runs are done, not what they are.
var noCanonical = map[string]bool{"shards": true, "shard": true, "out": true, "slurm-script": true, "workers": true}

// canonicalArgs is the command's argument list without the sharding flags
// and --workers, one --name=value per flag set, in the flag set's order.
func canonicalArgs(fs *pflag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed && !noCanonical[f.Name] {
			out = append(out, "--"+f.Name+"="+f.Value.String())
		}
	})
	return out
}

// shardPlan is a resolved --shards/--shard/--out.
type shardPlan struct {
	n, i int
	dir  string
}

// check validates the sharding flags (usage errors); it is called before
// any work. It does not resolve the shard index.
func (f *shardFlags) check(fs *pflag.FlagSet) error {
	sharded := fs.Changed("shards")
	switch {
	case sharded && (*f.shards < 1 || *f.shards > maxSweepRuns):
		return usagef("--shards %d: want an integer in [1, %d]", *f.shards, maxSweepRuns)
	case fs.Changed("shard") && !sharded:
		return usagef("--shard needs --shards N")
	case *f.script && !sharded:
		return usagef("--slurm-script needs --shards N (the array size) and --out DIR")
	case sharded && *f.out == "":
		return usagef("--shards needs --out DIR, the directory of the part files")
	case fs.Changed("out") && !sharded && !f.outIsLog:
		return usagef("--out needs --shards N (--out is the directory of the part files)")
	case fs.Changed("shard") && (*f.shard < 0 || *f.shard >= *f.shards):
		return usagef("--shard %d: want an integer in [0, %d)", *f.shard, *f.shards)
	}
	return nil
}

// plan returns the shard to run, or nil when the command is not sharded.
// The index comes from --shard, else from the environment.
func (f *shardFlags) plan(fs *pflag.FlagSet) (*shardPlan, error) {
	if !fs.Changed("shards") {
		return nil, nil
	}
	p := &shardPlan{n: *f.shards, i: *f.shard, dir: *f.out}
	if fs.Changed("shard") {
		return p, nil
	}
	for _, name := range shardEnv {
		v := getenv(name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= p.n {
			return nil, usagef("$%s = %q: want a shard index in [0, %d) (--shards %d)", name, v, p.n, p.n)
		}
		p.i = i
		return p, nil
	}
	return nil, usagef("--shards %d: give --shard I, or run as a Slurm array task ($SLURM_ARRAY_TASK_ID) or a Kubernetes indexed job ($JOB_COMPLETION_INDEX)", p.n)
}

// partName is the file a shard writes in the part directory.
func partName(n, i int) string {
	return fmt.Sprintf("part-%0*d-of-%d.json", len(strconv.Itoa(n-1)), i, n)
}

// partNameRE matches the part files herd merge reads.
var partNameRE = regexp.MustCompile(`^part-([0-9]+)-of-([0-9]+)\.json$`)

// owned lists the run indices shard i of n holds among total runs.
func owned(total, n, i int) []int {
	var idx []int
	for j := i; j < total; j += n {
		idx = append(idx, j)
	}
	return idx
}

// partFile is one shard's part file: a header saying which sweep and which
// shard it is, and the raw result of each run the shard finished.
type partFile struct {
	Format  string   `json:"format"`  // partFormat
	Version string   `json:"version"` // herd's version
	Command string   `json:"command"` // sim, point, bracket
	Args    []string `json:"args"`    // canonicalArgs
	Shards  int      `json:"shards"`  // N
	Shard   int      `json:"shard"`   // I
	Total   int      `json:"total"`   // runs in the whole sweep
	Owned   []int    `json:"owned"`   // the run indices this shard holds
	// Complete is false in a part written by an interrupted shard: its
	// Results hold the runs that finished, and a rerun of the shard does
	// only the rest.
	Complete bool      `json:"complete"`
	Results  []partRun `json:"results"`
}

// partRun is one run: its index in the sweep, its identity (checked on
// merge against the index's run) and its raw result.
type partRun struct {
	Index  int             `json:"index"`
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
}

// sameSweep reports whether two parts belong to one sweep.
func (p *partFile) sameSweep(q *partFile) bool {
	return p.Format == q.Format && p.Version == q.Version && p.Command == q.Command &&
		p.Shards == q.Shards && p.Total == q.Total && slicesEqual(p.Args, q.Args)
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readPart reads and checks one part file: a file that does not parse, or
// whose header contradicts itself or its name, is an error.
func readPart(path string) (*partFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p partFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("corrupt part file: %w", err)
	}
	if dec.More() {
		return nil, errors.New("corrupt part file: data after the JSON document")
	}
	if err := p.check(filepath.Base(path)); err != nil {
		return nil, err
	}
	return &p, nil
}

// check checks a part file's header against itself and its file name,
// and its results against the runs it owns.
func (p *partFile) check(name string) error {
	switch {
	case p.Format != partFormat:
		return fmt.Errorf("corrupt part file: format %q, want %q", p.Format, partFormat)
	case p.Shards < 1 || p.Shards > maxSweepRuns || p.Shard < 0 || p.Shard >= p.Shards || p.Total < 0 || p.Total > maxSweepRuns:
		return fmt.Errorf("corrupt part file: shard %d of %d, %d runs", p.Shard, p.Shards, p.Total)
	case name != partName(p.Shards, p.Shard):
		return fmt.Errorf("corrupt part file: it holds shard %d of %d, which belongs in %s", p.Shard, p.Shards, partName(p.Shards, p.Shard))
	}
	want := owned(p.Total, p.Shards, p.Shard)
	if len(p.Owned) != len(want) {
		return fmt.Errorf("corrupt part file: owns %d runs, want %d", len(p.Owned), len(want))
	}
	for k := range want {
		if p.Owned[k] != want[k] {
			return fmt.Errorf("corrupt part file: owns run %d, want %d", p.Owned[k], want[k])
		}
	}
	seen := map[int]bool{}
	for _, r := range p.Results {
		if r.Index < 0 || r.Index >= p.Total || r.Index%p.Shards != p.Shard || seen[r.Index] || len(r.Result) == 0 {
			return fmt.Errorf("corrupt part file: result for run %d (duplicate, missing or not this shard's)", r.Index)
		}
		seen[r.Index] = true
	}
	if p.Complete && len(p.Results) != len(want) {
		return fmt.Errorf("corrupt part file: marked complete with %d of %d runs", len(p.Results), len(want))
	}
	return nil
}

// sweep is what the contract needs of a command's plan.
type sweep struct {
	e       *env
	command string
	fs      *pflag.FlagSet
	flags   *shardFlags
	ids     []string    // the identity of each run, in order
	merged  *mergedRuns // set when herd merge supplies the runs
}

// mergedRuns are the runs of a whole sweep read back from its parts by
// herd merge.
type mergedRuns struct {
	total int
	ids   []string
	raw   []json.RawMessage
}

// runSweep does a command's runs and returns their results by index, with
// done[i] set for each run that finished:
//   - plain: every run, through exec;
//   - merge (sw.merged set): none; the results are decoded from the parts;
//   - --slurm-script: prints the script and returns handled;
//   - --shards: the shard's runs (less those a partial part of an earlier
//     try holds), written to the part file; returns handled.
//
// exec runs the runs at indices idx and calls put(i, r) for each that
// finishes (serially); its error is a failed or interrupted run. When
// handled is set the command stops and returns err.
func runSweep[R any](ctx context.Context, sw *sweep, exec func(ctx context.Context, idx []int, put func(i int, r R)) error) (results []R, done []bool, handled bool, err error) {
	n := len(sw.ids)
	results, done = make([]R, n), make([]bool, n)
	put := func(i int, r R) { results[i], done[i] = r, true }
	if m := sw.merged; m != nil {
		if m.total != n {
			return nil, nil, true, fmt.Errorf("the parts hold a sweep of %d runs; its arguments now give %d (a different herd?)", m.total, n)
		}
		for i := range n {
			if m.ids[i] != sw.ids[i] {
				return nil, nil, true, fmt.Errorf("run %d is %q in the parts but %q now (a different herd?)", i, m.ids[i], sw.ids[i])
			}
			var r R
			if err := json.Unmarshal(m.raw[i], &r); err != nil {
				return nil, nil, true, fmt.Errorf("run %d (%s): corrupt result: %w", i, sw.ids[i], err)
			}
			if c, ok := any(r).(interface{ check() error }); ok {
				if err := c.check(); err != nil {
					return nil, nil, true, fmt.Errorf("run %d (%s): corrupt result: %w", i, sw.ids[i], err)
				}
			}
			put(i, r)
		}
		return results, done, false, nil
	}
	if *sw.flags.script {
		return nil, nil, true, writeSlurmScript(sw)
	}
	plan, err := sw.flags.plan(sw.fs)
	if err != nil {
		return nil, nil, true, err
	}
	if plan == nil {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		err := exec(ctx, all, put)
		return results, done, false, err
	}
	return nil, nil, true, runShard(ctx, sw, plan, exec)
}

// runShard does one shard's runs and writes its part file: complete, or,
// when interrupted, partial (and the command exits 1). A run that fails
// for another reason writes nothing.
func runShard[R any](ctx context.Context, sw *sweep, plan *shardPlan, exec func(ctx context.Context, idx []int, put func(i int, r R)) error) error {
	p := &partFile{
		Format: partFormat, Version: version, Command: sw.command, Args: canonicalArgs(sw.fs),
		Shards: plan.n, Shard: plan.i, Total: len(sw.ids), Owned: owned(len(sw.ids), plan.n, plan.i),
	}
	if p.Args == nil {
		p.Args = []string{}
	}
	if p.Owned == nil {
		p.Owned = []int{}
	}
	if err := os.MkdirAll(plan.dir, 0o755); err != nil {
		return usagef("--out %s: %v", plan.dir, err) // before any run
	}
	path := filepath.Join(plan.dir, partName(plan.n, plan.i))
	have := earlierRuns(sw, p, path)
	var todo []int
	for _, i := range p.Owned {
		if _, ok := have[i]; !ok {
			todo = append(todo, i)
		}
	}
	got := map[int]json.RawMessage{}
	var encErr error
	runErr := exec(ctx, todo, func(i int, r R) {
		b, err := json.Marshal(r)
		if err != nil && encErr == nil {
			encErr = fmt.Errorf("run %d: %w", i, err)
		}
		got[i] = b
	})
	if encErr != nil {
		return encErr
	}
	if runErr != nil && ctx.Err() == nil {
		return runErr // a failed run: no part file, the shard is reported missing
	}
	for _, i := range p.Owned {
		raw, ok := have[i]
		if !ok {
			raw, ok = got[i]
		}
		if ok {
			p.Results = append(p.Results, partRun{Index: i, ID: sw.ids[i], Result: raw})
		}
	}
	p.Complete = len(p.Results) == len(p.Owned)
	if err := p.write(path); err != nil {
		return err
	}
	state := "complete"
	if !p.Complete {
		state = "partial"
	}
	fmt.Fprintf(sw.e.stderr, "herd %s: shard %d of %d: %d of %d runs (%d from an earlier try), %s: %s\n",
		sw.command, plan.i, plan.n, len(p.Results), len(p.Owned), len(have), state, path)
	if !p.Complete {
		return errInterrupted
	}
	return nil
}

// earlierRuns are the runs of p that an earlier try of the same sweep
// left in the part file at path, by index.
func earlierRuns(sw *sweep, p *partFile, path string) map[int]json.RawMessage {
	have := map[int]json.RawMessage{}
	if old, err := readPart(path); err == nil && old.sameSweep(p) && old.Version == version {
		for _, r := range old.Results {
			if r.ID == sw.ids[r.Index] {
				have[r.Index] = r.Result
			}
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(sw.e.stderr, "herd %s: %s: %v; running the shard afresh\n", sw.command, path, err)
	}
	return have
}

// write writes the part file atomically.
func (p *partFile) write(path string) error {
	if p.Results == nil {
		p.Results = []partRun{}
	}
	data, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeSlurmScript prints an sbatch script that runs the sweep as a job
// array, one shard per array task, one CPU each. It creates the part
// directory and its logs/ (Slurm does not create the directory of
// --output; a job whose log cannot be opened fails without a word).
func writeSlurmScript(sw *sweep) error {
	n := *sw.flags.shards
	dir, err := filepath.Abs(*sw.flags.out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	bin := "herd"
	if exe, err := executable(); err == nil && !strings.Contains(exe, "go-build") {
		bin = exe // not a go run binary, which is deleted on exit
	}
	args := append([]string{bin, sw.command}, canonicalArgs(sw.fs)...)
	args = append(args, "--shards="+strconv.Itoa(n), "--out="+dir, "--workers=1")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# herd %s as a Slurm job array: %d shards, one task and one CPU each.\n", sw.command, n)
	fmt.Fprintf(&b, "#   sbatch THIS_FILE                  run every shard (add --time, --mem, --partition as your site needs)\n")
	fmt.Fprintf(&b, "#   herd merge %s   print the sweep's output, or list the shards to resubmit\n", shellQuote(dir))
	fmt.Fprintf(&b, "#   sbatch --array=LIST THIS_FILE     rerun only the shards herd merge lists\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=herd-%s\n", sw.command)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", n-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=1\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", strings.ReplaceAll(logs, "%", "%%")+"/%A_%a.out")
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "exec %s\n", strings.Join(quoted, " "))
	_, err = fmt.Fprint(sw.e.stdout, b.String())
	return err
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jfloat is a float64 that round-trips through JSON exactly, NaN and ±Inf
// included (as the strings "NaN", "+Inf", "-Inf").
type jfloat float64

func (x jfloat) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

func (x *jfloat) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
		if s != "NaN" && s != "+Inf" && s != "-Inf" {
			return fmt.Errorf("not a number: %q", s)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*x = jfloat(f)
	return nil
}

// shardList writes shard indices compactly, as sbatch --array takes them:
// 0-3,7,9-10.
func shardList(xs []int) string {
	sort.Ints(xs)
	var parts []string
	for k := 0; k < len(xs); {
		j := k
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == k {
			parts = append(parts, strconv.Itoa(xs[k]))
		} else {
			parts = append(parts, strconv.Itoa(xs[k])+"-"+strconv.Itoa(xs[j]))
		}
		k = j + 1
	}
	return strings.Join(parts, ",")
}
