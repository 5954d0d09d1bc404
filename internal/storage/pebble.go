package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/wal"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/google/uuid"
)

// SyncMode is the commit-log durability mode (Cassandra's commitlog_sync).
type SyncMode uint8

const (
	// SyncGroup (the default) acknowledges a write once its batch is fsynced
	// in the write-ahead log. Concurrent writers share fsyncs: Pebble's
	// commit pipeline syncs every batch queued behind the one being synced
	// in one go, and after each fsync the log waits Options.GroupWindow
	// before the next, so that more writers share it (Cassandra's "group"
	// mode and its commitlog_sync_group_window).
	SyncGroup SyncMode = iota
	// SyncBatch fsyncs every Apply before acknowledging it (Cassandra's
	// "batch" mode): as SyncGroup without a window, an fsync starts as
	// soon as the previous one ends.
	SyncBatch
	// SyncPeriodic acknowledges writes once they are in the operating
	// system's page cache and fsyncs the log every SyncPeriod. Like
	// Cassandra's periodic mode (its default) it can lose up to the last
	// period of acknowledged writes on power loss (not on a process crash).
	SyncPeriodic
)

func (m SyncMode) String() string {
	switch m {
	case SyncGroup:
		return "group"
	case SyncBatch:
		return "batch"
	case SyncPeriodic:
		return "periodic"
	}
	return fmt.Sprintf("SyncMode(%d)", uint8(m))
}

// Options configure the Pebble engine. The zero value is valid.
type Options struct {
	SyncMode SyncMode
	// WALDir is where the write-ahead log lives (Cassandra's
	// commitlog_directory); empty means dir itself. It must be absolute:
	// Pebble records it in its OPTIONS file and compares it at the next
	// open, where a relative path would name another directory when the
	// process starts from elsewhere. Open replays a log left in the
	// previous directory when it changes.
	WALDir string
	// SyncPeriod is the fsync interval of SyncPeriodic (default 10s, as
	// Cassandra's commitlog_sync_period).
	SyncPeriod time.Duration
	// GroupWindow is the least time between the end of one fsync of the
	// log and the start of the next in SyncGroup while at least five
	// Applies are committing (Cassandra's commitlog_sync_group_window; 0:
	// none). Writes arriving within it wait for its end and share the next
	// fsync; fewer writers are never held back (groupWindow). The node's
	// default is 500us: YCSB A open loop at 18,000 ops/s, fsyncs 4,000/s ->
	// 1,400/s, server CPU per operation 56 -> 51-53 us, p99 4.5-5.9 ->
	// 3.5-3.8 ms; closed loop 37.8-38.4k -> 39.4-41.1k ops/s; four
	// closed-loop inserters unchanged (docs/benchmarks.md).
	GroupWindow time.Duration
	Logger      *slog.Logger
	// CacheSize is the block cache size in bytes (default 64 MiB; the node
	// sets Cassandra's file_cache_size default, derived from memory).
	CacheSize int64
	// PartitionCacheSize bounds the partition cache (pcache.go) in bytes:
	// 0 means 32 MiB (the node sets its own default, derived from memory),
	// negative disables it.
	PartitionCacheSize int64
	// PurgeInterval, when positive, runs Purge over every table returned by
	// Tables (virtual tables skipped) at that interval in the background.
	PurgeInterval time.Duration
	// Tables returns the current tables (for the background purge).
	Tables func() []*schema.Table
	// Now is the clock of background work (default time.Now).
	Now func() time.Time
	// TombstoneWarnThreshold and TombstoneFailureThreshold are Cassandra's
	// tombstone_warn_threshold and tombstone_failure_threshold
	// (guardrail.go); zero or negative disables each.
	TombstoneWarnThreshold    int
	TombstoneFailureThreshold int
	// PartitionSize and PartitionTombstones are Cassandra 5.0's
	// partition_size (bytes) and partition_tombstones guardrails
	// (guardrail.go): a read that meets a partition over a threshold logs
	// it; zero or negative disables each.
	PartitionSizeWarnThreshold, PartitionSizeFailThreshold             int64
	PartitionTombstonesWarnThreshold, PartitionTombstonesFailThreshold int64
	// fs, in tests, replaces the disk (a crashable in-memory file system).
	fs vfs.FS
}

// comparerName is persisted by Pebble.
const comparerName = "cqld.key.v1"

