package query

import (
	"bytes"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// This file shapes the rows a SELECT read returns: projection through the
// selectors, aggregation (with GROUP BY on a primary-key prefix) and
// SELECT JSON.

// compileGroupBy checks GROUP BY with Cassandra's rules: the columns must be
// a prefix of the primary key in declaration order, where columns
// restricted by an equality may be skipped.
func (p *selectPlan) compileGroupBy(c *compiled, st *cql.Select) error {
	if len(st.GroupBy) == 0 {
		return nil
	}
	t := p.table
	var pkCols []*schema.Column
	pkCols = append(pkCols, t.PartitionKey...)
	pkCols = append(pkCols, t.Clustering...)
	eqRestricted := func(col *schema.Column) bool {
		var kv *keyVals
		if col.Kind == schema.PartitionKey && p.pk != nil {
			kv = p.pk[col.Position]
		} else if col.Kind == schema.Clustering && col.Position < len(p.ck) {
			kv = p.ck[col.Position]
		}
		return kv != nil && !kv.isIN()
	}
	pos := 0
	for gi, g := range st.GroupBy {
		cs, ok := g.(*cql.ColumnSel)
		if _, isFn := g.(*cql.FunctionSel); isFn {
			if gi != len(st.GroupBy)-1 {
				return cqlerr.Invalidf("Functions are only supported on the last element of the GROUP BY clause")
			}
			if cs, ok = monotonicColumn(g); !ok {
				return cqlerr.Invalidf("Only monotonic functions are supported in the GROUP BY clause. Got: %s", groupFnText(t, g))
			}
			e, err := (&selCompiler{c: c, t: t, now: p.now}).compile(g)
			if err != nil {
				return err
			}
			p.groupFn = e
		} else if !ok {
			return cqlerr.Invalidf("Only column names and monotonic scalar functions are supported in the GROUP BY clause.")
		}
		col, err := columnOf(t, cs.Name)
		if err != nil {
			return err
		}
		if !col.IsPrimaryKey() {
			return cqlerr.Invalidf("Group by is currently only supported on the columns of the PRIMARY KEY, got %s", col.Name)
		}
		for pos < len(pkCols) && pkCols[pos] != col && eqRestricted(pkCols[pos]) {
			pos++
		}
		if pos >= len(pkCols) || pkCols[pos] != col {
			return cqlerr.Invalidf("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
		}
		pos++
		p.groupBy = append(p.groupBy, col)
	}
	if pos < len(pkCols) && pkCols[pos].Kind == schema.PartitionKey {
		return cqlerr.Invalidf("Group by is not supported on only a part of the partition key")
	}
	if p.distinct {
		for _, c := range p.groupBy {
			if c.Kind == schema.Clustering {
				return cqlerr.Invalidf("Grouping on clustering columns is not allowed for SELECT DISTINCT queries")
			}
		}
	}
	return nil
}

// monotonicFns are the native functions Cassandra declares monotonic
// (TimeFcts' conversions), which GROUP BY may apply to its last column.
var monotonicFns = map[string]bool{
	"to_timestamp": true, "totimestamp": true, "to_date": true, "todate": true,
	"to_unix_timestamp": true, "tounixtimestamp": true,
}

// monotonicColumn returns the column under a GROUP BY function whose order
// the function keeps: monotonic functions of one argument, and floor, which
// is monotonic in its first argument when the others are constants.
func monotonicColumn(g cql.SelectorExpr) (*cql.ColumnSel, bool) {
	switch x := g.(type) {
	case *cql.ColumnSel:
		return x, true
	case *cql.FunctionSel:
		name := strings.ToLower(x.Name.Name)
		if x.Star || len(x.Args) == 0 || x.Name.Keyspace != "" && !strings.EqualFold(x.Name.Keyspace, "system") {
			return nil, false
		}
		switch {
		case monotonicFns[name] && len(x.Args) == 1:
		case name == "floor" && len(x.Args) >= 2:
			for _, a := range x.Args[1:] {
				if _, ok := a.(*cql.TermSel); !ok {
					return nil, false
				}
			}
		default:
			return nil, false
		}
		return monotonicColumn(x.Args[0])
	}
	return nil, false
}

// groupFnText prints a GROUP BY function Cassandra refuses as its
// Function.toString does for floor, "system.floor : (timestamp,
// duration(constant), timestamp) -> timestamp", else as written.
func groupFnText(t *schema.Table, g cql.SelectorExpr) string {
	fs, ok := g.(*cql.FunctionSel)
	if !ok || !strings.EqualFold(fs.Name.Name, "floor") || len(fs.Args) < 2 {
		return cql.FormatSelector(g)
	}
	in := ""
	if cs, ok := fs.Args[0].(*cql.ColumnSel); ok {
		if col := t.Column(cs.Name); col != nil {
			in = col.Type.String()
		}
	}
	if in == "" {
		return cql.FormatSelector(g)
	}
	args := []string{in}
	for i, a := range fs.Args[1:] {
		typ := "duration"
		if i == 1 {
			typ = in
		}
		if _, ok := a.(*cql.TermSel); ok {
			typ += "(constant)"
		}
		args = append(args, typ)
	}
	return "system.floor : (" + strings.Join(args, ", ") + ") -> " + in
}

// project computes one output row from each of the input rows picked by
// at(0..n-1). The output rows share one allocation, each capped at its own
// columns.
func (p *selectPlan) project(ctx *evalCtx, n int, at func(i int) *outRow) ([][][]byte, error) {
	w := len(p.selectors)
	rows, vals := make([][][]byte, n), make([][]byte, n*w)
	for i := range rows {
		out := vals[i*w : (i+1)*w : (i+1)*w]
		ctx.row = at(i)
		for j, s := range p.selectors {
			s.node.reset()
			if err := s.node.add(ctx); err != nil {
				return nil, err
			}
			v, err := s.node.out(ctx)
			if err != nil {
				return nil, err
			}
			out[j] = v
		}
		rows[i] = out
	}
	return rows, nil
}

// groupKey returns the GROUP BY values of a row.
// A function's error (a floor the duration cannot compute) fails the query,
// as Cassandra's does.
func (p *selectPlan) groupKey(r *outRow, vals []Value) ([][]byte, error) {
	k := make([][]byte, len(p.groupBy))
	for i, c := range p.groupBy {
		k[i] = r.value(p.table, c)
	}
	if p.groupFn != nil {
		ctx := &evalCtx{t: p.table, row: r, now: p.now, vals: vals}
		defer p.groupFn.node.reset() // the node starts reset
		if err := p.groupFn.node.add(ctx); err != nil {
			return nil, err
		}
		v, err := p.groupFn.node.out(ctx)
		if err != nil {
			return nil, err
		}
		k[len(k)-1] = v
	}
	return k, nil
}

func sameKey(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) || (a[i] == nil) != (b[i] == nil) {
			return false
		}
	}
	return true
}

