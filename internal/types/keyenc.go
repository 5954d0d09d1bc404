package types

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
)

// Order-preserving, prefix-free key encoding. The byte layouts are specified
// in keyencoding.md next to this file; keep the two in sync.

// Component headers (keyencoding.md, "Components").
const (
	keyEnd   = 0x00 // end of a sequence (list, set, map, tuple, UDT)
	keyNull  = 0x01 // null component of a tuple or UDT
	keyEmpty = 0x02 // the empty value
	keyValue = 0x03 // a non-empty value follows
)

// AppendKey appends the order-preserving encoding of the serialized value v
// of type t to dst. With desc the encoding is bitwise inverted, which
// reverses the order. v must be valid for t (see Validate) and t must pass
// CheckKeyType; nil is encoded like the empty value. Encodings are
// prefix-free, so components can be concatenated and still compare
// component by component.
//
// Values that compare equal encode identically, so for types whose
// comparator identifies distinct byte strings (decimal 1.0 = 1.00, varint
// with redundant sign bytes, NaN payloads, boolean bytes other than 0/1)
// DecodeKey returns the canonical form.
func AppendKey(dst []byte, t *Type, v []byte, desc bool) []byte {
	start := len(dst)
	dst = appendKey(dst, t, v)
	if desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

func appendKey(dst []byte, t *Type, v []byte) []byte {
	if len(v) == 0 {
		return append(dst, keyEmpty)
	}
	dst = append(dst, keyValue)
	switch t.Kind {
	case Int, Bigint, Counter, Timestamp, Time, Smallint, Tinyint:
		dst = append(dst, v...)
		dst[len(dst)-len(v)] ^= 0x80
	case Date:
		dst = append(dst, v...)
	case Boolean:
		if v[0] != 0 {
			return append(dst, 1)
		}
		return append(dst, 0)
	case Float:
		f := math.Float32frombits(binary.BigEndian.Uint32(v))
		bits := math.Float32bits(f)
		if f != f {
			bits = 0x7FC00000
		}
		if bits&0x80000000 != 0 {
			bits = ^bits
		} else {
			bits ^= 0x80000000
		}
		dst = binary.BigEndian.AppendUint32(dst, bits)
	case Double:
		f := math.Float64frombits(binary.BigEndian.Uint64(v))
		bits := math.Float64bits(f)
		if f != f {
			bits = 0x7FF8000000000000
		}
		if bits&(1<<63) != 0 {
			bits = ^bits
		} else {
			bits ^= 1 << 63
		}
		dst = binary.BigEndian.AppendUint64(dst, bits)
	case UUID:
		msb := binary.BigEndian.Uint64(v)
		ver := uuidVersion(v)
		if ver == 1 {
			msb = reorderTimestamp(msb)
		}
		dst = append(dst, byte(ver))
		dst = binary.BigEndian.AppendUint64(dst, msb)
		dst = append(dst, v[8:16]...)
	case Timeuuid:
		dst = binary.BigEndian.AppendUint64(dst, reorderTimestamp(binary.BigEndian.Uint64(v)))
		for _, c := range v[8:16] {
			dst = append(dst, c^0x80)
		}
	case Varint:
		dst = appendVarintKey(dst, DecodeVarintBytes(v))
	case Decimal:
		u, s, _ := DecodeDecimal(v)
		dst = appendDecimalKey(dst, u, s)
	case List, Set:
		elems, _ := decodeCollection(v, 1)
		for _, e := range elems {
			dst = appendKey(dst, t.Params[0], e)
		}
		dst = append(dst, keyEnd)
	case Map:
		elems, _ := decodeCollection(v, 2)
		for i, e := range elems {
			dst = appendKey(dst, t.Params[i%2], e)
		}
		dst = append(dst, keyEnd)
	case Tuple, UDT:
		comps, _ := DecodeTuple(v)
		for len(comps) > 0 && comps[len(comps)-1] == nil {
			comps = comps[:len(comps)-1]
		}
		for i, c := range comps {
			if c == nil {
				dst = append(dst, keyNull)
				continue
			}
			dst = appendKey(dst, t.Params[i], c)
		}
		dst = append(dst, keyEnd)
	case Vector:
		elems, _ := splitVector(t, v)
		for _, e := range elems {
			dst = appendKey(dst, t.Params[0], e)
		}
	default: // ascii, text, blob, inet, custom, duration
		dst = appendEscaped(dst, v)
	}
	return dst
}

// appendEscaped writes v with 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x00.
func appendEscaped(dst, v []byte) []byte {
	for {
		i := indexZero(v)
		if i < 0 {
			dst = append(dst, v...)
			break
		}
		dst = append(dst, v[:i+1]...)
		dst = append(dst, 0xFF)
		v = v[i+1:]
	}
	return append(dst, 0x00, 0x00)
}

func indexZero(v []byte) int {
	for i, c := range v {
		if c == 0 {
			return i
		}
	}
	return -1
}

// appendVarintKey: 0x80 for zero; positive: length header then magnitude;
// negative: the positive encoding of |x|, inverted.
func appendVarintKey(dst []byte, x *big.Int) []byte {
	if x.Sign() == 0 {
		return append(dst, 0x80)
	}
	start := len(dst)
	mag := new(big.Int).Abs(x).Bytes()
	if len(mag) <= 0x7E {
		dst = append(dst, byte(0x80+len(mag)))
	} else {
		dst = append(dst, 0xFF)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(mag)))
	}
	dst = append(dst, mag...)
	if x.Sign() < 0 {
		invert(dst[start:])
	}
	return dst
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// appendDecimalKey: 0x80 for zero; otherwise 0xC0 (positive) or 0x40
// (negative), then the adjusted exponent as a sign-flipped int64 and the
// significant digits in base-100 pairs (byte = pair+1) terminated by 0x00;
// everything after the sign byte is inverted for negative numbers.
func appendDecimalKey(dst []byte, u *big.Int, scale int32) []byte {
	if u.Sign() == 0 {
		return append(dst, 0x80)
	}
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	trimmed := strings.TrimRight(digits, "0")
	exp := int64(len(digits)) - int64(scale)
	if neg {
		dst = append(dst, 0x40)
	} else {
		dst = append(dst, 0xC0)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, uint64(exp)^(1<<63))
	for i := 0; i < len(trimmed); i += 2 {
		p := int(trimmed[i]-'0') * 10
		if i+1 < len(trimmed) {
			p += int(trimmed[i+1] - '0')
		}
		dst = append(dst, byte(p+1))
	}
	dst = append(dst, 0x00)
	if neg {
		invert(dst[start:])
	}
	return dst
}

