package advisor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// maxINPartitions is the number of partitions one IN may name before the
// coordinator's fan-out is worth a warning.
const maxINPartitions = 10

type stmtRef struct {
	t *schema.Table
	q string
	d *cql.Delete
}

// checkQueries runs the workload's queries through the query layer's own
// compilation: its restriction analysis decides what a table can answer.
func (a *analyzer) checkQueries() {
	var standalone, deletes []stmtRef
	for _, q := range a.workload.Queries {
		st, err := cql.Parse(q)
		if err != nil {
			a.add("invalid-statement", "", q, cqlerr.As(err).Message, "Fix the syntax.")
			continue
		}
		if b, ok := st.(*cql.Batch); ok {
			a.checkBatch(q, b)
			for _, s := range b.Statements {
				if d := a.checkStatement(cql.Format(s), s); d != nil && d.d != nil {
					deletes = append(deletes, *d)
				}
			}
			continue
		}
		ref := a.checkStatement(q, st)
		if ref == nil {
			continue
		}
		if ref.d != nil {
			deletes = append(deletes, *ref)
		}
		if !ref.t.IsCounter {
			standalone = append(standalone, *ref)
		}
	}
	a.checkDeletes(deletes)
	a.checkMultiTableWrites(standalone)
}

// checkStatement checks one statement; for writes it returns the table
// written (and the DELETE).
func (a *analyzer) checkStatement(q string, st cql.Statement) *stmtRef {
	t := a.tableOf(st)
	tname := ""
	if t != nil {
		tname = qualified(t)
	} else if n, ok := stmtTable(st); ok {
		tname = n.Name
		if ks := n.Keyspace; ks != "" || a.sess.Keyspace != "" {
			if ks == "" {
				ks = a.sess.Keyspace
			}
			tname = ks + "." + n.Name
		}
	}
	_, err := a.exec.Prepare(a.ctx, a.sess, q, "")
	sel, _ := st.(*cql.Select)
	var ix *index
	if sel != nil {
		ix = a.indexAccess(t, sel)
	}
	if err != nil {
		msg := cqlerr.As(err).Message
		if ix != nil && strings.Contains(msg, "ALLOW FILTERING") {
			a.indexFinding(t, q, ix)
			a.fact(t).selects = true
			return nil
		}
		a.queryError(tname, q, st, err)
		return nil
	}
	if t == nil {
		return nil
	}
	facts := a.fact(t)
	tw := a.tableWorkload(t)
	switch s := st.(type) {
	case *cql.Select:
		facts.selects = true
		if ix != nil {
			a.indexFinding(t, q, ix)
		} else if s.AllowFiltering {
			cp := *s
			cp.AllowFiltering = false
			if _, err := a.exec.Prepare(a.ctx, a.sess, cql.Format(&cp), ""); err != nil {
				a.add("allow-filtering", tname, q,
					"The query needs ALLOW FILTERING: it scans and discards rows instead of reading one partition slice.",
					"Create a table whose primary key answers this query (one table per query), filled at write time.")
			}
		}
		if len(s.OrderBy) > 0 {
			if col := t.Column(s.OrderBy[0].Column); col != nil && col.Kind == schema.Clustering && col.Desc != s.OrderBy[0].Desc {
				a.add("sort-order-mismatch", tname, q,
					"The query orders the opposite way of the table's clustering order; reading in reverse is slower.",
					"Declare WITH CLUSTERING ORDER BY in the order this query reads.")
			}
		}
		if s.Limit != nil || s.PerPartitionLimit != nil {
			facts.limitedReads = true
		}
		if isCount(s) {
			a.add("count-instead-of-counter", tname, q,
				"COUNT reads every row it counts, on every query.",
				"Maintain the count at write time in a counter table (UPDATE user_stats SET order_count = order_count + 1 WHERE user_id = ?).")
		}
		a.checkIN(t, q, s)
		a.checkWideRead(t, q, s)
		a.checkManualComposite(t, q, s.Where)
	case *cql.Insert:
		if s.Using.TTL != nil {
			facts.ttlWrites = true
		}
		return &stmtRef{t: t, q: q}
	case *cql.Update:
		if s.Using.TTL != nil {
			facts.ttlWrites = true
		}
		counter := false
		for _, as := range s.Set {
			c := t.Column(as.Column)
			if c == nil {
				continue
			}
			if _, seen := facts.updatedColumns[c.Name]; !seen {
				facts.updatedColumns[c.Name] = q
			}
			switch {
			case c.Type.Kind == types.Counter:
				counter = true
			case as.Field != "":
				a.add("udt-field-update", tname, q,
					fmt.Sprintf("The query updates field %s of UDT column %s in place.", as.Field, c.Name),
					fmt.Sprintf("Declare %s frozen and write the whole value.", c.Name))
			case c.Type.IsCollection() && (as.Op == '+' || as.Op == 'p' || as.Element != nil) && tw.CollectionElements[c.Name] == 0:
				a.add("collection-growth", tname, q,
					fmt.Sprintf("The query adds elements to collection %s: nothing bounds how many it will hold, and collections are read whole.", c.Name),
					fmt.Sprintf("Give collection_elements: {%s: N} in the workload; if it can exceed ~100, store the elements as rows of a clustering column.", c.Name))
			}
		}
		if counter {
			a.add("counter-not-idempotent", tname, q,
				"Counter increments are not idempotent: a retried increment after a timeout may count twice.",
				"Accept approximate counts, or record each event (e.g. user ids per item) and count them; correct the counter from them periodically.")
		}
		return &stmtRef{t: t, q: q}
	case *cql.Delete:
		facts.deletes = true
		return &stmtRef{t: t, q: q, d: s}
	}
	return nil
}

