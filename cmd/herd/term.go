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
