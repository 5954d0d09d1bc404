package query

import (
	"context"
	"errors"
	"strconv"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
)

// Auto-snapshot prefixes (ColumnFamilyStore.SNAPSHOT_TRUNCATE_PREFIX and
// SNAPSHOT_DROP_PREFIX).
const (
	truncatedPrefix = "truncated"
	droppedPrefix   = "dropped"
)

// autoSnapshot takes the snapshot Cassandra takes of a table before
// TRUNCATE discards its data, when auto_snapshot and the table's
// allow_auto_snapshot are both set. ks is the table's keyspace.
func (e *Executor) autoSnapshot(ctx context.Context, prefix string, ks *schema.Keyspace, t *schema.Table) error {
	if !t.AutoSnapshot(e.cfg.AutoSnapshot) {
		return nil
	}
	return e.snapshot(ctx, prefix, ks, t, false)
}

// snapshot takes a table's automatic snapshot, named
// <prefix>-<milliseconds>-<table>, living auto_snapshot_ttl; skipFlush
// when an earlier snapshot of the same statement flushed.
func (e *Executor) snapshot(ctx context.Context, prefix string, ks *schema.Keyspace, t *schema.Table, skipFlush bool) error {
	// Two in the same millisecond (Cassandra would put both in one
	// directory): the second takes the next free millisecond.
	ms := e.now().UnixMilli()
	for {
		tag := prefix + "-" + strconv.FormatInt(ms, 10) + "-" + t.Name
		err := e.cfg.Coordinator.Snapshot(ctx, tag, ks, t, e.cfg.AutoSnapshotTTL, skipFlush)
		if !errors.Is(err, ErrSnapshotExists) {
			return err
		}
		ms++
	}
}

// keyspaceOrEmpty returns keyspace name of s, or an empty one of that
// name (a snapshot then records no user types).
func keyspaceOrEmpty(s *schema.Schema, name string) *schema.Keyspace {
	if ks := s.Keyspace(name); ks != nil {
		return ks
	}
	return &schema.Keyspace{Name: name}
}

// removeDropped removes the data of dropped tables and views, with their
// indexes, after their snapshot (Removal.Snapshot), or of dropped
// indexes, then records in one write the removals done (see
// schema.Removal). It runs to the end even if the request is cancelled:
// the schema change is done. When a snapshot fails, the table's data is
// kept (unreachable, but not lost; the removal is tried again at the next
// start) and the first such error is the client's, as Cassandra's DROP
// reports a failed snapshot; a failed removal is tried again at the next
// start too. Views are not looked up by name: DROP TABLE is refused while
// a table has views, and DROP KEYSPACE drops each of them itself.
func (e *Executor) removeDropped(ctx context.Context, rs ...schema.Removal) error {
	ctx = context.WithoutCancel(ctx)
	var done []schema.Removal
	var clientErr error
	flushed := false // one flush serves every table's snapshot
	for _, r := range rs {
		t := r.Table
		if r.Index != nil {
			if err := e.cfg.Coordinator.Truncate(ctx, r.Index.Table(t)); err != nil {
				e.cfg.Logger.Warn("dropping data of dropped index", "keyspace", t.Keyspace, "index", r.Index.Name, "err", err)
				continue
			}
		} else {
			if r.Snapshot {
				err := e.snapshot(ctx, droppedPrefix, r.Keyspace, t, flushed)
				flushed = flushed || err == nil
				if err != nil {
					e.cfg.Logger.Error("snapshot of a dropped table failed: its data is kept until the next start", "keyspace", t.Keyspace, "table", t.Name, "err", err)
					if clientErr == nil {
						clientErr = cqlerr.Serverf("Failed to snapshot %s.%s before dropping its data, which is kept: %v", t.Keyspace, t.Name, err)
					}
					continue
				}
			}
			if err := e.truncateTable(ctx, t); err != nil {
				e.cfg.Logger.Warn("dropping data of dropped table", "keyspace", t.Keyspace, "table", t.Name, "err", err)
				continue
			}
		}
		done = append(done, r)
	}
	if err := e.cfg.Schema.Removed(done...); err != nil {
		e.cfg.Logger.Warn("recording dropped data removed", "removals", len(done), "err", err)
	}
	return clientErr
}

// RemoveDropped finishes the removals of dropped data that a stop
// interrupted (the node calls it at start, before serving) and returns how
// many it did.
func (e *Executor) RemoveDropped(ctx context.Context) (int, error) {
	rs := e.cfg.Schema.PendingRemovals()
	err := e.removeDropped(ctx, rs...)
	return len(rs) - len(e.cfg.Schema.PendingRemovals()), err
}
