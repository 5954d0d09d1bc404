package transport

import (
	"sync"
	"time"
)

// workerPool runs request handlers on long-lived goroutines.
//
// A request that reaches storage runs deep call chains (the query executor,
// Pebble's iterators); on a fresh goroutine its 8 KB starting stack is
// grown by copying two or three times per request, which cost ~15% of the
// server's CPU under a read-heavy load. Workers keep their grown stacks
// from one request to the next. Idle workers are kept in LIFO order (the
// most recently used, whose stack is warm, is reused first) and those idle
// for longer than workerIdleTimeout exit, so that a burst of concurrency
// does not pin its goroutines forever.
//
// The pool never limits concurrency: when no worker is idle, a new one is
// started (the per-connection semaphore is the limit).
type workerPool struct {
	// handle runs one job: (*conn).handleRequest, or a test's function.
	handle func(*conn, *request)
	// idleTimeout and reapEvery default to workerIdleTimeout and
	// workerReapEvery (tests shorten them).
	idleTimeout, reapEvery time.Duration

	mu      sync.Mutex
	idle    []*worker // oldest first
	workers int       // idle and busy
	stopped bool
	reaping bool
}

type worker struct {
	jobs     chan job
	lastUsed time.Time
}

// job is one request of one connection; a job without a connection stops
// the worker.
type job struct {
	c   *conn
	req *request
}

const (
	workerIdleTimeout = 10 * time.Second
	workerReapEvery   = 5 * time.Second
)

// run hands req to an idle worker or starts a new one.
func (p *workerPool) run(c *conn, req *request) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 && !p.stopped {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.jobs <- job{c: c, req: req}
		return
	}
	p.workers++
	startReaper := !p.reaping && !p.stopped
	if startReaper {
		p.reaping = true
	}
	p.mu.Unlock()
	if startReaper {
		go p.reap()
	}
	w := &worker{jobs: make(chan job, 1)}
	go p.work(w, job{c: c, req: req})
}

func (p *workerPool) work(w *worker, j job) {
	counted := true // still counted in p.workers
	defer func() {
		// Only reached early if a handler ended the goroutine
		// (runtime.Goexit; panics are recovered by handleRequest).
		if counted {
			p.mu.Lock()
			p.workers--
			p.mu.Unlock()
		}
	}()
	for {
		p.handle(j.c, j.req)
		j = job{}
		w.lastUsed = time.Now()
		p.mu.Lock()
		if p.stopped {
			p.workers--
			counted = false
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		if j = <-w.jobs; j.c == nil {
			counted = false // the reaper or stop counted it out
			return
		}
	}
}

// reap stops workers idle for longer than workerIdleTimeout; it exits once
// the pool is stopped or has no workers left (run restarts it then).
func (p *workerPool) reap() {
	idle, every := p.idleTimeout, p.reapEvery
	if idle <= 0 {
		idle = workerIdleTimeout
	}
	if every <= 0 {
		every = workerReapEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var expired []*worker
	for range t.C {
		cutoff := time.Now().Add(-idle)
		p.mu.Lock()
		if p.stopped {
			p.mu.Unlock()
			return
		}
		n := 0
		for n < len(p.idle) && p.idle[n].lastUsed.Before(cutoff) {
			n++
		}
		expired = append(expired[:0], p.idle[:n]...)
		rest := copy(p.idle, p.idle[n:])
		clear(p.idle[rest:])
		p.idle = p.idle[:rest]
		p.workers -= n
		done := p.workers == 0
		if done {
			p.reaping = false
		}
		p.mu.Unlock()
		for _, w := range expired {
			w.jobs <- job{}
		}
		clear(expired)
		if done {
			return
		}
	}
}

// stop makes idle workers exit, and busy ones once their request is done.
func (p *workerPool) stop() {
	p.mu.Lock()
	p.stopped = true
	idle := p.idle
	p.idle = nil
	p.workers -= len(idle)
	p.mu.Unlock()
	for _, w := range idle {
		w.jobs <- job{}
	}
}