// DecodeKey decodes one component written by AppendKey(…, t, …, desc) from
// the front of src, returning the serialized value (in canonical form, see
// AppendKey) and the remaining bytes. Decoding a key that was not produced by
// AppendKey returns an error, never panics. The empty value decodes as a
// non-nil zero-length slice.
func DecodeKey(t *Type, src []byte, desc bool) (v []byte, rest []byte, err error) {
	v, rest, _, err = DecodeKeyInto(nil, t, src, desc)
	return v, rest, err
}

// DecodeKeyInto is DecodeKey taking the bytes of the decoded value, where
// they fit, from the spare capacity of buf instead of allocating them; it
// returns buf extended by what it took (v may alias it).
func DecodeKeyInto(buf []byte, t *Type, src []byte, desc bool) (v, rest, bufOut []byte, err error) {
	d := keyDecoder{src: src, buf: buf}
	if desc {
		d.mask = 0xFF
	}
	v, err = d.value(t)
	if err != nil {
		return nil, nil, buf, err
	}
	// Keys come from AppendKey of valid values; anything else is corruption.
	if Validate(t, v) != nil {
		return nil, nil, buf, errKey
	}
	return v, d.src[d.pos:], d.buf, nil
}

type keyDecoder struct {
	src  []byte
	pos  int
	mask byte
	// buf supplies decoded bytes from its spare capacity (DecodeKeyInto).
	buf []byte
}

// alloc returns n bytes for a decoded value: from buf's spare capacity
// when they fit (capped, so that appends never overwrite what follows),
// else newly allocated.
func (d *keyDecoder) alloc(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	if l := len(d.buf); cap(d.buf)-l >= n {
		d.buf = d.buf[:l+n]
		return d.buf[l : l+n : l+n]
	}
	return make([]byte, n)
}

var errKey = cqlerr.Serverf("corrupt key encoding")

func (d *keyDecoder) byte() (byte, error) {
	if d.pos >= len(d.src) {
		return 0, errKey
	}
	c := d.src[d.pos] ^ d.mask
	d.pos++
	return c, nil
}

func (d *keyDecoder) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(d.src)-d.pos {
		return nil, errKey
	}
	b := d.alloc(n)
	for i := range b {
		b[i] = d.src[d.pos+i] ^ d.mask
	}
	d.pos += n
	return b, nil
}

func (d *keyDecoder) peek() (byte, error) {
	if d.pos >= len(d.src) {
		return 0, errKey
	}
	return d.src[d.pos] ^ d.mask, nil
}

// value decodes a header and body.
func (d *keyDecoder) value(t *Type) ([]byte, error) {
	h, err := d.byte()
	if err != nil {
		return nil, err
	}
	switch h {
	case keyEmpty:
		return []byte{}, nil
	case keyValue:
		return d.body(t)
	}
	return nil, errKey
}

