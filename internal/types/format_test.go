package types

import (
	"math"
	"math/big"
	"testing"
)

func TestFormat(t *testing.T) {
	ts, _ := FromString(TimestampType, "2024-01-15 10:30:00.5Z")
	tu, _ := FromUUID(TimeuuidType, "D2177DD0-EAA2-11DE-A572-001B779C76E3")
	dur, _ := FromDuration(DurationType, "1y2mo3d4h5m6s7ms")
	udt := &Type{Kind: UDT, Name: "addr", Params: []*Type{TextType, IntType}, FieldNames: []string{"street", "Zip"}, Frozen: true}
	for _, c := range []struct {
		typ       *Type
		v         []byte
		cqlsh, ql string
	}{
		{IntType, EncodeInt(-5), "-5", "-5"},
		{TextType, EncodeText("it's"), "it's", "'it''s'"},
		{TextType, []byte{}, "", "''"},
		{IntType, []byte{}, "", "blobAsInt(0x)"},
		{IntType, nil, "null", "null"},
		// Per-cell TTLs of a non-frozen list: null elements (cqlsh: null).
		{ListOf(IntType, false), EncodeList([][]byte{nil, EncodeInt(7)}), "[null, 7]", "[null, 7]"},
		{BlobType, []byte{0xCA, 0xFE}, "0xcafe", "0xcafe"},
		{BooleanType, EncodeBoolean(true), "True", "true"},
		{TimestampType, ts, "2024-01-15 10:30:00.500000+0000", "'2024-01-15 10:30:00.500Z'"},
		{TimestampType, EncodeTimestampMillis(-1), "1969-12-31 23:59:59.999000+0000", "'1969-12-31 23:59:59.999Z'"},
		{DateType, EncodeDate(19737), "2024-01-15", "'2024-01-15'"},
		{TimeType, EncodeTime(37800123456789), "10:30:00.123456789", "'10:30:00.123456789'"},
		{TimeuuidType, tu, "d2177dd0-eaa2-11de-a572-001b779c76e3", "d2177dd0-eaa2-11de-a572-001b779c76e3"},
		{InetType, []byte{127, 0, 0, 1}, "127.0.0.1", "'127.0.0.1'"},
		{DoubleType, EncodeDouble(1.5), "1.5", "1.5"},
		{DoubleType, EncodeDouble(1e20), "1e+20", "1e+20"},
		{DoubleType, EncodeDouble(0.1), "0.1", "0.1"},
		{DoubleType, EncodeDouble(math.NaN()), "NaN", "NaN"},
		{FloatType, EncodeFloat(3.14159265), "3.1416", "3.1415927"},
		{DecimalType, EncodeDecimal(big.NewInt(-123), 2), "-1.23", "-1.23"},
		{DecimalType, EncodeDecimal(big.NewInt(1), -3), "1E+3", "1E+3"},
		{DecimalType, EncodeDecimal(big.NewInt(1), 8), "1E-8", "1E-8"},
		{VarintType, EncodeVarint(new(big.Int).Lsh(big.NewInt(1), 100)), "1267650600228229401496703205376", "1267650600228229401496703205376"},
		{DurationType, dur, "1y2mo3d4h5m6s7ms", "1y2mo3d4h5m6s7ms"},
		{ListOf(TextType, false), EncodeList([][]byte{EncodeText("a"), EncodeText("b'")}), "['a', 'b''']", "['a', 'b''']"},
		{MapOf(TextType, IntType, true), EncodeMap(TextType, [][]byte{EncodeText("k")}, [][]byte{EncodeInt(1)}), "{'k': 1}", "{'k': 1}"},
		{TupleOf(IntType, TextType), EncodeTuple([][]byte{EncodeInt(1), nil}), "(1, null)", "(1, null)"},
		{udt, EncodeTuple([][]byte{EncodeText("x")}), "{street: 'x', \"Zip\": null}", "{street: 'x', \"Zip\": null}"},
	} {
		if got := Format(c.typ, c.v); got != c.cqlsh {
			t.Errorf("Format(%s, %x) = %q, want %q", c.typ, c.v, got, c.cqlsh)
		}
		if got := FormatCQL(c.typ, c.v); got != c.ql {
			t.Errorf("FormatCQL(%s, %x) = %q, want %q", c.typ, c.v, got, c.ql)
		}
	}
}

