package shell

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/types"
)

var update = flag.Bool("update", false, "rewrite golden files")

func mustType(t *testing.T, s string) *types.Type {
	t.Helper()
	typ, err := types.ParseTypeStringWith(s, func(name string) (*types.Type, error) {
		return &types.Type{Kind: types.UDT, Name: name, FieldNames: []string{"city", "zip", "Note"},
			Params: []*types.Type{types.TextType, types.IntType, types.TextType}}, nil
	})
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return typ
}

func mustValue(t *testing.T, typ *types.Type, s string) []byte {
	t.Helper()
	v, err := parseCSVValue(typ, s)
	if err != nil {
		t.Fatalf("%s %q: %v", typ, s, err)
	}
	return v
}

// TestFormatValue checks every CQL type against cqlsh's rendering
// (formatting.py with cqlsh's defaults; cases from cqlsh's own
// test_cqlsh_output.py where it has them).
func TestFormatValue(t *testing.T) {
	o := DefaultFormat()
	for _, c := range []struct{ typ, in, want string }{
		{"ascii", "abc", "abc"},
		{"text", "it's", "it's"},
		{"text", "newline:\n", `newline:\n`},
		{"text", "return\rand null\x00!", `return\rand null\x00!`},
		{"text", `back\slash`, `back\\slash`},
		{"text", "tab\there\x7f", `tab\there\x7f`},
		{"text", "ⓈⓅⒺ", "ⓈⓅⒺ"},
		{"bigint", "-9223372036854775808", "-9223372036854775808"},
		{"int", "2147483647", "2147483647"},
		{"smallint", "-12", "-12"},
		{"tinyint", "7", "7"},
		{"counter", "42", "42"},
		{"varint", "-10000000000000000000000000", "-10000000000000000000000000"},
		{"decimal", "19952.11882", "19952.11882"},
		{"decimal", "1E-14", "1E-14"},
		{"decimal", "0.0", "0.0"},
		{"decimal", "10.0000000000000", "10.0000000000000"},
		{"decimal", "1.50", "1.50"},
		{"decimal", "1E+10", "1E+10"},
		{"decimal", "0.000001", "0.000001"},
		{"decimal", "0.0000001", "1E-7"},
		{"double", "1", "1"},
		{"double", "1e7", "1e+07"},
		{"double", "0", "0"},
		{"double", "-1004.1", "-1004.1"},
		{"double", "3.14159265", "3.14159"},
		{"double", "-0.0001", "-0.0001"},
		{"double", "0.00001234", "1.2e-05"},
		{"double", "123456.789", "1.2346e+05"},
		{"double", "12345.678", "12345.678"},
		{"double", "NaN", "NaN"},
		{"double", "Infinity", "Infinity"},
		{"double", "-Infinity", "-Infinity"},
		{"float", "-2.1", "-2.1"},
		{"float", "1e5", "1e+05"},
		{"float", "1e8", "1e+08"},
		{"float", "1.1", "1.1"},
		{"boolean", "true", "True"},
		{"boolean", "false", "False"},
		{"blob", "0x000102030405fffefd", "0x000102030405fffefd"},
		{"blob", "0x", "0x"},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000"},
		{"timeuuid", "50554d6e-29bb-11e5-b345-feff819cdc9f", "50554d6e-29bb-11e5-b345-feff819cdc9f"},
		{"inet", "127.0.0.1", "127.0.0.1"},
		{"inet", "::1", "::1"},
		{"timestamp", "2012-05-14 12:53:20+0000", "2012-05-14 12:53:20.000000+0000"},
		{"timestamp", "2024-01-15 10:30:00.123Z", "2024-01-15 10:30:00.123000+0000"},
		{"date", "2024-01-15", "2024-01-15"},
		{"time", "10:30:00.123456789", "10:30:00.123456789"},
		{"duration", "12h", "12h"},
		{"duration", "12h30m30s250ms", "12h30m30s250ms"},
		{"duration", "1y2mo3d4h5m6s7ms8us9ns", "1y2mo3d4h5m6s7ms8us9ns"},
		{"duration", "-3d", "-3d"},
		{"list<int>", "[1, 2, 3]", "[1, 2, 3]"},
		{"list<text>", "['I''m newb']", "['I''m newb']"},
		{"set<text>", "{'b', 'a'}", "{'a', 'b'}"},
		{"map<int, text>", "{1: 'I''m newb'}", "{1: 'I''m newb'}"},
		{"map<text, int>", "{'x': 1, 'a': 2}", "{'a': 2, 'x': 1}"},
		{"map<text, frozen<list<double>>>", "{'k': [1.5, 1e10]}", "{'k': [1.5, 1e+10]}"},
		{"set<timestamp>", "{'2024-01-15 10:30:00+0000'}", "{'2024-01-15 10:30:00.000000+0000'}"},
		{"list<date>", "['2024-01-15']", "[2024-01-15]"},
		{"list<inet>", "['10.0.0.1']", "['10.0.0.1']"},
		{"list<boolean>", "[true, false]", "[True, False]"},
		{"frozen<tuple<int, text>>", "(1, 'I''m newb')", "(1, 'I''m newb')"},
		{"frozen<tuple<int, text>>", "(1, null)", "(1, null)"},
		{"frozen<addr>", "{city: 'Paris', zip: 75001, Note: null}", "{city: 'Paris', zip: 75001, Note: null}"},
		{"vector<float, 3>", "[1, -2, NaN]", "[1, -2, NaN]"},
		{"vector<float, 3>", "[1e8, 1e8, 1e8]", "[1e+08, 1e+08, 1e+08]"},
		{"vector<text, 2>", "['a', 'b']", "['a', 'b']"},
	} {
		typ := mustType(t, c.typ)
		got := FormatValue(typ, mustValue(t, typ, c.in), o)
		if got != c.want {
			t.Errorf("%s %q: got %q, want %q", c.typ, c.in, got, c.want)
		}
	}
	// null and the empty value.
	if got := FormatValue(types.IntType, nil, o); got != "null" {
		t.Errorf("null: %q", got)
	}
	if got := FormatValue(types.IntType, []byte{}, o); got != "" {
		t.Errorf("empty int: %q", got)
	}
	if got := FormatValue(types.TextType, []byte{}, o); got != "" {
		t.Errorf("empty text: %q", got)
	}
	// TZ is honoured like cqlsh does with zoneinfo.
	if loc, err := time.LoadLocation("America/Sao_Paulo"); err == nil {
		o2 := o
		o2.Location = loc
		v := mustValue(t, types.TimestampType, "2012-05-14 12:53:20+0000")
		if got := FormatValue(types.TimestampType, v, o2); got != "2012-05-14 09:53:20.000000-0300" {
			t.Errorf("Sao Paulo: %q", got)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {100000, "1e+05"}, {99999, "99999"}, {0.5, "0.5"},
		{1.0 / 3, "0.333333"}, {-0.00012345678, "-0.000123"}, {1e-5, "1e-05"},
		{123.456789, "123.45679"}, {math.MaxFloat64, "1.7977e+308"},
	} {
		if got := FormatFloat(c.f, 5); got != c.want {
			t.Errorf("%v: got %q want %q", c.f, got, c.want)
		}
	}
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// allTypesRows is a row of every type, and a row of nulls.
func allTypesRows(t *testing.T) ([]cell, [][]cell) {
	cols := []struct{ name, typ, val string }{
		{"id", "int", "1"}, {"a", "ascii", "asc"}, {"b", "bigint", "123456789012"},
		{"bl", "blob", "0xcafe"}, {"bo", "boolean", "true"}, {"d", "decimal", "1.50"},
		{"db", "double", "3.14159265"}, {"du", "duration", "1h30m"}, {"f", "float", "1.1"},
		{"i", "inet", "127.0.0.1"}, {"s", "smallint", "12"}, {"t", "text", "it's; here"},
		{"ts", "timestamp", "2024-01-15 10:30:00+0000"}, {"ti", "tinyint", "7"},
		{"u", "uuid", "123e4567-e89b-12d3-a456-426614174000"},
		{"tu", "timeuuid", "50554d6e-29bb-11e5-b345-feff819cdc9f"},
		{"v", "varint", "123456789012345678901234567890"}, {"dt", "date", "2024-01-15"},
		{"tm", "time", "10:30:00.123"}, {"l", "list<int>", "[1, 2, 3]"},
		{"st", "set<text>", "{'b', 'a'}"}, {"m", "map<text, int>", "{'x': 1, 'a': 2}"},
		{"tup", "frozen<tuple<int, text>>", "(1, 'o''k')"},
		{"ad", "frozen<addr>", "{city: 'Paris', zip: 75001}"},
		{"vec", "vector<float, 3>", "[1.5, 2, 100000]"}, {"wide", "text", "double wides: ⾑⾤⾚"},
	}
	o := DefaultFormat()
	var names []cell
	var row, nulls []cell
	for _, c := range cols {
		typ := mustType(t, c.typ)
		names = append(names, newCell(c.name))
		row = append(row, newCell(FormatValue(typ, mustValue(t, typ, c.val), o)))
		nulls = append(nulls, newCell(FormatValue(typ, nil, o)))
	}
	return names, [][]cell{row, nulls}
}

func TestTableGolden(t *testing.T) {
	names, rows := allTypesRows(t)
	var b bytes.Buffer
	writeTable(&b, names, rows, true, false)
	b.WriteString("== tty, second page without header ==\n")
	writeTable(&b, names, rows[:1], true, true)
	writeTable(&b, names, rows[1:], false, true)
	b.WriteString("== empty result ==\n")
	writeTable(&b, names[:3], nil, true, false)
	checkGolden(t, "table_all_types.golden", b.String())
}

func TestExpandGolden(t *testing.T) {
	names, rows := allTypesRows(t)
	var b bytes.Buffer
	writeVertical(&b, names, rows, 0)
	b.WriteString("== second page continues the numbering ==\n")
	writeVertical(&b, names[:2], [][]cell{rows[0][:2]}, 2)
	checkGolden(t, "expand_all_types.golden", b.String())
}

func TestColumnize(t *testing.T) {
	var b strings.Builder
	columnize(&b, []string{"ks", "system", "system_auth", "system_distributed", "system_schema", "system_traces", "system_views", "system_virtual_schema"}, 80)
	want := "ks      system_auth         system_schema  system_views         \n" +
		"system  system_distributed  system_traces  system_virtual_schema\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

func TestServerErrorText(t *testing.T) {
	for _, c := range []struct {
		code      int
		msg, want string
	}{
		{0x2200, "unconfigured table nope", `InvalidRequest: Error from server: code=2200 [Invalid query] message="unconfigured table nope"`},
		{0x2000, "line 1:0 no viable alternative at input 'selec'", `SyntaxException: line 1:0 no viable alternative at input 'selec'`},
		{0x2100, "User x has no SELECT permission", `Unauthorized: Error from server: code=2100 [Unauthorized] message="User x has no SELECT permission"`},
		{0x2300, "bad config", "ConfigurationException: bad config"},
	} {
		if got := FormatServerError(c.code, c.msg, ""); got != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
}

func TestFormatColor(t *testing.T) {
	o := DefaultFormat()
	o.Color = true
	typ := mustType(t, "map<text, int>")
	got := FormatValue(typ, mustValue(t, typ, "{'a': 1}"), o)
	want := ansiBlue + "{" + ansiReset + ansiYellow + "'a'" + ansiReset + ansiBlue + ": " + ansiReset +
		ansiGreen + "1" + ansiReset + ansiBlue + "}" + ansiReset
	if got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if got := FormatValue(types.IntType, nil, o); got != ansiRed+"null"+ansiReset {
		t.Errorf("null: %q", got)
	}
}
