package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

// openTest opens an engine closed at the end of the test.
func openTest(t testing.TB, opts Options) *Pebble {
	t.Helper()
	p, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// peek returns the cached partition pp (nil when not cached; a fill in
// progress is not).
func (c *partitionCache) peek(pp []byte) *pcPart {
	h := c.hash(pp)
	s := c.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.find(h, pp); i != 0 {
		e := s.part(i)
		return &e
	}
	return nil
}

// vOf returns the value of v in the single row of a point read, or -1.
func vOf(ps []mutation.Partition) int32 {
	if len(ps) != 1 || len(ps[0].Rows) != 1 {
		return -1
	}
	for _, c := range ps[0].Rows[0].Cells {
		if c.Column == colV && !c.Tombstone {
			return int32(binary.BigEndian.Uint32(c.Value))
		}
	}
	return -1
}

// TestPartitionCacheWriteThrough follows one cached partition through
// writes: folded in when the timestamps decide, dropped on a tie, right
// either way.
func TestPartitionCacheWriteThrough(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{})
	pp := appendPartitionPrefix(nil, tbl.ID, pkToken(1), i32(1))
	write := func(ts int64, v int32) {
		u := update(tbl, 1)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(ts), live(colV, ts, v))}
		mustApply(t, p, tbl, u)
	}
	read := func() int32 { return vOf(mustRead(t, p, tbl, pointRead(tbl, 1))) }

	if got := read(); got != -1 || p.pc.peek(pp) == nil {
		t.Fatalf("absent partition: v=%d, cached %v", got, p.pc.peek(pp) != nil)
	}
	write(10, 1) // folded into the cached empty partition
	e := p.pc.peek(pp)
	if e == nil || e.len() != 2 {
		t.Fatalf("after the first write: %+v", e)
	}
	if got := read(); got != 1 {
		t.Fatalf("v = %d, want 1", got)
	}
	write(20, 2)
	if e2 := p.pc.peek(pp); e2 == nil || &e2.buf[0] == &e.buf[0] {
		t.Fatal("newer write not folded in")
	}
	if got := read(); got != 2 {
		t.Fatalf("v = %d, want 2", got)
	}
	write(5, 9) // older: loses
	if got := read(); got != 2 || p.pc.peek(pp) == nil {
		t.Fatalf("v = %d after an older write, want 2", got)
	}
	write(20, 3) // same timestamp, other value: decided by decoding
	if p.pc.peek(pp) != nil {
		t.Fatal("a tie was folded in")
	}
	if got := read(); got != 3 { // the greater value wins a tie
		t.Fatalf("v = %d after a tie, want 3", got)
	}
	u := update(tbl, 1)
	u.Deletion = del(30)
	mustApply(t, p, tbl, u)
	if ps := mustRead(t, p, tbl, pointRead(tbl, 1)); len(ps) != 0 || p.pc.peek(pp) == nil {
		t.Fatalf("after the partition deletion: %+v", ps)
	}
	// Misses: the first read and the read after the tie; the rest hit.
	if st := p.PartitionCacheStats(); st.Entries != 1 || st.Misses != 2 || st.Hits != 4 || st.Bytes <= 0 || st.Capacity != 32<<20 {
		t.Fatalf("stats %+v", st)
	}
}

