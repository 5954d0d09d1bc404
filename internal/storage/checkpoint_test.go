package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// restoredTable is testTable recreated under another id with other column
// ids (as CREATE TABLE from a snapshot's schema.cql assigns them), without
// m and with a new column w.
func restoredTable() *schema.Table {
	t := testTable()
	cols := []*schema.Column{t.PartitionKey[0], t.Clustering[0], t.Clustering[1],
		{Name: "w", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: 4},
		{Name: "st", Type: types.SetOf(types.TextType, false), Kind: schema.Regular, Position: -1, ID: 5},
		{Name: "s", Type: types.IntType, Kind: schema.Static, Position: -1, ID: 6},
		{Name: "v", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: 7},
	}
	return schema.NewTable("ks2", "t2", uuid.MustParse("0e8d1b0a-5c1e-4f7a-9d43-2b6c8e0f1a2b"), cols, t.Params)
}

func fullScan(t *schema.Table) *mutation.ReadCommand {
	return &mutation.ReadCommand{TableID: t.ID, StartToken: -1 << 63, EndToken: -1 << 63, NowSec: 1000}
}

// TestCheckpointImport checkpoints a table, drops it and imports its data
// into a table of another id and other column ids, with and without the
// partition cache (without, the header cache must see the imported
// partition deletion).
func TestCheckpointImport(t *testing.T) {
	for _, pcSize := range []int64{0, -1} {
		t.Run(fmt.Sprintf("pcache=%d", pcSize), func(t *testing.T) { testCheckpointImport(t, pcSize) })
	}
	// One batch per partition.
	defer func(n int) { importBatchBytes = n }(importBatchBytes)
	importBatchBytes = 1
	t.Run("small batches", func(t *testing.T) { testCheckpointImport(t, 0) })
}

func testCheckpointImport(t *testing.T, pcSize int64) {
	ctx := context.Background()
	dir := t.TempDir()
	p, err := Open(filepath.Join(dir, "data"), Options{SyncMode: SyncPeriodic, PartitionCacheSize: pcSize})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	from := testTable()

	// Partition 1: a static cell, two rows with collections; partition 2:
	// a row under a range tombstone that shadows part of it; partition 3:
	// deleted as a whole after its row.
	u1 := update(from, 1)
	s := row(nil, mutation.NoLiveness, live(colS, 10, 7))
	u1.Static = &s
	m := live(colM, 10, 5)
	m.Path = i32(1)
	st := live(colST, 10, 0)
	st.Path, st.Value = []byte("x"), nil
	u1.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1), m, st), row(ck(2, "b"), marker(10), live(colV, 10, 2))}
	u2 := update(from, 2)
	u2.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 3)), row(ck(5, "a"), marker(10), live(colV, 10, 4))}
	u3 := update(from, 3)
	u3.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 5))}
	mustApply(t, p, from, u1, u2, u3)
	u2 = update(from, 2)
	u2.RangeTombstones = []mutation.RangeTombstone{{Slice: mutation.Slice{Start: mutation.Bound{Values: [][]byte{i32(4)}, Inclusive: true}}, Deletion: del(20)}}
	u3 = update(from, 3)
	u3.Deletion = del(20)
	mustApply(t, p, from, u2, u3)
	want := mustRead(t, p, from, fullScan(from))

	snap := filepath.Join(dir, "snap")
	if err := p.Checkpoint(snap, false, from.ID); err != nil {
		t.Fatal(err)
	}
	// Neither later writes nor the drop reach the checkpoint.
	later := update(from, 4)
	later.Rows = []mutation.Row{row(ck(1, "a"), marker(30))}
	mustApply(t, p, from, later)
	if err := p.DropTable(ctx, from.ID); err != nil {
		t.Fatal(err)
	}

	to := restoredTable()
	// The target already holds a newer v for partition 1's first row, and
	// partition 3 (read now, so that the header and partition caches know
	// it without a deletion).
	pre := update(to, 1)
	pre.Rows = []mutation.Row{row(ck(1, "a"), mutation.NoLiveness, live(7, 40, 100))}
	pre3 := update(to, 3)
	pre3.Rows = []mutation.Row{row(ck(9, "z"), marker(15), live(7, 15, 9))}
	mustApply(t, p, to, pre, pre3)
	// A read with a clustering lower bound, which the header cache serves.
	read3 := func() *mutation.ReadCommand {
		cmd := pointRead(to, 3)
		cmd.Slices = []mutation.Slice{{Start: mutation.Bound{Values: [][]byte{i32(9)}, Inclusive: true}, End: mutation.Bound{Inclusive: true}}}
		return cmd
	}
	if ps := mustRead(t, p, to, read3()); len(ps) != 1 {
		t.Fatalf("partition 3 before the import: %v", ps)
	}

	stats, err := p.Import(ctx, snap, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Skipped != 1 || stats.Entries == 0 {
		t.Fatalf("stats %+v: want one skipped cell (m)", stats)
	}
	got := mustRead(t, p, to, fullScan(to))
	// Expected: want in to's column ids, without m, partition 1's first
	// row with the newer v; partition 3 stays deleted (its row written at
	// 15 is older than the deletion at 20).
	ids := map[uint32]uint32{colS: 6, colV: 7, colST: 5}
	for i := range want {
		w := &want[i]
		if w.Static != nil {
			w.Static.Cells = remap(w.Static.Cells, ids)
		}
		for j := range w.Rows {
			w.Rows[j].Cells = remap(w.Rows[j].Cells, ids)
		}
	}
	want[0].Rows[0].Cells[1].Value, want[0].Rows[0].Cells[1].Timestamp = i32(100), 40
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("imported:\n%+v\nwant:\n%+v", got, want)
	}
	if ps := mustRead(t, p, to, read3()); len(ps) != 0 {
		t.Fatalf("partition 3 after importing its deletion: %+v", ps)
	}

	// Importing again changes nothing.
	if _, err := p.Import(ctx, snap, from, to); err != nil {
		t.Fatal(err)
	}
	if again := mustRead(t, p, to, fullScan(to)); !reflect.DeepEqual(again, want) {
		t.Fatalf("a second import changed the table: %+v", again)
	}
}

