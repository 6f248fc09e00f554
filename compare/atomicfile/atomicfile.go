// Package atomicfile writes a file so that readers see either the old
// file or the whole new one, never a part: the data go to a temporary
// file in the same directory, synced to disk, which is then renamed over
// the path (a rename within one file system is atomic on POSIX systems).
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically, with mode 0644 (an output
// file, not os.CreateTemp's private 0600). On any error the temporary
// file is removed and path is left as it was.
func WriteFile(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the first error is kept
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	// On disk before the rename, so that a crash of the machine (not only
	// of herd) cannot leave path naming an empty file: a checkpoint of
	// hours must survive a power cut.
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
