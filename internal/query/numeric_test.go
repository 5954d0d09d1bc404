package query

import (
	"math"
	"math/big"
	"testing"

	"github.com/cqld/cqld/internal/types"
)

// TestPromote checks OperationFcts' result type rule on a few cells of its
// matrix: the wider size, floating point if either side is.
func TestPromote(t *testing.T) {
	for _, c := range []struct{ a, b, want *types.Type }{
		{types.TinyintType, types.TinyintType, types.TinyintType},
		{types.TinyintType, types.SmallintType, types.SmallintType},
		{types.IntType, types.BigintType, types.BigintType},
		{types.IntType, types.FloatType, types.FloatType},
		{types.BigintType, types.FloatType, types.DoubleType},
		{types.CounterType, types.IntType, types.BigintType},
		{types.IntType, types.VarintType, types.VarintType},
		{types.DoubleType, types.VarintType, types.DecimalType},
		{types.IntType, types.DecimalType, types.DecimalType},
	} {
		if got := promote(c.a, c.b); !got.Equal(c.want) {
			t.Errorf("promote(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestArithWrapsLikeJava(t *testing.T) {
	i := func(v int64) num { return num{kind: types.Int, i: v} }
	r, err := arith(types.IntType, '+', i(math.MaxInt32), i(1))
	if err != nil || r.i != math.MinInt32 {
		t.Fatalf("MaxInt32 + 1 = %v, %v", r.i, err)
	}
	r, err = arith(types.BigintType, '/', num{kind: types.Bigint, i: math.MinInt64}, num{kind: types.Bigint, i: -1})
	if err != nil || r.i != math.MinInt64 {
		t.Fatalf("MinInt64 / -1 = %v, %v", r.i, err)
	}
	if _, err := arith(types.IntType, '%', i(1), i(0)); err == nil {
		t.Fatal("1 % 0 did not fail")
	}
	r, err = arith(types.IntType, '%', i(-7), i(3))
	if err != nil || r.i != -1 {
		t.Fatalf("-7 %% 3 = %v (Java: -1)", r.i)
	}
}

func TestRatToDecimal(t *testing.T) {
	for _, c := range []struct {
		r     *big.Rat
		prec  int
		u     string
		scale int32
	}{
		{big.NewRat(1, 4), 0, "25", 2},
		{big.NewRat(10, 1), 0, "10", 0},
		{big.NewRat(1, 3), 34, "3333333333333333333333333333333333", 34},
		{big.NewRat(2, 3), 34, "6666666666666666666666666666666667", 34},
		{big.NewRat(1, 2), 34, "5", 1},
		{big.NewRat(-5, 2), 0, "-25", 1},
	} {
		u, s := ratToDecimal(c.r, c.prec)
		if u.String() != c.u || s != c.scale {
			t.Errorf("ratToDecimal(%s, %d) = %s scale %d, want %s scale %d", c.r, c.prec, u, s, c.u, c.scale)
		}
	}
}

func TestBoundTimeUUID(t *testing.T) {
	// minTimeuuid('2013-02-02 10:00+0000') as Cassandra computes it.
	got := boundTimeUUID(1359799200000, false)
	want := "4e52d000-6d1f-11e2-8080-808080808080"
	if s := types.Format(types.TimeuuidType, got); s != want {
		t.Fatalf("minTimeuuid = %s, want %s", s, want)
	}
	u, _ := types.DecodeUUID(boundTimeUUID(1359799200000, true))
	if ms := uuidMillis(u); ms != 1359799200000 {
		t.Fatalf("maxTimeuuid millis = %d", ms)
	}
}

func TestSumAggregates(t *testing.T) {
	a := newSumAgg(types.IntType, true)
	for _, v := range []int32{math.MaxInt32, math.MaxInt32, 1} {
		_ = a.add(types.EncodeInt(v), false)
	}
	b, _ := a.result()
	if v, _ := types.DecodeInt(b); v != 1431655765 {
		t.Fatalf("avg without overflow = %d", v)
	}
	s := newSumAgg(types.IntType, false)
	_ = s.add(types.EncodeInt(math.MaxInt32), false)
	_ = s.add(types.EncodeInt(1), false)
	b, _ = s.result()
	if v, _ := types.DecodeInt(b); v != math.MinInt32 {
		t.Fatalf("int sum wraps: %d", v)
	}
}

// TestStripZeros checks stripZeros against one division per digit, and
// that a value with 100,000 trailing zeros is stripped in a few divisions.
func TestStripZeros(t *testing.T) {
	for _, c := range []struct {
		u     string
		limit int
		want  string
		n     int
	}{
		{"1", 10, "1", 0}, {"10", 10, "1", 1}, {"-1200", 10, "-12", 2}, {"1000", 2, "10", 2},
		{"1024000", 100, "1024", 3}, {"70000000", 100, "7", 7}, {"5", 0, "5", 0},
	} {
		u, _ := new(big.Int).SetString(c.u, 10)
		got, n := stripZeros(u, c.limit)
		if got.String() != c.want || n != c.n {
			t.Errorf("stripZeros(%s, %d) = %s, %d; want %s, %d", c.u, c.limit, got, n, c.want, c.n)
		}
		if u.String() != c.u {
			t.Errorf("stripZeros changed its argument to %s", u)
		}
	}
	big1 := new(big.Int).Mul(big.NewInt(3), pow10(100000))
	if got, n := stripZeros(big1, math.MaxInt); got.Int64() != 3 || n != 100000 {
		t.Errorf("1E+100000: %s, %d", got, n)
	}
	d := bigDecimal{u: big.NewInt(1), scale: -100000}
	if q := d.divide(bigDecimal{u: big.NewInt(1)}); q.u.Int64() != 1 || q.scale != -100000 {
		t.Errorf("1E+100000 / 1 = %s scale %d", q.u, q.scale)
	}
	if r := d.remainder(bigDecimal{u: big.NewInt(1)}); r.u.Sign() != 0 {
		t.Errorf("1E+100000 %% 1 = %s scale %d", r.u, r.scale)
	}
}

// TestRoundPrecisionCarry checks that rounding which carries into a new
// digit still leaves at most the precision (BigDecimal rounds again).
func TestRoundPrecisionCarry(t *testing.T) {
	nines := new(big.Int).Sub(pow10(maxDecimalPrecision+1), big.NewInt(1)) // 10,001 nines
	r := bigDecimal{u: nines}.roundPrecision(maxDecimalPrecision)
	if r.precision() != maxDecimalPrecision || r.scale != -2 || r.u.Cmp(pow10(maxDecimalPrecision-1)) != 0 {
		t.Fatalf("precision %d scale %d", r.precision(), r.scale)
	}
	small := bigDecimal{u: big.NewInt(12345), scale: 2}
	if got := small.roundPrecision(maxDecimalPrecision); got.u.Int64() != 12345 || got.scale != 2 {
		t.Fatalf("small value changed: %s scale %d", got.u, got.scale)
	}
}
