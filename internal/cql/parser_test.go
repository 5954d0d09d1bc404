package cql

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cqld/cqld/internal/cqlerr"
)

// TestParse runs the golden files in testdata/. Commands:
//
//	parse        parse the input as one statement and dump the AST (or the error)
//	parse-script parse the input with ParseStatements
//	type         parse the input with ParseType
//	format       parse, then print Format of the statement
//
// Regenerate with: go test ./internal/cql/ -run TestParse -rewrite
func TestParse(t *testing.T) {
	for _, path := range goldenFiles(t) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				st, err := Parse(d.Input)
				if err != nil {
					return errString(err)
				}
				checkRoundTrip(t, d.Input, st)
				out := dumpStatement(st)
				if n := BindMarkerCount(st); n > 0 {
					out += fmt.Sprintf("markers: %d\n", n)
				}
				return out
			case "parse-script":
				sts, err := ParseStatements(d.Input)
				if err != nil {
					return errString(err)
				}
				var b strings.Builder
				for _, st := range sts {
					checkRoundTrip(t, d.Input, st)
					b.WriteString(dumpStatement(st))
				}
				return b.String()
			case "type":
				var b strings.Builder
				for _, line := range strings.Split(d.Input, "\n") {
					typ, err := ParseType(line)
					if err != nil {
						fmt.Fprintf(&b, "%s -> %s", line, errString(err))
						continue
					}
					back, err := ParseType(typ.String())
					if err != nil || !reflect.DeepEqual(back, typ) {
						t.Errorf("%s: String() %q does not parse back: %v", d.Pos, typ.String(), err)
					}
					fmt.Fprintf(&b, "%s -> %s %s\n", line, typ.String(), dumpType(typ))
				}
				return b.String()
			case "format":
				st, err := Parse(d.Input)
				if err != nil {
					return errString(err)
				}
				checkRoundTrip(t, d.Input, st)
				return Format(st) + "\n"
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	}
}

// goldenFiles lists the datadriven files: the regular files directly in
// testdata/ (testdata/fuzz holds the fuzzer's corpus).
func goldenFiles(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, filepath.Join("testdata", e.Name()))
		}
	}
	return files
}

func errString(err error) string {
	var e *cqlerr.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("error (not a *cqlerr.Error): %v\n", err)
	}
	return fmt.Sprintf("error: %s: %s\n", e.Code, e.Message)
}

// checkRoundTrip checks that Format(st) parses back to the same statement.
func checkRoundTrip(t *testing.T, input string, st Statement) {
	t.Helper()
	text := Format(st)
	back, err := Parse(text)
	if err != nil {
		t.Errorf("Format of %q = %q does not parse: %v", input, text, err)
		return
	}
	if !equalIgnoringMarkerIndexes(st, back) {
		t.Errorf("Format of %q = %q parses differently:\n%s\nvs\n%s", input, text, dumpStatement(st), dumpStatement(back))
	}
}

// equalIgnoringMarkerIndexes compares statements by their formatted dumps
// with marker indexes removed (Format writes USING TTL before TIMESTAMP,
// which can renumber markers).
func equalIgnoringMarkerIndexes(a, b Statement) bool {
	strip := func(s string) string {
		var out strings.Builder
		for i := 0; i < len(s); i++ {
			out.WriteByte(s[i])
			if s[i] == '?' {
				for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
					i++
				}
			}
		}
		return out.String()
	}
	return strip(dumpStatement(a)) == strip(dumpStatement(b))
}

// ---------------------------------------------------------------------------
// AST dump

// dumpStatement prints a statement with one field per line; nested values
// are printed inline by dumpValue. Zero-valued fields are omitted.
func dumpStatement(st Statement) string {
	var b strings.Builder
	dumpStatementTo(&b, st, "")
	return b.String()
}

