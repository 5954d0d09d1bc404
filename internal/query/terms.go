package query

import (
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// termFn evaluates a compiled term against the bound values. It returns the
// serialized value (nil for null) or unset for an unset bound value.
type termFn func(vals []Value) (b []byte, unset bool, err error)

// addMarker records the spec of a bind marker.
func (c *compiled) addMarker(m *cql.BindMarker, s ColumnSpec) {
	for len(c.bound) <= m.Index {
		c.bound = append(c.bound, ColumnSpec{})
	}
	if m.Name != "" {
		s.Name = m.Name
	}
	c.bound[m.Index] = s
}

// literalKindName is Cassandra's Constants.Type name of a literal kind.
func literalKindName(k cql.LiteralKind) string {
	switch k {
	case cql.LitString:
		return "STRING"
	case cql.LitInteger:
		return "INTEGER"
	case cql.LitFloat:
		return "FLOAT"
	case cql.LitBool:
		return "BOOLEAN"
	case cql.LitUUID:
		return "UUID"
	case cql.LitHex:
		return "HEX"
	case cql.LitDuration:
		return "DURATION"
	}
	return "NULL"
}

// assignable reports whether a literal of kind k may be assigned to typ
// (Cassandra's Constants.Type.testAssignment).
func assignable(k cql.LiteralKind, typ *types.Type) bool {
	switch k {
	case cql.LitString:
		switch typ.Kind {
		case types.Ascii, types.Text, types.Inet, types.Date, types.Time, types.Timestamp, types.Duration, types.Tuple:
			// A tuple is not a native type: a string is weakly
			// assignable to it, and read by its fromString.
			return true
		}
	case cql.LitInteger:
		switch typ.Kind {
		case types.Bigint, types.Counter, types.Decimal, types.Double, types.Float, types.Int,
			types.Smallint, types.Tinyint, types.Varint, types.Timestamp, types.Date, types.Time, types.Duration:
			return true
		}
	case cql.LitFloat:
		switch typ.Kind {
		case types.Decimal, types.Double, types.Float:
			return true
		}
	case cql.LitBool:
		return typ.Kind == types.Boolean
	case cql.LitUUID:
		return typ.Kind == types.UUID || typ.Kind == types.Timeuuid
	case cql.LitHex:
		return typ.Kind == types.Blob
	case cql.LitDuration:
		return typ.Kind == types.Duration
	}
	return typ.Kind == types.Custom
}

// checkTypeHint is Cassandra's TypeCast.prepare for a hinted term,
// (type) term: the term must be assignable to the hinted type, and values
// of that type to the receiver (AbstractType.isValueCompatibleWith). The
// term itself is then compiled for the receiver, as Cassandra prepares it.
func (c *compiled) checkTypeHint(x *cql.TypeHint, recv ColumnSpec) error {
	cast, err := resolveTypeIn(c.schema, x.Type, recv.Keyspace)
	if err != nil {
		return err
	}
	if !termAssignable(x.Term, cast) {
		return cqlerr.Invalidf("Cannot cast value %s to type %s", termText(x.Term), typeExprString(x.Type))
	}
	if recv.Type != nil && !valueCompatible(recv.Type, cast) {
		return cqlerr.Invalidf("Cannot assign value %s to %s of type %s", termText(x), recv.Name, recv.Type)
	}
	return nil
}

// valueCompatible is AbstractType.isValueCompatibleWith: whether values of
// type from read as type to (a receiver) mean the same: equal types, any
// type as a blob, ascii as text, timestamps and bigints as each other, a
// bigint as a time, a timeuuid as a uuid, int, bigint and timestamp as a
// varint, and so element by element. A counter takes only a counter
// (CounterColumnType keeps AbstractType's equality), so `c + (bigint)1` and
// a bigint function's result are refused for a counter column.
func valueCompatible(to, from *types.Type) bool {
	if to.Equal(from) || to.Kind == types.Blob {
		return true // BytesType reads anything
	}
	if len(to.Params) > 0 || len(from.Params) > 0 {
		if to.Kind != from.Kind || len(to.Params) != len(from.Params) || to.Kind == types.UDT || to.Dimension != from.Dimension {
			return false
		}
		for i := range to.Params {
			if !valueCompatible(to.Params[i], from.Params[i]) {
				return false
			}
		}
		return true
	}
	switch to.Kind {
	case types.Text:
		return from.Kind == types.Ascii
	case types.Bigint:
		return from.Kind == types.Timestamp
	case types.Timestamp, types.Time:
		return from.Kind == types.Bigint
	case types.UUID:
		return from.Kind == types.Timeuuid
	case types.Varint:
		// IntegerType: Int32Type's and LongType's compatible types.
		switch from.Kind {
		case types.Int, types.Bigint, types.Timestamp:
			return true
		}
	}
	return false
}

// resultAssignable reports whether a function's result of type ret may be
// assigned to a receiver of type recv: FunctionCall.Raw.prepare's
// receiver.type.isValueCompatibleWith(returnType), so a timestamp takes a
// bigint, a varint a timestamp and a blob anything, but a set<text> no
// set<int>.
func resultAssignable(recv, ret *types.Type) bool { return valueCompatible(recv, ret) }

// literalValue converts a constant for a receiver.
func literalValue(l *cql.Literal, recv ColumnSpec) ([]byte, error) {
	if l.Kind == cql.LitNull {
		if recv.Type != nil && recv.Type.Kind == types.Counter {
			// Constants.NULL_LITERAL is not assignable to a counter.
			return nil, cqlerr.Invalidf("Invalid null value for counter increment/decrement")
		}
		return nil, nil
	}
	typ := recv.Type
	if typ.Kind == types.Counter && l.Kind == cql.LitInteger {
		typ = types.BigintType
	}
	if !assignable(l.Kind, typ) {
		return nil, cqlerr.Invalidf("Invalid %s constant (%s) for \"%s\" of type %s",
			literalKindName(l.Kind), l.Text, recv.Name, recv.Type.String())
	}
	var b []byte
	var err error
	switch l.Kind {
	case cql.LitString:
		b, err = types.FromString(typ, l.Text)
	case cql.LitInteger, cql.LitFloat:
		b, err = types.FromNumber(typ, l.Text)
	case cql.LitBool:
		b, err = types.FromBool(typ, strings.EqualFold(l.Text, "true"))
	case cql.LitUUID:
		b, err = types.FromUUID(typ, l.Text)
	case cql.LitHex:
		b, err = types.FromHex(typ, l.Text)
	case cql.LitDuration:
		b, err = types.FromDuration(typ, l.Text)
	}
	if err != nil {
		return nil, types.WithColumn(err, recv.Name)
	}
	return b, nil
}

// ungrouped returns the term inside parentheses: the parser reads (x) as
// a one-element tuple, which is x itself unless the receiver is a tuple
// (Tuples.Literal.prepare; a UDT is a tuple there too). A nil receiver
// type is not a tuple (an operand of arithmetic). Anything else is
// returned as is.
func ungrouped(t cql.Term, recv *types.Type) cql.Term {
	for {
		tl, ok := t.(*cql.TupleLiteral)
		if !ok || len(tl.Elems) != 1 || recv != nil && (recv.Kind == types.Tuple || recv.Kind == types.UDT) {
			return t
		}
		t = tl.Elems[0]
	}
}

// compileTerm compiles a term for a receiver column (or pseudo-column such
// as "[limit]").
func (c *compiled) compileTerm(t cql.Term, recv ColumnSpec, now func() time.Time) (termFn, error) {
	switch x := t.(type) {
	case *cql.Literal:
		b, err := literalValue(x, recv)
		if err != nil {
			return nil, err
		}
		return func([]Value) ([]byte, bool, error) { return b, false, nil }, nil
	case *cql.BindMarker:
		c.addMarker(x, recv)
		idx := x.Index
		typ := recv.Type
		return func(vals []Value) ([]byte, bool, error) {
			if idx >= len(vals) {
				return nil, false, cqlerr.Invalidf("No value for bound variable %d", idx)
			}
			v := vals[idx]
			if v.Unset || v.B == nil {
				return nil, v.Unset, nil
			}
			if err := types.Validate(typ, v.B); err != nil {
				return nil, false, cqlerr.Invalidf("%s", cqlerr.As(err).Message) // Constants.Marker.bindAndGet: the MarshalException message alone
			}
			return v.B, false, nil
		}, nil
	case *cql.TypeHint:
		if err := c.checkTypeHint(x, recv); err != nil {
			return nil, err
		}
		return c.compileTerm(x.Term, recv, now)
	case *cql.FunctionCall:
		return c.compileTermFunction(x, recv, now)
	case *cql.CastTerm:
		return c.compileCastTerm(x, recv, now)
	case *cql.BinaryOp:
		return c.compileArithTerm(x.Op, x.Left, x.Right, recv, now)
	case *cql.Negation:
		return c.compileArithTerm('-', nil, x.Term, recv, now)
	case *cql.CollectionLiteral:
		return c.compileCollection(x, recv, now)
	case *cql.UDTLiteral:
		return c.compileUDTLiteral(x, recv, now)
	case *cql.TupleLiteral:
		if inner := ungrouped(x, recv.Type); inner != t {
			return c.compileTerm(inner, recv, now)
		}
		if recv.Type.Kind != types.Tuple && recv.Type.Kind != types.UDT {
			return nil, cqlerr.Invalidf("Invalid tuple type literal for %s of type %s", recv.Name, recv.Type)
		}
		if len(x.Elems) > len(recv.Type.Params) {
			return nil, cqlerr.Invalidf("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d",
				recv.Name, recv.Type, len(recv.Type.Params), len(x.Elems))
		}
		for i, el := range x.Elems {
			// Tuples.Literal.validateAssignableTo.
			if !termAssignable(el, recv.Type.Params[i]) {
				return nil, cqlerr.Invalidf("Invalid tuple literal for %s: component %d is not of type %s", recv.Name, i, recv.Type.Params[i])
			}
		}
		fns := make([]termFn, len(x.Elems))
		for i, el := range x.Elems {
			f, err := c.compileTerm(el, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
				Name: recv.Name, Type: recv.Type.Params[i]}, now)
			if err != nil {
				return nil, err
			}
			fns[i] = f
		}
		return func(vals []Value) ([]byte, bool, error) {
			parts := make([][]byte, len(fns))
			for i, f := range fns {
				b, _, err := f(vals)
				if err != nil {
					return nil, false, err
				}
				parts[i] = b
			}
			return types.EncodeTuple(parts), false, nil
		}, nil
	}
	return nil, cqlerr.NotImplemented("this kind of term")
}

