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

// Cassandra 5.0's keyword lists, copied from src/antlr/Parser.g
// (basic_unreserved_keyword, native_type, the extra members of
// unreserved_keyword) and Lexer.g (every other K_ token is reserved, except
// the NaN/Infinity tokens, which the lexer treats as literals).
var (
	cassandra50BasicUnreserved = []string{"KEYS", "AS", "CLUSTER", "CLUSTERING", "COMPACT", "STORAGE",
		"TABLES", "COLUMNFAMILIES", "TYPE", "TYPES", "VALUES", "MAP", "LIST", "FILTERING", "PERMISSION", "PERMISSIONS",
		"KEYSPACES", "ALL", "USER", "USERS", "ROLE", "ROLES", "IDENTITY", "SUPERUSER", "NOSUPERUSER",
		"LOGIN", "NOLOGIN", "OPTIONS", "PASSWORD", "HASHED", "EXISTS", "CUSTOM", "TRIGGER", "CONTAINS",
		"INTERNALS", "ONLY", "STATIC", "FROZEN", "TUPLE", "FUNCTION", "FUNCTIONS", "AGGREGATE",
		"AGGREGATES", "SFUNC", "STYPE", "FINALFUNC", "INITCOND", "RETURNS", "LANGUAGE", "CALLED", "INPUT",
		"LIKE", "PER", "PARTITION", "GROUP", "DATACENTERS", "CIDRS", "ACCESS", "DEFAULT", "MBEAN",
		"MBEANS", "REPLACE", "UNSET", "MASKED", "UNMASK", "SELECT_MASKED", "VECTOR", "ANN"}
	cassandra50NativeTypes = []string{"ASCII", "BIGINT", "BLOB", "BOOLEAN", "COUNTER", "DECIMAL",
		"DOUBLE", "DURATION", "FLOAT", "INET", "INT", "SMALLINT", "TEXT", "TIMESTAMP", "TINYINT", "UUID",
		"VARCHAR", "VARINT", "TIMEUUID", "DATE", "TIME"}
	cassandra50OtherUnreserved = []string{"TTL", "COUNT", "WRITETIME", "MAXWRITETIME", "KEY", "CAST",
		"JSON", "DISTINCT"}
	cassandra50Reserved = []string{"SELECT", "FROM", "WHERE", "AND", "ENTRIES", "FULL", "INSERT",
		"UPDATE", "WITH", "LIMIT", "USING", "USE", "SET", "BEGIN", "UNLOGGED", "BATCH", "APPLY",
		"TRUNCATE", "DELETE", "IN", "CREATE", "SCHEMA", "KEYSPACE", "COLUMNFAMILY", "TABLE",
		"MATERIALIZED", "VIEW", "INDEX", "ON", "TO", "DROP", "PRIMARY", "INTO", "ALTER", "RENAME", "ADD",
		"ORDER", "BY", "ASC", "DESC", "ALLOW", "IF", "IS", "GRANT", "OF", "REVOKE", "MODIFY",
		"AUTHORIZE", "DESCRIBE", "EXECUTE", "NORECURSIVE", "TOKEN", "NULL", "NOT", "OR"}
)

// TestKeywordClasses checks the keyword table against Cassandra 5.0's
// lists exactly: every keyword is in one list, with the same class.
func TestKeywordClasses(t *testing.T) {
	want := map[string]uint8{}
	for _, n := range cassandra50BasicUnreserved {
		want[n] |= kwBasic
	}
	for _, n := range cassandra50NativeTypes {
		want[n] |= kwNative
	}
	for _, n := range cassandra50OtherUnreserved {
		want[n] |= kwUnreserved
	}
	for _, n := range cassandra50Reserved {
		if _, dup := want[n]; dup {
			t.Fatalf("%s listed twice", n)
		}
		want[n] = 0
	}
	seen := map[string]bool{}
	for spelling, k := range keywords {
		name := strings.ToUpper(spelling)
		seen[name] = true
		class, ok := want[name]
		if !ok {
			t.Errorf("%q is a keyword here but not in Cassandra 5.0", spelling)
			continue
		}
		if got := keywordInfos[k].class; got != class {
			t.Errorf("%s: class %b, Cassandra 5.0 has %b", name, got, class)
		}
		if isReserved(spelling) != (class == 0) {
			t.Errorf("%s: isReserved = %v", name, isReserved(spelling))
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("Cassandra 5.0 keyword %s is missing", name)
		}
	}
	for k := keyword(1); k < numKeywords; k++ {
		if k.isFunctionKeyword() && !k.isUnreserved() {
			t.Errorf("%s: a function keyword must be unreserved", k)
		}
	}
	// Post-5.0 keywords are plain identifiers.
	for _, name := range []string{"superusers", "generated", "between", "check", "indexes", "expr"} {
		if _, ok := keywords[name]; ok {
			t.Errorf("%s must not be a keyword in Cassandra 5.0", name)
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

// TestKeywordsAsNames uses every Cassandra 5.0 keyword as a column name in
// CREATE TABLE and SELECT: unreserved ones parse, reserved ones are syntax
// errors.
func TestKeywordsAsNames(t *testing.T) {
	var unreserved []string
	unreserved = append(unreserved, cassandra50BasicUnreserved...)
	unreserved = append(unreserved, cassandra50NativeTypes...)
	unreserved = append(unreserved, cassandra50OtherUnreserved...)
	for _, kw := range unreserved {
		for _, q := range []string{
			"CREATE TABLE t (" + kw + " int PRIMARY KEY, v int)",
			"SELECT " + kw + " FROM t WHERE " + kw + " = 1",
			"SELECT " + strings.ToLower(kw) + ", x FROM " + kw + "." + kw,
		} {
			if _, err := Parse(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	}
	for _, kw := range cassandra50Reserved {
		for _, q := range []string{
			"CREATE TABLE t (" + kw + " int PRIMARY KEY, v int)",
			"SELECT x FROM t WHERE " + kw + " = 1",
		} {
			if _, err := Parse(q); err == nil {
				t.Errorf("%s: parsed, but %s is reserved", q, kw)
			}
		}
		if _, err := Parse(`CREATE TABLE t ("` + kw + `" int PRIMARY KEY)`); err != nil {
			t.Errorf("quoted %s: %v", kw, err)
		}
	}
}
