package query

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// This file holds the numeric machinery shared by arithmetic selectors,
// math functions, casts and aggregates. It follows Cassandra's NumberType
// family: fixed-width integers wrap like Java's (no overflow error), float
// and double follow IEEE 754, varint is exact, and decimal arithmetic is
// BigDecimal's as DecimalType does it (bigDecimal below).

// isNumeric reports whether t is one of Cassandra's NumberType types.
func isNumeric(t *types.Type) bool {
	switch t.Kind {
	case types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Counter,
		types.Float, types.Double, types.Varint, types.Decimal:
		return true
	}
	return false
}

// numSize is OperationFcts' size of a number type (MaxInt for the exact
// types), used for result type promotion.
func numSize(t *types.Type) int {
	switch t.Kind {
	case types.Tinyint:
		return 1
	case types.Smallint:
		return 2
	case types.Int, types.Float:
		return 4
	case types.Bigint, types.Counter, types.Double:
		return 8
	}
	return math.MaxInt32
}

func isFloating(t *types.Type) bool {
	return t.Kind == types.Float || t.Kind == types.Double || t.Kind == types.Decimal
}

// promote returns the result type of an arithmetic operation on a and b.
func promote(a, b *types.Type) *types.Type {
	size := numSize(a)
	if s := numSize(b); s > size {
		size = s
	}
	if isFloating(a) || isFloating(b) {
		switch size {
		case 1, 2, 4:
			return types.FloatType
		case 8:
			return types.DoubleType
		}
		return types.DecimalType
	}
	switch size {
	case 1:
		return types.TinyintType
	case 2:
		return types.SmallintType
	case 4:
		return types.IntType
	case 8:
		return types.BigintType
	}
	return types.VarintType
}

// num is a decoded number.
type num struct {
	kind types.Kind
	i    int64    // fixed-width integers
	f    float64  // float, double
	r    *big.Rat // varint, decimal
	// dec is a decimal's BigDecimal (unscaled value and scale), kept so
	// that arithmetic keeps scales as Java does; nil u when only r is known.
	dec bigDecimal
}

func decodeNum(t *types.Type, v []byte) (num, error) {
	n := num{kind: t.Kind}
	switch t.Kind {
	case types.Tinyint:
		x, err := types.DecodeTinyint(v)
		n.i = int64(x)
		return n, err
	case types.Smallint:
		x, err := types.DecodeSmallint(v)
		n.i = int64(x)
		return n, err
	case types.Int:
		x, err := types.DecodeInt(v)
		n.i = int64(x)
		return n, err
	case types.Bigint, types.Counter:
		x, err := types.DecodeBigint(v)
		n.i = x
		n.kind = types.Bigint
		return n, err
	case types.Float:
		x, err := types.DecodeFloat(v)
		n.f = float64(x)
		return n, err
	case types.Double:
		x, err := types.DecodeDouble(v)
		n.f = x
		return n, err
	case types.Varint:
		n.r = new(big.Rat).SetInt(types.DecodeVarintBytes(v))
		return n, nil
	case types.Decimal:
		u, scale, err := types.DecodeDecimal(v)
		if err != nil {
			return n, err
		}
		if scale > maxArithScale || scale < -maxArithScale {
			return n, cqlerr.Invalidf("Decimal scale %d is out of the supported range for arithmetic", scale)
		}
		// Only the BigDecimal form: rat() derives the rational when
		// something asks for it (decimal arithmetic never does).
		n.dec = bigDecimal{u: u, scale: scale}
		return n, nil
	}
	return n, cqlerr.Invalidf("%s is not a numeric type", t)
}

func decimalRat(u *big.Int, scale int32) *big.Rat {
	r := new(big.Rat).SetInt(u)
	if scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(pow10(int(scale))))
	} else if scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(pow10(int(-scale))))
	}
	return r
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// rat returns n as an exact rational (floats by their exact binary value).
func (n num) rat() *big.Rat {
	switch n.kind {
	case types.Float, types.Double:
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return nil
		}
		// BigDecimal.valueOf(double) uses Double.toString: the shortest repr.
		bits := 64
		if n.kind == types.Float {
			bits = 32
		}
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(n.f, 'g', -1, bits))
		return r
	case types.Varint, types.Decimal:
		if n.r == nil && n.dec.u != nil {
			return decimalRat(n.dec.u, n.dec.scale)
		}
		return n.r
	}
	return new(big.Rat).SetInt64(n.i)
}

