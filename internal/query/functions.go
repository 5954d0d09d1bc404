package query

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Cassandra 5.0's native scalar functions (cql3/functions: TimeFcts,
// UuidFcts, BytesConversionFcts, MathFcts, CollectionFcts, ToJsonFct, CastFcts,
// OperationFcts). Each resolves, from the argument types, to one nativeFn.
// Functions are null-in/null-out unless calledOnNull.

type nativeFn struct {
	name         string // Cassandra's (lower-case) function name
	params       []*types.Type
	ret          *types.Type
	exec         func(ctx *evalCtx, args [][]byte) ([]byte, error)
	calledOnNull bool
}

// nativeTypeNames are the CQL names used in the xAsBlob / blobAsX functions.
var nativeTypeNames = []string{"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double",
	"duration", "float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint",
	"uuid", "varchar", "varint"}

// resolveNative finds the function called name for the given argument types
// (nil for a term whose type the function decides).
func resolveNative(name string, raw []cql.SelectorExpr, argTypes []*types.Type) (*nativeFn, error) {
	arity := func(n int) error {
		if len(argTypes) != n {
			return cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: %d required but %d provided", name, n, len(argTypes))
		}
		return nil
	}
	argType := func(i int, def *types.Type) *types.Type {
		if argTypes[i] != nil {
			return argTypes[i]
		}
		return def
	}
	// wrongParam is FunctionFactory's refusal of argument i for a parameter
	// (FunctionParameter.validateType) whose toString is param and which
	// requires what: the argument's type cannot be inferred, or is not one
	// the parameter accepts.
	wrongParam := func(i int, param, what string) error {
		if argTypes[i] == nil {
			return cqlerr.Invalidf("Cannot infer type of argument %s in call to function system.%s(%s): use type casts to disambiguate", selName(raw[i]), name, param)
		}
		return cqlerr.Invalidf("Function system.%s requires %s argument, but found argument %s of type %s", name, what, selName(raw[i]), argTypes[i])
	}
	badArg := func(i int, t *types.Type) error {
		return cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.%s of type %s",
			selName(raw[i]), i, name, t)
	}
	// Time and UUID generators.
	now := func(ret *types.Type, f func(ctx *evalCtx) []byte) (*nativeFn, error) {
		if err := arity(0); err != nil {
			return nil, err
		}
		return &nativeFn{name: name, ret: ret, exec: func(ctx *evalCtx, _ [][]byte) ([]byte, error) { return f(ctx), nil }}, nil
	}
	switch name {
	case "now", "currenttimeuuid", "current_timeuuid":
		return now(types.TimeuuidType, func(*evalCtx) []byte { return newTimeUUID() })
	case "uuid":
		return now(types.UUIDType, func(*evalCtx) []byte { u := uuid.New(); return u[:] })
	case "currenttimestamp", "current_timestamp":
		return now(types.TimestampType, func(ctx *evalCtx) []byte { return types.EncodeBigint(ctx.now().UnixMilli()) })
	case "currentdate", "current_date":
		return now(types.DateType, func(ctx *evalCtx) []byte { return types.EncodeDate(floorDiv(ctx.now().UnixMilli(), 86400000)) })
	case "currenttime", "current_time":
		return now(types.TimeType, func(ctx *evalCtx) []byte {
			ms := ctx.now().UnixNano()
			return types.EncodeTime(ms - floorDiv(ms, 86400e9)*86400e9)
		})
	}
	// Conversions between time types.
	switch name {
	case "todate", "to_date", "totimestamp", "to_timestamp", "tounixtimestamp", "to_unix_timestamp":
		if err := arity(1); err != nil {
			return nil, err
		}
		def := types.TimestampType
		if name == "totimestamp" || name == "to_timestamp" {
			def = types.DateType
		}
		in := argType(0, def)
		// TimeFcts: toDate(timeuuid|timestamp), toTimestamp(timeuuid|date),
		// toUnixTimestamp(timeuuid|timestamp|date).
		ok := in.Kind == types.Timeuuid || in.Kind == types.Timestamp || in.Kind == types.Date
		switch name {
		case "todate", "to_date":
			ok = ok && in.Kind != types.Date
		case "totimestamp", "to_timestamp":
			ok = ok && in.Kind != types.Timestamp
		}
		if !ok {
			return nil, badArg(0, types.TimeuuidType)
		}
		var ret *types.Type
		switch name {
		case "todate", "to_date":
			ret = types.DateType
		case "totimestamp", "to_timestamp":
			ret = types.TimestampType
		default:
			ret = types.BigintType
		}
		return &nativeFn{name: name, params: []*types.Type{in}, ret: ret, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			if len(a[0]) == 0 {
				return nil, nil
			}
			ms, err := toMillis(in, a[0])
			if err != nil {
				return nil, err
			}
			switch ret.Kind {
			case types.Date:
				return types.EncodeDate(floorDiv(ms, 86400000)), nil
			case types.Timestamp:
				return types.EncodeBigint(ms), nil
			}
			return types.EncodeBigint(ms), nil
		}}, nil
	case "mintimeuuid", "min_timeuuid", "maxtimeuuid", "max_timeuuid":
		if err := arity(1); err != nil {
			return nil, err
		}
		in := argType(0, types.TimestampType)
		if in.Kind != types.Timestamp {
			return nil, badArg(0, types.TimestampType)
		}
		max := strings.HasPrefix(name, "max")
		return &nativeFn{name: name, params: []*types.Type{in}, ret: types.TimeuuidType, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			ms, err := types.DecodeBigint(a[0])
			if err != nil {
				return nil, err
			}
			return boundTimeUUID(ms, max), nil
		}}, nil
	}
	// Blob conversions.
	if strings.HasPrefix(name, "blobas") || strings.HasPrefix(name, "blob_as_") {
		tn := strings.TrimPrefix(strings.TrimPrefix(name, "blob_as_"), "blobas")
		t := types.NativeByName[tn]
		if t == nil {
			return nil, unknownFunction(name)
		}
		if err := arity(1); err != nil {
			return nil, err
		}
		if in := argType(0, types.BlobType); in.Kind != types.Blob {
			return nil, badArg(0, types.BlobType)
		}
		return &nativeFn{name: name, params: []*types.Type{types.BlobType}, ret: t, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			if err := types.Validate(t, a[0]); err != nil {
				return nil, cqlerr.Invalidf("In call to function system.%s, value 0x%x is not a valid binary representation for type %s",
					name, a[0], strings.ToLower(t.String()))
			}
			return a[0], nil
		}}, nil
	}
	if strings.HasSuffix(name, "asblob") || strings.HasSuffix(name, "_as_blob") {
		tn := strings.TrimSuffix(strings.TrimSuffix(name, "_as_blob"), "asblob")
		t := types.NativeByName[tn]
		if t == nil {
			return nil, unknownFunction(name)
		}
		if err := arity(1); err != nil {
			return nil, err
		}
		if in := argType(0, t); !typeAccepts(t, in) || t.Kind == types.Blob && in.Kind != types.Blob {
			return nil, badArg(0, t)
		}
		return &nativeFn{name: name, params: []*types.Type{t}, ret: types.BlobType,
			exec: func(_ *evalCtx, a [][]byte) ([]byte, error) { return a[0], nil }}, nil
	}
	switch name {
	case "abs", "exp", "log", "log10", "round":
		if err := arity(1); err != nil {
			return nil, err
		}
		in := argType(0, nil)
		if in == nil && len(raw) > 0 {
			in = literalTypeOf(raw[0])
		}
		if in == nil {
			return nil, cqlerr.Invalidf("Ambiguous call to function system.%s: use type casts to disambiguate", name)
		}
		if !isNumeric(in) {
			return nil, badArg(0, types.IntType)
		}
		ret := in
		if ret.Kind == types.Counter {
			ret = types.BigintType
		}
		return &nativeFn{name: name, params: []*types.Type{in}, ret: ret, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			if len(a[0]) == 0 {
				return nil, nil
			}
			n, err := decodeNum(in, a[0])
			if err != nil {
				return nil, err
			}
			return mathFn(name, ret, n)
		}}, nil
	case "map_keys", "map_values":
		if err := arity(1); err != nil {
			return nil, err
		}
		in := argType(0, nil)
		if in == nil || in.Kind != types.Map {
			return nil, wrongParam(0, "map", "a map")
		}
		var ret *types.Type
		if name == "map_keys" {
			ret = types.SetOf(in.Params[0], false)
		} else {
			ret = types.ListOf(in.Params[1], false)
		}
		return &nativeFn{name: name, params: []*types.Type{in}, ret: ret, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			ks, vs, err := types.DecodeMap(a[0])
			if err != nil {
				return nil, err
			}
			if name == "map_keys" {
				return types.EncodeSet(in.Params[0], ks), nil
			}
			return types.EncodeList(vs), nil
		}}, nil
	case "collection_count", "collection_min", "collection_max", "collection_sum", "collection_avg":
		if err := arity(1); err != nil {
			return nil, err
		}
		in := argType(0, nil)
		numeric := name == "collection_sum" || name == "collection_avg"
		switch {
		case name == "collection_count":
			if in == nil || !in.IsCollection() {
				return nil, wrongParam(0, "collection", "a collection")
			}
		case numeric:
			if in == nil || !in.IsCollection() || in.Kind == types.Map || !isNumeric(in.Params[0]) {
				return nil, wrongParam(0, "numeric_set_or_list", "a numeric set/list")
			}
		default:
			// Cassandra's setOrList() parameter also calls itself
			// numeric_set_or_list.
			if in == nil || !in.IsCollection() || in.Kind == types.Map {
				return nil, wrongParam(0, "numeric_set_or_list", "a set or list")
			}
		}
		elem := in.Params[0]
		ret := elem
		if name == "collection_count" {
			ret = types.IntType
		}
		return &nativeFn{name: name, params: []*types.Type{in}, ret: ret, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			var els [][]byte
			var err error
			if in.Kind == types.Map {
				els, _, err = types.DecodeMap(a[0])
			} else {
				els, err = types.DecodeCollection(a[0])
			}
			if err != nil {
				return nil, err
			}
			var acc aggregator
			switch name {
			case "collection_count":
				return types.EncodeInt(int32(len(els))), nil
			case "collection_min":
				acc = &minMaxAgg{t: elem}
			case "collection_max":
				acc = &minMaxAgg{t: elem, max: true}
			case "collection_sum":
				acc = newSumAgg(elem, false)
			case "collection_avg":
				acc = newSumAgg(elem, true)
			}
			for _, e := range els {
				if err := acc.add(e, false); err != nil {
					return nil, err
				}
			}
			return acc.result()
		}}, nil
	case "similarity_cosine", "similarity_euclidean", "similarity_dot_product":
		if err := arity(2); err != nil {
			return nil, err
		}
		vt := argTypes[0]
		if vt == nil {
			vt = argTypes[1]
		}
		if vt == nil {
			return nil, cqlerr.Invalidf("Cannot infer type of argument 0 in call to function system.%s: use type casts to disambiguate", name)
		}
		if vt.Kind != types.Vector || vt.Params[0].Kind != types.Float {
			return nil, cqlerr.Invalidf("Function system.%s requires a float vector argument, but found argument %s of type %s", name, selName(raw[0]), vt)
		}
		for i := range argTypes {
			if argTypes[i] != nil && !argTypes[i].Equal(vt) {
				return nil, badArg(i, vt)
			}
		}
		return &nativeFn{name: name, params: []*types.Type{vt, vt}, ret: types.FloatType, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			x, err := decodeFloatVector(vt, a[0])
			if err != nil {
				return nil, err
			}
			y, err := decodeFloatVector(vt, a[1])
			if err != nil {
				return nil, err
			}
			if name == "similarity_cosine" && (allZero(x) || allZero(y)) {
				return nil, cqlerr.Invalidf("Function system.similarity_cosine doesn't support all-zero vectors.")
			}
			return types.EncodeFloat(vectorSimilarity(name, x, y)), nil
		}}, nil
	case "floor":
		if len(argTypes) != 2 && len(argTypes) != 3 {
			return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.floor: 2 required but %d provided", len(argTypes))
		}
		in := argTypes[0]
		if in == nil {
			return nil, cqlerr.Invalidf("Ambiguous call to function system.floor: use type casts to disambiguate")
		}
		var ret *types.Type
		switch in.Kind {
		case types.Timestamp, types.Timeuuid:
			ret = types.TimestampType
		case types.Date:
			ret = types.DateType
		case types.Time:
			ret = types.TimeType
		default:
			return nil, badArg(0, types.TimestampType)
		}
		params := []*types.Type{in, types.DurationType}
		if len(argTypes) == 3 {
			if in.Kind == types.Time {
				return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.floor: 2 required but 3 provided")
			}
			params = append(params, ret)
		}
		return &nativeFn{name: name, params: params, ret: ret, exec: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			return floorTime(in, a)
		}}, nil
	case "tojson", "to_json":
		// ToJsonFct's FunctionFactory (5.0): one parameter of any type.
		if len(argTypes) != 1 {
			return nil, cqlerr.Invalidf("Invalid number of arguments for function system.%s(any)", name)
		}
		in := argType(0, nil)
		if in == nil && len(raw) > 0 {
			in = literalTypeOf(raw[0])
		}
		if in == nil {
			return nil, cqlerr.Invalidf("Cannot infer type of argument %s in call to function system.%s(any): use type casts to disambiguate", selName(raw[0]), name)
		}
		// ToJsonFct registers to_json and its pre-5.0 name tojson; the
		// result column is named after the one called.
		return &nativeFn{name: name, params: []*types.Type{in}, ret: types.TextType, calledOnNull: true,
			exec: func(_ *evalCtx, a [][]byte) ([]byte, error) { return []byte(types.ToJSON(in, a[0])), nil }}, nil
	}
	if f, ok, err := resolveMask(name, raw, argTypes); ok {
		return f, err
	}
	return nil, unknownFunction(name)
}

