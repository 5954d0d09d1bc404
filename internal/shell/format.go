package shell

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/types"
)

// FormatOptions are cqlsh's display settings (cqlshrc [ui] defaults).
type FormatOptions struct {
	// FloatPrecision and DoublePrecision are cqlsh's float_precision and
	// double_precision (both 5 by default).
	FloatPrecision, DoublePrecision int
	// Location is the display time zone (cqlsh: UTC unless TZ is set).
	Location *time.Location
	// MillisOnly rounds timestamps to milliseconds (COPY TO does).
	MillisOnly bool
	// Null is the placeholder of null values ("null").
	Null string
	// BoolStyle replaces True/False (COPY's BOOLSTYLE) when set.
	BoolStyle *[2]string
	// Color adds cqlsh's ANSI colors (displaying.py's DEFAULT_VALUE_COLORS).
	Color bool
}

// ANSI colors of displaying.py.
const (
	ansiRed         = "\033[0;1;31m"
	ansiGreen       = "\033[0;1;32m"
	ansiYellow      = "\033[0;1;33m"
	ansiBlue        = "\033[0;1;34m"
	ansiMagenta     = "\033[0;1;35m"
	ansiCyan        = "\033[0;1;36m"
	ansiWhite       = "\033[0;1;37m"
	ansiDarkMagenta = "\033[0;35m"
	ansiReset       = "\033[0m"
)

// valueColor is the color of a value of kind k.
func valueColor(k types.Kind) string {
	switch k {
	case types.Text, types.Ascii:
		return ansiYellow
	case types.Blob, types.Custom, types.Empty:
		return ansiDarkMagenta
	}
	return ansiGreen
}

func isComposite(k types.Kind) bool {
	switch k {
	case types.List, types.Set, types.Map, types.Tuple, types.UDT, types.Vector:
		return true
	}
	return false
}

// punct writes collection punctuation (blue when coloring).
func punct(b *strings.Builder, o FormatOptions, s string) {
	if o.Color {
		b.WriteString(ansiBlue + s + ansiReset)
		return
	}
	b.WriteString(s)
}

// DefaultFormat is cqlsh's default display configuration.
func DefaultFormat() FormatOptions {
	return FormatOptions{FloatPrecision: 5, DoublePrecision: 5, Location: time.UTC, Null: "null"}
}

// FormatValue renders one value exactly as cqlsh prints it in a result
// table (formatting.py's format_by_type with the default settings): nil is
// null, text is unquoted at top level and quoted inside collections,
// booleans are True/False, floats use cqlsh's precision rule, timestamps
// are "2024-01-15 10:30:00.000000+0000", blobs 0x....
func FormatValue(t *types.Type, v []byte, o FormatOptions) string {
	if v == nil {
		if o.Color {
			return ansiRed + o.Null + ansiReset
		}
		return o.Null
	}
	prec := o.FloatPrecision
	if t.Kind == types.Double {
		prec = o.DoublePrecision
	}
	var b strings.Builder
	formatInto(&b, t, v, false, prec, o)
	return b.String()
}

