package storage

import (
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// openGate is Pebble's compaction scheduler with one difference from its
// default (pebble.ConcurrencyLimitScheduler): it grants nothing until
// Open has returned.
//
// pebble.Open flushes the memtable it replayed from the WAL (empty after a
// clean shutdown); the flush's completion schedules a compaction when L0
// is over its threshold, which is the usual state after a write-heavy run,
// and Open then waits for that compaction to finish before it returns
// (scanObsoleteFiles). That made a restart take 250-400 ms instead of
// ~20 ms on the YCSB benchmark's data (docs/benchmarks.md). Deferring the
// compaction until Open has returned changes nothing else: it runs in the
// background as any other.
type openGate struct {
	db pebble.DBForCompaction

	mu           sync.Mutex
	open         bool
	unregistered bool
	running      int

	// grantMu serializes grant, which calls into the DB without mu held
	// (the DB's mutexes are ordered before the scheduler's).
	grantMu  sync.Mutex
	poke     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

var _ pebble.CompactionScheduler = (*openGate)(nil)

func newOpenGate() *openGate {
	return &openGate{poke: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// opened lets compactions run (called once pebble.Open has returned).
func (g *openGate) opened() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
	g.UpdateGetAllowedWithoutPermission()
}

// Register implements pebble.CompactionScheduler.
func (g *openGate) Register(_ int, db pebble.DBForCompaction) {
	g.db = db
	go g.periodic()
}

// failed stops the gate after a failed pebble.Open (which does not
// unregister a scheduler it registered); it granted nothing.
func (g *openGate) failed() {
	if g.db != nil {
		g.stopPeriodic()
	}
}

func (g *openGate) stopPeriodic() {
	g.stopOnce.Do(func() { close(g.stop) })
	<-g.done
}

// Unregister implements pebble.CompactionScheduler.
func (g *openGate) Unregister() {
	g.stopPeriodic()
	g.mu.Lock()
	g.unregistered = true
	g.mu.Unlock()
	// Wait for a grant in progress (from Done) to finish.
	g.grantMu.Lock()
	g.grantMu.Unlock() //nolint:staticcheck // an empty critical section is the wait
}

// TrySchedule implements pebble.CompactionScheduler.
func (g *openGate) TrySchedule() (bool, pebble.CompactionGrantHandle) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open || g.unregistered || g.db.GetAllowedWithoutPermission() <= g.running {
		return false, nil
	}
	g.running++
	return true, g
}

// UpdateGetAllowedWithoutPermission implements pebble.CompactionScheduler.
func (g *openGate) UpdateGetAllowedWithoutPermission() {
	select {
	case g.poke <- struct{}{}:
	default:
	}
}

// Started, MeasureCPU and CumulativeStats implement
// pebble.CompactionGrantHandle.
func (g *openGate) Started()                                          {}
func (g *openGate) MeasureCPU(pebble.CompactionGoroutineKind)         {}
func (g *openGate) CumulativeStats(pebble.CompactionGrantHandleStats) {}

// Done implements pebble.CompactionGrantHandle: a compaction finished.
func (g *openGate) Done() {
	g.mu.Lock()
	g.running--
	g.mu.Unlock()
	g.grant()
}

// periodic grants waiting compactions every 100 ms and when poked (as
// Pebble's scheduler does: the DB stops asking once a picked compaction is
// waiting, and flushes are not visible to the scheduler).
func (g *openGate) periodic() {
	defer close(g.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		case <-g.poke:
		}
		g.grant()
	}
}

// grant starts waiting compactions while the DB allows more.
func (g *openGate) grant() {
	g.grantMu.Lock()
	defer g.grantMu.Unlock()
	for {
		g.mu.Lock()
		ok := g.open && !g.unregistered && g.db.GetAllowedWithoutPermission() > g.running
		g.mu.Unlock()
		if !ok {
			return
		}
		if waiting, _ := g.db.GetWaitingCompaction(); !waiting {
			return
		}
		g.mu.Lock()
		g.running++
		g.mu.Unlock()
		if !g.db.Schedule(g) {
			g.mu.Lock()
			g.running--
			g.mu.Unlock()
			return
		}
	}
}
