package advisor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// LiveSchema reads the user schema of a running server (cqld or Cassandra)
// from system_schema and returns it as CQL DDL, ready for Analyze.
func LiveSchema(ctx context.Context, host string, port int) (string, error) {
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		return "", fmt.Errorf("connecting to %s:%d: %w", host, port, err)
	}
	defer sess.Close()
	return liveSchema(ctx, sess)
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
		ttl := map[string]int{}
		titer := sess.Query(`SELECT table_name, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?`, ks).WithContext(ctx).Iter()
		var d int
		for titer.Scan(&table, &d) {
			ttl[table] = d
		}
		if err := titer.Close(); err != nil {
			return "", err
		}
		names := make([]string, 0, len(tables))
		for n := range tables {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			b.WriteString(tableDDL(ks, n, tables[n], ttl[n]))
		}
	}
	return b.String(), nil
}

func tableDDL(ks, name string, cols []liveColumn, ttl int) string {
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
	if ttl > 0 {
		with = append(with, fmt.Sprintf("default_time_to_live = %d", ttl))
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