func (c *compiled) compileCollection(x *cql.CollectionLiteral, recv ColumnSpec, now func() time.Time) (termFn, error) {
	typ := recv.Type
	elem := func(t *types.Type) ColumnSpec {
		return ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name, Type: t}
	}
	kindName := func() string {
		switch x.Kind {
		case cql.ListLiteral:
			return "list"
		case cql.SetLiteral:
			return "set"
		}
		return "map"
	}
	// compileAll compiles the elements (what: "value", or a map's "key")
	// after Cassandra's validateAssignableTo checks each.
	compileAll := func(ts []cql.Term, t *types.Type, what string) ([]termFn, error) {
		for _, el := range ts {
			if !termAssignable(el, t) {
				return nil, cqlerr.Invalidf("Invalid %s literal for %s: %s %s is not of type %s", kindName(), recv.Name, what, termText(el), t)
			}
		}
		fns := make([]termFn, len(ts))
		for i, el := range ts {
			f, err := c.compileTerm(el, elem(t), now)
			if err != nil {
				return nil, err
			}
			fns[i] = f
		}
		return fns, nil
	}
	evalAll := func(fns []termFn, vals []Value) ([][]byte, error) {
		out := make([][]byte, len(fns))
		for i, f := range fns {
			b, _, err := f(vals)
			if err != nil {
				return nil, err
			}
			if b == nil {
				return nil, cqlerr.Invalidf("null is not supported inside collections")
			}
			out[i] = b
		}
		return out, nil
	}
	switch {
	case typ.Kind == types.List && x.Kind == cql.ListLiteral:
		fns, err := compileAll(x.Elems, typ.Params[0], "value")
		if err != nil {
			return nil, err
		}
		return func(vals []Value) ([]byte, bool, error) {
			els, err := evalAll(fns, vals)
			if err != nil {
				return nil, false, err
			}
			return types.EncodeList(els), false, nil
		}, nil
	case typ.Kind == types.Vector && x.Kind == cql.ListLiteral:
		if len(x.Elems) != typ.Dimension {
			return nil, cqlerr.Invalidf("Invalid vector literal for %s of type %s; expected %d elements, but given %d", recv.Name, typ, typ.Dimension, len(x.Elems))
		}
		fns, err := compileAll(x.Elems, typ.Params[0], "value")
		if err != nil {
			return nil, err
		}
		return func(vals []Value) ([]byte, bool, error) {
			els, err := evalAll(fns, vals)
			if err != nil {
				return nil, false, err
			}
			return types.EncodeVector(typ, els), false, nil
		}, nil
	case typ.Kind == types.Set && (x.Kind == cql.SetLiteral || x.Kind == cql.MapLiteral && len(x.Keys) == 0):
		fns, err := compileAll(x.Elems, typ.Params[0], "value")
		if err != nil {
			return nil, err
		}
		et := typ.Params[0]
		return func(vals []Value) ([]byte, bool, error) {
			els, err := evalAll(fns, vals)
			if err != nil {
				return nil, false, err
			}
			return types.EncodeSet(et, els), false, nil
		}, nil
	case typ.Kind == types.Map && x.Kind == cql.MapLiteral:
		kfns, err := compileAll(x.Keys, typ.Params[0], "key")
		if err != nil {
			return nil, err
		}
		vfns, err := compileAll(x.Values, typ.Params[1], "value")
		if err != nil {
			return nil, err
		}
		kt := typ.Params[0]
		return func(vals []Value) ([]byte, bool, error) {
			ks, err := evalAll(kfns, vals)
			if err != nil {
				return nil, false, err
			}
			vs, err := evalAll(vfns, vals)
			if err != nil {
				return nil, false, err
			}
			return types.EncodeMap(kt, ks, vs), false, nil
		}, nil
	}
	return nil, cqlerr.Invalidf("Invalid %s literal for %s of type %s", kindName(), recv.Name, typ)
}

