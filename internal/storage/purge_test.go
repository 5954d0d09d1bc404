package storage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
)

// rawKeys returns the number of keys of the table's data and purge index.
func rawKeys(t *testing.T, p *Pebble, tbl *schema.Table) (data, index int) {
	t.Helper()
	count := func(prefix []byte) int {
		it, err := p.db.NewIter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for valid := it.SeekGE(prefix); valid && len(it.Key()) >= len(prefix) && string(it.Key()[:len(prefix)]) == string(prefix); valid = it.Next() {
			n++
		}
		return n
	}
	return count(appendTablePrefix(nil, tbl.ID)), count(purgeIndexPrefix(tbl.ID))
}

func mustPurge(t *testing.T, p *Pebble, tbl *schema.Table, now int64) PurgeStats {
	t.Helper()
	st, err := p.Purge(context.Background(), tbl, now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func mustCompact(t *testing.T, p *Pebble) {
	t.Helper()
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := p.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestPurgeNoResurrection writes a value, pushes it to the bottom level,
// shadows it with each kind of deletion (and a newer live version in
// between, in another level), purges after gc_grace_seconds and compacts:
// the old value must stay gone and nothing may remain on disk.
func TestPurgeNoResurrection(t *testing.T) {
	withRow := func(r mutation.Row) *mutation.PartitionUpdate {
		u := update(testTable(), 1)
		u.Rows = []mutation.Row{r}
		return u
	}
	deletions := map[string]*mutation.PartitionUpdate{
		"cell tombstone": withRow(row(ck(1, "a"), mutation.NoLiveness, tomb(colV, 20, 100))),
		"row deletion": withRow(mutation.Row{Clustering: ck(1, "a"), Marker: mutation.NoLiveness,
			Deletion: mutation.Deletion{MarkedForDeleteAt: 20, LocalDeletionTime: 100}}),
		"range tombstone": func() *mutation.PartitionUpdate {
			u := update(testTable(), 1)
			u.RangeTombstones = []mutation.RangeTombstone{{
				Slice:    mutation.Slice{Start: mutation.Bound{Values: ck(1, "")[:1], Inclusive: true}, End: mutation.Bound{Values: ck(1, "")[:1], Inclusive: true}},
				Deletion: mutation.Deletion{MarkedForDeleteAt: 20, LocalDeletionTime: 100},
			}}
			return u
		}(),
		"partition deletion": func() *mutation.PartitionUpdate {
			u := update(testTable(), 1)
			u.Deletion = mutation.Deletion{MarkedForDeleteAt: 20, LocalDeletionTime: 100}
			return u
		}(),
	}
	for name, d := range deletions {
		for _, grace := range []int32{0, 1} {
			t.Run(name+"/gc_grace="+string(rune('0'+grace)), func(t *testing.T) {
				tbl := testTable()
				tbl.Params.GCGraceSeconds = grace
				p, err := Open(t.TempDir(), Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				mustApply(t, p, tbl, withRow(row(ck(1, "a"), mutation.NoLiveness, live(colV, 10, 1)))) // an UPDATE
				mustCompact(t, p)                                                                      // v=1 at the bottom level
				mustApply(t, p, tbl, withRow(row(ck(1, "a"), mutation.NoLiveness, live(colV, 15, 2))))
				if err := p.Flush(); err != nil { // v=2 in L0
					t.Fatal(err)
				}
				mustApply(t, p, tbl, d) // the deletion in the memtable
				cmd := pointRead(tbl, 1)
				cmd.NowSec = 100
				if got := mustRead(t, p, tbl, cmd); len(got) != 0 {
					t.Fatalf("before purge: %s", fmtPartitions(tbl, got))
				}
				// Not yet: local deletion time 100 must be < now - gc_grace.
				if st := mustPurge(t, p, tbl, 100+int64(grace)); st.Tombstones != 0 {
					t.Fatalf("purged too early: %+v", st)
				}
				if n, _ := rawKeys(t, p, tbl); n == 0 {
					t.Fatal("purged too early")
				}
				st := mustPurge(t, p, tbl, 101+int64(grace))
				if st.Tombstones == 0 {
					t.Fatalf("nothing purged: %+v", st)
				}
				for i := 0; i < 2; i++ {
					if got := mustRead(t, p, tbl, cmd); len(got) != 0 {
						t.Fatalf("resurrected: %s", fmtPartitions(tbl, got))
					}
					if data, index := rawKeys(t, p, tbl); data != 0 || index != 0 {
						t.Fatalf("%d data keys and %d index keys left", data, index)
					}
					mustCompact(t, p)
				}
				// As in Cassandra, a write with an old timestamp after the
				// purge is not shadowed any more.
				mustApply(t, p, tbl, withRow(row(ck(1, "a"), mutation.NoLiveness, live(colV, 5, 3))))
				if got := mustRead(t, p, tbl, cmd); len(got) != 1 {
					t.Fatalf("write after purge: %s", fmtPartitions(tbl, got))
				}
			})
		}
	}
}

// TestPurgeExpired purges an expired cell and marker once expired and
// gc_grace_seconds after their write time; a live cell stays.
func TestPurgeExpired(t *testing.T) {
	tbl := testTable()
	tbl.Params.GCGraceSeconds = 5
	p, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u := update(tbl, 1)
	// Written at 100 with TTL 10: expires at 110, purgeable after 105 and
	// expiry.
	u.Rows = []mutation.Row{
		row(ck(1, "a"), mutation.Liveness{Timestamp: 10, TTL: 10, LocalDeletionTime: 110}, expiring(colV, 10, 1, 10, 110)),
		row(ck(2, "a"), marker(10), live(colV, 10, 2)),
	}
	mustApply(t, p, tbl, u)
	mustCompact(t, p)
	if st := mustPurge(t, p, tbl, 109); st.Tombstones != 0 {
		t.Fatalf("purged before expiry: %+v", st)
	}
	if st := mustPurge(t, p, tbl, 110); st.Tombstones != 2 {
		t.Fatalf("purge at expiry: %+v", st)
	}
	mustCompact(t, p)
	if data, index := rawKeys(t, p, tbl); data != 2 || index != 0 {
		t.Fatalf("%d data keys and %d index keys left, want 2 and 0", data, index)
	}
	cmd := pointRead(tbl, 1)
	cmd.NowSec = 100 // even a read with an old clock sees it gone
	got := mustRead(t, p, tbl, cmd)
	if want := "pk=1 token=-2000\n  [2 \"a\"] marker@10 v=2@10\n"; fmtPartitions(tbl, got) != want {
		t.Fatalf("got\n%s\nwant\n%s", fmtPartitions(tbl, got), want)
	}
}

// TestPurgeReindexes checks that expiring data not yet expired when its
// index entry comes due gets a new entry, due at expiry, and that raising
// gc_grace_seconds delays a purge.
func TestPurgeReindexes(t *testing.T) {
	tbl := testTable()
	tbl.Params.GCGraceSeconds = 0
	p, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u := update(tbl, 1)
	u.Rows = []mutation.Row{row(ck(1, "a"), mutation.NoLiveness, expiring(colV, 10, 1, 10, 110))}
	mustApply(t, p, tbl, u)
	u = update(tbl, 2)
	u.Rows = []mutation.Row{row(ck(1, "a"), mutation.NoLiveness, tomb(colV, 10, 100))}
	mustApply(t, p, tbl, u)
	tbl.Params.GCGraceSeconds = 3
	for _, c := range []struct {
		now                    int64
		partitions, tombstones int
	}{
		{103, 0, 0}, // written at 100, not < 103 - 3
		{104, 2, 1}, // both due; the tombstone goes, the cell is not expired
		{109, 0, 0}, // re-indexed to come due at its expiry (110)
		{110, 1, 1},
	} {
		if st := mustPurge(t, p, tbl, c.now); st.Partitions != c.partitions || st.Tombstones != c.tombstones {
			t.Fatalf("purge at %d: %+v", c.now, st)
		}
	}
	if data, index := rawKeys(t, p, tbl); data != 0 || index != 0 {
		t.Fatalf("%d data keys and %d index keys left", data, index)
	}
}

// TestPurgeLoop runs the background purge with an injected clock.
func TestPurgeLoop(t *testing.T) {
	tbl := testTable()
	tbl.Params.GCGraceSeconds = 0
	p, err := Open(t.TempDir(), Options{
		PurgeInterval: 5 * time.Millisecond,
		Tables:        func() []*schema.Table { return []*schema.Table{tbl} },
		Now:           func() time.Time { return time.Unix(200, 0) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u := update(tbl, 1)
	u.Deletion = del(50)
	u.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1))}
	mustApply(t, p, tbl, u)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if data, index := rawKeys(t, p, tbl); data == 0 && index == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("background purge did not run")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPurgeConcurrentWrites purges continuously while writers alternate
// tombstones and newer live values on the same cells: the purge's re-check
// and deletes hold the partition lock, so no acknowledged live write is
// ever deleted.
func TestPurgeConcurrentWrites(t *testing.T) {
	tbl := testTable()
	tbl.Params.GCGraceSeconds = 0
	p, err := Open(t.TempDir(), Options{SyncMode: SyncPeriodic})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	const rounds, pks = 200, 4
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := p.Purge(ctx, tbl, 100); err != nil {
				errc <- err
				return
			}
		}
	}()
	for i := 1; i <= rounds; i++ {
		for pk := int32(0); pk < pks; pk++ {
			u := update(tbl, pk)
			u.Rows = []mutation.Row{row(ck(1, "a"), mutation.NoLiveness, tomb(colV, int64(2*i), 1))}
			mustApply(t, p, tbl, u)
			u = update(tbl, pk)
			u.Rows = []mutation.Row{row(ck(1, "a"), mutation.NoLiveness, live(colV, int64(2*i+1), int32(i)))}
			mustApply(t, p, tbl, u)
		}
		if i%50 == 0 {
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	mustPurge(t, p, tbl, 100)
	mustCompact(t, p)
	for pk := int32(0); pk < pks; pk++ {
		got := fmtPartitions(tbl, mustRead(t, p, tbl, pointRead(tbl, pk)))
		want := fmt.Sprintf("pk=%d token=%d\n  [1 \"a\"] v=%d@%d\n", pk, pkToken(pk), rounds, 2*rounds+1)
		if got != want {
			t.Fatalf("got\n%swant\n%s", got, want)
		}
	}
}
