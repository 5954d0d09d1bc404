package storage

import (
	"sync"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

// TestHeaderCache checks that point reads that skip the partition header
// (hdrcache.go) still see every header and static entry written after the
// partition was cached as having none.
func TestHeaderCache(t *testing.T) {
	tbl := testTable()
	// The header cache serves partitions the partition cache does not keep.
	p, err := Open(t.TempDir(), Options{PartitionCacheSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	one := []mutation.Slice{{Start: mutation.Bound{Values: ck(2, "b"), Inclusive: true}, End: mutation.Bound{Values: ck(2, "b"), Inclusive: true}}}
	read := func() []mutation.Partition {
		cmd := pointRead(tbl, 1)
		cmd.Slices = one
		return mustRead(t, p, tbl, cmd)
	}
	u := update(tbl, 1)
	u.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1)), row(ck(2, "b"), marker(10), live(colV, 10, 2))}
	mustApply(t, p, tbl, u)
	for i := 0; i < 2; i++ { // the first read records, the second uses it
		if ps := read(); len(ps) != 1 || len(ps[0].Rows) != 1 || ps[0].Static != nil {
			t.Fatalf("read %d: %+v", i, ps)
		}
	}
	if !p.hdr.known(appendPartitionPrefix(nil, tbl.ID, pkToken(1), i32(1)), p.hdr.epoch(pkToken(1))) {
		t.Fatal("partition not cached as header-less")
	}
	// A static row written later is seen.
	u = update(tbl, 1)
	u.Static = &mutation.Row{Marker: mutation.NoLiveness, Deletion: mutation.Live, Cells: []mutation.Cell{live(colS, 11, 7)}}
	mustApply(t, p, tbl, u)
	if ps := read(); len(ps) != 1 || ps[0].Static == nil {
		t.Fatalf("static row not seen: %+v", ps)
	}
	// So is a range tombstone over the row, and a partition deletion.
	u = update(tbl, 1)
	u.RangeTombstones = []mutation.RangeTombstone{{Slice: mutation.Slice{Start: mutation.Bound{Values: ck(2, "b"), Inclusive: true}, End: mutation.Bound{Values: ck(2, "b"), Inclusive: true}}, Deletion: del(12)}}
	mustApply(t, p, tbl, u)
	if ps := read(); len(ps) != 1 || len(ps[0].Rows) != 0 {
		t.Fatalf("range tombstone not applied: %+v", ps)
	}
	u = update(tbl, 1)
	u.Deletion = del(20)
	mustApply(t, p, tbl, u)
	if ps := read(); len(ps) != 0 {
		t.Fatalf("partition deletion not applied: %+v", ps)
	}

	// Partitions cached as header-less get partition deletions while other
	// goroutines keep reading them (and recording what they saw): a read
	// that starts after a deletion was acknowledged never sees the row.
	const parts = 64
	cmdFor := func(pk int32) *mutation.ReadCommand {
		cmd := pointRead(tbl, pk)
		cmd.Slices = one
		return cmd
	}
	for pk := int32(100); pk < 100+parts; pk++ {
		u := update(tbl, pk)
		u.Rows = []mutation.Row{row(ck(2, "b"), marker(10), live(colV, 10, 1))}
		mustApply(t, p, tbl, u)
		mustRead(t, p, tbl, cmdFor(pk))
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for g := 0; g < 3; g++ {
		readers.Add(1)
		go func(g int) {
			defer readers.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mustRead(t, p, tbl, cmdFor(int32(100+(i*7+g)%parts)))
			}
		}(g)
	}
	for pk := int32(100); pk < 100+parts; pk++ {
		u := update(tbl, pk)
		u.Deletion = del(20)
		mustApply(t, p, tbl, u)
		for i := 0; i < 3; i++ {
			if ps := mustRead(t, p, tbl, cmdFor(pk)); len(ps) != 0 {
				t.Errorf("partition %d deleted but read: %+v", pk, ps)
			}
		}
	}
	close(stop)
	readers.Wait()
}

// TestHeaderCacheBumpParity: while a write is in flight, its stripe is
// not quiet, however many of its partitions share the stripe.
func TestHeaderCacheBumpParity(t *testing.T) {
	var c hdrCache
	a, b := int64(5), int64(5+hdrEpochStripes) // one stripe
	for _, toks := range [][]int64{{a}, {a, b}, {a, b, a, 7}} {
		before := c.epoch(a)
		c.begin(toks)
		if e := c.epoch(a); quiet(e) || e == before {
			t.Fatalf("begin(%v): epoch %d quiet", toks, e)
		}
		c.end(toks)
		if e := c.epoch(a); !quiet(e) || e == before {
			t.Fatalf("end(%v): epoch %d", toks, e)
		}
	}
}

// TestHeaderCacheConcurrentWriters: two writes in flight on one stripe
// (other partitions, possibly other tables) leave it not quiet, so a
// "no header" recorded meanwhile is never trusted once one of them has
// committed its header.
func TestHeaderCacheConcurrentWriters(t *testing.T) {
	var c hdrCache
	pp := appendPartitionPrefix(nil, testTable().ID, 5, i32(1))
	w1, w2 := []int64{5}, []int64{5 + hdrEpochStripes}
	c.begin(w1) // W1, a header write to pp, starts
	c.begin(w2) // W2, to another partition of the stripe, starts
	// A reader whose iterator does not see W1 records "no header".
	c.record(pp, c.epoch(5))
	// W1 commits; a reader whose iterator sees it must not trust that.
	if c.known(pp, c.epoch(5)) {
		t.Fatalf("'no header' trusted while two writes are in flight (epoch %#x)", c.epoch(5))
	}
	c.end(w1)
	c.end(w2)
	if e := c.epoch(5); !quiet(e) {
		t.Fatalf("epoch %#x not quiet after both writes", e)
	}
}