func dumpStatementTo(b *strings.Builder, st Statement, indent string) {
	v := reflect.ValueOf(st).Elem()
	fmt.Fprintf(b, "%s%s\n", indent, v.Type().Name())
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if f.Kind() == reflect.Slice && f.Len() > 0 && isComposite(f.Index(0)) {
			fmt.Fprintf(b, "%s  %s:\n", indent, name)
			for j := 0; j < f.Len(); j++ {
				if inner, ok := f.Index(j).Interface().(Statement); ok {
					dumpStatementTo(b, inner, indent+"    ")
					continue
				}
				fmt.Fprintf(b, "%s    - %s\n", indent, dumpValue(f.Index(j)))
			}
			continue
		}
		fmt.Fprintf(b, "%s  %s: %s\n", indent, name, dumpValue(f))
	}
}

func isComposite(v reflect.Value) bool {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	return v.Kind() == reflect.Struct
}

var (
	literalType       = reflect.TypeOf(Literal{})
	bindMarkerType    = reflect.TypeOf(BindMarker{})
	qualifiedNameType = reflect.TypeOf(QualifiedName{})
	typeExprType      = reflect.TypeOf(TypeExpr{})
	operatorType      = reflect.TypeOf(Operator(0))
	selectorType      = reflect.TypeOf(Selector{})
)

var dumpLiteralKinds = map[LiteralKind]string{
	LitString: "str", LitInteger: "int", LitFloat: "float", LitBool: "bool",
	LitUUID: "uuid", LitHex: "hex", LitDuration: "dur", LitNull: "null",
}

// dumpValue prints a value inline: structs as Name{Field: value, ...}
// without zero fields, with compact forms for literals (int:1, str:"x"),
// markers (?0, ?1:name), names (ks.t), types (frozen<list<int>>) and
// operators.
func dumpValue(v reflect.Value) string {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "nil"
		}
		v = v.Elem()
	}
	switch v.Type() {
	case literalType:
		l := v.Interface().(Literal)
		if l.Kind == LitNull {
			return "null"
		}
		if l.Kind == LitString {
			return fmt.Sprintf("str:%q", l.Text)
		}
		return dumpLiteralKinds[l.Kind] + ":" + l.Text
	case bindMarkerType:
		m := v.Interface().(BindMarker)
		if m.Name != "" {
			return fmt.Sprintf("?%d:%s", m.Index, m.Name)
		}
		return fmt.Sprintf("?%d", m.Index)
	case qualifiedNameType:
		return v.Interface().(QualifiedName).String()
	case typeExprType:
		return v.Interface().(TypeExpr).String()
	case operatorType:
		return v.Interface().(Operator).String()
	case selectorType:
		sel := v.Interface().(Selector)
		out := dumpValue(reflect.ValueOf(sel.Expr))
		if sel.Alias != "" {
			out += fmt.Sprintf(" AS %q", sel.Alias)
		}
		return out
	}
	switch v.Kind() {
	case reflect.Struct:
		var parts []string
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.IsZero() {
				continue
			}
			parts = append(parts, v.Type().Field(i).Name+": "+dumpValue(f))
		}
		return v.Type().Name() + "{" + strings.Join(parts, ", ") + "}"
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = dumpValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	case reflect.Uint8:
		if v.Type() == reflect.TypeOf(byte(0)) {
			return fmt.Sprintf("%q", rune(v.Uint()))
		}
	}
	return fmt.Sprint(v.Interface())
}

// dumpType prints the structure of a type expression.
func dumpType(t TypeExpr) string {
	var parts []string
	if t.Keyspace != "" {
		parts = append(parts, fmt.Sprintf("Keyspace: %q", t.Keyspace))
	}
	if t.Name != "" {
		parts = append(parts, fmt.Sprintf("Name: %q", t.Name))
	}
	if len(t.Params) > 0 {
		ps := make([]string, len(t.Params))
		for i, p := range t.Params {
			ps[i] = dumpType(p)
		}
		parts = append(parts, "Params: ["+strings.Join(ps, ", ")+"]")
	}
	if t.Dimension != 0 {
		parts = append(parts, fmt.Sprintf("Dimension: %d", t.Dimension))
	}
	if t.Custom != "" {
		parts = append(parts, fmt.Sprintf("Custom: %q", t.Custom))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
