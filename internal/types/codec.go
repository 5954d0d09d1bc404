package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"sort"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
)

// This file holds the typed constructors and decoders of serialized values
// (native protocol v3+ encodings). Encoders never fail; decoders check the
// length and return an Invalid *cqlerr.Error on malformed input.

// EncodeInt serializes an int.
func EncodeInt(v int32) []byte { return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(v)) }

// EncodeBigint serializes a bigint (also counter).
func EncodeBigint(v int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(v))
}

// EncodeSmallint serializes a smallint.
func EncodeSmallint(v int16) []byte { return []byte{byte(uint16(v) >> 8), byte(v)} }

// EncodeTinyint serializes a tinyint.
func EncodeTinyint(v int8) []byte { return []byte{byte(v)} }

// EncodeText serializes a text/varchar/ascii value. The empty string encodes
// as a non-nil zero-length value.
func EncodeText(s string) []byte { return append([]byte{}, s...) }

// EncodeBoolean serializes a boolean.
func EncodeBoolean(b bool) []byte {
	if b {
		return []byte{1}
	}
	return []byte{0}
}

// EncodeDouble serializes a double.
func EncodeDouble(f float64) []byte { return EncodeBigint(int64(math.Float64bits(f))) }

// EncodeFloat serializes a float.
func EncodeFloat(f float32) []byte { return EncodeInt(int32(math.Float32bits(f))) }

// EncodeUUID serializes a uuid or timeuuid.
func EncodeUUID(u [16]byte) []byte { return append([]byte{}, u[:]...) }

// EncodeTimestamp serializes a timestamp (milliseconds since the epoch;
// sub-millisecond precision is truncated towards negative infinity).
func EncodeTimestamp(t time.Time) []byte {
	ms := t.Unix()*1000 + int64(t.Nanosecond())/1e6
	return EncodeBigint(ms)
}

// EncodeTimestampMillis serializes a timestamp given in ms since the epoch.
func EncodeTimestampMillis(ms int64) []byte { return EncodeBigint(ms) }

// EncodeDate serializes a date given as days since the epoch (may be negative).
func EncodeDate(daysSinceEpoch int64) []byte {
	return EncodeInt(int32(uint32(daysSinceEpoch + dateEpoch)))
}

// EncodeTime serializes a time of day given in nanoseconds since midnight.
func EncodeTime(nanos int64) []byte { return EncodeBigint(nanos) }

