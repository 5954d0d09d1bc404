package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Checkpoint writes the data of the table id, as of every write
// acknowledged before the call, into dir (which must not exist): a Pebble
// store of its own (a snapshot's files) whose sstables are hard links to
// the live ones, so that taking it copies only the write-ahead log,
// MANIFEST and OPTIONS. With flush, the memtables are flushed first, which
// leaves almost nothing to copy (nodetool snapshot without --skip-flush).
//
// The checkpoint holds the sstables that overlap the table's key range,
// and so may hold other tables' entries too; Import reads only the range of
// the table it is asked for.
func (p *Pebble) Checkpoint(dir string, flush bool, id uuid.UUID) error {
	if flush {
		if err := p.db.Flush(); err != nil {
			return err
		}
	}
	data := appendTablePrefix(nil, id)
	purge := purgeIndexPrefix(id)
	spans := []pebble.CheckpointSpan{
		{Start: data, End: prefixEnd(data)},
		{Start: purge, End: prefixEnd(purge)},
	}
	// WithFlushedWAL: in SyncPeriodic mode, acknowledged writes may not be
	// synced yet; the checkpoint copies the log after syncing it.
	return p.db.Checkpoint(dir, pebble.WithFlushedWAL(), pebble.WithRestrictToSpans(spans))
}

// ImportStats reports what Import merged.
type ImportStats struct {
	// Entries is the number of data entries merged (cells, markers,
	// deletions).
	Entries int64
	// Skipped is the number of cells of columns the target table does not
	// have.
	Skipped int64
}

// importBatchBytes is the size from which Import commits its batch at the
// next partition (a variable for tests).
var importBatchBytes = 4 << 20

