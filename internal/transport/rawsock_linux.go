package transport

import (
	"io"
	"net"
	"os"
	"sync"
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
	// locals made per call escapes through the RawConn interface, two
	// allocations per Read and three per Write. rdMu and wrMu guard rd and
	// wr, which are set outside the poller's own locks, so that a Read and
	// a Write at a time each use them, as net.Conn promises (the transport
	// has one reader and one writer per connection: never contended).
	rdMu, wrMu      sync.Mutex
	rd, wr          rawOp
	readFn, writeFn func(fd uintptr) bool
}

// rawOp is one Read or Write: its buffer, the bytes done, and the error
// that ended it.
type rawOp struct {
	p   []byte
	n   int
	err error
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
	return c.run(false, p)
}

func (c *rawSock) Write(p []byte) (int, error) { return c.run(true, p) }

// run makes one Read or Write through the poller, under that direction's
// lock and with its callback (write picks the method: a method value of
// c.rc would allocate).
func (c *rawSock) run(write bool, p []byte) (int, error) {
	mu, op := &c.rdMu, &c.rd
	if write {
		mu, op = &c.wrMu, &c.wr
	}
	mu.Lock()
	defer mu.Unlock()
	*op = rawOp{p: p}
	var err error
	if write {
		err = c.rc.Write(c.writeFn)
	} else {
		err = c.rc.Read(c.readFn)
	}
	done := *op
	*op = rawOp{}
	if err == nil {
		err = done.err
	}
	return done.n, err
}

// readOnce is Read's callback: false asks the poller to wait until the
// socket is readable and call it again.
func (c *rawSock) readOnce(fd uintptr) bool {
	rd := &c.rd
	for {
		r, e := sockRead(fd, rd.p)
		switch e {
		case 0:
			if r == 0 {
				rd.err = io.EOF
			}
			rd.n = r
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			rd.err = c.opError("read", e)
			return true
		}
	}
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
				w.err = io.ErrShortWrite // a socket never does this; do not spin
				return true
			}
			w.n += r
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			w.err = c.opError("write", e)
			return true
		}
	}
	return true
}

func (c *rawSock) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
}
