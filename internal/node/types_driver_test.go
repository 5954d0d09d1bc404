package node

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/types"
)

// Driver round trips of every CQL type through gocql v2 and the server:
// each edge value is inserted once bound (its exact serialized bytes, via
// rawValue) and once as a CQL literal (types.FormatCQL), and must read back
// as the same bytes; clustering columns of every orderable type come back
// in types.Compare order, ASC and DESC; malformed values and literals are
// InvalidRequest errors with Cassandra's messages and store nothing.

// rawValue binds its bytes as they are (nil is null, empty is the empty
// value).
type rawValue []byte

func (r rawValue) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// marker is the bind marker text for a column of typ: gocql v2 cannot
// bind a whole tuple to one marker (its prepared metadata counts a tuple
// marker as one value per component, then marshals by marker), so tuples
// are written as a tuple of markers, as gocql's own tests do.
func marker(typ *types.Type) string {
	if typ.Kind != types.Tuple {
		return "?"
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(typ.Params)), ", ") + ")"
}

// bindArgs returns the bind arguments for v in a column of typ: one per
// component for a tuple (see marker).
func bindArgs(typ *types.Type, v []byte) []any {
	if typ.Kind != types.Tuple || v == nil {
		return []any{rawValue(v)}
	}
	comps, _ := types.DecodeTuple(v)
	args := make([]any, len(typ.Params))
	for i := range args {
		var c []byte
		if i < len(comps) {
			c = comps[i]
		}
		args[i] = rawValue(c)
	}
	return args
}

