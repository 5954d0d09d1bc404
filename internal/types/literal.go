package types

import (
	"encoding/hex"
	"math"
	"math/big"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/cqlerr"
)

// Literal conversion. The From* functions implement Cassandra's
// Constants.Literal: first the assignment test (which literal kinds may be
// assigned to which types; failure is a *ColumnError such as
// `Invalid STRING constant (x) for "col" of type blob`), then the type's
// fromString (failure is a complete *cqlerr.Error such as
// `Unable to make int from '1x'`). Use WithColumn to turn either into the
// client error. ParseString is the type's fromString alone, without the
// assignment test (JSON values, casts, tools).

// FromString converts a quoted string literal. As in Cassandra, string
// literals are assignable to ascii, text, varchar, inet, date, time,
// timestamp and custom types only; numbers, uuids and booleans written as
// strings are rejected like Cassandra does (use ParseString to accept them).
func FromString(t *Type, s string) ([]byte, error) {
	switch t.Kind {
	case Ascii, Text, Inet, Date, Time, Timestamp, Custom, Tuple:
		// A tuple is not a native type, so a string is weakly
		// assignable to it (Constants.Literal.testAssignment).
		return ParseString(t, s)
	}
	return nil, notAssignable("STRING", s, t)
}

// FromNumber converts an integer or floating-point literal (as lexed: may
// start with '-', may contain an exponent, or be NaN/Infinity/-Infinity).
func FromNumber(t *Type, text string) ([]byte, error) {
	isFloat := strings.ContainsAny(text, ".eEnNyY") // NaN, Infinity, exponents
	if isFloat {
		switch t.Kind {
		case Decimal, Double, Float, Custom:
			return ParseString(t, text)
		}
		return nil, notAssignable("FLOAT", text, t)
	}
	switch t.Kind {
	case Bigint, Counter, Date, Decimal, Double, Float, Int, Smallint, Time, Timestamp, Tinyint, Varint, Custom:
		return ParseString(t, text)
	case Duration:
		return parseDuration(text)
	}
	return nil, notAssignable("INTEGER", text, t)
}

// FromBool converts true/false.
func FromBool(t *Type, b bool) ([]byte, error) {
	if t.Kind != Boolean && t.Kind != Custom {
		return nil, notAssignable("BOOLEAN", strconv.FormatBool(b), t)
	}
	return EncodeBoolean(b), nil
}

// FromUUID converts an unquoted uuid literal for a uuid or timeuuid.
func FromUUID(t *Type, text string) ([]byte, error) {
	if t.Kind != UUID && t.Kind != Timeuuid && t.Kind != Custom {
		return nil, notAssignable("UUID", text, t)
	}
	return ParseString(t, text)
}

// FromHex converts a 0x... blob literal.
func FromHex(t *Type, text string) ([]byte, error) {
	if t.Kind != Blob && t.Kind != Custom {
		return nil, notAssignable("HEX", text, t)
	}
	if len(text) < 2 || (text[:2] != "0x" && text[:2] != "0X") {
		return nil, cqlerr.Invalidf("cannot parse '%s' as hex bytes", text)
	}
	return parseHex(text[2:])
}

// FromDuration converts a duration literal (1h30m, P1DT2H, P0001-02-03T04:05:06).
func FromDuration(t *Type, text string) ([]byte, error) {
	if t.Kind != Duration && t.Kind != Custom {
		return nil, notAssignable("DURATION", text, t)
	}
	return parseDuration(text)
}

