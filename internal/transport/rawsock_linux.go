package transport

import (
	"io"
	"net"
	"os"
	"syscall"
)

// rawSock is a TCP connection whose reads and writes are raw system calls
// (syscall.RawSyscall) on its non-blocking socket, made through the
// connection's syscall.RawConn so that Go's poller still waits for
// readiness and deadlines still apply.
//
// Why: net.Conn's Read and Write enter the runtime's syscall state
// (entersyscall), and entering it wakes the runtime's sysmon thread
// whenever sysmon has gone to sleep because every processor was idle.
// A server at moderate load goes idle between bursts all the time, so
// nearly every burst paid a futex wake-up of sysmon, which then polled
// every 20 µs for a millisecond before sleeping again: 7–10% of cqld's
// CPU at 30,000 YCSB-C reads/s (perf, docs/benchmarks.md). A read or
// write of a non-blocking socket never blocks, so it needs none of what
// the syscall state is for (handing the processor to another thread
// while the call blocks). The thread can still sleep briefly inside one
// (the socket's lock, memory for socket buffers), holding its processor
// meanwhile; that is the price.
type rawSock struct {
	net.Conn
	rc syscall.RawConn
}

// fastConn returns nc with raw reads and writes when it is a TCP
// connection, and nc itself otherwise.
func fastConn(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawSock{Conn: nc, rc: rc}
}

func (c *rawSock) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var (
		n     int
		errno syscall.Errno
	)
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, e := sockRead(fd, p)
			switch e {
			case 0:
				n = r
				return true
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable, then try again
			default:
				errno = e
				return true
			}
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawSock) Write(p []byte) (int, error) {
	var (
		n     int
		errno syscall.Errno
		short bool
	)
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			r, e := sockWrite(fd, p[n:])
			switch e {
			case 0:
				if r == 0 {
					short = true // a socket never does this; do not spin
					return true
				}
				n += r
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable, then go on
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, c.opError("write", errno)
	case short:
		return n, io.ErrShortWrite
	}
	return n, nil
}

func (c *rawSock) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
}