// scanRaw scans one column of typ; gocql scans a tuple column into one
// destination per component.
// scanAllRaw reads the single column of every row of it (all pages) as
// serialized bytes, and closes it.
func scanAllRaw(t *testing.T, typ *types.Type, it *gocql.Iter) [][]byte {
	t.Helper()
	var out [][]byte
	for {
		v, err := scanRaw(typ, func(dest ...any) error {
			if !it.Scan(dest...) {
				return errors.New("done")
			}
			return nil
		})
		if err != nil {
			break
		}
		out = append(out, v)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func scanRaw(typ *types.Type, scan func(dest ...any) error) ([]byte, error) {
	if typ.Kind != types.Tuple {
		var r rawScan
		err := scan(&r)
		return r.b, err
	}
	rs := make([]rawScan, len(typ.Params))
	dest := make([]any, len(rs))
	for i := range rs {
		dest[i] = &rs[i]
	}
	if err := scan(dest...); err != nil {
		return nil, err
	}
	comps := make([][]byte, len(rs))
	allNull := true
	for i := range rs {
		comps[i] = rs[i].b
		allNull = allNull && rs[i].b == nil
	}
	if allNull {
		return nil, nil // gocql cannot tell a null tuple from one of nulls
	}
	return types.EncodeTuple(comps), nil
}

// rawScan receives a column's bytes as the server sent them.
type rawScan struct{ b []byte }

func (r *rawScan) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	if data == nil {
		r.b = nil
		return nil
	}
	r.b = append([]byte{}, data...)
	return nil
}

type typeCase struct {
	cql    string // the type as written in CREATE TABLE
	typ    *types.Type
	values [][]byte
}

func mustParseValue(t *testing.T, typ *types.Type, s string) []byte {
	t.Helper()
	v, err := types.ParseString(typ, s)
	if err != nil {
		t.Fatalf("ParseString(%s, %q): %v", typ, s, err)
	}
	return v
}

func driverTypeCases(t *testing.T, udt *types.Type) []typeCase {
	huge := new(big.Int).Lsh(big.NewInt(1), 130)
	txt := func(ss ...string) (out [][]byte) {
		for _, s := range ss {
			out = append(out, types.EncodeText(s))
		}
		return out
	}
	p := func(typ *types.Type, ss ...string) (out [][]byte) {
		for _, s := range ss {
			out = append(out, mustParseValue(t, typ, s))
		}
		return out
	}
	f32 := func(fs ...float32) (out [][]byte) {
		for _, f := range fs {
			out = append(out, types.EncodeFloat(f))
		}
		return out
	}
	f64 := func(fs ...float64) (out [][]byte) {
		for _, f := range fs {
			out = append(out, types.EncodeDouble(f))
		}
		return out
	}
	vec := func(e *types.Type, n int) *types.Type {
		return &types.Type{Kind: types.Vector, Params: []*types.Type{e}, Dimension: n}
	}
	vf3, vt2 := vec(types.FloatType, 3), vec(types.TextType, 2)
	nested := types.ListOf(types.MapOf(types.IntType, types.SetOf(types.TextType, true), true), false)
	tup := types.TupleOf(types.IntType, types.TextType, types.DoubleType)
	cases := []typeCase{
		{"ascii", types.AsciiType, append(txt("", "a", "it's", "~\x01"), nil)},
		{"text", types.TextType, txt("", "héllo wörld", "日本語", "a'b''c", "😀")},
		{"varchar", types.TextType, txt("x")},
		{"blob", types.BlobType, [][]byte{{}, {0}, {0xCA, 0xFE}, bytes.Repeat([]byte{0xFF}, 300)}},
		{"boolean", types.BooleanType, [][]byte{types.EncodeBoolean(false), types.EncodeBoolean(true), {}}},
		{"tinyint", types.TinyintType, [][]byte{types.EncodeTinyint(math.MinInt8), types.EncodeTinyint(0), types.EncodeTinyint(math.MaxInt8)}},
		{"smallint", types.SmallintType, [][]byte{types.EncodeSmallint(math.MinInt16), types.EncodeSmallint(math.MaxInt16)}},
		{"int", types.IntType, [][]byte{types.EncodeInt(math.MinInt32), types.EncodeInt(-1), types.EncodeInt(math.MaxInt32), {}}},
		{"bigint", types.BigintType, [][]byte{types.EncodeBigint(math.MinInt64), types.EncodeBigint(math.MaxInt64), {}}},
		{"varint", types.VarintType, [][]byte{types.EncodeVarint(big.NewInt(0)), types.EncodeVarint(big.NewInt(-129)),
			types.EncodeVarint(huge), types.EncodeVarint(new(big.Int).Neg(huge)), {}}},
		{"decimal", types.DecimalType, append(p(types.DecimalType, "0", "-1.50", "1E+50", "-1.5E-40",
			"123456789012345678901234567890.0987654321"), []byte{})},
		{"float", types.FloatType, append(f32(0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)),
			float32(math.Inf(-1)), math.MaxFloat32, math.SmallestNonzeroFloat32, 0.1), []byte{})},
		{"double", types.DoubleType, append(f64(0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
			math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, -123456789.125), []byte{})},
		{"date", types.DateType, [][]byte{types.EncodeDate(math.MinInt32), types.EncodeDate(-1), types.EncodeDate(0),
			types.EncodeDate(2932896), types.EncodeDate(math.MaxInt32)}},
		{"time", types.TimeType, [][]byte{types.EncodeTime(0), types.EncodeTime(37800123456789), types.EncodeTime(86399999999999)}},
		{"timestamp", types.TimestampType, [][]byte{types.EncodeTimestampMillis(-62135596800000), types.EncodeTimestampMillis(-1),
			types.EncodeTimestampMillis(0), types.EncodeTimestampMillis(1705314600123), types.EncodeTimestampMillis(9224318016000123),
			types.EncodeTimestampMillis(253402300799999), {}}},
		{"uuid", types.UUIDType, append(p(types.UUIDType, "00000000-0000-0000-0000-000000000000",
			"550e8400-e29b-41d4-a716-446655440000", "ffffffff-ffff-ffff-ffff-ffffffffffff"), []byte{})},
		{"timeuuid", types.TimeuuidType, p(types.TimeuuidType, "00000000-0000-1000-8080-808080808080",
			"d2177dd0-eaa2-11de-a572-001b779c76e3", "ffffffff-ffff-1fff-bf7f-7f7f7f7f7f7f")},
		{"inet", types.InetType, append(p(types.InetType, "0.0.0.0", "127.0.0.1", "::", "::1", "2001:db8::ff00:42:8329",
			"fe80::1:2:3:4"), []byte{})},
		{"duration", types.DurationType, [][]byte{types.EncodeDuration(0, 0, 0), types.EncodeDuration(14, 3, 3723000000007),
			types.EncodeDuration(-14, -3, -3723000000007), types.EncodeDuration(0, 0, 1),
			types.EncodeDuration(math.MaxInt32, math.MaxInt32, math.MaxInt64)}},
		{"list<int>", types.ListOf(types.IntType, false), [][]byte{
			types.EncodeList([][]byte{types.EncodeInt(3), types.EncodeInt(1), types.EncodeInt(3)})}},
		{"set<text>", types.SetOf(types.TextType, false), [][]byte{types.EncodeSet(types.TextType, txt("b", "", "a'"))}},
		{"map<text, double>", types.MapOf(types.TextType, types.DoubleType, false), [][]byte{
			types.EncodeMap(types.TextType, txt("z", "a"), f64(-0.5, 1e300))}},
		{"frozen<list<int>>", types.ListOf(types.IntType, true), [][]byte{types.EncodeList(nil),
			types.EncodeList([][]byte{types.EncodeInt(3), types.EncodeInt(1)})}},
		{"frozen<set<text>>", types.SetOf(types.TextType, true), [][]byte{types.EncodeSet(types.TextType, nil),
			types.EncodeSet(types.TextType, txt("y", "x"))}},
		{"frozen<map<int, frozen<list<text>>>>", types.MapOf(types.IntType, types.ListOf(types.TextType, true), true), [][]byte{
			types.EncodeMap(types.IntType, [][]byte{types.EncodeInt(2), types.EncodeInt(-1)},
				[][]byte{types.EncodeList(txt("a", "b")), types.EncodeList(nil)})}},
		{"list<frozen<map<int, frozen<set<text>>>>>", nested, [][]byte{types.EncodeList([][]byte{
			types.EncodeMap(types.IntType, [][]byte{types.EncodeInt(2), types.EncodeInt(1)},
				[][]byte{types.EncodeSet(types.TextType, txt("x", "y")), types.EncodeSet(types.TextType, nil)}),
			types.EncodeMap(types.IntType, nil, nil)})}},
		{"tuple<int, text, double>", tup, [][]byte{
			types.EncodeTuple([][]byte{types.EncodeInt(1), types.EncodeText("a"), types.EncodeDouble(2.5)}),
			types.EncodeTuple([][]byte{nil, types.EncodeText(""), nil})}},
		{"vector<float, 3>", vf3, [][]byte{types.EncodeVector(vf3, f32(1, -0.5, 3.25))}},
		{"vector<text, 2>", vt2, [][]byte{types.EncodeVector(vt2, txt("", "héllo"))}},
	}
	cases = append(cases, typeCase{"frozen<addr>", udt, [][]byte{
		types.EncodeTuple([][]byte{types.EncodeText("Main St"), types.EncodeInt(12345)}),
		types.EncodeTuple([][]byte{nil, types.EncodeInt(0)})}})
	return cases
}

