package types

import (
	"bytes"
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// allTestTypes are the key types plus nested frozen collections, a frozen
// UDT and a variable-length vector, for the property tests below.
func allTestTypes() []*Type {
	udt := &Type{Kind: UDT, Frozen: true, Keyspace: "ks", Name: "u", FieldNames: []string{"a", "b"},
		Params: []*Type{IntType, ListOf(TextType, true)}}
	return append(append([]*Type{}, keyTypes...),
		MapOf(IntType, ListOf(MapOf(TextType, SetOf(UUIDType, true), true), true), true),
		SetOf(TupleOf(TimestampType, VarintType), true),
		ListOf(udt, true), udt,
		TupleOf(DecimalType, TupleOf(BooleanType, InetType), DateType, TimeType),
		vectorOf(TextType, 3), vectorOf(DoubleType, 4),
	)
}

func genAny(r *rand.Rand, t *Type, depth int) []byte {
	switch t.Kind {
	case UDT:
		n := r.Intn(len(t.Params) + 1) // trailing fields may be missing
		comps := make([][]byte, n)
		for i := range comps {
			if r.Intn(4) != 0 {
				comps[i] = genAny(r, t.Params[i], depth+1)
			}
		}
		return EncodeTuple(comps)
	case List, Set, Map, Tuple, Vector:
		// genValue recurses through itself: give it the element kinds it
		// knows; nested UDTs go through this function.
		if hasUDT(t) {
			return genNestedUDT(r, t, depth)
		}
	}
	return genValue(r, t, depth)
}

func hasUDT(t *Type) bool {
	if t.Kind == UDT {
		return true
	}
	for _, p := range t.Params {
		if hasUDT(p) {
			return true
		}
	}
	return false
}

func genNestedUDT(r *rand.Rand, t *Type, depth int) []byte {
	n := r.Intn(3)
	var elems [][]byte
	for i := 0; i < n; i++ {
		elems = append(elems, genAny(r, t.Params[0], depth+1))
	}
	switch t.Kind {
	case Set:
		return EncodeSet(t.Params[0], elems)
	case List:
		return EncodeList(elems)
	}
	panic("genNestedUDT: " + t.String())
}

// TestKeyEncodingPropertyNested extends TestKeyEncodingProperty to nested
// frozen collections, UDTs and vectors of variable-length elements.
func TestKeyEncodingPropertyNested(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, typ := range allTestTypes()[len(keyTypes):] {
		t.Run(typ.String(), func(t *testing.T) {
			if err := CheckKeyType(typ); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 1000; i++ {
				a, b := genAny(r, typ, 0), genAny(r, typ, 0)
				if err := Validate(typ, a); err != nil {
					t.Fatalf("generated invalid %x: %v", a, err)
				}
				checkKeyPair(t, typ, a, b)
			}
		})
	}
}

// TestCompositeKeysRandom builds composite keys of random types with random
// ASC/DESC components and checks that bytes.Compare of the concatenated
// encodings agrees with component-wise Compare, and that the components
// decode back (prefix-freedom).
func TestCompositeKeysRandom(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	all := allTestTypes()
	for i := 0; i < 3000; i++ {
		n := 1 + r.Intn(4)
		typs := make([]*Type, n)
		descs := make([]bool, n)
		for j := range typs {
			typs[j] = all[r.Intn(len(all))]
			descs[j] = r.Intn(2) == 0
		}
		var ka, kb []byte
		want := 0
		for j, typ := range typs {
			a := genAny(r, typ, 0)
			b := a
			if r.Intn(3) != 0 {
				b = genAny(r, typ, 0)
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
			t.Fatalf("%v desc %v: keys %x %x compare %d, want %d", typs, descs, ka, kb, got, want)
		}
		rest := ka
		for j, typ := range typs {
			var err error
			if _, rest, err = DecodeKey(typ, rest, descs[j]); err != nil {
				t.Fatalf("%v: component %d: %v", typs, j, err)
			}
		}
		if len(rest) != 0 {
			t.Fatalf("%v: %x left over", typs, rest)
		}
	}
}

// TestWireRoundTrip checks that random values of every type, including the
// ones that cannot be keys (counter, duration, non-frozen collections), are
// valid, normalized, survive decoding and re-encoding through the public
// codec functions, and that the CQL literal of every native value reads
// back as the same bytes.
func TestWireRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	extra := []*Type{CounterType, ListOf(IntType, false), SetOf(TextType, false),
		MapOf(TimeuuidType, BlobType, false)}
	for _, typ := range append(allTestTypes(), extra...) {
		t.Run(typ.String(), func(t *testing.T) {
			for i := 0; i < 500; i++ {
				v := genAny(r, typ, 0)
				if err := Validate(typ, v); err != nil {
					t.Fatalf("%x: %v", v, err)
				}
				if n, err := Normalize(typ, v); err != nil || !bytes.Equal(n, v) {
					t.Fatalf("%x: Normalize = %x, %v", v, n, err)
				}
				if back := reencode(t, typ, v); !bytes.Equal(back, v) {
					t.Fatalf("%x: re-encodes as %x", v, back)
				}
				if typ.Kind < Empty {
					got, err := literalRoundTrip(typ, FormatCQL(typ, v))
					if err != nil || (!bytes.Equal(got, v) && !(isNaN(typ, v) && isNaN(typ, got)) && Compare(typ, got, v) != 0) {
						t.Fatalf("%x: literal %s reads back as %x, %v", v, FormatCQL(typ, v), got, err)
					}
				}
			}
		})
	}
	// Durations: random months/days/nanos of one sign.
	for i := 0; i < 2000; i++ {
		m, d, n := int32(r.Intn(1<<20)), int32(r.Intn(1<<20)), r.Int63()
		if r.Intn(2) == 0 {
			m, d, n = -m, -d, -n
		}
		v := EncodeDuration(m, d, n)
		m2, d2, n2, err := DecodeDuration(v)
		if err != nil || m2 != m || d2 != d || n2 != n {
			t.Fatalf("duration %d %d %d decodes as %d %d %d, %v", m, d, n, m2, d2, n2, err)
		}
		if got, err := literalRoundTrip(DurationType, FormatCQL(DurationType, v)); err != nil || !bytes.Equal(got, v) {
			t.Fatalf("duration literal %s reads back as %x, %v", FormatCQL(DurationType, v), got, err)
		}
	}
}

// reencode decodes v with the public Decode* functions and encodes the
// result again.
func reencode(t *testing.T, typ *Type, v []byte) []byte {
	t.Helper()
	if len(v) == 0 {
		return v
	}
	var err error
	var out []byte
	switch typ.Kind {
	case Int:
		var x int32
		x, err = DecodeInt(v)
		out = EncodeInt(x)
	case Bigint, Counter, Timestamp:
		var x int64
		x, err = DecodeBigint(v)
		out = EncodeBigint(x)
	case Smallint:
		var x int16
		x, err = DecodeSmallint(v)
		out = EncodeSmallint(x)
	case Tinyint:
		var x int8
		x, err = DecodeTinyint(v)
		out = EncodeTinyint(x)
	case Float:
		var x float32
		x, err = DecodeFloat(v)
		out = EncodeFloat(x)
	case Double:
		var x float64
		x, err = DecodeDouble(v)
		out = EncodeDouble(x)
	case Boolean:
		var x bool
		x, err = DecodeBoolean(v)
		out = EncodeBoolean(x)
		if v[0] > 1 { // any non-zero byte is true
			out = v
		}
	case UUID, Timeuuid:
		var x [16]byte
		x, err = DecodeUUID(v)
		out = EncodeUUID(x)
	case Date:
		var x int64
		x, err = DecodeDate(v)
		out = EncodeDate(x)
	case Varint:
		out = EncodeVarint(DecodeVarintBytes(v))
		if Compare(typ, out, v) == 0 {
			out = v // non-minimal encodings are valid and compare equal
		}
	case Decimal:
		u, s, e := DecodeDecimal(v)
		err = e
		out = EncodeDecimal(u, s)
		if err == nil && Compare(typ, out, v) == 0 {
			out = v
		}
	case List, Vector:
		var elems [][]byte
		if typ.Kind == Vector {
			elems, err = splitVector(typ, v)
			out = EncodeVector(typ, elems)
		} else {
			elems, err = DecodeCollection(v)
			out = EncodeList(elems)
		}
	case Set:
		var elems [][]byte
		elems, err = DecodeCollection(v)
		out = EncodeSet(typ.Params[0], elems)
	case Map:
		var ks, vs [][]byte
		ks, vs, err = DecodeMap(v)
		out = EncodeMap(typ.Params[0], ks, vs)
	case Tuple, UDT:
		var comps [][]byte
		comps, err = DecodeTuple(v)
		out = EncodeTuple(comps)
	default:
		return v
	}
	if err != nil {
		t.Fatalf("%s %x: %v", typ, v, err)
	}
	return out
}

// TestJSONRoundTrip checks FromJSON(DecodeJSON(ToJSON(v))) == v for random
// values of every type, except where Cassandra's own JSON is lossy: the
// empty value of a non-string type and non-finite floats are null, and decimals (read by
// Cassandra's JSON mapper as doubles) keep double precision.
func TestJSONRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, typ := range append(allTestTypes(), CounterType, DurationType, ListOf(IntType, false)) {
		t.Run(typ.String(), func(t *testing.T) {
			for i := 0; i < 300; i++ {
				var v []byte
				if typ.Kind == Duration {
					v = EncodeDuration(int32(r.Intn(1000)), int32(r.Intn(1000)), r.Int63n(1e15))
				} else {
					v = genAny(r, typ, 0)
				}
				if jsonNull(typ, v) {
					continue
				}
				js := ToJSON(typ, v)
				parsed, err := DecodeJSON([]byte(js))
				if err != nil {
					t.Fatalf("%x: ToJSON %s does not decode: %v", v, js, err)
				}
				got, err := FromJSON(typ, parsed)
				if err != nil {
					t.Fatalf("%x: FromJSON(%s): %v", v, js, err)
				}
				if !bytes.Equal(got, v) && !jsonEquivalent(typ, got, v) {
					t.Fatalf("%x: JSON %s reads back as %x", v, js, got)
				}
			}
		})
	}
}