func unknownFunction(name string) error {
	return cqlerr.Invalidf("Unknown function '%s'", name)
}

// selName is a short text of a raw selector for messages.
func selName(e cql.SelectorExpr) string {
	switch x := e.(type) {
	case *cql.ColumnSel:
		return x.Name
	case *cql.TermSel:
		return termText(x.Term)
	case *cql.FunctionSel:
		return x.Name.String() + "(...)"
	}
	return "?"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// toMillis converts a timeuuid, timestamp or date to milliseconds since the
// epoch.
func toMillis(t *types.Type, v []byte) (int64, error) {
	switch t.Kind {
	case types.Timestamp:
		return types.DecodeBigint(v)
	case types.Date:
		d, err := types.DecodeDate(v)
		return d * 86400000, err
	case types.Timeuuid:
		u, err := types.DecodeUUID(v)
		if err != nil {
			return 0, err
		}
		return uuidMillis(u), nil
	}
	return 0, cqlerr.Invalidf("not a time type: %s", t)
}

func uuid100ns(u [16]byte) int64 {
	hi := binary.BigEndian.Uint64(u[:8])
	ts := (hi&0x0fff)<<48 | ((hi>>16)&0xffff)<<32 | hi>>32
	return int64(ts)
}

func uuidMillis(u [16]byte) int64 { return (uuid100ns(u) - tracing.UUIDEpochTicks) / 10000 }

func newTimeUUID() []byte {
	u := tracing.NewTimeUUID()
	return u[:]
}

// boundTimeUUID is minTimeuuid / maxTimeuuid: the smallest / largest
// timeuuid for a millisecond, with Cassandra's clock-seq-and-node bytes.
func boundTimeUUID(ms int64, max bool) []byte {
	ts := ms*10000 + tracing.UUIDEpochTicks
	if max {
		ts += 9999
	}
	msb := uint64(ts)<<32 | (uint64(ts)>>16)&0xffff0000 | 0x1000 | (uint64(ts)>>48)&0x0fff
	var lsb uint64 = 0x8080808080808080 // MIN_CLOCK_SEQ_AND_NODE
	if max {
		lsb = 0x7f7f7f7f7f7f7f7f // MAX_CLOCK_SEQ_AND_NODE
	}
	b := binary.BigEndian.AppendUint64(nil, msb)
	return binary.BigEndian.AppendUint64(b, lsb)
}

// mathFn is MathFcts: abs, exp, log, log10, round in the argument's type.
func mathFn(name string, t *types.Type, n num) ([]byte, error) {
	switch name {
	case "abs":
		switch t.Kind {
		case types.Float, types.Double:
			n.f = math.Abs(n.f)
		case types.Varint, types.Decimal:
			if n.dec.u != nil {
				n.dec.u = new(big.Int).Abs(n.dec.u) // BigDecimal.abs keeps the scale
			} else {
				n.r = new(big.Rat).Abs(n.r)
			}
		default:
			if n.i < 0 {
				n.i = wrap(t.Kind, -n.i)
			}
		}
		return encodeNum(t, n)
	case "round":
		switch t.Kind {
		case types.Float, types.Double:
			// Math.round: floor(x + 0.5)
			if !math.IsNaN(n.f) && !math.IsInf(n.f, 0) {
				n.f = math.Floor(n.f + 0.5)
			}
		case types.Decimal:
			// RoundingMode.HALF_UP to scale 0
			v := n.rat()
			r := new(big.Rat).Abs(v)
			r.Add(r, big.NewRat(1, 2))
			q := new(big.Int).Quo(r.Num(), r.Denom())
			if v.Sign() < 0 {
				q.Neg(q)
			}
			n.r, n.dec = nil, bigDecimal{u: q} // setScale(0, HALF_UP)
		}
		return encodeNum(t, n)
	}
	f := n.float()
	switch name {
	case "exp":
		f = math.Exp(f)
	case "log":
		f = math.Log(f)
	case "log10":
		f = math.Log10(f)
	}
	if t.Kind == types.Decimal || t.Kind == types.Varint {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, cqlerr.Invalidf("Cannot compute %s of %s", name, t)
		}
	}
	return encodeNum(t, num{kind: types.Double, f: f})
}