// purgeAfterFirstBatch is a context whose Err, which Import checks before
// committing each batch, runs a purge before the second batch.
type purgeAfterFirstBatch struct {
	context.Context
	calls int
	purge func()
}

func (c *purgeAfterFirstBatch) Err() error {
	if c.calls++; c.calls == 2 {
		c.purge()
	}
	return nil
}

// TestImportBatchesEndBetweenPartitions: a purge between two of Import's
// batches cannot separate a partition's imported deletion (purgeable: its
// gc_grace_seconds has passed) from the rows it shadows.
func TestImportBatchesEndBetweenPartitions(t *testing.T) {
	defer func(n int) { importBatchBytes = n }(importBatchBytes)
	importBatchBytes = 1
	dir := t.TempDir()
	p, err := Open(filepath.Join(dir, "data"), Options{PartitionCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	from := testTable()
	u := update(from, 1)
	u.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1)), row(ck(2, "b"), marker(10), live(colV, 10, 2))}
	mustApply(t, p, from, u)
	u = update(from, 1)
	u.Deletion = del(20)
	mustApply(t, p, from, u)
	snap := filepath.Join(dir, "snap")
	if err := p.Checkpoint(snap, true, from.ID); err != nil {
		t.Fatal(err)
	}
	to := restoredTable()
	to.Params.GCGraceSeconds = 0
	// The target's own purgeable tombstone in partition 1 makes the
	// partition a purge candidate while the import runs.
	pre := update(to, 1)
	pre.Rows = []mutation.Row{row(ck(9, "z"), mutation.NoLiveness, tomb(7, 5, 100))}
	mustApply(t, p, to, pre)
	ctx := &purgeAfterFirstBatch{Context: context.Background(), purge: func() {
		if st, err := p.Purge(context.Background(), to, 1000); err != nil || st.Partitions != 1 {
			t.Errorf("purge between the batches: %+v, %v", st, err)
		}
	}}
	if _, err := p.Import(ctx, snap, from, to); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p, to, fullScan(to)); len(got) != 0 {
		t.Fatalf("rows deleted in the snapshot came back: %+v", got)
	}
}