// createAddrType creates ks.addr, the user type driverTypeCases covers.
func createAddrType(t *testing.T, s *gocql.Session) *types.Type {
	t.Helper()
	execAll(t, s, "CREATE TYPE ks.addr (street text, zip int)")
	return &types.Type{Kind: types.UDT, Frozen: true, Keyspace: "ks", Name: "addr",
		FieldNames: []string{"street", "zip"}, Params: []*types.Type{types.TextType, types.IntType}}
}

// expectedRead is what the server returns for v stored in a column of typ:
// an empty non-frozen collection is no collection at all (null).
func expectedRead(typ *types.Type, v []byte) []byte {
	if typ.IsMultiCell() && len(v) > 0 {
		elems := 0
		if typ.Kind == types.Map {
			ks, _, _ := types.DecodeMap(v)
			elems = len(ks)
		} else {
			es, _ := types.DecodeCollection(v)
			elems = len(es)
		}
		if elems == 0 {
			return nil
		}
	}
	return v
}

func sameValue(typ *types.Type, got, want []byte) bool {
	if (got == nil) != (want == nil) {
		return false
	}
	if bytes.Equal(got, want) {
		return true
	}
	// A NaN literal reads back as the canonical NaN.
	isNaN := func(v []byte) bool {
		switch {
		case typ.Kind == types.Float && len(v) == 4:
			f, _ := types.DecodeFloat(v)
			return f != f
		case typ.Kind == types.Double && len(v) == 8:
			f, _ := types.DecodeDouble(v)
			return math.IsNaN(f)
		}
		return false
	}
	return isNaN(got) && isNaN(want)
}

