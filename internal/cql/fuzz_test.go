package cql

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
)

// FuzzParse checks that Parse never panics, that every failure is a
// *cqlerr.Error with a "line L:C" SyntaxError message (or an Invalid error
// for the checks Cassandra makes while parsing), and that Format of a parsed
// statement parses back to the same statement.
//
//	go test -run XXX -fuzz FuzzParse -fuzztime 60s ./internal/cql/
func FuzzParse(f *testing.F) {
	for _, in := range corpusFromTestdata(f) {
		f.Add(in)
	}
	for _, in := range []string{
		"", ";", "SELECT", "(((((", "[[[[", "{{{{", "SELECT * FROM t WHERE a = -", "a-1", "'", `"`, "$$",
		"SELECT (int)(int)(int) ? FROM t", "UPDATE t SET l = [1] + l WHERE k = 0",
		"SELECT JSON DISTINCT json FROM t", "SELECT m[1..2] FROM t", "P0001-02-03T04:05:06",
	} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Turn a hang (runaway backtracking) into a crash that the fuzzer
		// records, instead of a silent stall.
		hang := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("parser hangs on %q", src)) })
		defer hang.Stop()
		st, err := Parse(src)
		checkErr(t, src, err)
		if err == nil {
			checkFormatFixedPoint(t, src, st)
		}
		sts, err := ParseStatements(src)
		checkErr(t, src, err)
		for _, st := range sts {
			checkFormatFixedPoint(t, src, st)
		}
		typ, err := ParseType(src)
		checkErr(t, src, err)
		if err == nil {
			if back, err := ParseType(typ.String()); err != nil || back.String() != typ.String() {
				t.Fatalf("ParseType(%q).String() = %q does not parse back: %v", src, typ.String(), err)
			}
		}
	})
}

func checkErr(t *testing.T, src string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *cqlerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error is not a *cqlerr.Error: %v", src, err)
	}
	switch e.Code {
	case cqlerr.SyntaxError, cqlerr.Invalid:
		// The grammar's errors carry a position; the errors of parser
		// actions (addRecognitionError) a bare message.
		if e.Message == "" {
			t.Fatalf("%q: error without a message", src)
		}
		for _, grammar := range []string{"mismatched input", "no viable alternative", "missing ", "extraneous input"} {
			if strings.HasPrefix(e.Message, grammar) {
				t.Fatalf("%q: grammar error without position: %s", src, e.Message)
			}
		}
	default:
		t.Fatalf("%q: unexpected error code %v: %s", src, e.Code, e.Message)
	}
}

// checkFormatFixedPoint checks that Format(st) parses, to a statement that
// formats the same and has the same number of bind markers.
func checkFormatFixedPoint(t *testing.T, src string, st Statement) {
	t.Helper()
	text := Format(st)
	back, err := Parse(text)
	if err != nil {
		t.Fatalf("Format(Parse(%q)) = %q does not parse: %v", src, text, err)
	}
	if again := Format(back); again != text {
		t.Fatalf("Format is not a fixed point for %q:\n%s\n%s", src, text, again)
	}
	if !equalIgnoringMarkerIndexes(st, back) {
		t.Fatalf("Format(Parse(%q)) = %q parses differently:\n%s\nvs\n%s", src, text, dumpStatement(st), dumpStatement(back))
	}
	if a, b := BindMarkerCount(st), BindMarkerCount(back); a != b {
		t.Fatalf("%q: %d markers, %d after formatting", src, a, b)
	}
}

// corpusFromTestdata returns the inputs of the golden tests.
func corpusFromTestdata(tb testing.TB) []string {
	var out []string
	for _, file := range goldenFiles(tb) {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		// Each test is "cmd\n<input>\n----\n<output>"; take the inputs.
		for _, block := range strings.Split(string(data), "\n----\n") {
			lines := strings.Split(block, "\n")
			for i, l := range lines {
				if l == "parse" || l == "parse-script" || l == "format" || l == "type" {
					out = append(out, strings.Join(lines[i+1:], "\n"))
					break
				}
			}
		}
	}
	return out
}

func TestParseNeverPanicsOnPrefixes(t *testing.T) {
	// Every prefix of every golden input must parse or fail cleanly.
	for _, in := range corpusFromTestdata(t) {
		for i := 0; i <= len(in); i++ {
			_, err := Parse(in[:i])
			checkErr(t, in[:i], err)
			_, err = ParseStatements(in[:i])
			checkErr(t, in[:i], err)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	for _, in := range []string{
		"SELECT * FROM t WHERE a = " + strings.Repeat("(", 100000),
		"SELECT * FROM t WHERE a = " + strings.Repeat("[", 100000),
		"SELECT * FROM t WHERE a = " + strings.Repeat("{", 100000),
		"SELECT " + strings.Repeat("- ", 100000) + "a FROM t",
		"SELECT " + strings.Repeat("(", 100000) + "a FROM t",
		"SELECT * FROM t WHERE " + strings.Repeat("(", 100000),
		"CREATE TABLE t (k " + strings.Repeat("frozen<", 100000),
		"SELECT * FROM t WHERE a = " + strings.Repeat("(int)", 100000) + "1",
		"SELECT " + strings.Repeat("f(", 100000) + " FROM t",
		"SELECT * FROM t WHERE a = " + strings.Repeat("- ", 100000) + "1",
	} {
		_, err := Parse(in)
		checkErr(t, in[:40], err)
		if err == nil {
			t.Errorf("%.40s...: expected an error", in)
		}
	}
	// Reasonable nesting is fine.
	in := "SELECT * FROM t WHERE a = " + strings.Repeat("[", 50) + strings.Repeat("]", 50)
	if _, err := Parse(in); err != nil {
		t.Errorf("50 nested lists: %v", err)
	}
}
