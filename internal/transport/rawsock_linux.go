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
	// rd and wr are the state of the Read and of the Write in progress,
	// and readFn and writeFn their callbacks, bound once: a closure over
	// locals made per call escapes through the RawConn interface, three
	// or four allocations per system call. So a rawSock takes at most one
	// Read and one Write at a time, which is how the transport uses a
	// connection (its reader goroutine and its writer goroutine).
	rd, wr          rawOp
	readFn, writeFn func(fd uintptr) bool
}

// rawOp is one Read or Write: its buffer, the bytes done, and the errno
// that ended it (short: write(2) returned 0).
type rawOp struct {
	p     []byte
	n     int
	errno syscall.Errno
	short bool
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
	c := &rawSock{Conn: nc, rc: rc}
	c.readFn, c.writeFn = c.readOnce, c.writeOnce
	return c
}

func (c *rawSock) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rd = rawOp{p: p}
	err := c.rc.Read(c.readFn)
	op := c.rd
	c.rd = rawOp{}
	switch {
	case err != nil:
		return 0, err
	case op.errno != 0:
		return 0, c.opError("read", op.errno)
	case op.n == 0:
		return 0, io.EOF
	}
	return op.n, nil
}

// readOnce is Read's callback: false asks the poller to wait until the
// socket is readable and call it again.
func (c *rawSock) readOnce(fd uintptr) bool {
	for {
		r, e := sockRead(fd, c.rd.p)
		switch e {
		case 0:
			c.rd.n = r
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			c.rd.errno = e
			return true
		}
	}
}

func (c *rawSock) Write(p []byte) (int, error) {
	c.wr = rawOp{p: p}
	err := c.rc.Write(c.writeFn)
	op := c.wr
	c.wr = rawOp{}
	switch {
	case err != nil:
		return op.n, err
	case op.errno != 0:
		return op.n, c.opError("write", op.errno)
	case op.short:
		return op.n, io.ErrShortWrite
	}
	return op.n, nil
}

// writeOnce is Write's callback: it writes what is left, and returns false
// to wait until the socket is writable when the kernel takes no more.
func (c *rawSock) writeOnce(fd uintptr) bool {
	w := &c.wr
	for w.n < len(w.p) {
		r, e := sockWrite(fd, w.p[w.n:])
		switch e {
		case 0:
			if r == 0 {
				w.short = true // a socket never does this; do not spin
				return true
			}
			w.n += r
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			w.errno = e
			return true
		}
	}
	return true
}

func (c *rawSock) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
}
