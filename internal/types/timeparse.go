package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
)

// ParseTimestamp parses the timestamp forms Cassandra's TimestampSerializer
// accepts and returns milliseconds since the epoch:
//
//	-?digits                      milliseconds since the epoch
//	yyyy-mm-dd                    midnight
//	y-m-d[ T]h:m[:s][.f]          f is 1-9 digits, truncated to ms
//
// With a time, every field takes any number of digits, as the patterns
// "y-M-d H:m[:s]" do (2017-1-3 4:5:6); a date alone is yyyy-MM-dd.
// each optionally followed (with or without a space) by a zone: Z, ±hh,
// ±hhmm, ±hh:mm, UTC, GMT or an IANA zone name. Without a zone the time is
// UTC (cqld's fixed default; Cassandra uses the server's zone).
func ParseTimestamp(s string) (int64, error) {
	bad := func() (int64, error) {
		return 0, cqlerr.Invalidf("Unable to parse a date/time from '%s'", s)
	}
	if isInteger(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return bad()
		}
		return n, nil
	}
	p := &dtParser{s: s}
	y, mo, d, padded, ok := p.date()
	if !ok {
		return bad()
	}
	var hh, mm, ss, nanos int
	if p.eat('T') || (p.peekByte() == ' ' && len(p.s) > p.i+2 && isDigit(p.s[p.i+1])) {
		if p.s[p.i-1] != 'T' {
			p.i++
		}
		if hh, ok = p.digits(); !ok || !p.eat(':') {
			return bad()
		}
		if mm, ok = p.digits(); !ok {
			return bad()
		}
		if p.eat(':') {
			if ss, ok = p.digits(); !ok {
				return bad()
			}
		}
		if p.eat('.') {
			if nanos, ok = p.fraction(); !ok {
				return bad()
			}
		}
	} else if !padded {
		return bad() // a date alone is yyyy-MM-dd
	}
	if hh > 23 || mm > 59 || ss > 59 {
		return bad()
	}
	loc, ok := p.zone()
	if !ok {
		return bad()
	}
	if time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Day() != d {
		return bad() // e.g. February 30th
	}
	t := time.Date(y, time.Month(mo), d, hh, mm, ss, nanos, loc)
	if sec := t.Unix(); sec > math.MaxInt64/1000-1 || sec < math.MinInt64/1000+1 {
		return bad() // beyond what milliseconds since the epoch hold
	}
	return t.Unix()*1000 + int64(t.Nanosecond()/1e6), nil
}

type dtParser struct {
	s string
	i int
}

func (p *dtParser) peekByte() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *dtParser) eat(c byte) bool {
	if p.peekByte() == c {
		p.i++
		return true
	}
	return false
}

// num reads exactly n digits.
func (p *dtParser) num(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// fraction reads 1-9 digits after a decimal point as nanoseconds.
func (p *dtParser) fraction() (int, bool) {
	start := p.i
	v, ok := p.digits()
	if !ok {
		return 0, false
	}
	for n := p.i - start; n < 9; n++ {
		v *= 10
	}
	return v, true
}

// digits reads one or more digits (at most 9).
func (p *dtParser) digits() (int, bool) {
	start := p.i
	v := 0
	for p.i < len(p.s) && isDigit(p.s[p.i]) && p.i-start < 9 {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
	}
	return v, p.i > start
}

// date reads y-m-d, the year optionally signed; padded reports whether it
// is yyyy-MM-dd (a year of 4 to 9 digits, two-digit month and day).
func (p *dtParser) date() (y, m, d int, padded, ok bool) {
	neg := p.eat('-')
	if !neg {
		p.eat('+')
	}
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	yearDigits := p.i - start
	if yearDigits < 1 || yearDigits > 9 {
		return 0, 0, 0, false, false
	}
	y, _ = strconv.Atoi(p.s[start:p.i])
	if neg {
		y = -y
	}
	if !p.eat('-') {
		return 0, 0, 0, false, false
	}
	mStart := p.i
	if m, ok = p.digits(); !ok || !p.eat('-') {
		return 0, 0, 0, false, false
	}
	dStart := p.i
	if d, ok = p.digits(); !ok {
		return 0, 0, 0, false, false
	}
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, 0, 0, false, false
	}
	padded = yearDigits >= 4 && dStart-mStart == 3 && p.i-dStart == 2
	return y, m, d, padded, true
}