func isCount(s *cql.Select) bool {
	for _, sel := range s.Selectors {
		if f, ok := sel.Expr.(*cql.FunctionSel); ok && strings.EqualFold(f.Name.Name, "count") {
			return true
		}
	}
	return false
}

// restricted returns the operator restricting each column of the query.
func restricted(s []cql.Relation) map[string]cql.Relation {
	out := map[string]cql.Relation{}
	for _, r := range s {
		if r.Token {
			continue
		}
		for _, c := range r.Columns {
			out[c] = r
		}
	}
	return out
}

// checkManualComposite notes key values built by concatenation (seed 003:
// "ddmmyyhh|eventtype" as a string instead of a composite key).
func (a *analyzer) checkManualComposite(t *schema.Table, q string, where []cql.Relation) {
	for _, r := range where {
		lit, ok := r.Value.(*cql.Literal)
		if !ok || lit.Kind != cql.LitString || len(r.Columns) != 1 || !strings.Contains(lit.Text, "|") {
			continue
		}
		if c := t.Column(r.Columns[0]); c != nil && c.IsPrimaryKey() {
			a.add("manual-composite-key", qualified(t), q,
				fmt.Sprintf("Key column %s holds a concatenated value ('%s'): its parts sort as one string, not by their own types, and cannot be ranged or reversed separately.", c.Name, lit.Text),
				fmt.Sprintf("Split %s into one key column per part (a composite partition key, or clustering columns).", c.Name))
			return
		}
	}
}

// checkIN warns when an IN on the partition key names many partitions.
func (a *analyzer) checkIN(t *schema.Table, q string, s *cql.Select) {
	rs := restricted(s.Where)
	n, unknown, in := 1, false, false
	for _, c := range t.PartitionKey {
		r, ok := rs[c.Name]
		if !ok || r.Op != cql.OpIn {
			continue
		}
		in = true
		if r.InMarker != nil {
			unknown = true
		} else {
			n *= len(r.InValues)
		}
	}
	switch {
	case !in:
	case unknown:
		a.addSev("in-many-partitions", Info, qualified(t), q,
			"IN on the partition key: the coordinator reads one partition per value, often on different nodes, and waits for the slowest.",
			fmt.Sprintf("Keep the list short (a few values); for many keys run one query per partition concurrently. Over %d partitions is a warning.", maxINPartitions))
	case n > maxINPartitions:
		a.add("in-many-partitions", qualified(t), q,
			fmt.Sprintf("IN on the partition key names %d partitions: the coordinator reads them all, on many nodes, and waits for the slowest.", n),
			"Run one query per partition concurrently from the client, or design a table that holds these rows in one partition.")
	}
}

// checkWideRead notes reads of a whole partition that is unbounded or over
// the 10 MB target.
func (a *analyzer) checkWideRead(t *schema.Table, q string, s *cql.Select) {
	if len(t.Clustering) == 0 || s.Limit != nil || s.PerPartitionLimit != nil || !partitionKeyRestricted(t, s) {
		return
	}
	rs := restricted(s.Where)
	for _, c := range t.Clustering {
		if _, ok := rs[c.Name]; ok {
			return
		}
	}
	est := a.estimates[qualified(t)]
	size := est.PartitionSizeBytes
	if est.MaxPartitionSizeBytes > size {
		size = est.MaxPartitionSizeBytes
	}
	if est.Bounded && size <= targetPartitionBytes {
		return
	}
	what := "an unbounded partition"
	if est.Bounded {
		what = "a partition of " + humanBytes(size)
	}
	a.add("wide-partition-read", qualified(t), q,
		fmt.Sprintf("The query reads %s whole (no LIMIT, no clustering range).", what),
		"Read a slice: restrict the clustering columns (e.g. a time range) and add a LIMIT; page through the rest.")
}

