package query

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

const maxTTL = 20 * 365 * 24 * 60 * 60 // Cassandra's Attributes.MAX_TTL

// modifyPlan is a compiled INSERT, UPDATE or DELETE.
type modifyPlan struct {
	table *schema.Table
	// pk[i] / ck[i] are the values (one for =, several for IN) restricting
	// the i-th partition key / clustering column; ck may be a prefix.
	pk []*keyVals
	ck []*keyVals
	// ckSlice is a DELETE's range on the column after the ck prefix.
	ckSlice *sliceTerms
	// ckTuple is a DELETE's multi-column slice after the ck prefix.
	ckTuple *tupleRestriction
	// nonKey names the columns of the WHERE clause outside the primary
	// key, which a modification may not restrict (checkNonKey).
	nonKey []*schema.Column
	ops    []columnOp
	insert bool // writes a row marker
	// deleteRow: DELETE without targets.
	deleteRow bool
	// isDelete: a DELETE statement.
	isDelete bool
	// rangeColumns: a DELETE of columns over a range of rows, which fails
	// once a range is built (errRangeColumns).
	rangeColumns bool
	ttl          termFn
	timestamp    termFn
	// cas holds the IF clause of a conditional statement (nil otherwise).
	cas *casSpec
}

// keyVals are the values restricting one key column: one function for =,
// several for IN (a, b), or one returning a serialized list for IN ?; or,
// for each column of a multi-column IN, that IN (tuple).
type keyVals struct {
	fns        []termFn
	listMarker bool
	tuple      *tupleRestriction
}

// isIN reports whether the restriction is an IN: a multi-column one, a
// list marker, or a list of values other than one (IN () too; IN (x) is an
// equality, as Cassandra's SingleColumnRelation makes it).
func (kv *keyVals) isIN() bool { return kv.tuple != nil || kv.listMarker || len(kv.fns) != 1 }

// hasIn reports whether any of the restrictions (nil: unrestricted) is an IN.
func hasIn(kvs []*keyVals) bool {
	for _, kv := range kvs {
		if kv != nil && kv.isIN() {
			return true
		}
	}
	return false
}

// columnOp writes or deletes one column (or elements of a non-frozen
// collection, or increments a counter): see opKind.
type columnOp struct {
	col    *schema.Column
	kind   opKind
	value  termFn // nil for deletes
	elem   termFn // element key or list index (opSetElem, opDelElem)
	delete bool   // kind == opDelete
}

// sliceTerms is a range on one clustering column.
type sliceTerms struct {
	col                  *schema.Column
	lower, upper         termFn
	lowerIncl, upperIncl bool
}

// modifyTable resolves the table of an INSERT, UPDATE or DELETE;
// conditional and expiring say whether the statement has conditions and a
// TTL.
func (e *Executor) modifyTable(s *schema.Schema, name cql.QualifiedName, keyspace string, conditional, expiring bool) (*schema.Table, error) {
	t, err := resolveTable(s, name, keyspace)
	if err != nil {
		return nil, err
	}
	// The virtual keyspaces' tables are read-only (AbstractVirtualTable),
	// after ModificationStatement's checks for virtual tables.
	if schema.IsVirtualKeyspace(t.Keyspace) {
		switch {
		case expiring:
			return nil, cqlerr.Invalidf("Expiring columns are not supported by virtual tables")
		case conditional:
			return nil, cqlerr.Invalidf("Conditional updates are not supported by virtual tables")
		}
		return nil, cqlerr.Invalidf("Modification is not supported by table %s.%s", t.Keyspace, t.Name)
	}
	// Stored system tables (system_auth's, system_traces',
	// system.prepared_statements) are, as in Cassandra, writable (with
	// MODIFY on them when an authorizer is configured); the ones cqld
	// computes are not.
	if t.Virtual {
		return nil, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", t.Keyspace)
	}
	if t.IsView() {
		return nil, cqlerr.Invalidf("Cannot directly modify a materialized view")
	}
	return t, nil
}

func (c *compiled) compileUsing(p *modifyPlan, u cql.UsingClause, now nowFunc) error {
	t := p.table
	if u.TTL != nil {
		f, err := c.compileTerm(u.TTL, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[ttl]", Type: types.IntType}, now)
		if err != nil {
			return err
		}
		p.ttl = f
	}
	if u.Timestamp != nil {
		f, err := c.compileTerm(u.Timestamp, ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: "[timestamp]", Type: types.BigintType}, now)
		if err != nil {
			return err
		}
		p.timestamp = f
	}
	return nil
}

