package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Key layout; layout.md is the prose specification of these bytes and
// layout_test.go quotes it.
const (
	prefixMeta byte = 0x00 // node-local metadata: 0x00 'm' name
	prefixData byte = 0x01 // table data: 0x01 table-id token pk kind ...
	// purge index: 0x02 table-id purge-time token pk (purge.go)
	prefixPurgeIndex byte = 0x02

	metaTag byte = 'm'

	// Kind bytes, in the order they sort inside a partition.
	kindHeader byte = 0x00 // partition deletion and range tombstones
	kindStatic byte = 0x01 // the static row
	kindRow    byte = 0x02 // regular rows

	// Entries of the header area.
	headerPartitionDeletion byte = 0x00
	headerRangeTombstone    byte = 0x01

	// Slots of a row, in the order they sort.
	slotRowDeletion byte = 0x00
	slotMarker      byte = 0x01
	slotCell        byte = 0x02
	// slotWritten holds the clustering values as written when they differ
	// from the canonical form the key encoding decodes to (layout.md,
	// "clustering as written").
	slotWritten byte = 0x03

	// After a cell's column id: absent for a simple cell (or a collection
	// deletion), pathTag followed by the encoded element key otherwise.
	pathTag byte = 0x01

	// Range tombstone end bound: bounded (an escaped clustering key follows)
	// or unbounded (nothing follows).
	rtEndBounded   byte = 0x00
	rtEndUnbounded byte = 0x01

	tablePrefixLen = 1 + 16
	tokenOffset    = tablePrefixLen
	pkOffset       = tablePrefixLen + 8
)

var errCorrupt = errors.New("storage: corrupt key")

func appendTablePrefix(dst []byte, id [16]byte) []byte {
	dst = append(dst, prefixData)
	return append(dst, id[:]...)
}

// appendToken appends the token with its sign bit flipped, big-endian, so
// that token order is byte order.
func appendToken(dst []byte, tok int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(tok)^(1<<63))
}

func decodeToken(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// appendEscaped appends b with 0x00 escaped as 0x00 0xFF and terminated by
// 0x00 0x01: order-preserving and prefix-free.
func appendEscaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, 0xFF)
		b = b[i+1:]
	}
	dst = append(dst, b...)
	return append(dst, 0x00, 0x01)
}

// escapedLen returns the length of the escaped string at the start of b
// (terminator included), or -1 when it is not terminated.
func escapedLen(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0 {
			if b[i+1] == 0x01 {
				return i + 2
			}
			i++ // skip the 0xFF of an escaped 0x00
		}
	}
	return -1
}

// appendUnescaped appends the decoded form of an escaped string of length n
// (as returned by escapedLen).
func appendUnescaped(dst, b []byte) []byte {
	b = b[:len(b)-2]
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:i+1]...)
		b = b[i+2:]
	}
}

// appendPartitionPrefix appends table prefix, token and escaped key: the
// bytes every key of the partition starts with.
func appendPartitionPrefix(dst []byte, id [16]byte, tok int64, key []byte) []byte {
	dst = appendTablePrefix(dst, id)
	dst = appendToken(dst, tok)
	return appendEscaped(dst, key)
}

// partitionPrefixLen is the Pebble Split function: the partition prefix of a
// data key (so that bloom filters answer "is this partition here?"), or the
// whole key for anything else.
func partitionPrefixLen(key []byte) int {
	if len(key) <= pkOffset || key[0] != prefixData {
		return len(key)
	}
	n := escapedLen(key[pkOffset:])
	if n < 0 {
		return len(key)
	}
	return pkOffset + n
}

// prefixEnd returns the smallest key greater than every key that starts with
// p, or nil when there is none (p is all 0xFF).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// appendClustering appends the key encoding of a clustering prefix.
func appendClustering(dst []byte, t *schema.Table, values [][]byte) ([]byte, error) {
	if len(values) > len(t.Clustering) {
		return nil, fmt.Errorf("storage: %d clustering values for %d clustering columns", len(values), len(t.Clustering))
	}
	for i, v := range values {
		c := t.Clustering[i]
		dst = types.AppendKey(dst, c.Type, v, c.Desc)
	}
	return dst, nil
}

