package types

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// ToJSON renders v as Cassandra's AbstractType.toJSONString does (SELECT
// JSON, toJson()): numbers and booleans bare, decimals as BigDecimal
// strings, doubles as Java's Double.toString (NaN and infinities as null,
// which JSON has instead), blobs
// "0x…", timestamps "yyyy-MM-dd HH:mm:ss.SSSZ" in UTC, dates, times, uuids,
// inets and durations as strings, lists/sets/tuples as arrays, maps and UDTs
// as objects. Map keys whose type is not text are rendered as JSON and then
// quoted again, as Cassandra does ({"1": …}, {"\"d2177dd0-…\"": …}).
// null and the empty value of a non-string type render as null.
func ToJSON(t *Type, v []byte) string {
	var b strings.Builder
	toJSON(&b, t, v)
	return b.String()
}

func jsonString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

func toJSON(b *strings.Builder, t *Type, v []byte) {
	if v == nil || (len(v) == 0 && t.Kind != Text && t.Kind != Ascii && t.Kind != Blob) {
		b.WriteString("null")
		return
	}
	if Validate(t, v) != nil {
		// A list with null elements (the per-cell TTLs of a non-frozen
		// list) lists them as null; anything else invalid is null.
		elems, ok := decodeListWithNulls(t, v)
		if !ok {
			b.WriteString("null")
			return
		}
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			toJSON(b, t.Params[0], e)
		}
		b.WriteByte(']')
		return
	}
	switch t.Kind {
	case Text, Ascii:
		jsonString(b, string(v))
	case Blob, Custom:
		b.WriteString(`"0x` + hex.EncodeToString(v) + `"`)
	case Boolean:
		b.WriteString(strconv.FormatBool(v[0] != 0))
	case Int, Bigint, Counter, Smallint, Tinyint, Varint, Decimal:
		b.WriteString(Format(t, v))
	case Float:
		f, _ := DecodeFloat(v)
		jsonDouble(b, float64(f), 32)
	case Double:
		f, _ := DecodeDouble(v)
		jsonDouble(b, f, 64)
	case Timestamp:
		ms, _ := DecodeBigint(v)
		jsonString(b, time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000Z"))
	case Date:
		// Out-of-range dates (cqlsh prints signed days) are written as the
		// raw day number, which fromJson reads back.
		jsonString(b, strings.Trim(FormatCQL(t, v), "'"))
	case Inet:
		jsonString(b, JavaHostAddress(v))
	case Time, UUID, Timeuuid, Duration:
		jsonString(b, Format(t, v))
	case List, Set, Vector:
		var elems [][]byte
		if t.Kind == Vector {
			elems, _ = splitVector(t, v)
		} else {
			elems, _ = DecodeCollection(v)
		}
		b.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				b.WriteString(", ")
			}
			toJSON(b, t.Params[0], e)
		}
		b.WriteByte(']')
	case Map:
		ks, vs, _ := DecodeMap(v)
		b.WriteByte('{')
		for i := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			k := ToJSON(t.Params[0], ks[i])
			if t.Params[0].Kind == Text || t.Params[0].Kind == Ascii {
				b.WriteString(k)
			} else {
				jsonString(b, k)
			}
			b.WriteString(": ")
			toJSON(b, t.Params[1], vs[i])
		}
		b.WriteByte('}')
	case Tuple:
		comps, _ := DecodeTuple(v)
		b.WriteByte('[')
		for i := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			var c []byte
			if i < len(comps) {
				c = comps[i]
			}
			toJSON(b, t.Params[i], c)
		}
		b.WriteByte(']')
	case UDT:
		comps, _ := DecodeTuple(v)
		b.WriteByte('{')
		for i := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			jsonString(b, quoteIdent(t.FieldNames[i]))
			b.WriteString(": ")
			var c []byte
			if i < len(comps) {
				c = comps[i]
			}
			toJSON(b, t.Params[i], c)
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

// jsonDouble writes a float or double as FloatType/DoubleType.toJSONString
// do: NaN and infinities, which JSON lacks, as null.
func jsonDouble(b *strings.Builder, f float64, bits int) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.WriteString("null")
		return
	}
	b.WriteString(JavaDouble(f, bits))
}