// keyComparer orders keys bytewise; its Split makes the partition prefix the
// unit of Pebble's bloom filters, so a point read of an absent partition
// usually touches no data block.
var keyComparer = func() *pebble.Comparer {
	c := *pebble.DefaultComparer
	c.Split = partitionPrefixLen
	c.Name = comparerName
	return &c
}()

// compressionSettings compresses every level with zstd level 1 (Pebble's
// "Balanced" block profile: zstd 1 for data and value blocks, adaptively
// MinLZ where zstd would save less than a further 20%, and MinLZ for index
// and filter blocks) instead of Pebble's default Snappy: for seed
// 000's sensor_readings table that is 55.8 B/row on disk instead of 78.5
// (73 with MinLZ, 52.4 with zstd level 3); see docs/benchmarks.md. Level 1
// rather than 3: compactions compress what every insert writes, and the
// ts-insert workload spent 31.5-36 us of server CPU per insert with level 3
// against 27.7-28 with level 1 (ops/s +7-20%), for 6% more bytes per row.
// Every level, because flushes of time-ordered data move down the LSM
// without being rewritten, so the flush's compression is what stays on
// disk (MinLZ on the upper levels, Pebble's "Balanced" DB settings, left
// 73.1 B/row). Reads of cached blocks do not pay for it (the block cache
// holds uncompressed blocks).
func compressionSettings() pebble.DBCompressionSettings {
	return pebble.UniformDBCompressionSettings(block.BalancedCompression)
}

// Pebble is the on-disk Engine.
type Pebble struct {
	db *pebble.DB
	// fsCloser stops the disk-health checks of db's file system.
	fsCloser io.Closer
	opts     Options
	wo       *pebble.WriteOptions

	// locks are partition lock stripes (by token): Apply holds the read
	// side while it commits, Purge the write side while it re-checks and
	// deletes a partition (purge.go).
	locks [lockStripes]sync.RWMutex

	stats tableStatsMap
	// unmetered takes what the node's own scans (ReadCommand.Unmetered)
	// would count; nothing reads it.
	unmetered tableStats
	// hdr remembers partitions without header entries (hdrcache.go).
	hdr *hdrCache
	// pc is the partition cache (pcache.go); nil when disabled.
	pc *partitionCache
	// large logs partitions over the partition guardrails (nil: none set).
	large *partitionGuard

	// group spaces the log's fsyncs in SyncGroup (nil: no window).
	group *groupWindow

	stop chan struct{}
	wg   sync.WaitGroup
}

var _ Engine = (*Pebble)(nil)

// groupWindow is Options.GroupWindow. Pebble asks it, after each fsync of
// the log, how long to hold the next one back (WALMinSyncInterval). It
// holds it back by the window only while at least groupSiblings Applies are
// committing, so that more writes are likely to arrive within it and share
// the next fsync. A few writers that each wait for their acknowledgement
// before sending the next write would only wait longer: PostgreSQL's
// commit_delay is gated by commit_siblings (default 5) for the same reason.
type groupWindow struct {
	window     time.Duration
	committing atomic.Int64 // Applies inside Commit
}

// groupSiblings is the number of committing Applies from which fsyncs are
// spaced by the group window.
const groupSiblings = 5

func (g *groupWindow) next() time.Duration {
	if g.committing.Load() >= groupSiblings {
		return g.window
	}
	return 0
}

