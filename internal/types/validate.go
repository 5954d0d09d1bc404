package types

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/cqlerr"
)

// Validate checks that v is a well-formed serialized value of type t, with
// the messages of Cassandra's TypeSerializer.validate. nil (null) is valid.
// The empty value is valid for every type that Cassandra allows it for
// (all but smallint, tinyint, date, time and duration... and collections,
// whose empty value Cassandra accepts as well).
func Validate(t *Type, v []byte) error {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case Ascii:
		for _, c := range v {
			if c > 0x7F {
				return cqlerr.Invalidf("Invalid byte for ascii: %d", int8(c))
			}
		}
	case Text:
		if !utf8.Valid(v) {
			return cqlerr.Invalidf("String didn't validate.")
		}
	case Blob, Custom:
	case Empty:
		if len(v) != 0 {
			return cqlerr.Invalidf("EmptyType only accept empty values")
		}
	case Int:
		return checkLen(v, 4, true, "Expected 4 or 0 byte int (%d)")
	case Bigint, Counter:
		return checkLen(v, 8, true, "Expected 8 or 0 byte long (%d)")
	case Timestamp:
		return checkLen(v, 8, true, "Expected 8 or 0 byte long for date (%d)")
	case Smallint:
		return checkLen(v, 2, false, "Expected 2 bytes for a smallint (%d)")
	case Tinyint:
		return checkLen(v, 1, false, "Expected 1 byte for a tinyint (%d)")
	case Boolean:
		return checkLen(v, 1, true, "Expected 1 or 0 byte value (%d)")
	case Float:
		return checkLen(v, 4, true, "Expected 4 or 0 byte value for a float (%d)")
	case Double:
		return checkLen(v, 8, true, "Expected 8 or 0 byte value for a double (%d)")
	case Date:
		return checkLen(v, 4, false, "Expected 4 byte long for date (%d)")
	case Time:
		if err := checkLen(v, 8, false, "Expected 8 byte long for time (%d)"); err != nil {
			return err
		}
		if n := int64(binary.BigEndian.Uint64(v)); n < 0 || n > maxTimeNanos {
			return cqlerr.Invalidf("Time value must be between 0 and %d: %d", maxTimeNanos, n)
		}
	case UUID:
		return checkLen(v, 16, true, "UUID should be 16 or 0 bytes (%d)")
	case Timeuuid:
		if err := checkLen(v, 16, true, "UUID should be 16 or 0 bytes (%d)"); err != nil {
			return err
		}
		if len(v) == 16 && v[6]>>4 != 1 {
			return cqlerr.Invalidf("Invalid version for TimeUUID type.")
		}
	case Inet:
		if len(v) != 0 && len(v) != 4 && len(v) != 16 {
			return cqlerr.Invalidf("Expected 4 or 16 byte inetaddress; got %x", v)
		}
	case Varint:
	case Decimal:
		if len(v) != 0 && len(v) < 4 {
			return cqlerr.Invalidf("Expected 0 or at least 4 bytes (%d)", len(v))
		}
	case Duration:
		if len(v) < 3 {
			return cqlerr.Invalidf("Expected at least 3 bytes for a duration (%d)", len(v))
		}
		_, _, _, err := DecodeDuration(v)
		return err
	case List, Set, Map:
		if len(v) == 0 {
			return nil
		}
		per := 1
		if t.Kind == Map {
			per = 2
		}
		elems, err := decodeCollection(v, per)
		if err != nil {
			return err
		}
		for i, e := range elems {
			et := t.Params[0]
			if per == 2 && i%2 == 1 {
				et = t.Params[1]
			}
			if err := Validate(et, e); err != nil {
				return err
			}
		}
	case Tuple, UDT:
		comps, err := DecodeTuple(v)
		if err != nil {
			return err
		}
		if len(comps) > len(t.Params) {
			if t.Kind == UDT {
				return cqlerr.Invalidf("Invalid remaining data after end of UDT value")
			}
			return cqlerr.Invalidf("Invalid remaining data after end of tuple value")
		}
		for i, c := range comps {
			if err := Validate(t.Params[i], c); err != nil {
				return err
			}
		}
	case Vector:
		elems, err := splitVector(t, v)
		if err != nil {
			return err
		}
		for _, e := range elems {
			if err := Validate(t.Params[0], e); err != nil {
				return err
			}
		}
	default:
		return cqlerr.Invalidf("Cannot validate a value of type %s", t)
	}
	return nil
}