// canonicalClustering reports whether the clustering values are in the
// canonical form their key encoding decodes to (types.KeyMayCanonicalize):
// when they are not, Apply also writes them as written (slotWritten).
func canonicalClustering(t *schema.Table, values [][]byte, buf []byte) (bool, error) {
	for i, v := range values {
		cv, err := canonicalValue(t.Clustering[i], buf[:0], v)
		if err != nil || !bytes.Equal(cv, v) {
			return false, err
		}
	}
	return true, nil
}

// canonicalValue returns the canonical form of a value of clustering column
// c (v itself for the types whose key encoding is lossless); buf is scratch.
func canonicalValue(c *schema.Column, buf, v []byte) ([]byte, error) {
	cv, err := canonicalForm(c.Type, c.Desc, buf, v)
	if err != nil {
		return nil, fmt.Errorf("storage: clustering %s: %w", c.Name, err)
	}
	return cv, nil
}

// canonicalPath returns the canonical form of an element path of the
// multi-cell column c (Cell.Path): different when Apply stores the path as
// written in the cell's value (valFlagPath).
func canonicalPath(c *schema.Column, buf, path []byte) ([]byte, error) {
	pt := pathType(c)
	if pt == nil {
		return path, nil
	}
	cp, err := canonicalForm(pt, false, buf, path)
	if err != nil {
		return nil, fmt.Errorf("storage: element of %s: %w", c.Name, err)
	}
	return cp, nil
}

// canonicalForm returns what the key encoding of v decodes to (v itself
// for the types whose key encoding is lossless); buf is scratch.
func canonicalForm(t *types.Type, desc bool, buf, v []byte) ([]byte, error) {
	if !types.KeyMayCanonicalize(t) {
		return v, nil
	}
	dec, _, err := types.DecodeKey(t, types.AppendKey(buf, t, v, desc), desc)
	return dec, err
}

// writtenCell returns the cell of slotWritten for a row update: live, with
// the newest timestamp of the update's marker and live cells, expiring
// (with the latest expiry among them) only when all of them expire, so that
// it lives as long as the data written with it; false when the update
// writes no live data (only deletions). Its Value is left to the caller.
func writtenCell(r *mutation.Row) (mutation.Cell, bool) {
	c := mutation.Cell{Timestamp: mutation.NoTimestamp, LocalDeletionTime: math.MinInt64}
	expiring := true
	add := func(ts int64, ttl int32, ldt int64) {
		c.Timestamp = max(c.Timestamp, ts)
		if ttl == 0 {
			expiring = false
		} else if ldt > c.LocalDeletionTime {
			c.LocalDeletionTime, c.TTL = ldt, ttl
		}
	}
	if r.Marker.Timestamp != mutation.NoTimestamp {
		add(r.Marker.Timestamp, r.Marker.TTL, r.Marker.LocalDeletionTime)
	}
	for i := range r.Cells {
		if cl := &r.Cells[i]; !cl.Tombstone {
			add(cl.Timestamp, cl.TTL, cl.LocalDeletionTime)
		}
	}
	if !expiring {
		c.TTL, c.LocalDeletionTime = 0, mutation.NoDeletion
	}
	return c, c.Timestamp != mutation.NoTimestamp
}

// appendWrittenValues appends the clustering values of slotWritten: each
// as its length (uvarint) and bytes.
func appendWrittenValues(dst []byte, values [][]byte) []byte {
	for _, v := range values {
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	return dst
}

// decodeWrittenValues decodes n values written by appendWrittenValues; they
// alias b.
func decodeWrittenValues(b []byte, n int) ([][]byte, bool) {
	out := make([][]byte, n)
	for i := range out {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, false
		}
		out[i] = b[k : k+int(l) : k+int(l)]
		b = b[k+int(l):]
	}
	return out, len(b) == 0
}

