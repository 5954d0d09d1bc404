package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// keyTypes are the types exercised by the key-encoding property tests.
var keyTypes = []*Type{
	AsciiType, BigintType, BlobType, BooleanType, DateType, DecimalType, DoubleType, FloatType,
	InetType, IntType, SmallintType, TextType, TimeType, TimestampType, TimeuuidType, TinyintType,
	UUIDType, VarintType,
	ListOf(IntType, true), SetOf(TextType, true), MapOf(TextType, BigintType, true),
	TupleOf(IntType, TextType, DoubleType), ListOf(TupleOf(UUIDType, BlobType), true),
	{Kind: Vector, Params: []*Type{FloatType}, Dimension: 2},
}

// genValue returns a random valid serialized value of t, biased towards
// edge cases.
func genValue(r *rand.Rand, t *Type, depth int) []byte {
	if r.Intn(20) == 0 && t.Kind != Smallint && t.Kind != Tinyint && t.Kind != Date && t.Kind != Time && t.Kind != Vector {
		return []byte{}
	}
	edge := r.Intn(4) == 0
	switch t.Kind {
	case Ascii:
		b := make([]byte, r.Intn(6))
		for i := range b {
			b[i] = byte(r.Intn(3)) // lots of 0x00 and shared prefixes
			if r.Intn(2) == 0 {
				b[i] = byte(r.Intn(128))
			}
		}
		return b
	case Text, Blob:
		b := make([]byte, r.Intn(6))
		for i := range b {
			b[i] = []byte{0, 1, 0xFF, 'a', 0xC3}[r.Intn(5)]
		}
		if t.Kind == Text {
			return EncodeText(string([]rune(string(b))))
		}
		return b
	case Inet:
		if r.Intn(2) == 0 {
			return randBytes(r, 4)
		}
		return randBytes(r, 16)
	case Boolean:
		return []byte{byte(r.Intn(3))}
	case Int, Bigint, Counter, Timestamp, Smallint, Tinyint, Date:
		b := randBytes(r, fixedLen(t.Kind))
		if edge {
			b[0] = []byte{0, 0x7F, 0x80, 0xFF}[r.Intn(4)]
		}
		return b
	case Time:
		return EncodeTime(r.Int63n(maxTimeNanos + 1))
	case Float:
		if edge {
			fs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, -1, math.SmallestNonzeroFloat32}
			return EncodeFloat(fs[r.Intn(len(fs))])
		}
		return randBytes(r, 4)
	case Double:
		if edge {
			fs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1, math.SmallestNonzeroFloat64}
			return EncodeDouble(fs[r.Intn(len(fs))])
		}
		return randBytes(r, 8)
	case UUID:
		b := randBytes(r, 16)
		b[6] = b[6]&0x0F | byte(r.Intn(6))<<4
		if r.Intn(2) == 0 {
			b[6] = b[6]&0x0F | 0x10
		}
		return b
	case Timeuuid:
		b := randBytes(r, 16)
		b[6] = b[6]&0x0F | 0x10
		return b
	case Varint:
		n := 1 + r.Intn(3)
		if r.Intn(10) == 0 {
			n = 130 + r.Intn(5)
		}
		return randBytes(r, n) // possibly non-minimal: canonicalized by the key
	case Decimal:
		scale := int32(r.Intn(7) - 3)
		u := new(big.Int).SetBytes(randBytes(r, r.Intn(3)+1))
		if r.Intn(3) == 0 {
			u.SetInt64(int64(r.Intn(21) - 10))
			u.Mul(u, pow10(int64(r.Intn(3))))
		}
		if r.Intn(2) == 0 {
			u.Neg(u)
		}
		return EncodeDecimal(u, scale)
	case List, Set:
		n := r.Intn(4)
		if depth > 2 {
			n = 0
		}
		var elems [][]byte
		for i := 0; i < n; i++ {
			elems = append(elems, genValue(r, t.Params[0], depth+1))
		}
		if t.Kind == Set {
			return EncodeSet(t.Params[0], elems)
		}
		return EncodeList(elems)
	case Map:
		n := r.Intn(4)
		var ks, vs [][]byte
		for i := 0; i < n; i++ {
			ks = append(ks, genValue(r, t.Params[0], depth+1))
			vs = append(vs, genValue(r, t.Params[1], depth+1))
		}
		return EncodeMap(t.Params[0], ks, vs)
	case Tuple:
		n := r.Intn(len(t.Params) + 1)
		comps := make([][]byte, n)
		for i := range comps {
			if r.Intn(4) != 0 {
				comps[i] = genValue(r, t.Params[i], depth+1)
			}
		}
		return EncodeTuple(comps)
	case Vector:
		elems := make([][]byte, t.Dimension)
		for i := range elems {
			elems[i] = genValue(r, t.Params[0], depth+1)
			if n := vectorElemLen(t.Params[0]); len(elems[i]) == 0 && n > 0 {
				elems[i] = make([]byte, n) // fixed-length elements cannot be empty
			}
		}
		return EncodeVector(t, elems)
	}
	panic("genValue: " + t.String())
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	r.Read(b)
	return b
}

