package types

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cqld/cqld/internal/cql"
)

// This file holds the per-type edge-value table (printed to
// testdata/edge_values, reviewed as a diff) and the literal and wire round
// trips over it.

func mustParse(t testing.TB, typ *Type, s string) []byte {
	t.Helper()
	b, err := ParseString(typ, s)
	if err != nil {
		t.Fatalf("ParseString(%s, %q): %v", typ, s, err)
	}
	return b
}

func mustDecimal(t testing.TB, s string) []byte { return mustParse(t, DecimalType, s) }

func vectorOf(e *Type, dim int) *Type { return &Type{Kind: Vector, Params: []*Type{e}, Dimension: dim} }

type edgeCase struct {
	typ    *Type
	values [][]byte
}

// edgeValues lists, per type, the values the issue calls edge cases: range
// ends, NaN, ±Inf, -0.0, empty values, huge varints, decimals with negative
// and large scales, timestamps before 1970 and after 2262, date range ends,
// durations mixing months, days and nanoseconds, IPv6, nested frozen
// collections, tuples and UDTs with null components, vectors.
func edgeValues(t testing.TB) []edgeCase {
	huge := new(big.Int).Lsh(big.NewInt(1), 130)
	f32 := func(fs ...float32) (out [][]byte) {
		for _, f := range fs {
			out = append(out, EncodeFloat(f))
		}
		return out
	}
	f64 := func(fs ...float64) (out [][]byte) {
		for _, f := range fs {
			out = append(out, EncodeDouble(f))
		}
		return out
	}
	text := func(ss ...string) (out [][]byte) {
		for _, s := range ss {
			out = append(out, EncodeText(s))
		}
		return out
	}
	udt := &Type{Kind: UDT, Frozen: true, Keyspace: "ks", Name: "addr", FieldNames: []string{"street", "zip"},
		Params: []*Type{TextType, IntType}}
	return []edgeCase{
		{AsciiType, append(text("", "a", "it's", "\x00\x7f"), nil)},
		{TextType, text("", "héllo wörld", "日本語", "a'b''c", "😀", "line\nbreak")},
		{BlobType, [][]byte{{}, {0}, {0xCA, 0xFE, 0xBA, 0xBE}, bytes.Repeat([]byte{0xFF}, 3)}},
		{BooleanType, [][]byte{EncodeBoolean(false), EncodeBoolean(true), {}}},
		{TinyintType, [][]byte{EncodeTinyint(math.MinInt8), EncodeTinyint(-1), EncodeTinyint(0), EncodeTinyint(math.MaxInt8)}},
		{SmallintType, [][]byte{EncodeSmallint(math.MinInt16), EncodeSmallint(math.MaxInt16)}},
		{IntType, [][]byte{EncodeInt(math.MinInt32), EncodeInt(0), EncodeInt(math.MaxInt32), {}}},
		{BigintType, [][]byte{EncodeBigint(math.MinInt64), EncodeBigint(-1), EncodeBigint(math.MaxInt64), {}}},
		{CounterType, [][]byte{EncodeBigint(math.MinInt64), EncodeBigint(math.MaxInt64)}},
		{VarintType, [][]byte{EncodeVarint(big.NewInt(0)), EncodeVarint(big.NewInt(-129)), EncodeVarint(big.NewInt(128)),
			EncodeVarint(huge), EncodeVarint(new(big.Int).Neg(huge)), EncodeVarint(new(big.Int).Sub(huge, big.NewInt(1))), {}}},
		{DecimalType, [][]byte{mustDecimal(t, "0"), mustDecimal(t, "-1.50"), mustDecimal(t, "1E+50"), mustDecimal(t, "-1.5E-40"),
			mustDecimal(t, "123456789012345678901234567890.0987654321"), mustDecimal(t, "0.000001"), mustDecimal(t, "1E-7"),
			EncodeDecimal(big.NewInt(7), -2147483648), EncodeDecimal(big.NewInt(-7), 2147483647), {}}},
		{FloatType, append(f32(0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
			math.MaxFloat32, math.SmallestNonzeroFloat32, 0.1, 1e7, -1.5e-5), []byte{})},
		{DoubleType, append(f64(0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
			math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, 1e7, 1e-3, -123456789.125), []byte{})},
		{DateType, [][]byte{EncodeDate(math.MinInt32), EncodeDate(-1), EncodeDate(0), EncodeDate(19737), EncodeDate(2932896), EncodeDate(math.MaxInt32)}},
		{TimeType, [][]byte{EncodeTime(0), EncodeTime(1), EncodeTime(37800123456789), EncodeTime(maxTimeNanos)}},
		{TimestampType, [][]byte{EncodeTimestampMillis(-62135596800000), EncodeTimestampMillis(-2208988800001), EncodeTimestampMillis(-1),
			EncodeTimestampMillis(0), EncodeTimestampMillis(1705314600123), EncodeTimestampMillis(9224318016000123),
			EncodeTimestampMillis(253402300799999), {}}},
		{UUIDType, [][]byte{mustParse(t, UUIDType, "00000000-0000-0000-0000-000000000000"),
			mustParse(t, UUIDType, "550e8400-e29b-41d4-a716-446655440000"), mustParse(t, UUIDType, "ffffffff-ffff-ffff-ffff-ffffffffffff"), {}}},
		{TimeuuidType, [][]byte{mustParse(t, TimeuuidType, "00000000-0000-1000-8080-808080808080"),
			mustParse(t, TimeuuidType, "d2177dd0-eaa2-11de-a572-001b779c76e3"), mustParse(t, TimeuuidType, "ffffffff-ffff-1fff-bf7f-7f7f7f7f7f7f")}},
		{InetType, [][]byte{mustParse(t, InetType, "0.0.0.0"), mustParse(t, InetType, "127.0.0.1"), mustParse(t, InetType, "::"),
			mustParse(t, InetType, "::1"), mustParse(t, InetType, "2001:db8::ff00:42:8329"), mustParse(t, InetType, "::ffff:1.2.3.4"),
			mustParse(t, InetType, "fe80::1:2:3:4"), {}}},
		{DurationType, [][]byte{EncodeDuration(0, 0, 0), EncodeDuration(14, 3, 3723000000007), EncodeDuration(-14, -3, -3723000000007),
			EncodeDuration(0, 0, 1), EncodeDuration(1, 0, 0), EncodeDuration(0, 1, 0),
			EncodeDuration(math.MaxInt32, math.MaxInt32, math.MaxInt64), EncodeDuration(-math.MaxInt32, -math.MaxInt32, -math.MaxInt64)}},
		{ListOf(IntType, true), [][]byte{EncodeList(nil), EncodeList([][]byte{EncodeInt(3), EncodeInt(1), EncodeInt(3)})}},
		{SetOf(TextType, true), [][]byte{EncodeSet(TextType, nil), EncodeSet(TextType, text("b", "", "a'"))}},
		{MapOf(TextType, DoubleType, true), [][]byte{EncodeMap(TextType, text("z", "a"), f64(math.NaN(), -0.0))}},
		{ListOf(MapOf(IntType, SetOf(TextType, true), true), true), [][]byte{EncodeList([][]byte{
			EncodeMap(IntType, [][]byte{EncodeInt(2), EncodeInt(1)}, [][]byte{EncodeSet(TextType, text("x", "y")), EncodeSet(TextType, nil)}),
			EncodeMap(IntType, nil, nil)})}},
		{TupleOf(IntType, TextType, DoubleType), [][]byte{EncodeTuple([][]byte{EncodeInt(1), EncodeText("a"), EncodeDouble(2.5)}),
			EncodeTuple([][]byte{nil, EncodeText(""), nil}), EncodeTuple([][]byte{nil, nil, nil})}},
		{TupleOf(TupleOf(IntType, BlobType), ListOf(TimestampType, true)), [][]byte{EncodeTuple([][]byte{
			EncodeTuple([][]byte{EncodeInt(-1), {0xAB}}), EncodeList([][]byte{EncodeTimestampMillis(-1)})})}},
		{udt, [][]byte{EncodeTuple([][]byte{EncodeText("Main St"), EncodeInt(12345)}), EncodeTuple([][]byte{nil, EncodeInt(0)}),
			EncodeTuple([][]byte{EncodeText("x")})}},
		{vectorOf(FloatType, 3), [][]byte{EncodeVector(vectorOf(FloatType, 3), f32(1, -0.5, float32(math.Inf(1))))}},
		{vectorOf(TextType, 2), [][]byte{EncodeVector(vectorOf(TextType, 2), text("", "héllo"))}},
		{vectorOf(ListOf(IntType, true), 2), [][]byte{EncodeVector(vectorOf(ListOf(IntType, true), 2),
			[][]byte{EncodeList([][]byte{EncodeInt(1)}), EncodeList(nil)})}},
	}
}

