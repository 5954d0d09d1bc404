package query

import (
	"context"
	"errors"
	"strconv"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage/snapshot"
)

// Auto-snapshot prefixes (ColumnFamilyStore.SNAPSHOT_TRUNCATE_PREFIX and
// SNAPSHOT_DROP_PREFIX).
const (
	truncatedPrefix = "truncated"
	droppedPrefix   = "dropped"
)

// autoSnapshot takes the snapshot Cassandra takes of a table before
// TRUNCATE or a DROP discards its data, when auto_snapshot and the table's
// allow_auto_snapshot are both set: named
// <prefix>-<milliseconds>-<table>, living auto_snapshot_ttl. ks is the
// table's keyspace (nil: the current schema's).
func (e *Executor) autoSnapshot(ctx context.Context, prefix string, ks *schema.Keyspace, t *schema.Table) error {
	if !e.cfg.AutoSnapshot || !t.Params.AllowAutoSnapshot {
		return nil
	}
	if ks == nil {
		if ks = e.cfg.Schema.Current().Keyspace(t.Keyspace); ks == nil {
			ks = &schema.Keyspace{Name: t.Keyspace}
		}
	}
	// Two in the same millisecond (Cassandra would put both in one
	// directory): the second takes the next free millisecond.
	ms := e.now().UnixMilli()
	for {
		tag := prefix + "-" + strconv.FormatInt(ms, 10) + "-" + t.Name
		err := e.cfg.Coordinator.Snapshot(ctx, tag, ks, t, e.cfg.AutoSnapshotTTL)
		if exists := (*snapshot.ExistsError)(nil); !errors.As(err, &exists) {
			return err
		}
		ms++
	}
}

// dropData discards the data of a dropped table or view (and of its
// indexes and views) after its auto-snapshot. When the snapshot fails, the
// data is kept (unreachable, but not lost) and the failure logged: the
// schema change is already done.
func (e *Executor) dropData(ctx context.Context, ks *schema.Keyspace, t *schema.Table) {
	if err := e.autoSnapshot(ctx, droppedPrefix, ks, t); err != nil {
		e.cfg.Logger.Error("snapshot of a dropped table failed: its data is kept", "keyspace", t.Keyspace, "table", t.Name, "err", err)
		return
	}
	if err := e.truncate(ctx, t); err != nil {
		e.cfg.Logger.Warn("dropping data of dropped table", "keyspace", t.Keyspace, "table", t.Name, "err", err)
	}
}
