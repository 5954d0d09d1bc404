package storage

import (
	"bytes"
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

const (
	pcShards = 32
	// pcMaxPartition is the largest partition kept (keys and values).
	pcMaxPartition = 16 << 10
	// pcEntryOverhead is what an entry costs beyond its bytes (struct,
	// map slot, offsets).
	pcEntryOverhead = 128
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
	mu       sync.Mutex
	m        map[string]*pcEntry
	lru      pcEntry // sentinel: lru.next is the most recently used
	size     int64
	capacity int64
	_        [40]byte // keep shards on their own cache lines
}

// pcEntry is one cached partition, or the placeholder of a fill in
// progress. A cached partition's contents (pp, data, ends, big) never
// change once it is in the cache (a write replaces the entry), so readers
// use it without the lock; prev and next belong to the shard's lock, and so
// does a placeholder's ops.
type pcEntry struct {
	pp string
	// data holds the keys (without the prefix pp) and values, back to
	// back.
	data []byte
	ends []uint32 // ends[2i]: end of key i; ends[2i+1]: end of value i
	// big marks a partition too large to keep: reads go to Pebble.
	big bool
	// pending marks a placeholder; ops are the operands folded into it
	// (copied).
	pending    bool
	ops        []pcOp
	prev, next *pcEntry
}

func newPartitionCache(capacity int64) *partitionCache {
	c := &partitionCache{seed: maphash.MakeSeed(), maxPart: int(min(pcMaxPartition, capacity/pcShards/4))}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[string]*pcEntry)
		s.lru.next, s.lru.prev = &s.lru, &s.lru
		s.capacity = capacity / pcShards
	}
	return c
}

func (e *pcEntry) len() int { return len(e.ends) / 2 }

func (e *pcEntry) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = e.ends[2*i-1]
	}
	return e.data[start:e.ends[2*i]:e.ends[2*i]]
}

func (e *pcEntry) value(i int) []byte {
	return e.data[e.ends[2*i]:e.ends[2*i+1]:e.ends[2*i+1]]
}

// search returns the index of the first key >= sfx (a key without the
// partition prefix).
func (e *pcEntry) search(sfx []byte) int {
	return sort.Search(e.len(), func(i int) bool { return bytes.Compare(e.key(i), sfx) >= 0 })
}

func (e *pcEntry) cost() int64 { return int64(len(e.pp)+cap(e.data)+4*cap(e.ends)) + pcEntryOverhead }

// add appends an entry (keys in increasing order).
func (e *pcEntry) add(k, v []byte) {
	e.data = append(e.data, k...)
	e.ends = append(e.ends, uint32(len(e.data)))
	e.data = append(e.data, v...)
	e.ends = append(e.ends, uint32(len(e.data)))
}

func (c *partitionCache) shard(pp []byte) *pcShard {
	return &c.shards[maphash.Bytes(c.seed, pp)%pcShards]
}

func (c *partitionCache) shardOf(pp string) *pcShard {
	return &c.shards[maphash.String(c.seed, pp)%pcShards]
}

// lookup returns the cached partition pp; or, when it is not cached, a
// placeholder the caller must fill (complete) or abandon; or neither when
// another reader is filling it.
func (c *partitionCache) lookup(pp []byte) (e, placeholder *pcEntry) {
	s := c.shard(pp)
	s.mu.Lock()
	defer s.mu.Unlock()
	e = s.m[string(pp)]
	switch {
	case e == nil:
		ph := &pcEntry{pp: string(pp), pending: true}
		s.m[ph.pp] = ph
		return nil, ph
	case e.pending:
		return nil, nil
	}
	if s.lru.next != e {
		e.unlink()
		s.pushFront(e)
	}
	return e, nil
}