func (n num) float() float64 {
	switch n.kind {
	case types.Float, types.Double:
		return n.f
	case types.Varint, types.Decimal:
		f, _ := n.rat().Float64()
		return f
	}
	return float64(n.i)
}

// int64 returns n truncated to an integer (Java's longValue()).
func (n num) int64() int64 {
	switch n.kind {
	case types.Float, types.Double:
		return javaF2L(n.f)
	case types.Varint, types.Decimal:
		r := n.rat()
		q := new(big.Int).Quo(r.Num(), r.Denom())
		return q.Int64() // low 64 bits, as BigInteger.longValue()
	}
	return n.i
}

// javaF2L and javaF2I are Java's saturating (long) and (int) casts of a
// double: NaN is 0, out-of-range values clamp.
func javaF2L(f float64) int64 { return javaF2Int[int64](f, math.MinInt64, math.MaxInt64) }

func javaF2I(f float64) int32 { return javaF2Int[int32](f, math.MinInt32, math.MaxInt32) }

func javaF2Int[T int32 | int64](f float64, lo, hi T) T {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= float64(hi):
		return hi
	case f <= float64(lo):
		return lo
	}
	return T(f)
}

func (n num) bigInt() *big.Int {
	switch n.kind {
	case types.Float, types.Double:
		r := n.rat()
		if r == nil {
			return new(big.Int)
		}
		return new(big.Int).Quo(r.Num(), r.Denom())
	case types.Varint, types.Decimal:
		r := n.rat()
		return new(big.Int).Quo(r.Num(), r.Denom())
	}
	return big.NewInt(n.i)
}

// encodeNum converts n to type t (Java's narrowing conversions).
func encodeNum(t *types.Type, n num) ([]byte, error) {
	switch t.Kind {
	case types.Tinyint:
		return types.EncodeTinyint(int8(n.int64())), nil
	case types.Smallint:
		return types.EncodeSmallint(int16(n.int64())), nil
	case types.Int:
		if n.kind == types.Float || n.kind == types.Double {
			return types.EncodeInt(javaF2I(n.f)), nil
		}
		return types.EncodeInt(int32(n.int64())), nil
	case types.Bigint, types.Counter:
		return types.EncodeBigint(n.int64()), nil
	case types.Float:
		return types.EncodeFloat(float32(n.float())), nil
	case types.Double:
		return types.EncodeDouble(n.float()), nil
	case types.Varint:
		return types.EncodeVarint(n.bigInt()), nil
	case types.Decimal:
		if n.kind == types.Decimal && n.dec.u != nil {
			return types.EncodeDecimal(n.dec.u, n.dec.scale), nil
		}
		r := n.rat()
		if r == nil {
			return nil, cqlerr.Invalidf("Cannot convert %v to decimal", n.f)
		}
		u, scale := ratToDecimal(r, 0)
		return types.EncodeDecimal(u, scale), nil
	}
	return nil, cqlerr.Invalidf("%s is not a numeric type", t)
}

// ratToDecimal converts r to an unscaled value and scale. With prec == 0 the
// conversion must be exact (r has a finite decimal expansion, which holds for
// every value built from decimals, integers and doubles) and uses the
// smallest non-negative scale; otherwise it rounds half-even to prec
// significant digits and strips trailing zeros.
func ratToDecimal(r *big.Rat, prec int) (*big.Int, int32) {
	if r.Sign() == 0 {
		return new(big.Int), 0
	}
	if prec == 0 {
		num, den := new(big.Int).Set(r.Num()), r.Denom()
		scale := int32(0)
		ten := big.NewInt(10)
		for scale < 400 {
			q, m := new(big.Int).QuoRem(num, den, new(big.Int))
			if m.Sign() == 0 {
				return q, scale
			}
			num.Mul(num, ten)
			scale++
		}
		prec = 34
	}
	// Position of the most significant digit.
	abs := new(big.Rat).Abs(r)
	e := len(new(big.Int).Quo(abs.Num(), abs.Denom()).String()) - 1
	if abs.Cmp(big.NewRat(1, 1)) < 0 {
		// count leading zeros after the point
		e = -1
		x := new(big.Rat).Set(abs)
		ten := big.NewRat(10, 1)
		for x.Mul(x, ten).Cmp(big.NewRat(1, 1)) < 0 {
			e--
		}
	}
	scale := int32(prec - 1 - e)
	scaled := new(big.Rat).Set(r)
	if scale >= 0 {
		scaled.Mul(scaled, new(big.Rat).SetInt(pow10(int(scale))))
	} else {
		scaled.Quo(scaled, new(big.Rat).SetInt(pow10(int(-scale))))
	}
	u := roundHalfEven(scaled)
	// Strip trailing zeros (down to scale 0).
	ten := big.NewInt(10)
	for scale > 0 {
		q, m := new(big.Int).QuoRem(u, ten, new(big.Int))
		if m.Sign() != 0 {
			break
		}
		u = q
		scale--
	}
	return u, scale
}

