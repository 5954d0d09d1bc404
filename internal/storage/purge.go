package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Purge of tombstones and expired data after gc_grace_seconds.
//
// Pebble has no compaction filter and its deletable merger is unsafe
// (shared/FACTS.md), so purging is our own work, in three steps:
//
//  1. Candidates. Apply writes, next to every update that carries a
//     deletion, a cell tombstone or an expiring cell or marker, one entry of
//     the purge index (key space 0x02, layout.md) per distinct tombstone
//     time (tombstoneTime). Purge(now) reads only the index entries whose
//     time is < now - gc_grace_seconds.
//     (A block property filter cannot do this job: Pebble hides from
//     property collectors the values of keys that compactions turned into
//     SETs, and every fully merged key of the bottom level is one.)
//  2. Re-check under the partition's lock. Apply holds the read side of the
//     partition's lock stripe while it commits, so while the purge holds the
//     write side no write to the partition can slip in between the re-check
//     and the deletes. The whole partition is read again (fresh iterator)
//     and the keys to delete are chosen (purgeDecider). If tombstones remain
//     that are not purgeable yet (expiring data not expired yet), a new index
//     entry is written for the earliest of them, so nothing is forgotten.
//  3. Delete with Pebble point Deletes, in one batch with the index changes.
//     A point Delete removes every older version of its key, in every level,
//     so deleting a key whose merged winner is a purgeable tombstone also
//     removes every older merge operand it shadows: nothing below can
//     resurrect. A deletion that shadows other keys (partition, range and
//     row deletions, a collection's tombstone) is deleted only in the same
//     batch as every key it shadows.
//
// What is deleted, with gcBefore = nowSec - gc_grace_seconds:
//   - a deletion or cell tombstone whose local deletion time < gcBefore;
//   - an expired cell or marker whose expiry - TTL < gcBefore (Cassandra
//     turns an expired cell into a tombstone deleted at its write time);
//   - any cell or marker shadowed by its row's effective deletion (partition
//     deletion, covering range tombstones, row deletion) or, for an element
//     of a collection, by the collection's tombstone. Shadowed data is never
//     visible, so removing it early changes no read; removing it is what
//     makes removing its deletion safe.
//
// As in Cassandra, data written after the purge with a timestamp older than
// a purged deletion is visible again (gc_grace_seconds is the window in
// which replicas must be repaired).

// tombstoneTime returns the index time of a stored value: the local
// deletion time of a deletion or cell tombstone, and expiry - TTL for an
// expiring cell or marker (the local deletion time Cassandra gives an
// expired cell turned tombstone); false for live, non-expiring data, which
// is never purged except as shadowed data. An entry is purgeable once its
// time is < now - gc_grace_seconds (and, when expiring, once expired).
func tombstoneTime(v []byte) (t int64, expiry int64, ok bool) {
	if len(v) < 9 {
		return 0, 0, false
	}
	switch v[0] & valKindMask {
	case valDeletion:
		d, ok := decodeDeletionValue(v)
		return d.LocalDeletionTime, 0, ok
	case valCell:
		switch {
		case v[0]&valFlagTomb != 0 && len(v) >= 17:
			return int64(binary.BigEndian.Uint64(v[9:])), 0, true
		case v[0]&valFlagExpiring != 0 && len(v) >= 21:
			exp := int64(binary.BigEndian.Uint64(v[9:]))
			return exp - int64(int32(binary.BigEndian.Uint32(v[17:]))), exp, true
		}
	case valMarker:
		if v[0]&valFlagExpiring != 0 && len(v) >= 21 {
			exp := int64(binary.BigEndian.Uint64(v[9:]))
			return exp - int64(int32(binary.BigEndian.Uint32(v[17:]))), exp, true
		}
	}
	return 0, 0, false
}

// nextIndexTime returns the index time at which a value kept by a purge
// must be looked at again: its tombstone time, or for an expiring entry not
// expired yet the time that comes due when it expires.
func nextIndexTime(v []byte, grace int64) (int64, bool) {
	t, exp, ok := tombstoneTime(v)
	if !ok {
		return 0, false
	}
	if exp != 0 {
		t = max(t, exp-grace-1)
	}
	return t, true
}