// TestPartitionCacheHitNoCopy checks that a cache hit, and the read that
// fills the cache, return the cached values themselves, not copies, and that this is safe: what a read
// returned does not change when its partition is rewritten (new versions,
// chunks compacted) and then evicted, and an append to a returned value
// cannot write into the cache (it has no spare capacity).
func TestPartitionCacheHitNoCopy(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{SyncMode: SyncPeriodic, PartitionCacheSize: 256 << 10})
	write := func(pk int32, ts int64, v int32) {
		u := update(tbl, pk)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(ts), live(colV, ts, v))}
		mustApply(t, p, tbl, u)
	}
	value := func(ps []mutation.Partition) []byte {
		t.Helper()
		if vOf(ps) == -1 {
			t.Fatalf("no value of v in %+v", ps)
		}
		for _, c := range ps[0].Rows[0].Cells {
			if c.Column == colV {
				return c.Value
			}
		}
		return nil
	}
	pp := appendPartitionPrefix(nil, tbl.ID, pkToken(1), i32(1))
	write(1, 10, 7)
	filled := value(mustRead(t, p, tbl, pointRead(tbl, 1))) // the fill
	e := p.pc.peek(pp)
	if e == nil {
		t.Fatal("partition 1 not cached after a read")
	}
	v := value(mustRead(t, p, tbl, pointRead(tbl, 1))) // a hit
	inCache := func(v []byte) bool {
		for i := range e.len() {
			if cv := e.value(i); len(cv) > 0 && &cv[len(cv)-1] == &v[len(v)-1] {
				return true
			}
		}
		return false
	}
	for _, r := range []struct {
		what string
		v    []byte
	}{{"a fill", filled}, {"a hit", v}} {
		// pcPart.value caps a value at its end (keep's Clip is a second
		// guard): an append must not write into the next entry.
		if cap(r.v) != len(r.v) {
			t.Fatalf("%s's value has room to grow: len %d cap %d", r.what, len(r.v), cap(r.v))
		}
		if !inCache(r.v) {
			t.Fatalf("%s's value is a copy, not the cached bytes", r.what)
		}
	}
	held := bytes.Clone(v)
	// Rewrite partition 1 (each version at the end of the current chunk,
	// the chunks of dead versions compacted), then read enough others for
	// it to be evicted.
	for n := range 1000 {
		write(1, int64(20+n), int32(100+n))
	}
	for pk := int32(2); pk < 5000; pk++ {
		write(pk, 1, pk)
		mustRead(t, p, tbl, pointRead(tbl, pk))
	}
	if p.pc.peek(pp) != nil {
		t.Fatal("partition 1 still cached")
	}
	if !bytes.Equal(v, held) {
		t.Fatalf("a returned value changed under later writes: %x, was %x", v, held)
	}
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 1099 {
		t.Fatalf("v = %d, want 1099", got)
	}
}

// TestPartLayout writes parts up to the largest kept (pcMaxPartition
// bytes of keys and values, many small entries, after a 64 KiB prefix)
// and reads every key and value back: the offsets are uint16, counted
// from the end of the prefix.
func TestPartLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, ppLen := range []int{3, 40, 64 << 10} {
		pp := bytes.Repeat([]byte{'p'}, ppLen)
		var b pcBuilder
		var keys, vals [][]byte
		for n := 0; ; n++ {
			k := binary.BigEndian.AppendUint32(nil, uint32(n))
			v := bytes.Repeat([]byte{byte(n)}, rng.IntN(40))
			if len(b.data)+len(k)+len(v) > pcMaxPartition {
				break
			}
			b.add(k, v)
			keys, vals = append(keys, k), append(vals, v)
		}
		if len(b.data) < pcMaxPartition-50 {
			t.Fatalf("filled %d bytes only", len(b.data))
		}
		e := b.part(pp)
		if !bytes.Equal(e.prefix(), pp) || e.len() != len(keys) || int(e.data-e.pp) != len(b.data) {
			t.Fatalf("prefix of %d bytes: %d entries, %d bytes of data", ppLen, e.len(), e.data-e.pp)
		}
		for i := range keys {
			if !bytes.Equal(e.key(i), keys[i]) || !bytes.Equal(e.value(i), vals[i]) {
				t.Fatalf("prefix of %d bytes, entry %d: %x=%x, want %x=%x", ppLen, i, e.key(i), e.value(i), keys[i], vals[i])
			}
		}
		if i := e.search(keys[len(keys)/2]); i != len(keys)/2 {
			t.Fatalf("search found %d, want %d", i, len(keys)/2)
		}
	}
}

// TestPartitionCacheLarge checks that a partition too large to keep is
// read from Pebble, and that a partition that grows too large leaves.
func TestPartitionCacheLarge(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{})
	pp := appendPartitionPrefix(nil, tbl.ID, pkToken(2), i32(2))
	u := update(tbl, 2)
	u.Rows = []mutation.Row{row(ck(0, "x"), marker(1), live(colV, 1, 0))}
	mustApply(t, p, tbl, u)
	mustRead(t, p, tbl, pointRead(tbl, 2))
	if e := p.pc.peek(pp); e == nil || e.big {
		t.Fatal("small partition not cached")
	}
	const rows = 2000
	u = update(tbl, 2)
	for i := range rows {
		u.Rows = append(u.Rows, row(ck(int32(i), "y"), marker(2), live(colV, 2, int32(i))))
	}
	mustApply(t, p, tbl, u)
	if e := p.pc.peek(pp); e != nil {
		t.Fatal("partition grown over the limit still cached")
	}
	for range 2 { // the first read finds it large, the second knows
		ps := mustRead(t, p, tbl, pointRead(tbl, 2))
		if len(ps) != 1 || len(ps[0].Rows) != rows+1 {
			t.Fatalf("read %d partitions", len(ps))
		}
		if e := p.pc.peek(pp); e == nil || !e.big {
			t.Fatalf("large partition entry %+v", e)
		}
	}
}

