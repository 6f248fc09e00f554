package progress

import (
	"io"
	"os"
)

// IsTerminal reports whether w is a terminal: an *os.File the terminal
// driver answers for where the system has one (so /dev/null is not),
// else a character device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}
