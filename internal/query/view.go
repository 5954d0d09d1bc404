package query

import (
	"bytes"
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Materialized views (CREATE MATERIALIZED VIEW), disabled by default as in
// Cassandra 5.0 (materialized_views_enabled: false).
//
// A view is a table; a write to its base table is applied under the base
// partitions' locks as: read the affected base rows, write the base, read
// them again, and for each row whose view image changed, delete the old
// view row and write the new one. View rows are written at fresh,
// increasing timestamps (the deletion at T, the new image at T+1), so that
// the last materialization always wins whatever timestamps clients chose
// for the base; cells keep the base cells' expiry, so view data expires
// with the base data.

// viewUsageWarning is the client warning of CREATE MATERIALIZED VIEW.
const viewUsageWarning = "Materialized views are experimental and are not recommended for production use."

type lockedKey struct{}

// withPartitionsLocked marks ctx as running under the partition locks of
// the partitions it writes (LWT, counters, list operations), so that view
// maintenance does not take them again.
func withPartitionsLocked(ctx context.Context) context.Context {
	return context.WithValue(ctx, lockedKey{}, true)
}

func partitionsLocked(ctx context.Context) bool {
	v, _ := ctx.Value(lockedKey{}).(bool)
	return v
}

// viewFilter is a compiled view WHERE clause.
type viewFilter struct {
	rels []viewRelation
}

type viewRelation struct {
	col    *schema.Column
	op     cql.Operator
	values [][]byte // one value, or the IN list
	// tuple and tuples are a multi-column relation's clustering columns
	// and its tuple (or IN list of tuples), compared as values in the
	// columns' order; col is then nil.
	tuple  []*schema.Column
	tuples [][][]byte
}

// viewFilters caches compiled WHERE clauses by view id and text.
type viewFilters struct {
	mu sync.Mutex
	m  map[string]*viewFilter
}

func (e *Executor) viewFilter(base, view *schema.Table) (*viewFilter, error) {
	key := string(view.ID[:]) + view.View.Where
	e.views.mu.Lock()
	defer e.views.mu.Unlock()
	if f := e.views.m[key]; f != nil {
		return f, nil
	}
	f, err := e.compileViewWhere(base, view.View.Where)
	if err != nil {
		return nil, err
	}
	if e.views.m == nil {
		e.views.m = map[string]*viewFilter{}
	}
	e.views.m[key] = f
	return f, nil
}

func (e *Executor) compileViewWhere(base *schema.Table, where string) (*viewFilter, error) {
	if where == "" {
		return &viewFilter{}, nil
	}
	st, err := cql.Parse("SELECT * FROM t WHERE " + where)
	if err != nil {
		return nil, err
	}
	return e.compileViewRelations(base, st.(*cql.Select).Where)
}

func (e *Executor) compileViewRelations(base *schema.Table, rels []cql.Relation) (*viewFilter, error) {
	// The schema and partitioner serve token(...) as a value.
	c := &compiled{schema: e.cfg.Schema.Current(), part: e.cfg.Partitioner}
	f := &viewFilter{}
	for _, r := range rels {
		if r.Token {
			return nil, cqlerr.Invalidf("Cannot use token relation when defining a materialized view")
		}
		if r.Index != nil {
			return nil, cqlerr.Invalidf("WHERE clause for materialized view cannot contain custom index expressions")
		}
		if r.Tuple {
			vr, err := e.compileViewTuple(c, base, r)
			if err != nil {
				return nil, err
			}
			f.rels = append(f.rels, vr)
			continue
		}
		if r.MapKey != nil || len(r.Columns) != 1 {
			return nil, cqlerr.Invalidf("Unsupported restriction in a materialized view WHERE clause: %s", relText(r))
		}
		col, err := columnOf(base, r.Columns[0])
		if err != nil {
			return nil, err
		}
		vr := viewRelation{col: col, op: r.Op}
		eval := func(t cql.Term) ([]byte, error) {
			if _, ok := t.(*cql.BindMarker); ok {
				return nil, cqlerr.Invalidf("Cannot use query parameters in CREATE MATERIALIZED VIEW statements")
			}
			fn, err := c.compileTerm(t, spec(base, col.Name, col.Type), e.now)
			if err != nil {
				return nil, err
			}
			v, _, err := fn(nil)
			return v, err
		}
		switch r.Op {
		case cql.OpIsNot:
		case cql.OpEq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte, cql.OpIn:
			if !col.IsPrimaryKey() {
				return nil, cqlerr.Invalidf("Non-primary key columns can only be restricted with 'IS NOT NULL' (got: %s restricted illegally)", col.Name)
			}
			fallthrough
		default:
			if vr.values, err = viewRelationValues(r, eval); err != nil {
				return nil, err
			}
		}
		f.rels = append(f.rels, vr)
	}
	return f, nil
}

// compileViewTuple compiles a multi-column relation of a view's WHERE:
// clustering columns in key order, compared with literal tuples.
func (e *Executor) compileViewTuple(c *compiled, base *schema.Table, r cql.Relation) (viewRelation, error) {
	vr := viewRelation{op: r.Op}
	cols, err := tupleRelationColumns(base, r)
	if err != nil {
		return vr, err
	}
	vr.tuple = cols
	eval := func(t cql.Term) ([][]byte, error) {
		tl, ok := t.(*cql.TupleLiteral)
		if !ok {
			return nil, cqlerr.Invalidf("Cannot use query parameters in CREATE MATERIALIZED VIEW statements")
		}
		if len(tl.Elems) != len(vr.tuple) {
			return nil, cqlerr.Invalidf("Expected %d elements in value tuple, but got %d: %s", len(vr.tuple), len(tl.Elems), cql.FormatTerm(t))
		}
		out := make([][]byte, len(tl.Elems))
		for i, el := range tl.Elems {
			col := vr.tuple[i]
			fn, err := c.compileTerm(el, spec(base, col.Name, col.Type), e.now)
			if err != nil {
				return nil, err
			}
			if out[i], _, err = fn(nil); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	vr.tuples, err = viewRelationValues(r, eval)
	return vr, err
}

// viewRelationValues evaluates the value of a view's relation, or each of
// its IN list; other operators are refused.
func viewRelationValues[T any](r cql.Relation, eval func(cql.Term) (T, error)) ([]T, error) {
	switch r.Op {
	case cql.OpEq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
		v, err := eval(r.Value)
		if err != nil {
			return nil, err
		}
		return []T{v}, nil
	case cql.OpIn:
		if r.InMarker != nil {
			return nil, cqlerr.Invalidf("Cannot use query parameters in CREATE MATERIALIZED VIEW statements")
		}
		out := make([]T, 0, len(r.InValues))
		for _, t := range r.InValues {
			v, err := eval(t)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, cqlerr.Invalidf("Unsupported restriction in a materialized view WHERE clause: %s", relText(r))
}

// restricted reports whether the filter restricts col.
func (f *viewFilter) restricted(col *schema.Column) bool {
	for _, r := range f.rels {
		if r.col == col || slices.Contains(r.tuple, col) {
			return true
		}
	}
	return false
}

// matchesTuple reports whether the row's values of a multi-column
// relation's columns satisfy it.
func (r *viewRelation) matchesTuple(value func(*schema.Column) []byte) bool {
	vals := make([][]byte, len(r.tuple))
	for i, col := range r.tuple {
		if vals[i] = value(col); vals[i] == nil {
			return false
		}
	}
	compare := func(t [][]byte) int {
		for i, col := range r.tuple {
			if t[i] == nil {
				return 2 // a null component matches nothing
			}
			if c := types.Compare(col.Type, vals[i], t[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	if r.op == cql.OpIn {
		for _, t := range r.tuples {
			if compare(t) == 0 {
				return true
			}
		}
		return false
	}
	c := compare(r.tuples[0])
	return c != 2 && compareHolds(r.op, c)
}

func (f *viewFilter) matches(value func(*schema.Column) []byte) bool {
	for i := range f.rels {
		r := &f.rels[i]
		if r.tuple != nil {
			if !r.matchesTuple(value) {
				return false
			}
			continue
		}
		v := value(r.col)
		if v == nil {
			return false
		}
		switch r.op {
		case cql.OpIsNot:
			continue
		case cql.OpIn:
			found := false
			for _, x := range r.values {
				if x != nil && types.Compare(r.col.Type, v, x) == 0 {
					found = true
				}
			}
			if !found {
				return false
			}
			continue
		}
		if r.values[0] == nil {
			return false
		}
		if !compareHolds(r.op, types.Compare(r.col.Type, v, r.values[0])) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// DDL.

func (e *Executor) compileCreateView(c *compiled, s *schema.Schema, st *cql.CreateMaterializedView, keyspace string) error {
	if !e.cfg.MaterializedViewsEnabled {
		return cqlerr.Invalidf("Materialized views are disabled. Enable in cassandra.yaml to use.")
	}
	sel := st.Select
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = sel.Table.Keyspace
	}
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	if sel.Table.Keyspace != "" && sel.Table.Keyspace != ksName {
		return cqlerr.Invalidf("Cannot create a materialized view on a table in a different keyspace")
	}
	name := st.Name.Name
	if len(sel.GroupBy) > 0 || len(sel.OrderBy) > 0 || sel.Limit != nil || sel.PerPartitionLimit != nil || sel.Json || sel.Distinct {
		return cqlerr.Invalidf("Materialized views only support SELECT columns FROM table WHERE ... (got %s)", cql.Format(sel))
	}
	if cql.BindMarkerCount(st) > 0 {
		return cqlerr.Invalidf("Cannot use query parameters in CREATE MATERIALIZED VIEW statements")
	}
	id, props, err := tableIDProperty(st.Properties)
	if err != nil {
		return err
	}
	params, err := tableParams(props)
	if err != nil {
		return err
	}
	if params.DefaultTimeToLive != 0 {
		// CreateViewStatement: 0 is allowed (CASSANDRA-16960).
		return cqlerr.Invalidf("Cannot set default_time_to_live for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table.")
	}
	whereText := ""
	if len(sel.Where) > 0 {
		f := cql.Format(&cql.Select{Star: true, Table: cql.QualifiedName{Name: "t"}, Where: sel.Where})
		if i := strings.Index(f, " WHERE "); i >= 0 {
			whereText = f[i+len(" WHERE "):]
		}
	}
	var view *schema.Table
	validate := func(base *schema.Table) error {
		if base.IsCounter {
			return cqlerr.Invalidf("Materialized views are not supported on counter tables")
		}
		if base.Params.GCGraceSeconds == 0 {
			return cqlerr.Invalidf("Cannot create materialized view '%s' for base table '%s' with gc_grace_seconds of 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.", name, base.Name)
		}
		selected := map[string]bool{}
		var order []string
		if sel.Star {
			for _, col := range base.Columns {
				selected[col.Name] = true
				order = append(order, col.Name)
			}
		}
		for _, s := range sel.Selectors {
			if s.Alias != "" {
				return cqlerr.Invalidf("Cannot use aliases when defining a materialized view (got %s AS %s)", cql.FormatSelector(s.Expr), s.Alias)
			}
			id, ok := s.Expr.(*cql.ColumnSel)
			if !ok {
				return cqlerr.Invalidf("Can only select columns by name when defining a materialized view (got %s)", cql.FormatSelector(s.Expr))
			}
			col, err := columnOf(base, id.Name)
			if err != nil {
				return err
			}
			if !selected[col.Name] {
				selected[col.Name] = true
				order = append(order, col.Name)
			}
		}
		for _, n := range order {
			if base.Column(n).Kind == schema.Static {
				return cqlerr.Invalidf("Cannot include static column '%s' in materialized view '%s'", n, name)
			}
		}
		if len(st.PartitionKey) == 0 {
			return cqlerr.Invalidf("Must provide at least one partition key column for materialized view '%s'", name)
		}
		inPK := map[string]bool{}
		for _, n := range append(append([]string(nil), st.PartitionKey...), st.Clustering...) {
			col := base.Column(n)
			if col == nil || !selected[n] {
				return cqlerr.Invalidf("Unknown column '%s' referenced in PRIMARY KEY for materialized view '%s'", n, name)
			}
			if inPK[n] {
				return cqlerr.Invalidf("Duplicate column '%s' in PRIMARY KEY clause for materialized view '%s'", n, name)
			}
			inPK[n] = true
			typ := col.Type
			if typ.IsMultiCell() {
				if typ.IsCollection() {
					return cqlerr.Invalidf("Invalid non-frozen collection type '%s' for PRIMARY KEY column '%s'", typ, n)
				}
				return cqlerr.Invalidf("Invalid non-frozen user-defined type '%s' for PRIMARY KEY column '%s'", typ, n)
			}
			if typ.Kind == types.Counter {
				return cqlerr.Invalidf("counter type is not supported for PRIMARY KEY column '%s'", n)
			}
			if referencesDuration(typ) {
				return cqlerr.Invalidf("duration type is not supported for PRIMARY KEY column '%s'", n)
			}
		}
		if len(st.ClusteringOrder) > 0 {
			match := len(st.ClusteringOrder) == len(st.Clustering)
			for i := 0; match && i < len(st.ClusteringOrder); i++ {
				match = st.ClusteringOrder[i].Column == st.Clustering[i]
			}
			if !match {
				return cqlerr.Invalidf("Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive")
			}
		}
		var missing, regularInPK []string
		for _, col := range append(append([]*schema.Column(nil), base.PartitionKey...), base.Clustering...) {
			if !inPK[col.Name] {
				missing = append(missing, col.Name)
			}
		}
		if len(missing) > 0 {
			return cqlerr.Invalidf("Cannot create materialized view '%s' without primary key columns %s from base table '%s'", name, strings.Join(missing, ", "), base.Name)
		}
		for n := range inPK {
			if !base.Column(n).IsPrimaryKey() {
				regularInPK = append(regularInPK, n)
			}
		}
		sort.Strings(regularInPK)
		if len(regularInPK) > 1 {
			return cqlerr.Invalidf("Cannot include more than one non-primary key column in materialized view primary key (got %s)", strings.Join(regularInPK, ", "))
		}
		filter, err := e.compileViewRelations(base, sel.Where)
		if err != nil {
			return err
		}
		var unrestricted []string
		for _, n := range append(append([]string(nil), st.PartitionKey...), st.Clustering...) {
			if !filter.restricted(base.Column(n)) {
				unrestricted = append(unrestricted, n)
			}
		}
		if len(unrestricted) > 0 {
			return cqlerr.Invalidf("Primary key columns %s must be restricted with 'IS NOT NULL' or otherwise", strings.Join(unrestricted, ", "))
		}
		var cols []*schema.Column
		desc := map[string]bool{}
		for _, o := range st.ClusteringOrder {
			desc[o.Column] = o.Desc
		}
		for i, n := range st.PartitionKey {
			cols = append(cols, &schema.Column{Name: n, Type: base.Column(n).Type, Kind: schema.PartitionKey, Position: i})
		}
		for i, n := range st.Clustering {
			// CreateViewStatement.getType: without a CLUSTERING ORDER for
			// it, a column keeps the base column's (reversed) order.
			d, ok := desc[n]
			if !ok {
				d = base.Column(n).Desc
			}
			cols = append(cols, &schema.Column{Name: n, Type: base.Column(n).Type, Kind: schema.Clustering, Position: i, Desc: d})
		}
		for _, n := range order {
			if !inPK[n] {
				cols = append(cols, &schema.Column{Name: n, Type: base.Column(n).Type, Kind: schema.Regular, Position: -1})
			}
		}
		vid := id
		if vid == uuid.Nil {
			vid = uuid.New() // drawn when the statement runs, as CREATE TABLE's
		}
		view = schema.NewTable(ksName, name, vid, cols, params)
		view.View = &schema.ViewInfo{BaseName: base.Name, IncludeAll: sel.Star, Where: whereText}
		return nil
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		probe := &schema.Table{Keyspace: ksName, Name: name, View: &schema.ViewInfo{BaseName: sel.Table.Name}}
		changed, err := e.cfg.Schema.CreateView(probe, st.IfNotExists, func(base *schema.Table) error {
			if err := validate(base); err != nil {
				return err
			}
			*probe = *view
			return nil
		})
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		cur := e.cfg.Schema.Current()
		base, v := cur.Table(ksName, sel.Table.Name), cur.Table(ksName, name)
		if err := e.buildView(ctx, base, v); err != nil {
			return nil, err
		}
		res := e.schemaChanged(&SchemaChange{Change: "CREATED", Target: "TABLE", Keyspace: ksName, Name: name})
		res.Warnings = append(res.Warnings, viewUsageWarning)
		return res, nil
	}
	return nil
}

func (e *Executor) compileDropView(c *compiled, st *cql.DropMaterializedView, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		r, err := e.cfg.Schema.DropView(ksName, st.Name.Name, st.IfExists, e.cfg.AutoSnapshot)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return &Result{Kind: VoidResult}, nil
		}
		dropErr := e.removeDropped(ctx, *r)
		res := e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "TABLE", Keyspace: ksName, Name: r.Table.Name})
		if dropErr != nil {
			return nil, dropErr
		}
		return res, nil
	}
	return nil
}

func (e *Executor) compileAlterView(c *compiled, st *cql.AlterMaterializedView, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		changed, err := e.cfg.Schema.AlterView(ksName, st.Name.Name, st.IfExists, func(old schema.TableParams) (schema.TableParams, error) {
			if err := refuseIDChange(st.Properties); err != nil {
				return old, err
			}
			p, err := tableParamsOver(old, st.Properties)
			if err == nil && p.DefaultTimeToLive > 0 {
				// AlterViewStatement: 0 is allowed.
				err = cqlerr.Invalidf("Forbidden default_time_to_live detected for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 for more information")
			}
			return p, err
		})
		if err != nil || !changed {
			if err != nil {
				return nil, err
			}
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: ksName, Name: st.Name.Name}), nil
	}
	return nil
}

// buildView materializes the existing rows of base into view v.
func (e *Executor) buildView(ctx context.Context, base, v *schema.Table) error {
	return e.scanPartitions(ctx, base, func(parts []mutation.Partition) error {
		for i := range parts {
			p := &parts[i]
			if err := e.maintainViews(ctx, base, []*schema.Table{v}, p.Key, p.Token, nil, p.Rows, NodeLocal); err != nil {
				return err
			}
		}
		return nil
	})
}

// ---------------------------------------------------------------------------
// Maintenance on base writes.

// viewsOf returns the current definitions of t's views.
func (e *Executor) viewsOf(t *schema.Table) []*schema.Table {
	ks := e.cfg.Schema.Current().Keyspace(t.Keyspace)
	if ks == nil {
		return nil
	}
	var out []*schema.Table
	for _, n := range t.Views {
		if v := ks.Tables[n]; v != nil && v.IsView() {
			out = append(out, v)
		}
	}
	return out
}

// mutateWithViews applies ups to t and keeps t's views up to date.
func (e *Executor) mutateWithViews(ctx context.Context, t *schema.Table, views []*schema.Table, cl Consistency, ups []*mutation.PartitionUpdate) error {
	if !partitionsLocked(ctx) {
		refs := make([]PartitionRef, len(ups))
		for i, up := range ups {
			refs[i] = PartitionRef{TableID: t.ID, Key: up.Key}
		}
		unlock, err := e.cfg.Coordinator.LockPartitions(ctx, refs)
		if err != nil {
			return err
		}
		defer unlock()
	}
	befores := make([][]mutation.Row, len(ups))
	for i, up := range ups {
		rows, err := e.affectedRows(ctx, t, up)
		if err != nil {
			return err
		}
		befores[i] = rows
	}
	if err := e.mutateTable(ctx, t, cl, ups); err != nil {
		return err
	}
	for i, up := range ups {
		if !affectsRows(up) {
			continue
		}
		after, err := e.affectedRows(ctx, t, up)
		if err != nil {
			return err
		}
		if err := e.maintainViews(ctx, t, views, up.Key, up.Token, befores[i], after, cl); err != nil {
			return err
		}
	}
	return nil
}

// affectsRows reports whether a partition update can change rows (a
// static-only update cannot change a view: views have no static columns).
func affectsRows(up *mutation.PartitionUpdate) bool {
	return len(up.Rows) > 0 || !up.Deletion.IsLive() || len(up.RangeTombstones) > 0
}

// affectedRows reads the current rows of t that up may change.
func (e *Executor) affectedRows(ctx context.Context, t *schema.Table, up *mutation.PartitionUpdate) ([]mutation.Row, error) {
	if !affectsRows(up) {
		return nil, nil
	}
	cmd := &mutation.ReadCommand{TableID: t.ID, Key: up.Key, Token: up.Token, NowSec: e.now().Unix()}
	if up.Deletion.IsLive() && len(up.RangeTombstones) == 0 && len(t.Clustering) > 0 {
		for _, r := range up.Rows {
			cmd.Slices = append(cmd.Slices, mutation.Slice{Start: mutation.Bound{Values: r.Clustering, Inclusive: true}, End: mutation.Bound{Values: r.Clustering, Inclusive: true}})
		}
		sortSlices(t, cmd.Slices)
	}
	part, err := e.readOne(ctx, t, NodeLocal, cmd)
	if err != nil || part == nil {
		return nil, err
	}
	return part.Rows, nil
}

// viewRow is the image of one base row in a view.
type viewRow struct {
	key        []byte
	clustering [][]byte
	marker     mutation.Liveness
	cells      []mutation.Cell
}

// maintainViews writes the view changes between the before and after
// images of the rows of one base partition.
func (e *Executor) maintainViews(ctx context.Context, base *schema.Table, views []*schema.Table, key []byte, token int64, before, after []mutation.Row, cl Consistency) error {
	comps, err := mutation.SplitCompositeKey(key, len(base.PartitionKey))
	if err != nil {
		return cqlerr.Serverf("corrupt partition key: %v", err)
	}
	byCK := func(rows []mutation.Row) map[string]*mutation.Row {
		m := make(map[string]*mutation.Row, len(rows))
		for i := range rows {
			m[string(mutation.CompositeKey(rows[i].Clustering))] = &rows[i]
		}
		return m
	}
	old, cur := byCK(before), byCK(after)
	var cks []string
	for k := range old {
		cks = append(cks, k)
	}
	for k := range cur {
		if old[k] == nil {
			cks = append(cks, k)
		}
	}
	for _, v := range views {
		filter, err := e.viewFilter(base, v)
		if err != nil {
			return err
		}
		var dels, puts []*mutation.PartitionUpdate
		for _, ck := range cks {
			o := e.viewImage(base, v, filter, comps, old[ck])
			n := e.viewImage(base, v, filter, comps, cur[ck])
			if sameViewRow(o, n) {
				continue
			}
			ts := e.timestamp()
			e.timestamp() // reserve ts+1 for the new image
			if o != nil {
				dels = append(dels, &mutation.PartitionUpdate{TableID: v.ID, Key: o.key, Token: e.cfg.Partitioner.Token(o.key), Deletion: mutation.Live,
					Rows: []mutation.Row{{Clustering: o.clustering, Marker: mutation.Liveness{Timestamp: mutation.NoTimestamp},
						Deletion: mutation.Deletion{MarkedForDeleteAt: ts, LocalDeletionTime: e.now().Unix()}}}})
			}
			if n != nil {
				n.marker.Timestamp = ts + 1
				for i := range n.cells {
					n.cells[i].Timestamp = ts + 1
				}
				puts = append(puts, &mutation.PartitionUpdate{TableID: v.ID, Key: n.key, Token: e.cfg.Partitioner.Token(n.key), Deletion: mutation.Live,
					Rows: []mutation.Row{{Clustering: n.clustering, Marker: n.marker, Deletion: mutation.Live, Cells: n.cells}}})
			}
		}
		// Deletions first: an old image and a new one may share a key.
		for _, ups := range [][]*mutation.PartitionUpdate{dels, puts} {
			if len(ups) > 0 {
				if err := e.cfg.Coordinator.Mutate(ctx, v, cl, ups); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// viewImage computes the view row of base row r (nil when r is absent, a
// view key column is null, or the row does not pass the view's WHERE).
func (e *Executor) viewImage(base, v *schema.Table, filter *viewFilter, comps [][]byte, r *mutation.Row) *viewRow {
	if r == nil {
		return nil
	}
	value := func(col *schema.Column) []byte {
		switch col.Kind {
		case schema.PartitionKey:
			return comps[col.Position]
		case schema.Clustering:
			return r.Clustering[col.Position]
		}
		if c := findCell(r.Cells, col.ID); c != nil && c.Path == nil {
			return c.Value
		}
		return nil
	}
	if !filter.matches(value) {
		return nil
	}
	// The row lives while its marker or any cell lives; a view keyed by a
	// regular column lives while that cell lives.
	live := r.Marker
	for i := range r.Cells {
		c := &r.Cells[i]
		if live.Timestamp == mutation.NoTimestamp || expiresLater(c.LocalDeletionTime, live.LocalDeletionTime) {
			live = mutation.Liveness{Timestamp: c.Timestamp, TTL: c.TTL, LocalDeletionTime: c.LocalDeletionTime}
		}
	}
	if live.Timestamp == mutation.NoTimestamp {
		return nil
	}
	if live.TTL == 0 {
		live.LocalDeletionTime = mutation.NoDeletion
	}
	vr := &viewRow{}
	keyParts := make([][]byte, len(v.PartitionKey))
	for i, vc := range v.PartitionKey {
		bc := base.Column(vc.Name)
		if keyParts[i] = value(bc); keyParts[i] == nil {
			return nil
		}
		if bc.Kind == schema.Regular {
			live = limitLiveness(live, findCell(r.Cells, bc.ID))
		}
	}
	vr.key = mutation.CompositeKey(keyParts)
	for _, vc := range v.Clustering {
		bc := base.Column(vc.Name)
		val := value(bc)
		if val == nil {
			return nil
		}
		if bc.Kind == schema.Regular {
			live = limitLiveness(live, findCell(r.Cells, bc.ID))
		}
		vr.clustering = append(vr.clustering, val)
	}
	vr.marker = live
	for _, vc := range v.Regulars {
		bc := base.Column(vc.Name)
		if bc == nil {
			continue
		}
		for _, c := range r.Cells {
			if c.Column != bc.ID {
				continue
			}
			c.Column = vc.ID
			if live.TTL > 0 && expiresLater(c.LocalDeletionTime, live.LocalDeletionTime) {
				c.TTL, c.LocalDeletionTime = live.TTL, live.LocalDeletionTime
			}
			vr.cells = append(vr.cells, c)
		}
	}
	sortCells(vr.cells)
	return vr
}

// expiresLater reports whether expiry a is later than b (NoDeletion never
// expires).
func expiresLater(a, b int64) bool { return a > b }

// limitLiveness caps live at the expiry of cell c.
func limitLiveness(live mutation.Liveness, c *mutation.Cell) mutation.Liveness {
	if c != nil && c.TTL > 0 && c.LocalDeletionTime < live.LocalDeletionTime {
		live.TTL, live.LocalDeletionTime = c.TTL, c.LocalDeletionTime
	}
	return live
}

func sameViewRow(a, b *viewRow) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !bytes.Equal(a.key, b.key) || !bytes.Equal(mutation.CompositeKey(a.clustering), mutation.CompositeKey(b.clustering)) ||
		a.marker.LocalDeletionTime != b.marker.LocalDeletionTime || len(a.cells) != len(b.cells) {
		return false
	}
	for i := range a.cells {
		x, y := &a.cells[i], &b.cells[i]
		if x.Column != y.Column || !bytes.Equal(x.Path, y.Path) || !bytes.Equal(x.Value, y.Value) || x.LocalDeletionTime != y.LocalDeletionTime {
			return false
		}
	}
	return true
}

// alterViewsOf carries an ALTER TABLE of a base table over to its views, as
// Cassandra does: a column added to the base joins every view that selects
// all columns, and a renamed primary-key column is renamed in every view
// (and in its WHERE clause). Masks follow the base within the schema
// manager (schema.Keyspace.withViewMasks).
func (e *Executor) alterViewsOf(ksName, base string, st *cql.AlterTable) error {
	if st.Op != cql.AlterTableAddColumns && st.Op != cql.AlterTableRenameColumns {
		return nil
	}
	bt := e.cfg.Schema.Current().Table(ksName, base)
	if bt == nil {
		return nil
	}
	for _, vname := range bt.Views {
		_, err := e.cfg.Schema.AlterTable(ksName, vname, true, func(ks *schema.Keyspace, v *schema.Table) (*schema.Table, error) {
			if !v.IsView() {
				return nil, nil
			}
			cols := copyColumns(v)
			info := *v.View
			switch st.Op {
			case cql.AlterTableAddColumns:
				if !info.IncludeAll {
					return nil, nil
				}
				for _, d := range st.Add {
					bc := bt.Column(d.Name)
					if bc == nil || bc.Kind == schema.Static || v.Column(d.Name) != nil {
						continue
					}
					cols = append(cols, &schema.Column{Name: bc.Name, Type: bc.Type, Kind: schema.Regular, Position: -1})
				}
			case cql.AlterTableRenameColumns:
				renamed := map[string]string{}
				for _, r := range st.Renames {
					renamed[r.From] = r.To
				}
				for _, c := range cols {
					if to, ok := renamed[c.Name]; ok {
						c.Name = to
					}
				}
				if info.Where != "" {
					parsed, err := cql.Parse("SELECT * FROM t WHERE " + info.Where)
					if err != nil {
						return nil, err
					}
					sel := parsed.(*cql.Select)
					for i := range sel.Where {
						for j, col := range sel.Where[i].Columns {
							if to, ok := renamed[col]; ok {
								sel.Where[i].Columns[j] = to
							}
						}
					}
					f := cql.Format(sel)
					if i := strings.Index(f, " WHERE "); i >= 0 {
						info.Where = f[i+len(" WHERE "):]
					}
				}
			}
			nv := v.Altered(cols, v.Params, v.Dropped)
			nv.View = &info
			return nv, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
