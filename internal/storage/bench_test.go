package storage

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

func benchUpdate(pk int32, i int) *mutation.PartitionUpdate {
	tbl := testTable()
	u := update(tbl, pk)
	u.Token = int64(pk) * 7919
	u.Rows = []mutation.Row{row(ck(int32(i), "x"), marker(int64(i)), live(colV, int64(i), int32(i)))}
	return u
}

// BenchmarkApply measures single-row writes. "synced-serial" pays one fsync
// per write; "synced-concurrent" runs 16 writers per CPU whose synced
// commits Pebble's pipeline groups into shared fsyncs (group commit);
// "periodic" does not wait for fsync.
func BenchmarkApply(b *testing.B) {
	tbl := testTable()
	ctx := context.Background()
	for _, bc := range []struct {
		name     string
		mode     SyncMode
		parallel int
	}{
		{"synced-serial", SyncGroup, 0},
		{"synced-concurrent-16", SyncGroup, 16},
		{"periodic-concurrent-16", SyncPeriodic, 16},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := openTest(b, Options{SyncMode: bc.mode})
			b.ReportAllocs()
			if bc.parallel == 0 {
				for i := 0; i < b.N; i++ {
					if err := p.Apply(ctx, tbl, benchUpdate(int32(i%1000), i)); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			var n atomic.Int64
			b.SetParallelism(bc.parallel)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1))
					if err := p.Apply(ctx, tbl, benchUpdate(int32(i%1000), i)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkPointRead reads one row of a partition of rowsPerPartition rows,
// from memtables and after a flush and compaction, and with the partition
// cache (both partition sizes fit in it).
func BenchmarkPointRead(b *testing.B) {
	tbl := testTable()
	ctx := context.Background()
	for _, cfg := range []struct {
		flushed bool
		rows    int
		cache   bool
	}{{false, 1, false}, {false, 100, false}, {true, 1, false}, {true, 100, false}, {true, 1, true}, {true, 100, true}} {
		flushed, rows := cfg.flushed, cfg.rows
		cacheSize := int64(-1)
		if cfg.cache {
			cacheSize = 0
		}
		name := "rows=" + strconv.Itoa(rows) + "/flushed=" + strconv.FormatBool(flushed) + "/cache=" + strconv.FormatBool(cfg.cache)
		{
			b.Run(name, func(b *testing.B) {
				p := openTest(b, Options{SyncMode: SyncPeriodic, PartitionCacheSize: cacheSize})
				const parts = 1000 // 100k rows at most
				for pk := int32(0); pk < parts; pk++ {
					u := update(tbl, pk)
					u.Token = int64(pk) * 7919
					for r := 0; r < rows; r++ {
						u.Rows = append(u.Rows, row(ck(int32(r), "x"), marker(1), live(colV, 1, int32(r))))
					}
					mustApply(b, p, tbl, u)
				}
				// Let background flushes settle so that they do not run
				// during the timed loop; "flushed" compacts everything.
				if err := p.Flush(); err != nil && flushed {
					b.Fatal(err)
				}
				if flushed {
					tp := appendTablePrefix(nil, tbl.ID)
					if err := p.db.Compact(ctx, tp, prefixEnd(tp), false); err != nil {
						b.Fatal(err)
					}
				}
				slice := []mutation.Slice{{
					Start: mutation.Bound{Values: ck(int32(rows/2), "x"), Inclusive: true},
					End:   mutation.Bound{Values: ck(int32(rows/2), "x"), Inclusive: true},
				}}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					pk := int32(i % parts)
					cmd := &mutation.ReadCommand{TableID: tbl.ID, Key: i32(pk), Token: int64(pk) * 7919, Slices: slice, NowSec: 1}
					ps, err := p.Read(ctx, tbl, cmd)
					if err != nil || len(ps) != 1 || len(ps[0].Rows) != 1 {
						b.Fatalf("read: %v %d", err, len(ps))
					}
				}
			})
		}
	}
}

// BenchmarkSliceRead reads 50 rows of 100-byte values from a 1000-row
// partition, WHERE pk = ? AND ck > ? LIMIT 50 (the benchmark's slice
// workload), from the memtable and after a flush and compaction, without
// the partition cache.
func BenchmarkSliceRead(b *testing.B) {
	id := uuid.MustParse("7a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d")
	tbl := schema.NewTable("ks", "wide", id, []*schema.Column{
		{Name: "pk", Type: types.IntType, Kind: schema.PartitionKey, Position: 0, ID: 1},
		{Name: "ck", Type: types.BigintType, Kind: schema.Clustering, Position: 0, ID: 2},
		{Name: "v", Type: types.BlobType, Kind: schema.Regular, Position: -1, ID: 3},
	}, schema.DefaultTableParams())
	ctx := context.Background()
	const parts, rows, limit = 10, 1000, 50
	for _, flushed := range []bool{false, true} {
		b.Run("flushed="+strconv.FormatBool(flushed), func(b *testing.B) {
			p := openTest(b, Options{SyncMode: SyncPeriodic, PartitionCacheSize: -1})
			val := make([]byte, 100)
			for pk := int32(0); pk < parts; pk++ {
				u := update(tbl, pk)
				for r := int64(0); r < rows; r++ {
					u.Rows = append(u.Rows, mutation.Row{
						Clustering: [][]byte{binary.BigEndian.AppendUint64(nil, uint64(r))},
						Marker:     marker(1), Deletion: mutation.Live,
						Cells: []mutation.Cell{{Column: 3, Value: val, Timestamp: 1, LocalDeletionTime: mutation.NoDeletion}},
					})
				}
				mustApply(b, p, tbl, u)
			}
			if flushed {
				if err := p.Flush(); err != nil {
					b.Fatal(err)
				}
				if err := p.Compact(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pk := int32(i % parts)
				from := int64(i*37) % (rows - limit)
				slice := []mutation.Slice{{
					Start: mutation.Bound{Values: [][]byte{binary.BigEndian.AppendUint64(nil, uint64(from))}},
				}}
				cmd := &mutation.ReadCommand{TableID: tbl.ID, Key: i32(pk), Token: pkToken(pk), Slices: slice, RowLimit: limit, NowSec: 1}
				ps, err := p.Read(ctx, tbl, cmd)
				if err != nil || len(ps) != 1 || len(ps[0].Rows) != limit {
					b.Fatalf("read: %v %d", err, len(ps))
				}
			}
		})
	}
}

// BenchmarkRangeScan reads 100 one-row partitions in token order with
// LIMIT 100 (YCSB E's scan shape), flushed and compacted, without the
// partition cache.
func BenchmarkRangeScan(b *testing.B) {
	tbl := testTable()
	ctx := context.Background()
	const parts = 10000
	p := flushedPartitions(b, tbl, parts, 1, func(pk int32) int64 { return int64(pk) * 7919 })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := int64(i%(parts-100)) * 7919
		cmd := &mutation.ReadCommand{TableID: tbl.ID, StartToken: start, EndToken: math.MaxInt64, RowLimit: 100, NowSec: 1}
		ps, err := p.Read(ctx, tbl, cmd)
		if err != nil || len(ps) != 100 {
			b.Fatalf("read: %v %d", err, len(ps))
		}
	}
}

// BenchmarkSmallPartitionRead reads whole three-row partitions, flushed
// and compacted, without the partition cache, as a driver's paged SELECT
// does (a page of 5000 rows) and with no limit at all: the rows slice
// must not be sized for the limit when the partition is small.
func BenchmarkSmallPartitionRead(b *testing.B) {
	tbl := testTable()
	ctx := context.Background()
	const parts = 1000
	p := flushedPartitions(b, tbl, parts, 3, nil)
	for _, limit := range []int{5000, 0} {
		b.Run("limit="+strconv.Itoa(limit), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				pk := int32(i % parts)
				cmd := &mutation.ReadCommand{TableID: tbl.ID, Key: i32(pk), Token: pkToken(pk), RowLimit: limit, NowSec: 1}
				ps, err := p.Read(ctx, tbl, cmd)
				if err != nil || len(ps) != 1 || len(ps[0].Rows) != 3 {
					b.Fatalf("read: %v %d", err, len(ps))
				}
			}
		})
	}
}

// flushedPartitions opens an engine without the partition cache that holds
// parts partitions of tbl (testTable) with rowsPer rows each, flushed and
// compacted; token, when not nil, places partition pk.
func flushedPartitions(b *testing.B, tbl *schema.Table, parts, rowsPer int32, token func(pk int32) int64) *Pebble {
	p := openTest(b, Options{SyncMode: SyncPeriodic, PartitionCacheSize: -1})
	for pk := int32(0); pk < parts; pk++ {
		u := update(tbl, pk)
		if token != nil {
			u.Token = token(pk)
		}
		for c := int32(0); c < rowsPer; c++ {
			u.Rows = append(u.Rows, row(ck(c, "x"), marker(1), live(colV, 1, pk)))
		}
		mustApply(b, p, tbl, u)
	}
	if err := p.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := p.Compact(context.Background()); err != nil {
		b.Fatal(err)
	}
	return p
}
