// Package snapshot keeps a node's table snapshots: Cassandra's nodetool
// snapshot, listsnapshots, clearsnapshot and import, and the automatic
// snapshot TRUNCATE and DROP take (auto_snapshot).
//
// # Layout
//
// A snapshot of a table lives in
//
//	<data_file_directory>/snapshots/<keyspace>/<table>-<table id, 32 hex>/<tag>/
//
// (Cassandra keeps it in <data_file_directory>/<keyspace>/<table>-<id>/
// snapshots/<tag>/; cqld's data directory is the storage engine's own, so
// the snapshots have a directory of their own beside it) and holds:
//
//   - data/: a checkpoint of the storage engine (storage.Pebble.Checkpoint),
//     a Pebble store whose sstables are hard links to the live ones when it
//     is taken. It holds the table's data and possibly other tables'
//     entries from the same sstables; only the table's are ever read.
//   - manifest.json: Cassandra's fields (files, created_at, expires_at,
//     ephemeral), times as ISO-8601 instants.
//   - schema.cql: the statements that recreate the table (CREATE TYPE IF
//     NOT EXISTS, CREATE TABLE IF NOT EXISTS ... WITH ID = ..., the dropped
//     columns, CREATE INDEX IF NOT EXISTS), as Cassandra writes it; not
//     written for system keyspaces.
//   - table.json: the table's definition as the node persists it, which
//     Import uses to map the snapshot's columns onto the target table's.
//
// A snapshot is built in a temporary directory beside its final one and
// renamed into place, so a crash leaves either no snapshot or a complete
// one (and a temporary directory, removed at the next start).
//
// # Restoring
//
// Import merges a snapshot into an existing table, which may be the same
// table, or a table recreated from schema.cql after a DROP (the same or
// another id, columns matched by name): the entries merge with the
// table's own by write timestamp, as Cassandra merges imported sstables,
// so importing restores deleted or overwritten data only where the
// snapshot's write is newer. The snapshot directory is left as it is
// (Cassandra's import --copy-data).
//
// # Sizes
//
// Size on disk is the size of every file of the snapshot. True size (per
// snapshot, as listsnapshots and system_views.snapshots show it) counts
// every file that is not a live sstable of the engine, so it includes the
// manifest, schema and the engine's own metadata; TrueSnapshotsSize
// (nodetool tablestats, listsnapshots' total) counts only sstables that
// are no longer live, as Cassandra's Directories.trueSnapshotsSize does.
package snapshot
