package types

import (
	"encoding/hex"
	"math"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestFromString(t *testing.T) {
	for _, c := range []struct {
		typ     *Type
		in      string
		want    string // hex of the serialized value
		wantErr string // substring of the message with column "c"
	}{
		{TextType, "héllo", hex.EncodeToString([]byte("héllo")), ""},
		{TextType, "", "", ""},
		{AsciiType, "abc", "616263", ""},
		{AsciiType, "é", "", "Invalid ASCII character"},
		{BlobType, "abc", "", `Invalid STRING constant (abc) for "c" of type blob`},
		{IntType, "1", "", `Invalid STRING constant (1) for "c" of type int`},
		{UUIDType, "550e8400-e29b-41d4-a716-446655440000", "", `Invalid STRING constant`},
		{TimestampType, "2024-01-15 10:30:00", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-01-15T10:30:00Z", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-01-15T10:30:00.123Z", hex.EncodeToString(EncodeTimestampMillis(1705314600123)), ""},
		{TimestampType, "2024-01-15 10:30:00.123+0000", hex.EncodeToString(EncodeTimestampMillis(1705314600123)), ""},
		{TimestampType, "2024-01-15 12:30:00+02:00", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-01-15 12:30:00 +0200", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-01-15 10:30", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-01-15", hex.EncodeToString(EncodeTimestampMillis(1705276800000)), ""},
		{TimestampType, "1969-12-31 23:59:59.999Z", hex.EncodeToString(EncodeTimestampMillis(-1)), ""},
		{TimestampType, "1900-01-01", hex.EncodeToString(EncodeTimestampMillis(-2208988800000)), ""},
		{TimestampType, "1705314600000", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		// With a time, fields take any number of digits ("y-M-d H:m[:s]").
		{TimestampType, "2024-1-15 10:30:0+0000", hex.EncodeToString(EncodeTimestampMillis(1705314600000)), ""},
		{TimestampType, "2024-001-015T010:030:00.123Z", hex.EncodeToString(EncodeTimestampMillis(1705314600123)), ""},
		{TimestampType, "2024-01-15 10:30.123", hex.EncodeToString(EncodeTimestampMillis(1705314600123)), ""},
		{TimestampType, "2024-1-15", "", "Unable to parse a date/time from '2024-1-15'"},
		{TimestampType, "999999999-01-01 00:00", "", "Unable to parse a date/time"},
		{DateType, "2024-1-15", "", "Unable to coerce '2024-1-15' to a formatted date (long)"},
		{TimestampType, "2024-13-01", "", "Unable to parse a date/time from '2024-13-01'"},
		{TimestampType, "2024-02-30", "", "Unable to parse a date/time"},
		{TimestampType, "yesterday", "", "Unable to parse a date/time"},
		{DateType, "2024-01-15", hex.EncodeToString(EncodeDate(19737)), ""},
		{DateType, "1969-12-31", "7fffffff", ""},
		{DateType, "2147483648", "80000000", ""},
		{DateType, "2024-01-32", "", "Unable to coerce '2024-01-32' to a formatted date (long)"},
		{TimeType, "10:30:00.123456789", hex.EncodeToString(EncodeTime(37800123456789)), ""},
		{TimeType, "10:30:00", hex.EncodeToString(EncodeTime(37800000000000)), ""},
		{TimeType, "10:30:00.5", hex.EncodeToString(EncodeTime(37800500000000)), ""},
		{TimeType, "24:00:00", "", "Hour out of bounds."},
		{InetType, "127.0.0.1", "7f000001", ""},
		{InetType, "::1", "00000000000000000000000000000001", ""},
		{InetType, "2001:db8::ff00:42:8329", "20010db8000000000000ff0000428329", ""},
		{InetType, "nope", "", "Unable to make inet address from 'nope'"},
		{ListOf(TextType, false), "x", "", `Invalid STRING constant (x) for "c" of type list<text>`},
	} {
		got, err := FromString(c.typ, c.in)
		checkLiteral(t, "FromString", c.typ, c.in, got, err, c.want, c.wantErr)
	}
}

func checkLiteral(t *testing.T, fn string, typ *Type, in string, got []byte, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil {
			t.Errorf("%s(%s, %q) = %x, want error %q", fn, typ, in, got, wantErr)
			return
		}
		ce := WithColumn(err, "c")
		if ce.Code != cqlerr.Invalid || !strings.Contains(ce.Message, wantErr) {
			t.Errorf("%s(%s, %q) error %v, want %q", fn, typ, in, ce, wantErr)
		}
		return
	}
	if err != nil {
		t.Errorf("%s(%s, %q): %v", fn, typ, in, err)
		return
	}
	if hex.EncodeToString(got) != want {
		t.Errorf("%s(%s, %q) = %x, want %s", fn, typ, in, got, want)
	}
	if got == nil {
		t.Errorf("%s(%s, %q) returned nil (null)", fn, typ, in)
	}
	if err := Validate(typ, got); err != nil {
		t.Errorf("%s(%s, %q) = invalid %x: %v", fn, typ, in, got, err)
	}
}

func TestFromNumber(t *testing.T) {
	for _, c := range []struct {
		typ     *Type
		in      string
		want    string
		wantErr string
	}{
		{IntType, "42", "0000002a", ""},
		{IntType, "-1", "ffffffff", ""},
		{IntType, "2147483647", "7fffffff", ""},
		{IntType, "2147483648", "", "Unable to make int from '2147483648'"},
		{IntType, "1.5", "", `Invalid FLOAT constant (1.5) for "c" of type int`},
		{BigintType, "-9223372036854775808", "8000000000000000", ""},
		{BigintType, "9223372036854775808", "", "Unable to make long from"},
		{CounterType, "5", "0000000000000005", ""},
		{SmallintType, "-32768", "8000", ""},
		{SmallintType, "32768", "", "Unable to make short from"},
		{TinyintType, "127", "7f", ""},
		{TinyintType, "128", "", "Unable to make byte from"},
		{VarintType, "0", "00", ""},
		{VarintType, "128", "0080", ""},
		{VarintType, "-129", "ff7f", ""},
		{VarintType, "123456789012345678901234567890", "018ee90ff6c373e0ee4e3f0ad2", ""},
		{DecimalType, "1.5", "000000010f", ""},
		{DecimalType, "-0.01", "00000002ff", ""},
		{DecimalType, "1E+3", "fffffffd01", ""}, // negative scale
		{DecimalType, "12e2", "fffffffe0c", ""},
		{DecimalType, "NaN", "", "unable to make BigDecimal from 'NaN'"},
		{DoubleType, "1.5", "3ff8000000000000", ""},
		{DoubleType, "1", "3ff0000000000000", ""},
		{DoubleType, "NaN", "7ff8000000000000", ""},
		{DoubleType, "Infinity", "7ff0000000000000", ""},
		{DoubleType, "-Infinity", "fff0000000000000", ""},
		{DoubleType, "1e400", "7ff0000000000000", ""}, // Java rounds to Infinity
		{FloatType, "1.5", "3fc00000", ""},
		{FloatType, "-Infinity", "ff800000", ""},
		{FloatType, "NaN", "7fc00000", ""},
		{TimestampType, "-1000", "fffffffffffffc18", ""},
		{TimestampType, "1.5", "", `Invalid FLOAT constant (1.5) for "c" of type timestamp`},
		{DateType, "2147483648", "80000000", ""},
		{TimeType, "1000", "00000000000003e8", ""},
		{TimeType, "86400000000000", "", "out of bounds"},
		{TextType, "1", "", `Invalid INTEGER constant (1) for "c" of type text`},
		{BooleanType, "1", "", `Invalid INTEGER constant (1) for "c" of type boolean`},
	} {
		got, err := FromNumber(c.typ, c.in)
		checkLiteral(t, "FromNumber", c.typ, c.in, got, err, c.want, c.wantErr)
	}
}

func TestFromOtherLiterals(t *testing.T) {
	v, err := FromBool(BooleanType, true)
	checkLiteral(t, "FromBool", BooleanType, "true", v, err, "01", "")
	v, err = FromBool(IntType, true)
	checkLiteral(t, "FromBool", IntType, "true", v, err, "", `Invalid BOOLEAN constant (true) for "c" of type int`)

	v, err = FromUUID(UUIDType, "550E8400-E29B-41D4-A716-446655440000")
	checkLiteral(t, "FromUUID", UUIDType, "", v, err, "550e8400e29b41d4a716446655440000", "")
	v, err = FromUUID(TimeuuidType, "550e8400-e29b-41d4-a716-446655440000")
	checkLiteral(t, "FromUUID", TimeuuidType, "", v, err, "", "TimeUUID supports only version 1 UUIDs")
	v, err = FromUUID(TimeuuidType, "d2177dd0-eaa2-11de-a572-001b779c76e3")
	checkLiteral(t, "FromUUID", TimeuuidType, "", v, err, "d2177dd0eaa211dea572001b779c76e3", "")
	v, err = FromUUID(TextType, "d2177dd0-eaa2-11de-a572-001b779c76e3")
	checkLiteral(t, "FromUUID", TextType, "d2177dd0-eaa2-11de-a572-001b779c76e3", v, err, "", `Invalid UUID constant`)

	v, err = FromHex(BlobType, "0xCAFE")
	checkLiteral(t, "FromHex", BlobType, "0xCAFE", v, err, "cafe", "")
	v, err = FromHex(BlobType, "0x")
	checkLiteral(t, "FromHex", BlobType, "0x", v, err, "", "")
	v, err = FromHex(BlobType, "0xabc")
	checkLiteral(t, "FromHex", BlobType, "0xabc", v, err, "", "cannot parse 'abc' as hex bytes")
	v, err = FromHex(IntType, "0x01")
	checkLiteral(t, "FromHex", IntType, "0x01", v, err, "", `Invalid HEX constant (0x01) for "c" of type int`)

	for _, c := range []struct {
		in           string
		months, days int32
		nanos        int64
	}{
		{"1h30m", 0, 0, 90 * 60e9},
		{"1y2mo3w4d5h6m7s8ms9us10ns", 14, 25, 5*3600e9 + 6*60e9 + 7e9 + 8e6 + 9e3 + 10},
		{"-2d", 0, -2, 0},
		{"12µs", 0, 0, 12000},
		{"P1Y2M3DT4H5M6S", 14, 3, 4*3600e9 + 5*60e9 + 6e9},
		{"PT30M", 0, 0, 30 * 60e9},
		{"P2W", 0, 14, 0},
		{"P0001-02-03T04:05:06", 14, 3, 4*3600e9 + 5*60e9 + 6e9},
		{"P0000-00-00T89:09:09", 0, 0, 89*3600e9 + 9*60e9 + 9e9}, // no range check
		{"-P0000-13-40T00:00:00", -13, -40, 0},
	} {
		v, err := FromDuration(DurationType, c.in)
		if err != nil {
			t.Errorf("FromDuration(%q): %v", c.in, err)
			continue
		}
		m, d, n, err := DecodeDuration(v)
		if err != nil || m != c.months || d != c.days || n != c.nanos {
			t.Errorf("FromDuration(%q) = %d, %d, %d (%v), want %d, %d, %d", c.in, m, d, n, err, c.months, c.days, c.nanos)
		}
	}
	for _, bad := range []string{"1x", "P", "1h1h", "PT", "h", "P0001-02-03T04:05", "P+001-02-03T04:05:06", "P0001-02-03"} {
		if _, err := FromDuration(DurationType, bad); err == nil {
			t.Errorf("FromDuration(%q) succeeded", bad)
		}
	}
}

func TestParseStringLenient(t *testing.T) {
	for _, c := range []struct {
		typ  *Type
		in   string
		want string
	}{
		{IntType, "1", "00000001"},
		{IntType, "", ""},
		{BooleanType, "TRUE", "01"},
		{UUIDType, "550e8400-e29b-41d4-a716-446655440000", "550e8400e29b41d4a716446655440000"},
		{BlobType, "0xcafe", "cafe"},
		{DoubleType, "-0.0", "8000000000000000"},
	} {
		got, err := ParseString(c.typ, c.in)
		checkLiteral(t, "ParseString", c.typ, c.in, got, err, c.want, "")
	}
}

func TestDoubleLiteralsRoundTrip(t *testing.T) {
	for _, f := range []float64{0, 1.5, -2.25, 1e20, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1)} {
		s := FormatCQL(DoubleType, EncodeDouble(f))
		v, err := FromNumber(DoubleType, s)
		if err != nil {
			t.Fatalf("%v -> %q: %v", f, s, err)
		}
		if g, _ := DecodeDouble(v); g != f {
			t.Errorf("%v -> %q -> %v", f, s, g)
		}
	}
}