func checkKeyPair(t testing.TB, typ *Type, a, b []byte) {
	t.Helper()
	want := Compare(typ, a, b)
	for _, desc := range []bool{false, true} {
		ka, kb := AppendKey(nil, typ, a, desc), AppendKey(nil, typ, b, desc)
		got := bytes.Compare(ka, kb)
		w := want
		if desc {
			w = -w
		}
		if got != w {
			t.Fatalf("%s desc=%v: Compare(%x, %x)=%d but keys %x, %x compare %d", typ, desc, a, b, want, ka, kb, got)
		}
		// Prefix-free: concatenation with a trailing component still splits.
		for _, k := range [][]byte{ka, kb} {
			v, rest, err := DecodeKey(typ, append(append([]byte{}, k...), 0x42, 0x00), desc)
			if err != nil || !bytes.Equal(rest, []byte{0x42, 0x00}) {
				t.Fatalf("%s desc=%v: DecodeKey(%x) = %x, rest %x, %v", typ, desc, k, v, rest, err)
			}
			if !bytes.Equal(AppendKey(nil, typ, v, desc), k) {
				t.Fatalf("%s desc=%v: re-encoding of decoded %x differs from %x", typ, desc, v, k)
			}
		}
		va, _, _ := DecodeKey(typ, ka, desc)
		if Compare(typ, va, a) != 0 {
			t.Fatalf("%s: decoded %x does not compare equal to %x", typ, va, a)
		}
	}
}

func TestKeyEncodingProperty(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, typ := range keyTypes {
		t.Run(typ.String(), func(t *testing.T) {
			if err := CheckKeyType(typ); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3000; i++ {
				a, b := genValue(r, typ, 0), genValue(r, typ, 0)
				if err := Validate(typ, a); err != nil {
					t.Fatalf("generated invalid %x: %v", a, err)
				}
				checkKeyPair(t, typ, a, b)
				checkKeyPair(t, typ, a, a)
			}
		})
	}
}

// TestKeyConcatenation checks that multi-component keys compare component by
// component, with mixed ASC/DESC.
func TestKeyConcatenation(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	types := []*Type{TextType, IntType, BlobType, TimeuuidType}
	descs := []bool{false, true, false, true}
	for i := 0; i < 5000; i++ {
		var ka, kb []byte
		want := 0
		for j, typ := range types {
			a, b := genValue(r, typ, 0), genValue(r, typ, 0)
			if r.Intn(2) == 0 {
				b = a
			}
			ka = AppendKey(ka, typ, a, descs[j])
			kb = AppendKey(kb, typ, b, descs[j])
			if want == 0 {
				want = Compare(typ, a, b)
				if descs[j] {
					want = -want
				}
			}
		}
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("composite keys %x %x compare %d, want %d", ka, kb, got, want)
		}
		rest := ka
		for j, typ := range types {
			var err error
			_, rest, err = DecodeKey(typ, rest, descs[j])
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(rest) != 0 {
			t.Fatalf("left over %x", rest)
		}
	}
}

// TestKeyGolden pins byte layouts documented in keyencoding.md.
func TestKeyGolden(t *testing.T) {
	for _, c := range []struct {
		typ  *Type
		v    []byte
		desc bool
		want []byte
	}{
		{IntType, EncodeInt(1), false, []byte{0x03, 0x80, 0, 0, 1}},
		{IntType, EncodeInt(-1), false, []byte{0x03, 0x7F, 0xFF, 0xFF, 0xFF}},
		{IntType, []byte{}, false, []byte{0x02}},
		{IntType, EncodeInt(1), true, []byte{0xFC, 0x7F, 0xFF, 0xFF, 0xFE}},
		{TextType, EncodeText("a\x00b"), false, []byte{0x03, 'a', 0, 0xFF, 'b', 0, 0}},
		{BooleanType, EncodeBoolean(true), false, []byte{0x03, 1}},
		{VarintType, EncodeVarint(big.NewInt(0)), false, []byte{0x03, 0x80}},
		{VarintType, EncodeVarint(big.NewInt(256)), false, []byte{0x03, 0x82, 1, 0}},
		{VarintType, EncodeVarint(big.NewInt(-1)), false, []byte{0x03, 0x7E, 0xFE}},
		{DecimalType, EncodeDecimal(big.NewInt(1230), 1), false, append(append([]byte{0x03, 0xC0}, binary.BigEndian.AppendUint64(nil, 3^(1<<63))...), 13, 31, 0)},
		{ListOf(IntType, true), EncodeList([][]byte{EncodeInt(1)}), false, []byte{0x03, 0x03, 0x80, 0, 0, 1, 0x00}},
		{TupleOf(IntType, IntType), EncodeTuple([][]byte{nil, EncodeInt(1)}), false, []byte{0x03, 0x01, 0x03, 0x80, 0, 0, 1, 0x00}},
	} {
		if got := AppendKey(nil, c.typ, c.v, c.desc); !bytes.Equal(got, c.want) {
			t.Errorf("AppendKey(%s, %x, %v) = %x, want %x", c.typ, c.v, c.desc, got, c.want)
		}
	}
}

