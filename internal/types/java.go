package types

import (
	"math"
	"net"
	"strconv"
	"strings"
)

// Java's renderings of values, which Cassandra's output (JSON, casts to
// text, DESCRIBE, nodetool) inherits.

// JavaDouble formats f as Java's Double.toString (bits 64) or
// Float.toString (bits 32): "1.0", "0.001", "1.0E7", "1.5E-5", "NaN",
// "Infinity", "-0.0".
func JavaDouble(f float64, bits int) string {
	if s, ok := NonFinite(f); ok {
		return s
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits) // e.g. 1.5E+20, 1E-05
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// NonFinite returns the name of a NaN or an infinity as Java and CQL
// write it ("NaN", "Infinity", "-Infinity"); false for a finite f.
func NonFinite(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// JavaHostAddress is InetAddress.getHostAddress of a serialized inet:
// dotted IPv4 (also for an IPv4-mapped IPv6 address, which Java turns
// into an Inet4Address), and IPv6 as eight uncompressed hex groups
// ("0:0:0:0:0:0:0:1").
func JavaHostAddress(v []byte) string {
	ip := net.IP(v)
	if len(v) == 4 || (len(v) == 16 && ip.To4() != nil) {
		return ip.To4().String()
	}
	if len(v) != 16 {
		return Format(InetType, v)
	}
	var b strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.FormatUint(uint64(v[i])<<8|uint64(v[i+1]), 16))
	}
	return b.String()
}
