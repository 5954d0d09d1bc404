package cql

import (
	"fmt"
	"strings"
	"testing"
)

// lexString renders the tokens of src as "KIND:text" items, for compact
// expectations.
func lexString(t *testing.T, src string) string {
	t.Helper()
	toks, err := lex(src)
	if err != nil {
		return "error: " + err.Message
	}
	var parts []string
	for _, tk := range toks {
		if tk.kind == tkEOF {
			break
		}
		s := tk.kind.String()
		switch {
		case tk.kind == tkIdent && tk.kw != kwNone:
			s = tk.kw.String()
		case tk.kind <= tkHex:
			s += ":" + tk.text
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestLexer(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Keywords are case-insensitive; identifiers are lower-cased.
		{`SELECT select SeLeCt`, `K_SELECT K_SELECT K_SELECT`},
		{`MyTable my_table t1`, `IDENT:mytable IDENT:my_table IDENT:t1`},
		{`TABLE columnfamily ColumnFamilies tables`, `K_COLUMNFAMILY K_COLUMNFAMILY K_TABLES K_TABLES`},
		{`select_masked`, `K_SELECT_MASKED`},
		// Quoted identifiers keep their case and un-double quotes.
		{`"MyTable" "a""b" """" "" "with space"`, `QUOTED_NAME:MyTable QUOTED_NAME:a"b QUOTED_NAME:" QUOTED_NAME: QUOTED_NAME:with space`},
		{`"SELECT"`, `QUOTED_NAME:SELECT`},
		// Strings.
		{`'abc' '' 'it''s' ''''`, `STRING_LITERAL:abc STRING_LITERAL: STRING_LITERAL:it's STRING_LITERAL:'`},
		{`$$a'b$c$$ $$$$`, `STRING_LITERAL:a'b$c STRING_LITERAL:`},
		{"'multi\nline'", "STRING_LITERAL:multi\nline"},
		{`'héllo wörld'`, `STRING_LITERAL:héllo wörld`},
		// Numbers.
		{`0 42 -42 007`, `INTEGER:0 INTEGER:42 INTEGER:-42 INTEGER:007`},
		{`1.5 -1.5 1. 1.e3 1e3 1E-3 2e+10 -3.25e-2`, `FLOAT:1.5 FLOAT:-1.5 FLOAT:1. FLOAT:1.e3 FLOAT:1e3 FLOAT:1E-3 FLOAT:2e+10 FLOAT:-3.25e-2`},
		{`1e`, `INTEGER:1 IDENT:e`},
		{`1e+`, `INTEGER:1 IDENT:e '+'`},
		{`.5`, `'.' INTEGER:5`},
		{`NaN nan -NaN Infinity -infinity INFINITY`, `FLOAT:NaN FLOAT:NaN FLOAT:NaN FLOAT:Infinity FLOAT:-Infinity FLOAT:Infinity`},
		{`-nanx -infinityy`, `'-' IDENT:nanx '-' IDENT:infinityy`},
		{`true FALSE True truex`, `BOOLEAN:true BOOLEAN:false BOOLEAN:true IDENT:truex`},
		// Ranges: "1..2" is INTEGER RANGE INTEGER.
		{`1..2 1. .2 a[..3]`, `INTEGER:1 RANGE INTEGER:2 FLOAT:1. '.' INTEGER:2 IDENT:a '[' RANGE INTEGER:3 ']'`},
		// Subtraction without spaces lexes a negative number, as in Cassandra.
		{`a-1 a - 1 a -1`, `IDENT:a INTEGER:-1 IDENT:a '-' INTEGER:1 IDENT:a INTEGER:-1`},
		// UUIDs, including ones that start like numbers or identifiers.
		{`123e4567-e89b-12d3-a456-426614174000`, `UUID:123e4567-e89b-12d3-a456-426614174000`},
		{`deadbeef-dead-beef-dead-beefdeadbeef`, `UUID:deadbeef-dead-beef-dead-beefdeadbeef`},
		{`DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF`, `UUID:DEADBEEF-DEAD-BEEF-DEAD-BEEFDEADBEEF`},
		{`123e4567-e89b-12d3-a456-42661417400`, `FLOAT:123e4567 '-' IDENT:e89b DURATION:-12d INTEGER:3 '-' IDENT:a456 INTEGER:-42661417400`},
		{`deadbeef`, `IDENT:deadbeef`},
		// Hex blobs.
		{`0x 0xCAFE 0Xff 0x0g`, `HEXNUMBER:0x HEXNUMBER:0xCAFE HEXNUMBER:0Xff HEXNUMBER:0x0 IDENT:g`},
		// Durations.
		{`1h30m 2d 1mo 1y2mo 3us 3µs 10ns 5ms 2w 1s -1h 1MO 1Ms`, `DURATION:1h30m DURATION:2d DURATION:1mo DURATION:1y2mo DURATION:3us DURATION:3µs DURATION:10ns DURATION:5ms DURATION:2w DURATION:1s DURATION:-1h DURATION:1MO DURATION:1Ms`},
		{`1y2`, `DURATION:1y INTEGER:2`},
		{`1h30`, `DURATION:1h INTEGER:30`},
		{`P1DT2H P2W P0001-02-03T04:05:06 PT1H30M P1Y2M3D -P1D PT5S -PT1M P1M`, `DURATION:P1DT2H DURATION:P2W DURATION:P0001-02-03T04:05:06 DURATION:PT1H30M DURATION:P1Y2M3D DURATION:-P1D DURATION:PT5S DURATION:-PT1M DURATION:P1M`},
		// ISO designators are upper-case only; a longer identifier wins.
		{`p1d P1Dx PT P1YT Pa`, `IDENT:p1d IDENT:p1dx IDENT:pt IDENT:p1yt IDENT:pa`},
		{`P1D5`, `IDENT:p1d5`},
		{`-Pa`, `'-' IDENT:pa`},
		// Markers and operators.
		{`? :name : "Q"`, `QMARK ':' IDENT:name ':' QUOTED_NAME:Q`},
		{`= != < <= > >= + - * / % += -= ( ) [ ] { } , ; . :`, `'=' '!=' '<' '<=' '>' '>=' '+' '-' '*' '/' '%' '+=' '-=' '(' ')' '[' ']' '{' '}' ',' ';' '.' ':'`},
		{`a<=b>=c!=d`, `IDENT:a '<=' IDENT:b '>=' IDENT:c '!=' IDENT:d`},
		{`c-=1 c+=1`, `IDENT:c '-=' INTEGER:1 IDENT:c '+=' INTEGER:1`},
		// Comments.
		{"a -- comment\nb // comment\r\nc /* multi\nline */ d", `IDENT:a IDENT:b IDENT:c IDENT:d`},
		{"a -- comment at end", `IDENT:a`},
		{"a /**/ b /***/ c", `IDENT:a IDENT:b IDENT:c`},
		{"a/b", `IDENT:a '/' IDENT:b`},
		{"\t\r\n", ``},
		// Errors.
		{`'abc`, `error: line 1:4 mismatched character '<EOF>' expecting '''`},
		{`"abc`, `error: line 1:4 mismatched character '<EOF>' expecting '"'`},
		{`"""`, `error: line 1:3 mismatched character '<EOF>' expecting '"'`},
		{`$$abc`, `error: line 1:5 mismatched character '<EOF>' expecting '$'`},
		{`/* abc`, `error: line 1:6 mismatched character '<EOF>' expecting '*'`},
		{`a $ b`, `error: line 1:2 no viable alternative at character '$'`},
		{`a ! b`, `error: line 1:3 mismatched character ' ' expecting '='`},
		{`a !`, `error: line 1:3 mismatched character '<EOF>' expecting '='`},
		{"a\n  @", `error: line 2:2 no viable alternative at character '@'`},
		{"é", `error: line 1:0 no viable alternative at character 'é'`},
		{"\xff", "error: line 1:0 no viable alternative at character '\uFFFD'"},
		{"a\x00", `error: line 1:1 no viable alternative at character '` + "\x00" + `'`},
		{"'ok' é", `error: line 1:5 no viable alternative at character 'é'`},
	} {
		if got := lexString(t, tc.in); got != tc.want {
			t.Errorf("lex(%q)\n got: %s\nwant: %s", tc.in, got, tc.want)
		}
	}
}

func TestLexerPositions(t *testing.T) {
	src := "SELECT a,\n  \"Bé\" FROM t"
	toks, err := lex(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		line, col := lineCol(src, tk.pos)
		got = append(got, fmt.Sprintf("%d:%d:%s", line, col, src[tk.pos:tk.end]))
	}
	want := `1:0:SELECT 1:7:a 1:8:, 2:2:"Bé" 2:7:FROM 2:12:t 2:13:`
	if s := strings.Join(got, " "); s != want {
		t.Errorf("positions\n got: %s\nwant: %s", s, want)
	}
}

func TestKeywordClasses(t *testing.T) {
	// Spot checks against Parser.g's keyword lists.
	for _, name := range []string{"key", "type", "ttl", "writetime", "count", "values", "json", "keys",
		"filtering", "distinct", "cast", "as", "options", "text", "timestamp", "date", "time", "exists",
		"contains", "like", "per", "partition", "group", "static", "frozen", "list", "map", "tuple", "vector"} {
		if isReserved(name) {
			t.Errorf("%s should be usable as an identifier", name)
		}
	}
	for _, name := range []string{"select", "from", "where", "and", "set", "table", "keyspace", "token",
		"null", "not", "in", "is", "if", "limit", "order", "by", "asc", "desc", "primary", "with", "using"} {
		if !isReserved(name) {
			t.Errorf("%s should be reserved", name)
		}
	}
	for k := keyword(1); k < numKeywords; k++ {
		if k.isFunctionKeyword() && !k.isUnreserved() {
			t.Errorf("%s: a function keyword must be unreserved", k)
		}
	}
}

func TestAsciiLower(t *testing.T) {
	s := "already_lower"
	if got := asciiLower(s); got != s {
		t.Errorf("asciiLower(%q) = %q", s, got)
	}
	if got := asciiLower("MiXeD_1"); got != "mixed_1" {
		t.Errorf("asciiLower = %q", got)
	}
	if n := testing.AllocsPerRun(10, func() { asciiLower(s) }); n != 0 {
		t.Errorf("asciiLower of a lower-case string allocates %v times", n)
	}
}
