package cql

import "testing"

var benchQueries = []struct{ name, q string }{
	{"local", `SELECT * FROM system.local WHERE key='local'`},
	{"columns", `SELECT keyspace_name, table_name, column_name, clustering_order, type, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?`},
	{"insert", `INSERT INTO ks.events (tenant_id, day, event_time, payload, tags) VALUES (?, ?, ?, 'some payload text', {'a', 'b'}) USING TTL 86400`},
	{"update", `UPDATE ks.counters SET hits = hits + 1, last = toTimestamp(now()) WHERE page = 'home' AND day = '2024-01-15' IF EXISTS`},
	{"create", `CREATE TABLE IF NOT EXISTS ks.t (a int, b text, c timestamp, d frozen<map<text, list<int>>>, PRIMARY KEY ((a, b), c)) WITH CLUSTERING ORDER BY (c DESC) AND compaction = {'class': 'LeveledCompactionStrategy'}`},
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
