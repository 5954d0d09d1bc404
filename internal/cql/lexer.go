package cql

import (
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
)

// tokenKind is the lexical class of a token.
type tokenKind uint8

const (
	tkEOF         tokenKind = iota
	tkIdent                 // unquoted identifier or keyword; text lower-cased, kw set for keywords
	tkQuotedIdent           // "Name"; text unescaped, case kept; empty for ""
	tkString                // '...' or $$...$$; text unescaped
	tkInteger               // -?[0-9]+
	tkFloat                 // 1.5, 1e3, -2.5E-3, 1., NaN, Infinity, -Infinity (text normalised for NaN/Infinity)
	tkBool                  // true / false; text lower-cased
	tkDuration              // 1h30m, -2d, P1DT2H, P2W, P0001-02-03T04:05:06
	tkUUID                  // 8-4-4-4-12 hex digits
	tkHex                   // 0x...
	tkQMark                 // ?
	tkLParen                // (
	tkRParen                // )
	tkLBracket              // [
	tkRBracket              // ]
	tkLBrace                // {
	tkRBrace                // }
	tkComma                 // ,
	tkSemicolon             // ;
	tkDot                   // .
	tkColon                 // :
	tkRange                 // ..
	tkEq                    // =
	tkNeq                   // !=
	tkLt                    // <
	tkLte                   // <=
	tkGt                    // >
	tkGte                   // >=
	tkPlus                  // +
	tkMinus                 // -
	tkStar                  // *
	tkSlash                 // /
	tkPercent               // %
	tkPlusEq                // +=
	tkMinusEq               // -=
	numTokenKinds
)

// tokenNames are the names used in "expecting X" messages, following the
// names ANTLR gives Cassandra's tokens.
var tokenNames = [numTokenKinds]string{
	tkEOF:         "EOF",
	tkIdent:       "IDENT",
	tkQuotedIdent: "QUOTED_NAME",
	tkString:      "STRING_LITERAL",
	tkInteger:     "INTEGER",
	tkFloat:       "FLOAT",
	tkBool:        "BOOLEAN",
	tkDuration:    "DURATION",
	tkUUID:        "UUID",
	tkHex:         "HEXNUMBER",
	tkQMark:       "QMARK",
	tkLParen:      "'('",
	tkRParen:      "')'",
	tkLBracket:    "'['",
	tkRBracket:    "']'",
	tkLBrace:      "'{'",
	tkRBrace:      "'}'",
	tkComma:       "','",
	tkSemicolon:   "';'",
	tkDot:         "'.'",
	tkColon:       "':'",
	tkRange:       "RANGE",
	tkEq:          "'='",
	tkNeq:         "'!='",
	tkLt:          "'<'",
	tkLte:         "'<='",
	tkGt:          "'>'",
	tkGte:         "'>='",
	tkPlus:        "'+'",
	tkMinus:       "'-'",
	tkStar:        "'*'",
	tkSlash:       "'/'",
	tkPercent:     "'%'",
	tkPlusEq:      "'+='",
	tkMinusEq:     "'-='",
}

func (k tokenKind) String() string { return tokenNames[k] }

// token is one lexical token. pos and end are byte offsets into the source;
// src[pos:end] is the token as written.
type token struct {
	kind tokenKind
	kw   keyword // for tkIdent: the keyword, or kwNone
	pos  int
	end  int
	text string // see tokenKind
}

// lexer turns CQL text into tokens. It follows Cassandra's Lexer.g: longest
// match wins, and on a tie the rule listed first in Lexer.g (keywords,
// then literals, then IDENT).
type lexer struct {
	src  string
	i    int
	toks []token
}

// lex returns all tokens of src followed by one tkEOF token, or the first
// lexical error.
func lex(src string) ([]token, *cqlerr.Error) {
	return lexInto(src, nil)
}

