package transport

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// tcpPair returns a raw-socket connection (the server's side, as Serve
// wraps it) and a plain TCP connection to it.
func tcpPair(t *testing.T) (raw net.Conn, peer *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peerc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	raw = fastConn(nc)
	if _, ok := raw.(*rawSock); !ok {
		t.Fatalf("fastConn(%T) = %T, want *rawSock", nc, raw)
	}
	t.Cleanup(func() { raw.Close(); peerc.Close() })
	return raw, peerc.(*net.TCPConn)
}

func TestRawSockLargeTransfers(t *testing.T) {
	raw, peer := tcpPair(t)
	// Far more than the socket buffers hold, so writes meet EAGAIN and
	// wait for the poller, and reads see the data in many pieces.
	want := make([]byte, 16<<20)
	for i := range want {
		want[i] = byte(rand.Uint32())
	}

	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(want))))
		got <- b
	}()
	if n, err := raw.Write(want); err != nil || n != len(want) {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(want))
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("peer read %d bytes, not what was written", len(b))
	}

	go func() {
		_, _ = peer.Write(want)
		_ = peer.CloseWrite()
	}()
	b, err := io.ReadAll(raw)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("read %d bytes, not what the peer wrote", len(b))
	}
	// After the peer's FIN, every read is io.EOF.
	if n, err := raw.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
	}
	if n, err := raw.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
}

// TestRawSockConcurrentWrites writes from several goroutines at once, as
// net.Conn allows: each Write arrives whole, none interleaved with another.
func TestRawSockConcurrentWrites(t *testing.T) {
	raw, peer := tcpPair(t)
	const writers, writes, size = 4, 16, 256 << 10 // larger than the socket buffers
	// Interleaved writes can also stall each other: fail instead of hanging.
	deadline := time.Now().Add(10 * time.Second)
	_ = raw.SetWriteDeadline(deadline)
	_ = peer.SetReadDeadline(deadline)
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, writers*writes*size))
		got <- b
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := bytes.Repeat([]byte{byte('a' + w)}, size)
			for range writes {
				if n, err := raw.Write(p); err != nil || n != size {
					t.Errorf("Write = %d, %v", n, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b := <-got
	if len(b) != writers*writes*size {
		t.Fatalf("peer read %d bytes, want %d", len(b), writers*writes*size)
	}
	for off := 0; off < len(b); off += size {
		if c := b[off : off+size]; !bytes.Equal(c, bytes.Repeat(c[:1], size)) {
			t.Fatalf("the write at %d is mixed with another", off)
		}
	}
}

func TestRawSockDeadlineAndClose(t *testing.T) {
	raw, _ := tcpPair(t)
	if err := raw.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	_, err := raw.Read(make([]byte, 10))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past the deadline = %v; want a timeout", err)
	}

	// Close wakes a blocked reader (forceClose, Server.Close).
	if err := raw.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := raw.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	raw.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read when closed = %v; want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake the reader")
	}
	if _, err := raw.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write when closed = %v; want net.ErrClosed", err)
	}
}

func TestRawSockPeerReset(t *testing.T) {
	raw, peer := tcpPair(t)
	_ = peer.SetLinger(0) // close with RST
	peer.Close()
	// The first write may still be accepted; a later one fails with the
	// reset (ECONNRESET or EPIPE), as a net.OpError.
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = raw.Write(make([]byte, 1024))
		time.Sleep(time.Millisecond)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "write" {
		t.Fatalf("Write to a reset connection = %v; want a write *net.OpError", err)
	}
	if _, err := raw.Read(make([]byte, 10)); err == nil {
		t.Fatal("Read of a reset connection succeeded")
	}
}

func TestFastConnLeavesOtherConns(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := fastConn(a); c != a {
		t.Fatalf("fastConn(net.Pipe) = %T, want it unchanged", c)
	}
}

// A read and a write allocate nothing: the poller's callbacks are bound
// once per connection, not made per call (a closure over locals escapes
// through syscall.RawConn).
func TestRawSockNoAllocs(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's instrumentation allocates")
	}
	raw, peer := tcpPair(t)
	out, in := []byte("x"), make([]byte, 1)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := raw.Write(out); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(peer, in); err != nil {
			t.Fatal(err)
		}
		if _, err := peer.Write(out); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Read(in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("a write and a read through rawSock allocate %.1f times, want 0", allocs)
	}
}
