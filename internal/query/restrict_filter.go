package query

import (
	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Filtering restrictions on collections: CONTAINS, CONTAINS KEY and map
// element equality (m['k'] = v). They are never served by the primary key,
// so they need ALLOW FILTERING (no secondary indexes yet).

func (c *compiled) compileContains(t *schema.Table, col *schema.Column, r cql.Relation, now nowFunc) (*rowFilter, error) {
	typ := col.Type
	if r.Op == cql.OpContainsKey {
		if typ.Kind != types.Map {
			return nil, cqlerr.Invalidf("Cannot use CONTAINS KEY on non-map column %s", col.Name)
		}
	} else if !typ.IsCollection() {
		return nil, cqlerr.Invalidf("Cannot use CONTAINS on non-collection column %s", col.Name)
	}
	var recv ColumnSpec
	switch {
	case r.Op == cql.OpContainsKey:
		recv = spec(t, "key("+col.Name+")", typ.Params[0])
	case typ.Kind == types.Map:
		recv = spec(t, "value("+col.Name+")", typ.Params[1])
	default:
		recv = spec(t, "value("+col.Name+")", typ.Params[0])
	}
	f, err := c.compileTerm(r.Value, recv, now)
	if err != nil {
		return nil, err
	}
	return &rowFilter{col: col, op: r.Op, value: f}, nil
}

func (c *compiled) compileMapElementRelation(p *selectPlan, col *schema.Column, r cql.Relation, now nowFunc) (*rowFilter, error) {
	t := p.table
	if col.Type.Kind != types.Map {
		return nil, cqlerr.Invalidf("Column %s cannot be used as a map", col.Name)
	}
	if !col.Type.IsMultiCell() {
		return nil, cqlerr.Invalidf("Map-entry equality predicates on frozen map column %s are not supported", col.Name)
	}
	if r.Op != cql.OpEq {
		return nil, cqlerr.Invalidf("Unsupported \"%s\" relation: %s", r.Op, relText(r))
	}
	k, err := c.compileTerm(r.MapKey, spec(t, "key("+col.Name+")", col.Type.Params[0]), now)
	if err != nil {
		return nil, err
	}
	v, err := c.compileTerm(r.Value, spec(t, "value("+col.Name+")", col.Type.Params[1]), now)
	if err != nil {
		return nil, err
	}
	return &rowFilter{col: col, op: r.Op, value: v, mapKey: k}, nil
}

// checkFilterValues evaluates the values of the row filters once, before
// the read, refusing nulls and unset values with Cassandra's messages, as
// its restrictions do when they build the RowFilter: whether or not a row
// is then read. The selectors' element keys and slice bounds are checked
// first, as Cassandra's selectors are built before the read.
func (p *selectPlan) checkFilterValues(vals []Value) error {
	for _, check := range p.selectorChecks {
		if err := check(vals); err != nil {
			return err
		}
	}
	for i := range p.filters {
		f := &p.filters[i]
		if f.mapKey != nil {
			k, unset, err := f.mapKey(vals)
			switch {
			case err != nil:
				return err
			case unset:
				return cqlerr.Invalidf("Unsupported unset map key for column %s", f.col.Name)
			case k == nil:
				return cqlerr.Invalidf("Unsupported null map key for column %s", f.col.Name)
			}
		}
		if f.in != nil {
			if _, err := expandValues(f.col, f.in, vals); err != nil {
				return err
			}
			continue
		}
		if f.value == nil {
			continue
		}
		v, unset, err := f.value(vals)
		what := "value"
		switch {
		case f.mapKey != nil:
			what = "map value"
		case f.op == cql.OpContainsKey:
			what = "map key"
		}
		switch {
		case err != nil:
			return err
		case unset:
			return cqlerr.Invalidf("Unsupported unset %s for column %s", what, f.col.Name)
		case v == nil:
			return cqlerr.Invalidf("Unsupported null %s for column %s", what, f.col.Name)
		}
	}
	return nil
}

// matchCollection evaluates a collection filter against a column value.
func matchCollection(f *rowFilter, v []byte, vals []Value) (bool, error) {
	want, unset, err := f.value(vals)
	if err != nil {
		return false, err
	}
	if unset || want == nil {
		return false, cqlerr.Invalidf("Invalid null value for %s", f.col.Name)
	}
	if v == nil {
		return false, nil
	}
	typ := f.col.Type
	if f.mapKey != nil {
		key, unset, err := f.mapKey(vals)
		if err != nil {
			return false, err
		}
		if unset || key == nil {
			return false, cqlerr.Invalidf("Invalid null value for %s map key", f.col.Name)
		}
		got, err := collectionElement(typ, v, key)
		if err != nil || got == nil {
			return false, err
		}
		return types.Compare(typ.Params[1], got, want) == 0, nil
	}
	if typ.Kind == types.Map {
		ks, vs, err := types.DecodeMap(v)
		if err != nil {
			return false, err
		}
		if f.op == cql.OpContainsKey {
			for _, k := range ks {
				if types.Compare(typ.Params[0], k, want) == 0 {
					return true, nil
				}
			}
			return false, nil
		}
		for _, x := range vs {
			if types.Compare(typ.Params[1], x, want) == 0 {
				return true, nil
			}
		}
		return false, nil
	}
	els, err := types.DecodeCollection(v)
	if err != nil {
		return false, err
	}
	for _, e := range els {
		if types.Compare(typ.Params[0], e, want) == 0 {
			return true, nil
		}
	}
	return false, nil
}
