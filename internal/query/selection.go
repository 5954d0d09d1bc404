package query

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// This file compiles SELECT clauses into trees of selNodes, following
// Cassandra's cql3/selection model: every node receives each input row
// (add), produces its value (out) and is reset between output rows. Simple
// selectors keep the first row they see, so that in an aggregate query a
// plain column shows the value of the group's first row, as in Cassandra;
// aggregates fold every row.

// evalCtx is what the selectors see for one input row.
type evalCtx struct {
	t      *schema.Table
	row    *outRow
	nowSec int64
	vals   []Value
	now    func() time.Time
	// masked: masked columns are selected through their masks (the user
	// lacks UNMASK; masking.go).
	masked bool
}

type selNode interface {
	add(ctx *evalCtx) error
	out(ctx *evalCtx) ([]byte, error)
	reset()
}

// selExpr is a compiled selector with Cassandra's result name and type.
type selExpr struct {
	node  selNode
	name  string
	typ   *types.Type
	col   *schema.Column // set for a plain column selector
	agg   bool           // contains an aggregate
	terms bool           // only terms (no column reference)
	// of and step describe a field, element or slice selector: the
	// selector it selects from and how (cell metadata functions walk them).
	of   *selExpr
	step *metaStep
}

// ---------------------------------------------------------------------------
// Nodes

type firstNode struct {
	get func(ctx *evalCtx) []byte
	v   []byte
	set bool
}

func (n *firstNode) add(ctx *evalCtx) error {
	if !n.set {
		n.v, n.set = n.get(ctx), true
	}
	return nil
}
func (n *firstNode) out(*evalCtx) ([]byte, error) { return n.v, nil }
func (n *firstNode) reset()                       { n.v, n.set = nil, false }

type termNode struct{ fn termFn }

func (n *termNode) add(*evalCtx) error { return nil }
func (n *termNode) out(ctx *evalCtx) ([]byte, error) {
	b, unset, err := n.fn(ctx.vals)
	if unset {
		return nil, nil
	}
	return b, err
}
func (n *termNode) reset() {}

// scalarNode applies a scalar function to its arguments' outputs.
type scalarNode struct {
	args       []selNode
	fn         func(ctx *evalCtx, args [][]byte) ([]byte, error)
	calledNull bool
}

