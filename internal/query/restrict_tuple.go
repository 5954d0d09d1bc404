package query

import (
	"strings"
	"unsafe"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Multi-column (tuple) relations on clustering columns, as Cassandra's
// MultiColumnRelation: (c1, c2) = (1, 2), (c1, c2) IN ((1, 2), (3, 4)) and
// (c1, c2) > (1, 2). Equalities extend the clustering prefix; an IN or a
// slice must be the last clustering restriction.

// tupleRestriction is a tuple IN or slice over clustering columns
// [start, start+len(cols)).
type tupleRestriction struct {
	start int
	cols  []*schema.Column
	typ   *types.Type // tuple<col types>
	// IN: one fn per tuple, or a single list<tuple> marker.
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

// compileTupleRelation handles one multi-column relation. Equalities are
// stored in ck; IN and slices in p.ckTuple.
func (c *compiled) compileTupleRelation(p *selectPlan, r cql.Relation, ck []*keyVals, now nowFunc) error {
	t := p.table
	cols := make([]*schema.Column, len(r.Columns))
	for i, n := range r.Columns {
		col, err := columnOf(t, n)
		if err != nil {
			return err
		}
		if col.Kind != schema.Clustering {
			return cqlerr.Invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", col.Name)
		}
		for j := 0; j < i; j++ {
			if cols[j] == col {
				return cqlerr.Invalidf("Column \"%s\" appeared twice in a relation: %s", col.Name, relText(r))
			}
		}
		cols[i] = col
	}
	for i, col := range cols {
		if col.Position != cols[0].Position+i {
			return cqlerr.Invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: %s", relText(r))
		}
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
	switch r.Op {
	case cql.OpEq:
		f, err := compileTuple(r.Value)
		if err != nil {
			return err
		}
		for i, col := range cols {
			if err := mergeKeyRestriction(col, ck[col.Position], false); err != nil {
				return err
			}
			ck[col.Position] = &keyVals{fns: []termFn{tupleComponent(f, i, col)}}
		}
		return nil
	case cql.OpIn:
		if p.ckTuple != nil {
			return cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes a IN", cols[0].Name)
		}
		tr := &tupleRestriction{start: cols[0].Position, cols: cols, typ: tt}
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
					return err
				}
				tr.in = append(tr.in, f)
			}
		}
		p.ckTuple = tr
		return nil
	case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
		tr := p.ckTuple
		if tr == nil {
			tr = &tupleRestriction{start: cols[0].Position, cols: cols, typ: tt}
			p.ckTuple = tr
		} else if tr.in != nil {
			return cqlerr.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", cols[0].Name)
		} else if tr.start != cols[0].Position {
			return cqlerr.Invalidf("Column \"%s\" cannot be restricted by two inequalities not starting with the same column", cols[0].Name)
		}
		if len(cols) > len(tr.cols) {
			tr.cols, tr.typ = cols, tt
		}
		f, err := compileTuple(r.Value)
		if err != nil {
			return err
		}
		lowerSide := r.Op == cql.OpGt || r.Op == cql.OpGte
		incl := r.Op == cql.OpGte || r.Op == cql.OpLte
		if lowerSide {
			if tr.lower != nil {
				return cqlerr.Invalidf("More than one restriction was found for the start bound on %s", cols[0].Name)
			}
			tr.lower, tr.lowerIncl, tr.lowerCols = f, incl, len(cols)
		} else {
			if tr.upper != nil {
				return cqlerr.Invalidf("More than one restriction was found for the end bound on %s", cols[0].Name)
			}
			tr.upper, tr.upperIncl, tr.upperCols = f, incl, len(cols)
		}
		return nil
	}
	return cqlerr.Invalidf("Unsupported \"%s\" relation: %s", r.Op, relText(r))
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
			return nil, false, cqlerr.Invalidf("Invalid null value in condition for column %s", col.Name)
		}
		return parts[i], false, nil
	}
}