// compileTermFunction supports the native functions that make sense as
// values of a write or a restriction.
func (c *compiled) compileTermFunction(f *cql.FunctionCall, recv ColumnSpec, now func() time.Time) (termFn, error) {
	name := strings.ToLower(f.Name.Name)
	if f.Name.Keyspace != "" && f.Name.Keyspace != "system" {
		return nil, cqlerr.Invalidf("Unknown function %s", f.Name.String())
	}
	noArgs := func(ret *types.Type, fn func() []byte) (termFn, error) {
		if len(f.Args) != 0 {
			return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.%s: 0 required but %d provided", name, len(f.Args))
		}
		if !resultAssignable(recv.Type, ret) {
			return nil, cqlerr.Invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", name, ret, recv.Name, recv.Type)
		}
		return func([]Value) ([]byte, bool, error) { return fn(), false, nil }, nil
	}
	switch name {
	case "now", "currenttimeuuid":
		return noArgs(types.TimeuuidType, newTimeUUID)
	case "uuid":
		return noArgs(types.UUIDType, func() []byte { u := uuid.New(); return u[:] })
	case "currenttimestamp":
		return noArgs(types.TimestampType, func() []byte {
			return binary.BigEndian.AppendUint64(nil, uint64(now().UnixMilli()))
		})
	case "currentdate":
		return noArgs(types.DateType, func() []byte {
			days := now().Unix() / 86400
			return binary.BigEndian.AppendUint32(nil, uint32(days+1<<31))
		})
	case "currenttime":
		return noArgs(types.TimeType, func() []byte {
			t := now().UTC()
			ns := int64(t.Hour())*3600e9 + int64(t.Minute())*60e9 + int64(t.Second())*1e9 + int64(t.Nanosecond())
			return binary.BigEndian.AppendUint64(nil, uint64(ns))
		})
	}
	return c.compileTermNative(f, recv, now)
}

