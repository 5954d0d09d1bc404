package storage

import (
	"context"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/google/uuid"
)

// Engine is the local storage of one node. Implementations are safe for
// concurrent use.
type Engine interface {
	// Apply applies each update atomically (all of a partition update or
	// none of it) and returns once the updates are durable according to the
	// engine's commit-log mode. The engine does not retain the updates or
	// their byte slices after Apply returns.
	Apply(ctx context.Context, t *schema.Table, updates ...*mutation.PartitionUpdate) error

	// Read executes cmd against table t and returns the reconciled, live
	// partitions in token order (rows in clustering order, or reversed when
	// cmd.Reversed). The returned slices are the caller's, but the bytes
	// of values, paths and clusterings are read-only: they may be the
	// engine's own (a Pebble partition cache hit returns its cached bytes,
	// which never change, without copying them).
	Read(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand) ([]mutation.Partition, error)

	// DropTable removes every row of the table with the given id and frees
	// the space (TRUNCATE and DROP TABLE).
	DropTable(ctx context.Context, id uuid.UUID) error

	// GetMeta returns the node-local metadata stored under key (schema,
	// host id, tokens) or nil, nil when absent.
	GetMeta(key string) ([]byte, error)
	// PutMeta durably stores node-local metadata.
	PutMeta(key string, value []byte) error

	// Flush writes memtables to disk.
	Flush() error
	// Close flushes and releases the engine. No method may be called after.
	Close() error
}
