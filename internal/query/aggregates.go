package query

import (
	"math"
	"math/big"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// Native aggregates (AggregateFcts): count, min, max, sum, avg. Result types
// are the argument's (count is bigint); fixed-width integer sums wrap like
// Java's, integer averages are computed without overflow and truncated,
// float/double sums use Kahan summation, decimal and varint are exact.

type aggregator interface {
	// add folds one input value (nil: null). row is set for count(*).
	add(v []byte, row bool) error
	result() ([]byte, error)
	reset()
}

type countAgg struct{ n int64 }

func (a *countAgg) add(v []byte, row bool) error {
	if row || v != nil {
		a.n++
	}
	return nil
}
func (a *countAgg) result() ([]byte, error) { return types.EncodeBigint(a.n), nil }
func (a *countAgg) reset()                  { a.n = 0 }

type minMaxAgg struct {
	t   *types.Type
	max bool
	v   []byte
}

func (a *minMaxAgg) add(v []byte, _ bool) error {
	if v == nil {
		return nil
	}
	if a.v == nil {
		a.v = v
		return nil
	}
	c := types.Compare(a.t, v, a.v)
	if a.max && c > 0 || !a.max && c < 0 {
		a.v = v
	}
	return nil
}
func (a *minMaxAgg) result() ([]byte, error) { return a.v, nil }
func (a *minMaxAgg) reset()                  { a.v = nil }

// sumAgg is sum and avg over every numeric type.
type sumAgg struct {
	t     *types.Type
	avg   bool
	count int64
	// fixed-width integers: i, switching to big on overflow (avg only)
	i   int64
	big *big.Int
	// float/double: Kahan summation; an avg whose sum overflows goes on
	// in r/scale as BigDecimal.valueOf of each value (FloatAvgAggregate)
	sum, comp, simple float64
	overflow          bool
	// varint/decimal
	r     *big.Rat
	scale int32
}

func newSumAgg(t *types.Type, avg bool) *sumAgg {
	a := &sumAgg{t: t, avg: avg}
	a.reset()
	return a
}

func (a *sumAgg) reset() {
	a.count, a.i, a.big = 0, 0, nil
	a.sum, a.comp, a.simple, a.overflow = 0, 0, 0, false
	a.r, a.scale = new(big.Rat), 0
}

func (a *sumAgg) add(v []byte, _ bool) error {
	if v == nil || len(v) == 0 {
		return nil
	}
	n, err := decodeNum(a.t, v)
	if err != nil {
		return err
	}
	a.count++
	switch a.t.Kind {
	case types.Float, types.Double:
		x := n.f
		if a.overflow {
			a.addJavaDecimal(x)
			return nil
		}
		a.simple += x
		prev := a.sum
		tmp := x - a.comp
		rounded := a.sum + tmp
		a.comp = (rounded - a.sum) - tmp
		a.sum = rounded
		if a.avg && math.IsInf(a.sum, 0) && !math.IsInf(x, 0) && !math.IsNaN(x) {
			a.overflow = true
			a.scale = math.MinInt32 // the scale of the first value added
			a.addJavaDecimal(prev)
			a.addJavaDecimal(x)
		}
	case types.Varint:
		a.r.Add(a.r, n.r)
	case types.Decimal:
		_, s, _ := types.DecodeDecimal(v)
		if s > a.scale {
			a.scale = s
		}
		a.r.Add(a.r, n.r)
	default:
		if !a.avg {
			a.i = wrap(a.t.Kind, a.i+n.i)
			return nil
		}
		if a.big != nil {
			a.big.Add(a.big, big.NewInt(n.i))
			return nil
		}
		s := a.i + n.i
		if (n.i > 0 && s < a.i) || (n.i < 0 && s > a.i) {
			a.big = new(big.Int).Add(big.NewInt(a.i), big.NewInt(n.i))
			return nil
		}
		a.i = s
	}
	return nil
}

func (a *sumAgg) result() ([]byte, error) {
	t := a.t
	switch t.Kind {
	case types.Float, types.Double:
		if a.overflow {
			// bigSum.divide(count, HALF_EVEN).doubleValue(): the sum's
			// scale is kept.
			unit := ratPow10(a.scale)
			r := new(big.Rat).Quo(a.r, new(big.Rat).SetInt64(a.count))
			q := new(big.Rat).SetInt(roundHalfEven(r.Mul(r, unit)))
			f, _ := q.Quo(q, unit).Float64()
			return encodeNum(t, num{kind: types.Double, f: f})
		}
		s := a.sum + a.comp
		if math.IsNaN(s) && math.IsInf(a.simple, 0) {
			s = a.simple
		}
		if a.avg {
			if a.count == 0 {
				s = 0
			} else {
				s /= float64(a.count)
			}
		}
		return encodeNum(t, num{kind: types.Double, f: s})
	case types.Varint:
		s := new(big.Int).Quo(a.r.Num(), a.r.Denom())
		if a.avg && a.count > 0 {
			s.Quo(s, big.NewInt(a.count))
		} else if a.avg {
			s.SetInt64(0)
		}
		return types.EncodeVarint(s), nil
	case types.Decimal:
		r := new(big.Rat).Set(a.r)
		if a.avg {
			if a.count == 0 {
				return types.EncodeDecimal(new(big.Int), 0), nil
			}
			// BigDecimal.divide(count, HALF_EVEN): the sum's scale is kept.
			r.Quo(r, new(big.Rat).SetInt64(a.count))
			scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(int(a.scale))))
			return types.EncodeDecimal(roundHalfEven(scaled), a.scale), nil
		}
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(int(a.scale))))
		return types.EncodeDecimal(new(big.Int).Quo(scaled.Num(), scaled.Denom()), a.scale), nil
	}
	v := a.i
	if a.avg {
		switch {
		case a.count == 0:
			v = 0
		case a.big != nil:
			v = new(big.Int).Quo(a.big, big.NewInt(a.count)).Int64()
		default:
			v = a.i / a.count
		}
	}
	return encodeNum(t, num{kind: types.Bigint, i: v})
}