// jsonLossy reports the values cqld's toJson writes as null though they
// are not null, so fromJson cannot bring them back: the empty value of a
// non-string type, and a float or double NaN or infinity (FloatType and
// DoubleType.toJSONString).
func jsonLossy(typ *types.Type, v []byte) bool {
	switch typ.Kind {
	case types.Text, types.Ascii, types.Blob:
		return false
	case types.Float:
		f, err := types.DecodeFloat(v)
		return len(v) == 0 || err == nil && (math.IsNaN(float64(f)) || math.IsInf(float64(f), 0))
	case types.Double:
		f, err := types.DecodeDouble(v)
		return len(v) == 0 || err == nil && (math.IsNaN(f) || math.IsInf(f, 0))
	}
	return len(v) == 0
}

// sameJSONValue is sameValue, except for decimals: like Cassandra (whose
// JSON mapper reads floating-point numbers as doubles), fromJson keeps a
// decimal only to double precision.
func sameJSONValue(typ *types.Type, got, want []byte) bool {
	if sameValue(typ, got, want) {
		return true
	}
	if typ.Kind != types.Decimal || got == nil || want == nil {
		return false
	}
	g, err1 := strconv.ParseFloat(types.Format(typ, got), 64)
	w, err2 := strconv.ParseFloat(types.Format(typ, want), 64)
	return err1 == nil && err2 == nil && g == w
}

