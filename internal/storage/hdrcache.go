package storage

import (
	"bytes"
	"sync/atomic"
)

// The header cache remembers partitions that have no header entries
// (partition deletion, range tombstones) and no static row, so that a
// point read positions its iterator once, at the selected rows, instead of
// first at the partition's start to look for a header and a static row and
// then at the rows (BenchmarkVsRaw: the second positioning cost a third of
// a point read).
//
// Correctness rests on epochs, one per stripe of partitions (by token):
// a commit of an update carrying header entries or a static row calls
// begin before it and end after it. The low 32 bits of a stripe's epoch
// count the writes in flight (begin adds one per token, end takes it
// back), and end also adds one to the high bits, so the epoch only grows,
// and a stripe is quiet (low bits 0) only when no write to it is in
// flight, however many writes or tokens of one write share it. A reader
//
//   - reads the epoch before creating its iterator, and records "no
//     header" for the partition with that epoch only if it was quiet and
//     the iterator saw no header entry;
//   - reads the epoch again after creating its iterator, and trusts an
//     entry only if its epoch equals that value.
//
// If a header write W committed before the reader's iterator was created,
// W's begin happened before the reader's second epoch read; an entry
// recorded with a quiet epoch e by a reader R whose iterator did not see
// W must have read e before W's begin (had R read e after W's end, W
// would be in R's snapshot; between the two, e is not quiet). So the
// current epoch is > e and the entry is ignored. The same
// holds for static rows. Purge only deletes, and deleting never makes "no
// header" wrong.

const (
	hdrEpochStripes = 4096
	hdrCacheSlots   = 1 << 14
)

type hdrCache struct {
	epochs [hdrEpochStripes]atomic.Uint64
	slots  [hdrCacheSlots]atomic.Pointer[noHeader]
}

type noHeader struct {
	pp    []byte
	epoch uint64
}

func hdrStripe(tok int64) int { return int(uint64(tok) % hdrEpochStripes) }

// slot picks the cache slot of a partition prefix (FNV-1a over its last
// bytes: the partition key, after the token).
func hdrSlot(pp []byte) int {
	h := uint32(2166136261)
	for _, c := range pp[tokenOffset:] {
		h ^= uint32(c)
		h *= 16777619
	}
	return int(h % hdrCacheSlots)
}

// epoch returns the current epoch of the partition's stripe.
func (c *hdrCache) epoch(tok int64) uint64 { return c.epochs[hdrStripe(tok)].Load() }

// begin and end bracket a commit of header or static entries of the
// partitions of toks: the low 32 bits of a stripe's epoch count the writes
// in flight, and end also moves the high bits on, so that every begin and
// every end changes the epoch, and a stripe is quiet (nothing recorded or
// trusted unless it is) only when no write is in flight, however many
// writes, or tokens of one write, share it.
func (c *hdrCache) begin(toks []int64) {
	for _, t := range toks {
		c.epochs[hdrStripe(t)].Add(1)
	}
}

func (c *hdrCache) end(toks []int64) {
	for _, t := range toks {
		c.epochs[hdrStripe(t)].Add(1<<32 - 1)
	}
}

func quiet(e uint64) bool { return uint32(e) == 0 }

// known reports whether pp is known to have no header at epoch e (read
// after the reader's iterator was created).
func (c *hdrCache) known(pp []byte, e uint64) bool {
	if !quiet(e) {
		return false
	}
	n := c.slots[hdrSlot(pp)].Load()
	return n != nil && n.epoch == e && bytes.Equal(n.pp, pp)
}

// record remembers that pp had no header for a reader whose epoch, read
// before its iterator was created, was e.
func (c *hdrCache) record(pp []byte, e uint64) {
	if !quiet(e) {
		return
	}
	s := &c.slots[hdrSlot(pp)]
	if n := s.Load(); n != nil && n.epoch == e && bytes.Equal(n.pp, pp) {
		return
	}
	s.Store(&noHeader{pp: bytes.Clone(pp), epoch: e})
}
