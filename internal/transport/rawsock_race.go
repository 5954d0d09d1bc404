//go:build linux && race

package transport

import "syscall"

// In race builds sockRead and sockWrite are the syscall package's Read and
// Write: those tell the race detector that what a goroutine did before
// writing to a socket happens before what another does after reading
// from it (tests hand their fakes state that way), which raw calls
// cannot. Race builds are slower anyway; the code around the calls is the
// same.
func sockRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return n, errnoOf(err)
}

func sockWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return n, errnoOf(err)
}

// errnoOf is err's errno: syscall.Read and Write return nil or one.
func errnoOf(err error) syscall.Errno {
	e, _ := err.(syscall.Errno)
	return e
}