func (sc *selCompiler) compileAggregate(fn string, x *cql.FunctionSel) (*selExpr, error) {
	if sc.inAgg {
		return nil, cqlerr.Invalidf("aggregate functions cannot be used as arguments of aggregate functions")
	}
	if fn == "count" && (x.Star || len(x.Args) == 1 && isCountOne(x.Args[0])) {
		return &selExpr{node: &aggNode{acc: &countAgg{}}, name: "count", typ: types.BigintType, agg: true}, nil
	}
	if len(x.Args) != 1 {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 1 required but %d provided", fn, len(x.Args))
	}
	sc.inAgg = true
	arg, err := sc.compile(x.Args[0])
	sc.inAgg = false
	if err != nil {
		return nil, err
	}
	typ := arg.typ
	var acc aggregator
	ret := typ
	switch fn {
	case "count":
		acc, ret = &countAgg{}, types.BigintType
	case "min":
		acc = &minMaxAgg{t: typ}
	case "max":
		acc = &minMaxAgg{t: typ, max: true}
	case "sum", "avg":
		if !isNumeric(typ) {
			return nil, cqlerr.Invalidf("Invalid call to function system.%s, none of its type signatures match (known type signatures: %s)", fn, aggSignatures(fn))
		}
		acc = newSumAgg(typ, fn == "avg")
	}
	return &selExpr{node: &aggNode{arg: arg.node, acc: acc}, name: "system." + fn + "(" + arg.name + ")", typ: ret, agg: true}, nil
}

func aggSignatures(fn string) string {
	s := ""
	for i, t := range []string{"tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "varint", "counter"} {
		if i > 0 {
			s += ", "
		}
		s += "system." + fn + " : (" + t + ") -> " + t
	}
	return s
}

// aggregationWarning is the client warning Cassandra 5.0's SelectStatement
// sends with aggregation queries (GROUP BY or aggregates) that do not
// restrict the partition key to one partition.
func (p *selectPlan) aggregationWarning() string {
	if p.pk == nil {
		if p.tokenLower != nil || p.tokenUpper != nil {
			return ""
		}
		return "Aggregation query used without partition key"
	}
	if hasIn(p.pk) {
		return "Aggregation query used on multiple partition keys (IN restriction)"
	}
	return ""
}

// addJavaDecimal adds BigDecimal.valueOf(f) to the exact sum: the decimal
// of Double.toString(f), whose scale the average keeps. An infinite or NaN
// value, which BigDecimal refuses (Cassandra fails the query), ends the
// exact sum: the average is then that value, as in double arithmetic.
func (a *sumAgg) addJavaDecimal(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		a.overflow = false
		a.sum, a.comp, a.simple = f, 0, f
		return
	}
	v, err := types.ParseString(types.DecimalType, types.JavaDouble(f, 64))
	if err != nil {
		return
	}
	u, scale, err := types.DecodeDecimal(v)
	if err != nil {
		return
	}
	if scale > a.scale {
		a.scale = scale
	}
	a.r.Add(a.r, new(big.Rat).Quo(new(big.Rat).SetInt(u), ratPow10(scale)))
}

// ratPow10 is 10^e as a rational, for any sign of e.
func ratPow10(e int32) *big.Rat {
	if e >= 0 {
		return new(big.Rat).SetInt(pow10(int(e)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), pow10(int(-e)))
}