// complete publishes n, read for placeholder ph, with the operands folded
// into ph meanwhile; it returns what the reader should read (n, or n with
// the operands).
func (c *partitionCache) complete(ph, n *pcEntry) *pcEntry {
	s := c.shardOf(ph.pp)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[ph.pp] != ph {
		return n // dropped meanwhile: n is a snapshot, right for this read
	}
	delete(s.m, ph.pp)
	if len(ph.ops) > 0 && !n.big {
		f, ok := foldEntry(n, ph.ops)
		if !ok {
			return n
		}
		if len(f.data) > c.maxPart {
			f = &pcEntry{pp: n.pp, big: true}
		}
		n = f
	}
	s.add(n)
	return n
}

// abandon removes placeholder ph (the fill failed).
func (c *partitionCache) abandon(ph *pcEntry) {
	s := c.shardOf(ph.pp)
	s.mu.Lock()
	if s.m[ph.pp] == ph {
		delete(s.m, ph.pp)
	}
	s.mu.Unlock()
}

func (e *pcEntry) unlink() {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (s *pcShard) pushFront(e *pcEntry) {
	e.prev, e.next = &s.lru, s.lru.next
	s.lru.next.prev = e
	s.lru.next = e
}

func (s *pcShard) remove(e *pcEntry) {
	delete(s.m, e.pp)
	if e.pending {
		return // never in the LRU list, never counted
	}
	e.unlink()
	s.size -= e.cost()
}

// add puts cached partition n in the map, at the front of the LRU list.
func (s *pcShard) add(n *pcEntry) {
	s.m[n.pp] = n
	s.pushFront(n)
	s.size += n.cost()
	s.evict()
}

func (s *pcShard) evict() {
	for s.size > s.capacity && s.lru.prev != &s.lru {
		s.remove(s.lru.prev)
	}
}

// replace puts n (a cached partition) in the place of old, also in the LRU
// list; n nil drops old.
func (s *pcShard) replace(old, n *pcEntry) {
	switch {
	case n == old:
		return
	case n == nil || old.pending:
		s.remove(old)
		if n != nil {
			s.add(n)
		}
		return
	}
	s.m[n.pp] = n
	n.prev, n.next = old.prev, old.next
	n.prev.next, n.next.prev = n, n
	old.prev, old.next = nil, nil
	s.size += n.cost() - old.cost()
	s.evict()
}

// fold applies the data operands of a committed batch to the cached
// partitions they touch; with committed false (the commit failed) it drops
// those partitions instead.
func (c *partitionCache) fold(b *pebble.Batch, committed bool) {
	r := b.Reader()
	var ops []pcOp
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
	s := c.shard(pp)
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m[string(pp)]
	if old == nil {
		return
	}
	if !committed || old.big {
		s.replace(old, nil)
		return
	}
	if old.pending {
		// The fill in progress folds them (copies: the batch is reused).
		buf := make([]byte, 0, opsBytes(ops))
		for _, op := range ops {
			k := len(buf)
			buf = append(buf, op.k...)
			v := len(buf)
			buf = append(buf, op.v...)
			old.ops = append(old.ops, pcOp{k: buf[k:v:v], v: buf[v:len(buf):len(buf)], merge: op.merge})
		}
		return
	}
	n, ok := foldEntry(old, ops)
	if !ok || len(n.data) > c.maxPart {
		n = nil
	}
	s.replace(old, n)
}

// foldEntry returns old with ops merged in; ok is false when the result
// cannot be told without the commit order (a tie).
func foldEntry(old *pcEntry, ops []pcOp) (*pcEntry, bool) {
	for _, op := range ops {
		if !op.merge {
			return nil, false
		}
	}
	if len(ops) == 1 {
		if n, ok, done := foldOne(old, ops[0]); done {
			return n, ok
		}
	}
	if len(ops) > 1 {
		slices.SortStableFunc(ops, func(a, b pcOp) int { return bytes.Compare(a.k, b.k) })
	}
	n := &pcEntry{
		pp:   old.pp,
		data: make([]byte, 0, len(old.data)+opsBytes(ops)),
		ends: make([]uint32, 0, len(old.ends)+2*len(ops)),
	}
	// Entries hold keys without the partition prefix (every op's key has
	// it).
	sfx := func(j int) []byte { return ops[j].k[len(old.pp):] }
	i, j := 0, 0
	for i < old.len() || j < len(ops) {
		switch {
		case j == len(ops) || (i < old.len() && bytes.Compare(old.key(i), sfx(j)) < 0):
			n.add(old.key(i), old.value(i))
			i++
			continue
		}
		// The winner among the old value (if the key is there) and every
		// operand of the key.
		k := sfx(j)
		var cur []byte
		if i < old.len() && bytes.Equal(old.key(i), k) {
			cur = old.value(i)
			i++
		}
		for ; j < len(ops) && bytes.Equal(sfx(j), k); j++ {
			v := ops[j].v
			if cur == nil || bytes.Equal(cur, v) {
				cur = v
				continue
			}
			wins, decided := byTimestamp(cur, v)
			if !decided {
				return nil, false
			}
			if wins {
				cur = v
			}
		}
		n.add(k, cur)
	}
	return n, true
}

// foldOne is foldEntry for one operand of a key old has (an update of a
// stored cell): done is false when the key is not there. An operand that
// loses leaves old as it is (n == old).
func foldOne(old *pcEntry, op pcOp) (n *pcEntry, ok, done bool) {
	k := op.k[len(old.pp):]
	i := old.search(k)
	if i == old.len() || !bytes.Equal(old.key(i), k) {
		return nil, false, false
	}
	cur := old.value(i)
	if bytes.Equal(cur, op.v) {
		return old, true, true
	}
	switch wins, decided := byTimestamp(cur, op.v); {
	case !decided:
		return nil, false, true
	case !wins:
		return old, true, true
	}
	vs, ve := int(old.ends[2*i]), int(old.ends[2*i+1])
	delta := len(op.v) - (ve - vs)
	n = &pcEntry{pp: old.pp, data: make([]byte, 0, len(old.data)+delta), ends: make([]uint32, len(old.ends))}
	n.data = append(append(append(n.data, old.data[:vs]...), op.v...), old.data[ve:]...)
	copy(n.ends, old.ends[:2*i+1])
	for j := 2*i + 1; j < len(old.ends); j++ {
		n.ends[j] = uint32(int(old.ends[j]) + delta)
	}
	return n, true, true
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
	s := c.shard(pp)
	s.mu.Lock()
	if e := s.m[string(pp)]; e != nil {
		s.remove(e)
	}
	s.mu.Unlock()
}

// clear empties the cache (DropTable, after deleting the range): fills in
// progress are not published.
func (c *partitionCache) clear() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.m)
		s.lru.next, s.lru.prev = &s.lru, &s.lru
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
		st.Entries += int64(len(s.m))
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
	e   *pcEntry
	pos int
	kb  []byte
}