func (n *scalarNode) add(ctx *evalCtx) error {
	for _, a := range n.args {
		if err := a.add(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (n *scalarNode) out(ctx *evalCtx) ([]byte, error) {
	vs := make([][]byte, len(n.args))
	for i, a := range n.args {
		v, err := a.out(ctx)
		if err != nil {
			return nil, err
		}
		if v == nil && !n.calledNull {
			return nil, nil
		}
		vs[i] = v
	}
	return n.fn(ctx, vs)
}

func (n *scalarNode) reset() {
	for _, a := range n.args {
		a.reset()
	}
}

// aggNode folds the value of its argument over every input row.
type aggNode struct {
	arg selNode // nil for count(*)
	acc aggregator
}

func (n *aggNode) add(ctx *evalCtx) error {
	var v []byte
	if n.arg != nil {
		if err := n.arg.add(ctx); err != nil {
			return err
		}
		var err error
		if v, err = n.arg.out(ctx); err != nil {
			return err
		}
		n.arg.reset()
	}
	return n.acc.add(v, n.arg == nil)
}
func (n *aggNode) out(*evalCtx) ([]byte, error) { return n.acc.result() }
func (n *aggNode) reset()                       { n.acc.reset() }

// ---------------------------------------------------------------------------
// Compilation

type selCompiler struct {
	c   *compiled
	t   *schema.Table
	now nowFunc
	// inAgg is set while compiling the argument of an aggregate.
	inAgg bool
	// checks are the bound values of element and slice selections,
	// checked once per query (ElementsSelector's factory newInstance).
	checks []func([]Value) error
}

func (sc *selCompiler) compile(e cql.SelectorExpr) (*selExpr, error) {
	t := sc.t
	switch x := e.(type) {
	case *cql.ColumnSel:
		col, err := columnOf(t, x.Name)
		if err != nil {
			return nil, err
		}
		get := func(ctx *evalCtx) []byte { return ctx.row.value(ctx.t, col) }
		if mask := masker(col); mask != nil {
			clear := get
			get = func(ctx *evalCtx) []byte {
				v := clear(ctx)
				if !ctx.masked {
					return v
				}
				m, err := mask(v)
				if err != nil {
					// The mask was resolved when the column was masked;
					// should it fail now, show nothing rather than the
					// clear value.
					return nil
				}
				return m
			}
		}
		return &selExpr{node: &firstNode{get: get}, name: col.Name, typ: col.Type, col: col}, nil
	case *cql.TermSel:
		typ, err := sc.termType(x.Term, nil)
		if err != nil {
			return nil, err
		}
		f, err := sc.c.compileTerm(x.Term, spec(t, termText(x.Term), typ), sc.now)
		if err != nil {
			return nil, err
		}
		return &selExpr{node: &termNode{fn: f}, name: termText(x.Term), typ: typ, terms: true}, nil
	case *cql.CastSel:
		return sc.compileCast(x)
	case *cql.HintSel:
		return sc.compileHint(x)
	case *cql.ArithSel:
		return sc.compileArith(x)
	case *cql.NegSel:
		return sc.compileNeg(x)
	case *cql.ElementSel:
		return sc.compileElement(x)
	case *cql.FieldSel:
		return sc.compileField(x)
	case *cql.FunctionSel:
		return sc.compileFunction(x)
	}
	return nil, cqlerr.NotImplemented("this kind of selector")
}

// termText is how Cassandra names a term selector (Term.Raw.getText).
func termText(t cql.Term) string {
	switch x := t.(type) {
	case *cql.Literal:
		switch x.Kind {
		case cql.LitString:
			return "'" + strings.ReplaceAll(x.Text, "'", "''") + "'"
		case cql.LitNull:
			return "NULL"
		}
		return x.Text
	case *cql.BindMarker:
		if x.Name != "" {
			return ":" + x.Name
		}
		return "?"
	case *cql.TypeHint:
		return "(" + typeExprString(x.Type) + ")" + termText(x.Term)
	case *cql.FunctionCall:
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			args[i] = termText(a)
		}
		return x.Name.String() + "(" + strings.Join(args, ", ") + ")"
	case *cql.CollectionLiteral:
		var parts []string
		if x.Kind == cql.MapLiteral {
			for i := range x.Keys {
				parts = append(parts, termText(x.Keys[i])+": "+termText(x.Values[i]))
			}
		} else {
			for _, el := range x.Elems {
				parts = append(parts, termText(el))
			}
		}
		if x.Kind == cql.ListLiteral {
			return "[" + strings.Join(parts, ", ") + "]"
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *cql.TupleLiteral:
		parts := make([]string, len(x.Elems))
		for i, el := range x.Elems {
			parts[i] = termText(el)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "?"
}

func typeExprString(te cql.TypeExpr) string {
	if te.Custom != "" {
		return "'" + te.Custom + "'"
	}
	if len(te.Params) == 0 {
		return strings.ToLower(te.Name)
	}
	ps := make([]string, len(te.Params))
	for i, p := range te.Params {
		ps[i] = typeExprString(p)
	}
	return strings.ToLower(te.Name) + "<" + strings.Join(ps, ", ") + ">"
}

// termType infers the type of a term used as a selector (or as an argument
// whose type the function does not fix). want, when non-nil, is used for
// terms whose type cannot be inferred.
func (sc *selCompiler) termType(term cql.Term, want *types.Type) (*types.Type, error) {
	switch x := term.(type) {
	case *cql.Literal:
		switch x.Kind {
		case cql.LitString:
			for i := 0; i < len(x.Text); i++ {
				if x.Text[i] >= 0x80 {
					return types.TextType, nil
				}
			}
			return types.AsciiType, nil
		case cql.LitInteger:
			if _, err := types.FromNumber(types.IntType, x.Text); err == nil {
				return types.IntType, nil
			}
			if _, err := types.FromNumber(types.BigintType, x.Text); err == nil {
				return types.BigintType, nil
			}
			return types.VarintType, nil
		case cql.LitFloat:
			return preferredFloatType(x.Text), nil
		case cql.LitBool:
			return types.BooleanType, nil
		case cql.LitUUID:
			return types.UUIDType, nil
		case cql.LitHex:
			return types.BlobType, nil
		case cql.LitDuration:
			return types.DurationType, nil
		}
	case *cql.TypeHint:
		return resolveTypeIn(sc.c.schema, x.Type, sc.t.Keyspace)
	case *cql.FunctionCall:
		switch strings.ToLower(x.Name.Name) {
		case "now", "currenttimeuuid", "current_timeuuid":
			return types.TimeuuidType, nil
		case "uuid":
			return types.UUIDType, nil
		case "currenttimestamp", "current_timestamp":
			return types.TimestampType, nil
		case "currentdate", "current_date":
			return types.DateType, nil
		case "currenttime", "current_time":
			return types.TimeType, nil
		}
	}
	if want != nil {
		return want, nil
	}
	return nil, cqlerr.Invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", termText(term))
}

// compileTyped compiles a selector and resolves the type written with it
// (a cast's or a type hint's).
func (sc *selCompiler) compileTyped(e cql.SelectorExpr, te cql.TypeExpr) (*selExpr, *types.Type, error) {
	arg, err := sc.compile(e)
	if err != nil {
		return nil, nil, err
	}
	to, err := resolveTypeIn(sc.c.schema, te, sc.t.Keyspace)
	if err != nil {
		return nil, nil, err
	}
	return arg, to, nil
}

func (sc *selCompiler) compileCast(x *cql.CastSel) (*selExpr, error) {
	arg, to, err := sc.compileTyped(x.Expr, x.Type)
	if err != nil {
		return nil, err
	}
	if arg.typ.Equal(to) {
		return arg, nil
	}
	fn := castFunc(arg.typ, to)
	if fn == nil {
		return nil, cqlerr.Invalidf("%s cannot be cast to %s", arg.name, strings.ToLower(to.String()))
	}
	return &selExpr{node: &scalarNode{args: []selNode{arg.node}, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) { return fn(a[0]) }},
		name: "cast(" + arg.name + " as " + to.String() + ")", typ: to, agg: arg.agg}, nil
}

// compileHint compiles (type) selector, Selectable.WithTypeHint: the
// selector's values read as the hinted type, which must take them
// (isValueCompatibleWith, so (blob) of anything). The hinted type is
// frozen, so a non-frozen collection or UDT column takes no hint but
// blob. The name keeps the parentheses an operation, field or element
// selection needs inside a hint (BetweenParenthesesOrWithTuple).
func (sc *selCompiler) compileHint(x *cql.HintSel) (*selExpr, error) {
	arg, to, err := sc.compileTyped(x.Expr, x.Type)
	if err != nil {
		return nil, err
	}
	if to.IsMultiCell() {
		frozen := *to
		frozen.Frozen = true
		to = &frozen
	}
	inner := arg.name
	if cql.HintNeedsParens(x.Expr) {
		inner = "(" + inner + ")"
	}
	name := "(" + typeExprString(x.Type) + ")" + inner
	if arg.typ.IsMultiCell() && to.Kind != types.Blob || !valueCompatible(to, arg.typ) {
		return nil, cqlerr.Invalidf("Cannot assign value %s to %s of type %s", name, name, to)
	}
	return &selExpr{node: arg.node, name: name, typ: to, agg: arg.agg, terms: arg.terms}, nil
}

var arithOpNames = map[byte]string{'+': "_add", '-': "_substract", '*': "_multiply", '/': "_divide", '%': "_modulo"}

func (sc *selCompiler) compileArith(x *cql.ArithSel) (*selExpr, error) {
	l, r, err := sc.compilePair(x.Left, x.Right)
	if err != nil {
		return nil, err
	}
	name := operandName(x.Left, l.name, x.Op, false) + " " + string(x.Op) + " " + operandName(x.Right, r.name, x.Op, true)
	res, fn, err := arithFunc(x.Op, l.typ, r.typ, l.name, r.name)
	if err != nil {
		return nil, err
	}
	return &selExpr{node: &scalarNode{args: []selNode{l.node, r.node}, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) { return fn(a[0], a[1]) }},
		name: name, typ: res, agg: l.agg || r.agg, terms: l.terms && r.terms}, nil
}

// compilePair compiles the operands of a binary operation; an untyped term
// takes the type of the other operand.
func (sc *selCompiler) compilePair(a, b cql.SelectorExpr) (*selExpr, *selExpr, error) {
	at, aTerm := a.(*cql.TermSel)
	bt, bTerm := b.(*cql.TermSel)
	var l, r *selExpr
	var err error
	if aTerm && !bTerm {
		if r, err = sc.compile(b); err != nil {
			return nil, nil, err
		}
		if l, err = sc.compileTermAs(at.Term, r.typ, false); err != nil {
			return nil, nil, err
		}
		return l, r, nil
	}
	if l, err = sc.compile(a); err != nil {
		return nil, nil, err
	}
	if bTerm {
		r, err = sc.compileTermAs(bt.Term, l.typ, false)
	} else {
		r, err = sc.compile(b)
	}
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

// compileTermAs compiles a term with its own inferred type if it has one,
// else as a value of typ. A constant given to a function parameter (param)
// takes the parameter's type when assignable; an operation's operand keeps
// its preferred type.
func (sc *selCompiler) compileTermAs(term cql.Term, typ *types.Type, param bool) (*selExpr, error) {
	tt := typ
	if l, ok := term.(*cql.Literal); ok && typ != nil && (param || !isNumeric(typ)) && l.Kind != cql.LitNull {
		// A constant argument takes the parameter's type when assignable.
		if _, err := literalValue(l, spec(sc.t, "", typ)); err == nil {
			f, _ := sc.c.compileTerm(term, spec(sc.t, termText(term), typ), sc.now)
			return &selExpr{node: &termNode{fn: f}, name: termText(term), typ: typ, terms: true}, nil
		}
	}
	if _, ok := term.(*cql.BindMarker); !ok {
		if lt, err := sc.termType(term, typ); err == nil {
			// A number literal keeps its preferred type (int, bigint or
			// varint; double or decimal): the operation with that exact
			// signature exists, so FunctionResolver picks it, and the
			// result type is promoted from both (tinyint + 1 is an int).
			tt = lt
		}
	}
	f, err := sc.c.compileTerm(term, spec(sc.t, termText(term), tt), sc.now)
	if err != nil {
		return nil, err
	}
	return &selExpr{node: &termNode{fn: f}, name: termText(term), typ: tt, terms: true}, nil
}

func (sc *selCompiler) compileNeg(x *cql.NegSel) (*selExpr, error) {
	arg, err := sc.compile(x.Expr)
	if err != nil {
		return nil, err
	}
	if !isNumeric(arg.typ) {
		return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument 0 of function system._negate of type %s", arg.name, arg.typ)
	}
	typ := arg.typ
	if typ.Kind == types.Counter {
		typ = types.BigintType
	}
	at := arg.typ
	return &selExpr{node: &scalarNode{args: []selNode{arg.node}, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) {
		n, err := decodeNum(at, a[0])
		if err != nil {
			return nil, err
		}
		r, err := negateNum(typ, n)
		if err != nil {
			return nil, err
		}
		return encodeNum(typ, r)
	}}, name: negationName(x.Expr, arg.name), typ: typ, agg: arg.agg}, nil
}

// negationName names -x: an operation x in parentheses, since a unary
// minus binds tighter than any of them (-(a * b)).
func negationName(e cql.SelectorExpr, name string) string {
	if _, ok := e.(*cql.ArithSel); ok {
		return "-(" + name + ")"
	}
	return "-" + name
}

// operandName is the name of an operand of op in a result column name:
// in parentheses when it is an operation that binds less tightly (or as
// tightly, on the right), as the user wrote them (the parser drops
// grouping parentheses; Cassandra names "(c - b) / a").
func operandName(e cql.SelectorExpr, name string, op byte, right bool) string {
	inner, ok := e.(*cql.ArithSel)
	if !ok {
		return name
	}
	prec := func(op byte) int {
		if op == '+' || op == '-' {
			return 1
		}
		return 2
	}
	if prec(inner.Op) < prec(op) || right && prec(inner.Op) == prec(op) {
		return "(" + name + ")"
	}
	return name
}

func (sc *selCompiler) compileElement(x *cql.ElementSel) (*selExpr, error) {
	arg, err := sc.compile(x.Expr)
	if err != nil {
		return nil, err
	}
	typ := arg.typ
	if typ.Kind != types.Map && typ.Kind != types.Set {
		if typ.Kind == types.List {
			what := "Element"
			if x.Slice {
				what = "Slice"
			}
			return nil, cqlerr.Invalidf("%s selection is only allowed on sets and maps, but %s is a list", what, arg.name)
		}
		return nil, cqlerr.Invalidf("Invalid element selection: %s is of type %s is not a collection", arg.name, typ)
	}
	keyT := typ.Params[0]
	keySpec := func(what string) ColumnSpec {
		return spec(sc.t, what+"("+arg.name+")", keyT)
	}
	if !x.Slice {
		kf, err := sc.c.compileTerm(x.Key, keySpec("key"), sc.now)
		if err != nil {
			return nil, err
		}
		sc.checks = append(sc.checks, boundSelection(kf, "element", arg.name, false))
		resT := keyT
		if typ.Kind == types.Map {
			resT = typ.Params[1]
		}
		return &selExpr{node: &scalarNode{args: []selNode{arg.node, &termNode{fn: kf}}, calledNull: true, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			return collectionElement(typ, a[0], a[1])
		}}, name: arg.name + "[" + termText(x.Key) + "]", typ: resT, agg: arg.agg,
			of: arg, step: &metaStep{typ: typ, field: -1, key: kf}}, nil
	}
	var from, to termFn
	fromText, toText := "", ""
	if x.From != nil {
		if from, err = sc.c.compileTerm(x.From, keySpec("key"), sc.now); err != nil {
			return nil, err
		}
		fromText = termText(x.From)
		sc.checks = append(sc.checks, boundSelection(from, "slice", arg.name, true))
	}
	if x.To != nil {
		if to, err = sc.c.compileTerm(x.To, keySpec("key"), sc.now); err != nil {
			return nil, err
		}
		toText = termText(x.To)
		sc.checks = append(sc.checks, boundSelection(to, "slice", arg.name, true))
	}
	return &selExpr{node: &scalarNode{args: []selNode{arg.node}, fn: func(ctx *evalCtx, a [][]byte) ([]byte, error) {
		var lo, hi []byte
		if from != nil {
			lo, _, _ = from(ctx.vals)
		}
		if to != nil {
			hi, _, _ = to(ctx.vals)
		}
		return collectionSlice(typ, a[0], lo, hi)
	}}, name: arg.name + "[" + fromText + ".." + toText + "]", typ: typ, agg: arg.agg,
		of: arg, step: &metaStep{typ: typ, field: -1, slice: true, from: from, to: to}}, nil
}

// boundSelection refuses a null element key or slice bound, and an unset
// key, as ElementsSelector's factories do when a query starts: an unset
// slice bound is no bound.
func boundSelection(f termFn, what, column string, unsetIsOpen bool) func([]Value) error {
	return func(vals []Value) error {
		v, unset, err := f(vals)
		switch {
		case err != nil:
			return err
		case unset && !unsetIsOpen:
			return cqlerr.Invalidf("Invalid unset value for %s selection on %s", what, column)
		case v == nil && !unset:
			return cqlerr.Invalidf("Invalid null value for %s selection on %s", what, column)
		}
		return nil
	}
}

func collectionElement(typ *types.Type, coll, key []byte) ([]byte, error) {
	kt := typ.Params[0]
	if typ.Kind == types.Map {
		ks, vs, err := types.DecodeMap(coll)
		if err != nil {
			return nil, err
		}
		for i, k := range ks {
			if types.Compare(kt, k, key) == 0 {
				return vs[i], nil
			}
		}
		return nil, nil
	}
	els, err := types.DecodeCollection(coll)
	if err != nil {
		return nil, err
	}
	for _, e := range els {
		if types.Compare(kt, e, key) == 0 {
			return e, nil
		}
	}
	return nil, nil
}

// collectionSlice selects the elements of a set or map between lo and hi
// (nil: unbounded). No element is null for a non-frozen collection, which
// has no empty value, and an empty collection for a frozen one.
func collectionSlice(typ *types.Type, coll, lo, hi []byte) ([]byte, error) {
	kt := typ.Params[0]
	in := func(k []byte) bool {
		return (lo == nil || types.Compare(kt, k, lo) >= 0) && (hi == nil || types.Compare(kt, k, hi) <= 0)
	}
	if typ.Kind == types.Map {
		ks, vs, err := types.DecodeMap(coll)
		if err != nil {
			return nil, err
		}
		var ok, ov [][]byte
		for i, k := range ks {
			if in(k) {
				ok, ov = append(ok, k), append(ov, vs[i])
			}
		}
		if len(ok) == 0 && !typ.Frozen {
			return nil, nil
		}
		return types.EncodeMap(kt, ok, ov), nil
	}
	els, err := types.DecodeCollection(coll)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, e := range els {
		if in(e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 && !typ.Frozen {
		return nil, nil
	}
	return types.EncodeSet(kt, out), nil
}

func (sc *selCompiler) compileField(x *cql.FieldSel) (*selExpr, error) {
	arg, err := sc.compile(x.Expr)
	if err != nil {
		return nil, err
	}
	if arg.typ.Kind != types.UDT {
		return nil, cqlerr.Invalidf("Invalid field selection: %s of type %s is not a user type", arg.name, arg.typ)
	}
	idx := -1
	for i, f := range arg.typ.FieldNames {
		if f == x.Field {
			idx = i
		}
	}
	if idx < 0 {
		return nil, cqlerr.Invalidf("%s of type %s has no field %s", arg.name, arg.typ, x.Field)
	}
	ft := arg.typ.Params[idx]
	return &selExpr{node: &scalarNode{args: []selNode{arg.node}, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) {
		parts, err := types.DecodeTuple(a[0])
		if err != nil {
			return nil, err
		}
		if idx >= len(parts) {
			return nil, nil
		}
		return parts[idx], nil
	}}, name: arg.name + "." + x.Field, typ: ft, agg: arg.agg,
		of: arg, step: &metaStep{typ: arg.typ, field: idx}}, nil
}

// compileToken compiles token(...), a TokenFct whose parameters have the
// types of the partition key columns: the partition key columns in order
// give the row's own token; any other selectors of those types (token(1),
// token(v)) are hashed as a partition key would be.
func (sc *selCompiler) compileToken(x *cql.FunctionSel) (*selExpr, error) {
	t := sc.t
	if len(x.Args) != len(t.PartitionKey) {
		return nil, cqlerr.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.PartitionKey), len(x.Args))
	}
	names := make([]string, len(x.Args))
	nodes := make([]selNode, len(x.Args))
	ownKey, agg := true, false
	for i, a := range x.Args {
		pt := t.PartitionKey[i].Type
		var e *selExpr
		var err error
		if ts, ok := a.(*cql.TermSel); ok {
			if !termAssignable(ts.Term, pt) {
				return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", termText(ts.Term), i, pt)
			}
			e, err = sc.compileTermAs(ts.Term, pt, true)
		} else {
			e, err = sc.compile(a)
		}
		if err != nil {
			return nil, err
		}
		if !valueCompatible(pt, e.typ) {
			return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", e.name, i, pt)
		}
		// A masked key column gives its masked value, as any selector.
		ownKey = ownKey && e.col == t.PartitionKey[i] && e.col.Mask == nil
		names[i], nodes[i], agg = e.name, e.node, agg || e.agg
	}
	name := "system.token(" + strings.Join(names, ", ") + ")"
	if ownKey {
		return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte { return types.EncodeBigint(ctx.row.token) }},
			name: name, typ: types.BigintType}, nil
	}
	part := sc.c.part
	if part == nil {
		return nil, cqlerr.Invalidf("Unknown function %s called", x.Name.String())
	}
	return &selExpr{node: &scalarNode{args: nodes, fn: func(_ *evalCtx, a [][]byte) ([]byte, error) {
		return tokenValue(part, a), nil
	}}, name: name, typ: types.BigintType, agg: agg}, nil
}

