package types

import (
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
)

func TestFromJSON(t *testing.T) {
	for _, tc := range []struct {
		typ  *Type
		doc  string
		want string // Format of the value, or the error message
		err  bool
	}{
		{IntType, `1`, "1", false},
		{IntType, `"2"`, "2", false},
		{IntType, `1.5`, "Expected an int value, but got a Double: 1.5", true},
		{IntType, `3000000000`, "Expected an int value, but got a Long: 3000000000", true},
		{BigintType, `3000000000`, "3000000000", false},
		{BigintType, `9223372036854775808`, "Expected a bigint value, but got a BigInteger: 9223372036854775808", true},
		{TextType, `"x"`, "x", false},
		{TextType, `[1, "a"]`, "Expected a UTF-8 string, but got a ArrayList: [1, a]", true},
		{BooleanType, `"TRUE"`, "True", false},
		{TimestampType, `0`, "1970-01-01 00:00:00.000000+0000", false},
		{DoubleType, `1e3`, "1000", false},
		{DecimalType, `1e3`, "1000.0", false},
		{ListOf(IntType, false), `"[1, 2]"`, "[1, 2]", false},
		{ListOf(IntType, false), `{"a": 1}`, "Expected a list, but got a LinkedHashMap: {a=1}", true},
		{MapOf(IntType, TextType, false), `{"1": "a", "2": "b"}`, "{1: 'a', 2: 'b'}", false},
		{TupleOf(IntType, TextType), `[1, null]`, "(1, null)", false},
		{BlobType, `"0xff"`, "0xff", false},
	} {
		v, err := DecodeJSON([]byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: decode: %v", tc.doc, err)
		}
		b, err := FromJSON(tc.typ, v)
		if tc.err {
			if err == nil || cqlerr.As(err).Message != tc.want {
				t.Errorf("%s as %s: error %v, want %q", tc.doc, tc.typ, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s as %s: %v", tc.doc, tc.typ, err)
			continue
		}
		if got := Format(tc.typ, b); got != tc.want {
			t.Errorf("%s as %s = %s, want %s", tc.doc, tc.typ, got, tc.want)
		}
	}
}

func TestDecodeJSONKeepsKeyOrder(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"b": 1, "A": 2, "\"C\"": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	o := HandleCaseSensitivity(v.(*JSONObject))
	if len(o.Keys) != 3 || o.Keys[0] != "b" || o.Keys[1] != "a" || o.Keys[2] != "C" {
		t.Fatalf("keys %q", o.Keys)
	}
	for _, bad := range []string{``, `{`, `[1,`, `{"a": 1} x`} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}
