package types

import (
	"math"
	"math/big"
	"testing"
)

func TestCompare(t *testing.T) {
	ts := func(s string) []byte { v, _ := FromString(TimestampType, s); return v }
	u := func(s string) []byte { v, _ := ParseString(UUIDType, s); return v }
	for _, c := range []struct {
		typ  *Type
		a, b []byte
		want int
	}{
		{IntType, EncodeInt(-1), EncodeInt(1), -1},
		{IntType, []byte{}, EncodeInt(math.MinInt32), -1},
		{IntType, []byte{}, []byte{}, 0},
		{BigintType, EncodeBigint(math.MaxInt64), EncodeBigint(math.MinInt64), 1},
		{TimestampType, ts("1969-01-01"), ts("1970-01-01"), -1},
		{DateType, EncodeDate(-1), EncodeDate(0), -1},
		{TextType, EncodeText("a"), EncodeText("ab"), -1},
		{TextType, EncodeText("é"), EncodeText("z"), 1}, // unsigned bytes
		{BlobType, []byte{0x80}, []byte{0x7F}, 1},
		{BooleanType, EncodeBoolean(false), EncodeBoolean(true), -1},
		{BooleanType, []byte{2}, EncodeBoolean(true), 0},
		{DoubleType, EncodeDouble(math.NaN()), EncodeDouble(math.Inf(1)), 1},
		{DoubleType, EncodeDouble(math.Copysign(0, -1)), EncodeDouble(0), -1},
		{DoubleType, EncodeDouble(-1), EncodeDouble(-0.5), -1},
		{FloatType, EncodeFloat(float32(math.NaN())), EncodeFloat(float32(math.NaN())), 0},
		{VarintType, EncodeVarint(big.NewInt(-300)), EncodeVarint(big.NewInt(2)), -1},
		{VarintType, []byte{0, 1}, []byte{1}, 0},
		{DecimalType, EncodeDecimal(big.NewInt(10), 1), EncodeDecimal(big.NewInt(1), 0), 0},
		{DecimalType, EncodeDecimal(big.NewInt(1), -1000000000), EncodeDecimal(big.NewInt(1), 1000000000), 1},
		{DecimalType, EncodeDecimal(big.NewInt(-15), 1), EncodeDecimal(big.NewInt(-1), 0), -1},
		{InetType, []byte{127, 0, 0, 1}, make([]byte, 16), 1},
		// timeuuid: ordered by time, not by bytes. 2nd has an earlier time_low
		// but a later time_hi.
		{TimeuuidType, u("ffffffff-0000-1000-8000-000000000000"), u("00000000-0000-1001-8000-000000000000"), -1},
		// same time: clock/node as signed bytes (0x80 < 0x7f).
		{TimeuuidType, u("00000000-0000-1000-8000-000000000000"), u("00000000-0000-1000-7f00-000000000000"), -1},
		// uuid: version first, then for v1 time, else unsigned bytes.
		{UUIDType, u("ffffffff-ffff-1fff-bfff-ffffffffffff"), u("00000000-0000-4000-8000-000000000000"), -1},
		{UUIDType, u("ffffffff-0000-1000-8000-000000000000"), u("00000000-0000-1001-8000-000000000000"), -1},
		{UUIDType, u("00000000-0000-4000-8000-000000000000"), u("00000000-0000-4000-7000-000000000000"), 1},
		{ListOf(IntType, true), EncodeList([][]byte{EncodeInt(1)}), EncodeList([][]byte{EncodeInt(1), EncodeInt(0)}), -1},
		{ListOf(IntType, true), EncodeList([][]byte{EncodeInt(2)}), EncodeList([][]byte{EncodeInt(1), EncodeInt(0)}), 1},
		{MapOf(TextType, IntType, true), EncodeMap(TextType, [][]byte{EncodeText("a")}, [][]byte{EncodeInt(2)}),
			EncodeMap(TextType, [][]byte{EncodeText("a")}, [][]byte{EncodeInt(1)}), 1},
		{TupleOf(IntType, IntType), EncodeTuple([][]byte{EncodeInt(1), nil}), EncodeTuple([][]byte{EncodeInt(1)}), 0},
		{TupleOf(IntType, IntType), EncodeTuple([][]byte{nil, EncodeInt(5)}), EncodeTuple([][]byte{EncodeInt(0)}), -1},
	} {
		if got := Compare(c.typ, c.a, c.b); got != c.want {
			t.Errorf("Compare(%s, %x, %x) = %d, want %d", c.typ, c.a, c.b, got, c.want)
		}
		if got := Compare(c.typ, c.b, c.a); got != -c.want {
			t.Errorf("Compare(%s, %x, %x) = %d, want %d", c.typ, c.b, c.a, got, -c.want)
		}
	}
}

func TestSetAndMapEncodingSorts(t *testing.T) {
	s := EncodeSet(IntType, [][]byte{EncodeInt(3), EncodeInt(-1), EncodeInt(3), EncodeInt(0)})
	if got := Format(SetOf(IntType, false), s); got != "{-1, 0, 3}" {
		t.Errorf("set = %s", got)
	}
	m := EncodeMap(TextType, [][]byte{EncodeText("b"), EncodeText("a"), EncodeText("b")}, [][]byte{EncodeInt(1), EncodeInt(2), EncodeInt(3)})
	if got := Format(MapOf(TextType, IntType, false), m); got != "{'a': 2, 'b': 3}" {
		t.Errorf("map = %s", got)
	}
	n, err := Normalize(SetOf(IntType, true), EncodeList([][]byte{EncodeInt(2), EncodeInt(1), EncodeInt(2)}))
	if err != nil || Format(SetOf(IntType, true), n) != "{1, 2}" {
		t.Errorf("Normalize = %x, %v", n, err)
	}
}