// Import merges into table to the data that table from holds in the
// checkpoint at dir (Checkpoint's output; from is the table's definition
// when it was taken). Entries merge with the table's own under the usual
// rules (the newest write wins, deletions shadow older data), as Cassandra
// merges imported sstables. Columns are matched by name: a column of from
// that to does not have (dropped since) has its cells skipped, and one
// whose type cannot be read as to's is an error, as is a different primary
// key. Tombstones keep their deletion times and are purged on the usual
// schedule.
//
// Import commits in batches: a failure part way leaves what was merged,
// and running it again merges the same entries again, which changes
// nothing.
func (p *Pebble) Import(ctx context.Context, dir string, from, to *schema.Table) (ImportStats, error) {
	var st ImportStats
	rw, err := newKeyRewriter(from, to)
	if err != nil {
		return st, err
	}
	srcOpts := &pebble.Options{
		ReadOnly: true,
		Comparer: keyComparer,
		Merger:   cellMerger,
		Logger:   slogLogger{p.opts.Logger},
	}
	// The checkpoint holds copies of the logs it needs. Its OPTIONS still
	// name the log directory of the store it was taken from
	// (commitlog_directory), whose logs are newer: they must not be read.
	srcOpts.Unsafe.AllowMissingWALDirs = true
	src, err := pebble.Open(dir, srcOpts)
	if err != nil {
		return st, fmt.Errorf("storage: open snapshot %s: %w", dir, err)
	}
	defer src.Close()
	// The data first, then the purge index: an index entry committed
	// before its data would be found with nothing to purge and dropped.
	for _, prefix := range [][]byte{appendTablePrefix(nil, from.ID), purgeIndexPrefix(from.ID)} {
		if err := p.importRange(ctx, src, prefix, rw, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

func (p *Pebble) importRange(ctx context.Context, src *pebble.DB, prefix []byte, rw *keyRewriter, st *ImportStats) error {
	it, err := src.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return err
	}
	defer it.Close()
	b := p.db.NewBatch()
	defer func() { b.Close() }()
	var key, part []byte
	var toks []int64 // partitions with header or static entries (hdrcache.go)
	var stripes uint64
	var tok int64     // the token of part
	var hdr bool      // part is in toks
	var batched int64 // data entries in b, counted once it commits
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		n := partitionPrefixLen(k)
		if !bytes.Equal(part, k[:n]) {
			// A batch ends only between partitions: a purge between two
			// batches of one partition could remove its imported deletion
			// before the rows it shadows arrive.
			if !b.Empty() && b.Len() >= importBatchBytes {
				if err := p.commitImport(ctx, b, stripes, toks); err != nil {
					return err
				}
				st.Entries, batched = st.Entries+batched, 0
				b.Close()
				b = p.db.NewBatch()
				toks, stripes = toks[:0], 0
			}
			part = append(part[:0], k[:n]...)
			hdr = false
			if k[0] == prefixData {
				if n >= len(k) {
					return fmt.Errorf("%w: short data key", errCorrupt)
				}
				tok = decodeToken(k[tokenOffset:pkOffset])
				stripes |= 1 << p.stripe(tok)
			}
		}
		if k[0] == prefixPurgeIndex {
			if len(k) < tablePrefixLen {
				return fmt.Errorf("%w: short purge index key", errCorrupt)
			}
			key = append(append(key[:0], prefixPurgeIndex), rw.to[:]...)
			key = append(key, k[tablePrefixLen:]...)
			if err := b.Set(key, nil, nil); err != nil {
				return err
			}
			continue
		}
		var keep bool
		key, keep, err = rw.rewrite(key[:0], k, n)
		if err != nil {
			return err
		}
		if !keep {
			st.Skipped++
			continue
		}
		if !hdr && k[n] != kindRow {
			toks, hdr = append(toks, tok), true
		}
		if err := b.Merge(key, v, nil); err != nil {
			return err
		}
		batched++
	}
	if err := it.Error(); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	if err := p.commitImport(ctx, b, stripes, toks); err != nil {
		return err
	}
	st.Entries += batched
	return nil
}

// commitImport commits an import batch as Apply commits its batch
// (Pebble.commit), unless ctx is done.
func (p *Pebble) commitImport(ctx context.Context, b *pebble.Batch, stripes uint64, toks []int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := p.commit(b, stripes, toks, nil, "")
	return err
}

// keyRewriter turns keys of one table into keys of another with the same
// primary key: the table id, and the column ids of cells.
type keyRewriter struct {
	from *schema.Table // to skip the encoded clustering
	to   uuid.UUID
	// cols maps the ids of from's columns to to's; cells of any other id
	// (a column to does not have, or one from had dropped, whose id to
	// may use for another column) are skipped.
	cols map[uint32]uint32
}

func newKeyRewriter(from, to *schema.Table) (*keyRewriter, error) {
	rw := &keyRewriter{from: from, to: to.ID, cols: map[uint32]uint32{}}
	if err := sameKey("partition key", from.PartitionKey, to.PartitionKey); err != nil {
		return nil, err
	}
	if err := sameKey("clustering", from.Clustering, to.Clustering); err != nil {
		return nil, err
	}
	for _, fc := range from.Columns {
		if fc.Kind != schema.Regular && fc.Kind != schema.Static {
			continue
		}
		tc := to.Column(fc.Name)
		if tc == nil || (tc.Kind != schema.Regular && tc.Kind != schema.Static) {
			continue
		}
		if tc.Kind != fc.Kind || !storedAlike(fc.Type, tc.Type) {
			return nil, fmt.Errorf("column %s is %s %s in the snapshot but %s %s in %s.%s",
				fc.Name, fc.Kind, fc.Type, tc.Kind, tc.Type, to.Keyspace, to.Name)
		}
		rw.cols[fc.ID] = tc.ID
	}
	return rw, nil
}

// sameKey checks that two lists of primary key columns store alike.
func sameKey(what string, from, to []*schema.Column) error {
	if len(from) != len(to) {
		return fmt.Errorf("the snapshot's table has %d %s columns, the table %d", len(from), what, len(to))
	}
	for i := range from {
		if from[i].Desc != to[i].Desc || !storedAlike(from[i].Type, to[i].Type) {
			return fmt.Errorf("%s column %s %s in the snapshot is %s %s in the table", what, from[i].Name, from[i].Type, to[i].Name, to[i].Type)
		}
	}
	return nil
}

// storedAlike reports whether values of type a are stored as values of
// type b: the same type, user types of any name whose fields b extends
// (ALTER TYPE ... ADD), frozen or not alike.
func storedAlike(a, b *types.Type) bool {
	if a.Kind != b.Kind || a.Frozen != b.Frozen || a.Dimension != b.Dimension || a.Class != b.Class {
		return false
	}
	if a.Kind == types.UDT {
		if len(b.Params) < len(a.Params) {
			return false
		}
	} else if len(a.Params) != len(b.Params) {
		return false
	}
	for i := range a.Params {
		if !storedAlike(a.Params[i], b.Params[i]) {
			return false
		}
	}
	return true
}

// rewrite appends to dst the data key k of table from (its partition
// prefix n bytes long, with a kind after it) as a key of table to; keep is
// false for the cell of a column to does not have.
func (rw *keyRewriter) rewrite(dst, k []byte, n int) (out []byte, keep bool, err error) {
	dst = append(appendTablePrefix(dst, rw.to), k[tablePrefixLen:]...)
	rest := k[n:]
	switch rest[0] {
	case kindHeader:
		return dst, true, nil
	case kindStatic:
		rest = rest[1:]
	case kindRow:
		rest = rest[1:]
		cl, err := clusteringLen(rw.from, rest)
		if err != nil {
			return dst, false, fmt.Errorf("%w: %v", errCorrupt, err)
		}
		rest = rest[cl:]
	default:
		return dst, false, fmt.Errorf("%w: kind %#x", errCorrupt, rest[0])
	}
	if len(rest) == 0 || rest[0] != slotCell {
		return dst, true, nil
	}
	if len(rest) < 5 {
		return dst, false, fmt.Errorf("%w: short cell slot", errCorrupt)
	}
	id, ok := rw.cols[binary.BigEndian.Uint32(rest[1:5])]
	if !ok {
		return dst, false, nil
	}
	at := len(dst) - len(rest) + 1
	binary.BigEndian.PutUint32(dst[at:at+4], id)
	return dst, true, nil
}
