package types

import (
	"fmt"
	"testing"
	"time"
)

// allTypes covers every kind, for the no-panic fuzz targets.
var allTypes = append(append([]*Type{}, keyTypes...),
	CounterType, DurationType, EmptyType,
	ListOf(DurationType, false), MapOf(IntType, ListOf(TextType, true), false),
	&Type{Kind: UDT, Name: "u", Params: []*Type{IntType, TextType}, FieldNames: []string{"a", "b"}, Frozen: true},
	&Type{Kind: Vector, Params: []*Type{TextType}, Dimension: 3},
	&Type{Kind: Custom, Class: "x.Y"},
)

// FuzzValues feeds arbitrary bytes to every decoder-like function: none may
// panic, and whatever Validate accepts must format, compare, normalize and
// (for key types) key-encode.
func FuzzValues(f *testing.F) {
	f.Add(uint8(0), []byte("abc"))
	f.Add(uint8(18), []byte{0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1})
	f.Add(uint8(25), []byte{0x02, 0x04, 0x06})
	f.Fuzz(func(t *testing.T, ti uint8, v []byte) {
		typ := allTypes[int(ti)%len(allTypes)]
		wd := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("slow: %s %x", typ, v)) })
		defer wd.Stop()
		err := Validate(typ, v)
		_ = Format(typ, v)
		_ = FormatCQL(typ, v)
		_ = ToJSON(typ, v)
		_ = Compare(typ, v, v)
		_, _ = DecodeCollection(v)
		_, _ = DecodeTuple(v)
		_, _, _ = DecodeMap(v)
		_, _, _, _ = DecodeDuration(v)
		_, _, _ = DecodeDecimal(v)
		if err != nil {
			return
		}
		if Compare(typ, v, v) != 0 {
			t.Fatalf("Compare(%s, v, v) != 0 for %x", typ, v)
		}
		n, err := Normalize(typ, v)
		if err != nil {
			t.Fatalf("Normalize(%s, %x): %v", typ, v, err)
		}
		if Compare(typ, n, n) != 0 || Validate(typ, n) != nil {
			t.Fatalf("Normalize(%s, %x) = %x", typ, v, n)
		}
		if CheckKeyType(typ) == nil {
			k := AppendKey(nil, typ, n, false)
			d, rest, err := DecodeKey(typ, k, false)
			if err != nil || len(rest) != 0 || Compare(typ, d, n) != 0 {
				t.Fatalf("key round trip %s %x -> %x -> %x, %v", typ, n, k, d, err)
			}
		}
	})
}

// FuzzLiterals checks that literal parsing never panics and that what it
// returns is valid and survives FormatCQL.
func FuzzLiterals(f *testing.F) {
	for _, s := range []string{"2024-01-15 10:30:00+0200", "1h30m", "P1Y", "1.5e3", "-0", "::1", "10:30:00.1", "2147483648"} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, ti uint8, s string) {
		typ := allTypes[int(ti)%len(allTypes)]
		for _, fn := range []func(*Type, string) ([]byte, error){FromString, FromNumber, FromUUID, FromHex, FromDuration, ParseString} {
			v, err := fn(typ, s)
			if err != nil {
				_ = WithColumn(err, "c")
				continue
			}
			if err := Validate(typ, v); err != nil {
				t.Fatalf("%s literal %q gave invalid %x: %v", typ, s, v, err)
			}
			_ = FormatCQL(typ, v)
		}
	})
}

func FuzzParseTypeString(f *testing.F) {
	f.Add("frozen<map<text, list<frozen<tuple<int, vector<float, 3>>>>>>")
	f.Add("'a.b.C'")
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseTypeString(s)
		if err != nil {
			return
		}
		back, err := ParseTypeString(typ.String())
		if err != nil || !back.Equal(typ) {
			t.Fatalf("%q -> %q -> %v, %v", s, typ.String(), back, err)
		}
	})
}

// FuzzJSON feeds arbitrary text to the JSON decoder (fromJson, INSERT
// JSON) and the result to FromJSON for every type: no panic, and whatever
// FromJSON accepts is a valid value.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, "x"]}`, `"2024-01-15 10:30:00Z"`, `[null, true, {"k": -0.0}]`, `1e400`, `"\ud800"`} {
		f.Add(uint8(0), s)
	}
	f.Fuzz(func(t *testing.T, ti uint8, s string) {
		typ := allTypes[int(ti)%len(allTypes)]
		v, err := DecodeJSON([]byte(s))
		if err != nil {
			return
		}
		b, err := FromJSON(typ, v)
		if err != nil || b == nil {
			return
		}
		if err := Validate(typ, b); err != nil {
			t.Fatalf("FromJSON(%s, %s) gave invalid %x: %v", typ, s, b, err)
		}
	})
}
