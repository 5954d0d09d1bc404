package storage

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/mutation"
)

// BenchmarkVsRaw compares single-row writes and point reads through the
// engine with raw Pebble Set/Get of the same keys and values (the bytes the
// engine stores for an UPDATE of one int cell in a row of partition pk,
// clustering (i, "x")), in the same run. Writes do not wait for fsync on
// either side (SyncPeriodic vs pebble.NoSync); reads hit 10k rows in 1000
// partitions after a flush and compaction.
//
//	go test ./internal/storage -run - -bench VsRaw -benchtime 200000x
//
// read/interleaved and write/interleaved are the figures to compare
// (docs/benchmarks.md); scripts/bench-storage.sh runs them.
func BenchmarkVsRaw(b *testing.B) {
	tbl := testTable()
	ctx := context.Background()
	const parts, rowsPer = 1000, 10
	upd := func(i int) *mutation.PartitionUpdate {
		pk := int32(i % parts)
		u := update(tbl, pk)
		u.Token = int64(pk) * 7919
		u.Rows = []mutation.Row{row(ck(int32(i/parts%rowsPer), "x"), mutation.NoLiveness, live(colV, 1, int32(i)))}
		return u
	}
	// rawKV returns the key and value the engine stores for upd(i).
	rawKV := func(i int) ([]byte, []byte) {
		u := upd(i)
		k := appendPartitionPrefix(nil, u.TableID, u.Token, u.Key)
		k = append(k, kindRow)
		k, _ = appendClustering(k, tbl, u.Rows[0].Clustering)
		k = appendCellSlot(k, tbl.ColumnByID(colV), nil)
		return k, appendCellValue(nil, &u.Rows[0].Cells[0], nil)
	}
	read := func(i int) *mutation.ReadCommand {
		u := upd(i)
		c := u.Rows[0].Clustering
		return &mutation.ReadCommand{TableID: tbl.ID, Key: u.Key, Token: u.Token, NowSec: 1,
			Slices: []mutation.Slice{{Start: mutation.Bound{Values: c, Inclusive: true}, End: mutation.Bound{Values: c, Inclusive: true}}}}
	}
	open := func(b *testing.B) *Pebble {
		// The engine's Pebble path: without the partition cache, which
		// answers from memory (BenchmarkPointRead compares both).
		p, err := Open(b.TempDir(), Options{SyncMode: SyncPeriodic, PartitionCacheSize: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		return p
	}
	load := func(b *testing.B, p *Pebble, raw bool) {
		for i := 0; i < parts*rowsPer; i++ {
			if raw {
				k, v := rawKV(i)
				if err := p.db.Set(k, v, pebble.NoSync); err != nil {
					b.Fatal(err)
				}
			} else {
				mustApply(b, p, tbl, upd(i))
			}
		}
		if err := p.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := p.Compact(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("write/engine", func(b *testing.B) {
		p := open(b)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := p.Apply(ctx, tbl, upd(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write/raw", func(b *testing.B) {
		p := open(b)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			k, v := rawKV(i)
			if err := p.db.Set(k, v, pebble.NoSync); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read/engine", func(b *testing.B) {
		p := open(b)
		load(b, p, false)
		cmds := make([]*mutation.ReadCommand, parts*rowsPer)
		for i := range cmds {
			cmds[i] = read(i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			ps, err := p.Read(ctx, tbl, cmds[i%len(cmds)])
			if err != nil || len(ps) != 1 || len(ps[0].Rows) != 1 {
				b.Fatalf("read: %v %d", err, len(ps))
			}
		}
	})
	// read/interleaved alternates engine reads and raw Gets (interleave).
	b.Run("read/interleaved", func(b *testing.B) {
		pe, pr := open(b), open(b)
		load(b, pe, false)
		load(b, pr, true)
		cmds := make([]*mutation.ReadCommand, parts*rowsPer)
		keys := make([][]byte, parts*rowsPer)
		for i := range cmds {
			cmds[i] = read(i)
			keys[i], _ = rawKV(i)
		}
		interleave(b, "read", func(i int) {
			ps, err := pe.Read(ctx, tbl, cmds[i%len(cmds)])
			if err != nil || len(ps) != 1 || len(ps[0].Rows) != 1 {
				b.Fatalf("read: %v %d", err, len(ps))
			}
		}, func(i int) {
			v, closer, err := pr.db.Get(keys[i%len(keys)])
			if err != nil || len(v) == 0 {
				b.Fatal(err)
			}
			closer.Close()
		})
	})
	// write/interleaved alternates chunks of engine Applys and raw Sets of
	// the same keys and values (unsynced on both sides), as
	// read/interleaved does for reads.
	b.Run("write/interleaved", func(b *testing.B) {
		pe, pr := open(b), open(b)
		updates := make([]*mutation.PartitionUpdate, parts*rowsPer)
		keys, vals := make([][]byte, len(updates)), make([][]byte, len(updates))
		for i := range updates {
			updates[i] = upd(i)
			keys[i], vals[i] = rawKV(i)
		}
		interleave(b, "write", func(i int) {
			if err := pe.Apply(ctx, tbl, updates[i%len(updates)]); err != nil {
				b.Fatal(err)
			}
		}, func(i int) {
			if err := pr.db.Set(keys[i%len(keys)], vals[i%len(vals)], pebble.NoSync); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("read/raw", func(b *testing.B) {
		p := open(b)
		load(b, p, true)
		keys := make([][]byte, parts*rowsPer)
		for i := range keys {
			keys[i], _ = rawKV(i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			v, closer, err := p.db.Get(keys[i%len(keys)])
			if err != nil || len(v) == 0 {
				b.Fatal(err)
			}
			closer.Close()
		}
	})
}

// interleave runs b.N operations as alternating chunks of 1000 engine and
// 1000 raw operations, so that both see the same machine load (this machine
// is shared: separate sub-benchmarks can differ by 2x from load alone), and
// reports both latencies and the engine's throughput as a percentage of
// raw Pebble's.
func interleave(b *testing.B, unit string, engine, raw func(i int)) {
	const chunk = 1000
	var engineNS, rawNS time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		start := time.Now()
		for i := done; i < done+n; i++ {
			engine(i)
		}
		mid := time.Now()
		for i := done; i < done+n; i++ {
			raw(i)
		}
		engineNS += mid.Sub(start)
		rawNS += time.Since(mid)
	}
	b.ReportMetric(float64(engineNS.Nanoseconds())/float64(b.N), "engine-ns/"+unit)
	b.ReportMetric(float64(rawNS.Nanoseconds())/float64(b.N), "raw-ns/"+unit)
	b.ReportMetric(100*float64(rawNS)/float64(engineNS), "%-of-raw")
}