const maxTimeNanos = 24*3600*1_000_000_000 - 1

func checkLen(v []byte, n int, emptyOK bool, format string) error {
	if len(v) == n || (emptyOK && len(v) == 0) {
		return nil
	}
	return cqlerr.Invalidf(format, len(v))
}

// vectorElemLen is the fixed serialized length of vector elements of type t
// (Cassandra's valueLengthIfFixed), or -1 when elements are prefixed by an
// unsigned vint length.
func vectorElemLen(t *Type) int {
	switch t.Kind {
	case Int, Float, Date, Bigint, Counter, Timestamp, Time, Double, Boolean, UUID, Timeuuid:
		return fixedLen(t.Kind)
	case Vector:
		if n := vectorElemLen(t.Params[0]); n >= 0 {
			return n * t.Dimension
		}
	}
	return -1
}

// splitVector splits a serialized vector into its Dimension elements.
func splitVector(t *Type, v []byte) ([][]byte, error) {
	if len(v) == 0 {
		return nil, nil
	}
	n := vectorElemLen(t.Params[0])
	if n >= 0 {
		if len(v) != n*t.Dimension {
			return nil, cqlerr.Invalidf("Expected %d bytes for a vector of %d elements but got %d", n*t.Dimension, t.Dimension, len(v))
		}
		out := make([][]byte, t.Dimension)
		for i := range out {
			out[i] = v[i*n : (i+1)*n : (i+1)*n]
		}
		return out, nil
	}
	out := make([][]byte, 0, t.Dimension)
	for i := 0; i < t.Dimension; i++ {
		l, k := readUnsignedVint(v)
		if k == 0 || l > uint64(len(v)-k) {
			return nil, cqlerr.Invalidf("Not enough bytes to read a vector element")
		}
		out = append(out, v[k:k+int(l):k+int(l)])
		v = v[k+int(l):]
	}
	if len(v) != 0 {
		return nil, cqlerr.Invalidf("Unexpected %d extraneous bytes after vector value", len(v))
	}
	return out, nil
}

// EncodeVector serializes Dimension already-serialized elements.
func EncodeVector(t *Type, elems [][]byte) []byte {
	fixed := vectorElemLen(t.Params[0]) >= 0
	var b []byte
	for _, e := range elems {
		if !fixed {
			b = appendUnsignedVint(b, uint64(len(e)))
		}
		b = append(b, e...)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}

// Normalize validates v and returns it in canonical form: set elements and
// map keys sorted by their comparator and deduplicated, recursively inside
// frozen values (as Cassandra does when it deserializes a bound collection).
// It returns v itself when nothing changes.
func Normalize(t *Type, v []byte) ([]byte, error) {
	if err := Validate(t, v); err != nil {
		return nil, err
	}
	return normalize(t, v), nil
}

func normalize(t *Type, v []byte) []byte {
	if len(v) == 0 {
		return v
	}
	switch t.Kind {
	case List, Set:
		elems, _ := decodeCollection(v, 1)
		for i := range elems {
			elems[i] = normalize(t.Params[0], elems[i])
		}
		if t.Kind == Set {
			return EncodeSet(t.Params[0], elems)
		}
		return EncodeList(elems)
	case Map:
		ks, vs, _ := DecodeMap(v)
		for i := range ks {
			ks[i] = normalize(t.Params[0], ks[i])
			vs[i] = normalize(t.Params[1], vs[i])
		}
		return EncodeMap(t.Params[0], ks, vs)
	case Tuple, UDT:
		comps, _ := DecodeTuple(v)
		for i := range comps {
			if comps[i] != nil {
				comps[i] = normalize(t.Params[i], comps[i])
			}
		}
		return EncodeTuple(comps)
	}
	return v
}

var _ = fmt.Sprintf
