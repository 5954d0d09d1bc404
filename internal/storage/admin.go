package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/schema"
	"github.com/google/uuid"
)

// Maintenance and statistics for nodetool (internal/admin).

// CompactTable compacts the key ranges of one table (its data and its purge
// index): nodetool compact ks table.
func (p *Pebble) CompactTable(ctx context.Context, id uuid.UUID) error {
	tp := appendTablePrefix(nil, id)
	if err := p.db.Compact(ctx, tp, prefixEnd(tp), false); err != nil {
		return err
	}
	ip := purgeIndexPrefix(id)
	return p.db.Compact(ctx, ip, prefixEnd(ip), false)
}

// DiskStats describes the on-disk data of a table.
type DiskStats struct {
	// SSTables is the number of sstables holding keys of the table.
	SSTables int
	// LiveBytes estimates the bytes of sstables used by the table.
	LiveBytes uint64
	// MaxSSTableBytes is the size of the largest of those sstables.
	MaxSSTableBytes uint64
	// FilterBytes is the size of their bloom filters (their share of it
	// when shared with other tables is not computed: the whole filters).
	FilterBytes uint64
	// RawBytes is the uncompressed size of the data blocks of those
	// sstables, for the compression ratio.
	DataBytes, RawDataBytes uint64
}

// TableDiskStats returns the on-disk statistics of the table with the given
// id.
func (p *Pebble) TableDiskStats(id uuid.UUID) (DiskStats, error) {
	var st DiskStats
	live, err := p.TableDiskUsage(id)
	if err != nil {
		return st, err
	}
	tp := appendTablePrefix(nil, id)
	end := prefixEnd(tp)
	st.LiveBytes = live
	levels, err := p.db.SSTables(pebble.WithProperties(), pebble.WithKeyRangeFilter(tp, end))
	if err != nil {
		return st, err
	}
	for _, tables := range levels {
		for _, t := range tables {
			st.SSTables++
			st.MaxSSTableBytes = max(st.MaxSSTableBytes, t.Size)
			if t.Properties != nil {
				st.FilterBytes += t.Properties.FilterSize
				st.DataBytes += t.Properties.DataSize
				st.RawDataBytes += t.Properties.RawKeySize + t.Properties.RawValueSize
			}
		}
	}
	return st, nil
}

// TableDiskUsage estimates the bytes of sstables used by the table with
// the given id (DiskStats.LiveBytes, without the rest of TableDiskStats).
func (p *Pebble) TableDiskUsage(id uuid.UUID) (uint64, error) {
	tp := appendTablePrefix(nil, id)
	return p.db.EstimateDiskUsage(tp, prefixEnd(tp))
}

// PartitionSummary is what a scan of a table's stored partitions found
// (nodetool tablestats and tablehistograms; Cassandra computes the same
// from sstable metadata).
type PartitionSummary struct {
	Partitions int64
	// Size is the stored size in bytes (keys and values) of each partition,
	// Cells its stored entries (cells, markers and tombstones).
	Size, Cells Histogram
	MinSize     int64
	TotalSize   int64
	// Tombstones counts stored deletions and cell tombstones (expired
	// cells not included), Entries every stored entry.
	Tombstones, Entries int64
}

// ScanPartitions reads every stored entry of table t (no deletion applied)
// and summarizes its partitions. It costs a full scan of the table.
func (p *Pebble) ScanPartitions(ctx context.Context, t *schema.Table) (PartitionSummary, error) {
	var s PartitionSummary
	tp := appendTablePrefix(nil, t.ID)
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: tp, UpperBound: prefixEnd(tp)})
	if err != nil {
		return s, err
	}
	defer it.Close()
	var size, cells atomicHistogram
	var cur []byte
	var curSize, curCells int64
	flush := func() {
		if cur == nil {
			return
		}
		s.Partitions++
		size.add(curSize)
		cells.add(curCells)
		s.TotalSize += curSize
		if s.MinSize == 0 || curSize < s.MinSize {
			s.MinSize = curSize
		}
	}
	n := 0
	for valid := it.First(); valid; valid = it.Next() {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return s, err
			}
		}
		k := it.Key()
		pl := partitionPrefixLen(k)
		if pl == len(k) {
			return s, fmt.Errorf("%w: %x", errCorrupt, k)
		}
		if cur == nil || !bytes.Equal(cur, k[:pl]) {
			flush()
			cur = append(cur[:0], k[:pl]...)
			curSize, curCells = 0, 0
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return s, err
		}
		curSize += int64(len(k) + len(v))
		curCells++
		s.Entries++
		if len(v) > 0 && (v[0]&valKindMask == valDeletion || (v[0]&valKindMask == valCell && v[0]&valFlagTomb != 0)) {
			s.Tombstones++
		}
	}
	if err := it.Error(); err != nil {
		return s, err
	}
	flush()
	s.Size, s.Cells = size.snapshot(), cells.snapshot()
	return s, nil
}

// DiskUsage returns the bytes on disk of the whole store (sstables, logs,
// manifests): nodetool's Load.
func (p *Pebble) DiskUsage() uint64 { return p.db.Metrics().DiskSpaceUsage() }
