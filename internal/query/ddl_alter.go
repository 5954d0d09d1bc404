package query

import (
	"context"
	"reflect"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// ALTER TABLE, after Cassandra 5.0's AlterTableStatement: every check runs
// against the current table under the schema lock, in Cassandra's order, so
// that the messages match.

func (e *Executor) compileAlterTable(c *compiled, st *cql.AlterTable, keyspace string) error {
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	name := st.Name.Name
	var dropTS *int64
	if st.Op == cql.AlterTableDropColumns && st.DropTimestamp != nil {
		l, ok := st.DropTimestamp.(*cql.Literal)
		if !ok {
			return cqlerr.Syntaxf("USING TIMESTAMP of ALTER TABLE DROP must be an integer constant")
		}
		ts, err := strconv.ParseInt(l.Text, 10, 64)
		if err != nil {
			return cqlerr.Syntaxf("Invalid timestamp %s", l.Text)
		}
		dropTS = &ts
	}
	if st.Op == cql.AlterTableMaskColumn && st.Mask != nil {
		// AlterTableStatement.MaskColumn.validate, before the column
		// is looked up.
		if err := e.maskingEnabled(); err != nil {
			return err
		}
	}
	for _, d := range st.Add {
		if d.Mask != nil {
			// AlterTableStatement.AddColumns.validate: ColumnMask.ensureEnabled.
			if err := e.maskingEnabled(); err != nil {
				return err
			}
		}
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		changed, err := e.cfg.Schema.AlterTable(ksName, name, st.IfExists, func(ks *schema.Keyspace, t *schema.Table) (*schema.Table, error) {
			if t.IsView() {
				return nil, cqlerr.Invalidf("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")
			}
			switch st.Op {
			case cql.AlterTableAlterColumnType:
				return nil, cqlerr.Invalidf("Altering column types is no longer supported")
			case cql.AlterTableMaskColumn, cql.AlterTableUnmaskColumn:
				if t.Column(st.Column) == nil {
					if st.IfColumnExists {
						return nil, nil
					}
					return nil, cqlerr.Invalidf("Column with name '%s' doesn't exist on table '%s'", st.Column, name)
				}
				return e.alterMask(t, st)
			case cql.AlterTableAddColumns:
				return e.alterAddColumns(ks, t, st)
			case cql.AlterTableDropColumns:
				ts := int64(0)
				if dropTS != nil {
					ts = *dropTS
				} else {
					ts = e.timestamp()
				}
				return alterDropColumns(t, st, ts)
			case cql.AlterTableRenameColumns:
				return alterRenameColumns(t, st)
			case cql.AlterTableDropCompactStorage:
				return nil, cqlerr.Invalidf("DROP COMPACT STORAGE is disabled. Enable in cassandra.yaml to use.")
			case cql.AlterTableWith:
				if err := refuseIDChange(st.Properties); err != nil {
					return nil, err
				}
				p, err := tableParamsOver(t.Params, st.Properties)
				if err != nil {
					return nil, err
				}
				if t.IsCounter && p.DefaultTimeToLive > 0 {
					return nil, cqlerr.Invalidf("Cannot set default_time_to_live on a table with counters")
				}
				if len(t.Views) > 0 && p.GCGraceSeconds == 0 {
					return nil, cqlerr.Invalidf("Cannot alter gc_grace_seconds of the base table of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.")
				}
				if reflect.DeepEqual(p, t.Params) {
					return nil, nil // unchanged: no new schema version
				}
				return t.Altered(t.Columns, p, t.Dropped), nil
			}
			return nil, cqlerr.NotImplemented("this ALTER TABLE operation")
		})
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		if err := e.alterViewsOf(ksName, name, st); err != nil {
			return nil, err
		}
		return e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: ksName, Name: name}), nil
	}
	return nil
}

// tableString is TableMetadata.toString: ks.table with quoting as needed.
func tableString(t *schema.Table) string {
	return quoteIdentIfNeeded(t.Keyspace) + "." + quoteIdentIfNeeded(t.Name)
}

func copyColumns(t *schema.Table) []*schema.Column {
	out := make([]*schema.Column, len(t.Columns))
	for i, c := range t.Columns {
		cc := *c
		out[i] = &cc
	}
	return out
}

func copyDropped(t *schema.Table) map[string]*schema.DroppedColumn {
	out := make(map[string]*schema.DroppedColumn, len(t.Dropped)+1)
	for k, v := range t.Dropped {
		out[k] = v
	}
	return out
}