// compileCastTerm compiles CAST(term AS type) used as a value: Parser.g's
// FunctionCall.Raw.newCast, the castAs<type> function of CastFcts whose
// argument type is the term's. A term without a type of its own (a literal
// or a marker) matches several castAs<type> overloads, which Cassandra
// refuses as ambiguous.
func (c *compiled) compileCastTerm(x *cql.CastTerm, recv ColumnSpec, now func() time.Time) (termFn, error) {
	to, err := resolveType(x.Type, recv.Keyspace)
	if err != nil {
		return nil, err
	}
	fname := "cast_as_" + to.String() // CastFcts.getFunctionName (5.0 snake case)
	from := termArgType(x.Term, recv.Keyspace)
	if from == nil {
		return nil, cqlerr.Invalidf("Ambiguous call to function system.%s: use type casts to disambiguate", fname)
	}
	if !resultAssignable(recv.Type, to) {
		return nil, cqlerr.Invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", fname, to, recv.Name, recv.Type)
	}
	arg, err := c.compileTerm(x.Term, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
		Name: "arg0(system." + fname + ")", Type: from}, now)
	if err != nil {
		return nil, err
	}
	if from.Equal(to) {
		return arg, nil
	}
	conv := castFunc(from, to)
	if conv == nil {
		return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument 0 of function system.%s of type %s",
			termText(x.Term), fname, from)
	}
	return func(vals []Value) ([]byte, bool, error) {
		b, unset, err := arg(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		out, err := conv(b)
		return out, false, err
	}, nil
}