// pathType returns the type whose key encoding orders the element keys
// (Cell.Path) of a multi-cell column, or nil when the raw bytes are escaped
// (UDT field positions, unknown types).
func pathType(c *schema.Column) *types.Type {
	switch c.Type.Kind {
	case types.Map, types.Set:
		return c.Type.Params[0]
	case types.List:
		return types.TimeuuidType
	}
	return nil
}

func appendPath(dst []byte, c *schema.Column, path []byte) []byte {
	dst = append(dst, pathTag)
	if pt := pathType(c); pt != nil {
		return types.AppendKey(dst, pt, path, false)
	}
	return appendEscaped(dst, path)
}

// appendDecodedPath decodes an element path (after pathTag) into dst.
func appendDecodedPath(dst []byte, c *schema.Column, src []byte) ([]byte, error) {
	if pt := pathType(c); pt != nil {
		v, rest, err := types.DecodeKey(pt, src, false)
		if err != nil {
			return nil, err
		}
		if len(rest) != 0 {
			return nil, errCorrupt
		}
		return append(dst, v...), nil
	}
	if escapedLen(src) != len(src) {
		return nil, errCorrupt
	}
	return appendUnescaped(dst, src), nil
}

// comparePaths orders the element keys of a column as the key encoding does.
func comparePaths(c *schema.Column, a, b []byte) int {
	if pt := pathType(c); pt != nil {
		return types.Compare(pt, a, b)
	}
	return bytes.Compare(a, b)
}

// appendCellSlot appends slotCell, the column id and the path (if any).
func appendCellSlot(dst []byte, c *schema.Column, path []byte) []byte {
	dst = append(dst, slotCell)
	dst = binary.BigEndian.AppendUint32(dst, c.ID)
	if path != nil {
		dst = appendPath(dst, c, path)
	}
	return dst
}

// byteRange is a half-open range [lo, hi) of encoded clustering keys; hiInf
// means unbounded above.
type byteRange struct {
	lo, hi []byte
	hiInf  bool
}

func (r byteRange) empty() bool { return !r.hiInf && bytes.Compare(r.lo, r.hi) >= 0 }

func (r byteRange) contains(k []byte) bool {
	return bytes.Compare(k, r.lo) >= 0 && (r.hiInf || bytes.Compare(k, r.hi) < 0)
}

// sliceRange translates a clustering slice to the range of encoded
// clustering keys it selects. Because the per-component encoding is
// order-preserving and prefix-free, the rows whose clustering starts with a
// prefix P are exactly the keys in [enc(P), prefixEnd(enc(P))).
func sliceRange(t *schema.Table, s mutation.Slice) (byteRange, error) {
	var r byteRange
	if len(s.Start.Values) > 0 {
		p, err := appendClustering(nil, t, s.Start.Values)
		if err != nil {
			return r, err
		}
		if s.Start.Inclusive {
			r.lo = p
		} else if r.lo = prefixEnd(p); r.lo == nil {
			return byteRange{lo: []byte{}, hi: []byte{}}, nil // nothing sorts after
		}
	} else {
		r.lo = []byte{}
	}
	if len(s.End.Values) > 0 {
		p, err := appendClustering(nil, t, s.End.Values)
		if err != nil {
			return r, err
		}
		if s.End.Inclusive {
			r.hi = prefixEnd(p)
			r.hiInf = r.hi == nil
		} else {
			r.hi = p
		}
	} else {
		r.hiInf = true
	}
	return r, nil
}

// normalizeSlices returns the non-empty ranges of the slices, sorted and
// with overlaps merged (nil slices: the whole partition).
func normalizeSlices(t *schema.Table, slices []mutation.Slice) ([]byteRange, error) {
	if slices == nil {
		return []byteRange{{lo: []byte{}, hiInf: true}}, nil
	}
	out := make([]byteRange, 0, len(slices))
	for _, s := range slices {
		r, err := sliceRange(t, s)
		if err != nil {
			return nil, err
		}
		if !r.empty() {
			out = append(out, r)
		}
	}
	if len(out) <= 1 {
		return out, nil
	}
	sortRanges(out)
	merged := out[:1]
	for _, r := range out[1:] {
		last := &merged[len(merged)-1]
		if last.hiInf || bytes.Compare(r.lo, last.hi) <= 0 {
			if !last.hiInf && (r.hiInf || bytes.Compare(r.hi, last.hi) > 0) {
				last.hi, last.hiInf = r.hi, r.hiInf
			}
			continue
		}
		merged = append(merged, r)
	}
	return merged, nil
}

