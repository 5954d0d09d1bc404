package types

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{0.01: "0.01", 1: "1.0", 0.1: "0.1", 1e-4: "1.0E-4", 0.5: "0.5", 1e7: "1.0E7",
		123456.5: "123456.5", 0.001: "0.001", 2.5e-5: "2.5E-5", -3: "-3.0", math.Copysign(0, -1): "-0.0",
		math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity"} {
		if got := JavaDouble(f, 64); got != want {
			t.Errorf("JavaDouble(%v) = %s, want %s", f, got, want)
		}
	}
	// Float.toString prints the shortest float32 digits.
	if got := JavaDouble(float64(float32(0.1)), 32); got != "0.1" {
		t.Errorf("JavaDouble(float32 0.1) = %s, want 0.1", got)
	}
}

func TestJavaHostAddress(t *testing.T) {
	for in, want := range map[string]string{
		"\x7f\x00\x00\x01": "127.0.0.1",
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01": "0:0:0:0:0:0:0:1",
		"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x0a\x00\x00\x01": "10.0.0.1",
		"\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\xff\x00\x00\x42\x83\x29": "2001:db8:0:0:0:ff00:42:8329",
	} {
		if got := JavaHostAddress([]byte(in)); got != want {
			t.Errorf("JavaHostAddress(% x) = %s, want %s", in, got, want)
		}
	}
}