func roundHalfEven(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	c := twice.Cmp(r.Denom())
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// wrap narrows an int64 result to the width of kind, as Java's casts do.
func wrap(kind types.Kind, x int64) int64 {
	switch kind {
	case types.Tinyint:
		return int64(int8(x))
	case types.Smallint:
		return int64(int16(x))
	case types.Int:
		return int64(int32(x))
	}
	return x
}

// arith computes a op b in the (already promoted) type t. Integer division
// or remainder by zero fails as Java's ArithmeticException does.
func arith(t *types.Type, op byte, a, b num) (num, error) {
	out := num{kind: t.Kind}
	switch t.Kind {
	case types.Tinyint, types.Smallint, types.Int, types.Bigint:
		x, y := a.int64(), b.int64()
		switch op {
		case '+':
			out.i = x + y
		case '-':
			out.i = x - y
		case '*':
			out.i = x * y
		case '/', '%':
			if y == 0 {
				return out, errDivByZero
			}
			if y == -1 {
				// MinInt / -1 wraps in Java.
				if op == '/' {
					out.i = -x
				} else {
					out.i = 0
				}
			} else if op == '/' {
				out.i = x / y
			} else {
				out.i = x % y
			}
		}
		out.i = wrap(t.Kind, out.i)
	case types.Float, types.Double:
		x, y := a.float(), b.float()
		switch op {
		case '+':
			out.f = x + y
		case '-':
			out.f = x - y
		case '*':
			out.f = x * y
		case '/':
			out.f = x / y
		case '%':
			out.f = math.Mod(x, y)
		}
		if t.Kind == types.Float {
			out.f = float64(float32(out.f))
		}
	case types.Varint:
		x, y := a.bigInt(), b.bigInt()
		z := new(big.Int)
		switch op {
		case '+':
			z.Add(x, y)
		case '-':
			z.Sub(x, y)
		case '*':
			z.Mul(x, y)
		case '/', '%':
			if y.Sign() == 0 {
				return out, errDivByZero
			}
			if op == '/' {
				z.Quo(x, y)
			} else {
				z.Rem(x, y)
			}
		}
		out.r = new(big.Rat).SetInt(z)
	case types.Decimal:
		x, ok := a.toBigDecimal()
		y, ok2 := b.toBigDecimal()
		if !ok || !ok2 {
			return out, cqlerr.Invalidf("Cannot convert NaN or Infinity to decimal")
		}
		var z bigDecimal
		switch op {
		case '+':
			z = x.add(y, false)
		case '-':
			z = x.add(y, true)
		case '*':
			z = bigDecimal{u: new(big.Int).Mul(x.u, y.u), scale: x.scale + y.scale}.roundPrecision(maxDecimalPrecision)
		case '/', '%':
			if y.u.Sign() == 0 {
				return out, cqlerr.Invalidf("Division by zero")
			}
			if op == '/' {
				z = x.divide(y)
			} else {
				z = x.remainder(y)
			}
		}
		out.dec = z // what encodeNum writes; r is left unset
	}
	return out, nil
}

// negateNum is -n in type t (the _negate function): a decimal keeps its
// scale (BigDecimal.negate), a float's sign flips (-0.0 included), other
// types subtract from zero.
func negateNum(t *types.Type, n num) (num, error) {
	switch {
	case t.Kind == types.Decimal && n.kind == types.Decimal && n.dec.u != nil:
		return num{kind: types.Decimal, dec: bigDecimal{u: new(big.Int).Neg(n.dec.u), scale: n.dec.scale}}, nil
	case (t.Kind == types.Float || t.Kind == types.Double) && (n.kind == types.Float || n.kind == types.Double):
		return num{kind: t.Kind, f: -n.f}, nil
	}
	return arith(t, '-', num{kind: types.Tinyint}, n)
}

// errNonFiniteDecimal is BigDecimal's refusal of a NaN or infinite double
// (new BigDecimal(Double.toString(f)) reads the sign, then fails on the
// first letter).
func errNonFiniteDecimal(f float64, bits int) error {
	s := strings.TrimLeft(types.JavaDouble(f, bits), "-")
	return cqlerr.Invalidf("Character %s is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.", s[:1])
}

// bigDecimal is a java.math.BigDecimal: u × 10^-scale. DecimalType's
// arithmetic (5.0) is reproduced on it: add, subtract and multiply are
// exact up to 10,000 digits (MathContext(10000), HALF_UP); divide keeps at
// least 32 decimal places (CASSANDRA-15232) and strips trailing zeros.
type bigDecimal struct {
	u     *big.Int
	scale int32
}

const (
	maxDecimalPrecision = 10000 // DecimalType.MAX_PRECISION
	minDivisionScale    = 32    // DecimalType.MIN_SCALE, MIN_SIGNIFICANT_DIGITS
	maxDivisionScale    = 1000  // DecimalType.MAX_SCALE
)

// toBigDecimal is DecimalType.toBigDecimal(Number): a decimal as it is, a
// varint exactly, anything else through its double value and
// BigDecimal.valueOf (Double.toString: 1 is 1.0, a float 5.2 is
// 5.199999809265137). ok is false for NaN and infinities.
func (n num) toBigDecimal() (bigDecimal, bool) {
	switch n.kind {
	case types.Decimal:
		if n.dec.u != nil {
			return n.dec, true
		}
		u, scale := ratToDecimal(n.r, 0)
		return bigDecimal{u: u, scale: scale}, true
	case types.Varint:
		return bigDecimal{u: n.bigInt()}, true
	}
	f := n.float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return bigDecimal{}, false
	}
	v, err := types.ParseString(types.DecimalType, types.JavaDouble(f, 64))
	if err != nil {
		return bigDecimal{}, false
	}
	u, scale, err := types.DecodeDecimal(v)
	if err != nil {
		return bigDecimal{}, false
	}
	return bigDecimal{u: u, scale: scale}, true
}

