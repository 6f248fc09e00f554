package main

import (
	"os"
	"runtime"
	"testing"
)

// A plain file is not a terminal, and /dev/null is a character device but
// not a terminal: progress stays off when stderr is redirected there
// (Linux asks the terminal driver).
func TestDevNullIsNotATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the terminal driver is asked on Linux only")
	}
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("isTerminal(/dev/null) = true")
	}
	g, err := os.Create(t.TempDir() + "/stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if isTerminal(g) {
		t.Error("isTerminal(a plain file) = true")
	}
}