// arithFunc returns the result type and implementation of a op b (aText
// and bText are the operands as written, for the error).
func arithFunc(op byte, a, b *types.Type, aText, bText string) (*types.Type, func(x, y []byte) ([]byte, error), error) {
	opName := arithOpNames[op]
	if a.Kind == types.Timestamp || a.Kind == types.Date {
		if b.Kind == types.Duration && (op == '+' || op == '-') {
			return a, func(x, y []byte) ([]byte, error) { return addDuration(a, x, y, op == '-') }, nil
		}
	}
	if op == '+' && isString(a) && isString(b) {
		// Concatenation (CASSANDRA-17190): ascii only when both are.
		res := types.TextType
		if a.Kind == types.Ascii && b.Kind == types.Ascii {
			res = types.AsciiType
		}
		return res, func(x, y []byte) ([]byte, error) {
			if x == nil || y == nil {
				return nil, nil
			}
			return append(append(make([]byte, 0, len(x)+len(y)), x...), y...), nil
		}, nil
	}
	if !isNumeric(a) || !isNumeric(b) {
		// OperationFcts names the operands as written.
		return nil, nil, cqlerr.Invalidf("the '%s' operation is not supported between %s and %s", opText(op), aText, bText)
	}
	res := promote(a, b)
	return res, func(x, y []byte) ([]byte, error) {
		if len(x) == 0 || len(y) == 0 {
			return nil, nil
		}
		nx, err := decodeNum(a, x)
		if err != nil {
			return nil, err
		}
		ny, err := decodeNum(b, y)
		if err != nil {
			return nil, err
		}
		r, err := arith(res, op, nx, ny)
		if err != nil {
			e := cqlerr.New(cqlerr.FunctionFailure, "the operation '%s %s %s' failed: %s", a, opText(op), b, cqlerr.As(err).Message)
			e.Keyspace, e.Table = "system", opName
			return nil, e
		}
		return encodeNum(res, r)
	}, nil
}

