package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"herd/cmd/internal/table"
)

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	var n, unlock uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// On one terminal a table's warnings are shown once, in the table; when
// stderr goes elsewhere, or the format (CSV) cannot carry them, they go to
// stderr too.
func TestWarningsOncePerScreen(t *testing.T) {
	master, tty := openPTY(t)
	_, other := openPTY(t)
	file, err := os.Create(t.TempDir() + "/stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if !sameTerminal(tty, tty) || sameTerminal(tty, other) || sameTerminal(tty, file) || sameTerminal(file, file) {
		t.Fatalf("sameTerminal: tty/tty %v, tty/other %v, tty/file %v, file/file %v; want true, false, false, false",
			sameTerminal(tty, tty), sameTerminal(tty, other), sameTerminal(tty, file), sameTerminal(file, file))
	}
	tab := func() *table.Table {
		return &table.Table{Title: "t", Columns: []table.Column{{Name: "x"}}, Rows: [][]any{{1}}, Warnings: []string{"w-once"}}
	}
	for _, format := range []string{"text", "json"} {
		e := &env{stdout: tty, stderr: tty}
		if err := writeTable(context.Background(), e, tab(), format, nil); err != nil {
			t.Fatal(err)
		}
	}
	// What the terminal showed: the warning once per table.
	var screen bytes.Buffer
	buf := make([]byte, 4096)
	master.SetReadDeadline(time.Now().Add(2 * time.Second))
	for !strings.Contains(screen.String(), `"warnings"`) || !strings.Contains(screen.String(), "]\r\n}") {
		n, err := master.Read(buf)
		screen.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if got := strings.Count(screen.String(), "w-once"); got != 2 {
		t.Errorf("a text and a JSON table on one terminal showed the warning %d times, want 2:\n%s", got, screen.String())
	}
	for _, format := range []string{"text", "json", "csv"} {
		var out bytes.Buffer
		e := &env{stdout: &out, stderr: file}
		if err := writeTable(context.Background(), e, tab(), format, nil); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(file.Name()); strings.Count(string(b), "warning: w-once") != 3 {
		t.Errorf("stderr to a file: %q, want the warning once per table", b)
	}
}