// TestPartitionCacheDropTable checks that TRUNCATE/DROP empty the cache.
func TestPartitionCacheDropTable(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{})
	u := update(tbl, 3)
	u.Rows = []mutation.Row{row(ck(0, "x"), marker(1), live(colV, 1, 7))}
	mustApply(t, p, tbl, u)
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 3))); got != 7 {
		t.Fatalf("v = %d", got)
	}
	if err := p.DropTable(context.Background(), tbl.ID); err != nil {
		t.Fatal(err)
	}
	if ps := mustRead(t, p, tbl, pointRead(tbl, 3)); len(ps) != 0 {
		t.Fatalf("read after DropTable: %+v", ps)
	}
}

// TestPartitionCacheConcurrent writes and reads a few partitions from many
// goroutines: every writer reads its own write back (or a newer one), and
// at the end the cache agrees with Pebble.
func TestPartitionCacheConcurrent(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{SyncMode: SyncPeriodic})
	const writers, readers, parts, writes = 4, 4, 3, 300
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				pk := int32(i % parts)
				ts := int64(i*writers + w + 1) // unique, increasing per writer
				u := update(tbl, pk)
				u.Rows = []mutation.Row{row(ck(1, "a"), marker(ts), live(colV, ts, int32(ts)))}
				if i%50 == 49 {
					u.Static = &mutation.Row{Marker: mutation.NoLiveness, Deletion: mutation.Live, Cells: []mutation.Cell{live(colS, ts, int32(ts))}}
				}
				if err := p.Apply(context.Background(), tbl, u); err != nil {
					errs <- err
					return
				}
				ps, err := p.Read(context.Background(), tbl, pointRead(tbl, pk))
				if err != nil {
					errs <- err
					return
				}
				if got := vOf(ps); int64(got) < ts {
					errs <- fmt.Errorf("writer %d wrote %d to partition %d and read %d", w, ts, pk, got)
					return
				}
			}
		}()
	}
	var rwg sync.WaitGroup
	for r := range readers {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := p.Read(context.Background(), tbl, pointRead(tbl, int32((i+r)%parts))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for pk := range int32(parts) {
		cached := mustRead(t, p, tbl, pointRead(tbl, pk))
		pc := p.pc
		p.pc = nil
		direct := mustRead(t, p, tbl, pointRead(tbl, pk))
		p.pc = pc
		if !reflect.DeepEqual(cached, direct) {
			t.Fatalf("partition %d: cached %+v, Pebble %+v", pk, cached, direct)
		}
		if got, want := vOf(direct), int32((writes-parts+int(pk))*writers+writers); got != want {
			t.Fatalf("partition %d: v = %d, want %d", pk, got, want)
		}
	}
}

// TestPartitionCacheFillRace commits a write between a fill's read and its
// publication: the fill, which did not see the write, must fold it in.
func TestPartitionCacheFillRace(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{})
	write := func(ts int64, v int32) {
		u := update(tbl, 1)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(ts), live(colV, ts, v))}
		mustApply(t, p, tbl, u)
	}
	write(10, 1)
	p.pc.afterFill = func() {
		p.pc.afterFill = nil
		write(20, 2)
	}
	// Concurrent with the write: either answer is right.
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 1 && got != 2 {
		t.Fatalf("v = %d, want 1 or 2", got)
	}
	pp := appendPartitionPrefix(nil, tbl.ID, pkToken(1), i32(1))
	if e := p.pc.peek(pp); e == nil {
		t.Fatalf("fill not published: %+v", e)
	}
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 2 {
		t.Fatalf("v = %d after the write, want 2", got)
	}
	// A purge between a fill's read and its publication: not published.
	p.pc.afterFill = func() {
		p.pc.afterFill = nil
		p.pc.drop(pp)
	}
	p.pc.drop(pp)
	unpublished := mustRead(t, p, tbl, pointRead(tbl, 1))
	if got := vOf(unpublished); got != 2 {
		t.Fatalf("v = %d, want 2", got)
	}
	if e := p.pc.peek(pp); e != nil {
		t.Fatalf("fill published after a drop: %+v", e)
	}
	// Its values are returned uncopied but are not the reader's scratch:
	// later fills (the same readers from the pool), of partitions larger
	// than it so that they overwrite all of a scratch it could have used,
	// and unpublished too so that they take the same path, leave them
	// alone.
	for pk := int32(100); pk < 110; pk++ {
		u := update(tbl, pk)
		for r := range int32(5) {
			u.Rows = append(u.Rows, row(ck(r, "a"), marker(1), live(colV, 1, 1<<20)))
		}
		mustApply(t, p, tbl, u)
		later := appendPartitionPrefix(nil, tbl.ID, pkToken(pk), i32(pk))
		p.pc.afterFill = func() {
			p.pc.afterFill = nil
			p.pc.drop(later)
		}
		mustRead(t, p, tbl, pointRead(tbl, pk))
		if e := p.pc.peek(later); e != nil {
			t.Fatalf("later fill of %d published after a drop", pk)
		}
	}
	if got := vOf(unpublished); got != 2 {
		t.Fatalf("an unpublished fill's value changed under later fills: v = %d, want 2", got)
	}
	// A write during the fill that ties with what the fill read (same
	// timestamp, another value): the fold cannot tell the winner without
	// decoding the commit order, so nothing is published; the reader gets
	// its snapshot, and the next read Pebble's reconciliation (the greater
	// value wins a tie, as in Cassandra).
	p.pc.afterFill = func() {
		p.pc.afterFill = nil
		write(20, 3)
	}
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 2 {
		t.Fatalf("v = %d, want the snapshot's 2", got)
	}
	if e := p.pc.peek(pp); e != nil {
		t.Fatalf("fill published after a tie: %+v", e)
	}
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 3 {
		t.Fatalf("v = %d after the tie, want 3", got)
	}
	// A write during the fill that loses (an older timestamp): what was
	// read is published, with the read's values (that the losing fold
	// leaves it uncopied is TestFoldOne's).
	p.pc.drop(pp)
	p.pc.afterFill = func() {
		p.pc.afterFill = nil
		write(5, 9)
	}
	if got := vOf(mustRead(t, p, tbl, pointRead(tbl, 1))); got != 3 {
		t.Fatalf("v = %d, want 3", got)
	}
	e := p.pc.peek(pp)
	if e == nil || e.big {
		t.Fatalf("fill with a losing write not published: %+v", e)
	}
	// A write during the fill that makes the partition too large for the
	// cache: a marker that it is too large is published, not the rows.
	p.pc.drop(pp)
	p.pc.maxPart = len(e.buf) + 8
	p.pc.afterFill = func() {
		p.pc.afterFill = nil
		u := update(tbl, 1)
		for c := int32(2); c < 50; c++ {
			u.Rows = append(u.Rows, row(ck(c, "b"), marker(30), live(colV, 30, c)))
		}
		mustApply(t, p, tbl, u)
	}
	mustRead(t, p, tbl, pointRead(tbl, 1))
	if e := p.pc.peek(pp); e == nil || !e.big {
		t.Fatalf("fill that grew too large not marked big: %+v", e)
	}
	if ps := mustRead(t, p, tbl, pointRead(tbl, 1)); len(ps) != 1 || len(ps[0].Rows) != 49 {
		t.Fatalf("after the fill that grew too large: %s", fmtPartitions(tbl, ps))
	}
}

