package sweep

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// IndexEnv lists the environment variables a shard started without its
// index takes it from, in order: a Slurm array task's, then a Kubernetes
// indexed job's.
var IndexEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// IndexFromEnv reads the index of a shard of n from the first variable of
// IndexEnv that getenv gives a value: ok is false when none has one, and
// a value that is not an index in [0, n) is an error naming it.
func IndexFromEnv(n int, getenv func(string) string) (i int, ok bool, err error) {
	for _, name := range IndexEnv {
		v := getenv(name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= n {
			return 0, false, fmt.Errorf("$%s = %q: want a shard index in [0, %d)", name, v, n)
		}
		return i, true, nil
	}
	return 0, false, nil
}

// Script is a sweep to run as a Slurm job array.
type Script struct {
	Bin     string   // the program to run (a path, or a name on $PATH)
	Command string   // its command
	Args    []string // the sweep's canonical argument list
	Shards  int      // N, the array's size
	Dir     string   // the part directory
}

// WriteSlurmScript writes an sbatch script that runs the sweep as a job
// array, one shard per array task, one CPU each, each task running
//
//	Bin Command Args… --shards=N --out=DIR --workers=1
//
// with its shard index taken from $SLURM_ARRAY_TASK_ID. It makes Dir
// absolute and creates it and its logs/ (Slurm does not create the
// directory of --output; a job whose log cannot be opened fails without a
// word); a failure there is a *DirError with Op "create".
func WriteSlurmScript(w io.Writer, s Script) error {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return &DirError{Op: "create", Dir: s.Dir, Err: err}
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return &DirError{Op: "create", Dir: s.Dir, Err: err}
	}
	args := append([]string{s.Bin, s.Command}, s.Args...)
	args = append(args, "--shards="+strconv.Itoa(s.Shards), "--out="+dir, "--workers=1")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = ShellQuote(a)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# herd %s as a Slurm job array: %d shards, one task and one CPU each.\n", s.Command, s.Shards)
	fmt.Fprintf(&b, "#   sbatch THIS_FILE                  run every shard (add --time, --mem, --partition as your site needs)\n")
	fmt.Fprintf(&b, "#   herd merge %s   print the sweep's output, or list the shards to resubmit\n", ShellQuote(dir))
	fmt.Fprintf(&b, "#   sbatch --array=LIST THIS_FILE     rerun only the shards herd merge lists\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=herd-%s\n", s.Command)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", s.Shards-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n")
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=1\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", strings.ReplaceAll(logs, "%", "%%")+"/%A_%a.out")
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "exec %s\n", strings.Join(quoted, " "))
	_, err = fmt.Fprint(w, b.String())
	return err
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// ShellQuote quotes s for a POSIX shell, as WriteSlurmScript writes its
// command line: unchanged when it holds only safe characters, else in
// single quotes.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