func (e *Executor) alterAddColumns(ks *schema.Keyspace, t *schema.Table, st *cql.AlterTable) (*schema.Table, error) {
	cols := copyColumns(t)
	byName := map[string]*schema.Column{}
	for _, c := range cols {
		byName[c.Name] = c
	}
	added := false
	for _, d := range st.Add {
		typ, err := resolveTypeIn(e.cfg.Schema.Current(), d.Type, t.Keyspace)
		if err != nil {
			return nil, err
		}
		if byName[d.Name] != nil {
			if !st.IfColumnNotExists {
				return nil, cqlerr.Invalidf("Column with name '%s' already exists", d.Name)
			}
			continue
		}
		if d.Static && len(t.Clustering) == 0 {
			return nil, cqlerr.Invalidf("Static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		if typ.Kind == types.UDT && typ.IsMultiCell() {
			for _, ft := range typ.Params {
				if ft.IsMultiCell() {
					return nil, cqlerr.Invalidf("Non-frozen UDTs with nested non-frozen collections are not supported for column %s", d.Name)
				}
			}
		}
		kind := schema.Regular
		if d.Static {
			kind = schema.Static
		}
		col := &schema.Column{Name: d.Name, Type: typ, Kind: kind, Position: -1}
		if d.Mask != nil {
			m, err := e.prepareMask(t, col, d.Mask)
			if err != nil {
				return nil, err
			}
			col.Mask = m
		}
		if dc := t.Dropped[d.Name]; dc != nil {
			if !serializationCompatible(typ, dc.Type) {
				return nil, cqlerr.Invalidf("Cannot re-add previously dropped column '%s' of type %s, incompatible with previous type %s",
					d.Name, typ, dc.Type)
			}
			if (dc.Kind == schema.Static) != d.Static {
				return nil, cqlerr.Invalidf("Cannot re-add previously dropped column '%s' of kind %s, incompatible with previous kind %s",
					d.Name, strings.ToUpper(kind.String()), strings.ToUpper(dc.Kind.String()))
			}
			if t.IsCounter {
				return nil, cqlerr.Invalidf("Cannot re-add previously dropped counter column %s", d.Name)
			}
			// The column takes back its storage id: its cells written
			// after the drop time (DROP ... USING TIMESTAMP) are its own
			// again, older ones stay hidden (Table.CellDropped).
			col.ID = dc.ID
		}
		cols = append(cols, col)
		byName[d.Name] = col
		added = true
	}
	if !added {
		return nil, nil
	}
	nt := t.Altered(cols, t.Params, t.Dropped)
	// TableMetadata.validate.
	for _, c := range append(append([]*schema.Column(nil), nt.Statics...), nt.Regulars...) {
		isCounter := c.Type.Kind == types.Counter
		if t.IsCounter && !isCounter {
			return nil, cqlerr.ConfigErrorf("%s.%s: Cannot have a non counter column (\"%s\") in a counter table", t.Keyspace, t.Name, c.Name)
		}
		if !t.IsCounter && isCounter {
			return nil, cqlerr.ConfigErrorf("%s.%s: Cannot have a counter column (\"%s\") in a non counter table", t.Keyspace, t.Name, c.Name)
		}
	}
	nt.IsCounter = t.IsCounter
	return nt, nil
}

func alterDropColumns(t *schema.Table, st *cql.AlterTable, ts int64) (*schema.Table, error) {
	drop := map[string]bool{}
	dropped := copyDropped(t)
	for _, n := range st.Drop {
		if drop[n] {
			continue
		}
		col := t.Column(n)
		if col == nil {
			if !st.IfColumnExists {
				return nil, cqlerr.Invalidf("Column %s was not found in table '%s'", n, tableString(t))
			}
			continue
		}
		if col.IsPrimaryKey() {
			return nil, cqlerr.Invalidf("Cannot drop PRIMARY KEY column %s", n)
		}
		if col.Type.Kind == types.UDT && col.Type.IsMultiCell() {
			return nil, cqlerr.Invalidf("Cannot drop non-frozen column %s of user type %s", n, col.Type)
		}
		if ixs := t.IndexesOn(n); len(ixs) > 0 {
			names := make([]string, len(ixs))
			for i, ix := range ixs {
				names[i] = ix.Name
			}
			return nil, cqlerr.Invalidf("Cannot drop column %s because it has dependent secondary indexes (%s)", n, strings.Join(names, ", "))
		}
		if len(t.Views) > 0 {
			return nil, cqlerr.Invalidf("Cannot drop column %s on base table %s with materialized views", n, t.Name)
		}
		drop[n] = true
		dropped[n] = &schema.DroppedColumn{Name: n, Type: expandUserTypes(col.Type), Kind: col.Kind, DroppedTime: ts, ID: col.ID}
	}
	if len(drop) == 0 {
		return nil, nil
	}
	var cols []*schema.Column
	for _, c := range copyColumns(t) {
		if !drop[c.Name] {
			cols = append(cols, c)
		}
	}
	return t.Altered(cols, t.Params, dropped), nil
}

func alterRenameColumns(t *schema.Table, st *cql.AlterTable) (*schema.Table, error) {
	cols := copyColumns(t)
	byName := map[string]*schema.Column{}
	for _, c := range cols {
		byName[c.Name] = c
	}
	changed := false
	for _, r := range st.Renames {
		col := t.Column(r.From)
		if col == nil {
			if !st.IfColumnExists {
				return nil, cqlerr.Invalidf("Column %s was not found in table %s", r.From, tableString(t))
			}
			continue
		}
		if !col.IsPrimaryKey() {
			return nil, cqlerr.Invalidf("Cannot rename non PRIMARY KEY column %s", r.From)
		}
		if t.Column(r.To) != nil {
			return nil, cqlerr.Invalidf("Cannot rename column %s to %s in table '%s'; another column with that name already exists",
				r.From, r.To, tableString(t))
		}
		if ixs := t.IndexesOn(r.From); len(ixs) > 0 {
			names := make([]string, len(ixs))
			for i, ix := range ixs {
				names[i] = ix.Name
			}
			return nil, cqlerr.Invalidf("Cannot rename column %s because it has dependent secondary indexes (%s)", r.From, strings.Join(names, ", "))
		}
		c := byName[r.From]
		if c == nil {
			continue // renamed twice in one statement: the first wins
		}
		delete(byName, r.From)
		c.Name = r.To
		byName[r.To] = c
		changed = true
	}
	if !changed {
		return nil, nil
	}
	return t.Altered(cols, t.Params, t.Dropped), nil
}

// expandUserTypes replaces user types by tuples of their field types, as
// system_schema.dropped_columns records them.
func expandUserTypes(t *types.Type) *types.Type {
	if t == nil || (t.Kind != types.UDT && len(t.Params) == 0) {
		return t
	}
	params := make([]*types.Type, len(t.Params))
	for i, p := range t.Params {
		params[i] = expandUserTypes(p)
	}
	if t.Kind == types.UDT {
		tt := types.TupleOf(params...)
		return tt
	}
	nt := *t
	nt.Params = params
	return &nt
}

// serializationCompatible is AbstractType.isSerializationCompatibleWith:
// whether values written as prev can be read as t (same cell layout, values
// readable).
func serializationCompatible(t, prev *types.Type) bool {
	if t.IsMultiCell() != prev.IsMultiCell() {
		return false
	}
	if t.String() == prev.String() {
		return true
	}
	if len(t.Params) > 0 || len(prev.Params) > 0 {
		if t.Kind != prev.Kind || len(t.Params) != len(prev.Params) || t.Frozen != prev.Frozen || t.Dimension != prev.Dimension {
			return false
		}
		for i := range t.Params {
			if !serializationCompatible(t.Params[i], prev.Params[i]) {
				return false
			}
		}
		return true
	}
	switch t.Kind {
	case types.Text:
		return prev.Kind == types.Ascii
	case types.Blob:
		// Blobs read anything of variable length.
		switch prev.Kind {
		case types.Text, types.Ascii, types.Varint, types.Decimal, types.Inet, types.Duration, types.Custom:
			return true
		}
	case types.Bigint:
		return prev.Kind == types.Timestamp
	case types.Timestamp:
		return prev.Kind == types.Bigint
	case types.UUID:
		return prev.Kind == types.Timeuuid
	}
	return false
}

// dropShadowed removes from read results the cells that belong to a dropped
// incarnation of a re-added column (written at or before the drop time), and
// the rows and partitions left empty, as Cassandra skips such cells when it
// deserializes them.
func dropShadowed(t *schema.Table, parts []mutation.Partition) []mutation.Partition {
	if !t.HasDroppedShadows() {
		return parts
	}
	filter := func(cells []mutation.Cell) []mutation.Cell {
		out := cells[:0:0]
		for _, c := range cells {
			if !t.CellDropped(c.Column, c.Timestamp) {
				out = append(out, c)
			}
		}
		return out
	}
	out := parts[:0]
	for _, p := range parts {
		hadAny := p.Static != nil || len(p.Rows) > 0
		if p.Static != nil {
			s := *p.Static
			s.Cells = filter(s.Cells)
			p.Static = &s
			if len(s.Cells) == 0 {
				p.Static = nil
			}
		}
		rows := p.Rows[:0:0]
		for _, r := range p.Rows {
			r.Cells = filter(r.Cells)
			if len(r.Cells) == 0 && r.Marker.Timestamp == mutation.NoTimestamp {
				continue
			}
			rows = append(rows, r)
		}
		p.Rows = rows
		if p.Static == nil && len(p.Rows) == 0 && hadAny {
			continue
		}
		out = append(out, p)
	}
	return out
}