// EncodeVarint serializes a varint as minimal two's complement big-endian.
func EncodeVarint(x *big.Int) []byte {
	switch x.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := x.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// Negative: two's complement of |x| over n bytes.
	n := (x.BitLen() + 8) / 8 // enough room for the sign bit
	m := new(big.Int).Lsh(big.NewInt(1), uint(n*8))
	m.Add(m, x)
	b := m.Bytes()
	for len(b) < n {
		b = append([]byte{0}, b...)
	}
	// Trim redundant leading 0xFF bytes.
	for len(b) > 1 && b[0] == 0xFF && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

// DecodeVarintBytes interprets b (non-empty) as a two's complement big-endian integer.
func DecodeVarintBytes(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	return x
}

// EncodeDecimal serializes unscaled × 10^-scale.
func EncodeDecimal(unscaled *big.Int, scale int32) []byte {
	return append(EncodeInt(scale), EncodeVarint(unscaled)...)
}

// DecodeDecimal returns the unscaled value and scale of a non-empty decimal.
func DecodeDecimal(v []byte) (unscaled *big.Int, scale int32, err error) {
	// Exactly 4 bytes (a scale without unscaled bytes) passes Cassandra's
	// validation; cqld reads it as zero.
	if len(v) < 4 {
		return nil, 0, cqlerr.Invalidf("Expected 0 or at least 4 bytes (%d)", len(v))
	}
	return DecodeVarintBytes(v[4:]), int32(binary.BigEndian.Uint32(v)), nil
}

// EncodeDuration serializes a duration (months, days, nanoseconds).
func EncodeDuration(months, days int32, nanos int64) []byte {
	b := appendSignedVint(nil, int64(months))
	b = appendSignedVint(b, int64(days))
	return appendSignedVint(b, nanos)
}

// DecodeDuration decodes a duration (three Cassandra signed vints, see vint.go).
func DecodeDuration(v []byte) (months, days int32, nanos int64, err error) {
	m, n1 := readSignedVint(v)
	if n1 <= 0 {
		return 0, 0, 0, errDuration
	}
	d, n2 := readSignedVint(v[n1:])
	if n2 <= 0 {
		return 0, 0, 0, errDuration
	}
	ns, n3 := readSignedVint(v[n1+n2:])
	if n3 <= 0 || n1+n2+n3 != len(v) {
		return 0, 0, 0, errDuration
	}
	if m != int64(int32(m)) || d != int64(int32(d)) {
		return 0, 0, 0, errDuration
	}
	if !((m >= 0 && d >= 0 && ns >= 0) || (m <= 0 && d <= 0 && ns <= 0)) {
		return 0, 0, 0, cqlerr.Invalidf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", m, d, ns)
	}
	return int32(m), int32(d), ns, nil
}

var errDuration = cqlerr.Invalidf("Invalid duration value")

// DecodeInt decodes a 4-byte int.
func DecodeInt(v []byte) (int32, error) {
	if len(v) != 4 {
		return 0, cqlerr.Invalidf("Expected 4 or 0 byte int (%d)", len(v))
	}
	return int32(binary.BigEndian.Uint32(v)), nil
}

// DecodeBigint decodes an 8-byte bigint, counter, timestamp or time.
func DecodeBigint(v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, cqlerr.Invalidf("Expected 8 or 0 byte long (%d)", len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// DecodeSmallint decodes a 2-byte smallint.
func DecodeSmallint(v []byte) (int16, error) {
	if len(v) != 2 {
		return 0, cqlerr.Invalidf("Expected 2 bytes for a smallint (%d)", len(v))
	}
	return int16(binary.BigEndian.Uint16(v)), nil
}

// DecodeTinyint decodes a 1-byte tinyint.
func DecodeTinyint(v []byte) (int8, error) {
	if len(v) != 1 {
		return 0, cqlerr.Invalidf("Expected 1 byte for a tinyint (%d)", len(v))
	}
	return int8(v[0]), nil
}

// DecodeBoolean decodes a boolean (any non-zero byte is true).
func DecodeBoolean(v []byte) (bool, error) {
	if len(v) != 1 {
		return false, cqlerr.Invalidf("Expected 1 or 0 byte value (%d)", len(v))
	}
	return v[0] != 0, nil
}

// DecodeDouble decodes a double.
func DecodeDouble(v []byte) (float64, error) {
	if len(v) != 8 {
		return 0, cqlerr.Invalidf("Expected 8 or 0 byte value for a double (%d)", len(v))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(v)), nil
}

// DecodeFloat decodes a float.
func DecodeFloat(v []byte) (float32, error) {
	if len(v) != 4 {
		return 0, cqlerr.Invalidf("Expected 4 or 0 byte value for a float (%d)", len(v))
	}
	return math.Float32frombits(binary.BigEndian.Uint32(v)), nil
}

// DecodeUUID decodes a uuid or timeuuid.
func DecodeUUID(v []byte) ([16]byte, error) {
	var u [16]byte
	if len(v) != 16 {
		return u, cqlerr.Invalidf("UUID should be 16 or 0 bytes (%d)", len(v))
	}
	copy(u[:], v)
	return u, nil
}

// DecodeTimestamp decodes a timestamp as a UTC time.Time.
func DecodeTimestamp(v []byte) (time.Time, error) {
	ms, err := DecodeBigint(v)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// DecodeDate returns the number of days since the epoch (may be negative).
func DecodeDate(v []byte) (int64, error) {
	if len(v) != 4 {
		return 0, cqlerr.Invalidf("Expected 4 byte long for date (%d)", len(v))
	}
	return int64(binary.BigEndian.Uint32(v)) - dateEpoch, nil
}

// dateEpoch is the serialized value of 1970-01-01 (2^31).
const dateEpoch = 1 << 31

// EncodeCollection serializes a list, or a set/map whose elements are
// already sorted and unique: int32 count followed by [int32 len][bytes]
// for each element (map: key and value alternate, count = number of
// entries = len(elems)/2 — callers pass count explicitly through EncodeMap).
func encodeCollection(count int, elems [][]byte) []byte {
	n := 4
	for _, e := range elems {
		n += 4 + len(e)
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint32(b, uint32(count))
	for _, e := range elems {
		b = appendValue(b, e)
	}
	return b
}

// appendValue appends [int32 len][bytes], len -1 for nil (null).
func appendValue(b, e []byte) []byte {
	if e == nil {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
	return append(b, e...)
}

// EncodeList serializes a list of serialized elements. Elements must not be nil.
func EncodeList(elems [][]byte) []byte { return encodeCollection(len(elems), elems) }

// EncodeSet serializes a set: elements are sorted by elem's comparator and
// duplicates removed. The input slice is reordered.
func EncodeSet(elem *Type, elems [][]byte) []byte {
	elems = SortDedupe(elem, elems)
	return encodeCollection(len(elems), elems)
}

// SortDedupe sorts serialized values with t's comparator and removes
// duplicates (the first occurrence is kept). It reorders the input slice and
// returns a prefix of it.
func SortDedupe(t *Type, elems [][]byte) [][]byte {
	sortStable(len(elems), func(i, j int) bool { return Compare(t, elems[i], elems[j]) < 0 },
		func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
	out := elems[:0]
	for i, e := range elems {
		if i > 0 && Compare(t, out[len(out)-1], e) == 0 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// EncodeMap serializes a map from parallel slices of serialized keys and
// values. Entries are sorted by key; for duplicate keys the last value wins
// (as in a CQL map literal).
func EncodeMap(key *Type, keys, values [][]byte) []byte {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sortStable(len(idx), func(i, j int) bool { return Compare(key, keys[idx[i]], keys[idx[j]]) < 0 },
		func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	elems := make([][]byte, 0, 2*len(keys))
	for n, i := range idx {
		if n+1 < len(idx) && Compare(key, keys[i], keys[idx[n+1]]) == 0 {
			continue // a later duplicate wins
		}
		elems = append(elems, keys[i], values[i])
	}
	return encodeCollection(len(elems)/2, elems)
}

// EncodeTuple serializes a tuple or UDT value; nil components are null.
func EncodeTuple(components [][]byte) []byte {
	var b []byte
	for _, c := range components {
		b = appendValue(b, c)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// DecodeCollection splits a serialized list or set into its elements, or a
// map into alternating keys and values. The returned slices alias v.
func DecodeCollection(v []byte) ([][]byte, error) { return decodeCollection(v, 1) }

// DecodeMap splits a serialized map into keys and values (aliasing v).
func DecodeMap(v []byte) (keys, values [][]byte, err error) {
	elems, err := decodeCollection(v, 2)
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i < len(elems); i += 2 {
		keys = append(keys, elems[i])
		values = append(values, elems[i+1])
	}
	return keys, values, nil
}

// decodeListWithNulls splits a serialized list whose elements may be null
// (nil): the per-cell TTLs and write times of a non-frozen list, which
// Cassandra returns with null elements for cells without a TTL.
func decodeListWithNulls(t *Type, v []byte) ([][]byte, bool) {
	if t.Kind != List || len(v) < 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(v)
	v = v[4:]
	if n > uint32(len(v)/4) {
		return nil, false
	}
	out := make([][]byte, 0, int(n))
	for i := 0; i < int(n); i++ {
		e, rest, err := readValue(v)
		if err != nil || e != nil && Validate(t.Params[0], e) != nil {
			return nil, false
		}
		out = append(out, e)
		v = rest
	}
	return out, len(v) == 0
}

func decodeCollection(v []byte, per int) ([][]byte, error) {
	if len(v) < 4 {
		return nil, cqlerr.Invalidf("Not enough bytes to read a collection size")
	}
	n := binary.BigEndian.Uint32(v)
	v = v[4:]
	if n > uint32(len(v)/4/per) {
		return nil, cqlerr.Invalidf("Invalid collection size %d", int32(n))
	}
	out := make([][]byte, 0, int(n)*per)
	for i := 0; i < int(n)*per; i++ {
		e, rest, err := readValue(v)
		if err != nil {
			return nil, err
		}
		if e == nil {
			return nil, cqlerr.Invalidf("null is not supported inside collections")
		}
		out = append(out, e)
		v = rest
	}
	if len(v) != 0 {
		return nil, cqlerr.Invalidf("Unexpected extraneous bytes after collection value")
	}
	return out, nil
}

// readValue reads [int32 len][bytes]; a negative length is null.
func readValue(v []byte) (e, rest []byte, err error) {
	if len(v) < 4 {
		return nil, nil, cqlerr.Invalidf("Not enough bytes to read the size of a value")
	}
	n := int32(binary.BigEndian.Uint32(v))
	v = v[4:]
	if n < 0 {
		return nil, v, nil
	}
	if int64(n) > int64(len(v)) {
		return nil, nil, cqlerr.Invalidf("Not enough bytes to read a value")
	}
	return v[:n:n], v[n:], nil
}

// DecodeTuple splits a serialized tuple or UDT value into its components
// (nil = null). Fewer components than declared is allowed (missing trailing
// components are null, as in Cassandra).
func DecodeTuple(v []byte) ([][]byte, error) {
	var out [][]byte
	for len(v) > 0 {
		e, rest, err := readValue(v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		v = rest
	}
	return out, nil
}

// sortStable stably sorts n items given less and swap.
func sortStable(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Stable(sorter{n, less, swap})
}

type sorter struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (s sorter) Len() int           { return s.n }
func (s sorter) Less(i, j int) bool { return s.less(i, j) }
func (s sorter) Swap(i, j int)      { s.swap(i, j) }