// appendPurgeIndexKey appends the purge index key of the partition with
// prefix pp at index time at: 0x02 | table id | at (uint64 BE, clamped at 0)
// | token | escaped partition key.
func appendPurgeIndexKey(dst, pp []byte, at int64) []byte {
	dst = append(dst, prefixPurgeIndex)
	dst = append(dst, pp[1:tablePrefixLen]...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(max(at, 0)))
	return append(dst, pp[tokenOffset:]...)
}

// purgeIndexPrefix is the purge index of one table.
func purgeIndexPrefix(id [16]byte) []byte {
	return append([]byte{prefixPurgeIndex}, id[:]...)
}

// PurgeStats reports what a Purge did.
type PurgeStats struct {
	// Partitions is the number of candidate partitions re-checked.
	Partitions int
	// Tombstones is the number of deletions, cell tombstones and expired
	// cells and markers removed.
	Tombstones int
	// Shadowed is the number of shadowed cells and markers removed.
	Shadowed int
}

func (s *PurgeStats) add(o PurgeStats) {
	s.Partitions += o.Partitions
	s.Tombstones += o.Tombstones
	s.Shadowed += o.Shadowed
}

// Purge removes the tombstones and expired data of table t that are older
// than gc_grace_seconds at nowSec, with the data they shadow (see above).
// It is safe to run concurrently with reads and writes. The space is freed
// when compactions drop the point deletions (Compact forces it).
func (p *Pebble) Purge(ctx context.Context, t *schema.Table, nowSec int64) (PurgeStats, error) {
	var st PurgeStats
	gcBefore := nowSec - int64(t.Params.GCGraceSeconds)
	if gcBefore <= 0 {
		return st, nil
	}
	ip := purgeIndexPrefix(t.ID)
	upper := binary.BigEndian.AppendUint64(bytes.Clone(ip), uint64(gcBefore))
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: ip, UpperBound: upper})
	if err != nil {
		return st, err
	}
	defer it.Close()
	d := purgeDecider{t: t, now: nowSec, gcBefore: gcBefore}
	tp := appendTablePrefix(nil, t.ID)
	for valid := it.First(); valid; valid = it.Next() {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		ik := it.Key()
		if len(ik) <= len(ip)+8+8 {
			return st, fmt.Errorf("%w: purge index %x", errCorrupt, ik)
		}
		pp := append(bytes.Clone(tp), ik[len(ip)+8:]...)
		if partitionPrefixLen(pp) != len(pp) {
			return st, fmt.Errorf("%w: purge index %x", errCorrupt, ik)
		}
		ps, err := p.purgePartition(&d, pp, bytes.Clone(ik))
		if err != nil {
			return st, err
		}
		st.add(ps)
	}
	return st, it.Error()
}

// stripe returns the lock stripe of a partition (tokens are hashes).
func (p *Pebble) stripe(tok int64) int { return int(uint64(tok) % lockStripes) }

const lockStripes = 64

// purgePartition re-checks and purges one partition under its lock.
// indexKey is the purge index entry that led here; it is deleted.
func (p *Pebble) purgePartition(d *purgeDecider, pp, indexKey []byte) (PurgeStats, error) {
	mu := &p.locks[p.stripe(decodeToken(pp[tokenOffset:]))]
	mu.Lock()
	defer mu.Unlock()
	st := PurgeStats{Partitions: 1}
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: pp, UpperBound: prefixEnd(pp)})
	if err != nil {
		return st, err
	}
	defer it.Close()
	b := p.db.NewBatch()
	defer b.Close()
	d.reset(len(pp))
	next := int64(math.MaxInt64) // earliest index time of what stays
	grace := int64(d.t.Params.GCGraceSeconds)
	for valid := it.SeekPrefixGE(pp); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return st, err
		}
		k := it.Key()
		act, err := d.decide(k, v)
		if err != nil {
			return st, err
		}
		switch act {
		case purgeKeep:
			if at, ok := nextIndexTime(v, grace); ok {
				next = min(next, max(at, d.gcBefore))
			}
			continue
		case purgeTombstone:
			st.Tombstones++
		case purgeShadowed:
			st.Shadowed++
		}
		if err := b.Delete(k, nil); err != nil {
			return st, err
		}
	}
	if err := it.Error(); err != nil {
		return st, err
	}
	if err := b.Delete(indexKey, nil); err != nil {
		return st, err
	}
	if next != math.MaxInt64 {
		if err := b.Set(appendPurgeIndexKey(nil, pp, next), nil, nil); err != nil {
			return st, err
		}
	}
	// Not synced: losing the deletes in a crash only brings back data that
	// is still shadowed by its (also restored) tombstones.
	err = b.Commit(pebble.NoSync)
	if p.pc != nil {
		p.pc.drop(pp) // after the commit (pcache.go)
	}
	return st, err
}

