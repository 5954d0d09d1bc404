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
// Apply increments the stripe's epoch before it commits an update carrying
// header entries or a static row and again after (so the epoch is odd while such a write
// is in flight). A reader
//
//   - reads the epoch before creating its iterator, and records "no
//     header" for the partition with that epoch only if it was even and the
//     iterator saw no header entry;
//   - reads the epoch again after creating its iterator, and trusts an
//     entry only if its epoch equals that value.
//
// If a header write W committed before the reader's iterator was created,
// W's first increment happened before the reader's second epoch read; an
// entry recorded with an even epoch e by a reader R whose iterator did not
// see W must have read e before W's first increment (had R read e after
// W's second increment, W would be in R's snapshot; between the two, e is
// odd). So the current epoch is > e and the entry is ignored. The same
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

// bump increments the epoch of the stripe of each of the tokens, once
// per stripe: a stripe's epoch must be odd while a write to it is in
// flight, and two tokens of one stripe bumping it twice would leave it
// even.
func (c *hdrCache) bump(toks []int64) {
	switch len(toks) {
	case 0:
		return
	case 1:
		c.epochs[hdrStripe(toks[0])].Add(1)
		return
	}
	var seen [hdrEpochStripes / 64]uint64
	for _, t := range toks {
		s := hdrStripe(t)
		if seen[s/64]&(1<<(s%64)) == 0 {
			seen[s/64] |= 1 << (s % 64)
			c.epochs[s].Add(1)
		}
	}
}

// known reports whether pp is known to have no header at epoch e (read
// after the reader's iterator was created).
func (c *hdrCache) known(pp []byte, e uint64) bool {
	if e%2 != 0 {
		return false
	}
	n := c.slots[hdrSlot(pp)].Load()
	return n != nil && n.epoch == e && bytes.Equal(n.pp, pp)
}

// record remembers that pp had no header for a reader whose epoch, read
// before its iterator was created, was e.
func (c *hdrCache) record(pp []byte, e uint64) {
	if e%2 != 0 {
		return
	}
	s := &c.slots[hdrSlot(pp)]
	if n := s.Load(); n != nil && n.epoch == e && bytes.Equal(n.pp, pp) {
		return
	}
	s.Store(&noHeader{pp: bytes.Clone(pp), epoch: e})
}
