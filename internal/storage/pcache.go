package storage

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// The partition cache keeps recently read small partitions in memory, as
// the sorted (key, merged value) entries a Pebble iterator yields for them,
// so that a point read of a cached partition walks memory instead of
// Pebble's levels, block cache and merge operator (a point read through
// Pebble is two thirds of cqld's CPU under YCSB C; docs/benchmarks.md).
// This is the place ScyllaDB's row cache has (Cassandra's row cache is off
// by default); it is write-through.
//
// What a read sees is unchanged: the reader runs over the cached entries
// exactly as over the iterator (kvIter), so expiry, deletions, slices,
// limits, statistics and guardrails are the same code.
//
// Coherence.
//
//   - Writes. Apply folds the operands of its batch into the cached
//     partitions they touch after the commit, under the cache shard's lock,
//     with the merge operator's rule (newerWins). The rule picks the
//     operand with the highest timestamp whatever the order, so folding in
//     an order other than the commit order gives Pebble's result, and
//     folding an operand twice changes nothing; when two different operands
//     tie on the timestamp (the rule would decode them), the partition is
//     dropped from the cache instead. A failed commit drops the partitions
//     it touched.
//   - Fills. A reader that misses first puts a placeholder for the
//     partition in the cache, then creates its iterator and reads the
//     partition. Writers fold into a placeholder by appending their
//     operands to it; the reader folds them into what it read before
//     publishing it. A write committed before the placeholder existed is
//     in the reader's snapshot (the iterator was created after); a write
//     committed after it folds after its commit, so into the placeholder
//     (folded twice if also in the snapshot: harmless). A placeholder that
//     is no longer in the cache when the reader finishes (dropped by a
//     purge, a tie, a failed commit or DropTable) is not published.
//   - Purge deletes keys of a partition: it drops the partition (or its
//     placeholder) after its commit. DropTable (TRUNCATE, DROP) clears the
//     cache after deleting the table's range.
//
// Entries keep their keys without the partition prefix (YCSB's 1 KB
// records: 2.0 KB of cache each with it, 1.5 without). Only partitions up
// to pcMaxPartition bytes are kept (maxPart); a larger one is
// remembered as such (a small entry) so that its reads go to Pebble
// directly. Memory is bounded by an LRU per shard.
//
// Layout: the cache is built so that the garbage collector has almost
// nothing to mark in it. A cached partition's bytes (its prefix, its keys
// and values, their offsets: pcPart) are stored back to back in large
// chunks; its slot, in the shard's slice of slots, says where, and links
// it into the LRU list by index; a map from the prefix's 64-bit hash finds
// the slot. Slots and map hold no pointers, so the collector neither scans
// them nor marks anything per partition: a shard is a few chunks to it.
// Bytes in a chunk are written once and never changed: a write stores the
// new version of a partition at the end of the current chunk, and a chunk
// whose live bytes fall under three quarters of it (checked when one of
// its parts dies and when it stops being current) is compacted: its live
// parts, found through the chunk's list of slots, are copied to the
// current chunk and it is let go; a reader that still holds a part of it
// keeps it alive. That is why a read from the cache returns the cached
// values themselves (pebbleReader.keep): its result holds on to the chunk
// for as long as the request uses it, and no copy is needed (YCSB C: 3.1
// instead of 4.2 KB allocated per read). With a pointer per entry, key,
// value, offsets and list link, a 130 MB cache of YCSB records made every collection cycle spend
// 28-68 ms (50-80 ms of CPU) marking, a core's worth of CPU taken from
// request handling, and the cycles were where the open-loop tail latency
// came from (docs/benchmarks.md). Fills in progress (placeholders, with
// the operands folded into them) are few and short-lived, and are
// ordinary objects in a map of their own.

const (
	pcShards = 32
	// pcMaxPartition is the largest partition kept (keys and values).
	pcMaxPartition = 16 << 10
	// A part's offsets are uint16 (pcPart): this does not compile if
	// pcMaxPartition outgrows them.
	_ = uint16(pcMaxPartition)
	// pcEntryOverhead is what an entry costs beyond its bytes (slot and
	// index entry).
	pcEntryOverhead = 64
	// pcChunkMin and pcChunkMax bound the size of a shard's chunks (a
	// sixteenth of the shard's capacity).
	pcChunkMin, pcChunkMax = 16 << 10, 1 << 20
)