// rescaled returns d's unscaled value at a scale s >= d.scale.
func (d bigDecimal) rescaled(s int32) *big.Int {
	if s == d.scale {
		return d.u
	}
	return new(big.Int).Mul(d.u, pow10(int(s-d.scale)))
}

// add is d + e (or d - e): the larger scale, rounded to the precision.
func (d bigDecimal) add(e bigDecimal, sub bool) bigDecimal {
	s := max(d.scale, e.scale)
	z := new(big.Int)
	if sub {
		z.Sub(d.rescaled(s), e.rescaled(s))
	} else {
		z.Add(d.rescaled(s), e.rescaled(s))
	}
	return bigDecimal{u: z, scale: s}.roundPrecision(maxDecimalPrecision)
}

// precision is BigDecimal.precision(): the digits of the unscaled value.
func (d bigDecimal) precision() int {
	if d.u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(d.u).String())
}

// roundPrecision rounds to at most prec significant digits, HALF_UP
// (MathContext's default), as BigDecimal's operations with a MathContext.
func (d bigDecimal) roundPrecision(prec int) bigDecimal {
	if d.u.BitLen() < prec*3 { // fewer than prec digits: 10^prec > 2^(3*prec)
		return d
	}
	drop := d.precision() - prec
	if drop <= 0 {
		return d
	}
	r := bigDecimal{u: divHalfUp(d.u, pow10(drop)), scale: d.scale - int32(drop)}
	if r.precision() > prec {
		// 99…9 rounded up to 10…0: one digit more, exactly divisible.
		r = bigDecimal{u: new(big.Int).Quo(r.u, big.NewInt(10)), scale: r.scale - 1}
	}
	return r
}