// compileArithTerm compiles arithmetic used as a value (Parser.g's
// termAddition/termMultiplication, OperationFcts): left op right, or the
// negation of right when left is nil. An operand without a type of its own
// (a literal or a marker) takes the receiver's type, except that a
// duration literal is a duration (timestamp + 1h).
func (c *compiled) compileArithTerm(op byte, left, right cql.Term, recv ColumnSpec, now func() time.Time) (termFn, error) {
	typeOf := func(t cql.Term) *types.Type {
		if t == nil {
			return recv.Type
		}
		t = ungrouped(t, nil)
		if l, ok := t.(*cql.Literal); ok && l.Kind == cql.LitDuration {
			return types.DurationType
		}
		if at := termArgType(t, recv.Keyspace); at != nil {
			return at
		}
		if inner, ok := t.(*cql.BinaryOp); ok {
			if lt := termArgType(inner.Left, recv.Keyspace); lt != nil {
				return lt
			}
		}
		return recv.Type
	}
	lt, rt := typeOf(left), typeOf(right)
	ltext := "0"
	if left != nil {
		ltext = cql.FormatTerm(left)
	}
	res, fn, err := arithFunc(op, lt, rt, ltext, cql.FormatTerm(right))
	if err != nil {
		return nil, err
	}
	fname := "_" + strings.TrimPrefix(arithOpNames[op], "_")
	if left == nil {
		fname = "_negate"
	}
	if !typeAccepts(recv.Type, res) || !isNumeric(recv.Type) && res.Kind != recv.Type.Kind {
		return nil, cqlerr.Invalidf("Type error: cannot assign result of operation system.%s (type %s) to %s (type %s)", fname, res, recv.Name, recv.Type)
	}
	var lf termFn
	if left == nil {
		// _negate: the operand alone (a decimal keeps its scale, -0.0 is
		// a negative zero); an empty operand is null, as in arithFunc.
		fn = func(_, b []byte) ([]byte, error) {
			if len(b) == 0 {
				return nil, nil
			}
			n, err := decodeNum(rt, b)
			if err != nil {
				return nil, err
			}
			if n, err = negateNum(res, n); err != nil {
				return nil, err
			}
			return encodeNum(res, n)
		}
	} else if lf, err = c.compileTerm(left, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name, Type: lt}, now); err != nil {
		return nil, err
	}
	// The right operand's markers come after the left's.
	rf, err := c.compileTerm(right, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name, Type: rt}, now)
	if err != nil {
		return nil, err
	}
	return func(vals []Value) ([]byte, bool, error) {
		var a []byte
		if lf != nil {
			var unset bool
			var err error
			if a, unset, err = lf(vals); err != nil || unset || a == nil {
				return nil, unset, err
			}
		}
		b, unset, err := rf(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		out, err := fn(a, b)
		if err != nil || res.Equal(recv.Type) || !isNumeric(recv.Type) {
			return out, false, err
		}
		n, err := decodeNum(res, out) // a narrower result widened to the receiver
		if err != nil {
			return nil, false, err
		}
		out, err = encodeNum(recv.Type, n)
		return out, false, err
	}, nil
}

