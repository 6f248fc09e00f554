package main

import (
	"os"
	"syscall"
	"unsafe"
)

// fileIsTerminal asks the terminal driver (TCGETS): a character device
// such as /dev/null is not a terminal.
func fileIsTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