type partitionCache struct {
	seed maphash.Seed
	// maxPart is the largest partition kept: pcMaxPartition, less in a
	// cache too small to hold a few of those per shard.
	maxPart int
	shards  [pcShards]pcShard
	// hits and misses count single-partition reads (PartitionCacheStats).
	hits, misses atomic.Int64
	// afterFill, in tests, runs between a fill's read and its publication.
	afterFill func()
}

type pcShard struct {
	mu sync.Mutex
	// index maps the hash of a cached partition's prefix to its slot. Two
	// prefixes with one hash cannot both be cached: putting one replaces
	// the other, and every lookup compares the prefix.
	index map[uint64]int32
	// slots hold the cached partitions; slots[0] is the LRU list's
	// sentinel (slots[0].next is the most recently used). free lists the
	// unused slots.
	slots []pcSlot
	free  []int32
	// chunks hold the parts' bytes. cur is the chunk being filled (-1:
	// none); a chunk without bytes is unused (listed in freeChunks).
	// retired lists chunks that stopped being current since the last
	// settle (they may need compacting).
	chunks     []pcChunk
	freeChunks []int32
	retired    []int32
	cur        int32
	chunkSize  int
	// fills are the placeholders of fills in progress, by prefix; a
	// partition has a placeholder only while it is not cached.
	fills map[string]*pcFill
	// scratch is where folds build their result (under mu).
	scratch        pcBuilder
	size, capacity int64
	_              [64]byte // keep shards' locks on their own cache lines
}

// pcChunk is a chunk of parts: live counts the bytes of buf that slots
// use, slots lists the slots whose parts were stored in it (some have
// moved or been emptied since).
type pcChunk struct {
	buf   []byte
	live  int
	slots []int32
}

// pcSlot is a cached partition: its part is chunks[chunk].buf[off:off+n].
type pcSlot struct {
	chunk      int32
	off, n     uint32
	pp, data   uint32 // pcPart's
	big        bool
	hash       uint64
	prev, next int32
}

// pcPart is a cached partition's bytes: its prefix (pp bytes), then its
// keys (without the prefix) and values back to back (up to data), then
// where each key and value ends, counted from the end of the prefix
// (uint16, little endian: a part's keys and values never exceed maxPart,
// under 64 KiB; 44 bytes less per YCSB record than uint32 offsets from
// the part's start). The bytes never change (a write stores a new part), so readers
// use a pcPart without the lock.
type pcPart struct {
	buf      []byte
	pp, data uint32
	// big marks a partition too large to keep (buf is its prefix alone):
	// reads go to Pebble.
	big bool
}

// pcFill is the placeholder of a fill in progress: ops are the operands
// folded into it (copied).
type pcFill struct {
	pp   string
	hash uint64
	ops  []pcOp
}

func newPartitionCache(capacity int64) *partitionCache {
	c := &partitionCache{seed: maphash.MakeSeed(), maxPart: int(min(pcMaxPartition, capacity/pcShards/4))}
	for i := range c.shards {
		c.shards[i].init(capacity / pcShards)
	}
	return c
}

func (s *pcShard) init(capacity int64) {
	s.index = make(map[uint64]int32)
	s.slots = make([]pcSlot, 1)
	s.fills = make(map[string]*pcFill)
	s.capacity = capacity
	s.chunkSize = int(min(max(capacity/16, pcChunkMin), pcChunkMax))
	s.cur = -1
}

func (e *pcPart) prefix() []byte { return e.buf[:e.pp:e.pp] }

func (e *pcPart) len() int { return (len(e.buf) - int(e.data)) / 4 }

// end returns the j-th offset in buf: the end of key j/2 (even j) or of
// its value.
func (e *pcPart) end(j int) int {
	return int(e.pp) + int(binary.LittleEndian.Uint16(e.buf[int(e.data)+2*j:]))
}

