package query

import (
	"context"
	"errors"
	"time"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
)

// Consistency is a native protocol consistency level code.
type Consistency uint16

// Consistency levels.
const (
	Any         Consistency = 0x0000
	One         Consistency = 0x0001
	Two         Consistency = 0x0002
	Three       Consistency = 0x0003
	Quorum      Consistency = 0x0004
	All         Consistency = 0x0005
	LocalQuorum Consistency = 0x0006
	EachQuorum  Consistency = 0x0007
	Serial      Consistency = 0x0008
	LocalSerial Consistency = 0x0009
	LocalOne    Consistency = 0x000A
	// NodeLocal is NODE_LOCAL: this node's copy alone, whatever the
	// keyspace's replication. cqld's own reads and writes use it (reads
	// before writes, index and view builds), as Cassandra runs them on
	// the replica without a consistency level.
	NodeLocal Consistency = 0x000B
)

// Coordinator executes replica-level commands at a consistency level. On one
// node it applies them to the local engine; on many it replicates them.
//
// Mutate and Read first check that enough replicas of t's keyspace are
// alive for cl, and fail with an Unavailable error otherwise, before
// touching any data (Cassandra's assureSufficientLiveReplicas). A Read at
// SERIAL or LOCAL_SERIAL of one partition is a Paxos read: the keyspace
// needs a live replica, then a QUORUM (LOCAL_QUORUM) of them.
type Coordinator interface {
	// Mutate applies the updates, which all belong to table t, and returns
	// once enough replicas acknowledged them for cl.
	Mutate(ctx context.Context, t *schema.Table, cl Consistency, updates []*mutation.PartitionUpdate) error
	// Read executes cmd at cl and returns reconciled live partitions.
	Read(ctx context.Context, t *schema.Table, cl Consistency, cmd *mutation.ReadCommand) ([]mutation.Partition, error)
	// CheckWrite returns the error Mutate would fail with, before writing,
	// for a write of t at cl: a batch checks each of its tables before
	// writing the first, as Cassandra's logged batches do.
	CheckWrite(t *schema.Table, cl Consistency) error
	// Truncate removes all data of t on every replica.
	Truncate(ctx context.Context, t *schema.Table) error
	// Snapshot takes a snapshot named tag of t's data on every replica,
	// which lives ttl (0: until cleared), flushing memtables first unless
	// skipFlush (a flush that served an earlier snapshot of the same
	// request). ks is t's keyspace, whose user types the snapshot's schema
	// records. It fails with an error that is ErrSnapshotExists when the
	// tag is taken.
	Snapshot(ctx context.Context, tag string, ks *schema.Keyspace, t *schema.Table, ttl time.Duration, skipFlush bool) error
	// LockPartitions blocks until the caller holds the exclusive lock of
	// every listed partition, and returns the function that releases them
	// (call it exactly once). Reads and mutations made while holding the
	// locks are linearizable with respect to every other holder: it is what
	// counter updates, list index operations and lightweight transactions
	// use for their read-modify-write (the role of Paxos and the counter
	// lock in Cassandra). Locks are taken in a fixed order, so callers may
	// pass partitions in any order without deadlocking; it fails only when
	// ctx is done first.
	LockPartitions(ctx context.Context, parts []PartitionRef) (unlock func(), err error)
}

// ErrSnapshotExists is Coordinator.Snapshot's error for a tag already
// taken.
var ErrSnapshotExists = errors.New("snapshot already exists")

// PartitionRef names one partition of a table.
type PartitionRef struct {
	TableID [16]byte
	Key     []byte // serialized partition key
}

// Partitioner computes the token of a serialized partition key (Murmur3).
type Partitioner interface {
	Token(key []byte) int64
}

// LocalInfo is what the system tables report about this node and its peers.
type LocalInfo struct {
	ClusterName    string
	HostID         [16]byte
	DataCenter     string
	Rack           string
	ListenAddress  []byte // 4 or 16 bytes
	RPCAddress     []byte
	NativePort     int
	ListenPort     int
	ReleaseVersion string
	Tokens         []int64
	// GossipGeneration is the node's start time in seconds.
	GossipGeneration int32
}

// NodeInfo supplies LocalInfo (the node composes it; it may change, e.g.
// when tokens are assigned).
type NodeInfo interface {
	Local() LocalInfo
}
