package cluster

import (
	"context"
	"errors"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/storage/snapshot"
	"github.com/cqld/cqld/internal/tracing"
)

// Local is the coordinator of a single-node cluster: every command goes to
// the local engine, and every consistency level is satisfied by this one
// replica except those that need more live replicas than a keyspace's
// replication can offer on one node (see checkAvailable).
type Local struct {
	engine    storage.Engine
	snapshots *snapshot.Manager
	schema    *schema.Manager
	dc        string
	// stripes are the partition locks of LockPartitions: a buffered
	// channel of capacity one per stripe, so that waiting can be cancelled.
	stripes [lockStripes]chan struct{}
	// timers are the coordinator's latencies per table id
	// ([16]byte -> *Timers).
	timers sync.Map
}

// Timers are the coordinator-side latencies of one table's single
// partition reads, range reads and writes (Cassandra's
// coordinatorReadLatency, coordinatorScanLatency and
// coordinatorWriteLatency): the time the coordinator waits for its
// replicas (on one node, the local engine). One command in eight is
// timed; counts are exact.
type Timers struct {
	Read, Scan, Write storage.Timer
}

func (l *Local) tableTimers(id [16]byte) *Timers {
	if v, ok := l.timers.Load(id); ok {
		return v.(*Timers)
	}
	v, _ := l.timers.LoadOrStore(id, new(Timers))
	return v.(*Timers)
}

// TableTimers returns the coordinator latencies of the table with the
// given id, or nil when it had no command.
func (l *Local) TableTimers(id [16]byte) *Timers {
	if v, ok := l.timers.Load(id); ok {
		return v.(*Timers)
	}
	return nil
}

var _ query.Coordinator = (*Local)(nil)

// NewLocal returns the coordinator of a node of datacenter dc over engine,
// taking snapshots with snapshots; sm gives the keyspaces' replication.
func NewLocal(engine storage.Engine, snapshots *snapshot.Manager, sm *schema.Manager, dc string) *Local {
	l := &Local{engine: engine, snapshots: snapshots, schema: sm, dc: dc}
	for i := range l.stripes {
		l.stripes[i] = make(chan struct{}, 1)
	}
	return l
}

// Mutate implements query.Coordinator.
func (l *Local) Mutate(ctx context.Context, t *schema.Table, cl query.Consistency, updates []*mutation.PartitionUpdate) error {
	if cl == query.Serial || cl == query.LocalSerial {
		return cqlerr.Invalidf("You must use conditional updates for serializable writes")
	}
	tracing.Trace(ctx, tracing.RequestThread, "Determining replicas for mutation")
	if err := l.checkAvailable(t, cl, false); err != nil {
		return err
	}
	var start time.Time
	tm := &l.tableTimers(t.ID).Write
	if cl != query.NodeLocal { // cqld's own writes are not the clients'
		start = tm.StartSampled()
	}
	err := l.engine.Apply(ctx, t, updates...)
	tm.StopSampled(start)
	if err != nil {
		if ce, ok := err.(*cqlerr.Error); ok {
			return ce
		}
		return &cqlerr.Error{Code: cqlerr.WriteFailure, Message: "Operation failed - received 0 responses and 1 failures: " + err.Error(),
			Consistency: uint16(cl), Received: 0, BlockFor: 1, WriteType: "SIMPLE"}
	}
	return nil
}

// Read implements query.Coordinator.
func (l *Local) Read(ctx context.Context, t *schema.Table, cl query.Consistency, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	if cl == query.Any {
		return nil, cqlerr.Invalidf("ANY ConsistencyLevel is only supported for writes")
	}
	if (cl == query.Serial || cl == query.LocalSerial) && cmd.Key != nil {
		// A Paxos read (and an LWT's): the participants, then the
		// read of the current value at (LOCAL_)QUORUM.
		if err := l.checkPaxos(t, cl); err != nil {
			return nil, err
		}
	} else if err := l.checkAvailable(t, cl, true); err != nil {
		return nil, err
	}
	if cmd.Key == nil && tracing.FromContext(ctx) != nil {
		// One node owns the whole ring, and cqld reads a token range in
		// one request: Cassandra would count the vnode pieces of the
		// range and estimate rows per range, as a plain scan's text
		// does; this is its shorter form.
		tracing.Trace(ctx, tracing.RequestThread, "Computing ranges to query")
		tracing.Trace(ctx, tracing.RequestThread, "Submitting range requests on 1 ranges with a concurrency of 1")
		tracing.Trace(ctx, tracing.RequestThread, "Submitted 1 concurrent range requests")
	}
	tt := l.tableTimers(t.ID)
	tm := &tt.Read
	if cmd.Key == nil {
		tm = &tt.Scan
	}
	var start time.Time
	if !cmd.Unmetered && cl != query.NodeLocal {
		start = tm.StartSampled()
	}
	parts, err := l.engine.Read(ctx, t, cmd)
	tm.StopSampled(start)
	if err != nil {
		if ce, ok := err.(*cqlerr.Error); ok {
			return nil, ce
		}
		return nil, &cqlerr.Error{Code: cqlerr.ReadFailure, Message: "Operation failed - received 0 responses and 1 failures: " + err.Error(),
			Consistency: uint16(cl), Received: 0, BlockFor: 1}
	}
	return parts, nil
}

// CheckWrite implements query.Coordinator.
func (l *Local) CheckWrite(t *schema.Table, cl query.Consistency) error {
	return l.checkAvailable(t, cl, false)
}

// Truncate implements query.Coordinator.
func (l *Local) Truncate(ctx context.Context, t *schema.Table) error {
	return l.engine.DropTable(ctx, t.ID)
}

// Snapshot implements query.Coordinator.
func (l *Local) Snapshot(ctx context.Context, tag string, ks *schema.Keyspace, t *schema.Table, ttl time.Duration, skipFlush bool) error {
	err := l.snapshots.Take(ctx, snapshot.Request{Tag: tag, Tables: []snapshot.Table{{Keyspace: ks, Table: t}}, TTL: ttl, SkipFlush: skipFlush})
	if exists := (*snapshot.ExistsError)(nil); errors.As(err, &exists) {
		return query.ErrSnapshotExists
	}
	return err
}

// lockStripes is the number of partition lock stripes: partitions hash onto
// stripes, so unrelated partitions may share a lock (never a correctness
// problem, only contention).
const lockStripes = 1024

// LockPartitions implements query.Coordinator. Stripes are acquired in
// ascending index order, which rules out deadlocks between callers.
func (l *Local) LockPartitions(ctx context.Context, parts []query.PartitionRef) (func(), error) {
	idx := make([]int, 0, len(parts))
	for _, p := range parts {
		h := fnv.New64a()
		h.Write(p.TableID[:])
		h.Write(p.Key)
		idx = append(idx, int(h.Sum64()%lockStripes))
	}
	sort.Ints(idx)
	uniq := idx[:0]
	for i, v := range idx {
		if i == 0 || v != idx[i-1] {
			uniq = append(uniq, v)
		}
	}
	held := make([]int, 0, len(uniq))
	unlock := func() {
		for i := len(held) - 1; i >= 0; i-- {
			<-l.stripes[held[i]]
		}
	}
	for _, s := range uniq {
		select {
		case l.stripes[s] <- struct{}{}:
			held = append(held, s)
		case <-ctx.Done():
			unlock()
			return nil, &cqlerr.Error{Code: cqlerr.WriteTimeout, Message: "Operation timed out - received only 0 responses.",
				Consistency: uint16(query.Serial), Received: 0, BlockFor: 1, WriteType: "CAS"}
		}
	}
	return unlock, nil
}