// TestEdgeValues prints every edge value as cqlsh shows it, as a CQL
// literal and as JSON, and checks that each is valid, normalized, that the
// key encoding (for key types) decodes back, and that the CQL literal of a
// native type parses back to the same bytes.
//
// Regenerate with: go test ./internal/types -run TestEdgeValues -rewrite
func TestEdgeValues(t *testing.T) {
	cases := edgeValues(t)
	datadriven.RunTest(t, "testdata/edge_values", func(t *testing.T, d *datadriven.TestData) string {
		var b strings.Builder
		for _, c := range cases {
			if c.typ.String() != d.Input {
				continue
			}
			for _, v := range c.values {
				checkEdgeValue(t, c.typ, v)
				if v == nil {
					b.WriteString("null\n")
					continue
				}
				fmt.Fprintf(&b, "0x%x\n  cqlsh: %q\n  cql:   %s\n  json:  %s\n", v, Format(c.typ, v), FormatCQL(c.typ, v), ToJSON(c.typ, v))
			}
			return b.String()
		}
		t.Fatalf("%s: no edge values for %s", d.Pos, d.Input)
		return ""
	})
	// Every type of the table has a case in the file.
	data, _ := os.ReadFile("testdata/edge_values")
	for _, c := range cases {
		if !strings.Contains(string(data), "edge\n"+c.typ.String()+"\n") {
			t.Errorf("testdata/edge_values has no case for %s", c.typ)
		}
	}
}

