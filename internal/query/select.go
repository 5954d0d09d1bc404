package query

import (
	"context"
	"encoding/binary"
	"math"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Cassandra's messages (StatementRestrictions.java and friends).
const (
	requiresAllowFilteringMessage = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING"
)

// selectPlan is a compiled SELECT.
type selectPlan struct {
	table *schema.Table
	// Partition key: all columns restricted by = or IN (pk != nil), or a
	// range scan bounded by token restrictions.
	pk                        []*keyVals
	tokenLower, tokenUpper    termFn
	tokenLowerIncl, tokUpIncl bool
	// Clustering prefix (= / IN) and an optional slice after it.
	ck      []*keyVals
	ckSlice *sliceTerms
	// filters are evaluated on rows (ALLOW FILTERING).
	filters []rowFilter

	selectors     []selector
	resultColumns []ColumnSpec
	aggregate     bool
	distinct      bool
	reversed      bool
	// orderBy is set when rows of several partitions must be merged in
	// clustering order (IN on the partition key with ORDER BY).
	orderBy           bool
	limit             termFn
	perPartitionLimit termFn
}

// rowFilter is one ALLOW FILTERING restriction.
type rowFilter struct {
	col   *schema.Column
	op    cql.Operator
	value termFn
	in    *keyVals
}

// selector computes one output column from a row.
type selector struct {
	kind   selectorKind
	col    *schema.Column
	spec   ColumnSpec
	isStar bool
}

type selectorKind uint8

const (
	selColumn selectorKind = iota
	selWritetime
	selTTL
	selToken
	selCountRows
	selCountColumn
)

func (e *Executor) compileSelect(c *compiled, s *schema.Schema, st *cql.Select, keyspace string) error {
	t, err := resolveTable(s, st.Table, keyspace)
	if err != nil {
		return err
	}
	if st.Json {
		return cqlerr.NotImplemented("SELECT JSON")
	}
	if len(st.GroupBy) > 0 {
		return cqlerr.NotImplemented("GROUP BY")
	}
	p := &selectPlan{table: t, distinct: st.Distinct}
	if err := c.compileSelectors(p, st); err != nil {
		return err
	}
	if err := c.compileRestrictions(p, st, e.now); err != nil {
		return err
	}
	if err := p.compileOrderBy(st); err != nil {
		return err
	}
	if st.Limit != nil {
		f, err := c.compileTerm(st.Limit, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[limit]", Type: types.IntType}, e.now)
		if err != nil {
			return err
		}
		p.limit = f
	}
	if st.PerPartitionLimit != nil {
		f, err := c.compileTerm(st.PerPartitionLimit, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[per_partition_limit]", Type: types.IntType}, e.now)
		if err != nil {
			return err
		}
		p.perPartitionLimit = f
	}
	c.sel = p
	c.pkIndexes = pkIndexesFromWhere(t, st.Where)
	return nil
}

func (c *compiled) compileSelectors(p *selectPlan, st *cql.Select) error {
	t := p.table
	if st.Star {
		for _, col := range t.Columns {
			p.selectors = append(p.selectors, selector{kind: selColumn, col: col, isStar: true})
			p.resultColumns = append(p.resultColumns, spec(t, col.Name, col.Type))
		}
		if st.Distinct {
			return cqlerr.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", firstNonStatic(t))
		}
		return nil
	}
	for _, sel := range st.Selectors {
		var s selector
		name := ""
		switch x := sel.Expr.(type) {
		case *cql.ColumnSel:
			col, err := columnOf(t, x.Name)
			if err != nil {
				return err
			}
			s = selector{kind: selColumn, col: col}
			name = col.Name
			s.spec = spec(t, name, col.Type)
		case *cql.FunctionSel:
			fn := strings.ToLower(x.Name.Name)
			switch {
			case fn == "count" && (x.Star || len(x.Args) == 1 && isCountOne(x.Args[0])):
				s = selector{kind: selCountRows}
				name = "count"
				s.spec = spec(t, name, types.BigintType)
				p.aggregate = true
			case fn == "count" && len(x.Args) == 1:
				cs, ok := x.Args[0].(*cql.ColumnSel)
				if !ok {
					return cqlerr.NotImplemented("count() of an expression")
				}
				col, err := columnOf(t, cs.Name)
				if err != nil {
					return err
				}
				s = selector{kind: selCountColumn, col: col}
				name = "system.count(" + col.Name + ")"
				s.spec = spec(t, name, types.BigintType)
				p.aggregate = true
			case fn == "writetime" || fn == "ttl":
				if len(x.Args) != 1 {
					return cqlerr.Invalidf("Invalid number of arguments for %s", fn)
				}
				cs, ok := x.Args[0].(*cql.ColumnSel)
				if !ok {
					return cqlerr.Invalidf("Invalid argument for %s", fn)
				}
				col, err := columnOf(t, cs.Name)
				if err != nil {
					return err
				}
				if col.IsPrimaryKey() {
					return cqlerr.Invalidf("Cannot use selection function %s on PRIMARY KEY part %s", fn, col.Name)
				}
				if col.Type.IsMultiCell() {
					return cqlerr.NotImplemented(fn + "() on non-frozen collections")
				}
				if fn == "writetime" {
					s = selector{kind: selWritetime, col: col}
					s.spec = spec(t, "writetime("+col.Name+")", types.BigintType)
				} else {
					s = selector{kind: selTTL, col: col}
					s.spec = spec(t, "ttl("+col.Name+")", types.IntType)
				}
				name = s.spec.Name
			case fn == "token":
				if len(x.Args) != len(t.PartitionKey) {
					return cqlerr.Invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(t.PartitionKey), len(x.Args))
				}
				var names []string
				for i, a := range x.Args {
					cs, ok := a.(*cql.ColumnSel)
					if !ok || cs.Name != t.PartitionKey[i].Name {
						return cqlerr.Invalidf("The token function arguments must be the partition key columns, in order")
					}
					names = append(names, cs.Name)
				}
				s = selector{kind: selToken}
				name = "system.token(" + strings.Join(names, ", ") + ")"
				s.spec = spec(t, name, types.BigintType)
			default:
				return cqlerr.NotImplemented("function " + fn + " in selectors")
			}
		default:
			return cqlerr.NotImplemented("this kind of selector")
		}
		if sel.Alias != "" {
			s.spec.Name = sel.Alias
		}
		p.selectors = append(p.selectors, s)
		p.resultColumns = append(p.resultColumns, s.spec)
	}
	if p.aggregate {
		for _, s := range p.selectors {
			if s.kind != selCountRows && s.kind != selCountColumn {
				return cqlerr.NotImplemented("mixing aggregates and columns without GROUP BY")
			}
		}
	}
	if st.Distinct {
		seenPK := 0
		for _, s := range p.selectors {
			if s.col == nil {
				continue
			}
			if s.col.Kind != schema.PartitionKey && s.col.Kind != schema.Static {
				return cqlerr.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", s.col.Name)
			}
			if s.col.Kind == schema.PartitionKey {
				seenPK++
			}
		}
		if seenPK < len(t.PartitionKey) {
			for _, pkc := range t.PartitionKey {
				found := false
				for _, s := range p.selectors {
					if s.col == pkc {
						found = true
					}
				}
				if !found {
					return cqlerr.Invalidf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", pkc.Name)
				}
			}
		}
	}
	return nil
}

func isCountOne(a cql.SelectorExpr) bool {
	ts, ok := a.(*cql.TermSel)
	if !ok {
		return false
	}
	l, ok := ts.Term.(*cql.Literal)
	return ok && l.Kind == cql.LitInteger && l.Text == "1"
}

func firstNonStatic(t *schema.Table) string {
	for _, c := range t.Columns {
		if c.Kind == schema.Clustering || c.Kind == schema.Regular {
			return c.Name
		}
	}
	return ""
}

// compileRestrictions analyses the WHERE clause with Cassandra's rules.
func (c *compiled) compileRestrictions(p *selectPlan, st *cql.Select, now nowFunc) error {
	t := p.table
	pk := make([]*keyVals, len(t.PartitionKey))
	ck := make([]*keyVals, len(t.Clustering))
	var ckSlices []*sliceTerms
	pkSlice := false
	for _, r := range st.Where {
		if r.Token {
			if err := c.compileTokenRelation(p, r, now); err != nil {
				return err
			}
			continue
		}
		if r.Tuple {
			return cqlerr.NotImplemented("multi-column relations")
		}
		if r.MapKey != nil {
			return cqlerr.NotImplemented("map element relations")
		}
		col, err := columnOf(t, r.Columns[0])
		if err != nil {
			return err
		}
		recv := spec(t, col.Name, col.Type)
		switch {
		case col.IsPrimaryKey() && (r.Op == cql.OpEq || r.Op == cql.OpIn):
			var kv *keyVals
			if r.Op == cql.OpEq {
				f, err := c.compileTerm(r.Value, recv, now)
				if err != nil {
					return err
				}
				kv = &keyVals{fns: []termFn{f}}
			} else {
				kv, err = c.compileIn(t, col, r, now)
				if err != nil {
					return err
				}
			}
			target := pk
			if col.Kind == schema.Clustering {
				target = ck
			}
			if target[col.Position] != nil {
				return cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes an Equal", col.Name)
			}
			target[col.Position] = kv
			// Also usable as a filter when the column can't be a prefix.
			p.filters = append(p.filters, rowFilter{col: col, op: r.Op, in: kv})
		case col.Kind == schema.Clustering && (r.Op == cql.OpLt || r.Op == cql.OpLte || r.Op == cql.OpGt || r.Op == cql.OpGte):
			f, err := c.compileTerm(r.Value, recv, now)
			if err != nil {
				return err
			}
			var sl *sliceTerms
			for _, s := range ckSlices {
				if s.col == col {
					sl = s
				}
			}
			if sl == nil {
				sl = &sliceTerms{col: col}
				ckSlices = append(ckSlices, sl)
			}
			if err := sl.add(r.Op, f); err != nil {
				return err
			}
			p.filters = append(p.filters, rowFilter{col: col, op: r.Op, value: f})
		case col.Kind == schema.PartitionKey && (r.Op == cql.OpLt || r.Op == cql.OpLte || r.Op == cql.OpGt || r.Op == cql.OpGte):
			pkSlice = true
			f, err := c.compileTerm(r.Value, recv, now)
			if err != nil {
				return err
			}
			p.filters = append(p.filters, rowFilter{col: col, op: r.Op, value: f})
		default:
			switch r.Op {
			case cql.OpEq, cql.OpNeq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
				if col.Type.IsMultiCell() {
					return cqlerr.Invalidf("Collection column '%s' (%s) cannot be restricted by a '%s' relation", col.Name, col.Type, r.Op)
				}
				f, err := c.compileTerm(r.Value, recv, now)
				if err != nil {
					return err
				}
				p.filters = append(p.filters, rowFilter{col: col, op: r.Op, value: f})
			case cql.OpIn:
				kv, err := c.compileIn(t, col, r, now)
				if err != nil {
					return err
				}
				p.filters = append(p.filters, rowFilter{col: col, op: r.Op, in: kv})
			default:
				return cqlerr.NotImplemented("the " + r.Op.String() + " operator")
			}
		}
	}
	filtering := false
	// Partition key.
	pkFull := true
	pkAny := false
	for _, kv := range pk {
		if kv == nil {
			pkFull = false
		} else {
			pkAny = true
		}
	}
	if pkSlice && !st.AllowFiltering && p.tokenLower == nil && p.tokenUpper == nil {
		return cqlerr.Invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function or allow filtering)")
	}
	if pkFull && !pkSlice {
		if p.tokenLower != nil || p.tokenUpper != nil {
			return cqlerr.NotImplemented("token restrictions combined with partition key equality")
		}
		p.pk = pk
	} else {
		if pkAny || pkSlice {
			if !st.AllowFiltering {
				var missing []string
				for i, kv := range pk {
					if kv == nil {
						missing = append(missing, t.PartitionKey[i].Name)
					}
				}
				return cqlerr.Invalidf("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
			}
			filtering = true
		}
	}
	// Clustering: a prefix of = / IN, then at most one slice.
	n := 0
	for n < len(ck) && ck[n] != nil {
		n++
	}
	var slice *sliceTerms
	for _, s := range ckSlices {
		if s.col.Position < n {
			// = and a slice on the same column.
			return cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes an Equal", s.col.Name)
		}
	}
	usable := true
	for i := n; i < len(ck); i++ {
		var restrictedSlice *sliceTerms
		for _, s := range ckSlices {
			if s.col.Position == i {
				restrictedSlice = s
			}
		}
		if ck[i] == nil && restrictedSlice == nil {
			continue
		}
		if i == n && restrictedSlice != nil && ck[i] == nil && slice == nil {
			slice = restrictedSlice
			continue
		}
		// A restricted column that cannot extend the prefix.
		if !st.AllowFiltering {
			if slice != nil {
				return cqlerr.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", t.Clustering[i].Name, slice.col.Name)
			}
			return cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", t.Clustering[i].Name, t.Clustering[n].Name)
		}
		usable = false
		filtering = true
	}
	p.ck = ck[:n]
	p.ckSlice = slice
	if !usable {
		// Keep the prefix; the rest is filtered.
	}
	if p.pk == nil && (n > 0 || slice != nil) && !st.AllowFiltering {
		return cqlerr.Invalidf(requiresAllowFilteringMessage)
	}
	// Regular and static column restrictions.
	var keep []rowFilter
	for _, f := range p.filters {
		switch {
		case f.col.Kind == schema.PartitionKey && p.pk != nil:
			continue // fully handled by the key
		case f.col.Kind == schema.Clustering && usable && (p.pk != nil || !filtering) && (f.col.Position < n || slice != nil && f.col == slice.col):
			continue // handled by the slices
		case f.col.Kind == schema.Regular || f.col.Kind == schema.Static:
			if !st.AllowFiltering {
				return cqlerr.Invalidf(requiresAllowFilteringMessage)
			}
		}
		keep = append(keep, f)
	}
	p.filters = keep
	if p.distinct && (len(p.ck) > 0 || p.ckSlice != nil) {
		return cqlerr.Invalidf("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")
	}
	return nil
}

func (c *compiled) compileTokenRelation(p *selectPlan, r cql.Relation, now nowFunc) error {
	t := p.table
	if len(r.Columns) != len(t.PartitionKey) {
		return cqlerr.Invalidf("The token() function must be applied to all partition key components or none of them")
	}
	for i, n := range r.Columns {
		if n != t.PartitionKey[i].Name {
			return cqlerr.Invalidf("The token function arguments must be in the partition key order: %s", pkNames(t))
		}
	}
	f, err := c.compileTerm(r.Value, spec(t, "partition key token", types.BigintType), now)
	if err != nil {
		return err
	}
	switch r.Op {
	case cql.OpGt, cql.OpGte:
		if p.tokenLower != nil {
			return cqlerr.Invalidf("More than one restriction was found for the start bound on %s", tokenString(r))
		}
		p.tokenLower, p.tokenLowerIncl = f, r.Op == cql.OpGte
	case cql.OpLt, cql.OpLte:
		if p.tokenUpper != nil {
			return cqlerr.Invalidf("More than one restriction was found for the end bound on %s", tokenString(r))
		}
		p.tokenUpper, p.tokUpIncl = f, r.Op == cql.OpLte
	case cql.OpEq:
		p.tokenLower, p.tokenLowerIncl = f, true
		p.tokenUpper, p.tokUpIncl = f, true
	default:
		return cqlerr.Invalidf("%s is not a valid operator for token restrictions", r.Op)
	}
	return nil
}

func pkNames(t *schema.Table) string {
	names := make([]string, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func (p *selectPlan) compileOrderBy(st *cql.Select) error {
	if len(st.OrderBy) == 0 {
		return nil
	}
	t := p.table
	if p.pk == nil {
		return cqlerr.Invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	reversed := false
	for i, o := range st.OrderBy {
		if o.Ann != nil {
			return cqlerr.NotImplemented("ORDER BY ... ANN OF")
		}
		col := t.Column(o.Column)
		if col == nil {
			return cqlerr.Invalidf("Undefined column name %s in table %s.%s", o.Column, t.Keyspace, t.Name)
		}
		if col.Kind != schema.Clustering {
			return cqlerr.Invalidf("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got %s", col.Name)
		}
		if col.Position != i {
			return cqlerr.Invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
		}
		rev := o.Desc != col.Desc
		if i == 0 {
			reversed = rev
		} else if rev != reversed {
			return cqlerr.Invalidf("Unsupported order by relation")
		}
	}
	p.reversed = reversed
	for _, kv := range p.pk {
		if len(kv.fns) > 1 || kv.listMarker {
			p.orderBy = true
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Execution

// pagingState is the opaque state returned to clients; see encodePaging.
type pagingState struct {
	partitionKey []byte
	// clustering of the last row returned; nil when the partition was
	// finished (or only its static row was returned and it has no rows).
	clustering [][]byte
	// remaining rows of the LIMIT (math.MaxInt32 when none).
	remaining int32
	// rows already returned from partitionKey (PER PARTITION LIMIT).
	inPartition int32
}

const pagingVersion = 1

func encodePaging(ps *pagingState) []byte {
	b := []byte{pagingVersion}
	b = binary.AppendUvarint(b, uint64(len(ps.partitionKey)))
	b = append(b, ps.partitionKey...)
	if ps.clustering == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(ps.clustering)))
		for _, v := range ps.clustering {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	b = binary.BigEndian.AppendUint32(b, uint32(ps.remaining))
	b = binary.BigEndian.AppendUint32(b, uint32(ps.inPartition))
	return b
}

func decodePaging(t *schema.Table, b []byte) (*pagingState, error) {
	bad := cqlerr.Protocolf("Invalid value for the paging state")
	if len(b) < 1 || b[0] != pagingVersion {
		return nil, bad
	}
	b = b[1:]
	readBytes := func() ([]byte, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, false
		}
		v := b[k : k+int(n)]
		b = b[k+int(n):]
		return v, true
	}
	ps := &pagingState{}
	var ok bool
	if ps.partitionKey, ok = readBytes(); !ok {
		return nil, bad
	}
	if len(b) < 1 {
		return nil, bad
	}
	hasCk := b[0]
	b = b[1:]
	if hasCk == 1 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n != uint64(len(t.Clustering)) {
			return nil, bad
		}
		b = b[k:]
		ps.clustering = make([][]byte, n)
		for i := range ps.clustering {
			if ps.clustering[i], ok = readBytes(); !ok {
				return nil, bad
			}
			if err := types.Validate(t.Clustering[i].Type, ps.clustering[i]); err != nil {
				return nil, bad
			}
		}
	} else if hasCk != 0 {
		return nil, bad
	}
	if len(b) != 8 {
		return nil, bad
	}
	ps.remaining = int32(binary.BigEndian.Uint32(b))
	ps.inPartition = int32(binary.BigEndian.Uint32(b[4:]))
	if ps.remaining < 0 || ps.inPartition < 0 {
		return nil, bad
	}
	if _, err := mutation.SplitCompositeKey(ps.partitionKey, len(t.PartitionKey)); err != nil {
		return nil, bad
	}
	return ps, nil
}

// slices computes the clustering slices of the query in clustering order.
func (p *selectPlan) slices(vals []Value) ([]mutation.Slice, error) {
	t := p.table
	if len(p.ck) == 0 && p.ckSlice == nil {
		return nil, nil
	}
	prefixes, err := clusterings(t, p.ck, vals)
	if err != nil {
		return nil, err
	}
	out := make([]mutation.Slice, 0, len(prefixes))
	for _, pre := range prefixes {
		if p.ckSlice == nil {
			out = append(out, mutation.Slice{Start: mutation.Bound{Values: pre, Inclusive: true}, End: mutation.Bound{Values: pre, Inclusive: true}})
			continue
		}
		sl, err := deleteSlice(t, pre, p.ckSlice, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, sl)
	}
	// Prefixes are sorted by value; for DESC columns clustering order is
	// the reverse.
	if len(p.ck) > 0 && len(out) > 1 {
		sortSlices(t, out)
	}
	return out, nil
}

func sortSlices(t *schema.Table, s []mutation.Slice) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && t.CompareClustering(s[j].Start.Values, s[j-1].Start.Values) < 0; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (e *Executor) executeSelect(ctx context.Context, c *compiled, opts *Options) (*Result, error) {
	p := c.sel
	t := p.table
	vals := opts.Values
	limit := int32(math.MaxInt32)
	if p.limit != nil {
		l, unset, err := evalInt32(p.limit, vals)
		if err != nil {
			return nil, err
		}
		if !unset {
			if l <= 0 {
				return nil, cqlerr.Invalidf("LIMIT must be strictly positive")
			}
			limit = l
		}
	}
	perPartition := int32(math.MaxInt32)
	if p.perPartitionLimit != nil {
		l, unset, err := evalInt32(p.perPartitionLimit, vals)
		if err != nil {
			return nil, err
		}
		if !unset {
			if l <= 0 {
				return nil, cqlerr.Invalidf("PER PARTITION LIMIT must be strictly positive")
			}
			perPartition = l
		}
	}
	if p.distinct {
		perPartition = 1
	}
	slices, err := p.slices(vals)
	if err != nil {
		return nil, err
	}
	pageSize := opts.PageSize
	if pageSize <= 0 || p.aggregate || p.orderBy {
		pageSize = math.MaxInt32
	}
	var ps *pagingState
	if len(opts.PagingState) > 0 && !p.aggregate {
		ps, err = decodePaging(t, opts.PagingState)
		if err != nil {
			return nil, err
		}
		limit = ps.remaining
	}
	r := &reader{e: e, ctx: ctx, p: p, cl: Consistency(opts.Consistency), slices: slices, vals: vals,
		nowSec: e.now().Unix(), perPartition: perPartition}
	if opts.NowInSeconds > 0 {
		r.nowSec = int64(opts.NowInSeconds)
	}
	want := pageSize
	if limit < want {
		want = limit
	}
	rows, next, err := r.read(ps, int(want))
	if err != nil {
		return nil, err
	}
	res := &Result{Kind: RowsResult, Columns: p.resultColumns}
	if p.aggregate {
		res.Rows = [][][]byte{p.aggregateRows(rows)}
		return res, nil
	}
	if p.orderBy {
		sortRowsByClustering(t, rows, p.reversed)
		if int32(len(rows)) > limit {
			rows = rows[:limit]
		}
	}
	res.Rows = make([][][]byte, len(rows))
	for i := range rows {
		res.Rows[i] = p.project(&rows[i], r.nowSec)
	}
	if next != nil && int32(len(rows)) < limit {
		next.remaining = limit - int32(len(rows))
		res.PagingState = encodePaging(next)
	}
	return res, nil
}

// outRow is one result row before projection.
type outRow struct {
	key        [][]byte // partition key components
	token      int64
	clustering [][]byte // nil for a static-only row
	cells      []mutation.Cell
	static     []mutation.Cell
}

func sortRowsByClustering(t *schema.Table, rows []outRow, reversed bool) {
	less := func(a, b *outRow) bool {
		c := t.CompareClustering(a.clustering, b.clustering)
		if reversed {
			return c > 0
		}
		return c < 0
	}
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && less(&rows[j], &rows[j-1]); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

func (p *selectPlan) aggregateRows(rows []outRow) [][]byte {
	out := make([][]byte, len(p.selectors))
	for i, s := range p.selectors {
		var n int64
		for j := range rows {
			if s.kind == selCountRows {
				n++
			} else if v := rows[j].value(p.table, s.col); v != nil {
				n++
			}
		}
		out[i] = binary.BigEndian.AppendUint64(nil, uint64(n))
	}
	return out
}

// findCell returns the cell of a simple column in a sorted cell list.
func findCell(cells []mutation.Cell, id uint32) *mutation.Cell {
	for i := range cells {
		if cells[i].Column == id && cells[i].Path == nil {
			return &cells[i]
		}
		if cells[i].Column > id {
			break
		}
	}
	return nil
}

// value returns the serialized value of a column in the row (nil: null).
func (r *outRow) value(t *schema.Table, col *schema.Column) []byte {
	switch col.Kind {
	case schema.PartitionKey:
		return r.key[col.Position]
	case schema.Clustering:
		if r.clustering == nil {
			return nil
		}
		return r.clustering[col.Position]
	}
	cells := r.cells
	if col.Kind == schema.Static {
		cells = r.static
	}
	if col.Type.IsMultiCell() {
		return assembleMultiCell(col, cells)
	}
	if c := findCell(cells, col.ID); c != nil {
		return c.Value
	}
	return nil
}

// assembleMultiCell builds the serialized value of a non-frozen collection
// from its element cells (or returns a whole-value cell as is).
func assembleMultiCell(col *schema.Column, cells []mutation.Cell) []byte {
	var keys, vals [][]byte
	for i := range cells {
		c := &cells[i]
		if c.Column != col.ID {
			continue
		}
		if c.Path == nil {
			return c.Value
		}
		keys = append(keys, c.Path)
		vals = append(vals, c.Value)
	}
	if len(keys) == 0 {
		return nil
	}
	switch col.Type.Kind {
	case types.List:
		return types.EncodeList(vals)
	case types.Set:
		return types.EncodeSet(col.Type.Params[0], keys)
	case types.Map:
		return types.EncodeMap(col.Type.Params[0], keys, vals)
	}
	return nil
}

func (p *selectPlan) project(r *outRow, nowSec int64) [][]byte {
	out := make([][]byte, len(p.selectors))
	t := p.table
	for i, s := range p.selectors {
		switch s.kind {
		case selColumn:
			out[i] = r.value(t, s.col)
		case selWritetime, selTTL:
			cells := r.cells
			if s.col.Kind == schema.Static {
				cells = r.static
			}
			c := findCell(cells, s.col.ID)
			if c == nil {
				continue
			}
			if s.kind == selWritetime {
				out[i] = binary.BigEndian.AppendUint64(nil, uint64(c.Timestamp))
			} else if c.TTL > 0 {
				left := c.LocalDeletionTime - nowSec
				if left < 0 {
					left = 0
				}
				out[i] = binary.BigEndian.AppendUint32(nil, uint32(left))
			}
		case selToken:
			out[i] = binary.BigEndian.AppendUint64(nil, uint64(r.token))
		}
	}
	return out
}

// matches applies the ALLOW FILTERING restrictions.
func (r *reader) matches(row *outRow) (bool, error) {
	for _, f := range r.p.filters {
		v := row.value(r.p.table, f.col)
		typ := f.col.Type
		if f.in != nil {
			vs, err := expandValues(f.col, f.in, r.vals)
			if err != nil {
				return false, err
			}
			found := false
			for _, x := range vs {
				if v != nil && types.Compare(typ, v, x) == 0 {
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
			continue
		}
		want, unset, err := f.value(r.vals)
		if err != nil {
			return false, err
		}
		if unset {
			return false, cqlerr.Invalidf("Invalid unset value for column %s", f.col.Name)
		}
		if want == nil {
			return false, cqlerr.Invalidf("Invalid null value for column %s", f.col.Name)
		}
		if v == nil {
			return false, nil
		}
		c := types.Compare(typ, v, want)
		ok := false
		switch f.op {
		case cql.OpEq:
			ok = c == 0
		case cql.OpNeq:
			ok = c != 0
		case cql.OpLt:
			ok = c < 0
		case cql.OpLte:
			ok = c <= 0
		case cql.OpGt:
			ok = c > 0
		case cql.OpGte:
			ok = c >= 0
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
