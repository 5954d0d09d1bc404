package query

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/types"
)

// TestCastMatrix checks castFunc against Cassandra 5.0's CastFcts: which
// conversions exist, and what they produce.
func TestCastMatrix(t *testing.T) {
	natives := []*types.Type{types.AsciiType, types.BigintType, types.BlobType, types.BooleanType,
		types.CounterType, types.DateType, types.DecimalType, types.DoubleType, types.DurationType,
		types.FloatType, types.InetType, types.IntType, types.SmallintType, types.TextType, types.TimeType,
		types.TimestampType, types.TimeuuidType, types.TinyintType, types.UUIDType, types.VarintType}
	numbers := map[types.Kind]bool{types.Tinyint: true, types.Smallint: true, types.Int: true, types.Bigint: true,
		types.Counter: true, types.Float: true, types.Double: true, types.Decimal: true, types.Varint: true}
	toText := map[types.Kind]bool{types.Inet: true, types.Boolean: true, types.Timeuuid: true,
		types.Timestamp: true, types.Date: true, types.Time: true, types.UUID: true}
	for k := range numbers {
		toText[k] = true
	}
	want := func(from, to types.Kind) bool {
		switch {
		case numbers[from] && numbers[to]:
			return to != types.Counter
		case to == types.Text || to == types.Ascii:
			return toText[from] || (from == types.Ascii && to == types.Text)
		case to == types.Date:
			return from == types.Timeuuid || from == types.Timestamp
		case to == types.Timestamp:
			return from == types.Timeuuid || from == types.Date
		}
		return false
	}
	for _, from := range natives {
		for _, to := range natives {
			if from.Kind == to.Kind {
				continue // a cast to the same type is a no-op, decided by the caller
			}
			if got := castFunc(from, to) != nil; got != want(from.Kind, to.Kind) {
				t.Errorf("CAST(%s AS %s): exists = %v, want %v", from, to, got, !got)
			}
		}
	}

	dec := func(s string) []byte {
		b, err := types.ParseString(types.DecimalType, s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		from, to *types.Type
		in       []byte
		want     string // types.Format of the result
	}{
		{types.IntType, types.DecimalType, types.EncodeInt(1), "1"},
		{types.BigintType, types.DecimalType, types.EncodeBigint(10000000000), "10000000000"},
		{types.DoubleType, types.IntType, types.EncodeDouble(math.NaN()), "0"},
		{types.DoubleType, types.IntType, types.EncodeDouble(1e20), "2147483647"},
		{types.DoubleType, types.BigintType, types.EncodeDouble(-1e300), "-9223372036854775808"},
		{types.DoubleType, types.TinyintType, types.EncodeDouble(4294967301), "-1"}, // (byte)(int)d
		{types.BigintType, types.TinyintType, types.EncodeBigint(4294967301), "5"},
		{types.IntType, types.SmallintType, types.EncodeInt(70000), "4464"},
		{types.DecimalType, types.IntType, dec("-2.9"), "-2"},
		{types.DecimalType, types.VarintType, dec("1E+20"), "7766279631452241920"}, // low 64 bits
		{types.DoubleType, types.VarintType, types.EncodeDouble(-3.7), "-3"},
		{types.FloatType, types.DoubleType, types.EncodeFloat(0.1), "0.10000000149"},
		{types.FloatType, types.DecimalType, types.EncodeFloat(0.1), "0.1"},
		{types.VarintType, types.DoubleType, types.EncodeVarint(new(big.Int).Lsh(big.NewInt(1), 70)), "1.18059162072e+21"},
		{types.CounterType, types.IntType, types.EncodeBigint(7), "7"},
		{types.IntType, types.TextType, types.EncodeInt(-5), "-5"},
		{types.DoubleType, types.TextType, types.EncodeDouble(1e7), "1.0E7"},
		{types.FloatType, types.AsciiType, types.EncodeFloat(1.5), "1.5"},
		{types.DecimalType, types.TextType, dec("1E+3"), "1000"},
		{types.DecimalType, types.TextType, dec("-0.00012"), "-0.00012"},
		{types.InetType, types.TextType, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "0:0:0:0:0:0:0:1"},
		{types.InetType, types.TextType, []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0x42, 0x83, 0x29}, "2001:db8:0:0:0:ff00:42:8329"},
		{types.InetType, types.TextType, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4}, "1.2.3.4"},
		{types.BooleanType, types.TextType, types.EncodeBoolean(true), "true"},
		{types.TimestampType, types.TextType, types.EncodeBigint(-1), "1969-12-31T23:59:59.999Z"},
		{types.DateType, types.TextType, types.EncodeDate(0), "1970-01-01"},
		{types.TimeType, types.TextType, types.EncodeTime(1), "00:00:00.000000001"},
		{types.IntType, types.TextType, []byte{}, "null"},
		{types.TimestampType, types.DateType, types.EncodeBigint(-1), "1969-12-31"},
		{types.DateType, types.TimestampType, types.EncodeDate(1), "1970-01-02 00:00:00.000000+0000"},
	} {
		fn := castFunc(c.from, c.to)
		if fn == nil {
			t.Errorf("no CAST(%s AS %s)", c.from, c.to)
			continue
		}
		out, err := fn(c.in)
		if err != nil {
			t.Errorf("CAST(%s %x AS %s): %v", c.from, c.in, c.to, err)
			continue
		}
		if got := types.Format(c.to, out); got != c.want {
			t.Errorf("CAST(%s %x AS %s) = %q, want %q", c.from, c.in, c.to, got, c.want)
		}
	}
}

// TestAddDurationMonthEnd checks java.time's plusMonths clamping, which
// Cassandra's timestamp/date + duration uses.
func TestAddDurationMonthEnd(t *testing.T) {
	day := func(s string) int64 {
		tm, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixMilli()
	}
	for _, c := range []struct {
		from   string
		months int32
		days   int32
		sub    bool
		want   string
	}{
		{"2024-01-31", 1, 0, false, "2024-02-29"},
		{"2023-01-31", 1, 0, false, "2023-02-28"},
		{"2024-03-31", 1, 0, true, "2024-02-29"},
		{"2023-12-31", 2, 1, false, "2024-03-01"},
		{"2024-02-29", 12, 0, false, "2025-02-28"},
		{"1900-03-31", 11, 0, true, "1899-04-30"},
	} {
		out, err := addDuration(types.TimestampType, types.EncodeBigint(day(c.from)), types.EncodeDuration(c.months, c.days, 0), c.sub)
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := types.DecodeBigint(out)
		if got := time.UnixMilli(ms).UTC().Format("2006-01-02"); got != c.want {
			t.Errorf("%s %+d months %+d days (sub=%v) = %s, want %s", c.from, c.months, c.days, c.sub, got, c.want)
		}
	}
	if _, err := addDuration(types.TimestampType, types.EncodeBigint(0), types.EncodeDuration(0, 0, 1), false); err == nil {
		t.Error("a sub-millisecond duration was added to a timestamp")
	}
	if _, err := addDuration(types.DateType, types.EncodeDate(0), types.EncodeDuration(0, 0, 1e6), false); err == nil {
		t.Error("a sub-day duration was added to a date")
	}
}
