package query

import (
	"encoding/binary"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// User-defined type values (Cassandra's UserTypes).
//
// A frozen UDT is one cell holding the serialized value: the fields
// concatenated as [int32 length][bytes] (length -1 for null), possibly
// with fewer fields than the type has (a value written before ALTER TYPE
// ADD). A non-frozen UDT is one cell per non-null field, keyed (Cell.Path)
// by the field's position as a 2-byte big-endian short, like Cassandra's
// UserType.cellPathForField; overwriting the whole value writes a column
// tombstone at timestamp-1 first, as for collections. Field positions
// never change, so field cells survive ALTER TYPE ADD and RENAME.

// udtFieldPath is the cell path of field i of a non-frozen UDT.
func udtFieldPath(i int) []byte {
	return binary.BigEndian.AppendUint16(nil, uint16(i))
}

// udtFieldOf returns the position of a field from its cell path (-1 when
// the path is not a field position).
func udtFieldOf(path []byte) int {
	if len(path) != 2 {
		return -1
	}
	return int(binary.BigEndian.Uint16(path))
}

// fieldSpec is Cassandra's UserTypes.fieldSpecOf: the receiver of field i
// of a UDT-typed receiver, named "col.field".
func fieldSpec(recv ColumnSpec, i int) ColumnSpec {
	return ColumnSpec{Keyspace: recv.Keyspace, Table: recv.Table, Name: recv.Name + "." + recv.Type.FieldNames[i],
		Type: recv.Type.Params[i]}
}

// termAssignable is a shallow version of Cassandra's Term.Raw
// testAssignment, enough for the field checks of a UDT literal.
func termAssignable(t cql.Term, typ *types.Type) bool {
	switch x := t.(type) {
	case *cql.Literal:
		if x.Kind == cql.LitNull {
			return true
		}
		if typ.Kind == types.Counter && x.Kind == cql.LitInteger {
			return true
		}
		return assignable(x.Kind, typ)
	case *cql.CollectionLiteral:
		switch x.Kind {
		case cql.ListLiteral:
			return typ.Kind == types.List || typ.Kind == types.Vector
		case cql.SetLiteral:
			return typ.Kind == types.Set
		case cql.MapLiteral:
			return typ.Kind == types.Map || (len(x.Keys) == 0 && typ.Kind == types.Set)
		}
	case *cql.TupleLiteral:
		if inner := ungrouped(x, typ); inner != t {
			return termAssignable(inner, typ)
		}
		return (typ.Kind == types.Tuple || typ.Kind == types.UDT) && len(x.Elems) <= len(typ.Params)
	case *cql.UDTLiteral:
		return typ.Kind == types.UDT
	}
	return true
}

// compileUDTLiteral compiles {f: v, ...} for a UDT receiver.
func (c *compiled) compileUDTLiteral(x *cql.UDTLiteral, recv ColumnSpec, now func() time.Time) (termFn, error) {
	ut := recv.Type
	if ut.Kind != types.UDT {
		return nil, cqlerr.Invalidf("Invalid user type literal for %s of type %s", recv.Name, ut)
	}
	given := make(map[string]cql.Term, len(x.Fields))
	for i, f := range x.Fields {
		if i < len(x.Values) {
			given[f] = x.Values[i]
		}
	}
	for i, f := range ut.FieldNames {
		v, ok := given[f]
		if !ok {
			continue
		}
		if !termAssignable(v, ut.Params[i]) {
			return nil, cqlerr.Invalidf("Invalid user type literal for %s: field %s is not of type %s", recv.Name, f, ut.Params[i])
		}
	}
	fns := make([]termFn, len(ut.Params))
	found := 0
	for i, f := range ut.FieldNames {
		v, ok := given[f]
		if !ok {
			continue
		}
		found++
		fn, err := c.compileTerm(v, fieldSpec(recv, i), now)
		if err != nil {
			return nil, err
		}
		fns[i] = fn
	}
	if found != len(given) {
		for _, f := range x.Fields {
			if fieldIndex(ut, f) < 0 {
				return nil, cqlerr.Invalidf("Unknown field '%s' in value of user defined type %s", f, ut.Name)
			}
		}
	}
	frozen := !ut.IsMultiCell()
	return func(vals []Value) ([]byte, bool, error) {
		parts := make([][]byte, len(fns))
		for i, fn := range fns {
			if fn == nil {
				continue
			}
			b, unset, err := fn(vals)
			if err != nil {
				return nil, false, err
			}
			if unset && frozen {
				return nil, false, cqlerr.Invalidf("Invalid unset value for field '%s' of user defined type %s", ut.FieldNames[i], ut.Name)
			}
			parts[i] = b
		}
		return types.EncodeTuple(parts), false, nil
	}, nil
}

// addUDTFields appends the field cells of a serialized UDT value.
func addUDTFields(out []mutation.Cell, cw cellWriter, b []byte) ([]mutation.Cell, error) {
	comps, err := types.DecodeTuple(b)
	if err != nil {
		return out, cqlerr.Invalidf("Invalid user type value for %s", cw.col.Name)
	}
	if len(comps) > len(cw.col.Type.Params) {
		return out, cqlerr.Invalidf("UDT value contained too many fields (expected %d, got %d)", len(cw.col.Type.Params), len(comps))
	}
	for i, v := range comps {
		if v == nil {
			continue
		}
		out = append(out, cw.live(udtFieldPath(i), v))
	}
	return out, nil
}

// assembleUDT builds the value of a non-frozen UDT from its field cells
// (Cassandra's UserType.serializeForNativeProtocol): every field, null
// where no cell; nil when there is no cell at all.
func assembleUDT(typ *types.Type, id uint32, cells []mutation.Cell) []byte {
	var parts [][]byte
	found := false
	for i := range cells {
		c := &cells[i]
		if c.Column != id || c.Tombstone {
			continue
		}
		if c.Path == nil {
			return c.Value
		}
		f := udtFieldOf(c.Path)
		if f < 0 || f >= len(typ.Params) {
			continue
		}
		if parts == nil {
			parts = make([][]byte, len(typ.Params))
		}
		parts[f] = c.Value
		found = true
	}
	if !found {
		return nil
	}
	return types.EncodeTuple(parts)
}

// compileFieldAssignment compiles UPDATE ... SET u.f = v.
func (c *compiled) compileFieldAssignment(t *schema.Table, col *schema.Column, a cql.Assignment, now nowFunc) (columnOp, error) {
	text := col.Name + "." + a.Field + " = " + cql.FormatTerm(a.Value)
	typ := col.Type
	if typ.Kind != types.UDT {
		return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for non-UDT column %s", text, col.Name)
	}
	if !typ.IsMultiCell() {
		return columnOp{}, cqlerr.Invalidf("Invalid operation (%s) for frozen UDT column %s", text, col.Name)
	}
	i := fieldIndex(typ, a.Field)
	if i < 0 {
		return columnOp{}, cqlerr.Invalidf("UDT column %s does not have a field named %s", col.Name, a.Field)
	}
	vf, err := c.compileTerm(a.Value, fieldSpec(spec(t, col.Name, typ), i), now)
	if err != nil {
		return columnOp{}, err
	}
	path := udtFieldPath(i)
	return columnOp{col: col, kind: opSetElem, value: vf,
		elem: func([]Value) ([]byte, bool, error) { return path, false, nil }}, nil
}

// compileFieldDeletion compiles DELETE u.f.
func compileFieldDeletion(col *schema.Column, field string) (columnOp, error) {
	typ := col.Type
	if typ.Kind != types.UDT {
		return columnOp{}, cqlerr.Invalidf("Invalid field deletion operation for non-UDT column %s", col.Name)
	}
	if !typ.IsMultiCell() {
		return columnOp{}, cqlerr.Invalidf("Frozen UDT column %s does not support field deletion", col.Name)
	}
	i := fieldIndex(typ, field)
	if i < 0 {
		return columnOp{}, cqlerr.Invalidf("UDT column %s does not have a field named %s", col.Name, field)
	}
	path := udtFieldPath(i)
	return columnOp{col: col, kind: opDelElem,
		elem: func([]Value) ([]byte, bool, error) { return path, false, nil }}, nil
}

// udtFieldValue extracts field i of a serialized UDT value (nil: null or
// absent).
func udtFieldValue(v []byte, i int) []byte {
	if v == nil {
		return nil
	}
	parts, err := types.DecodeTuple(v)
	if err != nil || i >= len(parts) {
		return nil
	}
	return parts[i]
}