// ---------------------------------------------------------------------------
// Function calls

func (sc *selCompiler) compileFunction(x *cql.FunctionSel) (*selExpr, error) {
	fn := strings.ToLower(x.Name.Name)
	if x.Name.Keyspace != "" && !strings.EqualFold(x.Name.Keyspace, "system") {
		return nil, cqlerr.Invalidf("Unknown function '%s.%s'", x.Name.Keyspace, x.Name.Name)
	}
	switch fn {
	case "writetime", "ttl", "maxwritetime":
		if x.Name.Keyspace == "" {
			return sc.compileCellMeta(fn, x)
		}
	case "token":
		return sc.compileToken(x)
	case "count", "min", "max", "sum", "avg":
		return sc.compileAggregate(fn, x)
	case "fromjson", "from_json":
		// FromJsonFct.Factory: the message names the function as called.
		return nil, cqlerr.Invalidf("%s() cannot be used in the selection clause of a SELECT statement", fn)
	}
	// Compile the arguments that carry their own type first.
	args := make([]*selExpr, len(x.Args))
	argTypes := make([]*types.Type, len(x.Args))
	for i, a := range x.Args {
		if ts, ok := a.(*cql.TermSel); ok {
			if _, isMarker := ts.Term.(*cql.BindMarker); isMarker {
				continue
			}
			switch ts.Term.(type) {
			case *cql.Literal, *cql.CollectionLiteral, *cql.TupleLiteral, *cql.UDTLiteral:
				continue
			}
		}
		e, err := sc.compile(a)
		if err != nil {
			return nil, err
		}
		args[i], argTypes[i] = e, e.typ
	}
	f, err := resolveNative(fn, x.Args, argTypes)
	if err != nil {
		return nil, err
	}
	agg := false
	names := make([]string, len(x.Args))
	nodes := make([]selNode, len(x.Args))
	for i, a := range x.Args {
		if args[i] == nil {
			e, err := sc.compileTermAs(a.(*cql.TermSel).Term, f.params[i], true)
			if err != nil {
				return nil, err
			}
			if !typeAccepts(f.params[i], e.typ) {
				return nil, cqlerr.Invalidf("Type error: %s cannot be passed as argument %d of function system.%s of type %s", e.name, i, f.name, f.params[i])
			}
			args[i] = e
		}
		names[i] = args[i].name
		nodes[i] = args[i].node
		agg = agg || args[i].agg
	}
	return &selExpr{node: &scalarNode{args: nodes, fn: f.exec, calledNull: f.calledOnNull},
		name: "system." + f.name + "(" + strings.Join(names, ", ") + ")", typ: f.ret, agg: agg}, nil
}

