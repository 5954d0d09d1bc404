package query

import (
	"slices"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Multi-column (tuple) relations on clustering columns, as Cassandra's
// MultiColumnRelation: (c1, c2) = (1, 2), (c1, c2) IN ((1, 2), (3, 4)) and
// (c1, c2) > (1, 2). Equalities and INs extend the clustering prefix, as
// single-column ones do (an IN's tuples are one factor of its product, see
// clusterings); a slice must be the last clustering restriction.

// tupleRestriction is a tuple IN or slice over clustering columns
// [start, start+len(cols)). An IN is held by the keyVals of each of its
// columns; a slice by the plan.
type tupleRestriction struct {
	start int
	cols  []*schema.Column
	// IN: one fn per tuple, or a single list<tuple> marker (IN ?).
	in         []termFn
	listMarker bool
	// slice
	lower, upper         termFn
	lowerIncl, upperIncl bool
	lowerCols, upperCols int
}

// relText prints a relation as Cassandra's Relation.toString does.
func relText(r cql.Relation) string {
	var b strings.Builder
	switch {
	case r.Token:
		b.WriteString("token(" + strings.Join(r.Columns, ", ") + ")")
	case r.Tuple:
		b.WriteString("(" + strings.Join(r.Columns, ", ") + ")")
	default:
		b.WriteString(r.Columns[0])
		if r.MapKey != nil {
			b.WriteString("[" + cql.FormatTerm(r.MapKey) + "]")
		}
	}
	b.WriteString(" " + r.Op.String() + " ")
	switch r.Op {
	case cql.OpIsNot:
		b.WriteString("NULL")
	case cql.OpIn, cql.OpNotIn:
		if r.InMarker != nil {
			b.WriteString(cql.FormatTerm(r.InMarker))
		} else {
			parts := make([]string, len(r.InValues))
			for i, v := range r.InValues {
				parts[i] = cql.FormatTerm(v)
			}
			b.WriteString("(" + strings.Join(parts, ", ") + ")")
		}
	default:
		b.WriteString(cql.FormatTerm(r.Value))
	}
	return b.String()
}

// tupleRelationColumns resolves the columns of a multi-column relation:
// distinct clustering columns in key order.
func tupleRelationColumns(t *schema.Table, r cql.Relation) ([]*schema.Column, error) {
	cols := make([]*schema.Column, len(r.Columns))
	for i, n := range r.Columns {
		col, err := columnOf(t, n)
		if err != nil {
			return nil, err
		}
		if col.Kind != schema.Clustering {
			return nil, cqlerr.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", col.Name)
		}
		for j := 0; j < i; j++ {
			if cols[j] == col {
				return nil, cqlerr.Invalidf("Column \"%s\" appeared twice in a relation: %s", col.Name, relText(r))
			}
		}
		cols[i] = col
	}
	for i, col := range cols {
		if col.Position != cols[0].Position+i {
			return nil, cqlerr.Invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", relText(r))
		}
	}
	return cols, nil
}

// compileTupleRelation handles one multi-column relation of a SELECT,
// UPDATE or DELETE on table t. Equalities and INs are stored in ck, slices
// in *tuple; eq reports an equality.
func (c *compiled) compileTupleRelation(t *schema.Table, tuple **tupleRestriction, r cql.Relation, ck []*keyVals, now nowFunc) (eq bool, err error) {
	switch r.Op {
	case cql.OpEq, cql.OpIn, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
	default:
		// Relation.toRestriction refuses the operator before it looks
		// at the columns.
		return false, cqlerr.Invalidf("Unsupported \"%s\" relation: %s", r.Op, relText(r))
	}
	cols, err := tupleRelationColumns(t, r)
	if err != nil {
		return false, err
	}
	elemTypes := make([]*types.Type, len(cols))
	for i, col := range cols {
		elemTypes[i] = col.Type
	}
	tt := types.TupleOf(elemTypes...)
	name := "(" + strings.Join(r.Columns, ",") + ")"
	compileTuple := func(term cql.Term) (termFn, error) {
		if tl, ok := term.(*cql.TupleLiteral); ok && len(tl.Elems) != len(cols) {
			return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d: %s", len(cols), len(tl.Elems), cql.FormatTerm(term))
		}
		return c.compileTerm(term, spec(t, name, tt), now)
	}
	op, value := r.Op, r.Value
	if op == cql.OpIn && r.InMarker == nil && len(r.InValues) == 1 {
		// One tuple: an equality (Cassandra's MultiColumnRelation.
		// newINRestriction), as a single-column IN (x) is.
		op, value = cql.OpEq, r.InValues[0]
	}
	switch op {
	case cql.OpEq:
		f, err := compileTuple(value)
		if err != nil {
			return false, err
		}
		for i, col := range cols {
			if err := mergeKeyRestriction(col, ck[col.Position], false); err != nil {
				return false, err
			}
			ck[col.Position] = &keyVals{fns: []termFn{tupleComponent(f, i, col)}}
		}
		return true, nil
	case cql.OpIn:
		for _, col := range cols {
			if err := mergeKeyRestriction(col, ck[col.Position], false); err != nil {
				return false, err
			}
			if sl := *tuple; sl != nil && col.Position >= sl.start && col.Position < sl.start+len(sl.cols) {
				return false, cqlerr.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
			}
		}
		tr := &tupleRestriction{start: cols[0].Position, cols: cols}
		if r.InMarker != nil {
			c.addMarker(r.InMarker, spec(t, "in"+name, types.ListOf(tt, false)))
			idx := r.InMarker.Index
			tr.listMarker = true
			tr.in = []termFn{func(vals []Value) ([]byte, bool, error) {
				if idx >= len(vals) {
					return nil, false, cqlerr.Invalidf("No value for bound variable %d", idx)
				}
				if vals[idx].Unset || vals[idx].B == nil {
					return nil, false, cqlerr.Invalidf("Invalid null value for IN restriction on %s", name)
				}
				return vals[idx].B, false, nil
			}}
		} else {
			for _, v := range r.InValues {
				f, err := compileTuple(v)
				if err != nil {
					return false, err
				}
				tr.in = append(tr.in, f)
			}
		}
		for _, col := range cols {
			ck[col.Position] = &keyVals{tuple: tr}
		}
		return false, nil
	default: // a slice: the operator was checked above
		tr := *tuple
		if tr == nil {
			tr = &tupleRestriction{start: cols[0].Position, cols: cols}
			*tuple = tr
		} else if tr.start != cols[0].Position {
			return false, cqlerr.Invalidf("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", cols[0].Name)
		}
		if len(cols) > len(tr.cols) {
			tr.cols = cols
		}
		f, err := compileTuple(r.Value)
		if err != nil {
			return false, err
		}
		lowerSide := r.Op == cql.OpGt || r.Op == cql.OpGte
		incl := r.Op == cql.OpGte || r.Op == cql.OpLte
		if lowerSide {
			if tr.lower != nil {
				return false, cqlerr.Invalidf("More than one restriction was found for the start bound on %s", cols[0].Name)
			}
			tr.lower, tr.lowerIncl, tr.lowerCols = f, incl, len(cols)
		} else {
			if tr.upper != nil {
				return false, cqlerr.Invalidf("More than one restriction was found for the end bound on %s", cols[0].Name)
			}
			tr.upper, tr.upperIncl, tr.upperCols = f, incl, len(cols)
		}
		return false, nil
	}
}

// tupleComponent extracts component i of a tuple term.
func tupleComponent(f termFn, i int, col *schema.Column) termFn {
	return func(vals []Value) ([]byte, bool, error) {
		b, unset, err := f(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		parts, err := types.DecodeTuple(b)
		if err != nil {
			return nil, false, err
		}
		if i >= len(parts) || parts[i] == nil {
			// MultiColumnRestriction.EQRestriction's message.
			return nil, false, cqlerr.Invalidf("Invalid null value for column %s", col.Name)
		}
		return parts[i], false, nil
	}
}

// checkPlacement checks the tuple restriction against the other
// clustering restrictions: ck (= and IN, with n the length of their
// prefix) and the single-column slices. It must start right after the
// prefix, and no column after its start may be restricted otherwise;
// with filtering (a SELECT's ALLOW FILTERING), columns after its own may,
// as filters.
func (tr *tupleRestriction) checkPlacement(t *schema.Table, ck []*keyVals, n int, slices []*sliceTerms, filtering bool) error {
	if tr.start < n {
		return mergeKeyRestriction(tr.cols[0], ck[tr.start], false)
	}
	if tr.start > n {
		return cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", tr.cols[0].Name, t.Clustering[n].Name)
	}
	for i := n; i < len(ck); i++ {
		restricted := ck[i] != nil
		for _, s := range slices {
			if s.col.Position == i {
				restricted = true
			}
		}
		if !restricted {
			continue
		}
		if i < tr.start+len(tr.cols) {
			return cqlerr.Invalidf("Column \"%s\" cannot be restricted by both a tuple notation inequality and a single column inequality", t.Clustering[i].Name)
		}
		if filtering {
			continue
		}
		return cqlerr.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", t.Clustering[i].Name, tr.cols[0].Name)
	}
	return nil
}

// absorb merges into the tuple slice the single-column slices on its first
// column, as one-column tuple bounds (Cassandra's MultiColumnRestriction.
// mergeWith: "We want to allow query like: (b,c) > (?, ?) AND b < ?"), and
// returns the other slices. A single-column slice on another of its
// columns does not start with the same column.
func (tr *tupleRestriction) absorb(sls []*sliceTerms) ([]*sliceTerms, error) {
	var rest []*sliceTerms
	for _, s := range sls {
		switch pos := s.col.Position; {
		case pos == tr.start:
			if s.lower != nil {
				if tr.lower != nil {
					return nil, cqlerr.Invalidf("More than one restriction was found for the start bound on %s", s.col.Name)
				}
				tr.lower, tr.lowerIncl, tr.lowerCols = asTuple(s.lower), s.lowerIncl, 1
			}
			if s.upper != nil {
				if tr.upper != nil {
					return nil, cqlerr.Invalidf("More than one restriction was found for the end bound on %s", s.col.Name)
				}
				tr.upper, tr.upperIncl, tr.upperCols = asTuple(s.upper), s.upperIncl, 1
			}
		case pos > tr.start && pos < tr.start+len(tr.cols):
			return nil, cqlerr.Invalidf("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", s.col.Name)
		default:
			rest = append(rest, s)
		}
	}
	return rest, nil
}

// asTuple makes a single value a one-component tuple.
func asTuple(f termFn) termFn {
	return func(vals []Value) ([]byte, bool, error) {
		b, unset, err := f(vals)
		if err != nil || unset || b == nil {
			return nil, unset, err
		}
		return types.EncodeTuple([][]byte{b}), false, nil
	}
}

// value evaluates a tuple of the restriction and returns its first n
// components, which may not be null.
func (tr *tupleRestriction) value(f termFn, n int, vals []Value) ([][]byte, error) {
	b, unset, err := f(vals)
	if err != nil {
		return nil, err
	}
	if unset || b == nil {
		return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", tr.cols[0].Name)
	}
	parts, err := types.DecodeTuple(b)
	if err != nil {
		return nil, err
	}
	if len(parts) < n {
		return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d", n, len(parts))
	}
	for i := 0; i < n; i++ {
		if parts[i] == nil {
			return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", tr.cols[i].Name)
		}
	}
	return parts[:n], nil
}

// tuples evaluates the IN list.
func (tr *tupleRestriction) tuples(vals []Value) ([][][]byte, error) {
	var raw [][]byte
	for _, f := range tr.in {
		b, unset, err := f(vals)
		if err != nil {
			return nil, err
		}
		if !tr.listMarker {
			if unset || b == nil {
				return nil, tr.errNullIn()
			}
			raw = append(raw, b)
			continue
		}
		els, err := types.DecodeCollection(b)
		if err != nil {
			return nil, cqlerr.Invalidf("Invalid list value for IN restriction")
		}
		raw = append(raw, els...)
	}
	out := make([][][]byte, 0, len(raw))
	for _, b := range raw {
		parts, err := types.DecodeTuple(b)
		if err != nil || len(parts) != len(tr.cols) {
			return nil, cqlerr.Invalidf("Invalid tuple value for IN restriction")
		}
		for i, col := range tr.cols {
			if parts[i] == nil {
				return nil, tr.errNullIn()
			}
			if !tr.listMarker {
				continue // compiled for its type, or a marker bound as one
			}
			if err := types.Validate(col.Type, parts[i]); err != nil {
				return nil, cqlerr.Invalidf("%s", cqlerr.As(err).Message)
			}
		}
		out = append(out, parts)
	}
	// Sorted, without duplicates, as single-column IN values are.
	cmp := func(a, b [][]byte) int {
		for i, col := range tr.cols {
			if c := types.Compare(col.Type, a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(out, cmp)
	return slices.CompactFunc(out, func(a, b [][]byte) bool { return cmp(a, b) == 0 }), nil
}

// errNullIn is Cassandra's error for a null in the tuples of an IN.
func (tr *tupleRestriction) errNullIn() error {
	names := make([]string, len(tr.cols))
	for i, c := range tr.cols {
		names[i] = c.Name
	}
	return cqlerr.Invalidf("Invalid null value in condition for columns: [%s]", strings.Join(names, ", "))
}

// clusterings appends each tuple of the IN list to each prefix.
func (tr *tupleRestriction) clusterings(prefixes [][][]byte, vals []Value) ([][][]byte, error) {
	tuples, err := tr.tuples(vals)
	if err != nil {
		return nil, err
	}
	return joinClusterings(prefixes, tuples)
}

// tupleSlices expands the tuple slice after each clustering prefix into
// slices in clustering order.
func (tr *tupleRestriction) tupleSlices(t *schema.Table, prefixes [][][]byte, vals []Value) ([]mutation.Slice, error) {
	if len(prefixes) > 1 {
		// Prefixes are sorted by value; for DESC columns clustering
		// order is the reverse.
		prefixes = slices.Clone(prefixes)
		slices.SortFunc(prefixes, t.CompareClustering)
	}
	// Not nil when there are no prefixes (an empty IN list before the
	// tuple): nil slices would mean no clustering restriction at all.
	out := make([]mutation.Slice, 0, len(prefixes))
	if len(prefixes) == 0 {
		return out, nil // the bounds are not evaluated (no row to bound)
	}
	lower, upper, err := tr.bounds(vals)
	if err != nil {
		return nil, err
	}
	for _, pre := range prefixes {
		out = tr.appendRanges(out, pre, lower, upper)
	}
	return out, nil
}

// bounds evaluates the slice's bounds (nil: none).
func (tr *tupleRestriction) bounds(vals []Value) (lower, upper [][]byte, err error) {
	if tr.lower != nil {
		if lower, err = tr.value(tr.lower, tr.lowerCols, vals); err != nil {
			return nil, nil, err
		}
	}
	if tr.upper != nil {
		if upper, err = tr.value(tr.upper, tr.upperCols, vals); err != nil {
			return nil, nil, err
		}
	}
	return lower, upper, nil
}

// appendRanges appends the slices, in clustering order, of the rows under
// the clustering prefix pre that the tuple slice admits. Tuples compare
// component by component in value order, which is one clustering range
// when the columns share an order. Otherwise the range splits where a
// column's order changes: (a ASC, b DESC) > (1, 2) is a = 1 AND b > 2
// (the start of a = 1 up to b = 2), then a > 1. Cassandra builds the same
// pieces (MultiColumnRestriction's slice with mixed order).
func (tr *tupleRestriction) appendRanges(out []mutation.Slice, pre [][]byte, lower, upper [][]byte) []mutation.Slice {
	if !tr.mixedOrder() {
		lo := mutation.Bound{Values: pre, Inclusive: true}
		hi := lo
		if lower != nil {
			lo = mutation.Bound{Values: concat(pre, lower...), Inclusive: tr.lowerIncl}
		}
		if upper != nil {
			hi = mutation.Bound{Values: concat(pre, upper...), Inclusive: tr.upperIncl}
		}
		if tr.cols[0].Desc {
			lo, hi = hi, lo
		}
		return append(out, mutation.Slice{Start: lo, End: hi})
	}
	r := tupleRanges{tr: tr, lower: lower, upper: upper, out: out}
	r.walk(pre, 0, lower != nil, upper != nil)
	return r.out
}

// tupleRanges splits a tuple slice over columns of mixed order into
// clustering ranges (appendRanges).
type tupleRanges struct {
	tr           *tupleRestriction
	lower, upper [][]byte
	out          []mutation.Slice
}

// walk appends the ranges under prefix pre, which holds the first i of the
// tuple's columns; lo (hi) is set while those equal the lower (upper)
// bound's, so that the bound still applies to the next column.
func (r *tupleRanges) walk(pre [][]byte, i int, lo, hi bool) {
	tr := r.tr
	if lo && i == len(r.lower) {
		if !tr.lowerIncl {
			return
		}
		lo = false
	}
	if hi && i == len(r.upper) {
		if !tr.upperIncl {
			return
		}
		hi = false
	}
	if !lo && !hi {
		all := mutation.Bound{Values: pre, Inclusive: true}
		r.out = append(r.out, mutation.Slice{Start: all, End: all})
		return
	}
	col := tr.cols[i]
	var l, u []byte
	if lo {
		l = r.lower[i]
	}
	if hi {
		u = r.upper[i]
	}
	if lo && hi {
		switch c := types.Compare(col.Type, l, u); {
		case c > 0:
			return
		case c == 0:
			r.walk(concat(pre, l), i+1, true, true)
			return
		}
	}
	// In value order: the column at the lower bound, strictly between
	// the bounds, at the upper bound. A DESC column stores them reversed.
	parts := [3]func(){
		func() {
			if lo {
				r.walk(concat(pre, l), i+1, true, false)
			}
		},
		func() { r.between(pre, col.Desc, l, u) },
		func() {
			if hi {
				r.walk(concat(pre, u), i+1, false, true)
			}
		},
	}
	if col.Desc {
		parts[0], parts[2] = parts[2], parts[0]
	}
	for _, f := range parts {
		f()
	}
}

// between appends the rows under pre whose next column is strictly between
// l and u in value order (nil: unbounded).
func (r *tupleRanges) between(pre [][]byte, desc bool, l, u []byte) {
	start := mutation.Bound{Values: pre, Inclusive: true}
	end := start
	if l != nil {
		start = mutation.Bound{Values: concat(pre, l)}
	}
	if u != nil {
		end = mutation.Bound{Values: concat(pre, u)}
	}
	if desc {
		start, end = end, start
	}
	r.out = append(r.out, mutation.Slice{Start: start, End: end})
}

// concat returns a new clustering prefix: pre followed by vs.
func concat(pre [][]byte, vs ...[]byte) [][]byte {
	return append(append(make([][]byte, 0, len(pre)+len(vs)), pre...), vs...)
}

// mixedOrder reports a slice over clustering columns of different orders:
// its value-order bounds are not one clustering-order range.
func (tr *tupleRestriction) mixedOrder() bool {
	for _, c := range tr.cols {
		if c.Desc != tr.cols[0].Desc {
			return true
		}
	}
	return false
}
