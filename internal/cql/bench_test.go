package cql

import (
	"fmt"
	"strings"
	"testing"
)

var benchQueries = []struct{ name, q string }{
	{"local", `SELECT * FROM system.local WHERE key='local'`},
	{"columns", `SELECT keyspace_name, table_name, column_name, clustering_order, type, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`},
	{"insert", `INSERT INTO ks.events (tenant_id, day, event_time, payload, tags) VALUES (?, ?, ?, 'some payload text', {'a', 'b'}) USING TTL 86400`},
	{"update", `UPDATE ks.counters SET hits = hits + 1, last = toTimestamp(now()) WHERE page = 'home' AND day = '2024-01-15' IF EXISTS`},
	{"create", `CREATE TABLE IF NOT EXISTS ks.t (a int, b text, c timestamp, d frozen<map<text, list<int>>>, PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) AND compaction = {'class': 'LeveledCompactionStrategy'}`},
}

// BenchmarkTypical measures the statements the issue names: a typical
// INSERT, a typical SELECT and a 50-statement BATCH.
//
//	go test -run XXX -bench Typical -benchmem ./internal/cql/
func BenchmarkTypical(b *testing.B) {
	var batch strings.Builder
	batch.WriteString("BEGIN UNLOGGED BATCH USING TIMESTAMP 1700000000000000\n")
	for i := 0; i < 50; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&batch, "  INSERT INTO ks.users (id, name, email, tags) VALUES (%d, 'user %d', 'u%d@example.com', {'a', 'b'});\n", i, i, i)
		case 1:
			fmt.Fprintf(&batch, "  UPDATE ks.users SET name = 'n%d', visits = visits + 1 WHERE id = %d;\n", i, i)
		default:
			fmt.Fprintf(&batch, "  DELETE email FROM ks.users WHERE id = %d;\n", i)
		}
	}
	batch.WriteString("APPLY BATCH")
	for _, bq := range []struct{ name, q string }{
		{"insert", `INSERT INTO ks.users (id, name, email, created_at) VALUES (?, ?, ?, toTimestamp(now())) USING TTL 86400`},
		{"select", `SELECT id, name, email FROM ks.users WHERE id = ? AND created_at > '2024-01-01' LIMIT 100`},
		{"batch50", batch.String()},
	} {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bq.q)))
			for b.Loop() {
				if _, err := Parse(bq.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bq.q)))
			for b.Loop() {
				if _, err := Parse(bq.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFormat(b *testing.B) {
	st, err := Parse(benchQueries[1].q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Format(st)
	}
}
