//go:build linux && !race

package transport

import (
	"syscall"
	"unsafe"
)

// sockRead and sockWrite are read(2) and write(2) of a socket without the
// runtime's syscall state (rawSock); p is not empty.
func sockRead(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

func sockWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}