// termFuncType is the result type of a function call used as a term, for
// the resolution of an enclosing call (nil when unknown).
func termFuncType(f *cql.FunctionCall, ks string) *types.Type {
	name := strings.ToLower(f.Name.Name)
	raw := make([]cql.SelectorExpr, len(f.Args))
	argTypes := make([]*types.Type, len(f.Args))
	for i, a := range f.Args {
		raw[i] = &cql.TermSel{Term: a}
		argTypes[i] = termArgType(a, ks)
	}
	fn, err := resolveNative(name, raw, argTypes)
	if err != nil {
		return nil
	}
	return fn.ret
}

func termArgType(a cql.Term, ks string) *types.Type {
	switch x := a.(type) {
	case *cql.FunctionCall:
		return termFuncType(x, ks)
	case *cql.TypeHint:
		t, err := resolveType(x.Type, ks)
		if err == nil {
			return t
		}
	case *cql.CastTerm:
		t, err := resolveType(x.Type, ks)
		if err == nil {
			return t
		}
	}
	return nil
}

// compileTermNative compiles a call of a native scalar function used as a
// value (INSERT/UPDATE values, WHERE right-hand sides).
func (c *compiled) compileTermNative(f *cql.FunctionCall, recv ColumnSpec, now func() time.Time) (termFn, error) {
	name := strings.ToLower(f.Name.Name)
	switch name {
	case "count", "min", "max", "sum", "avg":
		return nil, cqlerr.Invalidf("Aggregation function are not supported in the where clause")
	case "token":
		return c.compileTokenTerm(f, recv, now)
	case "writetime", "ttl", "maxwritetime":
		return nil, cqlerr.Invalidf("Unknown function %s called", f.Name.String())
	case "fromjson", "from_json":
		return c.compileFromJSON(name, f, recv, now)
	}
	raw := make([]cql.SelectorExpr, len(f.Args))
	argTypes := make([]*types.Type, len(f.Args))
	for i, a := range f.Args {
		raw[i] = &cql.TermSel{Term: a}
		argTypes[i] = termArgType(a, recv.Keyspace)
	}
	fn, err := resolveNative(name, raw, argTypes)
	if err != nil {
		if e := cqlerr.As(err); strings.HasPrefix(e.Message, "Unknown function") {
			return nil, cqlerr.Invalidf("Unknown function %s called", f.Name.String())
		}
		return nil, err
	}
	if !resultAssignable(recv.Type, fn.ret) {
		return nil, cqlerr.Invalidf("Type error: cannot assign result of function system.%s (type %s) to %s (type %s)", fn.name, fn.ret, recv.Name, recv.Type)
	}
	args := make([]termFn, len(f.Args))
	for i, a := range f.Args {
		pt := argTypes[i]
		if i < len(fn.params) && fn.params[i] != nil {
			pt = fn.params[i]
		}
		if pt == nil {
			return nil, cqlerr.Invalidf("Cannot infer type of argument %d in call to function system.%s: use type casts to disambiguate", i, fn.name)
		}
		af, err := c.compileTerm(a, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
			Name: "arg" + strconv.Itoa(i) + "(system." + fn.name + ")", Type: pt}, now)
		if err != nil {
			return nil, err
		}
		args[i] = af
	}
	return func(vals []Value) ([]byte, bool, error) {
		in := make([][]byte, len(args))
		for i, af := range args {
			b, unset, err := af(vals)
			if err != nil {
				return nil, false, err
			}
			if unset {
				b = nil
			}
			if b == nil && !fn.calledOnNull {
				return nil, false, nil
			}
			in[i] = b
		}
		out, err := fn.exec(&evalCtx{now: now, vals: vals}, in)
		return out, false, err
	}, nil
}

