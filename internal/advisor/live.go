package advisor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// LiveModel is what a running server tells about its data model: the user
// schema as CQL DDL, and the partition sizes it measured.
type LiveModel struct {
	DDL string
	// Measured is by "ks.table": system.size_estimates (Cassandra and
	// cqld) and system_views.cqld_table_histograms (cqld).
	Measured map[string]Measured
}

func connect(host string, port int) (*gocql.Session, error) {
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s:%d: %w", host, port, err)
	}
	return sess, nil
}

// Live reads the schema and the measured partition sizes of a running
// server (cqld or Cassandra).
func Live(ctx context.Context, host string, port int) (*LiveModel, error) {
	sess, err := connect(host, port)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ddl, err := liveSchema(ctx, sess)
	if err != nil {
		return nil, err
	}
	m, err := liveMeasured(ctx, sess)
	if err != nil {
		return nil, err
	}
	return &LiveModel{DDL: ddl, Measured: m}, nil
}

// LiveSchema reads the user schema of a running server (cqld or Cassandra)
// from system_schema and returns it as CQL DDL, ready for Analyze.
func LiveSchema(ctx context.Context, host string, port int) (string, error) {
	sess, err := connect(host, port)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	return liveSchema(ctx, sess)
}

// liveMeasured reads system.size_estimates (partitions count and mean size
// per token range, summed per table) and, on cqld,
// system_views.cqld_table_histograms (percentiles of partitions read whole).
func liveMeasured(ctx context.Context, sess *gocql.Session) (map[string]Measured, error) {
	out := map[string]Measured{}
	type acc struct{ weighted, count, anyMean float64 }
	sums := map[string]*acc{}
	iter := sess.Query(`SELECT keyspace_name, table_name, mean_partition_size, partitions_count FROM system.size_estimates`).WithContext(ctx).Iter()
	var ks, table string
	var mean, count int64
	for iter.Scan(&ks, &table, &mean, &count) {
		if strings.HasPrefix(ks, "system") {
			continue
		}
		a := sums[ks+"."+table]
		if a == nil {
			a = &acc{}
			sums[ks+"."+table] = a
		}
		a.weighted += float64(mean) * float64(count)
		a.count += float64(count)
		if mean > 0 {
			a.anyMean = float64(mean)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading system.size_estimates: %w", err)
	}
	for name, a := range sums {
		m := Measured{PartitionsCount: int64(a.count), MeanPartitionSize: int64(a.anyMean)}
		if a.count > 0 && a.weighted > 0 {
			m.MeanPartitionSize = int64(a.weighted / a.count)
		}
		out[name] = m
	}
	// cqld's own histograms; Cassandra has no such table.
	hiter := sess.Query(`SELECT keyspace_name, table_name, partitions_measured, mean_partition_size, p50_partition_size,
		p99_partition_size, max_partition_size, mean_cell_count, max_cell_count, p99_tombstones_per_read
		FROM system_views.cqld_table_histograms`).WithContext(ctx).Iter()
	var h Measured
	var hmean int64
	for hiter.Scan(&ks, &table, &h.PartitionsMeasured, &hmean, &h.P50PartitionSize, &h.P99PartitionSize,
		&h.MaxPartitionSize, &h.MeanCellCount, &h.MaxCellCount, &h.P99TombstonesPerRead) {
		m := out[ks+"."+table]
		h.PartitionsCount, h.MeanPartitionSize = m.PartitionsCount, m.MeanPartitionSize
		if h.MeanPartitionSize == 0 {
			h.MeanPartitionSize = hmean
		}
		out[ks+"."+table] = h
		h = Measured{}
	}
	hiter.Close()
	return out, nil
}

type liveColumn struct {
	name, kind, typ, order string
	position               int
}

func liveSchema(ctx context.Context, sess *gocql.Session) (string, error) {
	var b strings.Builder
	iter := sess.Query(`SELECT keyspace_name, replication FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var ks string
	var repl map[string]string
	var keyspaces []string
	repls := map[string]map[string]string{}
	for iter.Scan(&ks, &repl) {
		if strings.HasPrefix(ks, "system") {
			continue
		}
		keyspaces = append(keyspaces, ks)
		repls[ks] = repl
		repl = nil
	}
	if err := iter.Close(); err != nil {
		return "", err
	}
	sort.Strings(keyspaces)
	for _, ks := range keyspaces {
		var opts []string
		for _, k := range sortedStringKeys(repls[ks]) {
			opts = append(opts, fmt.Sprintf("'%s': '%s'", k, repls[ks][k]))
		}
		fmt.Fprintf(&b, "CREATE KEYSPACE %s WITH replication = {%s};\n", quoteIdent(ks), strings.Join(opts, ", "))
		tables := map[string][]liveColumn{}
		iter := sess.Query(`SELECT table_name, column_name, kind, type, clustering_order, position FROM system_schema.columns WHERE keyspace_name = ?`, ks).
			WithContext(ctx).Iter()
		var c liveColumn
		var table string
		for iter.Scan(&table, &c.name, &c.kind, &c.typ, &c.order, &c.position) {
			tables[table] = append(tables[table], c)
		}
		if err := iter.Close(); err != nil {
			return "", err
		}
		params := map[string]liveParams{}
		titer := sess.Query(`SELECT table_name, default_time_to_live, gc_grace_seconds, compaction FROM system_schema.tables WHERE keyspace_name = ?`, ks).WithContext(ctx).Iter()
		var p liveParams
		for titer.Scan(&table, &p.ttl, &p.gcGrace, &p.compaction) {
			params[table] = p
			p = liveParams{}
		}
		if err := titer.Close(); err != nil {
			return "", err
		}
		// Views: their columns are in system_schema.columns too.
		type view struct{ base, where string }
		views := map[string]view{}
		viter := sess.Query(`SELECT view_name, base_table_name, where_clause FROM system_schema.views WHERE keyspace_name = ?`, ks).WithContext(ctx).Iter()
		var vname, vbase, vwhere string
		for viter.Scan(&vname, &vbase, &vwhere) {
			views[vname] = view{vbase, vwhere}
		}
		viter.Close() // servers without views answer nothing or an error
		names := make([]string, 0, len(tables))
		for n := range tables {
			if _, isView := views[n]; !isView {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			b.WriteString(tableDDL(ks, n, tables[n], params[n]))
		}
		for _, n := range sortedKeys(views) {
			b.WriteString(viewDDL(ks, n, views[n].base, views[n].where, tables[n]))
		}
		iiter := sess.Query(`SELECT table_name, index_name, kind, options FROM system_schema.indexes WHERE keyspace_name = ?`, ks).WithContext(ctx).Iter()
		var iname, ikind string
		var iopts map[string]string
		for iiter.Scan(&table, &iname, &ikind, &iopts) {
			target := iopts["target"]
			if target == "" {
				continue
			}
			if ikind == "CUSTOM" {
				fmt.Fprintf(&b, "CREATE CUSTOM INDEX %s ON %s.%s (%s) USING '%s';\n", quoteIdent(iname), quoteIdent(ks), quoteIdent(table), target,
					strings.ReplaceAll(iopts["class_name"], "'", "''"))
			} else {
				fmt.Fprintf(&b, "CREATE INDEX %s ON %s.%s (%s);\n", quoteIdent(iname), quoteIdent(ks), quoteIdent(table), target)
			}
			iopts = nil
		}
		iiter.Close()
	}
	return b.String(), nil
}

// viewDDL rebuilds CREATE MATERIALIZED VIEW from system_schema.
func viewDDL(ks, name, base, where string, cols []liveColumn) string {
	if len(cols) == 0 {
		return ""
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i].position < cols[j].position })
	var sel, pk, ck []string
	for _, kind := range []string{"partition_key", "clustering", "static", "regular"} {
		for _, c := range cols {
			if c.kind != kind {
				continue
			}
			sel = append(sel, quoteIdent(c.name))
			switch kind {
			case "partition_key":
				pk = append(pk, quoteIdent(c.name))
			case "clustering":
				ck = append(ck, quoteIdent(c.name))
			}
		}
	}
	key := "(" + strings.Join(pk, ", ") + ")"
	if len(ck) > 0 {
		key += ", " + strings.Join(ck, ", ")
	}
	if where == "" {
		where = strings.Join(append(append([]string(nil), pk...), ck...), " IS NOT NULL AND ") + " IS NOT NULL"
	}
	return fmt.Sprintf("CREATE MATERIALIZED VIEW %s.%s AS SELECT %s FROM %s.%s WHERE %s PRIMARY KEY (%s);\n",
		quoteIdent(ks), quoteIdent(name), strings.Join(sel, ", "), quoteIdent(ks), quoteIdent(base), where, key)
}

// liveParams are the table options the advisor's rules read.
type liveParams struct {
	ttl, gcGrace int
	compaction   map[string]string
}

func tableDDL(ks, name string, cols []liveColumn, p liveParams) string {
	sort.Slice(cols, func(i, j int) bool { return cols[i].position < cols[j].position })
	var defs, pk, ck, order []string
	hasDesc := false
	for _, kind := range []string{"partition_key", "clustering", "static", "regular"} {
		for _, c := range cols {
			if c.kind != kind {
				continue
			}
			def := quoteIdent(c.name) + " " + c.typ
			if kind == "static" {
				def += " static"
			}
			defs = append(defs, def)
			switch kind {
			case "partition_key":
				pk = append(pk, quoteIdent(c.name))
			case "clustering":
				ck = append(ck, quoteIdent(c.name))
				dir := "ASC"
				if c.order == "desc" {
					dir, hasDesc = "DESC", true
				}
				order = append(order, quoteIdent(c.name)+" "+dir)
			}
		}
	}
	key := "(" + strings.Join(pk, ", ") + ")"
	if len(ck) > 0 {
		key += ", " + strings.Join(ck, ", ")
	}
	var with []string
	if hasDesc {
		with = append(with, "CLUSTERING ORDER BY ("+strings.Join(order, ", ")+")")
	}
	if p.ttl > 0 {
		with = append(with, fmt.Sprintf("default_time_to_live = %d", p.ttl))
	}
	if p.gcGrace > 0 && p.gcGrace != 864000 {
		with = append(with, fmt.Sprintf("gc_grace_seconds = %d", p.gcGrace))
	}
	if class := p.compaction["class"]; class != "" && !strings.HasSuffix(class, "SizeTieredCompactionStrategy") {
		var opts []string
		for _, k := range sortedStringKeys(p.compaction) {
			opts = append(opts, fmt.Sprintf("'%s': '%s'", k, strings.ReplaceAll(p.compaction[k], "'", "''")))
		}
		with = append(with, "compaction = {"+strings.Join(opts, ", ")+"}")
	}
	s := fmt.Sprintf("CREATE TABLE %s.%s (%s, PRIMARY KEY (%s))", quoteIdent(ks), quoteIdent(name), strings.Join(defs, ", "), key)
	if len(with) > 0 {
		s += " WITH " + strings.Join(with, " AND ")
	}
	return s + ";\n"
}

func sortedStringKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// quoteIdent quotes an identifier unless it is a plain lower-case one.
func quoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