// parseHex is Cassandra's BytesType.fromString: Hex.hexToBytes refuses an
// odd number of digits ("An hex string representing bytes must have an
// even length"), which fromString reports as "cannot parse '...' as hex
// bytes".
func parseHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil || len(s)%2 == 1 {
		return nil, cqlerr.Invalidf("cannot parse '%s' as hex bytes", s)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// ParseString is Cassandra's AbstractType.fromString for t: the textual
// form of a value (without CQL quoting). The empty string yields the empty
// value for the types whose fromString does so.
func ParseString(t *Type, s string) ([]byte, error) {
	switch t.Kind {
	case Text:
		if !utf8.ValidString(s) {
			return nil, cqlerr.Invalidf("String didn't validate.")
		}
		return EncodeText(s), nil
	case Ascii:
		for i := 0; i < len(s); i++ {
			if s[i] > 0x7F {
				return nil, cqlerr.Invalidf("Invalid ASCII character in string literal")
			}
		}
		return EncodeText(s), nil
	case Blob, Custom:
		return parseHex(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	}
	if s == "" {
		switch t.Kind {
		case Int, Bigint, Counter, Float, Double, Decimal, Varint, Boolean,
			Timestamp, UUID, Timeuuid, Inet:
			return []byte{}, nil
		}
	}
	switch t.Kind {
	case Int:
		n, err := parseJavaInt(s, 32)
		if err != nil {
			return nil, cqlerr.Invalidf("Unable to make int from '%s'", s)
		}
		return EncodeInt(int32(n)), nil
	case Bigint, Counter:
		n, err := parseJavaInt(s, 64)
		if err != nil {
			return nil, cqlerr.Invalidf("Unable to make long from '%s'", s)
		}
		return EncodeBigint(n), nil
	case Smallint:
		n, err := parseJavaInt(s, 16)
		if err != nil {
			return nil, cqlerr.Invalidf("Unable to make short from '%s'", s)
		}
		return EncodeSmallint(int16(n)), nil
	case Tinyint:
		n, err := parseJavaInt(s, 8)
		if err != nil {
			return nil, cqlerr.Invalidf("Unable to make byte from '%s'", s)
		}
		return EncodeTinyint(int8(n)), nil
	case Float:
		f, ok := parseJavaFloat(s, 32)
		if !ok {
			return nil, cqlerr.Invalidf("Unable to make float from '%s'", s)
		}
		return EncodeFloat(float32(f)), nil
	case Double:
		f, ok := parseJavaFloat(s, 64)
		if !ok {
			return nil, cqlerr.Invalidf("Unable to make double from '%s'", s)
		}
		return EncodeDouble(f), nil
	case Varint:
		x, ok := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
		if !ok || strings.HasPrefix(s, "+-") || strings.ContainsRune(s, '_') {
			return nil, cqlerr.Invalidf("unable to make int from '%s'", s)
		}
		return EncodeVarint(x), nil
	case Decimal:
		u, scale, ok := parseDecimal(s)
		if !ok {
			return nil, cqlerr.Invalidf("unable to make BigDecimal from '%s'", s)
		}
		return EncodeDecimal(u, scale), nil
	case Boolean:
		switch strings.ToLower(s) {
		case "true":
			return EncodeBoolean(true), nil
		case "false":
			return EncodeBoolean(false), nil
		}
		return nil, cqlerr.Invalidf("Unable to make boolean from '%s'", s)
	case UUID:
		u, ok := parseUUID(s)
		if !ok {
			return nil, cqlerr.Invalidf("Unable to make UUID from '%s'", s)
		}
		return u, nil
	case Timeuuid:
		u, ok := parseUUID(s)
		if !ok {
			return nil, cqlerr.Invalidf("Unknown timeuuid representation: %s", s)
		}
		if u[6]>>4 != 1 {
			return nil, cqlerr.Invalidf("TimeUUID supports only version 1 UUIDs")
		}
		return u, nil
	case Inet:
		ip := net.ParseIP(s)
		if ip == nil {
			return nil, cqlerr.Invalidf("Unable to make inet address from '%s'", s)
		}
		if v4 := ip.To4(); v4 != nil {
			return []byte(v4), nil
		}
		return []byte(ip.To16()), nil
	case Timestamp:
		ms, err := ParseTimestamp(s)
		if err != nil {
			return nil, err
		}
		return EncodeBigint(ms), nil
	case Date:
		return parseDate(s)
	case Time:
		n, err := ParseTime(s)
		if err != nil {
			return nil, err
		}
		return EncodeTime(n), nil
	case Duration:
		return parseDuration(s)
	case Empty:
		if s != "" {
			return nil, cqlerr.Invalidf("EmptyType only accept empty values")
		}
		return []byte{}, nil
	case Tuple:
		return parseTuple(t, s)
	}
	return nil, cqlerr.Invalidf("Cannot convert '%s' to a value of type %s", s, t)
}

// parseTuple is TupleType.fromString: components separated by ':' (not
// escaped as "\:"), "@" for a null, "\@" for a literal @; fewer
// components than the type has are allowed.
func parseTuple(t *Type, s string) ([]byte, error) {
	var fields []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // an escaped character
		case ':':
			fields = append(fields, s[start:i])
			start = i + 1
		}
	}
	fields = append(fields, s[start:])
	if len(fields) > len(t.Params) {
		return nil, cqlerr.Invalidf("Invalid tuple literal: too many elements. Type %s expects %d but got %d", t, len(t.Params), len(fields))
	}
	parts := make([][]byte, len(fields))
	for i, f := range fields {
		if f == "@" {
			continue
		}
		f = strings.ReplaceAll(strings.ReplaceAll(f, "\\:", ":"), "\\@", "@")
		b, err := ParseString(t.Params[i], f)
		if err != nil {
			return nil, err
		}
		parts[i] = b
	}
	return EncodeTuple(parts), nil
}

// parseJavaInt parses like Java's Integer.parseInt: optional sign, decimal
// digits only.
func parseJavaInt(s string, bits int) (int64, error) {
	if strings.HasPrefix(s, "+") && !strings.HasPrefix(s, "+-") && !strings.HasPrefix(s, "++") {
		s = s[1:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseInt(s, 10, bits)
}

// parseJavaFloat parses like Java's Float/Double.parseFloat: decimal forms,
// exponents, NaN, Infinity; overflow rounds to ±Infinity.
func parseJavaFloat(s string, bits int) (float64, bool) {
	t := strings.TrimSpace(s)
	switch strings.TrimLeft(t, "+-") {
	case "NaN":
		return math.Float64frombits(0x7FF8000000000000), !strings.HasPrefix(t, "+") && !strings.HasPrefix(t, "-")
	case "Infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	t = strings.TrimRight(t, "dDfF")
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// parseDecimal parses Java BigDecimal syntax: [sign] digits [. digits] [e [sign] digits].
func parseDecimal(s string) (*big.Int, int32, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var digits []byte
	scale := int64(0)
	seenDot, seenDigit := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			seenDigit = true
			if seenDot {
				scale++
			}
			continue
		case c == '.' && !seenDot:
			seenDot = true
			continue
		}
		break
	}
	if !seenDigit {
		return nil, 0, false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return nil, 0, false
		}
		e, err := strconv.ParseInt(strings.TrimPrefix(s[i+1:], "+"), 10, 64)
		if err != nil || strings.HasPrefix(s[i+1:], "+-") || s[i+1:] == "" {
			return nil, 0, false
		}
		scale -= e
	}
	if scale != int64(int32(scale)) {
		return nil, 0, false
	}
	u, _ := new(big.Int).SetString(string(digits), 10)
	if neg {
		u.Neg(u)
	}
	return u, int32(scale), true
}

// parseUUID parses the canonical 8-4-4-4-12 hex form (case-insensitive).
func parseUUID(s string) ([]byte, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return nil, false
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, false
	}
	return b, true
}