func opText(op byte) string { return string(op) }

// isString reports a text (varchar) or ascii type.
func isString(t *types.Type) bool { return t.Kind == types.Text || t.Kind == types.Ascii }

// addDuration adds (or subtracts) a duration to a timestamp or date.
func addDuration(t *types.Type, x, d []byte, sub bool) ([]byte, error) {
	months, days, nanos, err := types.DecodeDuration(d)
	if err != nil {
		return nil, err
	}
	if sub {
		months, days, nanos = -months, -days, -nanos
	}
	if t.Kind == types.Date {
		dd, err := types.DecodeDate(x)
		if err != nil {
			return nil, err
		}
		if nanos != 0 {
			return nil, cqlerr.Invalidf("The duration must have a day precision. Was: %s", types.Format(types.DurationType, d))
		}
		tm := plusMonths(time.UnixMilli(dd*86400000).UTC(), months).AddDate(0, 0, int(days))
		return types.EncodeDate(floorDiv(tm.UnixMilli(), 86400000)), nil
	}
	if nanos%1e6 != 0 {
		return nil, cqlerr.Invalidf("The duration must have a millisecond precision. Was: %s", types.Format(types.DurationType, d))
	}
	ms, err := types.DecodeBigint(x)
	if err != nil {
		return nil, err
	}
	tm := plusMonths(time.UnixMilli(ms).UTC(), months).AddDate(0, 0, int(days))
	return types.EncodeBigint(tm.UnixMilli() + nanos/1e6), nil
}