type purgeAction uint8

const (
	purgeKeep purgeAction = iota
	purgeTombstone
	purgeShadowed
)

// purgeDecider decides, key by key in key order for one partition, which
// entries go. Key order gives it every deletion before what it shadows:
// the header (partition deletion, range tombstones) first, a row's deletion
// before its marker and cells, a collection's tombstone before its elements.
type purgeDecider struct {
	t        *schema.Table
	now      int64
	gcBefore int64

	ppLen  int
	pd     mutation.Deletion
	rts    []rangeTombstone
	rowEnc []byte // clustering of the current row (kind byte included)
	eff    mutation.Deletion
	colDel uint32 // column of the last collection tombstone in the row
	colTS  int64
}

func (d *purgeDecider) reset(ppLen int) {
	d.ppLen = ppLen
	d.pd = mutation.Live
	d.rts = d.rts[:0]
	d.rowEnc = d.rowEnc[:0]
	d.eff = mutation.Live
	d.colDel = deadColumn
}

func (d *purgeDecider) purgeableDeletion(del mutation.Deletion) purgeAction {
	if del.LocalDeletionTime < d.gcBefore {
		return purgeTombstone
	}
	return purgeKeep
}

func (d *purgeDecider) decide(k, v []byte) (purgeAction, error) {
	rest := k[d.ppLen:]
	if len(rest) < 2 {
		return purgeKeep, fmt.Errorf("%w: %x", errCorrupt, k)
	}
	switch rest[0] {
	case kindHeader:
		del, ok := decodeDeletionValue(v)
		if !ok {
			return purgeKeep, fmt.Errorf("%w: header entry %x", errCorrupt, k)
		}
		switch rest[1] {
		case headerPartitionDeletion:
			d.pd = del
		case headerRangeTombstone:
			rg, err := decodeRangeTombstoneKey(rest[2:])
			if err != nil {
				return purgeKeep, err
			}
			d.rts = append(d.rts, rangeTombstone{r: rg, del: del})
		default:
			return purgeKeep, fmt.Errorf("%w: header entry %x", errCorrupt, k)
		}
		return d.purgeableDeletion(del), nil
	case kindStatic:
		if len(d.rowEnc) != 1 || d.rowEnc[0] != kindStatic {
			d.rowEnc = append(d.rowEnc[:0], kindStatic)
			d.startRow(nil)
		}
		return d.decideSlot(rest[1:], v)
	case kindRow:
		body := rest[1:]
		if len(d.rowEnc) == 0 || d.rowEnc[0] != kindRow || !bytes.HasPrefix(body, d.rowEnc[1:]) {
			n, err := clusteringLen(d.t, body)
			if err != nil {
				return purgeKeep, err
			}
			d.rowEnc = append(append(d.rowEnc[:0], kindRow), body[:n]...)
			d.startRow(body[:n])
		}
		return d.decideSlot(body[len(d.rowEnc)-1:], v)
	}
	return purgeKeep, fmt.Errorf("%w: kind %x", errCorrupt, rest[0])
}

// startRow computes the effective deletion of a new row from the partition
// deletion and the range tombstones covering enc (nil: the static row).
func (d *purgeDecider) startRow(enc []byte) {
	d.eff = d.pd
	if enc != nil {
		for i := range d.rts {
			if d.rts[i].r.contains(enc) {
				d.eff = mutation.MaxDeletion(d.eff, d.rts[i].del)
			}
		}
	}
	d.colDel, d.colTS = deadColumn, mutation.NoTimestamp
}