func formatInto(b *strings.Builder, t *types.Type, v []byte, quote bool, prec int, o FormatOptions) {
	if v == nil {
		if o.Color {
			b.WriteString(ansiRed + o.Null + ansiReset)
			return
		}
		b.WriteString(o.Null)
		return
	}
	if o.Color && (!isComposite(t.Kind) || len(v) == 0) {
		plain := o
		plain.Color = false
		var lb strings.Builder
		formatInto(&lb, t, v, quote, prec, plain)
		b.WriteString(valueColor(t.Kind) + lb.String() + ansiReset)
		return
	}
	if len(v) == 0 {
		// The Python driver returns '' for empty text, b'' for an empty
		// blob and EMPTY (printed as '') for every other type.
		switch t.Kind {
		case types.Text, types.Ascii:
			if quote {
				b.WriteString("''")
			}
		case types.Blob, types.Custom:
			b.WriteString("0x")
		}
		return
	}
	if types.Validate(t, v) != nil {
		// cqlsh prints undecodable bytes as their Python repr; hex is the
		// closest readable equivalent.
		b.WriteString("0x" + hex.EncodeToString(v))
		return
	}
	switch t.Kind {
	case types.Text, types.Ascii:
		b.WriteString(formatText(string(v), quote))
	case types.Blob, types.Custom, types.Empty:
		b.WriteString("0x" + hex.EncodeToString(v))
	case types.Boolean:
		val := v[0] != 0
		switch {
		case o.BoolStyle != nil && val:
			b.WriteString(o.BoolStyle[0])
		case o.BoolStyle != nil:
			b.WriteString(o.BoolStyle[1])
		case val:
			b.WriteString("True")
		default:
			b.WriteString("False")
		}
	case types.Int, types.Bigint, types.Counter, types.Smallint, types.Tinyint:
		var n int64
		switch len(v) {
		case 1:
			n = int64(int8(v[0]))
		case 2:
			n = int64(int16(binary.BigEndian.Uint16(v)))
		case 4:
			n = int64(int32(binary.BigEndian.Uint32(v)))
		default:
			n = int64(binary.BigEndian.Uint64(v))
		}
		b.WriteString(strconv.FormatInt(n, 10))
	case types.Varint:
		b.WriteString(types.DecodeVarintBytes(v).String())
	case types.Decimal:
		u, s, _ := types.DecodeDecimal(v)
		b.WriteString(pythonDecimal(u, s))
	case types.Float:
		f, _ := types.DecodeFloat(v)
		b.WriteString(FormatFloat(float64(f), prec))
	case types.Double:
		f, _ := types.DecodeDouble(v)
		b.WriteString(FormatFloat(f, prec))
	case types.UUID, types.Timeuuid:
		b.WriteString(uuidString(v))
	case types.Inet:
		s := net.IP(v).String()
		if quote {
			s = "'" + s + "'"
		}
		b.WriteString(s)
	case types.Timestamp:
		s := formatTimestamp(int64(binary.BigEndian.Uint64(v)), o)
		if quote {
			s = "'" + s + "'"
		}
		b.WriteString(s)
	case types.Date:
		// cassandra.util.Date's str: ISO date, or the day number when
		// outside the years Python's datetime handles.
		days, _ := types.DecodeDate(v)
		d := time.Unix(days*86400, 0).UTC()
		if d.Year() < 1 || d.Year() > 9999 {
			b.WriteString(strconv.FormatInt(days, 10))
		} else {
			b.WriteString(d.Format("2006-01-02"))
		}
	case types.Time:
		n := int64(binary.BigEndian.Uint64(v))
		s := n / 1e9
		b.WriteString(pad2(s/3600) + ":" + pad2(s/60%60) + ":" + pad2(s%60) + "." + padN(n%1e9, 9))
	case types.Duration:
		m, d, n, _ := types.DecodeDuration(v)
		b.WriteString(durationString(int64(m), int64(d), n))
	case types.List, types.Set, types.Vector:
		var elems [][]byte
		if t.Kind == types.Vector {
			elems = splitVector(t, v)
		} else {
			elems, _ = types.DecodeCollection(v)
		}
		open, end := "[", "]"
		if t.Kind == types.Set {
			open, end = "{", "}"
			elems = sortedCopy(t.Params[0], elems)
		}
		punct(b, o, open)
		for i, e := range elems {
			if i > 0 {
				punct(b, o, ", ")
			}
			formatInto(b, t.Params[0], e, true, prec, o)
		}
		punct(b, o, end)
	case types.Map:
		ks, vs, _ := types.DecodeMap(v)
		idx := make([]int, len(ks))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return pyLess(t.Params[0], ks[idx[i]], ks[idx[j]]) })
		punct(b, o, "{")
		for n, i := range idx {
			if n > 0 {
				punct(b, o, ", ")
			}
			formatInto(b, t.Params[0], ks[i], true, prec, o)
			punct(b, o, ": ")
			formatInto(b, t.Params[1], vs[i], true, prec, o)
		}
		punct(b, o, "}")
	case types.Tuple:
		comps, _ := types.DecodeTuple(v)
		punct(b, o, "(")
		for i, c := range comps {
			if i >= len(t.Params) {
				break
			}
			if i > 0 {
				punct(b, o, ", ")
			}
			formatInto(b, t.Params[i], c, true, prec, o)
		}
		punct(b, o, ")")
	case types.UDT:
		comps, _ := types.DecodeTuple(v)
		punct(b, o, "{")
		for i := range t.Params {
			if i > 0 {
				punct(b, o, ", ")
			}
			if o.Color {
				b.WriteString(ansiYellow + formatText(t.FieldNames[i], false) + ansiReset)
			} else {
				b.WriteString(formatText(t.FieldNames[i], false))
			}
			punct(b, o, ": ")
			var c []byte
			if i < len(comps) {
				c = comps[i]
			}
			formatInto(b, t.Params[i], c, true, prec, o)
		}
		punct(b, o, "}")
	default:
		b.WriteString("0x" + hex.EncodeToString(v))
	}
}