// plusMonths is java.time's plusMonths: the day of month is clamped to the
// length of the resulting month (January 31 + 1 month is February 28 or
// 29), where Go's AddDate would overflow into March.
func plusMonths(tm time.Time, months int32) time.Time {
	if months == 0 {
		return tm
	}
	y, m, d := tm.Date()
	total := int64(y)*12 + int64(m-1) + int64(months)
	ny, nm := floorDiv(total, 12), total-floorDiv(total, 12)*12+1
	if last := time.Date(int(ny), time.Month(nm)+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	h, mi, sec := tm.Clock()
	return time.Date(int(ny), time.Month(nm), d, h, mi, sec, tm.Nanosecond(), time.UTC)
}

// castFunc returns the CAST conversion from one native type to another, or
// nil when Cassandra's CastFcts has none (casting a type to itself is a
// no-op decided by the caller). The matrix is CastFcts.all():
//
//   - every number type (tinyint, smallint, int, bigint, counter, float,
//     double, decimal, varint) to every other non-counter number type, with
//     Java's Number conversions (castNumber);
//   - numbers, inet, boolean, timeuuid, timestamp, date, time and uuid to
//     ascii and text, by the type's toCQLLiteral (castText); ascii to text;
//   - timeuuid to date and timestamp, timestamp to date, date to timestamp
//     (TimeFcts' toDate/toTimestamp).
//
// Nothing casts from text, blob, duration or a collection, and nothing
// casts to ascii from text.
func castFunc(from, to *types.Type) func(v []byte) ([]byte, error) {
	switch {
	case isNumeric(from) && isNumeric(to) && to.Kind != types.Counter:
		return func(v []byte) ([]byte, error) {
			if len(v) == 0 {
				return nil, nil
			}
			return castNumber(from, to, v)
		}
	case to.Kind == types.Text && from.Kind == types.Ascii:
		return func(v []byte) ([]byte, error) { return v, nil }
	case to.Kind == types.Text || to.Kind == types.Ascii:
		switch from.Kind {
		case types.Tinyint, types.Smallint, types.Int, types.Bigint, types.Counter, types.Float, types.Double,
			types.Decimal, types.Varint, types.Inet, types.Boolean, types.Timeuuid, types.Timestamp, types.Date,
			types.Time, types.UUID:
			return func(v []byte) ([]byte, error) {
				if v == nil {
					return nil, nil
				}
				return []byte(castText(from, v)), nil
			}
		}
	case to.Kind == types.Date && (from.Kind == types.Timestamp || from.Kind == types.Timeuuid):
		return func(v []byte) ([]byte, error) {
			if len(v) == 0 {
				return nil, nil
			}
			ms, err := toMillis(from, v)
			if err != nil {
				return nil, err
			}
			return types.EncodeDate(floorDiv(ms, 86400000)), nil
		}
	case to.Kind == types.Timestamp && (from.Kind == types.Date || from.Kind == types.Timeuuid):
		return func(v []byte) ([]byte, error) {
			if len(v) == 0 {
				return nil, nil
			}
			ms, err := toMillis(from, v)
			if err != nil {
				return nil, err
			}
			return types.EncodeBigint(ms), nil
		}
	}
	return nil
}

// castNumber converts a number as CastFcts does, with Java's Number
// methods: byteValue/shortValue/intValue of a float or double go through
// (int) (saturating, NaN is 0) and then truncate; longValue saturates for
// floats and keeps the low 64 bits of varints and decimals; decimal results
// are getDecimalConversionFunction's (exact for integers and varints, the
// shortest decimal digits for floats and doubles) and varint results
// BigInteger.valueOf(longValue()).
func castNumber(from, to *types.Type, v []byte) ([]byte, error) {
	n, err := decodeNum(from, v)
	if err != nil {
		return nil, err
	}
	floating := n.kind == types.Float || n.kind == types.Double
	intValue := func() int32 {
		if floating {
			return javaF2I(n.f)
		}
		return int32(n.int64())
	}
	switch to.Kind {
	case types.Tinyint:
		return types.EncodeTinyint(int8(intValue())), nil
	case types.Smallint:
		return types.EncodeSmallint(int16(intValue())), nil
	case types.Int:
		return types.EncodeInt(intValue()), nil
	case types.Bigint:
		return types.EncodeBigint(n.int64()), nil
	case types.Float:
		switch n.kind {
		case types.Float, types.Double:
			return types.EncodeFloat(float32(n.f)), nil
		case types.Varint, types.Decimal:
			f, _ := n.rat().Float32()
			return types.EncodeFloat(f), nil
		}
		return types.EncodeFloat(float32(n.i)), nil
	case types.Double:
		return types.EncodeDouble(n.float()), nil
	case types.Varint:
		return types.EncodeVarint(big.NewInt(n.int64())), nil
	case types.Decimal:
		switch n.kind {
		case types.Varint:
			return types.EncodeDecimal(n.r.Num(), 0), nil // new BigDecimal(BigInteger)
		case types.Float, types.Double:
			// new BigDecimal(Float.toString(f)), BigDecimal.valueOf(d):
			// the shortest digits of the float or double itself.
			bits := 64
			if n.kind == types.Float {
				bits = 32
			}
			if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
				return nil, errNonFiniteDecimal(n.f, bits)
			}
			return types.ParseString(types.DecimalType, types.JavaDouble(n.f, bits))
		}
		return types.EncodeDecimal(big.NewInt(n.int64()), 0), nil // BigDecimal.valueOf(long)
	}
	return nil, cqlerr.Invalidf("%s is not a numeric type", to)
}

