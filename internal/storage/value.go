package storage

import (
	"encoding/binary"
	"io"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cqld/cqld/internal/mutation"
)

// Value encoding (layout.md, "Values"). The first byte holds the kind and
// flags; the rest is big-endian fixed-width fields, then the cell value.
const (
	valKindMask     byte = 0x03
	valCell         byte = 0x00
	valMarker       byte = 0x01
	valDeletion     byte = 0x02
	valFlagTomb     byte = 0x04 // cell tombstone
	valFlagExpiring byte = 0x08 // cell or marker with a TTL
	// valFlagPath: a live collection element whose key (Cell.Path) was
	// written in another form than the canonical one its key encoding
	// decodes to; the path as written precedes the value.
	valFlagPath byte = 0x10
)

// appendCellValue appends the value of c; written, when not nil, is the
// element path as written (valFlagPath; live cells only).
func appendCellValue(dst []byte, c *mutation.Cell, written []byte) []byte {
	flags := valCell
	if c.Tombstone {
		flags |= valFlagTomb
	} else if c.TTL != 0 {
		flags |= valFlagExpiring
	}
	if written != nil && !c.Tombstone {
		flags |= valFlagPath
	}
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.Timestamp))
	if flags&(valFlagTomb|valFlagExpiring) != 0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(c.LocalDeletionTime))
	}
	if flags&valFlagExpiring != 0 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(c.TTL))
	}
	if flags&valFlagPath != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(written)))
		dst = append(dst, written...)
	}
	if !c.Tombstone {
		dst = append(dst, c.Value...)
	}
	return dst
}

// decodeCellValue fills the non-key fields of c; c.Value aliases v.
func decodeCellValue(v []byte, c *mutation.Cell) bool {
	_, ok := decodeCellValuePath(v, c)
	return ok
}

// decodeCellValuePath is decodeCellValue, also returning the element path
// as written (valFlagPath), nil when the value has none; both alias v.
func decodeCellValuePath(v []byte, c *mutation.Cell) (written []byte, ok bool) {
	if len(v) < 9 || v[0]&valKindMask != valCell {
		return nil, false
	}
	flags := v[0]
	c.Timestamp = int64(binary.BigEndian.Uint64(v[1:]))
	v = v[9:]
	c.TTL, c.LocalDeletionTime, c.Tombstone = 0, mutation.NoDeletion, flags&valFlagTomb != 0
	if flags&(valFlagTomb|valFlagExpiring) != 0 {
		if len(v) < 8 {
			return nil, false
		}
		c.LocalDeletionTime = int64(binary.BigEndian.Uint64(v))
		v = v[8:]
	}
	if flags&valFlagExpiring != 0 {
		if len(v) < 4 {
			return nil, false
		}
		c.TTL = int32(binary.BigEndian.Uint32(v))
		v = v[4:]
	}
	if flags&valFlagPath != 0 {
		n, k := binary.Uvarint(v)
		if k <= 0 || n > uint64(len(v)-k) {
			return nil, false
		}
		written = v[k : k+int(n) : k+int(n)]
		v = v[k+int(n):]
	}
	if c.Tombstone {
		c.Value = nil
	} else {
		c.Value = v
	}
	return written, true
}

func appendMarkerValue(dst []byte, l mutation.Liveness) []byte {
	flags := valMarker
	if l.TTL != 0 {
		flags |= valFlagExpiring
	}
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(l.Timestamp))
	if l.TTL != 0 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(l.LocalDeletionTime))
		dst = binary.BigEndian.AppendUint32(dst, uint32(l.TTL))
	}
	return dst
}

func decodeMarkerValue(v []byte) (mutation.Liveness, bool) {
	l := mutation.NoLiveness
	if len(v) < 9 || v[0]&valKindMask != valMarker {
		return l, false
	}
	l.Timestamp = int64(binary.BigEndian.Uint64(v[1:]))
	if v[0]&valFlagExpiring != 0 {
		if len(v) < 21 {
			return l, false
		}
		l.LocalDeletionTime = int64(binary.BigEndian.Uint64(v[9:]))
		l.TTL = int32(binary.BigEndian.Uint32(v[17:]))
	}
	return l, true
}

func appendDeletionValue(dst []byte, d mutation.Deletion) []byte {
	dst = append(dst, valDeletion)
	dst = binary.BigEndian.AppendUint64(dst, uint64(d.MarkedForDeleteAt))
	return binary.BigEndian.AppendUint64(dst, uint64(d.LocalDeletionTime))
}