// formatText is formatting.py's format_value_text: backslashes doubled,
// control characters (cqlsh's class [\x00-\x31\x7f-\xa0]) shown as their
// Python escapes, and inside collections single quotes doubled and the
// whole quoted.
func formatText(s string, quote bool) string {
	var b strings.Builder
	if quote {
		b.WriteByte('\'')
	}
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\'' && quote:
			b.WriteString("''")
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7f && r <= 0xa0):
			b.WriteString(`\x` + hex.EncodeToString([]byte{byte(r)}))
		case r == utf8.RuneError:
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if quote {
		b.WriteByte('\'')
	}
	return b.String()
}

// FormatFloat is formatting.py's format_floating_point_type: %g with the
// precision raised by the exponent when %g would not use scientific
// notation anyway.
func FormatFloat(f float64, prec int) string {
	if s, ok := types.NonFinite(f); ok {
		return s
	}
	if math.Abs(f) > 2.220446049250313e-16 {
		exp := int(math.Log10(math.Abs(f))) // Python's int() truncates
		if exp >= -4 && exp < prec {
			prec = prec + exp + 1
		}
	}
	return cFormatG(f, prec)
}

// cFormatG is C's (and Python's) "%.*g".
func cFormatG(f float64, prec int) string {
	if prec == 0 {
		prec = 1
	}
	s := strconv.FormatFloat(f, 'e', prec-1, 64)
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= prec {
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
		}
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		return mant + "e" + sign + es
	}
	out := strconv.FormatFloat(f, 'f', prec-1-exp, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// pythonDecimal is Python's str(Decimal): plain notation when the
// exponent is <= 0 and the adjusted exponent >= -6, else scientific.
func pythonDecimal(u *big.Int, scale int32) string {
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	exp := -int64(scale)
	left := exp + int64(len(digits))
	if exp <= 0 && left > -6 {
		switch {
		case exp == 0:
			return sign + digits
		case left <= 0:
			return sign + "0." + strings.Repeat("0", int(-left)) + digits
		default:
			return sign + digits[:left] + "." + digits[left:]
		}
	}
	s := digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	adj := left - 1
	es := strconv.FormatInt(adj, 10)
	if adj >= 0 {
		es = "+" + es
	}
	return sign + s + "E" + es
}

func formatTimestamp(ms int64, o FormatOptions) string {
	if ms < -62135596800000 || ms > 253402300799999 {
		// Outside Python's datetime: cqlsh prints milliseconds.
		return strconv.FormatInt(ms, 10)
	}
	loc := o.Location
	if loc == nil {
		loc = time.UTC
	}
	t := time.UnixMilli(ms).In(loc)
	if t.Year() < 1 || t.Year() > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	if o.MillisOnly {
		return t.Format("2006-01-02 15:04:05.000-0700")
	}
	return t.Format("2006-01-02 15:04:05.000000-0700")
}

// durationString is formatting.py's duration_as_str (e.g. 1y2mo3d4h5m6s).
func durationString(months, days, nanos int64) string {
	var b strings.Builder
	if months < 0 || days < 0 || nanos < 0 {
		b.WriteByte('-')
	}
	abs := func(x int64) uint64 {
		if x < 0 {
			return uint64(-x)
		}
		return uint64(x)
	}
	m, d, n := abs(months), abs(days), abs(nanos)
	unit := func(v, div uint64, u string) uint64 {
		if v == 0 || v < div {
			return v
		}
		b.WriteString(strconv.FormatUint(v/div, 10))
		b.WriteString(u)
		return v % div
	}
	rem := unit(m, 12, "y")
	unit(rem, 1, "mo")
	unit(d, 1, "d")
	if n != 0 {
		rem = unit(n, 3600e9, "h")
		rem = unit(rem, 60e9, "m")
		rem = unit(rem, 1e9, "s")
		rem = unit(rem, 1e6, "ms")
		rem = unit(rem, 1e3, "us")
		unit(rem, 1, "ns")
	}
	return b.String()
}

func uuidString(v []byte) string {
	h := hex.EncodeToString(v)
	if len(h) != 32 {
		return "0x" + h
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func pad2(n int64) string { return padN(n, 2) }

func padN(n int64, w int) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

// splitVector splits a serialized vector into its elements.
func splitVector(t *types.Type, v []byte) [][]byte {
	n := fixedLen(t.Params[0])
	out := make([][]byte, 0, t.Dimension)
	for i := 0; i < t.Dimension && len(v) > 0; i++ {
		if n > 0 {
			if len(v) < n {
				break
			}
			out = append(out, v[:n])
			v = v[n:]
			continue
		}
		l, k := uvarint(v)
		if k == 0 || l > uint64(len(v)-k) {
			break
		}
		out = append(out, v[k:k+int(l)])
		v = v[k+int(l):]
	}
	return out
}

func fixedLen(t *types.Type) int {
	switch t.Kind {
	case types.Boolean:
		return 1
	case types.Int, types.Float, types.Date:
		return 4
	case types.Bigint, types.Counter, types.Timestamp, types.Time, types.Double:
		return 8
	case types.UUID, types.Timeuuid:
		return 16
	case types.Vector:
		if n := fixedLen(t.Params[0]); n > 0 {
			return n * t.Dimension
		}
	}
	return -1
}

// uvarint reads Cassandra's unsigned vint (length in the leading one bits).
func uvarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	first := b[0]
	extra := 0
	for extra < 8 && first&(0x80>>extra) != 0 {
		extra++
	}
	if len(b) < 1+extra {
		return 0, 0
	}
	v := uint64(first) & (0xff >> extra)
	if extra == 8 {
		v = 0
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, 1 + extra
}

// sortedCopy orders set elements as Python's sorted() orders the driver's
// values.
func sortedCopy(t *types.Type, elems [][]byte) [][]byte {
	out := append([][]byte(nil), elems...)
	sort.SliceStable(out, func(i, j int) bool { return pyLess(t, out[i], out[j]) })
	return out
}

// pyLess orders values as Python compares the driver's objects: numbers
// numerically, strings by code point, UUIDs by their 128-bit value.
func pyLess(t *types.Type, a, b []byte) bool {
	switch t.Kind {
	case types.UUID, types.Timeuuid, types.Text, types.Ascii, types.Blob, types.Inet:
		return bytes.Compare(a, b) < 0
	}
	defer func() { _ = recover() }()
	return types.Compare(t, a, b) < 0
}

// displayWidth is wcwidth.wcswidth for text without control characters:
// combining marks and zero-width spaces count 0, East Asian wide and
// full-width characters 2.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r == 0x200b || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

func isWide(r rune) bool {
	return r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) ||
		(r >= 0xfe30 && r <= 0xfe6f) ||
		(r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) ||
		(r >= 0x1f300 && r <= 0x1f64f) ||
		(r >= 0x1f900 && r <= 0x1f9ff) ||
		(r >= 0x20000 && r <= 0x2fffd) ||
		(r >= 0x30000 && r <= 0x3fffd))
}