// Open opens (creating if needed) the engine in dir.
func Open(dir string, opts Options) (*Pebble, error) {
	if opts.WALDir != "" && !filepath.IsAbs(opts.WALDir) {
		return nil, fmt.Errorf("storage: the write-ahead log directory %q is not absolute", opts.WALDir)
	}
	// Pebble compares the recorded log directory with this one by name,
	// an empty one standing for dir as given: with dir absolute too, a log
	// directory named as the data directory is the data directory, however
	// either was spelled before (otherwise Pebble asks for the old name as
	// a recovery directory and then finds each log twice). Nothing about
	// dir itself is recorded. Both are cleaned (Abs cleans): "d/" is "d".
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	dir = abs
	if opts.WALDir != "" {
		opts.WALDir = filepath.Clean(opts.WALDir)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 64 << 20
	}
	if opts.SyncPeriod <= 0 {
		opts.SyncPeriod = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	var group *groupWindow
	if opts.SyncMode == SyncGroup && opts.GroupWindow > 0 {
		group = &groupWindow{window: opts.GroupWindow}
	}
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref()
	db, fsCloser, err := openPebble(dir, &opts, cache, group, "", false)
	if moved := (pebble.ErrMissingWALRecoveryDir{}); errors.As(err, &moved) {
		walDir := opts.WALDir
		if walDir == "" {
			walDir = dir
		}
		if sameDir(moved.Dir, walDir) {
			// The same directory by another name (a symbolic link):
			// its logs are found under the configured name, which Pebble
			// then records; named as a recovery directory too, each log
			// would be found twice.
			db, fsCloser, err = openPebble(dir, &opts, cache, group, "", true)
		} else {
			// commitlog_directory changed since the last run: replay
			// what the old one holds.
			opts.Logger.Info("storage: replaying the commit log left in the previous commitlog_directory", "dir", moved.Dir)
			db, fsCloser, err = openPebble(dir, &opts, cache, group, moved.Dir, false)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	return newPebble(db, opts, group, fsCloser), nil
}

// sameDir reports whether paths a and b name one existing directory.
func sameDir(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// slowDiskOp is how long a disk operation runs before it is logged as slow
// (Pebble's default).
const slowDiskOp = 5 * time.Second

// openPebble opens Pebble in dir with cqld's options, replaying write-ahead
// logs found in recoveryDir too (unless ""). walMoved says that the recorded
// log directory is the configured one by another name.
func openPebble(dir string, opts *Options, cache *pebble.Cache, group *groupWindow, recoveryDir string, walMoved bool) (*pebble.DB, io.Closer, error) {
	po := &pebble.Options{
		Cache:              cache,
		WALDir:             opts.WALDir,
		Comparer:           keyComparer,
		Merger:             cellMerger,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             slogLogger{opts.Logger},
		EventListener:      eventLogger(opts.Logger),
		// Each L0 file of a hash-partitioned table spans the whole key
		// range, so an L0->Lbase compaction rewrites all of Lbase (the
		// log shows ~1 MB of L0 merged into ~19 MB of Lbase at Pebble's
		// default threshold of 4): compacting at 8 L0 sublevels halves
		// that rewriting (YCSB-A: 75-79 -> 55-60 us of server CPU per
		// operation, docs/benchmarks.md). Bloom filters keep point reads
		// of the extra L0 files cheap.
		L0CompactionThreshold: 8,
		// 16 MiB memtables instead of Pebble's 4: a hot key's updates
		// meet in the memtable and leave as one entry, and a quarter as
		// many flushes feed L0. YCSB A, warm partition cache, server CPU
		// per operation: 30-36 us with 4 MiB, 28 with 16, 27-29 with 32,
		// 27.6 with 64; replaying the log after kill -9 during the
		// load: 63 ms, 127 ms, 294 ms (32 MiB) — 16 keeps a crash restart
		// under 200 ms (docs/benchmarks.md). Pebble grows the first
		// memtables from 256 KiB, so an idle node does not pay for it.
		MemTableSize: 16 << 20,
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	// Every key of a partition shares the Split prefix, and Pebble would
	// otherwise move the value of every key after a partition's first to
	// out-of-band value blocks (built for MVCC, where the keys after the
	// first are older versions): a read of a row paid for a value block on
	// top of its data block. Our suffixes are rows and cells, all current.
	// YCSB C with the partition cache off, server CPU per read: 29-31 ->
	// 27-28 us; one row of a 100-row partition, flushed: 4.8-5.4 ->
	// 3.5-4.4 us (docs/benchmarks.md).
	po.Experimental.SpanPolicyFunc = func([]byte) (pebble.SpanPolicy, []byte, error) {
		return pebble.SpanPolicy{DisableValueSeparationBySuffix: true}, nil, nil
	}
	po.ApplyCompressionSettings(compressionSettings)
	if group != nil {
		po.WALMinSyncInterval = group.next
	}
	// Pebble's own disk-health wrapper but owned here, so that a failed
	// Open does not leave its goroutine behind.
	base := opts.fs
	if base == nil {
		base = vfs.Default
	}
	fs, fsCloser := vfs.WithDiskHealthChecks(base, slowDiskOp, nil, po.EventListener.DiskSlow)
	if recoveryDir != "" {
		po.WALRecoveryDirs = []wal.Dir{{FS: fs, Dirname: recoveryDir}}
	}
	po.Unsafe.AllowMissingWALDirs = walMoved
	po.FS = fs
	gate := newOpenGate() // compactions wait until Open returns (opengate.go)
	po.Experimental.CompactionScheduler = gate
	db, err := pebble.Open(dir, po)
	if err != nil {
		gate.failed()
		_ = fsCloser.Close()
		return nil, nil, err
	}
	gate.opened()
	return db, fsCloser, nil
}

func newPebble(db *pebble.DB, opts Options, group *groupWindow, fsCloser io.Closer) *Pebble {
	p := &Pebble{db: db, fsCloser: fsCloser, opts: opts, wo: pebble.Sync, group: group, stop: make(chan struct{}), hdr: new(hdrCache), large: newPartitionGuard(&opts)}
	switch {
	case opts.PartitionCacheSize == 0:
		p.pc = newPartitionCache(32 << 20)
	case opts.PartitionCacheSize > 0:
		p.pc = newPartitionCache(opts.PartitionCacheSize)
	}
	if opts.SyncMode == SyncPeriodic {
		p.wo = pebble.NoSync
		p.wg.Add(1)
		go p.syncLoop()
	}
	if opts.PurgeInterval > 0 && opts.Tables != nil {
		p.wg.Add(1)
		go p.purgeLoop()
	}
	return p
}

func (p *Pebble) syncLoop() {
	defer p.wg.Done()
	t := time.NewTicker(p.opts.SyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			// An empty synced LogData fsyncs the WAL, and with it every
			// NoSync batch committed before it.
			if err := p.db.LogData(nil, pebble.Sync); err != nil {
				p.opts.Logger.Error("storage: periodic commit-log sync failed", "err", err)
			}
		}
	}
}

// Apply implements Engine: one Pebble batch for all updates, every key
// written with Merge (blind).
func (p *Pebble) Apply(ctx context.Context, t *schema.Table, updates ...*mutation.PartitionUpdate) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := p.db.NewBatch()
	defer b.Close()
	w := writerPool.Get().(*batchWriter)
	defer w.release()
	var stripes uint64       // bit i: stripe i is touched
	hdrToks := w.hdrToks[:0] // tokens of updates writing header or static entries
	for _, u := range updates {
		if err := w.encode(t, u, b); err != nil {
			return err
		}
		stripes |= 1 << p.stripe(u.Token)
		if !u.Deletion.IsLive() || len(u.RangeTombstones) > 0 || u.Static != nil {
			hdrToks = append(hdrToks, u.Token)
		}
	}
	w.hdrToks = hdrToks
	took, err := p.commit(b, stripes, hdrToks, tracing.FromContext(ctx), t.Name)
	p.stats.get(t.ID).write.Record(took)
	return err
}

// commit commits b as every write is committed: under the read side of
// the partition lock stripes it touches (Purge, which takes them one at a
// time, must not delete what it writes), with the header cache's epochs of
// hdrToks (the partitions writing header or static entries) bumped around
// it (hdrcache.go), and the partition cache folding it in after. It
// returns how long the commit took once the locks were held; ts, when
// set, gets the commit log and memtable events of table.
func (p *Pebble) commit(b *pebble.Batch, stripes uint64, hdrToks []int64, ts *tracing.Session, table string) (time.Duration, error) {
	// Lock stripes in increasing order.
	for i := 0; i < lockStripes; i++ {
		if stripes&(1<<i) != 0 {
			p.locks[i].RLock()
			defer p.locks[i].RUnlock()
		}
	}
	start := time.Now()
	p.hdr.begin(hdrToks)
	if p.group != nil {
		p.group.committing.Add(1)
	}
	// A commit writes the WAL (the commit log) and then the memtable.
	if ts != nil {
		ts.Add(tracing.MutationThread, "Appending to commitlog")
	}
	err := b.Commit(p.wo)
	if ts != nil && err == nil {
		ts.Add(tracing.MutationThread, "Adding to "+table+" memtable")
	}
	if p.group != nil {
		p.group.committing.Add(-1)
	}
	p.hdr.end(hdrToks)
	if p.pc != nil {
		p.pc.fold(b, err == nil)
	}
	return time.Since(start), err
}

// batchWriter encodes updates into a batch; its buffers are pooled
// (writerPool: Pebble copies what a batch is given).
type batchWriter struct {
	key, val []byte
	pp, rp   []byte // partition and row prefixes
	scratch  [64]byte
	// ats are the distinct tombstone times of the current update's
	// deletions and expiring data (purge.go).
	ats     []int64
	hdrToks []int64
}

var writerPool = sync.Pool{New: func() any { return new(batchWriter) }}

func (w *batchWriter) release() {
	if cap(w.key)+cap(w.val)+cap(w.pp)+cap(w.rp) > 64<<10 || cap(w.ats)+cap(w.hdrToks) > 1024 {
		return // do not keep large buffers alive
	}
	writerPool.Put(w)
}

func (w *batchWriter) merge(b *pebble.Batch) error {
	if at, _, ok := tombstoneTime(w.val); ok && !slices.Contains(w.ats, at) {
		w.ats = append(w.ats, at)
	}
	return b.Merge(w.key, w.val, nil)
}

func (w *batchWriter) encode(t *schema.Table, u *mutation.PartitionUpdate, b *pebble.Batch) error {
	if u.TableID != [16]byte(t.ID) {
		return fmt.Errorf("storage: update for table %x applied to table %s", u.TableID, t.ID)
	}
	if u.Key == nil {
		// An empty key is a key: a legacy index's partition of empty
		// values (the query layer refuses empty keys of user tables).
		return errors.New("storage: no partition key")
	}
	pp := appendPartitionPrefix(w.pp[:0], u.TableID, u.Token, u.Key)
	w.pp = pp
	w.ats = w.ats[:0]
	if err := w.encodeData(t, u, pp, b); err != nil {
		return err
	}
	for _, at := range w.ats {
		w.key = appendPurgeIndexKey(w.key[:0], pp, at)
		if err := b.Set(w.key, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *batchWriter) encodeData(t *schema.Table, u *mutation.PartitionUpdate, pp []byte, b *pebble.Batch) error {
	if !u.Deletion.IsLive() {
		w.key = append(append(w.key[:0], pp...), kindHeader, headerPartitionDeletion)
		w.val = appendDeletionValue(w.val[:0], u.Deletion)
		if err := w.merge(b); err != nil {
			return err
		}
	}
	for i := range u.RangeTombstones {
		rt := &u.RangeTombstones[i]
		r, err := sliceRange(t, rt.Slice)
		if err != nil {
			return err
		}
		if r.empty() || rt.Deletion.IsLive() {
			continue
		}
		w.key = appendRangeTombstoneKey(append(w.key[:0], pp...), r)
		w.val = appendDeletionValue(w.val[:0], rt.Deletion)
		if err := w.merge(b); err != nil {
			return err
		}
	}
	if u.Static != nil {
		rp := append(append(w.rp[:0], pp...), kindStatic)
		w.rp = rp
		if err := w.encodeRow(t, rp, u.Static, b); err != nil {
			return err
		}
	}
	rp := w.rp
	for i := range u.Rows {
		r := &u.Rows[i]
		if len(r.Clustering) != len(t.Clustering) {
			return fmt.Errorf("storage: row with %d clustering values in a table with %d clustering columns",
				len(r.Clustering), len(t.Clustering))
		}
		var err error
		rp, err = appendClustering(append(append(rp[:0], pp...), kindRow), t, r.Clustering)
		if err != nil {
			return err
		}
		if err := w.encodeRow(t, rp, r, b); err != nil {
			return err
		}
		if err := w.encodeWritten(t, rp, r, b); err != nil {
			return err
		}
	}
	w.rp = rp
	return nil
}

// encodeWritten writes the row's clustering values as written when they
// are not in canonical form and the row writes data (layout.md,
// "clustering as written").
func (w *batchWriter) encodeWritten(t *schema.Table, rp []byte, r *mutation.Row, b *pebble.Batch) error {
	if !t.ClusteringMayCanonicalize() {
		return nil
	}
	c, ok := writtenCell(r)
	if !ok {
		return nil
	}
	canon, err := canonicalClustering(t, r.Clustering, w.scratch[:0])
	if err != nil || canon {
		return err
	}
	w.key = append(append(w.key[:0], rp...), slotWritten)
	c.Value = appendWrittenValues(nil, r.Clustering)
	w.val = appendCellValue(w.val[:0], &c, nil)
	return w.merge(b)
}

func (w *batchWriter) encodeRow(t *schema.Table, rp []byte, r *mutation.Row, b *pebble.Batch) error {
	if !r.Deletion.IsLive() {
		w.key = append(append(w.key[:0], rp...), slotRowDeletion)
		w.val = appendDeletionValue(w.val[:0], r.Deletion)
		if err := w.merge(b); err != nil {
			return err
		}
	}
	if r.Marker.Timestamp != mutation.NoTimestamp {
		w.key = append(append(w.key[:0], rp...), slotMarker)
		w.val = appendMarkerValue(w.val[:0], r.Marker)
		if err := w.merge(b); err != nil {
			return err
		}
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		col := t.ColumnByID(c.Column)
		if col == nil || col.IsPrimaryKey() {
			return fmt.Errorf("storage: cell for unknown column id %d of %s.%s", c.Column, t.Keyspace, t.Name)
		}
		w.key = appendCellSlot(append(w.key[:0], rp...), col, c.Path)
		var written []byte
		if c.Path != nil && !c.Tombstone {
			cp, err := canonicalPath(col, w.scratch[:0], c.Path)
			if err != nil {
				return err
			}
			if !bytes.Equal(cp, c.Path) {
				written = c.Path
			}
		}
		w.val = appendCellValue(w.val[:0], c, written)
		if err := w.merge(b); err != nil {
			return err
		}
	}
	return nil
}

// DropTable implements Engine.
func (p *Pebble) DropTable(ctx context.Context, id uuid.UUID) error {
	start := appendTablePrefix(nil, id)
	end := prefixEnd(start)
	if err := p.db.DeleteRange(start, end, pebble.Sync); err != nil {
		return err
	}
	if p.pc != nil {
		p.pc.clear()
	}
	ip := purgeIndexPrefix(id)
	if err := p.db.DeleteRange(ip, prefixEnd(ip), pebble.Sync); err != nil {
		return err
	}
	// Compacting the range drops the shadowed data and the range deletion.
	return p.db.Compact(ctx, start, end, false /* parallelize */)
}

// GetMeta implements Engine.
func (p *Pebble) GetMeta(key string) ([]byte, error) {
	v, closer, err := p.db.Get(metaKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return append([]byte{}, v...), nil
}

// PutMeta implements Engine. Metadata is always synced.
func (p *Pebble) PutMeta(key string, value []byte) error {
	return p.db.Set(metaKey(key), value, pebble.Sync)
}

// Flush implements Engine.
func (p *Pebble) Flush() error { return p.db.Flush() }

// Close implements Engine: it syncs the log, flushes memtables and closes.
func (p *Pebble) Close() error { return p.shutdown(true) }

// shutdown stops the background work and closes Pebble, after syncing the log
// and flushing the memtables when flush is set (tests' crash does not).
func (p *Pebble) shutdown(flush bool) error {
	close(p.stop)
	p.wg.Wait()
	var err error
	if flush {
		err = p.db.LogData(nil, pebble.Sync)
		if ferr := p.db.Flush(); err == nil {
			err = ferr
		}
	}
	if cerr := p.db.Close(); err == nil {
		err = cerr
	}
	if cerr := p.fsCloser.Close(); err == nil {
		err = cerr
	}
	return err
}

// Metrics returns Pebble's metrics (for nodetool and tests).
func (p *Pebble) Metrics() *pebble.Metrics { return p.db.Metrics() }

type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Infof(format string, args ...interface{}) {
	s.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (s slogLogger) Errorf(format string, args ...interface{}) {
	s.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

func (s slogLogger) Fatalf(format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	s.l.Error(msg, "component", "pebble")
	panic(msg)
}

// eventLogger logs Pebble's write stalls (writes held back while memtables
// flush or L0 is compacted), when one ends, with its reason and length; and
// disk operations still running after slowDiskOp (openPebble's disk-health
// checks).
func eventLogger(log *slog.Logger) *pebble.EventListener {
	var mu sync.Mutex
	var began time.Time
	var reason string
	return &pebble.EventListener{
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			mu.Lock()
			began, reason = time.Now(), info.Reason
			mu.Unlock()
		},
		WriteStallEnd: func() {
			mu.Lock()
			d, r := time.Since(began), reason
			mu.Unlock()
			log.Warn("storage: writes stalled", "reason", r, "duration", d.Round(time.Millisecond))
		},
		DiskSlow: func(info pebble.DiskSlowInfo) {
			log.Warn("storage: slow disk", "op", info.OpType.String(), "file", info.Path, "duration", info.Duration.Round(time.Millisecond))
		},
	}
}