func (p *dtParser) zone() (*time.Location, bool) {
	rest := strings.TrimLeft(p.s[p.i:], " ")
	switch rest {
	case "":
		if strings.HasSuffix(p.s, " ") {
			return nil, false
		}
		return time.UTC, true
	case "Z", "z", "UTC", "GMT":
		return time.UTC, true
	}
	if rest[0] == '+' || rest[0] == '-' {
		sign := 1
		if rest[0] == '-' {
			sign = -1
		}
		z := rest[1:]
		var h, m int
		var err1, err2 error
		switch {
		case len(z) == 2:
			h, err1 = strconv.Atoi(z)
		case len(z) == 4:
			h, err1 = strconv.Atoi(z[:2])
			m, err2 = strconv.Atoi(z[2:])
		case len(z) == 5 && z[2] == ':':
			h, err1 = strconv.Atoi(z[:2])
			m, err2 = strconv.Atoi(z[3:])
		default:
			return nil, false
		}
		if err1 != nil || err2 != nil || h > 18 || m > 59 || !isDigit(z[0]) || !isDigit(z[len(z)-1]) {
			return nil, false
		}
		return time.FixedZone("", sign*(h*3600+m*60)), true
	}
	if loc, err := time.LoadLocation(rest); err == nil && rest != "Local" {
		return loc, true
	}
	return nil, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parseDate parses yyyy-mm-dd or a raw day number (the serialized unsigned
// value, 2^31 = 1970-01-01), as SimpleDateSerializer.dateStringToDays.
func parseDate(s string) ([]byte, error) {
	if isInteger(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > math.MaxUint32 {
			return nil, cqlerr.Invalidf("Unable to make unsigned int (for date) from: '%s'", s)
		}
		return EncodeInt(int32(uint32(n))), nil
	}
	p := &dtParser{s: s}
	y, m, d, padded, ok := p.date()
	if !ok || !padded || p.i != len(s) || time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Day() != d {
		return nil, cqlerr.Invalidf("Unable to coerce '%s' to a formatted date (long)", s)
	}
	days := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	if days < -dateEpoch || days > dateEpoch-1 {
		return nil, cqlerr.Invalidf("Input date %s is out of the supported date range", s)
	}
	return EncodeDate(days), nil
}

// ParseTime parses hh:mm:ss[.fffffffff] or a raw number of nanoseconds
// since midnight, as TimeSerializer.timeStringToLong.
func ParseTime(s string) (int64, error) {
	if isInteger(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > maxTimeNanos {
			return 0, cqlerr.Invalidf("Input long out of bounds: %s", s)
		}
		return n, nil
	}
	bad := func(msg string) (int64, error) {
		return 0, cqlerr.Invalidf("Unable to coerce '%s' to a formatted time (long): %s", s, msg)
	}
	st := strings.TrimSpace(s)
	p := &dtParser{s: st}
	hh, ok1 := p.num(2)
	c1 := p.eat(':')
	mm, ok2 := p.num(2)
	c2 := p.eat(':')
	ss, ok3 := p.num(2)
	if !(ok1 && c1 && ok2 && c2 && ok3) {
		return bad("Timestamp format must be hh:mm:ss[.fffffffff]")
	}
	nanos := 0
	if p.eat('.') {
		var ok bool
		if nanos, ok = p.fraction(); !ok {
			return bad("Timestamp format must be hh:mm:ss[.fffffffff]")
		}
	}
	if p.i != len(st) {
		return bad("Timestamp format must be hh:mm:ss[.fffffffff]")
	}
	switch {
	case hh > 23:
		return bad("Hour out of bounds.")
	case mm > 59:
		return bad("Minute out of bounds.")
	case ss > 59:
		return bad("Second out of bounds.")
	}
	return ((int64(hh)*60+int64(mm))*60+int64(ss))*1e9 + int64(nanos), nil
}

// parseDuration parses Cassandra's three duration notations:
// 1y2mo3w4d5h6m7s8ms9us10ns (units case-insensitive, µs accepted), ISO 8601
// P1Y2M3DT4H5M6S / P3W, and the alternative P0001-02-03T04:05:06. A leading
// '-' negates all three parts.
func parseDuration(s string) ([]byte, error) {
	bad := func() ([]byte, error) {
		return nil, cqlerr.Invalidf("Unable to convert '%s' to a duration", s)
	}
	in := s
	neg := strings.HasPrefix(in, "-")
	if neg {
		in = in[1:]
	}
	if in == "" {
		return bad()
	}
	var months, days, nanos big.Int
	var ok bool
	if in[0] == 'P' || in[0] == 'p' {
		ok = parseISODuration(in[1:], &months, &days, &nanos)
	} else {
		ok = parseUnitDuration(in, &months, &days, &nanos)
	}
	if !ok {
		return bad()
	}
	if !months.IsInt64() || months.Int64() > math.MaxInt32 {
		return nil, cqlerr.Invalidf("Invalid duration. The total number of months must be less or equal to %d", math.MaxInt32)
	}
	if !days.IsInt64() || days.Int64() > math.MaxInt32 {
		return nil, cqlerr.Invalidf("Invalid duration. The total number of days must be less or equal to %d", math.MaxInt32)
	}
	if !nanos.IsInt64() {
		return nil, cqlerr.Invalidf("Invalid duration. The total number of nanoseconds must be less or equal to %d", int64(math.MaxInt64))
	}
	m, d, n := months.Int64(), days.Int64(), nanos.Int64()
	if neg {
		m, d, n = -m, -d, -n
	}
	return EncodeDuration(int32(m), int32(d), n), nil
}

var unitNanos = map[string]int64{
	"h": 3600e9, "m": 60e9, "s": 1e9, "ms": 1e6, "us": 1e3, "µs": 1e3, "ns": 1,
}

func parseUnitDuration(s string, months, days, nanos *big.Int) bool {
	seen := map[string]bool{}
	for s != "" {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 {
			return false
		}
		n, _ := new(big.Int).SetString(s[:i], 10)
		s = s[i:]
		j := 0
		for j < len(s) && !isDigit(s[j]) {
			j++
		}
		unit := strings.ToLower(s[:j])
		s = s[j:]
		if seen[unit] {
			return false
		}
		seen[unit] = true
		switch unit {
		case "y":
			months.Add(months, n.Mul(n, big.NewInt(12)))
		case "mo":
			months.Add(months, n)
		case "w":
			days.Add(days, n.Mul(n, big.NewInt(7)))
		case "d":
			days.Add(days, n)
		default:
			f, ok := unitNanos[unit]
			if !ok {
				return false
			}
			nanos.Add(nanos, n.Mul(n, big.NewInt(f)))
		}
	}
	return true
}

func parseISODuration(s string, months, days, nanos *big.Int) bool {
	if s == "" {
		return false
	}
	// Alternative format P0001-02-03T04:05:06: Duration's
	// ISO8601_ALTERNATIVE_PATTERN, P(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}),
	// whose fields parseIso8601AlternativeFormat adds without a range
	// check (P0000-00-00T89:09:09 is 89h9m9s).
	if strings.Contains(s, "-") {
		if len(s) != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
			return false
		}
		f := func(a, b int) int64 {
			for i := a; i < b; i++ {
				if !isDigit(s[i]) {
					return -1
				}
			}
			n, _ := strconv.ParseInt(s[a:b], 10, 64)
			return n
		}
		y, mo, d, h, mi, se := f(0, 4), f(5, 7), f(8, 10), f(11, 13), f(14, 16), f(17, 19)
		if y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0 {
			return false
		}
		months.SetInt64(y*12 + mo)
		days.SetInt64(d)
		nanos.SetInt64(((h*60+mi)*60 + se) * 1e9)
		return true
	}
	if strings.HasSuffix(s, "W") || strings.HasSuffix(s, "w") {
		n, ok := new(big.Int).SetString(s[:len(s)-1], 10)
		if !ok || n.Sign() < 0 {
			return false
		}
		days.Mul(n, big.NewInt(7))
		return true
	}
	inTime := false
	order := "YMD"
	pos := 0
	for s != "" {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return false
			}
			inTime, order, pos = true, "HMS", 0
			s = s[1:]
			if s == "" {
				return false
			}
			continue
		}
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 || i == len(s) {
			return false
		}
		n, _ := new(big.Int).SetString(s[:i], 10)
		u := strings.ToUpper(s[i : i+1])
		s = s[i+1:]
		k := strings.Index(order[pos:], u)
		if k < 0 {
			return false
		}
		pos += k + 1
		switch {
		case !inTime && u == "Y":
			months.Add(months, n.Mul(n, big.NewInt(12)))
		case !inTime && u == "M":
			months.Add(months, n)
		case !inTime && u == "D":
			days.Add(days, n)
		case u == "H":
			nanos.Add(nanos, n.Mul(n, big.NewInt(3600e9)))
		case u == "M":
			nanos.Add(nanos, n.Mul(n, big.NewInt(60e9)))
		case u == "S":
			nanos.Add(nanos, n.Mul(n, big.NewInt(1e9)))
		}
	}
	return true
}