func execAll(t *testing.T, s *gocql.Session, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestDriverEveryTypeRoundTrip(t *testing.T) {
	for _, proto := range []int{4, 5, 3} {
		t.Run(fmt.Sprintf("v%d", proto), func(t *testing.T) { everyTypeRoundTrip(t, proto) })
	}
}

func everyTypeRoundTrip(t *testing.T, proto int) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	s := connect(t, n, proto, nil)
	defer s.Close()
	execAll(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	cases := driverTypeCases(t, createAddrType(t, s))
	cols := []string{"k int PRIMARY KEY"}
	for i, c := range cases {
		cols = append(cols, fmt.Sprintf("c%d %s", i, c.cql))
	}
	execAll(t, s, "CREATE TABLE ks.every ("+strings.Join(cols, ", ")+")",
		"CREATE TABLE ks.cnt (k int PRIMARY KEY, c counter)")

	read := func(typ *types.Type, col string, k int) ([]byte, error) {
		return scanRaw(typ, s.Query(fmt.Sprintf("SELECT %s FROM ks.every WHERE k = ?", col), k).Scan)
	}
	k := 0
	for i, c := range cases {
		col := fmt.Sprintf("c%d", i)
		t.Run(c.cql, func(t *testing.T) {
			for _, v := range c.values {
				want := expectedRead(c.typ, v)
				// Bound.
				k++
				if err := s.Query(fmt.Sprintf("INSERT INTO ks.every (k, %s) VALUES (?, %s)", col, marker(c.typ)), append([]any{k}, bindArgs(c.typ, v)...)...).Exec(); err != nil {
					t.Errorf("bound %x: %v", v, err)
				} else if got, err := read(c.typ, col, k); err != nil || !sameValue(c.typ, got, want) {
					t.Errorf("bound %x reads back as %x, %v", v, got, err)
				}
				// Literal.
				k++
				lit := types.FormatCQL(c.typ, v)
				if err := s.Query(fmt.Sprintf("INSERT INTO ks.every (k, %s) VALUES (%d, %s)", col, k, lit)).Exec(); err != nil {
					t.Errorf("literal %s: %v", lit, err)
				} else if got, err := read(c.typ, col, k); err != nil || !sameValue(c.typ, got, want) {
					t.Errorf("literal %s reads back as %x, want %x, %v", lit, got, want, err)
				}
				// JSON: toJson of the stored value, then fromJson of that text,
				// reads back the same value.
				if want != nil && !jsonLossy(c.typ, want) {
					var js string
					if err := s.Query(fmt.Sprintf("SELECT toJson(%s) FROM ks.every WHERE k = ?", col), k).Scan(&js); err != nil {
						t.Errorf("toJson of %x: %v", v, err)
					} else {
						k++
						if err := s.Query(fmt.Sprintf("INSERT INTO ks.every (k, %s) VALUES (?, fromJson(?))", col), k, js).Exec(); err != nil {
							t.Errorf("fromJson(%s): %v", js, err)
						} else if got, err := read(c.typ, col, k); err != nil || !sameJSONValue(c.typ, got, want) {
							t.Errorf("fromJson(%s) reads back as %x, want %x, %v", js, got, want, err)
						}
					}
				}
				// Unset leaves the column as it was.
				if proto < 4 || c.typ.Kind == types.Tuple {
					// no unset values before v4; gocql binds tuples element-wise
				} else if err := s.Query(fmt.Sprintf("INSERT INTO ks.every (k, %s) VALUES (?, ?)", col), k, gocql.UnsetValue).Exec(); err != nil {
					t.Errorf("unset: %v", err)
				} else if got, err := read(c.typ, col, k); want != nil && (err != nil || !sameJSONValue(c.typ, got, want)) {
					t.Errorf("unset overwrote %x with %x, %v", want, got, err)
				}
				// UPDATE with a bound value (an UPDATE to null creates no row).
				k++
				if err := s.Query(fmt.Sprintf("UPDATE ks.every SET %s = %s WHERE k = ?", col, marker(c.typ)), append(bindArgs(c.typ, v), k)...).Exec(); err != nil {
					t.Errorf("update bound %x: %v", v, err)
				} else if got, err := read(c.typ, col, k); want == nil && !errors.Is(err, gocql.ErrNotFound) {
					t.Errorf("update to null created a row: %x, %v", got, err)
				} else if want != nil && (err != nil || !sameValue(c.typ, got, want)) {
					t.Errorf("update bound %x reads back as %x, %v", v, got, err)
				}
			}
		})
	}

	t.Run("system_schema types", func(t *testing.T) {
		// Column types are spelled as Cassandra spells them: vectors are
		// never frozen<...>, tuples always are.
		want := map[string]string{"vector<float, 3>": "vector<float, 3>", "vector<text, 2>": "vector<text, 2>",
			"tuple<int, text, double>": "frozen<tuple<int, text, double>>", "varchar": "text",
			"list<frozen<map<int, frozen<set<text>>>>>": "list<frozen<map<int, frozen<set<text>>>>>"}
		for i, c := range cases {
			var typ string
			if err := s.Query("SELECT type FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'every' AND column_name = ?",
				fmt.Sprintf("c%d", i)).Scan(&typ); err != nil {
				t.Fatal(err)
			}
			w, ok := want[c.cql]
			if !ok {
				w = c.cql
			}
			if typ != w {
				t.Errorf("column of type %s: system_schema.columns.type = %q, want %q", c.cql, typ, w)
			}
		}
	})

	t.Run("counter", func(t *testing.T) {
		if err := s.Query("UPDATE ks.cnt SET c = c + ? WHERE k = 1", rawValue(types.EncodeBigint(math.MaxInt64))).Exec(); err != nil {
			t.Fatal(err)
		}
		execAll(t, s, "UPDATE ks.cnt SET c = c - 9223372036854775807 WHERE k = 1", "UPDATE ks.cnt SET c = c + -5 WHERE k = 1")
		var r rawScan
		if err := s.Query("SELECT c FROM ks.cnt WHERE k = 1").Scan(&r); err != nil || !bytes.Equal(r.b, types.EncodeBigint(-5)) {
			t.Fatalf("counter = %x, %v", r.b, err)
		}
	})

	t.Run("go values", func(t *testing.T) {
		// The driver's own marshaling of Go values agrees with the server.
		execAll(t, s, "CREATE TABLE ks.gv (k int PRIMARY KEY, a bigint, b text, c blob, d boolean, e double, f float, "+
			"g timestamp, h uuid, i varint, j inet, l list<int>, m map<text, int>, n smallint, o tinyint, p date, q time, r duration)")
		ts := time.UnixMilli(-86400001).UTC()
		u, _ := gocql.ParseUUID("550e8400-e29b-41d4-a716-446655440000")
		vi, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
		dur := gocql.Duration{Months: -1, Days: -2, Nanoseconds: -3}
		err := s.Query("INSERT INTO ks.gv (k, a, b, c, d, e, f, g, h, i, j, l, m, n, o, p, q, r) "+
			"VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			int64(-7), "ü", []byte{1, 2}, true, 1.5, float32(-2.25), ts, u, vi, net.ParseIP("::1"),
			[]int{3, 2}, map[string]int{"a": 1}, int16(-3), int8(4), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC),
			time.Duration(3661000000001), dur).Exec()
		if err != nil {
			t.Fatal(err)
		}
		var (
			a      int64
			b      string
			cb     []byte
			d      bool
			e      float64
			f      float32
			g      time.Time
			h      gocql.UUID
			i      *big.Int
			j      net.IP
			l      []int
			m      map[string]int
			nn     int16
			o      int8
			pd     time.Time
			q      time.Duration
			r      gocql.Duration
			gotRow = []any{&a, &b, &cb, &d, &e, &f, &g, &h, &i, &j, &l, &m, &nn, &o, &pd, &q, &r}
		)
		if err := s.Query("SELECT a, b, c, d, e, f, g, h, i, j, l, m, n, o, p, q, r FROM ks.gv WHERE k = 1").Scan(gotRow...); err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(a, b, cb, d, e, f, g.UTC().Format(time.RFC3339Nano), h, i, j, l, m, nn, o, pd.UTC().Format("2006-01-02"), q, r)
		want := fmt.Sprint(int64(-7), "ü", []byte{1, 2}, true, 1.5, float32(-2.25), ts.Format(time.RFC3339Nano), u, vi,
			net.ParseIP("::1"), []int{3, 2}, map[string]int{"a": 1}, int16(-3), int8(4), "1969-12-31", time.Duration(3661000000001), dur)
		if got != want {
			t.Fatalf("go values:\n got %s\nwant %s", got, want)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		intCol, dateCol, tsCol, inetCol, blobCol, listCol := colOf(cases, "int"), colOf(cases, "date"), colOf(cases, "timestamp"),
			colOf(cases, "inet"), colOf(cases, "blob"), colOf(cases, "list<int>")
		for _, c := range []struct {
			q    string
			args []any
			want string
		}{
			{"INSERT INTO ks.every (k, " + intCol + ") VALUES (-1, 'x')", nil, `Invalid STRING constant (x) for "` + intCol + `" of type int`},
			{"INSERT INTO ks.every (k, " + intCol + ") VALUES (-1, 1.5)", nil, `Invalid FLOAT constant (1.5) for "` + intCol + `" of type int`},
			{"INSERT INTO ks.every (k, " + intCol + ") VALUES (-1, 2147483648)", nil, `Unable to make int from '2147483648'`},
			{"INSERT INTO ks.every (k, " + dateCol + ") VALUES (-1, '2024-13-01')", nil, `Unable to coerce '2024-13-01' to a formatted date (long)`},
			{"INSERT INTO ks.every (k, " + tsCol + ") VALUES (-1, 'yesterday')", nil, `Unable to parse a date/time from 'yesterday'`},
			{"INSERT INTO ks.every (k, " + inetCol + ") VALUES (-1, 'nope')", nil, `Unable to make inet address from 'nope'`},
			{"INSERT INTO ks.every (k, " + blobCol + ") VALUES (-1, 'abc')", nil, `Invalid STRING constant (abc) for "` + blobCol + `" of type blob`},
			{"INSERT INTO ks.every (k, " + listCol + ") VALUES (-1, [1, 'a'])", nil, `Invalid list literal for ` + listCol + `: value 'a' is not of type int`}, // Lists.Literal.validateAssignableTo
			{"INSERT INTO ks.every (k, " + intCol + ") VALUES (-1, ?)", []any{rawValue{1, 2, 3}}, `Expected 4 or 0 byte int (3)`},
			{"INSERT INTO ks.every (k, " + dateCol + ") VALUES (-1, ?)", []any{rawValue{1}}, `Expected 4 byte long for date (1)`},
			{"INSERT INTO ks.every (k, " + listCol + ") VALUES (-1, ?)", []any{rawValue{0, 0, 0, 1, 0, 0, 0, 2, 0}}, ``},
		} {
			err := s.Query(c.q, c.args...).Exec()
			var rerr gocql.RequestError
			if !errors.As(err, &rerr) || rerr.Code() != gocql.ErrCodeInvalid || !strings.Contains(rerr.Message(), c.want) {
				t.Errorf("%s: got %v, want Invalid %q", c.q, err, c.want)
			}
		}
		// A batch with one bad statement stores nothing.
		b := s.Batch(gocql.LoggedBatch)
		b.Query("INSERT INTO ks.every (k, " + intCol + ") VALUES (-2, 1)")
		b.Query("INSERT INTO ks.every (k, "+intCol+") VALUES (-3, ?)", rawValue{1})
		if err := s.ExecuteBatch(b); err == nil {
			t.Errorf("bad batch succeeded")
		}
		var cnt int64
		if err := s.Query("SELECT count(*) FROM ks.every WHERE k IN (-1, -2, -3)").Scan(&cnt); err != nil || cnt != 0 {
			t.Errorf("rejected statements stored %d rows (%v)", cnt, err)
		}
	})
}

func colOf(cases []typeCase, cqlType string) string {
	for i, c := range cases {
		if c.cql == cqlType {
			return fmt.Sprintf("c%d", i)
		}
	}
	panic(cqlType)
}

// TestDriverClusteringOrder stores the edge values of every orderable type
// as a clustering column, ASC and DESC, and checks that rows come back in
// the order of types.Compare.
func TestDriverClusteringOrder(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	s := connect(t, n, 5, nil)
	defer s.Close()
	execAll(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for i, c := range driverTypeCases(t, createAddrType(t, s)) {
		if types.CheckKeyType(c.typ) != nil || c.typ.IsMultiCell() || c.typ.Kind == types.Vector {
			continue
		}
		var vals [][]byte
		for _, v := range c.values {
			if v == nil || (len(v) == 0 && c.typ.Kind != types.Text && c.typ.Kind != types.Ascii && c.typ.Kind != types.Blob) {
				continue
			}
			dup := false
			for _, w := range vals {
				dup = dup || types.Compare(c.typ, v, w) == 0
			}
			if !dup {
				vals = append(vals, v)
			}
		}
		t.Run(c.cql, func(t *testing.T) {
			tbl := fmt.Sprintf("ks.o%d", i)
			execAll(t, s, fmt.Sprintf("CREATE TABLE %s (k int, a %s, d %s, PRIMARY KEY (k, a, d)) WITH CLUSTERING ORDER BY (a ASC, d DESC)",
				tbl, c.cql, c.cql))
			// Partition 0 varies a (ASC), partition 1 varies d (DESC).
			for _, v := range vals {
				if err := s.Query("INSERT INTO "+tbl+" (k, a, d) VALUES (0, "+marker(c.typ)+", "+marker(c.typ)+")", append(bindArgs(c.typ, v), bindArgs(c.typ, vals[0])...)...).Exec(); err != nil {
					t.Fatalf("insert %x: %v", v, err)
				}
				if err := s.Query("INSERT INTO "+tbl+" (k, a, d) VALUES (1, "+marker(c.typ)+", "+marker(c.typ)+")", append(bindArgs(c.typ, vals[0]), bindArgs(c.typ, v)...)...).Exec(); err != nil {
					t.Fatalf("insert %x: %v", v, err)
				}
			}
			sorted := append([][]byte{}, vals...)
			sort.SliceStable(sorted, func(x, y int) bool { return types.Compare(c.typ, sorted[x], sorted[y]) < 0 })
			for _, dir := range []struct {
				k    int
				col  string
				desc bool
			}{{0, "a", false}, {1, "d", true}} {
				got := scanAllRaw(t, c.typ, s.Query(fmt.Sprintf("SELECT %s FROM %s WHERE k = %d", dir.col, tbl, dir.k)).Iter())
				if len(got) != len(sorted) {
					t.Fatalf("%s: %d rows, want %d", dir.col, len(got), len(sorted))
				}
				for x := range got {
					want := sorted[x]
					if dir.desc {
						want = sorted[len(sorted)-1-x]
					}
					// The bytes as written, as Cassandra returns them (a
					// decimal's scale, a varint's bytes, a NaN's payload).
					if !bytes.Equal(got[x], want) {
						t.Fatalf("%s desc=%v: row %d is %x, want %x (order %x)", dir.col, dir.desc, x, got[x], want, got)
					}
				}
			}
		})
	}
}

// TestDriverPagingWrittenForms pages one row at a time through rows whose
// clustering values were written in non-canonical forms: the paging state
// carries the bytes as written, and every page resumes after the right row.
func TestDriverPagingWrittenForms(t *testing.T) {
	_, s := driverNode(t, "CREATE TABLE ks.p (k int, c decimal, v int, PRIMARY KEY (k, c))")
	written := []string{"1.50", "2.0", "3", "4.000", "1E+1"}
	for i, w := range written {
		execAll(t, s, fmt.Sprintf("INSERT INTO ks.p (k, c, v) VALUES (0, %s, %d)", w, i))
	}
	for _, order := range []string{"ASC", "DESC"} {
		want := []string{"1.50", "2.0", "3", "4.000", "1E+1"}
		if order == "DESC" {
			slices.Reverse(want)
		}
		var got []string
		for _, v := range scanAllRaw(t, types.DecimalType, s.Query("SELECT c FROM ks.p WHERE k = 0 ORDER BY c "+order).PageSize(1).Iter()) {
			got = append(got, types.Format(types.DecimalType, v))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: got %v, want %v", order, got, want)
		}
	}
}

// TestDriverKeyLengthLimits ports InsertInvalidateSizedRecordsTest (5.0,
// CASSANDRA-18504): a row's partition key values together, and its
// clustering values together, must each fit in 65,535 bytes, and the
// message names their sum; a composite key may have empty components.
func TestDriverKeyLengthLimits(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.pk1 (a blob PRIMARY KEY)",
		"CREATE TABLE ks.pk2 (a blob, b blob, PRIMARY KEY ((a, b)))",
		"CREATE TABLE ks.ck1 (a blob, b blob, PRIMARY KEY (a, b))",
		"CREATE TABLE ks.ck2 (a blob, b blob, c blob, PRIMARY KEY (a, b, c))",
	)
	large := make([]byte, 65536)
	medium := make([]byte, 65535/2+10)
	for _, c := range []struct {
		q    string
		args []any
		want string // "" for success
	}{
		{"INSERT INTO ks.pk1 (a) VALUES (?)", []any{large}, "Key length of 65536 is longer than maximum of 65535"},
		{"INSERT INTO ks.pk1 (a) VALUES (?)", []any{[]byte{}}, "Key may not be empty"},
		{"INSERT INTO ks.pk2 (a, b) VALUES (?, ?)", []any{medium, medium}, "Key length of 65554 is longer than maximum of 65535"},
		{"INSERT INTO ks.pk2 (a, b) VALUES (?, ?)", []any{medium, large}, "Key length of 98313 is longer than maximum of 65535"},
		{"INSERT INTO ks.pk2 (a, b) VALUES (?, ?)", []any{medium[:32767], medium[:32768]}, ""},
		{"INSERT INTO ks.pk2 (a, b) VALUES (?, ?)", []any{[]byte{}, []byte{}}, ""},
		{"INSERT INTO ks.pk2 (a, b) VALUES (?, ?)", []any{medium, []byte{}}, ""},
		{"INSERT INTO ks.ck1 (a, b) VALUES (?, ?)", []any{medium, large}, "Key length of 65536 is longer than maximum of 65535"},
		{"INSERT INTO ks.ck1 (a, b) VALUES (?, ?)", []any{medium, []byte{}}, ""},
		{"INSERT INTO ks.ck2 (a, b, c) VALUES (?, ?, ?)", []any{medium, medium, medium}, "Key length of 65554 is longer than maximum of 65535"},
		{"INSERT INTO ks.ck2 (a, b, c) VALUES (?, ?, ?)", []any{medium, medium, large}, "Key length of 98313 is longer than maximum of 65535"},
		{"DELETE FROM ks.ck2 WHERE a = ? AND b = ? AND c = ?", []any{medium, medium, medium}, "Key length of 65554 is longer than maximum of 65535"},
	} {
		err := s.Query(c.q, c.args...).Exec()
		var rerr gocql.RequestError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s (%d bytes): %v", c.q, argBytes(c.args), err)
		case c.want != "" && (!errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != c.want):
			t.Errorf("%s (%d bytes): %v, want Invalid %q", c.q, argBytes(c.args), err, c.want)
		}
	}
}

func argBytes(args []any) (n int) {
	for _, a := range args {
		n += len(a.([]byte))
	}
	return n
}
