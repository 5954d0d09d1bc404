package types

import (
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"net"
	"strconv"
	"strings"
	"time"
)

// Format renders v as cqlsh prints it with its default settings:
// timestamps as 2024-01-15 10:30:00.000000+0000, booleans True/False,
// floats with 5 and doubles with 12 significant digits, blobs as 0x…,
// text unquoted at top level but quoted inside collections, tuples and UDTs.
// null renders as "null"; the empty value of a non-string type as "".
// Malformed values render as their hex bytes.
func Format(t *Type, v []byte) string {
	var b strings.Builder
	formatValue(&b, t, v, false, false)
	return b.String()
}

// FormatCQL renders v as a CQL literal that FromString/FromNumber/... (via the
// parser) turn back into the same value: strings quoted with ” escaping,
// floats with the shortest round-tripping representation. Empty values of
// non-string types are written as blobAs<type>(0x).
func FormatCQL(t *Type, v []byte) string {
	var b strings.Builder
	formatValue(&b, t, v, true, true)
	return b.String()
}

func quote(b *strings.Builder, s string) {
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s, "'", "''"))
	b.WriteByte('\'')
}

// formatValue writes v. nested reports that v is inside a collection (where
// cqlsh quotes strings); cql selects FormatCQL's literal syntax.
func formatValue(b *strings.Builder, t *Type, v []byte, nested, cql bool) {
	if v == nil {
		b.WriteString("null")
		return
	}
	if len(v) == 0 {
		switch t.Kind {
		case Text, Ascii:
			if nested || cql {
				b.WriteString("''")
			}
			return
		case Blob:
			b.WriteString("0x")
			return
		}
		if cql {
			b.WriteString("blobAs" + strings.ToUpper(t.String()[:1]) + t.String()[1:] + "(0x)")
		}
		return
	}
	if Validate(t, v) != nil {
		if elems, ok := decodeListWithNulls(t, v); t.Kind == List && ok {
			// cqlsh prints a null element as null: [null, null].
			b.WriteByte('[')
			for i, e := range elems {
				if i > 0 {
					b.WriteString(", ")
				}
				formatValue(b, t.Params[0], e, true, cql)
			}
			b.WriteByte(']')
			return
		}
		b.WriteString("0x")
		b.WriteString(hex.EncodeToString(v))
		return
	}
	quoteIf := func(s string) {
		if nested || cql {
			quote(b, s)
		} else {
			b.WriteString(s)
		}
	}
	switch t.Kind {
	case Text, Ascii:
		quoteIf(string(v))
	case Blob, Custom:
		b.WriteString("0x")
		b.WriteString(hex.EncodeToString(v))
	case Boolean:
		switch {
		case cql:
			b.WriteString(strconv.FormatBool(v[0] != 0))
		case v[0] != 0:
			b.WriteString("True")
		default:
			b.WriteString("False")
		}
	case Int, Bigint, Counter, Smallint, Tinyint:
		b.WriteString(strconv.FormatInt(smallVarint(v), 10))
	case Varint:
		b.WriteString(DecodeVarintBytes(v).String())
	case Decimal:
		u, s, _ := DecodeDecimal(v)
		b.WriteString(decimalString(u, s))
	case Float:
		f, _ := DecodeFloat(v)
		b.WriteString(formatFloat(float64(f), 32, 5, cql))
	case Double:
		f, _ := DecodeDouble(v)
		b.WriteString(formatFloat(f, 64, 12, cql))
	case UUID, Timeuuid:
		b.WriteString(uuidString(v))
	case Inet:
		quoteIf(net.IP(v).String())
	case Timestamp:
		ms := int64(binary.BigEndian.Uint64(v))
		if cql {
			if ms < -62135596800000 || ms > 253402300799999 { // outside years 1..9999
				b.WriteString(strconv.FormatInt(ms, 10))
				return
			}
			quote(b, time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z0700"))
			return
		}
		if ms < -62135596800000 || ms > 253402300799999 {
			b.WriteString(strconv.FormatInt(ms, 10))
			return
		}
		quoteIf(time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000000-0700"))
	case Date:
		days, _ := DecodeDate(v)
		t := time.Unix(days*86400, 0).UTC()
		if t.Year() < 1 || t.Year() > 9999 {
			// A literal takes the raw day number (epoch at 2^31); cqlsh
			// (the Python driver's Date) prints the signed days since epoch.
			if cql {
				b.WriteString(strconv.FormatInt(days+dateEpoch, 10))
			} else {
				b.WriteString(strconv.FormatInt(days, 10))
			}
			return
		}
		quoteIf(t.Format("2006-01-02"))
	case Time:
		n := int64(binary.BigEndian.Uint64(v))
		quoteIf(timeString(n))
	case Duration:
		m, d, n, _ := DecodeDuration(v)
		b.WriteString(durationString(m, d, n))
	case List, Set:
		elems, _ := DecodeCollection(v)
		open, end := "[", "]"
		if t.Kind == Set {
			open, end = "{", "}"
		}
		b.WriteString(open)
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, t.Params[0], e, true, cql)
		}
		b.WriteString(end)
	case Map:
		ks, vs, _ := DecodeMap(v)
		b.WriteByte('{')
		for i := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, t.Params[0], ks[i], true, cql)
			b.WriteString(": ")
			formatValue(b, t.Params[1], vs[i], true, cql)
		}
		b.WriteByte('}')
	case Tuple:
		comps, _ := DecodeTuple(v)
		b.WriteByte('(')
		for i, c := range comps {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, t.Params[i], c, true, cql)
		}
		b.WriteByte(')')
	case UDT:
		comps, _ := DecodeTuple(v)
		b.WriteByte('{')
		for i := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteIdent(t.FieldNames[i]))
			b.WriteString(": ")
			var c []byte
			if i < len(comps) {
				c = comps[i]
			}
			formatValue(b, t.Params[i], c, true, cql)
		}
		b.WriteByte('}')
	case Vector:
		elems, _ := splitVector(t, v)
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, t.Params[0], e, true, cql)
		}
		b.WriteByte(']')
	default:
		b.WriteString("0x")
		b.WriteString(hex.EncodeToString(v))
	}
}

