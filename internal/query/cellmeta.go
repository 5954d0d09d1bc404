package query

import (
	"encoding/binary"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Cell metadata selectors: writetime, maxwritetime and ttl.
//
// The argument is a regular or static column, or a selection inside one
// (Cassandra 5.0, CASSANDRA-8877): UDT fields, set and map elements and
// slices, nested. Inside a multi-cell column the steps choose cells: a
// slice keeps the cells of its elements, a field or an element chooses its
// one cell, and the steps after that (like every step inside a frozen
// column's single cell) only decide whether the selection is non-null.
// The result is the metadata of the chosen cell, or a list with an element
// per chosen cell when only slices chose them (maxwritetime: the newest
// timestamp), and null when nothing is selected.

// metaStep is how a field, element or slice selector selects from its
// argument.
type metaStep struct {
	typ   *types.Type // the type selected from
	field int         // the UDT field's position; -1 for an element or slice
	slice bool
	key   termFn // element
	from  termFn // slice bounds (nil: unbounded)
	to    termFn
}

func (sc *selCompiler) compileCellMeta(fn string, x *cql.FunctionSel) (*selExpr, error) {
	if len(x.Args) != 1 {
		return nil, cqlerr.Invalidf("Invalid number of arguments for %s", fn)
	}
	root := x.Args[0]
	for done := false; !done; {
		switch e := root.(type) {
		case *cql.FieldSel:
			root = e.Expr
		case *cql.ElementSel:
			root = e.Expr
		default:
			done = true
		}
	}
	col, err := sc.cellMetaColumn(fn, root)
	if err != nil {
		return nil, err
	}
	// The selection itself checks the steps (with Cassandra's errors) and
	// names the result.
	arg, err := sc.compile(x.Args[0])
	if err != nil {
		return nil, err
	}
	var steps []*metaStep
	for e := arg; e.step != nil; e = e.of {
		steps = append([]*metaStep{e.step}, steps...)
	}
	name := fn + "(" + arg.name + ")"
	typ := types.BigintType
	if fn == "ttl" {
		typ = types.IntType
	}
	if !col.Type.IsMultiCell() {
		// One cell (a simple or frozen column): no slice of cells to build
		// per row. Its maxwritetime is its writetime.
		if fn == "maxwritetime" {
			fn = "writetime"
		}
		return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte {
			if c := metaCell(ctx, col, steps); c != nil {
				return cellMetaValue(fn, c, ctx.nowSec)
			}
			return nil
		}}, name: name, typ: typ}, nil
	}
	if fn == "maxwritetime" {
		return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte {
			found, newest := false, int64(0)
			for _, c := range metaCells(ctx, col, steps) {
				if !found || c.Timestamp > newest {
					found, newest = true, c.Timestamp
				}
			}
			if !found {
				return nil
			}
			return types.EncodeBigint(newest)
		}}, name: name, typ: types.BigintType}, nil
	}
	if col.Type.Kind == types.UDT && len(steps) == 0 {
		return udtCellMeta(fn, col, name, typ), nil
	}
	many := true
	for _, st := range steps {
		many = many && st.slice
	}
	if many {
		return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte {
			cells := metaCells(ctx, col, steps)
			if len(cells) == 0 {
				return nil
			}
			out := make([][]byte, len(cells))
			for i, c := range cells {
				// A cell without a TTL is a null element.
				out[i] = cellMetaValue(fn, c, ctx.nowSec)
			}
			return types.EncodeList(out)
		}}, name: name, typ: types.ListOf(typ, false)}, nil
	}
	return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte {
		if cells := metaCells(ctx, col, steps); len(cells) > 0 {
			return cellMetaValue(fn, cells[0], ctx.nowSec)
		}
		return nil
	}}, name: name, typ: typ}, nil
}

// cellMetaColumn is the column argument of writetime/maxwritetime/ttl: a
// regular or static column.
func (sc *selCompiler) cellMetaColumn(fn string, e cql.SelectorExpr) (*schema.Column, error) {
	cs, ok := e.(*cql.ColumnSel)
	if !ok {
		return nil, cqlerr.Invalidf("Invalid argument for %s", fn)
	}
	col, err := columnOf(sc.t, cs.Name)
	if err != nil {
		return nil, err
	}
	if col.IsPrimaryKey() {
		return nil, cqlerr.Invalidf("Cannot use selection function %s on PRIMARY KEY part %s", fn, col.Name)
	}
	return col, nil
}

// metaCell returns the cell of a single-cell (simple or frozen) column
// in the row, when steps select something in its value.
func metaCell(ctx *evalCtx, col *schema.Column, steps []*metaStep) *mutation.Cell {
	c := findCell(rowCellsOf(ctx, col), col.ID)
	if c == nil || len(steps) > 0 && !selectsValue(ctx, c.Value, steps) {
		return nil
	}
	return c
}

