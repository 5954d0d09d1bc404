// Package storage is the local storage engine of a node: the Engine
// interface, its key layout, the Pebble-backed engine (the only importer of
// Pebble) and an in-memory reference engine for differential tests.
//
// # Semantics (Cassandra's)
//
// Writes are blind: Apply never reads. Every stored entry (cell, row
// marker, row deletion, partition deletion, range tombstone) is written with
// a Pebble Merge, and the merge operator "cqld.cell.v1" keeps one winner per
// key: last-write-wins by write timestamp (mutation.Reconcile: on a tie a
// tombstone wins, then the larger value), markers by
// mutation.ReconcileLiveness, deletions by Deletion.Supersedes. The
// operator never deletes (Pebble's DeletableValueMerger is unsafe, see
// shared/FACTS.md).
//
// Deletions are applied while reading, never while writing: a partition
// deletion, the range tombstones covering a row and the row deletion shadow
// every cell and marker whose timestamp is at or before theirs; a tombstone
// without a path on a non-frozen collection column shadows that column's
// older elements (Cassandra's complex deletion). Cells whose TTL has
// expired at the command's NowSec read as absent.
//
// Reads return only live data: a row is returned when its marker (written
// by INSERT) is live or it has a live cell, so a row written by UPDATE
// disappears with its last cell; the static row is returned when it has a
// live cell; a partition is returned when it has a live static row or a
// live selected row. Returned rows carry Deletion == mutation.Live and only
// live cells, sorted by (column id, element path in the element type's
// order); the query layer assembles collections.
//
// Limits follow Cassandra's CQL counting: RowLimit counts rows over all
// partitions, a partition returned with only its static row counts as one
// row, and with StaticOnly (SELECT DISTINCT) every partition counts as one.
// Range reads cover (StartToken, EndToken] in ring order (EndToken ==
// math.MinInt64: to the end of the ring; a start at or after the end
// wraps); when StartKey is set StartToken must be its token and the read
// resumes at that partition (included when StartInclusive).
//
// # Durability
//
// Apply commits one Pebble batch for all its updates. SyncGroup (the
// default) and SyncBatch commit it with fsync; concurrent committers share
// fsyncs in Pebble's commit pipeline (BenchmarkApply), and SyncGroup waits
// GroupWindow after each fsync so that more of them do. SyncPeriodic does
// not wait for fsync and syncs the write-ahead log every SyncPeriod: like
// Cassandra's periodic mode it can lose the last period of acknowledged
// writes on power loss.
//
// The write-ahead log lives in the engine's directory or in Options.WALDir
// (commitlog_directory): on a device of its own its fsyncs do not queue
// behind compactions' writes, which made them take up to ~90 ms on a
// shared disk, pausing writes for up to ~150 ms (docs/benchmarks.md). When WALDir changes, Open replays the
// log left in the previous directory (Pebble names it when it refuses to
// open without it). Disk operations still running after 5 s are logged.
//
// # Purge, compaction and statistics
//
// Purge removes tombstones and expired data gc_grace_seconds after their
// deletion time, together with everything they shadow, so that nothing can
// resurrect: candidates come from a purge index written by Apply, each
// partition is re-checked under a per-partition lock stripe that Apply
// also holds (read side), and keys go with Pebble point Deletes, which
// remove every older merge operand of the key in every level (purge.go,
// layout.md). Options.PurgeInterval runs it in the background over
// Options.Tables (the node wires it to the live schema). Compact compacts
// the whole store (nodetool compact), CompactTable one table. TableStats
// returns per-table histograms and latencies sampled on reads and writes,
// ReadWithInfo the tombstones a read scanned (stats.go); ScanPartitions and
// TableDiskStats give nodetool's tablestats and tablehistograms their
// partition sizes, cell counts and sstable figures (admin.go). The Memory
// engine implements the same Purge rules, and the differential test
// interleaves purges, flushes, compactions and restarts.
//
// # Guardrails
//
// Options.TombstoneWarnThreshold and TombstoneFailureThreshold are
// Cassandra's tombstone_warn_threshold and tombstone_failure_threshold: a
// read over the first adds Cassandra's client warning to the request's
// cqlerr.Warnings, over the second stops and fails with ReadFailure
// (guardrail.go).
//
// # Performance notes
//
// Blocks are compressed with zstd level 1 (55.8 B/row for seed 000's
// sensor_readings, docs/benchmarks.md), and values stay in the data blocks
// (Pebble's value separation by suffix would move every key's value after
// a partition's first to value blocks). Single-partition reads of small
// partitions are answered from the partition cache (pcache.go,
// Options.PartitionCacheSize): the partition's merged entries in memory,
// kept coherent by Apply, which folds its operands into cached partitions
// after committing; the reader runs over them as over a Pebble iterator.
// The cache stores its partitions' bytes in large chunks and indexes them
// without pointers, so the garbage collector marks a few chunks per shard
// rather than an object per partition.
// Point reads of partitions the cache does not keep and known to have no
// partition deletion, range tombstone or static row position the iterator
// once (hdrcache.go).
//
// # Not done yet
//
// Row-level paging resume inside a partition for range reads (the query
// layer can narrow Slices); the Memory engine has no guardrails.
//
// See layout.md for the byte layout of keys and values.
package storage