// castText is the text CAST(x AS text) produces: the input serializer's
// toCQLLiteral, which is "null" for an empty value and otherwise its
// toString (Java's for numbers, BigDecimal.toPlainString for decimals,
// InetAddress.getHostAddress for inets, ISO 8601 with milliseconds and Z
// for timestamps).
func castText(t *types.Type, v []byte) string {
	if len(v) == 0 {
		return "null"
	}
	switch t.Kind {
	case types.Float:
		f, _ := types.DecodeFloat(v)
		return types.JavaDouble(float64(f), 32)
	case types.Double:
		f, _ := types.DecodeDouble(v)
		return types.JavaDouble(f, 64)
	case types.Timestamp:
		ms, _ := types.DecodeBigint(v)
		return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	case types.Boolean:
		b, _ := types.DecodeBoolean(v)
		if b {
			return "true"
		}
		return "false"
	case types.Decimal:
		u, scale, err := types.DecodeDecimal(v)
		if err != nil {
			return types.Format(t, v)
		}
		return plainDecimal(u, scale)
	case types.Inet:
		return types.JavaHostAddress(v)
	case types.Text, types.Ascii:
		return string(v)
	}
	return types.Format(t, v)
}

// plainDecimal is BigDecimal.toPlainString: no exponent, trailing zeros
// kept, a negative scale written as zeros.
func plainDecimal(u *big.Int, scale int32) string {
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	switch {
	case scale <= 0:
		if u.Sign() == 0 {
			return "0"
		}
		return sign + digits + strings.Repeat("0", int(-scale))
	case int(scale) >= len(digits):
		return sign + "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
	}
	return sign + digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
}