// TestPartitionCacheShard checks a shard's slots: LRU eviction, reuse of
// freed slots, and two prefixes with one hash (the second replaces the
// first, and neither is mistaken for the other).
func TestPartitionCacheShard(t *testing.T) {
	var b pcBuilder
	b.add([]byte("k"), bytes.Repeat([]byte("v"), 100))
	cost := int64(b.size([]byte("p0"))) + pcEntryOverhead
	var s pcShard
	s.init(3 * cost)
	put := func(h uint64, pp string) { s.put(h, []byte(pp), &b) }
	for i := range 3 {
		put(uint64(i), fmt.Sprint("p", i))
	}
	s.touch(s.find(0, []byte("p0"))) // p1 is now the least recently used
	put(3, "p3")
	if s.find(1, []byte("p1")) != 0 || s.find(0, []byte("p0")) == 0 || s.find(3, []byte("p3")) == 0 {
		t.Fatalf("eviction: index %v", s.index)
	}
	if len(s.slots) != 5 || len(s.free) != 1 || s.size != 3*cost {
		t.Fatalf("%d slots, %d free (want 5, 1: p3 was put before p1 left), size %d", len(s.slots), len(s.free), s.size)
	}
	// "qq" collides with "p2": it takes p2's slot.
	put(2, "qq")
	if s.find(2, []byte("p2")) != 0 || s.find(2, []byte("qq")) == 0 || len(s.index) != 3 || s.size != 3*cost {
		t.Fatalf("collision: index %v, size %d", s.index, s.size)
	}
	// The list is intact: walking it from the front visits every slot.
	var order []string
	for i := s.slots[0].next; i != 0; i = s.slots[i].next {
		p := s.part(i)
		order = append(order, string(p.prefix()))
	}
	if want := []string{"qq", "p3", "p0"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("LRU order %q, want %q", order, want)
	}
	put(5, "p5") // takes the free slot; p0 leaves
	if len(s.slots) != 5 || s.find(0, []byte("p0")) != 0 || s.find(5, []byte("p5")) == 0 {
		t.Fatalf("%d slots, index %v", len(s.slots), s.index)
	}
}