func TestDecimalKeyCanonical(t *testing.T) {
	a := EncodeDecimal(big.NewInt(10), 1)  // 1.0
	b := EncodeDecimal(big.NewInt(100), 2) // 1.00
	c := EncodeDecimal(big.NewInt(1), -2)  // 1E+2
	d := EncodeDecimal(big.NewInt(100), 0) // 100
	if !bytes.Equal(AppendKey(nil, DecimalType, a, false), AppendKey(nil, DecimalType, b, false)) ||
		!bytes.Equal(AppendKey(nil, DecimalType, c, false), AppendKey(nil, DecimalType, d, false)) {
		t.Fatal("equal decimals must have equal keys")
	}
	v, _, err := DecodeKey(DecimalType, AppendKey(nil, DecimalType, d, false), false)
	if err != nil || Format(DecimalType, v) != "100" {
		t.Fatalf("decoded %x (%s), %v", v, Format(DecimalType, v), err)
	}
}

func TestCheckKeyType(t *testing.T) {
	for _, c := range []struct {
		typ  *Type
		want string
	}{
		{DurationType, "duration type is not supported for PRIMARY KEY column 'x'"},
		{ListOf(DurationType, true), "duration type is not supported for PRIMARY KEY column 'x'"},
		{CounterType, "counter type is not supported for PRIMARY KEY column 'x'"},
		{ListOf(IntType, false), "Invalid non-frozen collection type list<int> for PRIMARY KEY column 'x'"},
		{IntType, ""},
	} {
		err := CheckKeyType(c.typ)
		got := ""
		if err != nil {
			got = WithColumn(err, "x").Message
		}
		if got != c.want {
			t.Errorf("CheckKeyType(%s) = %q, want %q", c.typ, got, c.want)
		}
	}
}

func FuzzKeyEncoding(f *testing.F) {
	f.Add(uint8(0), int64(1), []byte("a"), []byte("b"))
	f.Add(uint8(9), int64(7), []byte{0, 1, 2}, []byte{0xFF})
	f.Fuzz(func(t *testing.T, ti uint8, seed int64, x, y []byte) {
		typ := keyTypes[int(ti)%len(keyTypes)]
		// Raw fuzz bytes are used when valid; otherwise values come from the generator.
		r := rand.New(rand.NewSource(seed))
		a, b := x, y
		if Validate(typ, a) != nil || Normalize2(typ, a) {
			a = genValue(r, typ, 0)
		}
		if Validate(typ, b) != nil || Normalize2(typ, b) {
			b = genValue(r, typ, 0)
		}
		checkKeyPair(t, typ, a, b)
	})
}

// Normalize2 reports whether v is a collection that is not in canonical
// (sorted, deduplicated) form, which AppendKey requires.
func Normalize2(typ *Type, v []byte) bool {
	n, err := Normalize(typ, v)
	return err != nil || !bytes.Equal(n, v)
}

func FuzzDecodeKey(f *testing.F) {
	f.Add(uint8(0), []byte{0x03, 'a', 0, 0}, false)
	f.Add(uint8(17), []byte{0x03, 0x80}, true)
	f.Fuzz(func(t *testing.T, ti uint8, src []byte, desc bool) {
		typ := keyTypes[int(ti)%len(keyTypes)]
		v, rest, err := DecodeKey(typ, src, desc)
		if err != nil {
			return
		}
		if err := Validate(typ, v); err != nil {
			t.Fatalf("DecodeKey(%s, %x) returned invalid %x: %v", typ, src, v, err)
		}
		// DecodeKeyInto decodes the same, from a buffer with room or
		// without, and leaves the buffer's bytes alone.
		for _, room := range []int{0, 3, 64, 4096} {
			buf := append(make([]byte, 0, 2+room), 0xAB, 0xCD)
			v2, rest2, buf2, err := DecodeKeyInto(buf, typ, src, desc)
			if err != nil || !bytes.Equal(v2, v) || !bytes.Equal(rest2, rest) ||
				len(buf2) < 2 || buf2[0] != 0xAB || buf2[1] != 0xCD {
				t.Fatalf("DecodeKeyInto(room %d, %s, %x) = %x, %x, %v; DecodeKey = %x, %x", room, typ, src, v2, rest2, err, v, rest)
			}
		}
	})
}