func (d *keyDecoder) body(t *Type) ([]byte, error) {
	switch t.Kind {
	case Int, Bigint, Counter, Timestamp, Time, Smallint, Tinyint:
		b, err := d.bytes(fixedLen(t.Kind))
		if err != nil {
			return nil, err
		}
		b[0] ^= 0x80
		return b, nil
	case Date:
		return d.bytes(4)
	case Boolean:
		b, err := d.bytes(1)
		if err != nil || b[0] > 1 {
			return nil, errKey
		}
		return b, nil
	case Float:
		b, err := d.bytes(4)
		if err != nil {
			return nil, err
		}
		bits := binary.BigEndian.Uint32(b)
		if bits&0x80000000 != 0 {
			bits ^= 0x80000000
		} else {
			bits = ^bits
		}
		return binary.BigEndian.AppendUint32(b[:0], bits), nil
	case Double:
		b, err := d.bytes(8)
		if err != nil {
			return nil, err
		}
		bits := binary.BigEndian.Uint64(b)
		if bits&(1<<63) != 0 {
			bits ^= 1 << 63
		} else {
			bits = ^bits
		}
		return binary.BigEndian.AppendUint64(b[:0], bits), nil
	case UUID:
		b, err := d.bytes(17)
		if err != nil {
			return nil, err
		}
		ver, msb := b[0], binary.BigEndian.Uint64(b[1:])
		if ver == 1 {
			msb = unreorderTimestamp(msb)
		}
		out := binary.BigEndian.AppendUint64(make([]byte, 0, 16), msb)
		out = append(out, b[9:]...)
		if int(out[6]>>4) != int(ver) {
			return nil, errKey
		}
		return out, nil
	case Timeuuid:
		b, err := d.bytes(16)
		if err != nil {
			return nil, err
		}
		out := binary.BigEndian.AppendUint64(make([]byte, 0, 16), unreorderTimestamp(binary.BigEndian.Uint64(b)))
		for _, c := range b[8:] {
			out = append(out, c^0x80)
		}
		return out, nil
	case Varint:
		return d.varint()
	case Decimal:
		return d.decimal()
	case List, Set, Map:
		var elems [][]byte
		for i := 0; ; i++ {
			c, err := d.peek()
			if err != nil {
				return nil, err
			}
			if c == keyEnd {
				d.pos++
				break
			}
			et := t.Params[0]
			if t.Kind == Map {
				et = t.Params[i%2]
			}
			e, err := d.value(et)
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		if t.Kind == Map {
			if len(elems)%2 != 0 {
				return nil, errKey
			}
			return encodeCollection(len(elems)/2, elems), nil
		}
		return encodeCollection(len(elems), elems), nil
	case Tuple, UDT:
		var comps [][]byte
		for i := 0; ; i++ {
			c, err := d.peek()
			if err != nil {
				return nil, err
			}
			if c == keyEnd {
				d.pos++
				break
			}
			if i >= len(t.Params) {
				return nil, errKey
			}
			if c == keyNull {
				d.pos++
				comps = append(comps, nil)
				continue
			}
			e, err := d.value(t.Params[i])
			if err != nil {
				return nil, err
			}
			comps = append(comps, e)
		}
		if len(comps) == 0 {
			// A non-empty value whose components are all null: keep it
			// distinct from the empty value.
			comps = [][]byte{nil}
		}
		return EncodeTuple(comps), nil
	case Vector:
		elems := make([][]byte, 0, t.Dimension)
		for i := 0; i < t.Dimension; i++ {
			e, err := d.value(t.Params[0])
			if err != nil {
				return nil, err
			}
			elems = append(elems, e)
		}
		return EncodeVector(t, elems), nil
	}
	return d.escaped()
}

func unreorderTimestamp(r uint64) uint64 {
	// r = hi(16) | mid(16) | low(32); msb = low(32) | mid(16) | hi(16).
	return r<<32 | (r>>16)&0xFFFF0000 | r>>48
}

func (d *keyDecoder) escaped() ([]byte, error) {
	// The length first (up to the terminator), then the bytes, so that
	// they are allocated once.
	n, end := 0, -1
scan:
	for i := d.pos; i < len(d.src); i++ {
		if d.src[i]^d.mask != 0 {
			n++
			continue
		}
		if i+1 >= len(d.src) {
			return nil, errKey
		}
		switch d.src[i+1] ^ d.mask {
		case 0x00:
			end = i + 2
			break scan
		case 0xFF:
			n++
			i++
		default:
			return nil, errKey
		}
	}
	if end < 0 {
		return nil, errKey
	}
	out := d.alloc(n)
	for i, j := d.pos, 0; j < n; i, j = i+1, j+1 {
		c := d.src[i] ^ d.mask
		if c == 0 {
			i++ // an escaped zero: 0x00 0xFF
		}
		out[j] = c
	}
	d.pos = end
	return out, nil
}

func (d *keyDecoder) varint() ([]byte, error) {
	h, err := d.byte()
	if err != nil {
		return nil, err
	}
	if h == 0x80 {
		return []byte{0}, nil
	}
	neg := h < 0x80
	inv := byte(0)
	if neg {
		inv = 0xFF
		h = ^h
	}
	var n int
	if h == 0xFF {
		lb, err := d.bytes(4)
		if err != nil {
			return nil, err
		}
		invert4 := binary.BigEndian.Uint32(lb)
		if neg {
			invert4 = ^invert4
		}
		n = int(invert4)
		if n <= 0x7E {
			return nil, errKey
		}
	} else {
		n = int(h) - 0x80
		if n <= 0 {
			return nil, errKey
		}
	}
	mag, err := d.bytes(n)
	if err != nil {
		return nil, err
	}
	for i := range mag {
		mag[i] ^= inv
	}
	if mag[0] == 0 {
		return nil, errKey
	}
	x := new(big.Int).SetBytes(mag)
	if neg {
		x.Neg(x)
	}
	return EncodeVarint(x), nil
}

// maxIntegralDecimalZeros bounds the trailing zeros DecodeKey writes out
// for an integral decimal key (see keyDecoder.decimal).
const maxIntegralDecimalZeros = 64

func (d *keyDecoder) decimal() ([]byte, error) {
	s, err := d.byte()
	if err != nil {
		return nil, err
	}
	if s == 0x80 {
		return EncodeDecimal(new(big.Int), 0), nil
	}
	if s != 0x40 && s != 0xC0 {
		return nil, errKey
	}
	inv := byte(0)
	if s == 0x40 {
		inv = 0xFF
	}
	eb, err := d.bytes(8)
	if err != nil {
		return nil, err
	}
	invert8 := binary.BigEndian.Uint64(eb)
	if inv != 0 {
		invert8 = ^invert8
	}
	exp := int64(invert8 ^ (1 << 63))
	var digits []byte
	for {
		c, err := d.byte()
		if err != nil {
			return nil, err
		}
		c ^= inv
		if c == 0 {
			break
		}
		if c > 100 {
			return nil, errKey
		}
		p := c - 1
		digits = append(digits, '0'+p/10, '0'+p%10)
	}
	if len(digits) == 0 {
		return nil, errKey
	}
	if digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if digits[0] == '0' || digits[len(digits)-1] == '0' {
		return nil, errKey
	}
	scale := int64(len(digits)) - exp
	if scale != int64(int32(scale)) {
		return nil, errKey
	}
	u, _ := new(big.Int).SetString(string(digits), 10)
	// The encoding keeps the value, not the scale. Give integral values
	// scale 0 (1000, not 1E+3) as a client that wrote 1000 expects, unless
	// the exponent is so large that the digits would be unreasonable.
	if scale < 0 && scale >= -maxIntegralDecimalZeros {
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(-scale), nil))
		scale = 0
	}
	if inv != 0 {
		u.Neg(u)
	}
	return EncodeDecimal(u, int32(scale)), nil
}

