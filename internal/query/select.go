package query

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"slices"
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
	// tokenFilter, set when the partition key is restricted by = or IN and
	// the token too, keeps the keys whose token the bounds admit
	// (Cassandra's TokenFilter).
	tokenFilter Partitioner
	// Clustering prefix (= / IN) and an optional slice after it.
	ck      []*keyVals
	ckSlice *sliceTerms
	// ckTuple is a multi-column slice after the ck prefix (multi-column
	// equalities and INs are in ck).
	ckTuple *tupleRestriction
	// filters are evaluated on rows (ALLOW FILTERING). rowFiltered is
	// set when some are on clustering or regular columns, so may drop
	// some rows of a partition and keep others.
	filters     []rowFilter
	rowFiltered bool
	// index, when set, is the secondary index that finds candidate rows
	// (a query without a full partition key).
	index *indexPlan

	selectors []*selExpr
	// selectorChecks check the selectors' bound values once per query.
	selectorChecks []func([]Value) error
	resultColumns  []ColumnSpec
	aggregate      bool
	// groupBy is the primary-key prefix of GROUP BY (nil when none).
	groupBy []*schema.Column
	// groupFn is a floor() time bucket on the last GROUP BY column.
	groupFn  *selExpr
	json     bool
	now      nowFunc
	distinct bool
	reversed bool
	// orderBy is set when rows of several partitions must be merged in
	// clustering order (IN on the partition key with ORDER BY), by the
	// ORDER BY columns (orderCols).
	orderBy           bool
	orderCols         []*schema.Column
	limit             termFn
	perPartitionLimit termFn
	// ann is the ORDER BY ... ANN OF of a vector search (see ann.go).
	ann *annPlan
}

// rowFilter is one ALLOW FILTERING restriction.
type rowFilter struct {
	col   *schema.Column
	op    cql.Operator
	value termFn
	in    *keyVals
	// mapKey is set for m[key] = value relations.
	mapKey termFn
	// analyze, when set, is the text analysis of the column's
	// storage-attached index: equality compares analysed values; or the
	// index term of an inet value, when alsoRaw asks that the raw values
	// compare the same way too.
	analyze func([]byte) []byte
	alsoRaw bool
}