func (e *pcPart) key(i int) []byte {
	start := int(e.pp)
	if i > 0 {
		start = e.end(2*i - 1)
	}
	end := e.end(2 * i)
	return e.buf[start:end:end]
}

func (e *pcPart) value(i int) []byte {
	start, end := e.end(2*i), e.end(2*i+1)
	return e.buf[start:end:end]
}

// search returns the index of the first key >= sfx (a key without the
// partition prefix).
func (e *pcPart) search(sfx []byte) int {
	return sort.Search(e.len(), func(i int) bool { return bytes.Compare(e.key(i), sfx) >= 0 })
}

// pcBuilder builds a part's keys and values (a reader's scratch for
// fills, a shard's for folds).
type pcBuilder struct {
	data []byte
	ends []uint32 // ends[2i]: end of key i in data; ends[2i+1]: of value i
	// big marks a partition too large to keep (fill).
	big bool
}

func (b *pcBuilder) reset() { b.data, b.ends, b.big = b.data[:0], b.ends[:0], false }

// markBig makes b a partition too large to keep.
func (b *pcBuilder) markBig() {
	b.reset()
	b.big = true
}

// add appends an entry (keys in increasing order).
func (b *pcBuilder) add(k, v []byte) {
	b.data = append(b.data, k...)
	b.ends = append(b.ends, uint32(len(b.data)))
	b.data = append(b.data, v...)
	b.ends = append(b.ends, uint32(len(b.data)))
}

// size is the size of the part of partition pp.
func (b *pcBuilder) size(pp []byte) int {
	if b.big {
		return len(pp)
	}
	return len(pp) + len(b.data) + 2*len(b.ends)
}

// write writes the part of partition pp to buf (of b.size(pp) bytes).
func (b *pcBuilder) write(buf, pp []byte) pcPart {
	copy(buf, pp)
	if b.big {
		return pcPart{buf: buf, pp: uint32(len(pp)), data: uint32(len(pp)), big: true}
	}
	data := len(pp) + len(b.data)
	copy(buf[len(pp):], b.data)
	for j, end := range b.ends {
		binary.LittleEndian.PutUint16(buf[data+2*j:], uint16(end))
	}
	return pcPart{buf: buf, pp: uint32(len(pp)), data: uint32(data)}
}

// part returns the part of partition pp in memory of its own (a fill that
// is not published).
func (b *pcBuilder) part(pp []byte) pcPart { return b.write(make([]byte, b.size(pp)), pp) }

func (c *partitionCache) hash(pp []byte) uint64 { return maphash.Bytes(c.seed, pp) }

func (c *partitionCache) shard(h uint64) *pcShard { return &c.shards[h%pcShards] }

// lookup returns the cached partition pp (ok); or, when it is not cached,
// a placeholder the caller must fill (complete) or abandon; or neither
// when another reader is filling it.
func (c *partitionCache) lookup(pp []byte) (e pcPart, ok bool, placeholder *pcFill) {
	h := c.hash(pp)
	s := c.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.find(h, pp); i != 0 {
		s.touch(i)
		return s.part(i), true, nil
	}
	if s.fills[string(pp)] != nil {
		return pcPart{}, false, nil
	}
	ph := &pcFill{pp: string(pp), hash: h}
	s.fills[ph.pp] = ph
	return pcPart{}, false, ph
}

// complete publishes partition pp, which b holds, read for placeholder ph, with
// the operands folded into ph meanwhile; it returns what the reader should
// read (that partition, with the operands): the stored part, or a copy of
// its own when nothing is stored. Either way its bytes never change, and
// never are b's (the reader's scratch): readers return its values as they
// are (readCached).
func (c *partitionCache) complete(ph *pcFill, pp []byte, b *pcBuilder) pcPart {
	s := c.shard(ph.hash)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fills[ph.pp] != ph {
		return b.part(pp) // dropped meanwhile: b is a snapshot, right for this read
	}
	delete(s.fills, ph.pp)
	if len(ph.ops) == 0 || b.big {
		return s.put(ph.hash, pp, b)
	}
	// Writes committed during the fill: fold them in before storing
	// anything (one copy of what was read, on this rare path).
	read := b.part(pp)
	changed, ok := foldEntry(read, ph.ops, &s.scratch)
	switch {
	case !ok:
		return read // a tie: not cached; the reader reads its snapshot
	case !changed:
		return s.put(ph.hash, pp, b)
	case len(s.scratch.data) > c.maxPart:
		s.scratch.markBig() // every use of scratch starts with reset
	}
	return s.put(ph.hash, pp, &s.scratch)
}