// typeAccepts reports whether a value of type got may be passed where want
// is expected.
func typeAccepts(want, got *types.Type) bool {
	if want == nil || want.Equal(got) {
		return true
	}
	if want.Kind == got.Kind && !want.IsCollection() {
		return true
	}
	switch want.Kind {
	case types.Text:
		return got.Kind == types.Ascii
	case types.UUID:
		return got.Kind == types.Timeuuid
	case types.Blob:
		return true
	}
	if want.IsCollection() && got.Kind == want.Kind {
		return true
	}
	return false
}

// compileSelection compiles the selectors of a SELECT, and the checks of
// their bound values to run once per query.
func (c *compiled) compileSelection(t *schema.Table, sels []cql.Selector, now nowFunc) ([]*selExpr, []func([]Value) error, error) {
	sc := &selCompiler{c: c, t: t, now: now}
	out := make([]*selExpr, 0, len(sels))
	for _, s := range sels {
		e, err := sc.compile(s.Expr)
		if err != nil {
			return nil, nil, err
		}
		if s.Alias != "" {
			cp := *e
			cp.name = s.Alias
			e = &cp
		}
		out = append(out, e)
	}
	return out, sc.checks, nil
}

// sameBytes is bytes.Equal, named for readability at call sites.
func sameBytes(a, b []byte) bool { return bytes.Equal(a, b) }

// preferredFloatType is Constants.Type.FLOAT.getPreferedTypeFor: double
// when the literal's value survives BigDecimal.valueOf(doubleValue()),
// else decimal (0.1234567890123456789).
func preferredFloatType(text string) *types.Type {
	exact, ok := new(big.Rat).SetString(text)
	if !ok {
		return types.DoubleType // NaN, Infinity
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return types.DecimalType
	}
	back, ok := new(big.Rat).SetString(types.JavaDouble(f, 64))
	if ok && back.Cmp(exact) == 0 {
		return types.DoubleType
	}
	return types.DecimalType
}