// divHalfUp is x / y rounded half away from zero.
func divHalfUp(x, y *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(x, y, new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if twice.Cmp(new(big.Int).Abs(y)) >= 0 {
		if (x.Sign() < 0) != (y.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// divide is DecimalType.divide: the quotient at a scale that gives at least
// 32 significant digits and no fewer decimal places than either operand
// (at least 32, at most 1000), HALF_UP, then stripTrailingZeros.
func (d bigDecimal) divide(e bigDecimal) bigDecimal {
	first := (d.precision() - int(d.scale)) - (e.precision() - int(e.scale))
	scale := int32(max(minDivisionScale-first, int(d.scale), int(e.scale), minDivisionScale))
	scale = min(scale, maxDivisionScale)
	// d/e × 10^scale = d.u × 10^(scale - d.scale + e.scale) / e.u
	num, den := new(big.Int).Set(d.u), new(big.Int).Set(e.u)
	if k := int(scale) - int(d.scale) + int(e.scale); k >= 0 {
		num.Mul(num, pow10(k))
	} else {
		den.Mul(den, pow10(-k))
	}
	return bigDecimal{u: divHalfUp(num, den), scale: scale}.stripTrailingZeros()
}

// stripTrailingZeros is BigDecimal.stripTrailingZeros: the scale may turn
// negative (100 is 1E+2); zero is 0.
func (d bigDecimal) stripTrailingZeros() bigDecimal {
	if d.u.Sign() == 0 {
		return bigDecimal{u: new(big.Int)}
	}
	u, n := stripZeros(d.u, math.MaxInt)
	return bigDecimal{u: u, scale: d.scale - int32(n)}
}

// stripZeros divides u (not zero) by the largest power of ten up to
// 10^limit that divides it, and returns the quotient and that exponent.
// 10^k divides u only if 2^k does, and the exponent is found by halving
// steps: O(log) divisions, where one per digit would let a 5-byte
// 1E+100000 cost seconds per row.
func stripZeros(u *big.Int, limit int) (*big.Int, int) {
	limit = min(limit, int(u.TrailingZeroBits()))
	step := 1
	for step*2 <= limit {
		step *= 2
	}
	n := 0
	for ; step > 0; step /= 2 {
		if n+step > limit {
			continue
		}
		if q, r := new(big.Int).QuoRem(u, pow10(step), new(big.Int)); r.Sign() == 0 {
			u, n = q, n+step
		}
	}
	return u, n
}

// remainder is BigDecimal.remainder: d - e × trunc(d/e), at the scale
// Java's divideToIntegralValue and subtract give it.
func (d bigDecimal) remainder(e bigDecimal) bigDecimal {
	// trunc(d/e) = d.u × 10^e.scale / (e.u × 10^d.scale), truncated.
	num, den := new(big.Int).Set(d.u), new(big.Int).Set(e.u)
	if k := int(e.scale) - int(d.scale); k >= 0 {
		num.Mul(num, pow10(k))
	} else {
		den.Mul(den, pow10(-k))
	}
	q := new(big.Int).Quo(num, den)
	// The quotient's scale: the preferred d.scale - e.scale if that is not
	// negative, else as many of its trailing zeros as that allows.
	qs := d.scale - e.scale
	if qs < 0 {
		tz := int(-qs)
		if q.Sign() != 0 {
			_, tz = stripZeros(q, tz)
		}
		qs = -int32(tz)
	}
	prod := bigDecimal{u: new(big.Int).Mul(q, e.u), scale: e.scale}
	// q × 10^-qs... as a BigDecimal with scale qs: unscaled q×10^qs.
	if qs >= 0 {
		prod = bigDecimal{u: new(big.Int).Mul(prod.u, pow10(int(qs))), scale: prod.scale + qs}
	} else {
		prod = bigDecimal{u: new(big.Int).Quo(prod.u, pow10(int(-qs))), scale: prod.scale + qs}
	}
	return d.add(prod, true)
}

// maxArithScale bounds decimal scales in computations: a hostile value
// with a scale near 2^31 would otherwise cost unbounded time and memory.
const maxArithScale = 100000

var errDivByZero = cqlerr.Invalidf("/ by zero")