// abandon removes placeholder ph (the fill failed).
func (c *partitionCache) abandon(ph *pcFill) {
	s := c.shard(ph.hash)
	s.mu.Lock()
	if s.fills[ph.pp] == ph {
		delete(s.fills, ph.pp)
	}
	s.mu.Unlock()
}

// find returns the slot of partition pp (hash h), or 0.
func (s *pcShard) find(h uint64, pp []byte) int32 {
	if i, ok := s.index[h]; ok {
		if p := s.part(i); bytes.Equal(p.prefix(), pp) {
			return i
		}
	}
	return 0
}

// part returns the part of slot i.
func (s *pcShard) part(i int32) pcPart {
	sl := &s.slots[i]
	end := sl.off + sl.n
	return pcPart{buf: s.chunks[sl.chunk].buf[sl.off:end:end], pp: sl.pp, data: sl.data, big: sl.big}
}

func (s *pcShard) unlink(i int32) {
	sl := &s.slots[i]
	s.slots[sl.prev].next = sl.next
	s.slots[sl.next].prev = sl.prev
}

func (s *pcShard) pushFront(i int32) {
	first := s.slots[0].next
	s.slots[i].prev, s.slots[i].next = 0, first
	s.slots[first].prev = i
	s.slots[0].next = i
}

// touch makes slot i the most recently used.
func (s *pcShard) touch(i int32) {
	if s.slots[0].next != i {
		s.unlink(i)
		s.pushFront(i)
	}
}

func (s *pcShard) cost(i int32) int64 { return int64(s.slots[i].n) + pcEntryOverhead }

// remove empties slot i.
func (s *pcShard) remove(i int32) {
	s.unlink(i)
	s.size -= s.cost(i)
	delete(s.index, s.slots[i].hash)
	sl := s.slots[i]
	s.slots[i] = pcSlot{}
	s.free = append(s.free, i)
	s.release(sl.chunk, int(sl.n))
	s.settle()
}

// drop removes partition pp (hash h) if it is cached.
func (s *pcShard) drop(h uint64, pp []byte) {
	if i := s.find(h, pp); i != 0 {
		s.remove(i)
	}
}

// put stores the part b holds of partition pp (hash h) and makes it cached
// and the most recently used, in the place of what the index has for h; it
// returns the stored part.
func (s *pcShard) put(h uint64, pp []byte, b *pcBuilder) pcPart {
	i, replace := s.index[h]
	if !replace {
		if k := len(s.free); k > 0 {
			i = s.free[k-1]
			s.free = s.free[:k-1]
		} else {
			i = int32(len(s.slots))
			s.slots = append(s.slots, pcSlot{})
		}
	}
	n := b.size(pp)
	chunk, off, buf := s.alloc(n, i)
	part := b.write(buf, pp)
	sl := pcSlot{chunk: chunk, off: off, n: uint32(n), pp: part.pp, data: part.data, big: part.big, hash: h}
	if replace {
		old := s.slots[i]
		s.size -= s.cost(i)
		sl.prev, sl.next = old.prev, old.next
		s.slots[i] = sl
		s.touch(i)
		s.release(old.chunk, int(old.n))
	} else {
		s.slots[i] = sl
		s.index[h] = i
		s.pushFront(i)
	}
	s.size += s.cost(i)
	for s.size > s.capacity && s.slots[0].prev != 0 {
		s.remove(s.slots[0].prev)
	}
	s.settle()
	return part
}

