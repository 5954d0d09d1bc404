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
	// in bigSum, adding BigDecimal.valueOf of each value (FloatAvgAggregate)
	sum, comp, simple float64
	overflow          bool
	bigSum            bigDecimal
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
	a.sum, a.comp, a.simple, a.overflow, a.bigSum = 0, 0, 0, false, bigDecimal{}
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
			return a.addBig(x)
		}
		a.simple += x
		prev := a.sum
		tmp := x - a.comp
		rounded := a.sum + tmp
		a.comp = (rounded - a.sum) - tmp
		a.sum = rounded
		if a.avg && math.IsInf(a.sum, 0) && !math.IsInf(x, 0) && !math.IsNaN(x) {
			a.overflow = true
			a.bigSum, _ = num{kind: types.Double, f: prev}.toBigDecimal()
			return a.addBig(x)
		}
	case types.Varint:
		a.r.Add(a.r, n.r)
	case types.Decimal:
		a.scale = max(a.scale, n.dec.scale)
		a.r.Add(a.r, n.rat())
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
			q := roundHalfEven(new(big.Rat).SetFrac(a.bigSum.u, big.NewInt(a.count)))
			f, _ := decimalRat(q, a.bigSum.scale).Float64()
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

// addBig adds BigDecimal.valueOf(f) to the overflowed sum. BigDecimal
// refuses NaN and infinities, which fails the query.
func (a *sumAgg) addBig(f float64) error {
	d, ok := num{kind: types.Double, f: f}.toBigDecimal()
	if !ok {
		return errNonFiniteDecimal(f, 64)
	}
	a.bigSum = a.bigSum.add(d, false)
	return nil
}
