package main

import (
	"io"
	"os"
)

// isTerminal reports whether w is a terminal: an *os.File the terminal
// driver answers for where the system has one (so /dev/null is not),
// else a character device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}

// sameTerminal reports whether a and b are one terminal (the same device),
// as stdout and stderr are on a screen nobody redirected.
func sameTerminal(a, b io.Writer) bool {
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok1 || !ok2 || !fileIsTerminal(fa) || !fileIsTerminal(fb) {
		return false
	}
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