// alloc returns n bytes for slot i at the end of the current chunk,
// starting a new chunk when they do not fit.
func (s *pcShard) alloc(n int, i int32) (chunk int32, off uint32, buf []byte) {
	if s.cur < 0 || cap(s.chunks[s.cur].buf)-len(s.chunks[s.cur].buf) < n {
		if s.cur >= 0 {
			s.retired = append(s.retired, s.cur)
		}
		s.cur = s.newChunk(max(n, s.chunkSize))
	}
	c := &s.chunks[s.cur]
	start := len(c.buf)
	c.buf = c.buf[:start+n]
	c.live += n
	c.slots = append(c.slots, i)
	return s.cur, uint32(start), c.buf[start : start+n : start+n]
}

func (s *pcShard) newChunk(size int) int32 {
	buf := make([]byte, 0, size)
	if k := len(s.freeChunks); k > 0 {
		i := s.freeChunks[k-1]
		s.freeChunks = s.freeChunks[:k-1]
		c := &s.chunks[i]
		c.buf, c.live, c.slots = buf, 0, c.slots[:0]
		return i
	}
	s.chunks = append(s.chunks, pcChunk{buf: buf})
	return int32(len(s.chunks) - 1)
}

// release records that n bytes of chunk c are no longer used, and
// compacts the chunk (other than the current one) once less than three
// quarters of it is: its live parts are copied to the current chunk (alloc
// never picks c, which is neither current nor free) and it is let go.
func (s *pcShard) release(c int32, n int) {
	ch := &s.chunks[c]
	ch.live -= n
	if c == s.cur || 4*ch.live >= 3*len(ch.buf) {
		return
	}
	list := ch.slots
	for _, i := range list {
		sl := &s.slots[i]
		if sl.n == 0 || sl.chunk != c {
			continue // emptied, or moved (a later version, or listed twice)
		}
		src := s.part(i).buf
		chunk, off, buf := s.alloc(int(sl.n), i)
		copy(buf, src)
		sl.chunk, sl.off = chunk, off
	}
	s.chunks[c] = pcChunk{slots: list[:0]}
	s.freeChunks = append(s.freeChunks, c)
}

// settle checks the chunks retired since the last settle for compaction
// (dead bytes may have piled up in a chunk while it was current).
func (s *pcShard) settle() {
	for len(s.retired) > 0 {
		c := s.retired[len(s.retired)-1]
		s.retired = s.retired[:len(s.retired)-1]
		s.release(c, 0)
	}
}

// fold applies the data operands of a committed batch to the cached
// partitions they touch; with committed false (the commit failed) it drops
// those partitions instead.
func (c *partitionCache) fold(b *pebble.Batch, committed bool) {
	r := b.Reader()
	var opsBuf [16]pcOp // a row's marker and cells, without allocating
	ops := opsBuf[:0]
	var pp []byte // the partition of ops
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			// Our own batch does not fail to decode; if it did, the
			// partitions after this point would go stale: forget them all.
			c.clear()
			return
		}
		if !ok {
			break
		}
		n := partitionPrefixLen(k)
		if len(k) == 0 || k[0] != prefixData || n >= len(k) {
			continue // the purge index
		}
		if len(ops) > 0 && !bytes.Equal(pp, k[:n]) {
			c.foldPartition(pp, ops, committed)
			ops = ops[:0]
		}
		pp = k[:n]
		ops = append(ops, pcOp{k: k, v: v, merge: kind == pebble.InternalKeyKindMerge})
	}
	if len(ops) > 0 {
		c.foldPartition(pp, ops, committed)
	}
}

type pcOp struct {
	k, v  []byte
	merge bool
}

