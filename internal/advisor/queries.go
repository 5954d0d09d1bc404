package advisor

import (
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// checkQueries runs the workload's queries through the query layer's own
// compilation: its restriction analysis decides what a table can answer.
func (a *analyzer) checkQueries() {
	type del struct {
		table *schema.Table
		q     string
	}
	var deletes []del
	limitedReads := map[*schema.Table]bool{}
	for _, q := range a.workload.Queries {
		st, err := cql.Parse(q)
		if err != nil {
			a.add("invalid-statement", "", q, cqlerr.As(err).Message, "Fix the syntax.")
			continue
		}
		_, err = a.exec.Prepare(a.ctx, a.sess, q, "")
		t := a.tableOf(st)
		tname := ""
		if t != nil {
			tname = t.Keyspace + "." + t.Name
		}
		if err != nil {
			a.queryError(tname, q, st, err)
			continue
		}
		switch s := st.(type) {
		case *cql.Select:
			if s.AllowFiltering {
				cp := *s
				cp.AllowFiltering = false
				if _, err := a.exec.Prepare(a.ctx, a.sess, cql.Format(&cp), ""); err != nil {
					a.add("allow-filtering", tname, q,
						"The query needs ALLOW FILTERING: it scans and discards rows instead of reading one partition slice.",
						"Create a table whose primary key answers this query (one table per query), filled at write time.")
				}
			}
			if t != nil && len(s.OrderBy) > 0 {
				if col := t.Column(s.OrderBy[0].Column); col != nil && col.Kind == schema.Clustering && col.Desc != s.OrderBy[0].Desc {
					a.add("sort-order-mismatch", tname, q,
						"The query orders the opposite way of the table's clustering order; reading in reverse is slower.",
						"Declare WITH CLUSTERING ORDER BY in the order this query reads.")
				}
			}
			if t != nil && s.Limit != nil {
				limitedReads[t] = true
			}
		case *cql.Delete:
			if t != nil {
				deletes = append(deletes, del{t, q})
			}
		}
	}
	for _, d := range deletes {
		name := d.table.Keyspace + "." + d.table.Name
		if len(d.table.Clustering) > 0 && limitedReads[d.table] && isTimeOrdered(d.table) {
			a.add("queue-pattern", name, d.q,
				"Rows are deleted from a time-ordered wide partition that is read from the front: reads scan ever more tombstones (the queue anti-pattern).",
				"Bucket the queue by time so consumed partitions are dropped whole, or track the read position instead of deleting.")
		} else if d.table.Params.DefaultTimeToLive == 0 {
			a.add("deletes-without-ttl", name, d.q,
				"Explicit deletes create tombstones that reads scan until compaction after gc_grace_seconds.",
				"When data expires on a schedule, write it with a TTL (or default_time_to_live) instead of deleting.")
		}
	}
}

func isTimeOrdered(t *schema.Table) bool {
	k := t.Clustering[0].Type.Kind
	return k == types.Timestamp || k == types.Timeuuid || k == types.Date
}

func (a *analyzer) tableOf(st cql.Statement) *schema.Table {
	var name cql.QualifiedName
	switch s := st.(type) {
	case *cql.Select:
		name = s.Table
	case *cql.Insert:
		name = s.Table
	case *cql.Update:
		name = s.Table
	case *cql.Delete:
		name = s.Table
	default:
		return nil
	}
	ks := name.Keyspace
	if ks == "" {
		ks = a.sess.Keyspace
	}
	return a.schema.Current().Table(ks, name.Name)
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
	case strings.Contains(msg, "Undefined column name"):
		a.add("missing-column", table, q, msg, "Add the column to the table, or query a table that has it.")
	case strings.Contains(msg, "ALLOW FILTERING") || strings.Contains(msg, "Only EQ and IN relation are supported on the partition key"):
		if sel, ok := st.(*cql.Select); ok && !partitionKeyRestricted(a.tableOf(st), sel) {
			a.add("partition-key-missing", table, q,
				"The query does not restrict the whole partition key with = or IN: Cassandra cannot tell which partition holds the rows. ("+msg+")",
				"Create a table partitioned by the columns this query gives with = (one table per query).")
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