// jsonEquivalent accepts the lossy cases of TestJSONRoundTrip: equal under
// Compare for NaNs and non-minimal varints, double-precision decimals, and
// collections, tuples and UDTs whose components differ only so.
func jsonEquivalent(t *Type, got, want []byte) bool {
	if Compare(t, got, want) == 0 && t.Kind != Decimal {
		return true
	}
	switch t.Kind {
	case Float, Double:
		return isNaN(t, got) && isNaN(t, want)
	case Decimal:
		g, err1 := strconv.ParseFloat(Format(t, got), 64)
		w, err2 := strconv.ParseFloat(Format(t, want), 64)
		return err1 == nil && err2 == nil && g == w
	case List, Set, Vector:
		var ge, we [][]byte
		if t.Kind == Vector {
			ge, _ = splitVector(t, got)
			we, _ = splitVector(t, want)
		} else {
			ge, _ = DecodeCollection(got)
			we, _ = DecodeCollection(want)
		}
		if len(ge) != len(we) {
			return false
		}
		for i := range ge {
			if !bytes.Equal(ge[i], we[i]) && !jsonEquivalent(t.Params[0], ge[i], we[i]) {
				return false
			}
		}
		return true
	case Map:
		gk, gv, _ := DecodeMap(got)
		wk, wv, _ := DecodeMap(want)
		if len(gk) != len(wk) {
			return false
		}
		for i := range gk {
			if (!bytes.Equal(gk[i], wk[i]) && !jsonEquivalent(t.Params[0], gk[i], wk[i])) ||
				(!bytes.Equal(gv[i], wv[i]) && !jsonEquivalent(t.Params[1], gv[i], wv[i])) {
				return false
			}
		}
		return true
	case Tuple, UDT:
		gc, _ := DecodeTuple(got)
		wc, _ := DecodeTuple(want)
		for len(wc) < len(gc) { // missing trailing UDT fields read back as nulls
			wc = append(wc, nil)
		}
		if len(gc) != len(wc) {
			return false
		}
		for i := range gc {
			if (gc[i] == nil) != (wc[i] == nil) && !(len(wc[i]) == 0 && gc[i] == nil) {
				return false
			}
			if gc[i] != nil && !bytes.Equal(gc[i], wc[i]) && !jsonEquivalent(t.Params[i], gc[i], wc[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// jsonNull reports whether v is, or contains, a value JSON writes as null
// though it is not null: the empty value of a non-string type, and a
// float or double NaN or infinity.
func jsonNull(t *Type, v []byte) bool {
	if v == nil {
		return false
	}
	if len(v) == 0 {
		return t.Kind != Text && t.Kind != Ascii && t.Kind != Blob
	}
	switch t.Kind {
	case Float:
		f, _ := DecodeFloat(v)
		return math.IsNaN(float64(f)) || math.IsInf(float64(f), 0)
	case Double:
		f, _ := DecodeDouble(v)
		return math.IsNaN(f) || math.IsInf(f, 0)
	case List, Set, Vector:
		var elems [][]byte
		if t.Kind == Vector {
			elems, _ = splitVector(t, v)
		} else {
			elems, _ = DecodeCollection(v)
		}
		for _, e := range elems {
			if jsonNull(t.Params[0], e) {
				return true
			}
		}
	case Map:
		ks, vs, _ := DecodeMap(v)
		for i := range ks {
			if jsonNull(t.Params[0], ks[i]) || jsonNull(t.Params[1], vs[i]) {
				return true
			}
		}
	case Tuple, UDT:
		comps, _ := DecodeTuple(v)
		for i, c := range comps {
			if jsonNull(t.Params[i], c) {
				return true
			}
		}
	}
	return false
}