// indexAccess returns the index a SELECT reaches its rows through when it
// does not give the whole partition key.
func (a *analyzer) indexAccess(t *schema.Table, s *cql.Select) *index {
	if t == nil || partitionKeyRestricted(t, s) {
		return nil
	}
	ixs := a.indexes[qualified(t)]
	for _, r := range s.Where {
		if r.Token || len(r.Columns) != 1 {
			continue
		}
		switch r.Op {
		case cql.OpEq, cql.OpContains, cql.OpContainsKey, cql.OpIn:
		default:
			continue
		}
		for i := range ixs {
			if ixs[i].column == r.Columns[0] {
				return &ixs[i]
			}
		}
	}
	return nil
}

func (a *analyzer) indexFinding(t *schema.Table, q string, ix *index) {
	c := t.Column(ix.column)
	sev := Severity("")
	msg := fmt.Sprintf("The query finds its rows through secondary index %s on %s, without the partition key: every node is asked.", ix.name, ix.column)
	if cardinality(c, a.tableWorkload(t)) < 0 {
		sev = Info
		msg += " Acceptable for a low-cardinality column on an infrequent query (seed 004's source_type), but never as the main access path."
	}
	a.addSev("secondary-index-primary-access", sev, qualified(t), q, msg,
		fmt.Sprintf("Add a table partitioned by %s (e.g. %s_by_%s, with a time bucket if it grows), written with %s in a logged batch.", ix.column, t.Name, ix.column, t.Name))
}

// checkBatch checks the atomicity of a batch.
func (a *analyzer) checkBatch(q string, b *cql.Batch) {
	tables := map[string]bool{}
	for _, s := range b.Statements {
		if t := a.tableOf(s); t != nil {
			tables[qualified(t)] = true
		}
	}
	if b.Type == cql.UnloggedBatch && len(tables) > 1 {
		a.add("unlogged-batch-multi-table", sortedKeys(tables)[0], q,
			fmt.Sprintf("An unlogged batch writes %s: without the batch log a failure can leave some tables written and others not.", strings.Join(sortedKeys(tables), ", ")),
			"Use a logged batch (BEGIN BATCH) to keep denormalized tables in step.")
	}
}

// checkDeletes finds the queue anti-pattern and deletes inside partitions.
func (a *analyzer) checkDeletes(deletes []stmtRef) {
	for _, d := range deletes {
		t := d.t
		name := qualified(t)
		rs := restricted(d.d.Where)
		rows := false
		for _, c := range t.Clustering {
			if _, ok := rs[c.Name]; ok {
				rows = true
			}
		}
		cells := len(d.d.Targets) > 0
		switch {
		case rows && !cells && a.fact(t).limitedReads && (isTimeSeries(t) || t.Clustering[0].Type.Kind == types.Date):
			a.add("queue-pattern", name, d.q,
				"Rows are deleted from a time-ordered wide partition that is read from the front: reads scan ever more tombstones (the queue anti-pattern).",
				"Bucket the queue by time so consumed partitions are dropped whole, or track the read position instead of deleting.")
		case (rows || cells) && t.Params.DefaultTimeToLive == 0:
			what := "rows inside a partition"
			if cells {
				what = "column values"
			}
			a.add("deletes-without-ttl", name, d.q,
				fmt.Sprintf("The workload deletes %s: each delete is a tombstone that reads scan until compaction after gc_grace_seconds.", what),
				"When data expires on a schedule, write it with a TTL (default_time_to_live or USING TTL); otherwise split the table so whole partitions are deleted.")
		}
	}
}

