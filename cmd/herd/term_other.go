//go:build !linux

package main

import "os"

// fileIsTerminal is true for a character device: without Linux's TCGETS
// this also counts /dev/null, where a progress line is harmless.
func fileIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