func decodeFloatVector(t *types.Type, v []byte) ([]float32, error) {
	if len(v) != 4*t.Dimension {
		return nil, cqlerr.Invalidf("Invalid vector value of %d bytes for %s", len(v), t)
	}
	out := make([]float32, t.Dimension)
	for i := range out {
		out[i] = math.Float32frombits(binary.BigEndian.Uint32(v[4*i:]))
	}
	return out, nil
}

// vectorSimilarity is VectorFcts' similarity, scaled to [0, 1] as Cassandra
// (and Lucene's VectorSimilarityFunction) does.
func vectorSimilarity(name string, x, y []float32) float32 {
	var dot, nx, ny, dist float32
	for i := range x {
		dot += x[i] * y[i]
		nx += x[i] * x[i]
		ny += y[i] * y[i]
		d := x[i] - y[i]
		dist += d * d
	}
	switch name {
	case "similarity_cosine":
		return (1 + dot/float32(math.Sqrt(float64(nx*ny)))) / 2
	case "similarity_euclidean":
		return 1 / (1 + dist)
	}
	return (1 + dot) / 2
}

func allZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// floorTime is TimeFcts' floor: the start of the duration-sized bucket (from
// the optional starting time, else the epoch) that holds the value. The
// checks run in Cassandra's order: the duration's precision for the input
// type (FloorFunction.validateDuration), then the starting time, then the
// sign (Duration.floorTimestamp).
func floorTime(in *types.Type, a [][]byte) ([]byte, error) {
	months, days, nanos, err := types.DecodeDuration(a[1])
	if err != nil {
		return nil, err
	}
	negative := months < 0 || days < 0 || nanos < 0
	switch in.Kind {
	case types.Time:
		if months != 0 || days != 0 {
			return nil, cqlerr.Invalidf("For time values, the floor can only be computed for durations smaller that a day")
		}
	case types.Date:
		if nanos != 0 {
			return nil, cqlerr.Invalidf("The floor on date values cannot be computed for the %s duration as precision is below 1 day", types.Format(types.DurationType, a[1]))
		}
	default:
		if nanos%1e6 != 0 {
			return nil, cqlerr.Invalidf("The floor cannot be computed for the %s duration as precision is below 1 millisecond", types.Format(types.DurationType, a[1]))
		}
	}
	if in.Kind == types.Time {
		if negative {
			return nil, cqlerr.Invalidf("Negative durations are not supported by the floor function")
		}
		t, err := types.DecodeBigint(a[0])
		if err != nil {
			return nil, err
		}
		if nanos == 0 {
			return a[0], nil
		}
		return types.EncodeTime(t - t%nanos), nil
	}
	ms, err := toMillis(in, a[0])
	if err != nil {
		return nil, err
	}
	var start int64
	if len(a) == 3 {
		if in.Kind == types.Date {
			start, err = toMillis(types.DateType, a[2])
		} else {
			start, err = types.DecodeBigint(a[2])
		}
		if err != nil {
			return nil, err
		}
		if start > ms {
			return nil, cqlerr.Invalidf("The floor function starting time is greater than the provided time")
		}
	}
	if negative {
		return nil, cqlerr.Invalidf("Negative durations are not supported by the floor function")
	}
	var res int64
	if months == 0 {
		d := int64(days)*86400000 + nanos/1e6
		if d == 0 {
			res = ms
		} else {
			res = ms - (ms-start)%d
		}
	} else {
		st := time.UnixMilli(start).UTC()
		tt := time.UnixMilli(ms).UTC()
		diff := (tt.Year()-st.Year())*12 + int(tt.Month()) - int(st.Month())
		mult := diff / int(months)
		add := func(m int) int64 {
			return st.AddDate(0, m*int(months), m*int(days)).UnixMilli() + int64(m)*nanos/1e6
		}
		for mult > 0 && add(mult) > ms {
			mult--
		}
		res = add(mult)
	}
	if in.Kind == types.Date {
		return types.EncodeDate(floorDiv(res, 86400000)), nil
	}
	return types.EncodeBigint(res), nil
}
