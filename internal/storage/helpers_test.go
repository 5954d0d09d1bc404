package storage

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Column ids of the test table.
const (
	colS  = 4 // s int static
	colV  = 5 // v int
	colM  = 6 // m map<int, int>
	colST = 7 // st set<text>
)

// testTable is
//
//	CREATE TABLE ks.t (pk int, ck1 int, ck2 text, s int static, v int,
//	  m map<int, int>, st set<text>, PRIMARY KEY (pk, ck1, ck2))
//	  WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)
func testTable() *schema.Table {
	id := uuid.MustParse("6f1c7a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b")
	return schema.NewTable("ks", "t", id, []*schema.Column{
		{Name: "pk", Type: types.IntType, Kind: schema.PartitionKey, Position: 0, ID: 1},
		{Name: "ck1", Type: types.IntType, Kind: schema.Clustering, Position: 0, ID: 2},
		{Name: "ck2", Type: types.TextType, Kind: schema.Clustering, Position: 1, Desc: true, ID: 3},
		{Name: "s", Type: types.IntType, Kind: schema.Static, Position: -1, ID: colS},
		{Name: "v", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: colV},
		{Name: "m", Type: types.MapOf(types.IntType, types.IntType, false), Kind: schema.Regular, Position: -1, ID: colM},
		{Name: "st", Type: types.SetOf(types.TextType, false), Kind: schema.Regular, Position: -1, ID: colST},
	}, schema.DefaultTableParams())
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// pkToken is a stand-in partitioner (storage trusts the caller's token):
// a few partitions share a token to exercise ordering by key within a token.
func pkToken(pk int32) int64 { return int64(pk%7)*1000 - 3000 }

func ck(a int32, b string) [][]byte { return [][]byte{i32(a), []byte(b)} }

func live(col uint32, ts int64, v int32) mutation.Cell {
	return mutation.Cell{Column: col, Value: i32(v), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}
}

func tomb(col uint32, ts, ldt int64) mutation.Cell {
	return mutation.Cell{Column: col, Timestamp: ts, LocalDeletionTime: ldt, Tombstone: true}
}

func expiring(col uint32, ts int64, v int32, ttl int32, expiry int64) mutation.Cell {
	c := live(col, ts, v)
	c.TTL, c.LocalDeletionTime = ttl, expiry
	return c
}

func marker(ts int64) mutation.Liveness {
	return mutation.Liveness{Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}
}

func del(ts int64) mutation.Deletion {
	return mutation.Deletion{MarkedForDeleteAt: ts, LocalDeletionTime: 100}
}

func row(c [][]byte, m mutation.Liveness, cells ...mutation.Cell) mutation.Row {
	return mutation.Row{Clustering: c, Marker: m, Deletion: mutation.Live, Cells: cells}
}

func update(t *schema.Table, pk int32) *mutation.PartitionUpdate {
	return &mutation.PartitionUpdate{TableID: t.ID, Key: i32(pk), Token: pkToken(pk), Deletion: mutation.Live}
}

func pointRead(t *schema.Table, pk int32) *mutation.ReadCommand {
	return &mutation.ReadCommand{TableID: t.ID, Key: i32(pk), Token: pkToken(pk), NowSec: 1000}
}

// engines returns a fresh Pebble engine and a fresh Memory engine.
func engines(tb testing.TB) map[string]Engine {
	p, err := Open(tb.TempDir(), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return map[string]Engine{"pebble": p, "memory": NewMemory()}
}

// reopen closes p and opens the engine in dir again (SyncPeriodic).
func reopen(tb testing.TB, p *Pebble, dir string) *Pebble {
	tb.Helper()
	if err := p.Close(); err != nil {
		tb.Fatal(err)
	}
	p, err := Open(dir, Options{SyncMode: SyncPeriodic})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// crash stops p the way a killed process leaves it: the memtable is not
// flushed, so what it holds is only in the write-ahead log, as far as it
// was written (a killed process loses nothing the kernel has; Pebble's
// Close syncs the log). Losing what was not synced, as a power failure
// does, takes a crashable file system (Options.fs; TestGroupWindow).
func crash(tb testing.TB, p *Pebble) {
	tb.Helper()
	if err := p.shutdown(false); err != nil {
		tb.Fatal(err)
	}
}

func mustApply(tb testing.TB, e Engine, t *schema.Table, us ...*mutation.PartitionUpdate) {
	tb.Helper()
	if err := e.Apply(context.Background(), t, us...); err != nil {
		tb.Fatal(err)
	}
}

func mustRead(tb testing.TB, e Engine, t *schema.Table, cmd *mutation.ReadCommand) []mutation.Partition {
	tb.Helper()
	ps, err := e.Read(context.Background(), t, cmd)
	if err != nil {
		tb.Fatal(err)
	}
	return ps
}