// foldPartition folds the operands of partition pp.
func (c *partitionCache) foldPartition(pp []byte, ops []pcOp, committed bool) {
	h := c.hash(pp)
	s := c.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.find(h, pp); i != 0 {
		old := s.part(i)
		if !committed || old.big {
			s.remove(i)
			return
		}
		switch changed, ok := foldEntry(old, ops, &s.scratch); {
		case !ok || changed && len(s.scratch.data) > c.maxPart:
			s.remove(i)
		case changed:
			s.put(h, pp, &s.scratch)
		}
		return
	}
	ph := s.fills[string(pp)]
	switch {
	case ph == nil:
	case !committed:
		delete(s.fills, ph.pp)
	default:
		// The fill in progress folds them (copies: the batch is reused).
		buf := make([]byte, 0, opsBytes(ops))
		for _, op := range ops {
			k := len(buf)
			buf = append(buf, op.k...)
			v := len(buf)
			buf = append(buf, op.v...)
			ph.ops = append(ph.ops, pcOp{k: buf[k:v:v], v: buf[v:len(buf):len(buf)], merge: op.merge})
		}
	}
}

// foldEntry builds old with ops merged in, in b; changed is false when
// the result is old again (every operand lost or repeated a stored value;
// b is then not to be stored), ok is false when the result cannot be told
// without the commit order (a tie).
func foldEntry(old pcPart, ops []pcOp, b *pcBuilder) (changed, ok bool) {
	for _, op := range ops {
		if !op.merge {
			return false, false
		}
	}
	if len(ops) == 1 {
		if changed, ok, done := foldOne(old, ops[0], b); done {
			return changed, ok
		}
	}
	if len(ops) > 1 {
		slices.SortStableFunc(ops, func(a, b pcOp) int { return bytes.Compare(a.k, b.k) })
	}
	b.reset()
	// Entries hold keys without the partition prefix (every op's key has
	// it).
	sfx := func(j int) []byte { return ops[j].k[old.pp:] }
	i, j := 0, 0
	for i < old.len() || j < len(ops) {
		switch {
		case j == len(ops) || (i < old.len() && bytes.Compare(old.key(i), sfx(j)) < 0):
			b.add(old.key(i), old.value(i))
			i++
			continue
		}
		// The winner among the old value (if the key is there) and every
		// operand of the key.
		k := sfx(j)
		var cur []byte
		had := i < old.len() && bytes.Equal(old.key(i), k)
		if had {
			cur = old.value(i)
			i++
		}
		prev := cur
		for ; j < len(ops) && bytes.Equal(sfx(j), k); j++ {
			v := ops[j].v
			if cur == nil || bytes.Equal(cur, v) {
				cur = v
				continue
			}
			wins, decided := byTimestamp(cur, v)
			if !decided {
				return false, false
			}
			if wins {
				cur = v
			}
		}
		// !had: a new key, even with an empty value (Equal(nil, "")).
		changed = changed || !had || !bytes.Equal(cur, prev)
		b.add(k, cur)
	}
	return changed, true
}

// foldOne is foldEntry for one operand of a key old has (an update of a
// stored cell): done is false when the key is not there.
func foldOne(old pcPart, op pcOp, b *pcBuilder) (changed, ok, done bool) {
	k := op.k[old.pp:]
	i := old.search(k)
	if i == old.len() || !bytes.Equal(old.key(i), k) {
		return false, false, false
	}
	cur := old.value(i)
	if bytes.Equal(cur, op.v) {
		return false, true, true
	}
	switch wins, decided := byTimestamp(cur, op.v); {
	case !decided:
		return false, false, true
	case !wins:
		return false, true, true
	}
	// The value is replaced: the bytes after it and the offsets from its
	// end on move by delta.
	b.reset()
	vs, ve := old.end(2*i), old.end(2*i+1)
	delta := len(op.v) - (ve - vs)
	b.data = append(append(append(b.data, old.buf[old.pp:vs]...), op.v...), old.buf[ve:old.data]...)
	for j := range 2 * old.len() {
		end := old.end(j) - int(old.pp)
		if j > 2*i {
			end += delta
		}
		b.ends = append(b.ends, uint32(end))
	}
	return true, true, true
}

func opsBytes(ops []pcOp) int {
	n := 0
	for _, op := range ops {
		n += len(op.k) + len(op.v)
	}
	return n
}

