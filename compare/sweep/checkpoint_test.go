package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ckState is a running point's saved state in these tests: its steps so
// far.
type ckState struct{ Steps int }

// ckWant is the checkpoint of a sweep of three points.
func ckWant(args ...string) Checkpoint[Float, ckState] {
	return Checkpoint[Float, ckState]{Format: "test-checkpoint/1", Version: "1", Command: "cube", Args: args,
		Points: []CheckpointPoint[Float, ckState]{{ID: "x=0"}, {ID: "x=1"}, {ID: "x=2"}}}
}

// A checkpoint is written when opened; a point's state is taken when its
// run stops (or Every after the last), its result when it finishes; a
// sweep opened again on the file resumes with both, and one made for
// other arguments, another version or another format, or holding a
// state that does not fit, is refused before any work.
func TestCheckpointResume(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ck")
	open := func(want Checkpoint[Float, ckState], check func(*ckState) error) (*Checkpointer[Float, ckState], error) {
		return OpenCheckpoint(CheckpointSettings[Float, ckState]{Path: path, Every: time.Hour, Want: want,
			CheckResult: func(r Float) error {
				if r < 0 {
					return errors.New("corrupt row")
				}
				return nil
			},
			CheckState: check})
	}
	c, err := open(ckWant("--n=3"), nil)
	if err != nil || c.Resumed() {
		t.Fatalf("new checkpoint: %v, resumed %v", err, c != nil && c.Resumed())
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("not written when opened: %v", err)
	}
	c.Finish(0, 8)
	c.Save(1, false, func() *ckState { t.Error("state taken before Every"); return nil })
	c.Save(1, true, func() *ckState { return &ckState{Steps: 7} })
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}

	c, err = open(ckWant("--n=3"), func(s *ckState) error { return nil })
	if err != nil || !c.Resumed() {
		t.Fatalf("reopened: %v, resumed %v", err, c != nil && c.Resumed())
	}
	finished, running := c.Counts()
	r, ok := c.Finished(0)
	if finished != 1 || running != 1 || c.Len() != 3 || !ok || r != 8 || c.State(1) == nil || c.State(1).Steps != 7 || c.State(2) != nil {
		t.Errorf("resumed: %d finished, %d running of %d, point 0 %v %v, states %v %v", finished, running, c.Len(), r, ok, c.State(1), c.State(2))
	}

	for _, tc := range []struct {
		name  string
		want  Checkpoint[Float, ckState]
		check func(*ckState) error
		err   string
	}{
		{"other arguments", ckWant("--n=4"), nil, "made for herd cube --n=3, not for this herd cube --n=4"},
		{"other version", func() Checkpoint[Float, ckState] { w := ckWant("--n=3"); w.Version = "2"; return w }(), nil, "written by herd 1, this is herd 2"},
		{"other format", func() Checkpoint[Float, ckState] { w := ckWant("--n=3"); w.Format = "test-checkpoint/2"; return w }(), nil,
			`not a herd cube checkpoint: format "test-checkpoint/1", want "test-checkpoint/2"`},
		{"state that does not fit", ckWant("--n=3"), func(*ckState) error { return errors.New("too many steps") }, "point x=1: too many steps"},
	} {
		if _, err := open(tc.want, tc.check); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.err)
		}
	}
	for _, tc := range []struct{ name, data, err string }{
		{"empty", "", "the file is empty"},
		{"both", `{"format":"test-checkpoint/1","version":"1","command":"cube","args":["--n=3"],"points":[{"id":"x=0","result":1,"state":{"Steps":1}}]}`, "holds both"},
		{"corrupt result", `{"format":"test-checkpoint/1","version":"1","command":"cube","args":["--n=3"],"points":[{"id":"x=0","result":-1}]}`, "point 0 (x=0): corrupt row"},
		{"unknown field", `{"format":"test-checkpoint/1","shards":2}`, "unknown field"},
	} {
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := open(ckWant("--n=3"), nil); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s file: got %v, want an error saying %q", tc.name, err, tc.err)
		}
	}
}

// A checkpoint that cannot be written fails when opened, and tells Warn
// once.
func TestCheckpointUnwritable(t *testing.T) {
	t.Parallel()
	warned := 0
	_, err := OpenCheckpoint(CheckpointSettings[Float, ckState]{Path: filepath.Join(t.TempDir(), "missing", "ck"), Want: ckWant(),
		Warn: func(error) { warned++ }})
	if err == nil || warned != 1 {
		t.Errorf("got %v with %d warnings, want an error and one warning", err, warned)
	}
}

// The shard index comes from the first variable of IndexEnv that is set;
// one out of range is an error naming it.
func TestIndexFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env    map[string]string
		i      int
		ok     bool
		errSub string
	}{
		{map[string]string{}, 0, false, ""},
		{map[string]string{"JOB_COMPLETION_INDEX": "2"}, 2, true, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "1", "JOB_COMPLETION_INDEX": "2"}, 1, true, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4"}, 0, false, `$SLURM_ARRAY_TASK_ID = "4": want a shard index in [0, 4)`},
	} {
		i, ok, err := IndexFromEnv(4, func(k string) string { return tc.env[k] })
		if i != tc.i || ok != tc.ok || (err == nil) != (tc.errSub == "") || (err != nil && !strings.Contains(err.Error(), tc.errSub)) {
			t.Errorf("%v: got %d, %v, %v; want %d, %v, %q", tc.env, i, ok, err, tc.i, tc.ok, tc.errSub)
		}
	}
}