func decodeDeletionValue(v []byte) (mutation.Deletion, bool) {
	if len(v) != 17 || v[0]&valKindMask != valDeletion {
		return mutation.Live, false
	}
	return mutation.Deletion{
		MarkedForDeleteAt: int64(binary.BigEndian.Uint64(v[1:])),
		LocalDeletionTime: int64(binary.BigEndian.Uint64(v[9:])),
	}, true
}

// mergerName is persisted by Pebble: never change it for a different
// reconciliation rule; add a new name and a migration instead.
const mergerName = "cqld.cell.v1"

// cellMerger is the Pebble merge operator: every data key is written with
// Merge (a blind write), and the operator keeps the winner by Cassandra's
// rules. The winner does not depend on the order of operands, so partial
// merges in compactions are safe. It never deletes (see FACTS.md: Pebble's
// DeletableValueMerger is unsafe).
var cellMerger = &pebble.Merger{
	Name: mergerName,
	Merge: func(key, value []byte) (pebble.ValueMerger, error) {
		m := mergerPool.Get().(*valueMerger)
		m.cur = append(m.cur[:0], value...)
		return m, nil
	},
}

// mergerPool recycles value mergers: Pebble merges every MERGE key it
// reads, even a single operand, so a point read creates several. Finish
// hands the merger back as the value's Closer, which returns it to the pool
// once Pebble is done with the value.
var mergerPool = sync.Pool{New: func() any { return new(valueMerger) }}

// valueMerger keeps its buffer when it goes back to the pool. One that
// copied into a fresh slice allocated for every key read with a value of
// more than 48 bytes: YCSB's 100-byte fields, and 50 of the 162
// allocations of a 50-row slice (BenchmarkSliceRead; 3% of server CPU
// under the benchmark's slice workload, perf, before the collections).
type valueMerger struct {
	cur []byte
}

func (m *valueMerger) MergeNewer(v []byte) error {
	if newerWins(m.cur, v) {
		m.cur = append(m.cur[:0], v...)
	}
	return nil
}

func (m *valueMerger) MergeOlder(v []byte) error {
	if !newerWins(v, m.cur) {
		m.cur = append(m.cur[:0], v...)
	}
	return nil
}

func (m *valueMerger) Finish(includesBase bool) ([]byte, io.Closer, error) {
	return m.cur, m, nil
}

// Close implements io.Closer: Pebble no longer uses the merged value.
func (m *valueMerger) Close() error {
	if cap(m.cur) > 4<<10 {
		return nil // do not keep large values alive
	}
	m.cur = m.cur[:0]
	mergerPool.Put(m)
	return nil
}

// newerWins reports whether b (the newer operand) wins over a. Operands of
// different kinds or undecodable ones cannot occur; the newer one wins then.
func newerWins(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 || a[0]&valKindMask != b[0]&valKindMask {
		return true
	}
	if wins, ok := byTimestamp(a, b); ok {
		return wins
	}
	return newerWinsTie(a, b)
}

// byTimestamp decides newerWins(a, b) by the operands' timestamps alone:
// every kind starts with its timestamp (a deletion's markedForDeleteAt)
// after the kind byte, and the higher one wins, so most merges of a hot
// key's operands are decided without decoding. decided is false for
// operands of different kinds, too short, or with equal timestamps (then
// the winner does not depend on the timestamps alone).
func byTimestamp(a, b []byte) (bWins, decided bool) {
	if len(a) < 9 || len(b) < 9 || a[0]&valKindMask != b[0]&valKindMask {
		return false, false
	}
	ta, tb := int64(binary.BigEndian.Uint64(a[1:])), int64(binary.BigEndian.Uint64(b[1:]))
	if ta == tb {
		return false, false
	}
	return tb > ta, true
}

// newerWinsTie is newerWins for operands of the same kind, decoded.
func newerWinsTie(a, b []byte) bool {
	switch a[0] & valKindMask {
	case valCell:
		var ca, cb mutation.Cell
		if !decodeCellValue(a, &ca) || !decodeCellValue(b, &cb) {
			return true
		}
		// Reconcile returns its first argument on a complete tie.
		return mutation.Reconcile(&cb, &ca) == &cb
	case valMarker:
		la, oka := decodeMarkerValue(a)
		lb, okb := decodeMarkerValue(b)
		if !oka || !okb {
			return true
		}
		return mutation.ReconcileLiveness(lb, la) == lb
	case valDeletion:
		da, oka := decodeDeletionValue(a)
		db, okb := decodeDeletionValue(b)
		if !oka || !okb {
			return true
		}
		return !da.Supersedes(db)
	}
	return true
}