func (e *Executor) compileInsert(c *compiled, s *schema.Schema, st *cql.Insert, keyspace string) error {
	t, err := e.modifyTable(s, st.Table, keyspace, st.IfNotExists, st.Using.TTL != nil)
	if err != nil {
		return err
	}
	if st.Json != nil {
		return e.compileInsertJSON(c, t, st)
	}
	if t.IsCounter {
		return cqlerr.Invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if len(st.Columns) != len(st.Values) {
		return cqlerr.Invalidf("Unmatched column names/values")
	}
	p := &modifyPlan{table: t, insert: true, pk: make([]*keyVals, len(t.PartitionKey)), ck: make([]*keyVals, len(t.Clustering))}
	if err := c.compileUsing(p, st.Using, e.now); err != nil {
		return err
	}
	seen := map[string]bool{}
	hasStaticOnly := true
	for i, name := range st.Columns {
		col, err := columnOf(t, name)
		if err != nil {
			return err
		}
		if seen[name] {
			return cqlerr.Invalidf("The column names contains duplicates")
		}
		seen[name] = true
		f, err := c.compileTerm(st.Values[i], spec(t, col.Name, col.Type), e.now)
		if err != nil {
			return err
		}
		switch col.Kind {
		case schema.PartitionKey:
			p.pk[col.Position] = &keyVals{fns: []termFn{f}}
		case schema.Clustering:
			p.ck[col.Position] = &keyVals{fns: []termFn{f}}
		default:
			if col.Kind == schema.Regular {
				hasStaticOnly = false
			}
			if err := checkWritable(col); err != nil {
				return err
			}
			p.ops = append(p.ops, columnOp{col: col, kind: opSet, value: f})
		}
	}
	if err := checkKeyComplete(t, p, hasStaticOnly && len(p.ops) > 0); err != nil {
		return err
	}
	if st.IfNotExists {
		if err := checkConditional(t, p, st.Using, "updates"); err != nil {
			return err
		}
		p.cas = &casSpec{ifNotExists: true}
	}
	c.modify = p
	c.pkIndexes = pkIndexes(c, t, st.Values, st.Columns)
	return nil
}

// pkIndexes returns the bind indexes of the partition key columns when each
// is bound by a marker.
func pkIndexes(c *compiled, t *schema.Table, values []cql.Term, columns []string) []uint16 {
	out := make([]uint16, len(t.PartitionKey))
	for i, pkc := range t.PartitionKey {
		found := false
		for j, n := range columns {
			if n != pkc.Name {
				continue
			}
			if m, ok := values[j].(*cql.BindMarker); ok {
				out[i] = uint16(m.Index)
				found = true
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

// pkIndexesFromWhere does the same for WHERE pk = ? relations.
func pkIndexesFromWhere(t *schema.Table, where []cql.Relation) []uint16 {
	out := make([]uint16, len(t.PartitionKey))
	for i, pkc := range t.PartitionKey {
		found := false
		for _, r := range where {
			if len(r.Columns) == 1 && !r.Tuple && !r.Token && r.Op == cql.OpEq && r.Columns[0] == pkc.Name {
				if m, ok := r.Value.(*cql.BindMarker); ok {
					out[i] = uint16(m.Index)
					found = true
				}
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

func checkWritable(col *schema.Column) error {
	if col.Type.IsMultiCell() && !isCollection(col.Type) && col.Type.Kind != types.UDT {
		return cqlerr.NotImplemented("writing non-frozen " + col.Type.Kind.String() + " columns")
	}
	return nil
}

// checkKeyComplete enforces that the whole primary key is given (the
// clustering may be omitted when only static columns are written).
func checkKeyComplete(t *schema.Table, p *modifyPlan, staticOnly bool) error {
	var missing []string
	for i, f := range p.pk {
		if f == nil {
			missing = append(missing, t.PartitionKey[i].Name)
		}
	}
	if len(missing) > 0 {
		return cqlerr.Invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	missing = nil
	given := 0
	for i, f := range p.ck {
		if f == nil {
			missing = append(missing, t.Clustering[i].Name)
		} else {
			given++
		}
	}
	if len(missing) > 0 {
		if staticOnly && given == 0 {
			p.ck = nil
			return nil
		}
		return cqlerr.Invalidf("Some clustering keys are missing: %s", strings.Join(missing, ", "))
	}
	return nil
}

// errRangeColumns: columns of a range of rows cannot be deleted
// (DeleteStatement.addUpdateForKey).
var errRangeColumns = cqlerr.Invalidf("Range deletions are not supported for specific columns")

// prepareConditions compiles the IF clause of an UPDATE or DELETE (nil
// without one) before the rest of the statement, as Cassandra's
// ModificationStatement.Parsed.prepare does: its errors come first.
func (c *compiled) prepareConditions(t *schema.Table, ifExists bool, conds []cql.Condition, now nowFunc) (*casSpec, error) {
	if !ifExists && len(conds) == 0 {
		return nil, nil
	}
	return c.compileConditions(t, ifExists, conds, now)
}

// regularConditions reports IF conditions on regular columns (an unknown
// column fails later).
func regularConditions(t *schema.Table, conds []cql.Condition) bool {
	return slices.ContainsFunc(conds, func(cd cql.Condition) bool {
		col := t.Column(cd.Column)
		return col != nil && col.Kind == schema.Regular
	})
}

// checkStaticOnly is StatementRestrictions' rule for UPDATE and DELETE:
// a statement whose operations and conditions touch static columns only
// (ModificationStatement.appliesOnlyToStaticColumns) may not restrict the
// clustering ("sounds like you don't really understand what your are
// doing"); an INSERT may. what is "UPDATE" or "DELETE".
func checkStaticOnly(t *schema.Table, p *modifyPlan, conds []cql.Condition, what string) error {
	for _, f := range p.pk {
		if f == nil {
			return nil // a missing partition key part is reported first
		}
	}
	restricted := p.sliced()
	for _, f := range p.ck {
		restricted = restricted || f != nil
	}
	if !restricted {
		return nil
	}
	// A whole-row deletion deletes regular columns (Operations.
	// appliesToRegularColumns of a DELETE without columns).
	regular, static := p.deleteRow, false
	note := func(col *schema.Column) {
		switch {
		case col == nil:
		case col.Kind == schema.Static:
			static = true
		case col.Kind == schema.Regular:
			regular = true
		}
	}
	for _, op := range p.ops {
		note(op.col)
	}
	for _, cd := range conds {
		note(t.Column(cd.Column)) // an unknown column fails later
	}
	if static && !regular {
		return cqlerr.Invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", what)
	}
	return nil
}

// compileWhereKeys compiles the WHERE clause of UPDATE and DELETE: EQ/IN on
// key columns, and for DELETE a clustering prefix plus one slice.
func (c *compiled) compileWhereKeys(p *modifyPlan, where []cql.Relation, allowSlice bool, now nowFunc) error {
	t := p.table
	p.pk = make([]*keyVals, len(t.PartitionKey))
	p.ck = make([]*keyVals, len(t.Clustering))
	token := false
	for _, r := range where {
		if r.Index != nil {
			return cqlerr.Invalidf(msgCustomExprInModify)
		}
		if r.Token {
			// Refused with the partition key's restrictions, after
			// the relations are read (processPartitionKeyRestrictions).
			token = true
			continue
		}
		if r.Tuple {
			if !allowSlice && r.Op != cql.OpEq && r.Op != cql.OpIn {
				return errUpdateSlice
			}
			if _, err := c.compileTupleRelation(t, &p.ckTuple, r, p.ck, now); err != nil {
				return err
			}
			continue
		}
		col, err := columnOf(t, r.Columns[0])
		if err != nil {
			return err
		}
		if !col.IsPrimaryKey() {
			// Reported after the key checks, as Cassandra's
			// StatementRestrictions does (checkNonKey).
			if !slices.Contains(p.nonKey, col) {
				p.nonKey = append(p.nonKey, col)
			}
			continue
		}
		var fns *keyVals
		switch r.Op {
		case cql.OpEq:
			f, err := c.compileTerm(r.Value, spec(t, col.Name, col.Type), now)
			if err != nil {
				return err
			}
			fns = &keyVals{fns: []termFn{f}}
		case cql.OpIn:
			fs, err := c.compileIn(t, col, r, now)
			if err != nil {
				return err
			}
			fns = fs
		case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
			if !allowSlice || col.Kind != schema.Clustering {
				if col.Kind == schema.PartitionKey {
					return cqlerr.Invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", p.statementType())
				}
				return errUpdateSlice
			}
			if err := mergeKeyRestriction(col, p.ck[col.Position], false); err != nil {
				return err
			}
			if p.ckSlice == nil {
				p.ckSlice = &sliceTerms{col: col}
			} else if p.ckSlice.col != col {
				return cqlerr.Invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", col.Name, p.ckSlice.col.Name)
			}
			f, err := c.compileTerm(r.Value, spec(t, col.Name, col.Type), now)
			if err != nil {
				return err
			}
			if err := p.ckSlice.add(r.Op, f); err != nil {
				return err
			}
			continue
		case cql.OpContains, cql.OpContainsKey:
			// Refused by type first, as SingleColumnRelation.
			// newContainsRestriction does.
			if r.Op == cql.OpContainsKey && col.Type.Kind != types.Map {
				return cqlerr.Invalidf("Cannot use CONTAINS KEY on non-map column %s", col.Name)
			}
			if !col.Type.IsCollection() {
				return cqlerr.Invalidf("Cannot use CONTAINS on non-collection column %s", col.Name)
			}
			return cqlerr.Invalidf("Invalid operator %s for PRIMARY KEY column %s", r.Op, col.Name)
		default:
			return cqlerr.Invalidf("Invalid operator %s for PRIMARY KEY column %s", r.Op, col.Name)
		}
		target := p.pk
		if col.Kind == schema.Clustering {
			target = p.ck
		}
		if err := mergeKeyRestriction(col, target[col.Position], p.ckSlice != nil && p.ckSlice.col == col); err != nil {
			return err
		}
		target[col.Position] = fns
	}
	if token {
		return cqlerr.Invalidf("The token function cannot be used in WHERE clauses for %s statements", p.statementType())
	}
	return nil
}

// statementType is Cassandra's StatementType name, as its messages print it.
func (p *modifyPlan) statementType() string {
	if p.isDelete {
		return "DELETE"
	}
	return "UPDATE"
}

// checkNonKey refuses restrictions on columns outside the primary key. It
// runs after the checks of the key's restrictions, in Cassandra's order.
// The columns are listed in Cassandra's column order: regular before
// static, then by name.
func (p *modifyPlan) checkNonKey() error {
	if len(p.nonKey) == 0 {
		return nil
	}
	slices.SortFunc(p.nonKey, func(a, b *schema.Column) int {
		if a.Kind != b.Kind {
			if a.Kind == schema.Regular {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	names := make([]string, len(p.nonKey))
	for i, c := range p.nonKey {
		names[i] = c.Name
	}
	return cqlerr.Invalidf("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(names, ", "))
}

var errUpdateSlice = cqlerr.Invalidf("Slice restrictions are not supported on the clustering columns in UPDATE statements")

// checkClustering checks how the clustering restrictions line up: a
// prefix of = and IN, then at most one slice. It returns the length of
// the prefix, which is all the clustering columns when whole rows are
// named.
func (p *modifyPlan) checkClustering() (int, error) {
	t := p.table
	n := 0
	for n < len(p.ck) && p.ck[n] != nil {
		n++
	}
	if p.ckSlice != nil && p.ckSlice.col.Position < n {
		// A slice and an equality (or IN) on one column: a multi-column
		// one can come after the slice, which mergeKeyRestriction does
		// not see (the statement would drop the slice).
		return 0, mergeKeyRestriction(p.ckSlice.col, nil, true)
	}
	if tr := p.ckTuple; tr != nil {
		var singles []*sliceTerms
		if p.ckSlice != nil {
			singles = append(singles, p.ckSlice)
		}
		singles, err := tr.absorb(singles)
		if err != nil {
			return 0, err
		}
		p.ckSlice = nil
		if len(singles) > 0 {
			p.ckSlice = singles[0]
		}
		if err := tr.checkPlacement(t, p.ck, n, singles, false); err != nil {
			return 0, err
		}
		return n, nil
	}
	for i := n; i < len(p.ck); i++ {
		if p.ck[i] != nil {
			return 0, cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", t.Clustering[i].Name, t.Clustering[n].Name)
		}
	}
	if p.ckSlice != nil && p.ckSlice.col.Position > n {
		return 0, cqlerr.Invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", p.ckSlice.col.Name, t.Clustering[n].Name)
	}
	return n, nil
}

// sliced reports a range of rows: a single- or multi-column slice.
func (p *modifyPlan) sliced() bool {
	return p.ckSlice != nil || p.ckTuple != nil
}

// mergeKeyRestriction refuses a second restriction on a key column as
// Cassandra's single-column restrictions merge, by the kind of the first:
// an equality or an IN (prior, when set) takes no other relation, and a
// slice (sliced) takes no equality or IN.
func mergeKeyRestriction(col *schema.Column, prior *keyVals, sliced bool) error {
	switch {
	case prior != nil && prior.isIN():
		return cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes a IN", col.Name)
	case prior != nil:
		return cqlerr.Invalidf("%s cannot be restricted by more than one relation if it includes an Equal", col.Name)
	case sliced:
		return cqlerr.Invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", col.Name)
	}
	return nil
}

func (s *sliceTerms) add(op cql.Operator, f termFn) error {
	switch op {
	case cql.OpGt, cql.OpGte:
		if s.lower != nil {
			return cqlerr.Invalidf("More than one restriction was found for the start bound on %s", s.col.Name)
		}
		s.lower, s.lowerIncl = f, op == cql.OpGte
	default:
		if s.upper != nil {
			return cqlerr.Invalidf("More than one restriction was found for the end bound on %s", s.col.Name)
		}
		s.upper, s.upperIncl = f, op == cql.OpLte
	}
	return nil
}

func tokenString(r cql.Relation) string {
	return "token(" + strings.Join(r.Columns, ", ") + ")"
}

// compileIn compiles IN (a, b) or IN ? for one column.
func (c *compiled) compileIn(t *schema.Table, col *schema.Column, r cql.Relation, now nowFunc) (*keyVals, error) {
	if r.InMarker != nil {
		c.addMarker(r.InMarker, spec(t, "in("+col.Name+")", types.ListOf(col.Type, false)))
		idx := r.InMarker.Index
		f := func(vals []Value) ([]byte, bool, error) {
			if idx >= len(vals) {
				return nil, false, cqlerr.Invalidf("No value for bound variable %d", idx)
			}
			v := vals[idx]
			if v.Unset {
				return nil, false, cqlerr.Invalidf("Invalid unset value for IN restriction on %s", col.Name)
			}
			if v.B == nil {
				return nil, false, cqlerr.Invalidf("Invalid null value for IN restriction on %s", col.Name)
			}
			return v.B, false, nil
		}
		return &keyVals{fns: []termFn{f}, listMarker: true}, nil
	}
	kv := &keyVals{fns: make([]termFn, 0, len(r.InValues))}
	for _, v := range r.InValues {
		f, err := c.compileTerm(v, spec(t, col.Name, col.Type), now)
		if err != nil {
			return nil, err
		}
		kv.fns = append(kv.fns, f)
	}
	return kv, nil
}

// expandValues evaluates the values of one key column, sorted and without
// duplicates.
func expandValues(col *schema.Column, kv *keyVals, vals []Value) ([][]byte, error) {
	if tr := kv.tuple; tr != nil {
		// The column's components of an IN of tuples (filtered alone when
		// the tuples have one column).
		tuples, err := tr.tuples(vals)
		if err != nil {
			return nil, err
		}
		out := make([][]byte, len(tuples))
		for i, tu := range tuples {
			out[i] = tu[col.Position-tr.start]
		}
		return out, nil
	}
	out := make([][]byte, 0, len(kv.fns))
	for _, f := range kv.fns {
		b, unset, err := f(vals)
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, cqlerr.Invalidf("Invalid unset value for column %s", col.Name)
		}
		if b == nil {
			return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", col.Name)
		}
		if kv.listMarker {
			els, err := types.DecodeCollection(b)
			if err != nil {
				return nil, cqlerr.Invalidf("Invalid list value for IN restriction on %s", col.Name)
			}
			for _, el := range els {
				if err := types.Validate(col.Type, el); err != nil {
					return nil, cqlerr.Invalidf("%s", cqlerr.As(err).Message)
				}
			}
			out = append(out, els...)
			continue
		}
		out = append(out, b)
	}
	if !kv.isIN() {
		return out, nil
	}
	return dedupeSorted(col.Type, out), nil
}

// dedupeSorted sorts values by the column type and removes duplicates, like
// Cassandra does for IN values.
func dedupeSorted(t *types.Type, vs [][]byte) [][]byte {
	if len(vs) < 2 {
		return vs
	}
	sortValues(t, vs)
	out := vs[:1]
	for _, v := range vs[1:] {
		if types.Compare(t, out[len(out)-1], v) != 0 {
			out = append(out, v)
		}
	}
	return out
}

// partitionKeys evaluates the partition key restrictions into serialized
// keys (the cartesian product of IN values).
func partitionKeys(t *schema.Table, pk []*keyVals, vals []Value) ([][]byte, error) {
	comps := make([][][]byte, len(pk))
	for i, fns := range pk {
		vs, err := expandValues(t.PartitionKey[i], fns, vals)
		if err != nil {
			return nil, err
		}
		comps[i] = vs
	}
	combos, err := cartesian(comps)
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, 0, len(combos))
	for _, combo := range combos {
		// Only a single-column key may not be empty.
		size, err := checkKeySize(combo)
		if err != nil {
			return nil, err
		}
		if size == 0 && len(t.PartitionKey) == 1 {
			return nil, cqlerr.Invalidf("Key may not be empty")
		}
		keys = append(keys, mutation.CompositeKey(combo))
	}
	return keys, nil
}

// checkKeySize refuses a partition key or a clustering whose values
// together exceed 65,535 bytes (5.0 counts their sum, and names it;
// InsertInvalidateSizedRecordsTest), and returns that sum.
func checkKeySize(vals [][]byte) (int, error) {
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	if size > 0xFFFF {
		return size, cqlerr.Invalidf("Key length of %d is longer than maximum of %d", size, 0xFFFF)
	}
	return size, nil
}

// maxCartesianBytes bounds what the combinations of one product of IN
// restrictions hold: cartesian's slices and the bytes of their values,
// which the caller turns into keys or bounds, one per combination; the
// rows of a modification's partition keys times its clusterings
// (buildUpdates); a select's clustering prefixes times its tuples
// (tupleSlices). A count alone did not bound them: 2^24 combinations of
// two components took 1.2 GB of slices, and a 64 KB value in an IN list
// of one is copied into every key built from it. Cassandra's
// in_select_cartesian_product guardrail, when set, stops far earlier;
// without it, its heap is what gives out.
const maxCartesianBytes = 64 << 20

// sliceHeader is the size of a slice header.
const sliceHeader = int(unsafe.Sizeof([]byte(nil)))

// boundProduct refuses a product of n combinations that would hold size
// bytes (in float64: a product of IN lists may overflow an int, and an
// overflowing one must be refused, NaN included, never wrap to nothing).
func boundProduct(n, size float64) error {
	if size <= maxCartesianBytes {
		return nil
	}
	var count string
	switch {
	case n < 1e15:
		count = strconv.FormatFloat(n, 'f', 0, 64)
	case n <= math.MaxFloat64:
		count = strconv.FormatFloat(n, 'g', 3, 64)
	default:
		count = "more than 1.8e+308"
	}
	return cqlerr.Invalidf("The cartesian product of the IN restrictions produces %s combinations, more than the %d MiB they may hold", count, maxCartesianBytes>>20)
}

// cartesian returns every combination picking one value per component,
// the last component varying fastest. The combinations share one backing
// array, each capped at its own components (two allocations in all,
// instead of one per combination and component).
func cartesian(comps [][][]byte) ([][][]byte, error) {
	for _, vs := range comps {
		if len(vs) == 0 {
			return nil, nil // an empty IN list selects nothing, whatever the others hold
		}
	}
	n := 1.0
	for _, vs := range comps {
		n *= float64(len(vs))
	}
	if n > 1 { // one combination is no product: the common case
		if err := boundProduct(n, productSize(comps, n)); err != nil {
			return nil, err
		}
	}
	return product(comps, int(n)), nil
}

// boundUpdates refuses a modification whose partition keys times
// clusterings (more than one row) would build more than
// maxCartesianBytes: each row (or range tombstone) is a struct, its
// clustering and its cells, and the storage batch holds every cell again
// with its full key (partition prefix, clustering, column). The cells are
// the same for every row without reads; with reads (cells nil), each row
// is taken to write its operations' values (opBytes). A single row is not
// a product: Cassandra takes one as large as a mutation may be.
func boundUpdates(p *modifyPlan, keys [][]byte, cks [][][]byte, cells, static []mutation.Cell, reads bool, vals []Value) error {
	rows := float64(max(len(cks), 1))
	if float64(len(keys))*rows <= 1 {
		return nil
	}
	const cellKey = 32 // the prefix's table id and token, the column's slot, the value's header
	cellStruct := float64(unsafe.Sizeof(mutation.Cell{}))
	rowStruct := float64(max(unsafe.Sizeof(mutation.Row{}), unsafe.Sizeof(mutation.RangeTombstone{})))
	keyBytes := 0
	for _, k := range keys {
		keyBytes += len(k)
	}
	avgKey := float64(keyBytes) / float64(len(keys))
	// payload is what cells add besides their clustering: struct, bytes,
	// and the key each has in the batch.
	payload := func(cs []mutation.Cell) (n, size float64) {
		for _, c := range cs {
			size += cellStruct + float64(len(c.Value)+len(c.Path)+cellKey) + avgKey
		}
		return float64(len(cs)), size
	}
	ckBytes := 0.0 // of all clusterings
	for _, ck := range cks {
		for _, v := range ck {
			ckBytes += float64(len(v))
		}
	}
	n, rowCells := payload(cells)
	if reads {
		rowCells += opBytes(p, vals)
	}
	_, staticCells := payload(static)
	// One partition key's worth: its update and static cells, then each
	// row with its clustering and cells, each cell's key carrying the
	// clustering again.
	perKey := float64(unsafe.Sizeof(mutation.PartitionUpdate{})) + avgKey + staticCells +
		rows*(rowStruct+rowCells) + ckBytes*(1+n)
	return boundProduct(float64(len(keys))*rows, float64(len(keys))*perKey)
}

// opBytes is what one row of a modification that reads before writing is
// taken to write (boundUpdates): its operations' values and elements,
// with a cell's overhead each. The values the key restrictions use are not
// counted (an IN list is not written into every row).
func opBytes(p *modifyPlan, vals []Value) float64 {
	cell := float64(32 + unsafe.Sizeof(mutation.Cell{})) // key and header in the batch, the struct
	size := 0.0
	for i := range p.ops {
		for _, f := range []termFn{p.ops[i].value, p.ops[i].elem} {
			if f == nil {
				continue
			}
			b, _, err := f(vals)
			if err == nil {
				size += float64(len(b))
			}
		}
		size += cell
	}
	return size
}

// product builds the n combinations of comps (cartesian).
// productSize estimates what n combinations of comps hold: a slice header
// per combination and per component, and the bytes of the values; each
// value of component j is in n/len(comps[j]) combinations.
func productSize(comps [][][]byte, n float64) float64 {
	size := n * float64(sliceHeader*(len(comps)+1))
	for _, vs := range comps {
		sum := 0
		for _, v := range vs {
			sum += len(v)
		}
		if sum > 0 { // Inf*0 is NaN
			size += n / float64(len(vs)) * float64(sum)
		}
	}
	return size
}

func product(comps [][][]byte, n int) [][][]byte {
	w := len(comps)
	out, backing := make([][][]byte, n), make([][]byte, n*w)
	for i := range out {
		combo := backing[i*w : (i+1)*w : (i+1)*w]
		rem := i
		for j := w - 1; j >= 0; j-- {
			vs := comps[j]
			combo[j] = vs[rem%len(vs)]
			rem /= len(vs)
		}
		out[i] = combo
	}
	return out
}

// clusterings evaluates clustering EQ/IN restrictions into clustering
// prefixes.
func clusterings(t *schema.Table, ck []*keyVals, vals []Value) ([][][]byte, error) {
	for _, fns := range ck {
		if fns == nil {
			break
		}
		if fns.tuple != nil {
			return tupleClusterings(t, ck, vals)
		}
	}
	var comps [][][]byte
	for i, fns := range ck {
		if fns == nil {
			break
		}
		vs, err := expandValues(t.Clustering[i], fns, vals)
		if err != nil {
			return nil, err
		}
		comps = append(comps, vs)
	}
	return cartesian(comps)
}

// tupleClusterings is clusterings with multi-column INs in the prefix:
// each is one factor of the product, its tuples giving values to several
// columns at once.
func tupleClusterings(t *schema.Table, ck []*keyVals, vals []Value) ([][][]byte, error) {
	out := [][][]byte{{}}
	for i := 0; i < len(ck) && ck[i] != nil; {
		if tr := ck[i].tuple; tr != nil {
			var err error
			if out, err = tr.clusterings(out, vals); err != nil {
				return nil, err
			}
			i += len(tr.cols)
			continue
		}
		// The run of single columns up to the next tuple.
		var comps [][][]byte
		for ; i < len(ck) && ck[i] != nil && ck[i].tuple == nil; i++ {
			vs, err := expandValues(t.Clustering[i], ck[i], vals)
			if err != nil {
				return nil, err
			}
			comps = append(comps, vs)
		}
		combos, err := cartesian(comps)
		if err != nil {
			return nil, err
		}
		if out, err = joinClusterings(out, combos); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// joinClusterings appends each suffix to each prefix.
func joinClusterings(prefixes, suffixes [][][]byte) ([][][]byte, error) {
	n := float64(len(prefixes)) * float64(len(suffixes))
	if n == 0 {
		return nil, nil
	}
	w := len(prefixes[0]) + len(suffixes[0])
	size := n * float64(sliceHeader*(w+1))
	for _, vs := range [][][][]byte{prefixes, suffixes} {
		sum := 0
		for _, v := range vs {
			for _, b := range v {
				sum += len(b)
			}
		}
		size += n / float64(len(vs)) * float64(sum)
	}
	if err := boundProduct(n, size); err != nil {
		return nil, err
	}
	out := make([][][]byte, 0, int(n))
	for _, pre := range prefixes {
		for _, suf := range suffixes {
			out = append(out, concat(pre, suf...))
		}
	}
	return out, nil
}

func (e *Executor) compileUpdate(c *compiled, s *schema.Schema, st *cql.Update, keyspace string) error {
	t, err := e.modifyTable(s, st.Table, keyspace, st.IfExists || len(st.Conditions) > 0, st.Using.TTL != nil)
	if err != nil {
		return err
	}
	p := &modifyPlan{table: t}
	if err := c.compileUsing(p, st.Using, e.now); err != nil {
		return err
	}
	if err := checkCounterUsing(t, st.Using); err != nil {
		return err
	}
	cs, err := c.prepareConditions(t, st.IfExists, st.Conditions, e.now)
	if err != nil {
		return err
	}
	staticOnly := true
	for _, a := range st.Set {
		col, err := columnOf(t, a.Column)
		if err != nil {
			return err
		}
		if col.IsPrimaryKey() {
			return cqlerr.Invalidf("PRIMARY KEY part %s found in SET part", col.Name)
		}
		if col.Kind == schema.Regular {
			staticOnly = false
		}
		op, err := c.compileAssignment(t, col, a, e.now)
		if err != nil {
			return err
		}
		p.ops = append(p.ops, op)
	}
	if err := c.compileWhereKeys(p, st.Where, false, e.now); err != nil {
		return err
	}
	if err := checkStaticOnly(t, p, st.Conditions, p.statementType()); err != nil {
		return err
	}
	// A condition on a regular column needs the row (ModificationStatement.
	// appliesOnlyToStaticColumns looks at conditions too).
	if err := checkKeyComplete(t, p, staticOnly && len(p.ops) > 0 && !regularConditions(t, st.Conditions)); err != nil {
		return err
	}
	if err := p.checkNonKey(); err != nil {
		return err
	}
	if cs != nil {
		if err := checkConditional(t, p, st.Using, "updates"); err != nil {
			return err
		}
		p.cas = cs
	}
	c.modify = p
	c.pkIndexes = pkIndexesFromWhere(t, st.Where)
	return nil
}

func (e *Executor) compileDelete(c *compiled, s *schema.Schema, st *cql.Delete, keyspace string) error {
	t, err := e.modifyTable(s, st.Table, keyspace, st.IfExists || len(st.Conditions) > 0, false)
	if err != nil {
		return err
	}
	if st.Using.TTL != nil {
		return cqlerr.Invalidf("TTL attribute is not allowed for deletes")
	}
	p := &modifyPlan{table: t}
	if err := c.compileUsing(p, st.Using, e.now); err != nil {
		return err
	}
	if err := checkCounterUsing(t, st.Using); err != nil {
		return err
	}
	cs, err := c.prepareConditions(t, st.IfExists, st.Conditions, e.now)
	if err != nil {
		return err
	}
	staticOnly := true
	for _, tg := range st.Targets {
		col, err := columnOf(t, tg.Column)
		if err != nil {
			return err
		}
		if col.IsPrimaryKey() {
			return cqlerr.Invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", col.Name)
		}
		if tg.Field != "" {
			op, err := compileFieldDeletion(col, tg.Field)
			if err != nil {
				return err
			}
			if col.Kind == schema.Regular {
				staticOnly = false
			}
			p.ops = append(p.ops, op)
			continue
		}
		if col.Kind == schema.Regular {
			staticOnly = false
		}
		if tg.Element != nil {
			op, err := c.compileElementDeletion(t, col, tg.Element, e.now)
			if err != nil {
				return err
			}
			p.ops = append(p.ops, op)
			continue
		}
		if err := checkWritable(col); err != nil {
			return err
		}
		p.ops = append(p.ops, columnOp{col: col, kind: opDelete, delete: true})
	}
	p.deleteRow, p.isDelete = len(st.Targets) == 0, true
	if err := c.compileWhereKeys(p, st.Where, true, e.now); err != nil {
		return err
	}
	if err := checkStaticOnly(t, p, st.Conditions, p.statementType()); err != nil {
		return err
	}
	var missing []string
	for i, f := range p.pk {
		if f == nil {
			missing = append(missing, t.PartitionKey[i].Name)
		}
	}
	if len(missing) > 0 {
		return cqlerr.Invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	// The clustering must be a prefix (plus an optional slice right after it).
	n, err := p.checkClustering()
	if err != nil {
		return err
	}
	if err := p.checkNonKey(); err != nil {
		return err
	}
	// Deleting columns of a range of rows (a slice, a clustering prefix,
	// or no clustering for regular columns) fails when the deletion is
	// built (DeleteStatement.addUpdateForKey), after the other checks.
	rangeColumns := !p.deleteRow && (p.sliced() || n < len(p.ck) && !(staticOnly && n == 0))
	if !p.deleteRow && staticOnly && n == 0 {
		p.ck = nil
	}
	if cs != nil {
		if err := checkConditional(t, p, st.Using, "deletions"); err != nil {
			return err
		}
		if p.sliced() || n < len(t.Clustering) {
			// Not the whole primary key by equalities: only static
			// columns may be deleted and tested (DeleteStatement.Parsed;
			// a whole-row deletion deletes regular columns).
			if p.deleteRow || slices.ContainsFunc(p.ops, func(op columnOp) bool { return op.col.Kind == schema.Regular }) {
				return cqlerr.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")
			}
			if regularConditions(t, st.Conditions) {
				return cqlerr.Invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF condition on non static columns")
			}
		}
		p.cas = cs
	}
	// Cassandra fails while building each range's deletion (so PREPARE
	// succeeds, and ranges that an empty IN list leaves out fail nothing):
	// buildUpdates does.
	p.rangeColumns = rangeColumns
	c.modify = p
	c.pkIndexes = pkIndexesFromWhere(t, st.Where)
	return nil
}

// batchPlan is a compiled BEGIN ... APPLY BATCH sent as a query string.
type batchPlan struct {
	typ       cql.BatchType
	stmts     []*modifyPlan
	timestamp termFn // USING TIMESTAMP of the batch, or nil
}

func (e *Executor) compileBatchStatement(c *compiled, s *schema.Schema, st *cql.Batch, keyspace string) error {
	b := &batchPlan{typ: st.Type}
	if st.Using.TTL != nil {
		return cqlerr.Invalidf("Global TTL on the BATCH statement is not supported.")
	}
	if st.Using.Timestamp != nil {
		f, err := c.compileTerm(st.Using.Timestamp, ColumnSpec{Name: "[timestamp]", Type: types.BigintType}, e.now)
		if err != nil {
			return err
		}
		b.timestamp = f
	}
	if err := checkVirtualBatch(s, st, keyspace); err != nil {
		return err
	}
	for _, inner := range st.Statements {
		var err error
		switch x := inner.(type) {
		case *cql.Insert:
			err = e.compileInsert(c, s, x, keyspace)
		case *cql.Update:
			err = e.compileUpdate(c, s, x, keyspace)
		case *cql.Delete:
			err = e.compileDelete(c, s, x, keyspace)
		default:
			err = cqlerr.Invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		}
		if err != nil {
			return err
		}
		if b.timestamp != nil && c.modify.timestamp != nil {
			return cqlerr.Invalidf("Timestamp must be set either on BATCH or individual statements")
		}
		b.stmts = append(b.stmts, c.modify)
		c.modify = nil
	}
	if b.timestamp != nil {
		for _, p := range b.stmts {
			if p.cas != nil {
				return cqlerr.Invalidf("Cannot provide custom timestamp for conditional BATCH")
			}
		}
		if b.typ == cql.CounterBatch {
			return cqlerr.Invalidf("Cannot provide custom timestamp for counter BATCH")
		}
	}
	c.pkIndexes = nil
	c.batch = b
	return nil
}

// checkVirtualBatch applies BatchStatement's rules for batches that
// include statements on virtual tables, before the statements' own
// checks.
func checkVirtualBatch(s *schema.Schema, st *cql.Batch, keyspace string) error {
	var virtual, regular, conditional bool
	for _, inner := range st.Statements {
		var name cql.QualifiedName
		switch x := inner.(type) {
		case *cql.Insert:
			name, conditional = x.Table, conditional || x.IfNotExists
		case *cql.Update:
			name, conditional = x.Table, conditional || x.IfExists || len(x.Conditions) > 0
		case *cql.Delete:
			name, conditional = x.Table, conditional || x.IfExists || len(x.Conditions) > 0
		default:
			continue
		}
		t, err := resolveTable(s, name, keyspace)
		if err != nil {
			continue // the statement's own compilation reports it
		}
		if schema.IsVirtualKeyspace(t.Keyspace) {
			virtual = true
		} else {
			regular = true
		}
	}
	switch {
	case !virtual:
		return nil
	case st.Type == cql.LoggedBatch:
		return cqlerr.Invalidf("Cannot include a virtual table statement in a logged batch")
	case regular:
		return cqlerr.Invalidf("Mutations for virtual and regular tables cannot exist in the same batch")
	case conditional:
		return cqlerr.Invalidf("Conditional BATCH statements cannot include mutations for virtual tables")
	}
	return nil
}

// executeBatchPlan runs a textual batch: every statement shares the bound
// values of the query.
func (e *Executor) executeBatchPlan(ctx context.Context, b *batchPlan, opts *Options) (*Result, error) {
	bopts := *opts
	if b.timestamp != nil {
		ts, unset, err := evalInt64(b.timestamp, opts.Values)
		if err != nil {
			return nil, err
		}
		if !unset {
			bopts.Timestamp, bopts.HasTimestamp = ts, true
		}
	}
	all := make([]*Options, len(b.stmts))
	for i := range b.stmts {
		all[i] = opts
	}
	return e.executeBatchResult(ctx, b.typ, b.stmts, all, &bopts)
}

// writeParams are the timestamp and TTL of one write.
type writeParams struct {
	ts     int64
	ttl    int32
	nowSec int64
}

func (e *Executor) writeParams(p *modifyPlan, opts *Options) (writeParams, error) {
	w := writeParams{nowSec: e.now().Unix()}
	switch {
	case p.timestamp != nil:
		ts, unset, err := evalInt64(p.timestamp, opts.Values)
		if err != nil {
			return w, err
		}
		if unset {
			w.ts = e.timestamp()
		} else {
			w.ts = ts
		}
	case opts.HasTimestamp:
		w.ts = opts.Timestamp
	default:
		w.ts = e.timestamp()
	}
	if w.ts == math.MinInt64 {
		// Cassandra's UpdateParameters: Long.MIN_VALUE means "no
		// timestamp" in its storage.
		return w, cqlerr.Invalidf("Out of bound timestamp, must be in [%d, %d]", int64(math.MinInt64+1), int64(math.MaxInt64))
	}
	w.ttl = p.table.Params.DefaultTimeToLive
	if p.ttl != nil {
		ttl, unset, err := evalInt32(p.ttl, opts.Values)
		if err != nil {
			return w, err
		}
		if !unset {
			if ttl < 0 {
				return w, cqlerr.Invalidf("A TTL must be greater or equal to 0, but was %d", ttl)
			}
			if ttl > maxTTL {
				return w, cqlerr.Invalidf("ttl is too large. requested (%d) maximum (%d)", ttl, maxTTL)
			}
			w.ttl = ttl
		}
	}
	return w, nil
}

// buildUpdates evaluates a modify plan into partition updates. When the
// plan reads before writing (counters, list index operations, list element
// removal), the caller must hold the locks of the plan's partitions.
func (e *Executor) buildUpdates(ctx context.Context, p *modifyPlan, opts *Options, w writeParams) ([]*mutation.PartitionUpdate, error) {
	t := p.table
	keys, err := partitionKeys(t, p.pk, opts.Values)
	if err != nil {
		return nil, err
	}
	var cks [][][]byte
	// ranges are the range deletions of a DELETE, the same in every
	// partition: evaluated once.
	var ranges []mutation.Slice
	if p.ck != nil {
		cks, err = clusterings(t, p.ck, opts.Values)
		if err != nil {
			return nil, err
		}
		if len(cks) == 0 {
			// An empty IN list on a clustering column: nothing to write,
			// not even the static columns set (ModificationStatement.
			// addUpdates returns when the clusterings are empty).
			return nil, nil
		}
		for _, ck := range cks {
			// A row's clustering, for writes and row deletions alike.
			if len(ck) == len(t.Clustering) {
				if _, err := checkKeySize(ck); err != nil {
					return nil, err
				}
			}
		}
		if p.deleteRow || p.rangeColumns {
			for _, ck := range cks {
				if len(ck) == len(t.Clustering) && !p.sliced() {
					continue // a row, not a range
				}
				sls, err := p.ranges(ck, opts.Values)
				if err != nil {
					return nil, err
				}
				ranges = append(ranges, sls...)
			}
		}
		if p.rangeColumns && len(keys) > 0 {
			// Unless every range is empty.
			if len(ranges) > 0 {
				return nil, errRangeColumns
			}
			return nil, nil
		}
	}
	expiry := mutation.NoDeletion
	if w.ttl > 0 {
		expiry = w.nowSec + int64(w.ttl)
	}
	reads := p.needsRead()
	// Without reads the cells are the same for every row.
	var cells, staticCells []mutation.Cell
	if !reads {
		if cells, staticCells, err = e.rowCells(p, opts.Values, w, nil); err != nil {
			return nil, err
		}
	}
	if err := boundUpdates(p, keys, cks, cells, staticCells, reads, opts.Values); err != nil {
		return nil, err
	}
	deletion := mutation.Deletion{MarkedForDeleteAt: w.ts, LocalDeletionTime: w.nowSec}
	var out []*mutation.PartitionUpdate
	for _, key := range keys {
		u := &mutation.PartitionUpdate{TableID: t.ID, Key: key, Token: e.cfg.Partitioner.Token(key), Deletion: mutation.Live}
		var cur *mutation.Partition
		if reads {
			if cur, err = e.readCurrent(ctx, t, NodeLocal, key, u.Token, cks, w.nowSec); err != nil {
				return nil, err
			}
			if p.ck == nil || len(t.Clustering) == 0 || len(cks) == 1 && len(cks[0]) == 0 && len(t.Clustering) > 0 {
				// Static-only (or no read of rows needed for the statics).
				var row []mutation.Cell
				if len(t.Clustering) == 0 {
					row = currentCells(t, cur, nil)
				}
				if cells, staticCells, err = e.rowCells(p, opts.Values, w, &currentRow{cells: row, static: staticOf(cur)}); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case p.deleteRow && len(cks) == 1 && len(cks[0]) == 0 && !p.sliced():
			// DELETE with only the partition key: the whole partition.
			u.Deletion = deletion
		case p.deleteRow:
			for _, ck := range cks {
				if len(ck) == len(t.Clustering) && !p.sliced() {
					u.Rows = append(u.Rows, mutation.Row{Clustering: ck, Marker: mutation.NoLiveness, Deletion: deletion})
				}
			}
			for _, sl := range ranges {
				u.RangeTombstones = append(u.RangeTombstones, mutation.RangeTombstone{Slice: sl, Deletion: deletion})
			}
		default:
			first := true
			for _, ck := range cks {
				if len(ck) == 0 && len(t.Clustering) > 0 {
					continue // static-only write
				}
				rowCells := cells
				if reads && len(t.Clustering) > 0 {
					rc, sc, err := e.rowCells(p, opts.Values, w, &currentRow{cells: currentCells(t, cur, ck), static: staticOf(cur)})
					if err != nil {
						return nil, err
					}
					rowCells = rc
					if first {
						staticCells = sc
					}
				}
				first = false
				row := mutation.Row{Clustering: ck, Marker: mutation.NoLiveness, Deletion: mutation.Live, Cells: rowCells}
				if p.insert {
					row.Marker = mutation.Liveness{Timestamp: w.ts, LocalDeletionTime: mutation.NoDeletion}
					if w.ttl > 0 {
						row.Marker.TTL, row.Marker.LocalDeletionTime = w.ttl, expiry
					}
				}
				if len(row.Cells) == 0 && !p.insert {
					continue
				}
				u.Rows = append(u.Rows, row)
			}
		}
		if len(staticCells) > 0 {
			u.Static = &mutation.Row{Marker: mutation.NoLiveness, Deletion: mutation.Live, Cells: staticCells}
		}
		if u.Static == nil && len(u.Rows) == 0 && u.Deletion.IsLive() && len(u.RangeTombstones) == 0 {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// ranges returns the ranges of rows a DELETE names after the clustering
// prefix ck, less the empty ones (Cassandra's ModificationStatement
// drops them).
func (p *modifyPlan) ranges(ck [][]byte, vals []Value) ([]mutation.Slice, error) {
	var out []mutation.Slice
	if p.ckTuple != nil {
		lower, upper, err := p.ckTuple.bounds(vals)
		if err != nil {
			return nil, err
		}
		out = p.ckTuple.appendRanges(nil, ck, lower, upper)
	} else {
		sl, err := deleteSlice(p.table, ck, p.ckSlice, vals)
		if err != nil {
			return nil, err
		}
		out = append(out, sl)
	}
	return dropEmptySlices(p.table, out), nil
}

// deleteSlice builds the clustering slice of a range delete: the prefix ck
// plus an optional slice on the next column.
func deleteSlice(t *schema.Table, ck [][]byte, st *sliceTerms, vals []Value) (mutation.Slice, error) {
	sl := mutation.Slice{Start: mutation.Bound{Values: ck, Inclusive: true}, End: mutation.Bound{Values: ck, Inclusive: true}}
	if st == nil {
		return sl, nil
	}
	eval := func(f termFn) ([]byte, error) {
		b, unset, err := f(vals)
		if err != nil {
			return nil, err
		}
		if unset || b == nil {
			return nil, cqlerr.Invalidf("Invalid null value in condition for column %s", st.col.Name)
		}
		return b, nil
	}
	lo, hi := mutation.Bound{Values: ck, Inclusive: true}, mutation.Bound{Values: ck, Inclusive: true}
	if st.lower != nil {
		v, err := eval(st.lower)
		if err != nil {
			return sl, err
		}
		lo = mutation.Bound{Values: appendClone(ck, v), Inclusive: st.lowerIncl}
	}
	if st.upper != nil {
		v, err := eval(st.upper)
		if err != nil {
			return sl, err
		}
		hi = mutation.Bound{Values: appendClone(ck, v), Inclusive: st.upperIncl}
	}
	if st.col.Desc {
		lo, hi = hi, lo
	}
	sl.Start, sl.End = lo, hi
	return sl, nil
}

func appendClone(prefix [][]byte, v []byte) [][]byte {
	out := make([][]byte, len(prefix), len(prefix)+1)
	copy(out, prefix)
	return append(out, v)
}

func (e *Executor) executeModify(ctx context.Context, c *compiled, opts *Options) (*Result, error) {
	p := c.modify
	if err := checkWriteConsistency(p, opts); err != nil {
		return nil, err
	}
	if p.cas != nil {
		return e.executeCAS(ctx, []*modifyPlan{p}, []*Options{opts}, opts, false /* batch */)
	}
	if p.needsRead() {
		unlock, err := e.lockPlans(ctx, []*modifyPlan{p}, []*Options{opts})
		if err != nil {
			return nil, err
		}
		defer unlock()
		ctx = withPartitionsLocked(ctx)
	}
	w, err := e.writeParams(p, opts)
	if err != nil {
		return nil, err
	}
	ups, err := e.buildUpdates(ctx, p, opts, w)
	if err != nil {
		return nil, err
	}
	if len(ups) == 0 {
		return &Result{Kind: VoidResult}, nil
	}
	if err := e.mutate(ctx, p.table, Consistency(opts.Consistency), ups); err != nil {
		return nil, err
	}
	return &Result{Kind: VoidResult}, nil
}

// lockPlans takes the partition locks of every partition the plans write.
func (e *Executor) lockPlans(ctx context.Context, plans []*modifyPlan, opts []*Options) (func(), error) {
	var refs []PartitionRef
	if plans[0].table.IsCounter {
		tracing.Trace(ctx, tracing.RequestThread, "Acquiring counter locks")
	}
	for i, p := range plans {
		keys, err := partitionKeys(p.table, p.pk, opts[i].Values)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			refs = append(refs, PartitionRef{TableID: p.table.ID, Key: k})
		}
	}
	return e.cfg.Coordinator.LockPartitions(ctx, refs)
}

// executeBatchResult applies the statements of a batch, grouped by table.
// Every statement without its own timestamp uses the batch's. Conditional
// batches go through executeCAS; batches that read before writing
// (counters, list index operations) hold the partition locks and apply
// statement by statement, so that each one reads what the previous wrote
// (two increments of one counter in a batch both count, as in Cassandra).
func (e *Executor) executeBatchResult(ctx context.Context, typ cql.BatchType, stmts []*modifyPlan, opts []*Options, bopts *Options) (*Result, error) {
	batchTS := e.timestamp()
	if bopts.HasTimestamp {
		batchTS = bopts.Timestamp
	}
	// BatchStatement.validate (the USING TIMESTAMP checks of a textual
	// batch ran when it was compiled).
	conditional, reads := false, false
	hasCounters, hasNonCounters := false, false
	for _, p := range stmts {
		if p.table.IsCounter {
			hasCounters = true
		} else {
			hasNonCounters = true
		}
		if p.cas != nil {
			conditional = true
		}
		if p.needsRead() {
			reads = true
		}
	}
	switch {
	case typ == cql.CounterBatch && hasNonCounters:
		return nil, cqlerr.Invalidf("Cannot include non-counter statement in a counter batch")
	case hasCounters && hasNonCounters:
		return nil, cqlerr.Invalidf("Counter and non-counter mutations cannot exist in the same batch")
	case typ == cql.LoggedBatch && hasCounters:
		return nil, cqlerr.Invalidf("Cannot include a counter statement in a logged batch")
	}
	for _, p := range stmts {
		if err := checkWriteConsistency(p, bopts); err != nil {
			return nil, err
		}
	}
	if conditional {
		return e.executeCAS(ctx, stmts, opts, bopts, true /* batch */)
	}
	if reads {
		unlock, err := e.lockPlans(ctx, stmts, opts)
		if err != nil {
			return nil, err
		}
		defer unlock()
		ctx = withPartitionsLocked(ctx)
	}
	build := func(i int) ([]*mutation.PartitionUpdate, error) {
		p := stmts[i]
		o := *opts[i]
		if !o.HasTimestamp && !p.table.IsCounter {
			o.Timestamp, o.HasTimestamp = batchTS, true
		}
		w, err := e.writeParams(p, &o)
		if err != nil {
			return nil, err
		}
		return e.buildUpdates(ctx, p, &o, w)
	}
	// Evaluate every statement before writing anything, so that a
	// rejected batch writes nothing. Statements that read before writing
	// are built again, one by one, below: each must see what the previous
	// ones wrote.
	var tables []batchTable
	index := map[*schema.Table]int{}
	for i, p := range stmts {
		ups, err := build(i)
		if err != nil {
			return nil, err
		}
		j, ok := index[p.table]
		if !ok {
			j = len(tables)
			index[p.table] = j
			tables = append(tables, batchTable{t: p.table})
		}
		tables[j].ups = append(tables[j].ups, ups...)
	}
	warns, err := e.checkBatch(typ, tables)
	if err != nil {
		return nil, err
	}
	if len(stmts) > 1 {
		// Every table's updates are checked before the first is written
		// (their values, then the replicas their keyspace has alive), as
		// Cassandra validates every mutation first: a batch written
		// table by table (or, when it reads, statement by statement) must
		// not fail half-way. (Each table's index updates are built again
		// when it is written; a single statement checks itself. For a
		// batch that reads, the first pass's updates stand in for the
		// second's: they index the same written values.)
		for _, bt := range tables {
			if _, err := prepareWrites(bt.t, bt.ups); err != nil {
				return nil, err
			}
		}
		for _, bt := range tables {
			if err := e.cfg.Coordinator.CheckWrite(bt.t, Consistency(bopts.Consistency)); err != nil {
				return nil, err
			}
		}
	}
	if reads {
		for i, p := range stmts {
			ups, err := build(i)
			if err != nil {
				return nil, err
			}
			if len(ups) > 0 {
				if err := e.mutate(ctx, p.table, Consistency(bopts.Consistency), ups); err != nil {
					return nil, err
				}
			}
		}
		return &Result{Kind: VoidResult, Warnings: warns}, nil
	}
	for _, bt := range tables {
		if len(bt.ups) == 0 {
			continue
		}
		if err := e.mutate(ctx, bt.t, Consistency(bopts.Consistency), bt.ups); err != nil {
			return nil, err
		}
	}
	return &Result{Kind: VoidResult, Warnings: warns}, nil
}