// checkMultiTableWrites finds denormalized copies written by separate
// statements instead of one logged batch.
func (a *analyzer) checkMultiTableWrites(writes []stmtRef) {
	byTable := map[string]*schema.Table{}
	queries := map[string][]string{}
	for _, w := range writes {
		n := qualified(w.t)
		byTable[n] = w.t
		queries[n] = append(queries[n], w.q)
	}
	names := sortedKeys(byTable)
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			return find(p)
		}
		return x
	}
	for i, x := range names {
		for _, y := range names[i+1:] {
			if sharesEntity(byTable[x], byTable[y]) {
				parent[find(y)] = find(x)
			}
		}
	}
	groups := map[string][]string{}
	for _, n := range names {
		groups[find(n)] = append(groups[find(n)], n)
	}
	for _, root := range sortedKeys(groups) {
		g := groups[root]
		if len(g) < 2 {
			continue
		}
		var qs []string
		for _, n := range g {
			qs = append(qs, queries[n]...)
		}
		a.add("multi-table-write-without-batch", g[0], strings.Join(qs, "; "),
			fmt.Sprintf("The workload writes the denormalized tables %s in separate statements: if one write fails the copies disagree.", strings.Join(g, ", ")),
			"Write the copies of one change together in a logged batch: BEGIN BATCH INSERT ...; INSERT ...; APPLY BATCH.")
	}
}

// sharesEntity reports whether two tables hold copies of the same entity:
// the whole primary key of one is among the other's columns, and they share
// other columns too (users and users_by_email; orders and orders_by_user).
func sharesEntity(x, y *schema.Table) bool {
	shared := 0
	for _, c := range x.Columns {
		if y.Column(c.Name) != nil {
			shared++
		}
	}
	keyIn := func(p, q *schema.Table) bool {
		for _, c := range append(append([]*schema.Column(nil), p.PartitionKey...), p.Clustering...) {
			if q.Column(c.Name) == nil {
				return false
			}
		}
		return true
	}
	return shared >= 2 && (keyIn(x, y) || keyIn(y, x))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func stmtTable(st cql.Statement) (cql.QualifiedName, bool) {
	switch s := st.(type) {
	case *cql.Select:
		return s.Table, true
	case *cql.Insert:
		return s.Table, true
	case *cql.Update:
		return s.Table, true
	case *cql.Delete:
		return s.Table, true
	}
	return cql.QualifiedName{}, false
}

func (a *analyzer) tableOf(st cql.Statement) *schema.Table {
	name, ok := stmtTable(st)
	if !ok {
		return nil
	}
	return a.lookup(name)
}

// queryError maps the query layer's refusal to a rule.
func (a *analyzer) queryError(table, q string, st cql.Statement, err error) {
	msg := cqlerr.As(err).Message
	switch {
	case strings.Contains(msg, "cannot be restricted as preceding column"):
		a.add("clustering-skipped", table, q, msg,
			"Restrict clustering columns in their declared order, or create a table whose clustering starts with the column this query restricts.")
	case strings.Contains(msg, "is restricted by a non-EQ relation"):
		a.add("range-not-last", table, q, msg,
			"Only the last restricted clustering column may take a range; reorder the clustering columns for this query or add a table for it.")
	case strings.Contains(msg, "Order by is currently only supported on the clustered columns") ||
		strings.Contains(msg, "Order by currently only supports the ordering of columns following their declared order"):
		a.addSev("sort-order-mismatch", Error, table, q, msg,
			"Rows are stored in clustering order only: make the ordering column a clustering column of a table for this query, in the order it reads (WITH CLUSTERING ORDER BY).")
	case strings.Contains(msg, "Undefined column name"):
		a.add("missing-column", table, q, msg, "Add the column to the table (denormalize it), or query a table that has it.")
	case strings.Contains(msg, "ALLOW FILTERING") || strings.Contains(msg, "Only EQ and IN relation are supported on the partition key") ||
		strings.Contains(msg, "partition key parts") || strings.Contains(msg, "Partition key parts"):
		if sel, ok := st.(*cql.Select); ok && !partitionKeyRestricted(a.tableOf(st), sel) {
			a.add("partition-key-missing", table, q,
				"The query does not restrict the whole partition key with = or IN: Cassandra cannot tell which partition holds the rows. ("+msg+")",
				"Give every partition key column with =, or create a table partitioned by the columns this query gives (one table per query).")
			return
		}
		a.add("allow-filtering", table, q, msg,
			"Create a table whose primary key answers this query (one table per query), filled at write time.")
	default:
		a.add("invalid-statement", table, q, msg, "Fix the statement: Cassandra refuses it with this error.")
	}
}

func partitionKeyRestricted(t *schema.Table, s *cql.Select) bool {
	if t == nil {
		return false
	}
	for _, pk := range t.PartitionKey {
		found := false
		for _, r := range s.Where {
			if r.Token {
				return true
			}
			for _, c := range r.Columns {
				if c == pk.Name && (r.Op == cql.OpEq || r.Op == cql.OpIn) {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}