// compileTokenTerm compiles token(...) used as a value (token(k) >
// token('a'), INSERT ... VALUES (token(1))): FunctionResolver special-cases
// token, a TokenFct whose parameters are the partition key columns of the
// receiver's table and whose result is the partitioner's token (bigint).
func (c *compiled) compileTokenTerm(f *cql.FunctionCall, recv ColumnSpec, now func() time.Time) (termFn, error) {
	var t *schema.Table
	if c.schema != nil && c.schema.Keyspace(recv.Keyspace) != nil {
		t = c.schema.Table(recv.Keyspace, recv.Table)
	}
	if t == nil || c.part == nil {
		return nil, cqlerr.Invalidf("Unknown function %s called", f.Name.String())
	}
	if len(f.Args) != len(t.PartitionKey) {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.PartitionKey), len(f.Args))
	}
	if !resultAssignable(recv.Type, types.BigintType) {
		return nil, cqlerr.Invalidf("Type error: cannot assign result of function system.token (type bigint) to %s (type %s)", recv.Name, recv.Type)
	}
	args := make([]termFn, len(f.Args))
	for i, a := range f.Args {
		pt := t.PartitionKey[i].Type
		if !termAssignable(a, pt) {
			return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", termText(a), i, pt)
		}
		af, err := c.compileTerm(a, ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table,
			Name: "arg" + strconv.Itoa(i) + "(system.token)", Type: pt}, now)
		if err != nil {
			return nil, err
		}
		args[i] = af
	}
	part := c.part
	return func(vals []Value) ([]byte, bool, error) {
		comps := make([][]byte, len(args))
		for i, af := range args {
			b, unset, err := af(vals)
			if err != nil {
				return nil, false, err
			}
			if unset || b == nil {
				return nil, false, nil // TokenFct: a null argument is a null token
			}
			comps[i] = b
		}
		return tokenValue(part, comps), false, nil
	}, nil
}

// tokenValue is TokenFct's result: the token of the partition key made of
// comps, as a bigint.
func tokenValue(part Partitioner, comps [][]byte) []byte {
	return types.EncodeBigint(part.Token(mutation.CompositeKey(comps)))
}

// evalInt32 evaluates an int term (LIMIT, TTL).
func evalInt32(fn termFn, vals []Value) (int32, bool, error) {
	b, unset, err := fn(vals)
	if err != nil || unset || b == nil {
		return 0, unset || b == nil, err
	}
	if len(b) != 4 {
		return 0, false, cqlerr.Invalidf("Invalid int value")
	}
	return int32(binary.BigEndian.Uint32(b)), false, nil
}

// evalTokenBound evaluates the value of a token restriction: a null one
// (token(k) > null, or a token() of a null) is StatementRestrictions'
// "Invalid null token value".
func evalTokenBound(fn termFn, vals []Value) (int64, error) {
	b, unset, err := fn(vals)
	switch {
	case err != nil:
		return 0, err
	case unset:
		return 0, cqlerr.Invalidf("Invalid unset value for token restriction")
	case b == nil:
		return 0, cqlerr.Invalidf("Invalid null token value")
	case len(b) != 8:
		return 0, cqlerr.Invalidf("Invalid bigint value")
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// evalInt64 evaluates a bigint term (TIMESTAMP).
func evalInt64(fn termFn, vals []Value) (int64, bool, error) {
	b, unset, err := fn(vals)
	if err != nil || unset || b == nil {
		return 0, unset || b == nil, err
	}
	if len(b) != 8 {
		return 0, false, cqlerr.Invalidf("Invalid bigint value")
	}
	return int64(binary.BigEndian.Uint64(b)), false, nil
}

// nowFunc returns the current time.
type nowFunc = func() time.Time