// TestPartitionCacheChunks rewrites partitions many times: chunks are
// compacted and reused, the shard's memory stays bounded, and every part
// (those read before a compaction too) keeps its bytes.
func TestPartitionCacheChunks(t *testing.T) {
	var s pcShard
	s.init(64 << 10)
	rng := rand.New(rand.NewPCG(3, 4))
	type held struct {
		part pcPart
		val  []byte
	}
	var views []held
	var b pcBuilder
	for n := range 20000 {
		pp := []byte(fmt.Sprint("p", rng.IntN(40)))
		h := uint64(pp[1])<<8 | uint64(pp[len(pp)-1]) // "p1" and "p11" collide
		val := bytes.Repeat([]byte{byte(n)}, 50+rng.IntN(400))
		b.reset()
		b.add([]byte("k"), val)
		part := s.put(h, pp, &b)
		if n%100 == 0 {
			views = append(views, held{part, val})
		}
		if i := s.find(h, pp); i == 0 {
			t.Fatalf("write %d: %s not cached", n, pp)
		} else if p := s.part(i); !bytes.Equal(p.value(0), val) {
			t.Fatalf("write %d: %s has %x", n, pp, p.value(0))
		}
	}
	checkChunks(t, &s)
	for _, v := range views {
		if !bytes.Equal(v.part.value(0), v.val) {
			t.Fatal("a part read before its chunk was compacted changed")
		}
	}
}

// TestPartitionCacheRetiredChunks rewrites one partition until the
// current chunk is full of its dead versions, next to a partition that is
// never touched again, then starts the next chunk with a new partition:
// the full chunk must be compacted when it stops being current, or chunks
// pile up without bound.
func TestPartitionCacheRetiredChunks(t *testing.T) {
	var s pcShard
	s.init(16 << 20)
	var b pcBuilder
	put := func(h uint64, pp string, size int) {
		b.reset()
		b.add([]byte("k"), make([]byte, size))
		s.put(h, []byte(pp), &b)
	}
	for round := range 64 {
		h := uint64(3 * round)
		put(h, fmt.Sprint("hot", round), 100)
		for len(s.chunks[s.cur].buf)+2000 < s.chunkSize {
			put(h+1, fmt.Sprint("w", round), 900)
		}
		put(h+2, fmt.Sprint("new", round), 2000) // does not fit: a new chunk
	}
	checkChunks(t, &s)
}