// sortRanges sorts rs by their lower bounds (not by insertion: a million
// slices in reverse order, which a DESC column's IN list makes, took
// hours).
func sortRanges(rs []byteRange) {
	slices.SortFunc(rs, func(a, b byteRange) int { return bytes.Compare(a.lo, b.lo) })
}

// appendRangeTombstoneKey appends the header key of a range tombstone over r.
func appendRangeTombstoneKey(dst []byte, r byteRange) []byte {
	dst = append(dst, kindHeader, headerRangeTombstone)
	dst = appendEscaped(dst, r.lo)
	if r.hiInf {
		return append(dst, rtEndUnbounded)
	}
	dst = append(dst, rtEndBounded)
	return appendEscaped(dst, r.hi)
}

// decodeRangeTombstoneKey decodes what follows kindHeader,
// headerRangeTombstone. The returned range owns its bytes.
func decodeRangeTombstoneKey(b []byte) (byteRange, error) {
	var r byteRange
	n := escapedLen(b)
	if n < 0 || n >= len(b) {
		return r, errCorrupt
	}
	r.lo = appendUnescaped([]byte{}, b[:n])
	b = b[n:]
	switch b[0] {
	case rtEndUnbounded:
		r.hiInf = true
		if len(b) != 1 {
			return r, errCorrupt
		}
	case rtEndBounded:
		b = b[1:]
		if escapedLen(b) != len(b) {
			return r, errCorrupt
		}
		r.hi = appendUnescaped([]byte{}, b)
	default:
		return r, errCorrupt
	}
	return r, nil
}

func metaKey(name string) []byte {
	k := make([]byte, 0, 2+len(name))
	k = append(k, prefixMeta, metaTag)
	return append(k, name...)
}

// prefixEndInPlace turns b into prefixEnd(b) in place (false when there is
// none: b is all 0xFF).
func prefixEndInPlace(b []byte) ([]byte, bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0xFF {
			b[i]++
			return b[:i+1], true
		}
	}
	return b[:0], false
}

// sliceRangeInto is sliceRange with the encoded bounds appended to buf (no
// other allocation); the range aliases the returned buffer.
func sliceRangeInto(buf []byte, t *schema.Table, s mutation.Slice) (byteRange, []byte, error) {
	start := len(buf)
	var err error
	if len(s.Start.Values) > 0 {
		if buf, err = appendClustering(buf, t, s.Start.Values); err != nil {
			return byteRange{}, buf, err
		}
		if !s.Start.Inclusive {
			lo, ok := prefixEndInPlace(buf[start:])
			if !ok {
				return byteRange{lo: []byte{}, hi: []byte{}}, buf[:start], nil // nothing sorts after
			}
			buf = buf[:start+len(lo)]
		}
	}
	loEnd := len(buf)
	hiInf := true
	if len(s.End.Values) > 0 {
		if s.Start.Inclusive && sameValues(s.Start.Values, s.End.Values) {
			// A point slice (= on the clustering): the end encodes as
			// the start.
			buf = append(buf, buf[start:loEnd]...)
		} else if buf, err = appendClustering(buf, t, s.End.Values); err != nil {
			return byteRange{}, buf, err
		}
		hiInf = false
		if s.End.Inclusive {
			hi, ok := prefixEndInPlace(buf[loEnd:])
			buf = buf[:loEnd+len(hi)]
			hiInf = !ok
		}
	}
	r := byteRange{lo: buf[start:loEnd:loEnd], hiInf: hiInf}
	if !hiInf {
		r.hi = buf[loEnd:len(buf):len(buf)]
	}
	return r, buf, nil
}

// sameValues reports whether a and b are the same clustering values.
func sameValues(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