// aggregateRows folds the rows into one row per group (one row in all
// without GROUP BY, even when there are no rows).
func (p *selectPlan) aggregateRows(ctx *evalCtx, rows []outRow) ([][][]byte, []int, error) {
	var out [][][]byte
	var lastRow []int // index in rows of each output row's last input row
	lastIdx := -1
	reset := func() {
		for _, s := range p.selectors {
			s.node.reset()
		}
	}
	emit := func() error {
		row := make([][]byte, len(p.selectors))
		for i, s := range p.selectors {
			v, err := s.node.out(ctx)
			if err != nil {
				return err
			}
			row[i] = v
		}
		out = append(out, row)
		lastRow = append(lastRow, lastIdx)
		return nil
	}
	reset()
	var cur [][]byte
	for i := range rows {
		ctx.row = &rows[i]
		if len(p.groupBy) > 0 {
			k, err := p.groupKey(&rows[i], ctx.vals)
			if err != nil {
				return nil, nil, err
			}
			if i > 0 && !sameKey(k, cur) {
				if err := emit(); err != nil {
					return nil, nil, err
				}
				reset()
			}
			cur = k
		}
		for _, s := range p.selectors {
			if err := s.node.add(ctx); err != nil {
				return nil, nil, err
			}
		}
		lastIdx = i
	}
	ctx.row = &outRow{}
	if len(rows) > 0 || len(p.groupBy) == 0 {
		if err := emit(); err != nil {
			return nil, nil, err
		}
	}
	reset()
	return out, lastRow, nil
}

// finish applies SELECT JSON: each row becomes one JSON object text.
func (p *selectPlan) finish(res *Result) *Result {
	if !p.json {
		return res
	}
	for i, row := range res.Rows {
		var b strings.Builder
		b.WriteByte('{')
		for j, s := range p.selectors {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(types.ToJSON(types.TextType, []byte(jsonKey(s.name))))
			b.WriteString(": ")
			if v := row[j]; v != nil && len(v) == 0 {
				// Selection.rowToJson: an empty value of any type is "".
				b.WriteString(`""`)
				continue
			}
			b.WriteString(types.ToJSON(s.typ, row[j]))
		}
		b.WriteByte('}')
		res.Rows[i] = [][]byte{[]byte(b.String())}
	}
	return res
}

// jsonKey is how Cassandra names a column in SELECT JSON: names that need
// quoting in CQL keep their double quotes.
func jsonKey(name string) string {
	if name != strings.ToLower(name) {
		return `"` + name + `"`
	}
	return name
}