// lexInto is lex appending to buf[:0] (a recycled slice, or nil).
func lexInto(src string, buf []token) ([]token, *cqlerr.Error) {
	// A token every four bytes on average covers typical statements
	// without regrowing the slice.
	if n := 16 + len(src)/4; cap(buf) < n {
		buf = make([]token, 0, n)
	}
	l := lexer{src: src, toks: buf[:0]}
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		if l.i >= len(src) {
			l.toks = append(l.toks, token{kind: tkEOF, pos: len(src), end: len(src)})
			return l.toks, nil
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
}

func (l *lexer) emit(kind tokenKind, start int, text string) {
	l.toks = append(l.toks, token{kind: kind, pos: start, end: l.i, text: text})
}

// skipSpace skips white space and comments.
func (l *lexer) skipSpace() *cqlerr.Error {
	src := l.src
	for l.i < len(src) {
		switch c := src[l.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.i++
		case (c == '-' || c == '/') && l.i+1 < len(src) && src[l.i+1] == c:
			// -- and // comments run to the end of the line.
			j := strings.IndexAny(src[l.i:], "\r\n")
			if j < 0 {
				l.i = len(src)
			} else {
				l.i += j + 1
			}
		case c == '/' && l.i+1 < len(src) && src[l.i+1] == '*':
			j := strings.Index(src[l.i+2:], "*/")
			if j < 0 {
				return lexError(src, len(src), "mismatched character '<EOF>' expecting '*'")
			}
			l.i += 2 + j + 2
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) next() *cqlerr.Error {
	src, start := l.src, l.i
	c := src[start]
	switch {
	case isDigit(c):
		if n := uuidLen(src, start); n > 0 {
			l.i += n
			l.emit(tkUUID, start, src[start:l.i])
			return nil
		}
		if c == '0' && start+1 < len(src) && (src[start+1] == 'x' || src[start+1] == 'X') {
			l.i += 2
			for l.i < len(src) && isHex(src[l.i]) {
				l.i++
			}
			l.emit(tkHex, start, src[start:l.i])
			return nil
		}
		l.number(start)
		return nil
	case isLetter(c):
		l.word(start)
		return nil
	}
	l.i++
	switch c {
	case '\'':
		return l.quoted(start, '\'', tkString)
	case '"':
		return l.quoted(start, '"', tkQuotedIdent)
	case '$':
		if l.i < len(src) && src[l.i] == '$' {
			j := strings.Index(src[l.i+1:], "$$")
			if j < 0 {
				return lexError(src, len(src), "mismatched character '<EOF>' expecting '$'")
			}
			text := src[l.i+1 : l.i+1+j]
			l.i += 1 + j + 2
			l.emit(tkString, start, text)
			return nil
		}
		return lexError(src, start, "no viable alternative at character '$'")
	case '(':
		l.emit(tkLParen, start, "")
	case ')':
		l.emit(tkRParen, start, "")
	case '[':
		l.emit(tkLBracket, start, "")
	case ']':
		l.emit(tkRBracket, start, "")
	case '{':
		l.emit(tkLBrace, start, "")
	case '}':
		l.emit(tkRBrace, start, "")
	case ',':
		l.emit(tkComma, start, "")
	case ';':
		l.emit(tkSemicolon, start, "")
	case ':':
		l.emit(tkColon, start, "")
	case '?':
		l.emit(tkQMark, start, "")
	case '*':
		l.emit(tkStar, start, "")
	case '/':
		l.emit(tkSlash, start, "")
	case '%':
		l.emit(tkPercent, start, "")
	case '=':
		l.emit(tkEq, start, "")
	case '.':
		if l.i < len(src) && src[l.i] == '.' {
			l.i++
			l.emit(tkRange, start, "")
		} else {
			l.emit(tkDot, start, "")
		}
	case '<':
		if l.i < len(src) && src[l.i] == '=' {
			l.i++
			l.emit(tkLte, start, "")
		} else {
			l.emit(tkLt, start, "")
		}
	case '>':
		if l.i < len(src) && src[l.i] == '=' {
			l.i++
			l.emit(tkGte, start, "")
		} else {
			l.emit(tkGt, start, "")
		}
	case '!':
		if l.i < len(src) && src[l.i] == '=' {
			l.i++
			l.emit(tkNeq, start, "")
			return nil
		}
		return lexError(src, l.i, "mismatched character "+charDisplay(src, l.i)+" expecting '='")
	case '+':
		if l.i < len(src) && src[l.i] == '=' {
			l.i++
			l.emit(tkPlusEq, start, "")
		} else {
			l.emit(tkPlus, start, "")
		}
	case '-':
		return l.minus(start)
	default:
		return lexError(src, start, "no viable alternative at character "+charDisplay(src, start))
	}
	return nil
}

// minus lexes a token starting with '-': a negative number or duration,
// -NaN, -Infinity, '-=' or '-'. l.i is just past the '-'.
func (l *lexer) minus(start int) *cqlerr.Error {
	src := l.src
	if l.i < len(src) {
		c := src[l.i]
		switch {
		case c == '=':
			l.i++
			l.emit(tkMinusEq, start, "")
			return nil
		case isDigit(c):
			l.number(start)
			return nil
		case c == 'P':
			if n := isoDurationLen(src, l.i); n > 0 && n >= identLen(src, l.i) {
				l.i += n
				l.emit(tkDuration, start, src[start:l.i])
				return nil
			}
		case c == 'n' || c == 'N' || c == 'i' || c == 'I':
			n := identLen(src, l.i)
			switch asciiLower(src[l.i : l.i+n]) {
			case "nan":
				l.i += n
				l.emit(tkFloat, start, "NaN")
				return nil
			case "infinity":
				l.i += n
				l.emit(tkFloat, start, "-Infinity")
				return nil
			}
		}
	}
	l.emit(tkMinus, start, "")
	return nil
}

// number lexes an integer, float or duration starting at start (which may
// be a '-'); l.i is at the first digit.
func (l *lexer) number(start int) {
	src := l.src
	l.i = digitsEnd(src, l.i)
	// Durations: (DIGIT+ UNIT)+.
	if n := durationUnitLen(src, l.i); n > 0 {
		l.i += n
		for {
			d := digitsEnd(src, l.i)
			if d == l.i {
				break
			}
			n := durationUnitLen(src, d)
			if n == 0 {
				break
			}
			l.i = d + n
		}
		l.emit(tkDuration, start, src[start:l.i])
		return
	}
	kind := tkInteger
	// "1..2" is INTEGER RANGE INTEGER, not FLOAT "1." followed by ".2";
	// "0...3." is "0." RANGE "3." (Lexer.g's FLOAT predicate on
	// INTEGER '.' RANGE).
	switch {
	case strings.HasPrefix(src[l.i:], "..."):
		kind = tkFloat
		l.i++
	case l.i < len(src) && src[l.i] == '.' && !(l.i+1 < len(src) && src[l.i+1] == '.'):
		kind = tkFloat
		l.i = digitsEnd(src, l.i+1)
	}
	if l.i < len(src) && (src[l.i] == 'e' || src[l.i] == 'E') {
		j := l.i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if d := digitsEnd(src, j); d > j {
			kind = tkFloat
			l.i = d
		}
	}
	l.emit(kind, start, src[start:l.i])
}

// word lexes a token starting with a letter: a keyword, identifier,
// boolean, NaN/Infinity, UUID or ISO 8601 duration.
func (l *lexer) word(start int) {
	src := l.src
	n := identLen(src, start)
	if isHex(src[start]) {
		if u := uuidLen(src, start); u > 0 {
			l.i += u
			l.emit(tkUUID, start, src[start:l.i])
			return
		}
	}
	if src[start] == 'P' {
		// DURATION is listed before IDENT in Lexer.g, so it wins ties.
		if d := isoDurationLen(src, start); d > 0 && d >= n {
			l.i += d
			l.emit(tkDuration, start, src[start:l.i])
			return
		}
	}
	l.i += n
	word := src[start:l.i]
	// Keywords are looked up lower-cased in a stack buffer (the map lookup
	// of string(buf) does not allocate) and take their text from a static
	// table, so "SELECT" costs no allocation.
	if n <= maxKeywordLen {
		var buf [maxKeywordLen]byte
		for i := 0; i < n; i++ {
			c := word[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if kw, ok := keywords[string(buf[:n])]; ok {
			text := keywordLower[kw]
			if text != string(buf[:n]) { // an alias: TABLE, COLUMNFAMILIES
				text = string(buf[:n])
			}
			l.toks = append(l.toks, token{kind: tkIdent, kw: kw, pos: start, end: l.i, text: text})
			return
		}
	}
	text := asciiLower(word)
	switch text {
	case "true", "false":
		l.emit(tkBool, start, text)
	case "nan":
		l.emit(tkFloat, start, "NaN")
	case "infinity":
		l.emit(tkFloat, start, "Infinity")
	default:
		l.emit(tkIdent, start, text)
	}
}

// quoted lexes a '...' string or a "..." identifier; a doubled quote
// stands for one quote. l.i is just past the opening quote.
func (l *lexer) quoted(start int, q byte, kind tokenKind) *cqlerr.Error {
	src := l.src
	var b []byte // only allocated when the text contains an escaped quote
	from := l.i
	for {
		j := strings.IndexByte(src[l.i:], q)
		if j < 0 {
			return lexError(src, len(src), "mismatched character '<EOF>' expecting '"+string(q)+"'")
		}
		l.i += j
		if l.i+1 < len(src) && src[l.i+1] == q {
			b = append(b, src[from:l.i+1]...)
			l.i += 2
			from = l.i
			continue
		}
		var text string
		if b == nil {
			text = src[from:l.i]
		} else {
			text = string(append(b, src[from:l.i]...))
		}
		l.i++
		l.emit(kind, start, text)
		return nil
	}
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_'
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// identLen is the length of the IDENT starting at i (0 if none).
func identLen(s string, i int) int {
	if i >= len(s) || !isLetter(s[i]) {
		return 0
	}
	j := i + 1
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	return j - i
}

// uuidLen returns 36 if an 8-4-4-4-12 hex UUID starts at i, else 0.
func uuidLen(s string, i int) int {
	if len(s)-i < 36 {
		return 0
	}
	for k := 0; k < 36; k++ {
		c := s[i+k]
		if k == 8 || k == 13 || k == 18 || k == 23 {
			if c != '-' {
				return 0
			}
		} else if !isHex(c) {
			return 0
		}
	}
	return 36
}

// durationUnitLen returns the length of the duration unit at i (y, mo, w,
// d, h, m, s, ms, us, µs, ns; case-insensitive), or 0.
func durationUnitLen(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	var next byte
	if i+1 < len(s) {
		next = s[i+1] | 0x20 // lower-case letters; other bytes never match below
	}
	switch s[i] | 0x20 {
	case 'y', 'w', 'd', 'h', 's':
		return 1
	case 'm':
		if next == 'o' || next == 's' {
			return 2
		}
		return 1
	case 'u', 'n':
		if next == 's' {
			return 2
		}
	}
	if s[i] == 0xC2 && i+2 < len(s) && s[i+1] == 0xB5 && (s[i+2]|0x20) == 's' { // µs
		return 3
	}
	return 0
}

// isoDurationLen returns the length of the ISO 8601 duration starting with
// the 'P' at i, or 0. The designators are upper-case only, as in Lexer.g.
func isoDurationLen(s string, i int) int {
	if i >= len(s) || s[i] != 'P' {
		return 0
	}
	j := i + 1
	// Alternative format: P0001-02-03T04:05:06.
	if alt := "dddd-dd-ddTdd:dd:dd"; len(s)-j >= len(alt) {
		ok := true
		for k := 0; k < len(alt) && ok; k++ {
			c := s[j+k]
			if alt[k] == 'd' {
				ok = isDigit(c)
			} else {
				ok = c == alt[k]
			}
		}
		if ok {
			return 1 + len(alt)
		}
	}
	// designators matches (DIGIT+ designator)* for the designators in order,
	// each at most once, and returns the end.
	designators := func(j int, order string) (int, bool) {
		any := false
		for {
			d := digitsEnd(s, j)
			if d == j || d >= len(s) {
				return j, any
			}
			k := strings.IndexByte(order, s[d])
			if k < 0 {
				return j, any
			}
			order = order[k+1:]
			j, any = d+1, true
		}
	}
	if j < len(s) && s[j] == 'T' {
		if e, ok := designators(j+1, "HMS"); ok {
			return e - i
		}
		return 0
	}
	// P nW
	if d := digitsEnd(s, j); d > j && d < len(s) && s[d] == 'W' {
		return d + 1 - i
	}
	e, ok := designators(j, "YMD")
	if !ok {
		return 0
	}
	if e < len(s) && s[e] == 'T' {
		if e2, ok := designators(e+1, "HMS"); ok {
			e = e2
		}
	}
	return e - i
}

// charDisplay renders the character at i for a lexer error message.
func charDisplay(s string, i int) string {
	if i >= len(s) {
		return "'<EOF>'"
	}
	r := []rune(s[i:min(len(s), i+4)])
	return "'" + string(r[0]) + "'"
}

func lexError(src string, pos int, msg string) *cqlerr.Error {
	line, col := lineCol(src, pos)
	return cqlerr.Syntaxf("line %d:%d %s", line, col, msg)
}

// lineCol returns the 1-based line and 0-based column (in characters) of the
// byte offset pos, as ANTLR reports them.
func lineCol(src string, pos int) (line, col int) {
	pos = min(pos, len(src))
	nl := strings.LastIndexByte(src[:pos], '\n')
	line = 1 + strings.Count(src[:pos], "\n")
	col = 0
	for range src[nl+1 : pos] {
		col++
	}
	return line, col
}
