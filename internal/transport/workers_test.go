package transport

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWorkerPool(t *testing.T) {
	var ran atomic.Int64
	var wg sync.WaitGroup
	release := make(chan struct{})
	p := &workerPool{handle: func(*conn, *request) {
		<-release
		ran.Add(1)
		wg.Done()
	}, idleTimeout: 20 * time.Millisecond, reapEvery: 10 * time.Millisecond}
	workers := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.workers
	}
	// Concurrent jobs get their own workers.
	wg.Add(8)
	for i := 0; i < 8; i++ {
		p.run(&conn{}, &request{})
	}
	if n := workers(); n != 8 {
		t.Fatalf("workers = %d, want 8", n)
	}
	close(release)
	wg.Wait()
	// Sequential jobs reuse an idle worker.
	for i := 0; i < 100; i++ {
		wg.Add(1)
		p.run(&conn{}, &request{})
		wg.Wait()
	}
	if n := workers(); n > 8 {
		t.Fatalf("workers = %d after sequential jobs", n)
	}
	if ran.Load() != 108 {
		t.Fatalf("ran %d jobs", ran.Load())
	}
	// Idle workers are reaped, and the reaper then exits.
	deadline := time.Now().Add(5 * time.Second)
	for workers() != 0 || func() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.reaping }() {
		if time.Now().After(deadline) {
			t.Fatalf("workers = %d after idling", workers())
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The pool works again afterwards, and stop ends it.
	wg.Add(1)
	p.run(&conn{}, &request{})
	wg.Wait()
	p.stop()
	deadline = time.Now().Add(5 * time.Second)
	for workers() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("workers = %d after stop", workers())
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Add(1)
	p.run(&conn{}, &request{}) // after stop: runs, then the worker exits
	wg.Wait()
}
