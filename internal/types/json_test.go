package types

import (
	"math"
	"math/big"
	"testing"
)

func TestToJSON(t *testing.T) {
	ts, _ := FromString(TimestampType, "2024-01-15 10:30:00Z")
	u, _ := ParseString(UUIDType, "550e8400-e29b-41d4-a716-446655440000")
	udt := &Type{Kind: UDT, Name: "a", Params: []*Type{IntType, TextType}, FieldNames: []string{"x", "Y"}, Frozen: true}
	for _, c := range []struct {
		typ  *Type
		v    []byte
		want string
	}{
		{IntType, EncodeInt(-3), "-3"},
		{BigintType, EncodeBigint(1 << 40), "1099511627776"},
		{TextType, EncodeText("a\"b\n"), `"a\"b\n"`},
		{BlobType, []byte{1, 2}, `"0x0102"`},
		{BooleanType, EncodeBoolean(false), "false"},
		{TimestampType, ts, `"2024-01-15 10:30:00.000Z"`},
		{UUIDType, u, `"550e8400-e29b-41d4-a716-446655440000"`},
		{DoubleType, EncodeDouble(1), "1.0"},
		{DoubleType, EncodeDouble(1e20), "1.0E20"},
		{DoubleType, EncodeDouble(math.Inf(-1)), `null`},
		{DecimalType, EncodeDecimal(big.NewInt(15), 1), "1.5"},
		{IntType, nil, "null"},
		{ListOf(IntType, false), EncodeList([][]byte{EncodeInt(1), EncodeInt(2)}), "[1, 2]"},
		{MapOf(TextType, IntType, false), EncodeMap(TextType, [][]byte{EncodeText("k")}, [][]byte{EncodeInt(1)}), `{"k": 1}`},
		{MapOf(IntType, TextType, false), EncodeMap(IntType, [][]byte{EncodeInt(1)}, [][]byte{EncodeText("v")}), `{"1": "v"}`},
		{TupleOf(IntType, TextType), EncodeTuple([][]byte{EncodeInt(1)}), "[1, null]"},
		{udt, EncodeTuple([][]byte{EncodeInt(1), EncodeText("z")}), `{"x": 1, "\"Y\"": "z"}`},
	} {
		if got := ToJSON(c.typ, c.v); got != c.want {
			t.Errorf("ToJSON(%s, %x) = %s, want %s", c.typ, c.v, got, c.want)
		}
	}
}