func TestParseTypeString(t *testing.T) {
	udt := &Type{Kind: UDT, Keyspace: "ks", Name: "addr", Params: []*Type{TextType}, FieldNames: []string{"s"}}
	resolve := func(name string) (*Type, error) {
		if name == "addr" {
			return udt, nil
		}
		return ParseTypeString("nope<")
	}
	for _, s := range []string{
		"int", "text", "frozen<map<text, int>>", "list<text>", "set<frozen<list<int>>>", "frozen<tuple<int, text>>",
		"vector<float, 3>", "map<timeuuid, frozen<tuple<int, frozen<set<uuid>>>>>", "'org.apache.cassandra.db.marshal.DynamicCompositeType'",
		"addr", "frozen<addr>", "list<frozen<addr>>",
	} {
		typ, err := ParseTypeStringWith(s, resolve)
		if err != nil {
			t.Errorf("ParseTypeString(%q): %v", s, err)
			continue
		}
		if got := typ.String(); got != s {
			t.Errorf("ParseTypeString(%q).String() = %q", s, got)
		}
	}
	// Cassandra writes frozen<tuple<...>>; Type.String omits the redundant frozen.
	if typ, err := ParseTypeString("frozen<tuple<int, text>>"); err != nil || !typ.Equal(TupleOf(IntType, TextType)) {
		t.Errorf("frozen tuple: %v %v", typ, err)
	}
	if typ, err := ParseTypeString(" FROZEN< Map<VARCHAR,Int> > "); err != nil || !typ.Equal(MapOf(TextType, IntType, true)) {
		t.Errorf("case/space: %v %v", typ, err)
	}
	for _, bad := range []string{"", "list<", "map<int>", "frozen<int", "vector<float>", "int int", "foo"} {
		if _, err := ParseTypeString(bad); err == nil {
			t.Errorf("ParseTypeString(%q) succeeded", bad)
		}
	}
}

// TestTypeStrings pins type spellings as system_schema.columns shows them.
func TestTypeStrings(t *testing.T) {
	udt := func(name string) *Type {
		return &Type{Kind: UDT, Frozen: true, Keyspace: "ks", Name: name, FieldNames: []string{"a"}, Params: []*Type{IntType}}
	}
	for _, c := range []struct {
		typ  *Type
		want string
	}{
		{&Type{Kind: Vector, Params: []*Type{FloatType}, Dimension: 3}, "vector<float, 3>"},
		{&Type{Kind: Vector, Params: []*Type{FloatType}, Dimension: 3, Frozen: true}, "vector<float, 3>"},
		{&Type{Kind: Vector, Params: []*Type{ListOf(IntType, true)}, Dimension: 2}, "vector<frozen<list<int>>, 2>"},
		{TupleOf(IntType, TextType), "frozen<tuple<int, text>>"},
		{MapOf(TextType, ListOf(IntType, true), false), "map<text, frozen<list<int>>>"},
		{udt("addr"), "frozen<addr>"},
		{udt("MyType"), `frozen<"MyType">`},
		{ListOf(udt("a b"), false), `list<frozen<"a b">>`},
	} {
		if got := c.typ.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		back, err := ParseTypeStringWith(c.typ.String(), func(name string) (*Type, error) { return udt(name), nil })
		if err != nil || back.String() != c.want || !back.Equal(c.typ) {
			t.Errorf("%q parses back as %v, %v", c.want, back, err)
		}
	}
}