// metaCells returns the cells of the multi-cell column col in the row that
// steps select.
func metaCells(ctx *evalCtx, col *schema.Column, steps []*metaStep) []*mutation.Cell {
	all := rowCellsOf(ctx, col)
	var cells []*mutation.Cell
	for i := range all {
		if all[i].Column == col.ID {
			cells = append(cells, &all[i])
		}
	}
	if len(cells) == 0 {
		return nil
	}
	for i, st := range steps {
		if st.slice {
			lo, hi, ok := sliceBounds(ctx, st)
			if !ok {
				return nil
			}
			kt := st.typ.Params[0]
			kept := cells[:0]
			for _, c := range cells {
				if (lo == nil || types.Compare(kt, c.Path, lo) >= 0) && (hi == nil || types.Compare(kt, c.Path, hi) <= 0) {
					kept = append(kept, c)
				}
			}
			if cells = kept; len(cells) == 0 {
				return nil
			}
			continue
		}
		c, v := chooseCell(ctx, cells, st)
		if c == nil || !selectsValue(ctx, v, steps[i+1:]) {
			return nil
		}
		return []*mutation.Cell{c}
	}
	return cells
}

// chooseCell returns the cell of a multi-cell column that a field or
// element step selects, and the value it selects (for a set, the element).
func chooseCell(ctx *evalCtx, cells []*mutation.Cell, st *metaStep) (*mutation.Cell, []byte) {
	if st.field >= 0 {
		path := udtFieldPath(st.field)
		for _, c := range cells {
			if string(c.Path) == string(path) {
				return c, c.Value
			}
		}
		return nil, nil
	}
	key, unset, err := st.key(ctx.vals)
	if err != nil || unset || key == nil {
		return nil, nil
	}
	kt := st.typ.Params[0]
	for _, c := range cells {
		if types.Compare(kt, c.Path, key) == 0 {
			if st.typ.Kind == types.Set {
				return c, c.Path
			}
			return c, c.Value
		}
	}
	return nil, nil
}

// selectsValue reports whether steps select something in the value v: a
// non-null value, and a non-empty collection from a slice.
func selectsValue(ctx *evalCtx, v []byte, steps []*metaStep) bool {
	for _, st := range steps {
		if v == nil {
			return false
		}
		var err error
		switch {
		case st.field >= 0:
			v = udtFieldValue(v, st.field)
		case st.slice:
			lo, hi, ok := sliceBounds(ctx, st)
			if !ok {
				return false
			}
			if v, err = collectionSlice(st.typ, v, lo, hi); err != nil || len(v) < 4 || binary.BigEndian.Uint32(v) == 0 {
				return false // an empty slice selects nothing
			}
		default:
			key, unset, err := st.key(ctx.vals)
			if err != nil || unset || key == nil {
				return false
			}
			if v, err = collectionElement(st.typ, v, key); err != nil {
				return false
			}
		}
	}
	return v != nil
}

// sliceBounds evaluates the bounds of a slice step (nil: unbounded, as an
// unset bound is); false when a bound cannot be evaluated (a null one is
// refused before the read, boundSelection).
func sliceBounds(ctx *evalCtx, st *metaStep) (lo, hi []byte, ok bool) {
	for _, b := range []struct {
		fn  termFn
		dst *[]byte
	}{{st.from, &lo}, {st.to, &hi}} {
		if b.fn == nil {
			continue
		}
		v, _, err := b.fn(ctx.vals)
		if err != nil {
			return nil, nil, false
		}
		*b.dst = v
	}
	return lo, hi, true
}

// cellMetaValue is writetime (µs) or ttl (seconds left) of a cell, nil when
// the cell has no TTL for ttl.
func cellMetaValue(fn string, c *mutation.Cell, nowSec int64) []byte {
	if fn != "ttl" {
		return types.EncodeBigint(c.Timestamp)
	}
	if c.TTL <= 0 {
		return nil
	}
	left := max(c.LocalDeletionTime-nowSec, 0)
	return binary.BigEndian.AppendUint32(nil, uint32(left))
}

func rowCellsOf(ctx *evalCtx, col *schema.Column) []mutation.Cell {
	if col.Kind == schema.Static {
		return ctx.row.static
	}
	return ctx.row.cells
}

// udtCellMeta is writetime / ttl of a whole non-frozen UDT: a list with
// one element per field (null where the field has no cell), or null when
// no field has a cell (Cassandra 5.0).
func udtCellMeta(fn string, col *schema.Column, name string, typ *types.Type) *selExpr {
	return &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte {
		out := make([][]byte, len(col.Type.Params))
		found := false
		cells := rowCellsOf(ctx, col)
		for i := range cells {
			c := &cells[i]
			if c.Column != col.ID || c.Path == nil {
				continue
			}
			if f := udtFieldOf(c.Path); f >= 0 && f < len(out) {
				out[f] = cellMetaValue(fn, c, ctx.nowSec)
				found = true
			}
		}
		if !found {
			return nil
		}
		return types.EncodeList(out)
	}}, name: name, typ: types.ListOf(typ, false)}
}