func (d *purgeDecider) decideSlot(slot, v []byte) (purgeAction, error) {
	if len(slot) == 0 {
		return purgeKeep, fmt.Errorf("%w: missing slot", errCorrupt)
	}
	switch slot[0] {
	case slotWritten:
		// The clustering as written goes as a cell does: when shadowed, or
		// expired (with the data written with it) past gc_grace_seconds.
		var c mutation.Cell
		if !decodeCellValue(v, &c) {
			return purgeKeep, fmt.Errorf("%w: clustering as written", errCorrupt)
		}
		return d.decideCell(deadColumn, false, &c), nil
	case slotRowDeletion:
		del, ok := decodeDeletionValue(v)
		if !ok {
			return purgeKeep, fmt.Errorf("%w: row deletion", errCorrupt)
		}
		d.eff = mutation.MaxDeletion(d.eff, del)
		return d.purgeableDeletion(del), nil
	case slotMarker:
		l, ok := decodeMarkerValue(v)
		if !ok {
			return purgeKeep, fmt.Errorf("%w: row marker", errCorrupt)
		}
		if d.eff.Deletes(l.Timestamp) {
			return purgeShadowed, nil
		}
		if l.TTL != 0 && !l.IsLive(d.now) && l.LocalDeletionTime-int64(l.TTL) < d.gcBefore {
			return purgeTombstone, nil
		}
		return purgeKeep, nil
	case slotCell:
		if len(slot) < 5 {
			return purgeKeep, fmt.Errorf("%w: cell slot", errCorrupt)
		}
		var c mutation.Cell
		if !decodeCellValue(v, &c) {
			return purgeKeep, fmt.Errorf("%w: cell value", errCorrupt)
		}
		id := binary.BigEndian.Uint32(slot[1:])
		hasPath := len(slot) > 5
		return d.decideCell(id, hasPath, &c), nil
	}
	return purgeKeep, fmt.Errorf("%w: slot %x", errCorrupt, slot[0])
}

// decideCell is shared with Memory.Purge.
func (d *purgeDecider) decideCell(id uint32, hasPath bool, c *mutation.Cell) purgeAction {
	if !hasPath && c.Tombstone {
		d.colDel, d.colTS = id, c.Timestamp
	}
	switch {
	case d.eff.Deletes(c.Timestamp):
		return purgeShadowed
	case hasPath && id == d.colDel && c.Timestamp <= d.colTS:
		return purgeShadowed
	case c.Tombstone && c.LocalDeletionTime < d.gcBefore:
		return purgeTombstone
	case c.TTL != 0 && !c.Tombstone && !c.IsLive(d.now) && c.LocalDeletionTime-int64(c.TTL) < d.gcBefore:
		return purgeTombstone
	}
	return purgeKeep
}

// clusteringLen returns the length of the encoded clustering at the start of
// b.
func clusteringLen(t *schema.Table, b []byte) (int, error) {
	src := b
	for _, c := range t.Clustering {
		_, tail, err := types.DecodeKey(c.Type, src, c.Desc)
		if err != nil {
			return 0, fmt.Errorf("storage: decoding clustering %s: %w", c.Name, err)
		}
		src = tail
	}
	return len(b) - len(src), nil
}

// Compact compacts the whole store (nodetool compact): afterwards purged
// data and point deletions are gone from disk.
//
// Pebble moves files that overlap nothing down without rewriting them and
// never rewrites the bottom level in a manual compaction, so keys of fresh
// data that were flushed and moved down stay MERGE operands (each read runs
// them through the merge operator); only keys that a compaction into the
// bottom level rewrote become SETs.
func (p *Pebble) Compact(ctx context.Context) error {
	return p.db.Compact(ctx, []byte{prefixMeta}, []byte{0xFF}, true /* parallelize */)
}

// purgeLoop runs Purge over every table every PurgeInterval.
func (p *Pebble) purgeLoop() {
	defer p.wg.Done()
	tk := time.NewTicker(p.opts.PurgeInterval)
	defer tk.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-p.stop
		cancel()
	}()
	for {
		select {
		case <-p.stop:
			return
		case <-tk.C:
		}
		now := p.opts.Now().Unix()
		for _, t := range p.opts.Tables() {
			if t.Virtual {
				continue
			}
			st, err := p.Purge(ctx, t, now)
			if err != nil {
				if ctx.Err() == nil {
					p.opts.Logger.Error("storage: purge failed", "table", t.Keyspace+"."+t.Name, "err", err)
				}
				continue
			}
			if st.Tombstones+st.Shadowed > 0 {
				p.opts.Logger.Debug("storage: purged", "table", t.Keyspace+"."+t.Name,
					"partitions", st.Partitions, "tombstones", st.Tombstones, "shadowed", st.Shadowed)
			}
		}
	}
}
