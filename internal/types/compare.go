package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
)

// Compare orders two serialized values of type t exactly as Cassandra's
// AbstractType comparator for t does. The empty value sorts before every
// non-empty value and nil (null) is treated like empty. Malformed values do
// not panic: they fall back to an unsigned byte comparison, so Compare is a
// total order on arbitrary bytes only for well-formed inputs.
func Compare(t *Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return boolCmp(len(a) != 0, len(b) != 0)
	}
	switch t.Kind {
	case Int, Bigint, Counter, Timestamp, Time, Smallint, Tinyint:
		if len(a) == len(b) && fixedLen(t.Kind) == len(a) {
			return signedCmp(a, b)
		}
	case Date:
		// Unsigned, as SimpleDateType: days with 2^31 = epoch.
	case Boolean:
		return boolCmp(a[0] != 0, b[0] != 0)
	case Float:
		if len(a) == 4 && len(b) == 4 {
			return floatCmp(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case Double:
		if len(a) == 8 && len(b) == 8 {
			return floatCmp(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case Varint:
		return varintCmp(a, b)
	case Decimal:
		if len(a) >= 4 && len(b) >= 4 {
			return decimalCmp(a, b)
		}
	case UUID:
		if len(a) == 16 && len(b) == 16 {
			return uuidCmp(a, b)
		}
	case Timeuuid:
		if len(a) == 16 && len(b) == 16 {
			return timeuuidCmp(a, b)
		}
	case List, Set:
		if c, ok := compareSeq(t.Params[0], t.Params[0], a, b, 1); ok {
			return c
		}
	case Map:
		if c, ok := compareSeq(t.Params[0], t.Params[1], a, b, 2); ok {
			return c
		}
	case Tuple, UDT:
		if c, ok := compareTuple(t, a, b); ok {
			return c
		}
	case Vector:
		ea, erra := splitVector(t, a)
		eb, errb := splitVector(t, b)
		if erra == nil && errb == nil {
			for i := range ea {
				if c := Compare(t.Params[0], ea[i], eb[i]); c != 0 {
					return c
				}
			}
			return 0
		}
	}
	// ascii, text, blob, inet, duration, date, custom and malformed values.
	return bytes.Compare(a, b)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// fixedLen returns the serialized length of fixed-size native kinds, or -1.
func fixedLen(k Kind) int {
	switch k {
	case Int, Float, Date:
		return 4
	case Bigint, Counter, Timestamp, Time, Double:
		return 8
	case Smallint:
		return 2
	case Tinyint, Boolean:
		return 1
	case UUID, Timeuuid:
		return 16
	case Empty:
		return 0
	}
	return -1
}

// signedCmp compares equal-length big-endian two's complement integers.
func signedCmp(a, b []byte) int {
	if a[0]^b[0] >= 0x80 { // signs differ
		if a[0] >= 0x80 {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// floatCmp follows Java's Double.compare: -0.0 < 0.0 and NaN is greater
// than everything, including +Inf, and equal to itself.
func floatCmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		return boolCmp(an, bn)
	}
	return boolCmp(!math.Signbit(a), !math.Signbit(b))
}

func varintCmp(a, b []byte) int {
	if len(a) <= 8 && len(b) <= 8 {
		x, y := smallVarint(a), smallVarint(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return DecodeVarintBytes(a).Cmp(DecodeVarintBytes(b))
}

func smallVarint(b []byte) int64 {
	var x int64
	if b[0]&0x80 != 0 {
		x = -1
	}
	for _, c := range b {
		x = x<<8 | int64(c)
	}
	return x
}

// decimalCmp compares numerically (BigDecimal.compareTo: 1.0 == 1.00)
// without materializing 10^scale for far-apart scales.
func decimalCmp(a, b []byte) int {
	ua, sa, _ := DecodeDecimal(a)
	ub, sb, _ := DecodeDecimal(b)
	if c := ua.Sign() - ub.Sign(); c != 0 || ua.Sign() == 0 {
		return sign(c)
	}
	// Adjusted exponents: value = 0.ddd × 10^(digits-scale).
	ea := int64(numDigits(ua)) - int64(sa)
	eb := int64(numDigits(ub)) - int64(sb)
	if ea != eb {
		if (ea > eb) == (ua.Sign() > 0) {
			return 1
		}
		return -1
	}
	// Same adjusted exponent: the scale difference is bounded by the digit counts.
	if sa < sb {
		ua = new(big.Int).Mul(ua, pow10(int64(sb)-int64(sa)))
	} else if sb < sa {
		ub = new(big.Int).Mul(ub, pow10(int64(sa)-int64(sb)))
	}
	return ua.Cmp(ub)
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func numDigits(x *big.Int) int {
	s := x.String()
	if s[0] == '-' {
		return len(s) - 1
	}
	return len(s)
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

func uuidVersion(u []byte) int { return int(u[6] >> 4) }

// reorderTimestamp returns the 60-bit timestamp of a version 1 UUID, with the
// version nibble on top, as TimeUUIDType.reorderTimestampBytes.
func reorderTimestamp(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32
}

// uuidCmp follows UUIDType: version, then (version 1) timestamp, then
// the remaining bytes unsigned.
func uuidCmp(a, b []byte) int {
	va, vb := uuidVersion(a), uuidVersion(b)
	if va != vb {
		return sign(va - vb)
	}
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	if va == 1 {
		ma, mb = reorderTimestamp(ma), reorderTimestamp(mb)
	}
	if c := uint64Cmp(ma, mb); c != 0 {
		return c
	}
	return bytes.Compare(a[8:], b[8:])
}

// timeuuidCmp follows TimeUUIDType: timestamp, then the clock sequence and
// node compared as signed bytes.
func timeuuidCmp(a, b []byte) int {
	ma, mb := reorderTimestamp(binary.BigEndian.Uint64(a)), reorderTimestamp(binary.BigEndian.Uint64(b))
	if c := uint64Cmp(ma, mb); c != 0 {
		return c
	}
	const flip = 0x8080808080808080
	return uint64Cmp(binary.BigEndian.Uint64(a[8:])^flip, binary.BigEndian.Uint64(b[8:])^flip)
}

func uint64Cmp(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareSeq compares frozen lists/sets (per=1) and maps (per=2) like
// CollectionType: element by element, then by size.
func compareSeq(kt, vt *Type, a, b []byte, per int) (int, bool) {
	ea, err := decodeCollection(a, per)
	if err != nil {
		return 0, false
	}
	eb, err := decodeCollection(b, per)
	if err != nil {
		return 0, false
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		t := kt
		if i%2 == 1 && per == 2 {
			t = vt
		}
		if c := Compare(t, ea[i], eb[i]); c != 0 {
			return c, true
		}
	}
	return sign(len(ea) - len(eb)), true
}

// compareTuple follows TupleType.compareCustom: null sorts first and
// trailing nulls compare equal to absent components. Deviation: Cassandra
// also ignores trailing empty components, which makes its comparator
// non-transitive ((x, ”) == (x) == (x, null) but (x, ”) > (x, null)); cqld
// treats an empty component as a value so that Compare agrees with the key
// encoding (keyencoding.md).
func compareTuple(t *Type, a, b []byte) (int, bool) {
	ca, err := DecodeTuple(a)
	if err != nil {
		return 0, false
	}
	cb, err := DecodeTuple(b)
	if err != nil {
		return 0, false
	}
	i := 0
	for ; i < len(ca) && i < len(cb); i++ {
		if ca[i] == nil || cb[i] == nil {
			if c := boolCmp(ca[i] != nil, cb[i] != nil); c != 0 {
				return c, true
			}
			continue
		}
		et := BlobType
		if i < len(t.Params) {
			et = t.Params[i]
		}
		if c := Compare(et, ca[i], cb[i]); c != 0 {
			return c, true
		}
	}
	for ; i < len(ca); i++ {
		if ca[i] != nil {
			return 1, true
		}
	}
	for ; i < len(cb); i++ {
		if cb[i] != nil {
			return -1, true
		}
	}
	return 0, true
}