// KeyMayCanonicalize reports whether DecodeKey may return other bytes than
// the value given to AppendKey for values of t: the types whose comparator
// identifies different byte strings (keyencoding.md, "Canonical forms"),
// and the frozen collections, tuples, UDTs and vectors holding them. For
// every other type the key encoding is lossless.
func KeyMayCanonicalize(t *Type) bool {
	switch t.Kind {
	case Decimal, Varint, Boolean, Float, Double, Tuple, UDT:
		return true
	}
	for _, p := range t.Params {
		if KeyMayCanonicalize(p) {
			return true
		}
	}
	return false
}

// CheckKeyType reports whether columns of type t may be part of a primary
// key. The returned *ColumnError's message needs the column name (see
// WithColumn).
func CheckKeyType(t *Type) error {
	switch {
	case t.Kind == Counter:
		return &ColumnError{Format: "counter type is not supported for PRIMARY KEY column '%s'"}
	case referencesDuration(t):
		return &ColumnError{Format: "duration type is not supported for PRIMARY KEY column '%s'"}
	case t.IsCollection() && !t.Frozen:
		return &ColumnError{Format: "Invalid non-frozen collection type " + t.String() + " for PRIMARY KEY column '%s'"}
	case t.Kind == UDT && !t.Frozen:
		return &ColumnError{Format: "Invalid non-frozen user-defined type \"" + t.String() + "\" for PRIMARY KEY column '%s'"}
	}
	return nil
}

func referencesDuration(t *Type) bool {
	if t.Kind == Duration {
		return true
	}
	for _, p := range t.Params {
		if referencesDuration(p) {
			return true
		}
	}
	return false
}