func (e *Executor) compileSelect(c *compiled, s *schema.Schema, st *cql.Select, keyspace string) error {
	t, err := resolveTable(s, st.Table, keyspace)
	if err != nil {
		return err
	}
	if localOrdered(t) {
		// token() of these tables' keys is their order-preserving token.
		c.part = localPartitioner{t}
	}
	p := &selectPlan{table: t, distinct: st.Distinct, json: st.Json, now: e.now}
	if err := c.compileSelectors(p, st, e.now); err != nil {
		return err
	}
	if err := c.bindAnnOrdering(p, st, e.now); err != nil {
		return err
	}
	if err := c.compileRestrictions(p, st, e.now); err != nil {
		return err
	}
	if err := p.checkDistinctKeys(); err != nil {
		return err
	}
	if err := p.compileGroupBy(c, st); err != nil {
		return err
	}
	if err := p.compileOrderBy(st); err != nil {
		return err
	}
	if p.json {
		p.resultColumns = []ColumnSpec{spec(t, "[json]", types.TextType)}
	}
	if st.Limit != nil {
		f, err := c.compileTerm(st.Limit, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[limit]", Type: types.IntType}, e.now)
		if err != nil {
			return err
		}
		p.limit = f
	}
	if st.PerPartitionLimit != nil {
		if p.distinct {
			return cqlerr.Invalidf("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")
		}
		if p.aggregate && len(p.groupBy) == 0 {
			return cqlerr.Invalidf("PER PARTITION LIMIT is not allowed with aggregate queries.")
		}
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

func (c *compiled) compileSelectors(p *selectPlan, st *cql.Select, now nowFunc) error {
	t := p.table
	if st.Star {
		for _, col := range t.Columns {
			p.selectors = append(p.selectors, &selExpr{node: &firstNode{get: func(ctx *evalCtx) []byte { return ctx.row.value(ctx.t, col) }},
				name: col.Name, typ: col.Type, col: col})
			p.resultColumns = append(p.resultColumns, spec(t, col.Name, col.Type))
		}
		if st.Distinct {
			return cqlerr.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", firstNonStatic(t))
		}
		return nil
	}
	sels, checks, err := c.compileSelection(t, st.Selectors, now)
	if err != nil {
		return err
	}
	p.selectors, p.selectorChecks = sels, checks
	for _, s := range sels {
		p.resultColumns = append(p.resultColumns, spec(t, s.name, s.typ))
		if s.agg {
			p.aggregate = true
		}
	}
	if st.Distinct {
		for _, s := range p.selectors {
			if s.col != nil && s.col.Kind != schema.PartitionKey && s.col.Kind != schema.Static {
				return cqlerr.Invalidf("SELECT DISTINCT queries must only request partition key columns and/or static columns (not %s)", s.col.Name)
			}
		}
	}
	return nil
}

// checkDistinctKeys requires a SELECT DISTINCT over a range of partitions
// to select the whole partition key (Cassandra's
// validateDistinctSelection: only a key range must, so that its rows need
// no grouping after the read).
func (p *selectPlan) checkDistinctKeys() error {
	if !p.distinct || p.aggregate || p.pk != nil {
		return nil
	}
	for _, pkc := range p.table.PartitionKey {
		if !slices.ContainsFunc(p.selectors, func(s *selExpr) bool { return s.col == pkc }) {
			return cqlerr.Invalidf("SELECT DISTINCT queries must request all the partition key columns (missing %s)", pkc.Name)
		}
	}
	return nil
}

// checkDurationSlice refuses a slice (<, <=, >, >=) on a type that
// references durations, which have no order: Cassandra's
// SingleColumnRelation.newSliceRestriction ("Slice restrictions ...") and
// ColumnCondition.Raw.validateOperationOnDurations ("Slice conditions
// ..."). what is "restrictions" or "conditions"; whole names a plain
// duration in the message.
func checkDurationSlice(t *types.Type, op cql.Operator, what, whole string) error {
	switch op {
	case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
	default:
		return nil
	}
	if !referencesDuration(t) {
		return nil
	}
	switch {
	case t.IsCollection():
		return cqlerr.Invalidf("Slice %s are not supported on collections containing durations", what)
	case t.Kind == types.Tuple:
		return cqlerr.Invalidf("Slice %s are not supported on tuples containing durations", what)
	case t.Kind == types.UDT:
		return cqlerr.Invalidf("Slice %s are not supported on UDTs containing durations", what)
	}
	return cqlerr.Invalidf("Slice %s are not supported on %s", what, whole)
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
	tuples := false // a multi-column relation
	for _, r := range st.Where {
		if r.Index != nil {
			continue // checkCustomIndexExpressions, after the relations as in Cassandra
		}
		if r.Token {
			if err := c.compileTokenRelation(p, r, now); err != nil {
				return err
			}
			continue
		}
		if r.Tuple {
			tuples = true
			eq, err := c.compileTupleRelation(t, &p.ckTuple, r, ck, now)
			if err != nil {
				return err
			}
			if eq {
				// Each column is also usable as a filter when it can't
				// extend the prefix (Cassandra's EQRestriction.addRowFilterTo).
				for _, n := range r.Columns {
					col := t.Column(n)
					p.filters = append(p.filters, rowFilter{col: col, op: cql.OpEq, value: ck[col.Position].fns[0]})
				}
			}
			continue
		}
		col, err := columnOf(t, r.Columns[0])
		if err != nil {
			return err
		}
		if col.Type.Kind == types.UDT && col.Type.IsMultiCell() && r.MapKey == nil && !udtOpRefusedFirst(r.Op) {
			return cqlerr.Invalidf("Non-frozen UDT column '%s' (%s) cannot be restricted by any relation", col.Name, col.Type)
		}
		if r.MapKey != nil {
			f, err := c.compileMapElementRelation(p, col, r, now)
			if err != nil {
				return err
			}
			p.filters = append(p.filters, *f)
			continue
		}
		switch r.Op {
		case cql.OpNeq, cql.OpNotIn, cql.OpNotContains, cql.OpNotContainsKey:
			return cqlerr.Invalidf("Unsupported \"%s\" relation: %s", r.Op, relText(r))
		case cql.OpIsNot:
			return cqlerr.Invalidf("Unsupported restriction: %s", relText(r))
		case cql.OpLike:
			return cqlerr.Invalidf("LIKE restriction is only supported on properly indexed columns. %s is not valid.", relText(r))
		case cql.OpContains, cql.OpContainsKey:
			f, err := c.compileContains(t, col, r, now)
			if err != nil {
				return err
			}
			p.filters = append(p.filters, *f)
			continue
		}
		if err := checkDurationSlice(col.Type, r.Op, "restrictions", "duration columns"); err != nil {
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
			if err := mergeKeyRestriction(col, target[col.Position], slices.ContainsFunc(ckSlices, func(s *sliceTerms) bool { return s.col == col })); err != nil {
				return err
			}
			target[col.Position] = kv
			// Also usable as a filter when the column can't be a prefix.
			p.filters = append(p.filters, rowFilter{col: col, op: r.Op, in: kv})
		case col.Kind == schema.Clustering && (r.Op == cql.OpLt || r.Op == cql.OpLte || r.Op == cql.OpGt || r.Op == cql.OpGte):
			f, err := c.compileTerm(r.Value, recv, now)
			if err != nil {
				return err
			}
			if err := mergeKeyRestriction(col, ck[col.Position], false); err != nil {
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
				if col.Type.IsMultiCell() {
					return cqlerr.Invalidf("Collection column '%s' (%s) cannot be restricted by a 'IN' relation", col.Name, col.Type)
				}
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
	if err := checkCustomIndexExpressions(t, st.Where); err != nil {
		return err
	}
	// Tables of the virtual keyspaces filter without ALLOW FILTERING
	// (VirtualTable.allowFilteringImplicitly, CASSANDRA-18238).
	allowFiltering := st.AllowFiltering || schema.IsVirtualKeyspace(t.Keyspace) && t.Name != schema.SystemLogsTable
	if p.ann != nil {
		if err := p.checkAnnRestrictions(st, pk, ck, ckSlices, pkSlice); err != nil {
			return err
		}
		// Cassandra accepts the query: every restriction is indexed or a
		// primary key prefix.
		allowFiltering = true
	} else if err := checkVectorIndexRestrictions(t, p.filters); err != nil {
		return err
	}
	setFilterAnalyzers(t, p.filters)
	filtering := false
	idx, covered := chooseIndex(t, p.filters)
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
	// pkIndexed: an index answers every partition key restriction (an SAI
	// index answers slices too).
	pkIndexed := len(covered) > 0
	for _, f := range p.filters {
		if f.col != nil && f.col.Kind == schema.PartitionKey && !covered[f.col] {
			pkIndexed = false
		}
	}
	if pkFull && !pkSlice {
		if p.tokenLower != nil || p.tokenUpper != nil {
			p.tokenFilter = c.part
		}
		p.pk = pk
	} else {
		if pkAny || pkSlice {
			// processPartitionKeyRestrictions: a partial key or a slice
			// needs filtering unless indexes answer it.
			if !allowFiltering && !pkIndexed {
				return cqlerr.Invalidf(requiresAllowFilteringMessage)
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
	if tr := p.ckTuple; tr != nil {
		var err error
		if ckSlices, err = tr.absorb(ckSlices); err != nil {
			return err
		}
		if err := tr.checkPlacement(t, ck, n, ckSlices, allowFiltering); err != nil {
			return err
		}
		ckSlices = nil
	}
	for _, s := range ckSlices {
		if s.col.Position < n {
			// = or IN, and a slice, on the same column.
			return mergeKeyRestriction(s.col, ck[s.col.Position], false)
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
		// A restricted column that cannot extend the prefix. An IN of
		// tuples is filtered on one column only (Cassandra's
		// MultiColumnRestriction.INRestriction.addToRowFilter).
		if tr := ck[i]; tr != nil && tr.tuple != nil && allowFiltering {
			if len(tr.tuple.cols) > 1 {
				return cqlerr.Invalidf("Multicolumn IN filters are not supported")
			}
			p.filters = append(p.filters, rowFilter{col: t.Clustering[i], op: cql.OpIn, in: tr})
			usable = false
			filtering = true
			continue
		}
		if !allowFiltering && !covered[t.Clustering[i]] || ck[i] != nil && ck[i].tuple != nil {
			if slice != nil {
				return cqlerr.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", t.Clustering[i].Name, slice.col.Name)
			}
			if idx != nil && (ck[i] == nil || ck[i].tuple == nil) {
				// processClusteringColumnsRestrictions skips the prefix
				// check when an index is queriable; the restriction is
				// then filtered, which checkNeedsFiltering refuses.
				return cqlerr.Invalidf(requiresAllowFilteringMessage)
			}
			return cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", t.Clustering[i].Name, t.Clustering[n].Name)
		}
		usable = false
		filtering = true
	}
	if !usable && !allowFiltering {
		// An index answers a clustering restriction that cannot extend
		// the prefix; the others are then filtered, which needs ALLOW
		// FILTERING unless an index answers them too (Cassandra's
		// IndexRestrictions.needsFiltering: WHERE k = ? AND c1 > ? AND
		// c2 = ?, c2 indexed, needs it).
		for i, kv := range ck {
			if kv != nil && !covered[t.Clustering[i]] {
				return cqlerr.Invalidf(requiresAllowFilteringMessage)
			}
		}
		if slice != nil && !covered[slice.col] || p.ckTuple != nil {
			return cqlerr.Invalidf(requiresAllowFilteringMessage)
		}
	}
	p.ck = ck[:n]
	p.ckSlice = slice
	if p.pk == nil && (n > 0 || slice != nil || p.ckTuple != nil) && !allowFiltering && covered == nil {
		return cqlerr.Invalidf(requiresAllowFilteringMessage)
	}
	if p.pk == nil && tuples && !allowFiltering {
		// An index does not answer multi-column relations.
		return cqlerr.Invalidf(requiresAllowFilteringMessage)
	}
	// CONTAINS on a clustering column needs an index in the query, and
	// then, unless an index answers it, filtering (Cassandra's
	// processClusteringColumnsRestrictions and needFiltering).
	if !allowFiltering {
		for _, f := range p.filters {
			if f.col != nil && f.col.Kind == schema.Clustering && (f.op == cql.OpContains || f.op == cql.OpContainsKey) {
				if len(covered) == 0 {
					return cqlerr.Invalidf("Clustering columns can only be restricted with CONTAINS with a secondary index or filtering")
				}
				if !covered[f.col] {
					return cqlerr.Invalidf(requiresAllowFilteringMessage)
				}
			}
		}
	}
	// Regular and static column restrictions: without ALLOW FILTERING, only
	// on indexed columns, and on one column unless all are
	// storage-attached indexes.
	if !allowFiltering {
		// Cassandra's IndexRestrictions.needFiltering: no filtering when
		// one index group (a legacy index alone, or all the SAI indexes)
		// supports every index restriction, multiple CONTAINS (values,
		// keys and map entries, RestrictionSet.hasMultipleContains)
		// only with SAI. The clustering restrictions of a query without
		// its partition key are filtered too when StatementRestrictions
		// already uses an index as it meets them (no key restriction, a
		// partial key or a key slice; with only a token range, when a
		// clustering restriction is indexed), so an index group must
		// answer them: WHERE v1 = ? AND c1 = ?, v1 indexed, needs ALLOW
		// FILTERING, and WHERE token(k) > ? AND c1 = ? AND v1 = ? not.
		ckFiltered := p.pk == nil && (p.tokenLower == nil && p.tokenUpper == nil || pkAny || pkSlice ||
			slices.ContainsFunc(p.filters, func(f rowFilter) bool {
				return f.col != nil && f.col.Kind == schema.Clustering && covered[f.col]
			}))
		nonKey := map[*schema.Column]bool{}
		allSAI := true
		contains := 0
		for _, f := range p.filters {
			if f.col == nil {
				continue
			}
			if f.col.Kind == schema.Regular || f.col.Kind == schema.Static || f.col.Kind == schema.PartitionKey && p.pk == nil ||
				f.col.Kind == schema.Clustering && ckFiltered {
				if !covered[f.col] {
					return cqlerr.Invalidf(requiresAllowFilteringMessage)
				}
				nonKey[f.col] = true
				if ix, _ := indexFor(t, &f); ix == nil || !ix.SAI() {
					allSAI = false
				}
				if f.mapKey != nil || f.op == cql.OpContains || f.op == cql.OpContainsKey {
					contains++
				}
			}
		}
		if (len(nonKey) > 1 || contains > 1) && !allSAI {
			return cqlerr.Invalidf(requiresAllowFilteringMessage)
		}
	}
	if p.pk == nil && idx != nil {
		p.index = idx
		if len(st.OrderBy) > 0 && p.ann == nil {
			return cqlerr.Invalidf("ORDER BY with 2ndary indexes is not supported, except for vector search")
		}
		if !st.Star && p.selectsOnlyStatics() {
			// validateSecondaryIndexSelections: an index finds rows,
			// not the static parts of partitions.
			return cqlerr.Invalidf("Queries using 2ndary indexes don't support selecting only static columns")
		}
	}
	// Regular and static column restrictions.
	var keep []rowFilter
	for _, f := range p.filters {
		switch {
		case f.col.Kind == schema.PartitionKey && p.pk != nil:
			continue // fully handled by the key
		case f.col.Kind == schema.Clustering && usable && (p.pk != nil || !filtering) && (f.col.Position < n || slice != nil && f.col == slice.col):
			continue // handled by the slices
		}
		keep = append(keep, f)
	}
	p.filters = keep
	p.rowFiltered = slices.ContainsFunc(p.filters, func(f rowFilter) bool {
		return f.col.Kind != schema.PartitionKey && f.col.Kind != schema.Static
	})
	if p.distinct && (len(p.ck) > 0 || p.ckSlice != nil || p.ckTuple != nil || p.rowFiltered) {
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
	if p.ann != nil {
		return nil // checked by bindAnnOrdering and checkAnnRestrictions
	}
	if p.pk == nil {
		return cqlerr.Invalidf("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")
	}
	reversed := false
	next := 0 // the next clustering position ORDER BY may name
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
		// Columns restricted to one value may be skipped
		// (CASSANDRA-10271): they do not change the order.
		for ; next < col.Position && p.singleValued(next); next++ {
		}
		if col.Position != next {
			return cqlerr.Invalidf("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
		}
		next++
		rev := o.Desc != col.Desc
		if i == 0 {
			reversed = rev
		} else if rev != reversed {
			return cqlerr.Invalidf("Unsupported order by relation")
		}
		p.orderCols = append(p.orderCols, col)
	}
	p.reversed = reversed
	p.orderBy = hasIn(p.pk)
	return nil
}

// singleValued reports whether clustering column i is restricted to one
// value when the statement is prepared: by = (or a tuple's =), or by an
// IN of one value (Cassandra's isColumnRestrictedByEq; an IN ? may bind
// any number).
func (p *selectPlan) singleValued(i int) bool {
	if i >= len(p.ck) {
		return false
	}
	kv := p.ck[i]
	return kv != nil && !kv.isIN()
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

// selectsNothing reports whether a query by partition keys has no key, or
// no clustering to read (an empty IN list) and no static column to fetch,
// or keys that fail to build (the read reports that): Cassandra makes such
// a query an empty ReadQuery, with a limit of 0, before it looks at paging
// (makeClusteringIndexFilter still queries the static columns).
func (p *selectPlan) selectsNothing(slices []mutation.Slice, vals []Value) bool {
	if noSlices(slices) && !p.fetchesStatics() {
		return true
	}
	keys, err := p.partitionKeys(vals)
	return err != nil || len(keys) == 0
}

// partitionKeys builds the keys of a query by partition keys, less those
// whose token is outside the token restriction, if there is one.
func (p *selectPlan) partitionKeys(vals []Value) ([][]byte, error) {
	keys, err := partitionKeys(p.table, p.pk, vals)
	if err != nil || p.tokenFilter == nil {
		return keys, err
	}
	in, err := p.tokenRange(vals)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(keys, func(k []byte) bool { return !in(p.tokenFilter.Token(k)) }), nil
}

// tokenRange evaluates the token bounds as Cassandra's TokenFilter does: a
// lower bound above the upper one wraps around the ring, and equal bounds
// admit nothing unless both are inclusive.
func (p *selectPlan) tokenRange(vals []Value) (func(int64) bool, error) {
	var lo, hi int64
	var err error
	if p.tokenLower != nil {
		if lo, err = evalTokenBound(p.tokenLower, vals); err != nil {
			return nil, err
		}
	}
	if p.tokenUpper != nil {
		if hi, err = evalTokenBound(p.tokenUpper, vals); err != nil {
			return nil, err
		}
	}
	above := func(t int64) bool { return t > lo || p.tokenLowerIncl && t == lo }
	below := func(t int64) bool { return t < hi || p.tokUpIncl && t == hi }
	switch {
	case p.tokenUpper == nil:
		return above, nil
	case p.tokenLower == nil:
		return below, nil
	case lo == hi && !(p.tokenLowerIncl && p.tokUpIncl):
		return func(int64) bool { return false }, nil
	case lo <= hi:
		return func(t int64) bool { return above(t) && below(t) }, nil
	default:
		return func(t int64) bool { return above(t) || below(t) }, nil
	}
}

// selectsOnlyStatics reports a selection of static columns and partition
// key columns only, at least one static (Cassandra's
// Selection.containsOnlyStaticColumns; not a wildcard). Selectors other
// than columns count as other columns.
func (p *selectPlan) selectsOnlyStatics() bool {
	static := false
	for _, e := range p.selectors {
		switch {
		case e.col == nil:
			return false
		case e.col.Kind == schema.Static:
			static = true
		case e.col.Kind != schema.PartitionKey:
			return false
		}
	}
	return static
}

// fetchesStatics reports whether the selection may read static columns: a
// static column selected, or, on a table with statics, an expression whose
// columns are not tracked (a function or cast may take one).
func (p *selectPlan) fetchesStatics() bool {
	if !p.table.HasStatics() {
		return false
	}
	for _, e := range p.selectors {
		if e.col != nil && e.col.Kind == schema.Static || e.col == nil && !e.terms {
			return true
		}
	}
	return false
}

// slices computes the clustering slices of the query in clustering order.
func (p *selectPlan) slices(vals []Value) ([]mutation.Slice, error) {
	t := p.table
	if len(p.ck) == 0 && p.ckSlice == nil && p.ckTuple == nil {
		return nil, nil
	}
	prefixes, err := clusterings(t, p.ck, vals)
	if err != nil {
		return nil, err
	}
	if p.ckTuple != nil {
		out, err := p.ckTuple.tupleSlices(t, prefixes, vals)
		return dropEmptySlices(t, out), err
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
	if p.ckSlice != nil {
		out = dropEmptySlices(t, out)
	}
	// Prefixes are sorted by value; for DESC columns clustering order is
	// the reverse.
	if len(p.ck) > 0 && len(out) > 1 {
		sortSlices(t, out)
	}
	return out, nil
}

func sortSlices(t *schema.Table, s []mutation.Slice) {
	// Not an insertion sort: for a DESC column the prefixes arrive in
	// exactly the reverse order, n^2/2 comparisons for n of them. Not a
	// stable one either (O(n log^2 n), 20 times slower for a million):
	// slices with equal starts are equal (tuples() drops repeated tuples).
	slices.SortFunc(s, func(a, b mutation.Slice) int { return t.CompareClustering(a.Start.Values, b.Start.Values) })
}

func (e *Executor) executeSelect(ctx context.Context, c *compiled, opts *Options) (*Result, error) {
	p := c.sel
	if p.ann != nil {
		return e.executeAnn(ctx, c, opts)
	}
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
	// With GROUP BY, PER PARTITION LIMIT counts groups.
	groupsPerPartition := int32(math.MaxInt32)
	if len(p.groupBy) > 0 {
		groupsPerPartition, perPartition = perPartition, math.MaxInt32
	}
	slices, err := p.slices(vals)
	if err != nil {
		return nil, err
	}
	pageSize := opts.PageSize
	// Rows sorted after the query are read without the LIMIT (Cassandra's
	// getDataLimits), so any LIMIT needs more than a page.
	if p.orderBy && !p.aggregate && len(p.groupBy) == 0 && pageSize > 0 && !p.selectsNothing(slices, vals) {
		return nil, cqlerr.Invalidf("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")
	}
	// With GROUP BY, pages count groups (groupPageSize); a plain aggregate
	// query is one page.
	groupPageSize := int32(math.MaxInt32)
	if len(p.groupBy) > 0 && pageSize > 0 && !p.orderBy {
		groupPageSize = pageSize
	}
	if pageSize <= 0 || p.aggregate || len(p.groupBy) > 0 || p.orderBy {
		pageSize = math.MaxInt32
	}
	var ps *pagingState
	if len(opts.PagingState) > 0 && (!p.aggregate || len(p.groupBy) > 0) {
		ps, err = decodePaging(t, opts.PagingState)
		if err != nil {
			return nil, err
		}
		limit = ps.remaining
	}
	if err := p.checkFilterValues(vals); err != nil {
		return nil, err
	}
	r := &reader{e: e, ctx: ctx, p: p, cl: Consistency(opts.Consistency), slices: slices, vals: vals,
		nowSec: e.now().Unix(), perPartition: perPartition}
	if opts.NowInSeconds > 0 {
		r.nowSec = int64(opts.NowInSeconds)
	}
	want := pageSize
	if limit < want && !p.orderBy {
		// Rows sorted after the read are read without the LIMIT (no
		// page either: see above), as Cassandra's getDataLimits does.
		want = limit
	}
	if p.aggregate || len(p.groupBy) > 0 {
		// LIMIT counts output rows (groups); the aggregation reads it all.
		want = math.MaxInt32
	}
	rows, next, err := r.read(ps, int(want))
	if err != nil {
		return nil, err
	}
	res := &Result{Kind: RowsResult, Columns: p.resultColumns}
	ctx0 := &evalCtx{t: t, nowSec: r.nowSec, vals: vals, now: e.now, masked: maskingOn(ctx)}
	if p.aggregate || len(p.groupBy) > 0 {
		// Groups are made in the order rows are read, partition by
		// partition, and then sorted (Cassandra sorts its result rows).
		out, lastRow, err := p.aggregateRows(ctx0, rows)
		if err != nil {
			return nil, err
		}
		// firstRow: each group's first input row, whose values its
		// unaggregated columns show.
		firstRow := make([]int, len(lastRow))
		for i := 1; i < len(lastRow); i++ {
			firstRow[i] = lastRow[i-1] + 1
		}
		if groupsPerPartition != math.MaxInt32 {
			keptOut, keptLast, keptFirst := out[:0], lastRow[:0], firstRow[:0]
			n := int32(0)
			for i := range out {
				if i > 0 && !sameKey(rows[lastRow[i]].key, rows[lastRow[i-1]].key) {
					n = 0
				}
				if ps != nil && i == 0 && bytes.Equal(mutation.CompositeKey(rows[lastRow[0]].key), ps.partitionKey) {
					n = ps.inPartition
				}
				if n < groupsPerPartition {
					keptOut, keptLast, keptFirst = append(keptOut, out[i]), append(keptLast, lastRow[i]), append(keptFirst, firstRow[i])
				}
				n++
			}
			out, lastRow, firstRow = keptOut, keptLast, keptFirst
		}
		if p.orderBy && len(out) > 1 {
			p.sortGroups(rows, out, lastRow, firstRow)
		}
		if int32(len(out)) > limit {
			out = out[:limit]
		}
		if int32(len(out)) > groupPageSize {
			out = out[:groupPageSize]
			if len(out) < int(limit) {
				// Resume after the last row of the page's last group.
				li := lastRow[len(out)-1]
				last := &rows[li]
				pk := mutation.CompositeKey(last.key)
				// inPartition: groups of this partition returned so far.
				in := int32(0)
				for j := len(out) - 1; j >= 0 && sameKey(rows[lastRow[j]].key, last.key); j-- {
					in++
				}
				if ps != nil && bytes.Equal(ps.partitionKey, pk) && in == int32(len(out)) {
					in += ps.inPartition
				}
				next := &pagingState{partitionKey: pk, clustering: last.clustering,
					remaining: limit - int32(len(out)), inPartition: in}
				if len(t.Clustering) == 0 {
					next.clustering = nil
				}
				res.PagingState = encodePaging(next)
			}
		}
		res.Rows = out
		if w := p.aggregationWarning(); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
		return p.finish(res), nil
	}
	if p.orderBy {
		p.sortRows(rows)
		if int32(len(rows)) > limit {
			rows = rows[:limit]
		}
	}
	if res.Rows, err = p.project(ctx0, len(rows), func(i int) *outRow { return &rows[i] }); err != nil {
		return nil, err
	}
	if next != nil && int32(len(rows)) < limit {
		next.remaining = limit - int32(len(rows))
		res.PagingState = encodePaging(next)
	}
	return p.finish(res), nil
}

// outRow is one result row before projection.
type outRow struct {
	key        [][]byte // partition key components
	token      int64
	clustering [][]byte // nil for a static-only row
	cells      []mutation.Cell
	static     []mutation.Cell
}

// sortGroups sorts the output rows of GROUP BY (out, with the indexes of
// each group's first and last input rows) by the ORDER BY columns of each
// group's first row, stably.
func (p *selectPlan) sortGroups(rows []outRow, out [][][]byte, lastRow, firstRow []int) {
	type group struct {
		out         [][]byte
		first, last int
	}
	gs := make([]group, len(out))
	for i := range out {
		gs[i] = group{out: out[i], first: firstRow[i], last: lastRow[i]}
	}
	slices.SortStableFunc(gs, func(a, b group) int { return p.compareOrdering(&rows[a.first], &rows[b.first]) })
	for i, g := range gs {
		out[i], lastRow[i], firstRow[i] = g.out, g.last, g.first
	}
}

// sortRows sorts rows of several partitions by the ORDER BY columns,
// stably: rows equal in them keep their partitions' order (Cassandra's
// orderResults sorts with a stable sort on the ordering columns alone).
// Each column compares in its clustering order, a static-only row's null
// value first (its type's order puts empty values first; a DESC column's
// reversed type puts them last); a reversed query reverses the whole.
// Not by insertion, which is quadratic in the rows of an IN query.
func (p *selectPlan) sortRows(rows []outRow) {
	slices.SortStableFunc(rows, func(a, b outRow) int { return p.compareOrdering(&a, &b) })
}

// compareOrdering compares two rows by the ORDER BY columns (sortRows).
func (p *selectPlan) compareOrdering(a, b *outRow) int {
	for _, col := range p.orderCols {
		var c int
		switch {
		case a.clustering == nil && b.clustering == nil:
		case a.clustering == nil:
			c = -1
		case b.clustering == nil:
			c = 1
		default:
			c = types.Compare(col.Type, a.clustering[col.Position], b.clustering[col.Position])
		}
		if col.Desc {
			c = -c
		}
		if p.reversed {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
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
	if col.Type.Kind == types.UDT {
		return assembleUDT(col.Type, col.ID, cells)
	}
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

// matches applies the ALLOW FILTERING restrictions.
func (r *reader) matches(row *outRow) (bool, error) {
	for _, f := range r.p.filters {
		v := row.value(r.p.table, f.col)
		typ := f.col.Type
		if f.mapKey != nil || f.op == cql.OpContains || f.op == cql.OpContainsKey {
			ok, err := matchCollection(&f, v, r.vals)
			if err != nil || !ok {
				return false, err
			}
			continue
		}
		if f.in != nil {
			vs, err := expandValues(f.col, f.in, r.vals)
			if err != nil {
				return false, err
			}
			found := false
			for _, x := range vs {
				if v != nil && f.compareValues(typ, v, x) == 0 {
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
		c := f.compareValues(typ, v, want)
		if !compareHolds(f.op, c) || f.alsoRaw && !compareHolds(f.op, types.Compare(typ, v, want)) {
			return false, nil
		}
	}
	return true, nil
}

// compareHolds reports whether a comparison result c (of value against
// operand) satisfies op (=, !=, <, <=, >, >=).
func compareHolds(op cql.Operator, c int) bool {
	switch op {
	case cql.OpEq:
		return c == 0
	case cql.OpNeq:
		return c != 0
	case cql.OpLt:
		return c < 0
	case cql.OpLte:
		return c <= 0
	case cql.OpGt:
		return c > 0
	case cql.OpGte:
		return c >= 0
	}
	return false
}

// udtOpRefusedFirst reports whether an operator is refused for a
// non-frozen UDT column by its own check, before the UDT one: Relation.
// toRestriction refuses != and IS NOT outright, and CONTAINS (KEY) refuses
// a non-collection column before the receiver's type is looked at.
func udtOpRefusedFirst(op cql.Operator) bool {
	switch op {
	case cql.OpNeq, cql.OpNotIn, cql.OpNotContains, cql.OpNotContainsKey, cql.OpIsNot, cql.OpContains, cql.OpContainsKey:
		return true
	}
	return false
}