func checkEdgeValue(t *testing.T, typ *Type, v []byte) {
	t.Helper()
	if v == nil {
		return
	}
	if err := Validate(typ, v); err != nil {
		t.Errorf("%s %x: invalid: %v", typ, v, err)
		return
	}
	if n, err := Normalize(typ, v); err != nil || !bytes.Equal(n, v) {
		t.Errorf("%s %x: Normalize gives %x, %v", typ, v, n, err)
	}
	if Compare(typ, v, v) != 0 {
		t.Errorf("%s %x: does not compare equal to itself", typ, v)
	}
	if CheckKeyType(typ) == nil {
		for _, desc := range []bool{false, true} {
			k := AppendKey(nil, typ, v, desc)
			back, rest, err := DecodeKey(typ, k, desc)
			if err != nil || len(rest) != 0 || Compare(typ, back, v) != 0 {
				t.Errorf("%s %x desc=%v: key %x decodes to %x, rest %x, %v", typ, v, desc, k, back, rest, err)
			}
		}
	}
	if typ.Kind < Empty { // native: the CQL literal parses back through the parser
		got, err := literalRoundTrip(typ, FormatCQL(typ, v))
		if err != nil {
			t.Errorf("%s %x: literal %s: %v", typ, v, FormatCQL(typ, v), err)
		} else if !bytes.Equal(got, v) && !(isNaN(typ, got) && isNaN(typ, v)) {
			t.Errorf("%s %x: literal %s reads back as %x", typ, v, FormatCQL(typ, v), got)
		}
	}
}

func isNaN(t *Type, v []byte) bool {
	switch {
	case t.Kind == Float && len(v) == 4:
		f, _ := DecodeFloat(v)
		return f != f
	case t.Kind == Double && len(v) == 8:
		f, _ := DecodeDouble(v)
		return math.IsNaN(f)
	}
	return false
}

// literalRoundTrip parses lit with the CQL parser (as the right-hand side
// of a relation) and converts the literal with the From* function for its
// kind, as the query layer does for a native type. Functions calls
// blobAs<type>(0x...) (FormatCQL's spelling of an empty value) are
// evaluated here.
func literalRoundTrip(typ *Type, lit string) ([]byte, error) {
	st, err := cql.Parse("SELECT * FROM t WHERE a = " + lit)
	if err != nil {
		return nil, err
	}
	term := st.(*cql.Select).Where[0].Value
	if f, ok := term.(*cql.FunctionCall); ok {
		if f.Name.Name != "blobas"+typ.String() || len(f.Args) != 1 {
			return nil, fmt.Errorf("unexpected function %s", f.Name)
		}
		term = f.Args[0]
		typ = BlobType
	}
	l, ok := term.(*cql.Literal)
	if !ok {
		return nil, fmt.Errorf("%T is not a literal", term)
	}
	switch l.Kind {
	case cql.LitString:
		return FromString(typ, l.Text)
	case cql.LitInteger, cql.LitFloat:
		return FromNumber(typ, l.Text)
	case cql.LitBool:
		return FromBool(typ, l.Text == "true")
	case cql.LitUUID:
		return FromUUID(typ, l.Text)
	case cql.LitHex:
		return FromHex(typ, l.Text)
	case cql.LitDuration:
		return FromDuration(typ, l.Text)
	}
	return nil, fmt.Errorf("literal kind %d", l.Kind)
}