// checkpointOneRow opens an engine with opts (closed with the test),
// writes one row of testTable and checkpoints it (flushed first when
// flush).
func checkpointOneRow(t *testing.T, opts Options, flush bool) (*Pebble, string, *schema.Table) {
	t.Helper()
	dir := t.TempDir()
	p, err := Open(filepath.Join(dir, "data"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	from := testTable()
	u := update(from, 1)
	u.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1))}
	mustApply(t, p, from, u)
	snap := filepath.Join(dir, "snap")
	if err := p.Checkpoint(snap, flush, from.ID); err != nil {
		t.Fatal(err)
	}
	return p, snap, from
}

// TestImportSkipsUnknownColumnIDs: cells of a column the snapshot's table
// had dropped are not imported, even when the target uses the dropped
// column's id for a column of its own (ids are per table).
func TestImportSkipsUnknownColumnIDs(t *testing.T) {
	p, snap, from := checkpointOneRow(t, Options{}, true)
	// from without v (dropped), every other column under its own id; to
	// the same, plus x under v's old id.
	var cols []*schema.Column
	for _, c := range from.Columns {
		if c.Name != "v" {
			cols = append(cols, c)
		}
	}
	dropped := schema.NewTable("ks", "t", from.ID, cols, from.Params)
	to := schema.NewTable("ks", "t2", uuid.MustParse("0e8d1b0a-5c1e-4f7a-9d43-2b6c8e0f1a2b"),
		append(append([]*schema.Column(nil), cols...), &schema.Column{Name: "x", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: colV}),
		from.Params)
	st, err := p.Import(context.Background(), snap, dropped, to)
	if err != nil {
		t.Fatal(err)
	}
	got := mustRead(t, p, to, fullScan(to))
	if st.Skipped != 1 || len(got) != 1 || len(got[0].Rows) != 1 || len(got[0].Rows[0].Cells) != 0 {
		t.Fatalf("imported %+v (%+v): want the row without cells", got, st)
	}
}

// remap renames cells' columns and drops those without a new id, keeping
// the reader's order (column id, then path).
func remap(cells []mutation.Cell, ids map[uint32]uint32) []mutation.Cell {
	var out []mutation.Cell
	for _, c := range cells {
		if id, ok := ids[c.Column]; ok {
			c.Column = id
			out = append(out, c)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Column < out[j-1].Column; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestCheckpointWALDir: with the log in a directory of its own
// (commitlog_directory), a checkpoint's unflushed writes come from the log
// copied into it, and the live log (whose later writes are not in the
// checkpoint) is not read.
func TestCheckpointWALDir(t *testing.T) {
	p, snap, from := checkpointOneRow(t, Options{WALDir: filepath.Join(t.TempDir(), "wal")}, false)
	later := update(from, 2)
	later.Rows = []mutation.Row{row(ck(1, "a"), marker(10))}
	mustApply(t, p, from, later)
	to := restoredTable()
	if _, err := p.Import(context.Background(), snap, from, to); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, p, to, fullScan(to)); len(got) != 1 || len(got[0].Rows) != 1 {
		t.Fatalf("imported %+v, want partition 1 alone", got)
	}
}

func TestImportRefusesAnotherKey(t *testing.T) {
	p, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	from := testTable()
	to := restoredTable()
	to.Clustering[1] = &schema.Column{Name: "ck2", Type: types.TextType, Kind: schema.Clustering, Position: 1, ID: 3}
	if _, err := p.Import(context.Background(), t.TempDir(), from, to); err == nil || !strings.Contains(err.Error(), "clustering column ck2") {
		t.Fatalf("a clustering of another order: %v", err)
	}
	to = restoredTable()
	to.Column("v").Type = types.BigintType
	if _, err := p.Import(context.Background(), t.TempDir(), from, to); err == nil || !strings.Contains(err.Error(), "column v is regular int in the snapshot but regular bigint") {
		t.Fatalf("a column of another type: %v", err)
	}
}
