package types

import (
	"bytes"
	"testing"
)

func benchValues() map[string]struct {
	t    *Type
	a, b []byte
} {
	u1, _ := ParseString(TimeuuidType, "d2177dd0-eaa2-11de-a572-001b779c76e3")
	u2, _ := ParseString(TimeuuidType, "d2177dd1-eaa2-11de-a572-001b779c76e3")
	return map[string]struct {
		t    *Type
		a, b []byte
	}{
		"int":      {IntType, EncodeInt(12345), EncodeInt(-12345)},
		"text":     {TextType, EncodeText("user:alice@example.com"), EncodeText("user:bob@example.com")},
		"timeuuid": {TimeuuidType, u1, u2},
		"uuid":     {UUIDType, u1, u2},
	}
}

func BenchmarkAppendKey(b *testing.B) {
	for name, c := range benchValues() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 64)
			for i := 0; i < b.N; i++ {
				buf = AppendKey(buf[:0], c.t, c.a, false)
			}
		})
	}
}

func BenchmarkDecodeKey(b *testing.B) {
	for name, c := range benchValues() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			k := AppendKey(nil, c.t, c.a, true)
			for i := 0; i < b.N; i++ {
				if _, _, err := DecodeKey(c.t, k, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompare(b *testing.B) {
	for name, c := range benchValues() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Compare(c.t, c.a, c.b)
			}
		})
	}
}

// BenchmarkCompareKeyBytes is the baseline that AppendKey buys: comparing
// encoded keys with bytes.Compare.
func BenchmarkCompareKeyBytes(b *testing.B) {
	for name, c := range benchValues() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			ka, kb := AppendKey(nil, c.t, c.a, false), AppendKey(nil, c.t, c.b, false)
			for i := 0; i < b.N; i++ {
				bytes.Compare(ka, kb)
			}
		})
	}
}