// checkChunks checks that each chunk's live count is what its slots use,
// and that the chunks hold at most about twice what the slots use.
func checkChunks(t *testing.T, s *pcShard) {
	t.Helper()
	used := 0
	live := make([]int, len(s.chunks))
	for i := 1; i < len(s.slots); i++ {
		if sl := s.slots[i]; sl.n > 0 {
			live[sl.chunk] += int(sl.n)
			used += int(sl.n)
		}
	}
	held := 0
	for i, c := range s.chunks {
		held += cap(c.buf)
		if c.live != live[i] {
			t.Fatalf("chunk %d: live %d, its slots use %d", i, c.live, live[i])
		}
	}
	if held > 2*used+2*s.chunkSize {
		t.Fatalf("chunks hold %d bytes for %d used (chunk size %d)", held, used, s.chunkSize)
	}
}

// TestFoldOne checks foldEntry's one-operand path against its general
// path (an operand folded twice is folded once).
func TestFoldOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pp := "\x01partition"
	cell := func(ts int64, v int32) []byte {
		c := live(colV, ts, v)
		c.Value = bytes.Repeat([]byte{byte(v)}, int(v)) // values of different lengths
		return appendCellValue(nil, &c, nil)
	}
	for range 2000 {
		var b pcBuilder
		n := rng.IntN(6)
		for i := range n {
			b.add([]byte{byte(2 * i)}, cell(int64(rng.IntN(5)), int32(rng.IntN(3))))
		}
		old := b.part([]byte(pp))
		op := pcOp{k: append([]byte(pp), byte(rng.IntN(2*n+1))), v: cell(int64(rng.IntN(5)), int32(rng.IntN(3))), merge: true}
		// The result: old itself when unchanged.
		result := func(changed bool) []byte {
			if !changed {
				return old.buf
			}
			p := b.part([]byte(pp))
			return p.buf
		}
		changedFast, okFast := foldEntry(old, []pcOp{op}, &b)
		fast := result(changedFast)
		changedSlow, okSlow := foldEntry(old, []pcOp{op, op}, &b)
		// The general path builds the whole result in b, changed or not:
		// changed must say whether it differs from old (a write that lost
		// or repeated must not rewrite the cached partition).
		if okSlow && changedSlow == bytes.Equal(b.part([]byte(pp)).buf, old.buf) {
			t.Fatalf("fold of %x=%x into %x: changed %v, but the result is %x", op.k, op.v, old.buf, changedSlow, b.part([]byte(pp)).buf)
		}
		slow := result(changedSlow)
		if okFast != okSlow || okFast && changedFast != changedSlow {
			t.Fatalf("ok %v changed %v, general path ok %v changed %v", okFast, changedFast, okSlow, changedSlow)
		}
		if okFast && !bytes.Equal(fast, slow) {
			t.Fatalf("fold of %x=%x into %x: %x, general path %x", op.k, op.v, old.buf, fast, slow)
		}
	}
}

// TestPartitionCacheConcurrentHistories runs random histories (the
// differential test's: deletions, range tombstones, statics, collections,
// timestamp ties) from several goroutines at once, with reads filling the
// cache and purges and flushes in between; afterwards every read answered
// through the cache must equal the same read through Pebble alone.
func TestPartitionCacheConcurrentHistories(t *testing.T) {
	tbl := testTable()
	tbl.Params.GCGraceSeconds = 3
	for seed := range uint64(4) {
		p := openTest(t, Options{SyncMode: SyncPeriodic, PartitionCacheSize: diffCacheSizes[1+seed%2]})
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := range uint64(4) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g := &gen{rng: rand.New(rand.NewPCG(seed, w)), t: tbl}
				for range 300 {
					var err error
					switch r := g.rng.IntN(20); {
					case r < 10:
						err = p.Apply(ctx, tbl, g.update())
					case r < 19:
						_, err = p.Read(ctx, tbl, g.read())
					case w == 0:
						_, err = p.Purge(ctx, tbl, int64(90+g.rng.IntN(20)))
					default:
						err = p.Flush()
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		g := &gen{rng: rand.New(rand.NewPCG(seed, 99)), t: tbl}
		for i := range 300 {
			cmd := g.read()
			cached := mustRead(t, p, tbl, cmd)
			pc := p.pc
			p.pc = nil
			direct := mustRead(t, p, tbl, cmd)
			p.pc = pc
			if !reflect.DeepEqual(cached, direct) {
				t.Fatalf("seed %d read %d %+v:\ncached:\n%s\nPebble:\n%s", seed, i, *cmd, fmtPartitions(tbl, cached), fmtPartitions(tbl, direct))
			}
		}
	}
}