// drop removes partition pp or its placeholder (Purge, after its commit).
func (c *partitionCache) drop(pp []byte) {
	h := c.hash(pp)
	s := c.shard(h)
	s.mu.Lock()
	s.drop(h, pp) // a partition has a slot or a placeholder, never both
	delete(s.fills, string(pp))
	s.mu.Unlock()
}

// clear empties the cache (DropTable, after deleting the range): fills in
// progress are not published.
func (c *partitionCache) clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.index)
		clear(s.slots)
		s.slots = s.slots[:1]
		s.free = s.free[:0]
		clear(s.chunks)
		s.chunks, s.freeChunks, s.retired, s.cur = s.chunks[:0], s.freeChunks[:0], s.retired[:0], -1
		clear(s.fills)
		s.size = 0
		s.mu.Unlock()
	}
}

// PartitionCacheStats describes the partition cache (nodetool info shows
// it as Cassandra's "Row Cache" line).
type PartitionCacheStats struct {
	Entries, Bytes, Capacity int64
	// Hits and Misses count single-partition reads answered from the
	// cache and not (a partition too large to keep is a miss).
	Hits, Misses int64
}

// PartitionCacheStats returns the partition cache's figures (all zero when
// it is disabled).
func (p *Pebble) PartitionCacheStats() PartitionCacheStats {
	var st PartitionCacheStats
	c := p.pc
	if c == nil {
		return st
	}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		st.Entries += int64(len(s.index) + len(s.fills))
		st.Bytes += s.size
		st.Capacity += s.capacity
		s.mu.Unlock()
	}
	st.Hits, st.Misses = c.hits.Load(), c.misses.Load()
	return st
}

// kvIter is what the reader needs of an iterator: a Pebble iterator, or a
// cached partition's entries (entryIter).
type kvIter interface {
	SeekGE(key []byte) bool
	SeekPrefixGE(key []byte) bool
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	Key() []byte
	ValueAndErr() ([]byte, error)
	Error() error
}

var _ kvIter = (*pebble.Iterator)(nil)

// entryIter iterates a cached partition (one partition: a prefix seek is a
// seek). Entries hold their keys without the partition prefix; Key
// rebuilds the whole key in kb (valid until the next move, as Pebble's).
type entryIter struct {
	e   pcPart
	pos int
	kb  []byte
}

var _ kvIter = (*entryIter)(nil)

// search returns the index of the first entry >= key.
func (it *entryIter) search(key []byte) int {
	pp := it.e.prefix()
	if !bytes.HasPrefix(key, pp) {
		// Every entry starts with pp: key is before or after them all.
		if bytes.Compare(key, pp) < 0 {
			return 0
		}
		return it.e.len()
	}
	return it.e.search(key[len(pp):])
}

func (it *entryIter) SeekGE(key []byte) bool       { it.pos = it.search(key); return it.Valid() }
func (it *entryIter) SeekPrefixGE(key []byte) bool { return it.SeekGE(key) }
func (it *entryIter) SeekLT(key []byte) bool       { it.pos = it.search(key) - 1; return it.Valid() }

func (it *entryIter) Next() bool {
	if it.pos < it.e.len() {
		it.pos++
	}
	return it.Valid()
}

func (it *entryIter) Prev() bool {
	if it.pos >= 0 {
		it.pos--
	}
	return it.Valid()
}

func (it *entryIter) Valid() bool { return it.pos >= 0 && it.pos < it.e.len() }
func (it *entryIter) Key() []byte {
	it.kb = append(append(it.kb[:0], it.e.prefix()...), it.e.key(it.pos)...)
	return it.kb
}

func (it *entryIter) ValueAndErr() ([]byte, error) { return it.e.value(it.pos), nil }
func (it *entryIter) Error() error                 { return nil }

// fill reads the partition pp from it (bounded to the partition) into b
// (a reader's scratch); a partition over maxPart bytes is marked big.
func (c *partitionCache) fill(it *pebble.Iterator, pp []byte, b *pcBuilder) error {
	b.reset()
	for valid := it.SeekPrefixGE(pp); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		b.add(it.Key()[len(pp):], v)
		if len(b.data) > c.maxPart {
			b.markBig()
			break
		}
	}
	return it.Error()
}
