package query

import (
	"bytes"
	"context"
	"encoding/binary"
	"sort"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Lightweight transactions on one node (Cassandra's CQL3CasRequest and
// ModificationStatement.buildCasResultSet).
//
// A conditional statement or batch takes the coordinator's lock of its one
// partition, reads the rows it conditions on, evaluates IF NOT EXISTS / IF
// EXISTS / IF conditions and, when they hold, applies its writes before
// releasing the lock: every conditional write on a partition is serialized
// with every other one and sees all of them (linearizable per partition).
//
// The result is one row: [applied] (boolean), and when not applied the
// current values of the conditioned row: every column for IF [NOT] EXISTS,
// the columns named in the conditions (in IF order, without duplicates)
// otherwise, preceded by the primary key columns in a batch. When the row
// does not exist the result has only [applied].

// checkWriteConsistency applies Cassandra's consistency rules for counter
// and conditional writes (ConsistencyLevel.validateCounterForWrite,
// validateForCas and validateForCasCommit).
func checkWriteConsistency(p *modifyPlan, opts *Options) error {
	cl := Consistency(opts.Consistency)
	if p.table.IsCounter {
		if cl == Any {
			return cqlerr.Invalidf("Consistency level ANY is not yet supported for counter table %s", p.table.Name)
		}
		if cl == Serial || cl == LocalSerial {
			return cqlerr.Invalidf("Counter operations are inherently non-serializable")
		}
	}
	if p.cas == nil {
		return nil
	}
	if cl == Serial || cl == LocalSerial {
		return cqlerr.Invalidf("%s is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"", ConsistencyName(cl))
	}
	if sc := Consistency(opts.SerialConsistency); sc != 0 && sc != Serial && sc != LocalSerial {
		return cqlerr.Invalidf("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")
	}
	return nil
}

// casSpec is the IF clause of a statement.
type casSpec struct {
	ifNotExists, ifExists bool
	conds                 []condition
}

// condition is one IF condition.
type condition struct {
	col  *schema.Column
	elem termFn // m[k] / l[i], or nil
	// hasField marks a condition on field number field of a UDT column.
	hasField bool
	field    int
	op       cql.Operator
	value    termFn   // every operator but IN
	in       []termFn // IN (a, b)
	inM      termFn   // IN ?
	// typ is the type of the compared value (the column's, or the
	// element's for element conditions).
	typ *types.Type
}

// checkConditional applies Cassandra's restrictions on conditional writes.
func checkConditional(t *schema.Table, p *modifyPlan, u cql.UsingClause, what string) error {
	if t.IsCounter {
		return cqlerr.Invalidf("Conditional updates are not supported on counter tables")
	}
	if u.Timestamp != nil {
		return cqlerr.Invalidf("Cannot provide custom timestamp for conditional updates")
	}
	if hasIn(p.pk) {
		// Refused when executed (executeCAS), before the clustering.
		return nil
	}
	return checkConditionalClustering(p, what)
}

// checkConditionalClustering refuses an IN on the clustering of a
// conditional statement, or of any statement of a conditional batch
// (BatchStatement.makeCasRequest).
func checkConditionalClustering(p *modifyPlan, what string) error {
	if hasIn(p.ck) {
		return cqlerr.Invalidf("IN on the clustering key columns is not supported with conditional %s", what)
	}
	return nil
}

func (c *compiled) compileConditions(t *schema.Table, ifExists bool, conds []cql.Condition, now nowFunc) (*casSpec, error) {
	cs := &casSpec{ifExists: ifExists}
	for _, rc := range conds {
		col, err := columnOf(t, rc.Column)
		if err != nil {
			return nil, err
		}
		if col.IsPrimaryKey() {
			return nil, cqlerr.Invalidf("PRIMARY KEY column '%s' cannot have IF conditions", col.Name)
		}
		cd := condition{col: col, op: rc.Op, typ: col.Type}
		valSpec := spec(t, col.Name, col.Type)
		inName := col.Name
		if rc.Field != "" {
			// Cassandra's ColumnCondition.Raw.prepare for udtField.
			if col.Type.Kind != types.UDT {
				return nil, cqlerr.Invalidf("Invalid field selection: %s of type %s is not a user type", col.Name, col.Type)
			}
			i := fieldIndex(col.Type, rc.Field)
			if i < 0 {
				return nil, cqlerr.Invalidf("Unknown field %s for column %s", rc.Field, col.Name)
			}
			cd.hasField, cd.field = true, i
			valSpec = fieldSpec(valSpec, i)
			cd.typ, inName = valSpec.Type, valSpec.Name
		}
		if rc.Element != nil {
			if !isCollection(col.Type) {
				return nil, cqlerr.Invalidf("Invalid element access syntax for non-collection column %s", col.Name)
			}
			if col.Type.Kind == types.Set {
				return nil, cqlerr.Invalidf("Invalid element access syntax for set column %s", col.Name)
			}
			ks, vs := elemSpecs(t, col)
			if cd.elem, err = c.compileTerm(rc.Element, ks, now); err != nil {
				return nil, err
			}
			valSpec, cd.typ = vs, vs.Type
		}
		if err := checkDurationSlice(cd.typ, rc.Op, "conditions", "durations"); err != nil {
			if cd.typ.Kind == types.Duration {
				return nil, cqlerr.Invalidf("Slice conditions ( %s ) are not supported on durations", rc.Op)
			}
			return nil, err
		}
		switch rc.Op {
		case cql.OpIn:
			if rc.InMarker != nil {
				recv := valSpec
				recv.Name, recv.Type = "in("+inName+")", types.ListOf(valSpec.Type, false)
				if cd.inM, err = c.compileTerm(rc.InMarker, recv, now); err != nil {
					return nil, err
				}
				break
			}
			for _, v := range rc.InValues {
				f, err := c.compileTerm(v, valSpec, now)
				if err != nil {
					return nil, err
				}
				cd.in = append(cd.in, f)
			}
		case cql.OpContains, cql.OpContainsKey:
			if rc.Op == cql.OpContainsKey && cd.typ.Kind != types.Map {
				return nil, cqlerr.Invalidf("Cannot use CONTAINS KEY on non-map column %s", valSpec.Name)
			}
			if !isCollection(cd.typ) {
				return nil, cqlerr.Invalidf("Cannot use %s on non-collection column %s", rc.Op, valSpec.Name)
			}
			et, name := cd.typ.Params[0], "value("+col.Name+")"
			if cd.typ.Kind == types.Map && rc.Op == cql.OpContains {
				et = cd.typ.Params[1]
			}
			if rc.Op == cql.OpContainsKey {
				if cd.typ.Kind != types.Map {
					return nil, cqlerr.Invalidf("Cannot use CONTAINS KEY on non-map column %s", valSpec.Name)
				}
				name = "key(" + col.Name + ")"
			}
			if cd.value, err = c.compileTerm(rc.Value, spec(t, name, et), now); err != nil {
				return nil, err
			}
		case cql.OpEq, cql.OpNeq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
			if cd.value, err = c.compileTerm(rc.Value, valSpec, now); err != nil {
				return nil, err
			}
		default:
			return nil, cqlerr.Invalidf("Unsupported operator %s in IF condition on %s", rc.Op, col.Name)
		}
		cs.conds = append(cs.conds, cd)
	}
	return cs, nil
}

// checkCASMix refuses, as Cassandra's CQL3CasRequest does, a batch whose
// statements test one row in different ways: IF EXISTS and IF NOT EXISTS,
// or either and IF conditions. Conditions on static columns test the
// static row. Checked in statement order, with Cassandra's messages.
func checkCASMix(plans []*modifyPlan, targets []casTarget) error {
	const conds = 0
	const exists, notExists = 1, 2
	kinds := map[string]int{}
	rowKey := func(ck [][]byte) string {
		if ck == nil {
			return "static"
		}
		return "row " + string(mutation.CompositeKey(ck))
	}
	for i, p := range plans {
		cs := p.cas
		if cs == nil {
			continue
		}
		row := rowKey(targets[i].ck)
		if cs.ifExists || cs.ifNotExists {
			kind := exists
			if cs.ifNotExists {
				kind = notExists
			}
			if prev, ok := kinds[row]; ok && prev != kind {
				if prev == conds {
					not := ""
					if cs.ifNotExists {
						not = "NOT "
					}
					return cqlerr.Invalidf("Cannot mix IF conditions and IF %sEXISTS for the same row", not)
				}
				return cqlerr.Invalidf("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
			}
			kinds[row] = kind
			continue
		}
		for _, cd := range cs.conds {
			k := row
			if cd.col.Kind == schema.Static {
				k = rowKey(nil)
			}
			if prev, ok := kinds[k]; ok && prev != conds {
				return cqlerr.Invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
			}
			kinds[k] = conds
		}
	}
	return nil
}

// casTarget is the row a conditional statement is about.
type casTarget struct {
	key []byte
	ck  [][]byte // nil: static row
}

// executeCAS runs conditional statements (one, or a batch) on one
// partition.
func (e *Executor) executeCAS(ctx context.Context, plans []*modifyPlan, opts []*Options, bopts *Options, batch bool) (*Result, error) {
	t := plans[0].table
	targets := make([]casTarget, len(plans))
	for i, p := range plans {
		if p.table != t {
			return nil, cqlerr.Invalidf("Batch with conditions cannot span multiple tables")
		}
		keys, err := partitionKeys(t, p.pk, opts[i].Values)
		if err != nil {
			return nil, err
		}
		// Refused when executed, for any IN (even of one key), as
		// makeCasRequest does. Cassandra 5.0 throws the batch's refusal
		// as an IllegalArgumentException, a ServerError that drivers
		// retry on every host; cqld answers Invalid with its text.
		if hasIn(p.pk) && batch {
			return nil, cqlerr.Invalidf("Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)")
		}
		what := "updates"
		if p.isDelete {
			what = "deletions"
		}
		if hasIn(p.pk) || len(keys) != 1 {
			return nil, cqlerr.Invalidf("IN on the partition key is not supported with conditional %s", what)
		}
		targets[i].key = keys[0]
		if i > 0 && !bytes.Equal(keys[0], targets[0].key) {
			return nil, cqlerr.Invalidf("Batch with conditions cannot span multiple partitions")
		}
		if err := checkConditionalClustering(p, what); err != nil {
			return nil, err
		}
		if p.ck != nil && len(t.Clustering) > 0 {
			cks, err := clusterings(t, p.ck, opts[i].Values)
			if err != nil {
				return nil, err
			}
			if len(cks) == 1 && len(cks[0]) == len(t.Clustering) {
				targets[i].ck = cks[0]
			}
		} else if len(t.Clustering) == 0 {
			targets[i].ck = [][]byte{}
		}
	}
	if len(plans) > 1 {
		if err := checkCASMix(plans, targets); err != nil {
			return nil, err
		}
	}
	key := targets[0].key
	unlock, err := e.cfg.Coordinator.LockPartitions(ctx, []PartitionRef{{TableID: t.ID, Key: key}})
	if err != nil {
		return nil, err
	}
	defer unlock()
	ctx = withPartitionsLocked(ctx)
	nowSec := e.now().Unix()
	var cks [][][]byte
	for _, tg := range targets {
		if tg.ck != nil {
			cks = append(cks, tg.ck)
		}
	}
	if len(cks) == 0 {
		cks = [][][]byte{{}}
	}
	token := e.cfg.Partitioner.Token(key)
	tracing.Trace(ctx, tracing.RequestThread, "Reading existing values for CAS precondition")
	cur, err := e.readCurrent(ctx, t, bopts.serialConsistency(), key, token, dedupeClusterings(t, cks), nowSec)
	if err != nil {
		return nil, err
	}
	applied := true
	for i, p := range plans {
		ok, err := casApplies(t, p.cas, cur, targets[i], opts[i].Values)
		if err != nil {
			return nil, err
		}
		if !ok {
			applied = false
		}
	}
	if !applied {
		tracing.Trace(ctx, tracing.RequestThread, "CAS precondition does not match current values")
		tracing.Trace(ctx, tracing.RequestThread, "CAS did not apply")
		// With static conditions only, CQL3CasRequest.readCommand reads
		// the first live row of the partition (limit 1), which the
		// failure result shows.
		var first *mutation.Partition
		if len(t.Clustering) > 0 && !casHasRowConditions(plans, targets) {
			if first, err = e.readFirstRow(ctx, t, key, token, nowSec); err != nil {
				return nil, err
			}
		}
		return casFailure(t, plans, targets, cur, first, batch)
	}
	// Apply every statement at one timestamp. The partition lock stands
	// for Paxos' ballot: the updates are applied, not proposed.
	tracing.Trace(ctx, tracing.RequestThread, "CAS precondition is met; applying client-requested updates")
	ts := e.timestamp()
	byTable := []*mutation.PartitionUpdate{}
	for i, p := range plans {
		if p.cas == nil && !batch {
			continue
		}
		o := *opts[i]
		o.Timestamp, o.HasTimestamp = ts, true
		w, err := e.writeParams(p, &o)
		if err != nil {
			return nil, err
		}
		ups, err := e.buildUpdates(ctx, p, &o, w)
		if err != nil {
			return nil, err
		}
		byTable = append(byTable, ups...)
	}
	if len(byTable) > 0 {
		if err := e.mutate(ctx, t, Consistency(bopts.Consistency), mergeUpdates(byTable)); err != nil {
			return nil, err
		}
	}
	tracing.Trace(ctx, tracing.RequestThread, "CAS applied successfully")
	return casResult(t, true, nil, nil), nil
}

// mergeUpdates merges the updates of one partition into one, so that the
// conditional batch is applied atomically.
func mergeUpdates(ups []*mutation.PartitionUpdate) []*mutation.PartitionUpdate {
	if len(ups) < 2 {
		return ups
	}
	m := *ups[0]
	m.Rows = append([]mutation.Row(nil), m.Rows...)
	m.RangeTombstones = append([]mutation.RangeTombstone(nil), m.RangeTombstones...)
	for _, u := range ups[1:] {
		m.Deletion = mutation.MaxDeletion(m.Deletion, u.Deletion)
		m.RangeTombstones = append(m.RangeTombstones, u.RangeTombstones...)
		m.Rows = append(m.Rows, u.Rows...)
		if u.Static != nil {
			if m.Static == nil {
				s := *u.Static
				m.Static = &s
			} else {
				s := *m.Static
				s.Cells = append(append([]mutation.Cell(nil), s.Cells...), u.Static.Cells...)
				sortCells(s.Cells)
				m.Static = &s
			}
		}
	}
	return []*mutation.PartitionUpdate{&m}
}

func dedupeClusterings(t *schema.Table, cks [][][]byte) [][][]byte {
	sort.Slice(cks, func(i, j int) bool { return t.CompareClustering(cks[i], cks[j]) < 0 })
	out := cks[:0]
	for i, ck := range cks {
		if i == 0 || t.CompareClustering(ck, cks[i-1]) != 0 {
			out = append(out, ck)
		}
	}
	return out
}

// casRow returns the current row of a target (nil when it does not
// exist): the clustering row, or the static row for static-only targets.
func casRow(t *schema.Table, cur *mutation.Partition, tg casTarget) *outRow {
	if cur == nil {
		return nil
	}
	key, err := mutation.SplitCompositeKey(cur.Key, len(t.PartitionKey))
	if err != nil {
		return nil
	}
	r := &outRow{key: key, token: cur.Token, static: staticOf(cur)}
	if tg.ck == nil {
		if cur.Static == nil {
			return nil
		}
		return r
	}
	for i := range cur.Rows {
		if t.CompareClustering(cur.Rows[i].Clustering, tg.ck) == 0 {
			r.clustering, r.cells = cur.Rows[i].Clustering, cur.Rows[i].Cells
			if r.clustering == nil {
				r.clustering = [][]byte{}
			}
			return r
		}
	}
	return nil
}

// casApplies evaluates a statement's IF clause against the current state.
func casApplies(t *schema.Table, cs *casSpec, cur *mutation.Partition, tg casTarget, vals []Value) (bool, error) {
	if cs == nil {
		return true, nil
	}
	row := casRow(t, cur, tg)
	switch {
	case cs.ifNotExists:
		return row == nil, nil
	case cs.ifExists:
		return row != nil, nil
	}
	for i := range cs.conds {
		cd := &cs.conds[i]
		r := row
		if cd.col.Kind == schema.Static && r == nil && cur != nil && cur.Static != nil {
			r = casRow(t, cur, casTarget{})
		}
		ok, err := cd.applies(t, r, vals)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// current returns the value the condition compares (nil: null).
func (cd *condition) current(t *schema.Table, r *outRow, vals []Value) ([]byte, error) {
	if cd.elem != nil {
		k, unset, err := cd.elem(vals)
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, cqlerr.Invalidf("Invalid 'unset' value in condition")
		}
		list := cd.col.Type.Kind == types.List
		if k == nil {
			if list {
				return nil, cqlerr.Invalidf("Invalid null value for list element access")
			}
			return nil, cqlerr.Invalidf("Invalid null value for map element access")
		}
		var idx int32
		if list {
			if idx = int32(binary.BigEndian.Uint32(k)); idx < 0 {
				return nil, cqlerr.Invalidf("Invalid negative list index %d", idx)
			}
		}
		if r == nil {
			return nil, nil
		}
		if !cd.col.Type.IsMultiCell() {
			// A frozen collection is one value.
			return frozenElement(cd.col.Type, r.value(t, cd.col), k, idx)
		}
		cells := r.cells
		if cd.col.Kind == schema.Static {
			cells = r.static
		}
		var els []mutation.Cell
		for _, c := range cells {
			if c.Column == cd.col.ID && c.Path != nil {
				els = append(els, c)
			}
		}
		if list {
			if int(idx) >= len(els) {
				return nil, nil
			}
			return els[idx].Value, nil
		}
		for _, c := range els {
			if types.Compare(cd.col.Type.Params[0], c.Path, k) == 0 {
				return c.Value, nil
			}
		}
		return nil, nil
	}
	if r == nil {
		return nil, nil
	}
	if cd.hasField {
		return udtFieldValue(r.value(t, cd.col), cd.field), nil
	}
	return r.value(t, cd.col), nil
}

// frozenElement returns element idx of a frozen list, or the value of key
// k in a frozen map (nil: none, or a null collection).
func frozenElement(typ *types.Type, v, k []byte, idx int32) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if typ.Kind == types.List {
		els, err := types.DecodeCollection(v)
		if err != nil || int(idx) >= len(els) {
			return nil, err
		}
		return els[idx], nil
	}
	return collectionElement(typ, v, k)
}

// normalize treats an empty non-frozen collection as null, as Cassandra
// does.
func normalize(typ *types.Type, b []byte) []byte {
	if b != nil && isCollection(typ) && typ.IsMultiCell() && len(b) >= 4 && binary.BigEndian.Uint32(b) == 0 {
		return nil
	}
	return b
}

func (cd *condition) applies(t *schema.Table, r *outRow, vals []Value) (bool, error) {
	cur, err := cd.current(t, r, vals)
	if err != nil {
		return false, err
	}
	cur = normalize(cd.typ, cur)
	eval := func(f termFn) ([]byte, error) {
		b, unset, err := f(vals)
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, cqlerr.Invalidf("Invalid 'unset' value in condition")
		}
		return b, nil
	}
	eq := func(v []byte) bool {
		v = normalize(cd.typ, v)
		if cur == nil || v == nil {
			return cur == nil && v == nil
		}
		return types.Compare(cd.typ, cur, v) == 0
	}
	switch cd.op {
	case cql.OpIn:
		var vs [][]byte
		if cd.inM != nil {
			b, err := eval(cd.inM)
			if err != nil {
				return false, err
			}
			if b == nil {
				return false, cqlerr.Invalidf("Invalid null list in IN condition")
			}
			if vs, err = types.DecodeCollection(b); err != nil {
				return false, cqlerr.Invalidf("Invalid list value for IN condition on %s", cd.col.Name)
			}
		} else {
			for _, f := range cd.in {
				b, err := eval(f)
				if err != nil {
					return false, err
				}
				vs = append(vs, b)
			}
		}
		for _, v := range vs {
			if eq(v) {
				return true, nil
			}
		}
		return false, nil
	case cql.OpContains, cql.OpContainsKey:
		v, err := eval(cd.value)
		if err != nil {
			return false, err
		}
		if v == nil {
			return false, cqlerr.Invalidf("Invalid comparison with null for operator \"%s\"", cd.op)
		}
		if cur == nil {
			return false, nil
		}
		var els [][]byte
		et := cd.typ.Params[0]
		switch {
		case cd.typ.Kind == types.Map:
			ks, vs, err := types.DecodeMap(cur)
			if err != nil {
				return false, err
			}
			els = ks
			if cd.op == cql.OpContains {
				els, et = vs, cd.typ.Params[1]
			}
		default:
			if els, err = types.DecodeCollection(cur); err != nil {
				return false, err
			}
		}
		for _, el := range els {
			if types.Compare(et, el, v) == 0 {
				return true, nil
			}
		}
		return false, nil
	}
	v, err := eval(cd.value)
	if err != nil {
		return false, err
	}
	switch cd.op {
	case cql.OpEq:
		return eq(v), nil
	case cql.OpNeq:
		return !eq(v), nil
	}
	if v == nil {
		return false, cqlerr.Invalidf("Invalid comparison with null for operator \"%s\"", cd.op)
	}
	var c int
	switch {
	case cur == nil && isCollection(cd.typ) && cd.typ.IsMultiCell():
		// A non-frozen collection without elements is empty, which
		// sorts before any other (MultiCellCollectionBound).
		if c = -1; normalize(cd.typ, v) == nil {
			c = 0
		}
	case cur == nil:
		return false, nil
	default:
		c = types.Compare(cd.typ, cur, v)
	}
	switch cd.op {
	case cql.OpLt:
		return c < 0, nil
	case cql.OpLte:
		return c <= 0, nil
	case cql.OpGt:
		return c > 0, nil
	case cql.OpGte:
		return c >= 0, nil
	}
	return false, nil
}

// casResult builds the result of a conditional write.
func casResult(t *schema.Table, applied bool, cols []*schema.Column, rows []*outRow) *Result {
	res := &Result{Kind: RowsResult, Columns: []ColumnSpec{spec(t, "[applied]", types.BooleanType)}}
	flag := []byte{0}
	if applied {
		flag = []byte{1}
	}
	if len(rows) == 0 {
		res.Rows = [][][]byte{{flag}}
		return res
	}
	for _, c := range cols {
		res.Columns = append(res.Columns, spec(t, c.Name, c.Type))
	}
	for _, r := range rows {
		row := [][]byte{flag}
		for _, c := range cols {
			row = append(row, r.value(t, c))
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// casFailure is the result of a conditional write that did not apply:
// Cassandra's buildCasFailureResultSet.
func casFailure(t *schema.Table, plans []*modifyPlan, targets []casTarget, cur, first *mutation.Partition, batch bool) (*Result, error) {
	wildcard := false
	var condCols []*schema.Column
	seen := map[*schema.Column]bool{}
	for _, p := range plans {
		if p.cas == nil {
			continue
		}
		if p.cas.ifExists || p.cas.ifNotExists {
			wildcard = true
		}
		for _, cd := range p.cas.conds {
			if !seen[cd.col] {
				seen[cd.col] = true
				condCols = append(condCols, cd.col)
			}
		}
	}
	var cols []*schema.Column
	switch {
	case wildcard:
		cols = selectStarOrder(t)
	case batch:
		cols = append(append(append(cols, t.PartitionKey...), t.Clustering...), condCols...)
	default:
		cols = condCols
	}
	// CQL3CasRequest reads the rows of the statements with row conditions
	// (regular columns, or EXISTS with a full clustering) and the static
	// row for static conditions; buildCasFailureResultSet then runs
	// SelectStatement.processPartition: one row per clustering row read,
	// the static values joined in, and the static row alone only when no
	// clustering row was read.
	var rows []*outRow
	done := map[string]bool{}
	readStatic := false
	for i, p := range plans {
		if p.cas == nil {
			continue
		}
		tg := targets[i]
		rowCond := false
		for _, cd := range p.cas.conds {
			if cd.col.Kind == schema.Static {
				readStatic = true
			} else {
				rowCond = true
			}
		}
		if p.cas.ifExists || p.cas.ifNotExists {
			if tg.ck == nil {
				readStatic = true
			} else {
				rowCond = true
			}
		}
		if !rowCond || tg.ck == nil {
			continue
		}
		r := casRow(t, cur, tg)
		if r == nil {
			continue
		}
		id := string(mutation.CompositeKey(r.clustering))
		if done[id] {
			continue
		}
		done[id] = true
		rows = append(rows, r)
	}
	if first != nil && len(first.Rows) > 0 {
		// Static conditions only: the first live row, statics joined.
		if key, err := mutation.SplitCompositeKey(first.Key, len(t.PartitionKey)); err == nil {
			fr := first.Rows[0]
			rows = append(rows, &outRow{key: key, token: first.Token, static: staticOf(first), clustering: fr.Clustering, cells: fr.Cells})
		}
	}
	if len(rows) == 0 && readStatic {
		if r := casRow(t, cur, casTarget{}); r != nil {
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return t.CompareClustering(rows[i].clustering, rows[j].clustering) < 0 })
	return casResult(t, false, cols, rows), nil
}

// casHasRowConditions reports whether a conditional statement has
// conditions on a row (regular columns, or IF [NOT] EXISTS with a full
// clustering) rather than on the static row only.
func casHasRowConditions(plans []*modifyPlan, targets []casTarget) bool {
	for i, p := range plans {
		if p.cas == nil {
			continue
		}
		if (p.cas.ifExists || p.cas.ifNotExists) && targets[i].ck != nil {
			return true
		}
		for _, cd := range p.cas.conds {
			if cd.col.Kind != schema.Static {
				return true
			}
		}
	}
	return false
}

// readFirstRow reads the first live row of a partition (and its static
// row).
func (e *Executor) readFirstRow(ctx context.Context, t *schema.Table, key []byte, token, nowSec int64) (*mutation.Partition, error) {
	return e.readOne(ctx, t, NodeLocal, &mutation.ReadCommand{TableID: t.ID, Key: key, Token: token, NowSec: nowSec, RowLimit: 1})
}

// selectStarOrder is Cassandra's "SELECT *" column order: partition key,
// clustering, then static columns by name, then regular columns by name
// (TableMetadata.allColumnsInSelectOrder).
func selectStarOrder(t *schema.Table) []*schema.Column {
	out := append(append([]*schema.Column(nil), t.PartitionKey...), t.Clustering...)
	byName := func(cs []*schema.Column) []*schema.Column {
		cs = append([]*schema.Column(nil), cs...)
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
		return cs
	}
	out = append(out, byName(t.Statics)...)
	return append(out, byName(t.Regulars)...)
}