// quoteIdent double-quotes a UDT field name in a formatted value (cqlsh's
// and toJson's form) unless it is lower-case alphanumeric; type strings use
// cql.MaybeQuote, which also quotes reserved words.
func quoteIdent(s string) string {
	ok := s != "" && !(s[0] >= '0' && s[0] <= '9')
	for i := 0; i < len(s) && ok; i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if ok {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func formatFloat(f float64, bits, prec int, cql bool) string {
	if s, ok := NonFinite(f); ok {
		return s
	}
	if cql {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

func uuidString(v []byte) string {
	var buf [36]byte
	hex.Encode(buf[0:8], v[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], v[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], v[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], v[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], v[10:16])
	return string(buf[:])
}

func timeString(n int64) string {
	s := n / 1e9
	return fmt2(s/3600) + ":" + fmt2(s/60%60) + ":" + fmt2(s%60) + "." + pad(strconv.FormatInt(n%1e9, 10), 9)
}

func fmt2(n int64) string { return pad(strconv.FormatInt(n, 10), 2) }

func pad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// decimalString is Java's BigDecimal.toString.
func decimalString(u *big.Int, scale int32) string {
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	adjusted := int64(len(digits)) - 1 - int64(scale)
	if scale >= 0 && adjusted >= -6 {
		if scale == 0 {
			return sign + digits
		}
		if int64(len(digits)) > int64(scale) {
			p := len(digits) - int(scale)
			return sign + digits[:p] + "." + digits[p:]
		}
		return sign + "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
	}
	s := digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	exp := "E"
	if adjusted >= 0 {
		exp += "+"
	}
	return sign + s + exp + strconv.FormatInt(adjusted, 10)
}

// durationString is Cassandra's Duration.toString (e.g. 1y2mo3d4h5m6s7ms).
func durationString(months, days int32, nanos int64) string {
	var b strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		b.WriteByte('-')
	}
	m, d := abs64(int64(months)), abs64(int64(days))
	n := uint64(nanos)
	if nanos < 0 {
		n = uint64(-nanos)
	}
	unit := func(v uint64, u string) {
		if v != 0 {
			b.WriteString(strconv.FormatUint(v, 10))
			b.WriteString(u)
		}
	}
	unit(uint64(m/12), "y")
	unit(uint64(m%12), "mo")
	unit(uint64(d), "d")
	unit(n/3600e9, "h")
	unit(n%3600e9/60e9, "m")
	unit(n%60e9/1e9, "s")
	unit(n%1e9/1e6, "ms")
	unit(n%1e6/1e3, "us")
	unit(n%1e3, "ns")
	if m == 0 && d == 0 && n == 0 {
		return "0s"
	}
	return b.String()
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
