package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile replaces a file whole, makes it readable by others, and
// leaves no temporary file behind, also when it fails.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Errorf("read back %q, %v; want %q", got, err, data)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", st.Mode().Perm(), err)
	}
	if err := WriteFile(filepath.Join(dir, "no such dir", "x"), []byte("x")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
	if err := WriteFile(dir, []byte("x")); err == nil { // a directory cannot be replaced by a file
		t.Error("writing over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only out.csv", names)
	}
}