var _ kvIter = (*entryIter)(nil)

// search returns the index of the first entry >= key.
func (it *entryIter) search(key []byte) int {
	pp := it.e.pp
	if len(key) < len(pp) || string(key[:len(pp)]) != pp {
		// Every entry starts with pp: key is before or after them all.
		if string(key) < pp {
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
	it.kb = append(append(it.kb[:0], it.e.pp...), it.e.key(it.pos)...)
	return it.kb
}

func (it *entryIter) ValueAndErr() ([]byte, error) { return it.e.value(it.pos), nil }
func (it *entryIter) Error() error                 { return nil }

// fill reads the partition pp from it (bounded to the partition) into a
// new entry; a partition over maxPart bytes gives a big entry. The entry is
// built in scratch (a reader's, reused) and copied at its exact size:
// entries stay for long, and growing them by appending cost twice their
// size in garbage.
func (c *partitionCache) fill(it *pebble.Iterator, pp []byte, scratch *pcEntry) (*pcEntry, error) {
	scratch.data, scratch.ends = scratch.data[:0], scratch.ends[:0]
	for valid := it.SeekPrefixGE(pp); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, err
		}
		scratch.add(it.Key()[len(pp):], v)
		if len(scratch.data) > c.maxPart {
			return &pcEntry{pp: string(pp), big: true}, it.Error()
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return &pcEntry{pp: string(pp), data: slices.Clone(scratch.data), ends: slices.Clone(scratch.ends)}, nil
}