// tupleSlices expands the tuple restriction after each clustering prefix.
func (p *selectPlan) tupleSlices(prefixes [][][]byte, vals []Value) ([]mutation.Slice, error) {
	tr := p.ckTuple
	t := p.table
	eval := func(f termFn, n int) ([][]byte, error) {
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
	var out []mutation.Slice
	if tr.in != nil {
		var tuples [][][]byte
		for _, f := range tr.in {
			if tr.listMarker {
				b, _, err := f(vals)
				if err != nil {
					return nil, err
				}
				els, err := types.DecodeCollection(b)
				if err != nil {
					return nil, cqlerr.Invalidf("Invalid list value for IN restriction")
				}
				for _, el := range els {
					parts, err := types.DecodeTuple(el)
					if err != nil || len(parts) != len(tr.cols) {
						return nil, cqlerr.Invalidf("Invalid tuple value for IN restriction")
					}
					tuples = append(tuples, parts)
				}
				continue
			}
			parts, err := eval(f, len(tr.cols))
			if err != nil {
				return nil, err
			}
			tuples = append(tuples, parts)
		}
		// A slice per prefix and tuple, each with its own values.
		n := float64(len(prefixes)) * float64(len(tuples))
		w := len(tr.cols)
		if len(prefixes) > 0 {
			w += len(prefixes[0])
		}
		if err := boundProduct(n, n*float64(int(unsafe.Sizeof(mutation.Slice{}))+sliceHeader*w)); err != nil {
			return nil, err
		}
		out = make([]mutation.Slice, 0, len(prefixes)*len(tuples))
		for _, pre := range prefixes {
			for _, tu := range tuples {
				vs := append(append(make([][]byte, 0, len(pre)+len(tu)), pre...), tu...)
				out = append(out, mutation.Slice{Start: mutation.Bound{Values: vs, Inclusive: true}, End: mutation.Bound{Values: vs, Inclusive: true}})
			}
		}
		sortSlices(t, out)
		// IN values may repeat: drop duplicates.
		dedup := out[:0]
		for i, s := range out {
			if i > 0 && t.CompareClustering(s.Start.Values, out[i-1].Start.Values) == 0 {
				continue
			}
			dedup = append(dedup, s)
		}
		return dedup, nil
	}
	desc := tr.cols[0].Desc
	mixed := tr.mixedOrder()
	// Not nil when there are no prefixes (an empty IN list before the
	// tuple): nil slices would mean no clustering restriction at all.
	out = make([]mutation.Slice, 0, len(prefixes))
	for _, pre := range prefixes {
		lo := mutation.Bound{Values: pre, Inclusive: true}
		hi := mutation.Bound{Values: pre, Inclusive: true}
		if tr.lower != nil {
			vs, err := eval(tr.lower, tr.lowerCols)
			if err != nil {
				return nil, err
			}
			b := mutation.Bound{Values: append(append([][]byte{}, pre...), vs...), Inclusive: tr.lowerIncl}
			if mixed {
				// Coarse bound on the first column; rowFilter checks the rest.
				b = mutation.Bound{Values: append(append([][]byte{}, pre...), vs[0]), Inclusive: true}
			}
			if desc {
				hi = b
			} else {
				lo = b
			}
		}
		if tr.upper != nil {
			vs, err := eval(tr.upper, tr.upperCols)
			if err != nil {
				return nil, err
			}
			b := mutation.Bound{Values: append(append([][]byte{}, pre...), vs...), Inclusive: tr.upperIncl}
			if mixed {
				b = mutation.Bound{Values: append(append([][]byte{}, pre...), vs[0]), Inclusive: true}
			}
			if desc {
				lo = b
			} else {
				hi = b
			}
		}
		out = append(out, mutation.Slice{Start: lo, End: hi})
	}
	// Prefixes are sorted by value; for DESC columns clustering order is
	// the reverse.
	if len(out) > 1 {
		sortSlices(t, out)
	}
	return out, nil
}

// mixedOrder reports a slice over clustering columns of different orders:
// its value-order bounds are not one clustering-order range, so the read
// uses a range on the first column and matchTuple checks each row.
func (tr *tupleRestriction) mixedOrder() bool {
	if tr.in != nil {
		return false
	}
	for _, c := range tr.cols {
		if c.Desc != tr.cols[0].Desc {
			return true
		}
	}
	return false
}

// matchTuple checks a row's clustering against the slice's bounds in value
// order (Cassandra compares tuples component-wise by value).
func (tr *tupleRestriction) matchTuple(clustering [][]byte, vals []Value) (bool, error) {
	if clustering == nil {
		return false, nil
	}
	cmp := func(f termFn, n int) (int, error) {
		b, _, err := f(vals)
		if err != nil {
			return 0, err
		}
		parts, err := types.DecodeTuple(b)
		if err != nil {
			return 0, err
		}
		for i := 0; i < n && i < len(parts); i++ {
			col := tr.cols[i]
			if parts[i] == nil {
				return 0, cqlerr.Invalidf("Invalid null value in condition for column %s", col.Name)
			}
			if c := types.Compare(col.Type, clustering[col.Position], parts[i]); c != 0 {
				return c, nil
			}
		}
		return 0, nil
	}
	if tr.lower != nil {
		c, err := cmp(tr.lower, tr.lowerCols)
		if err != nil {
			return false, err
		}
		if c < 0 || c == 0 && !tr.lowerIncl {
			return false, nil
		}
	}
	if tr.upper != nil {
		c, err := cmp(tr.upper, tr.upperCols)
		if err != nil {
			return false, err
		}
		if c > 0 || c == 0 && !tr.upperIncl {
			return false, nil
		}
	}
	return true, nil
}
