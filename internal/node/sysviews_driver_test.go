package node

import (
	"math"
	"net"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestSystemViewsGocql reads system_views through gocql: the driver's own
// connections in clients, the table metric tables after reads and writes,
// cql_metrics and caches.
func TestSystemViewsGocql(t *testing.T) {
	n, s := driverNode(t, "CREATE TABLE ks.kv (k int PRIMARY KEY, v text)")
	for i := 0; i < 20; i++ {
		if err := s.Query("INSERT INTO ks.kv (k, v) VALUES (?, ?)", i, "x").Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 20; i++ {
		var v string
		if err := s.Query("SELECT v FROM ks.kv WHERE k = ?", i).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Query("SELECT * FROM ks.kv").Exec(); err != nil {
		t.Fatal(err)
	}

	t.Run("clients", func(t *testing.T) {
		// A connection is listed from its STARTUP on, as Cassandra
		// lists it: not a socket that sent nothing.
		raw, err := net.Dial("tcp", n.NativeAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		iter := s.Query("SELECT address, port, connection_stage, protocol_version, username, driver_name, client_options, request_count, ssl_enabled, hostname FROM system_views.clients").Iter()
		var (
			addr                string
			port, proto         int
			stage, user, driver string
			opts                map[string]string
			requests            int64
			ssl                 bool
			host                string
			rows                int
		)
		for iter.Scan(&addr, &port, &stage, &proto, &user, &driver, &opts, &requests, &ssl, &host) {
			rows++
			if addr != "127.0.0.1" || port == 0 || stage != "ready" || proto != 4 || user != "anonymous" || ssl || host != "127.0.0.1" {
				t.Errorf("client row: %s:%d %s v%d %q ssl=%v %q", addr, port, stage, proto, user, ssl, host)
			}
			// gocql sends DRIVER_NAME (empty in a test binary, which
			// has no module version).
			if _, ok := opts["DRIVER_NAME"]; !ok || opts["CQL_VERSION"] == "" || opts["DRIVER_NAME"] != driver {
				t.Errorf("driver %q options %v", driver, opts)
			}
			if requests < 1 {
				t.Errorf("request_count %d", requests)
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		// gocql opens a control connection and a pool connection.
		if rows < 2 {
			t.Fatalf("%d clients, want at least 2", rows)
		}
	})

	t.Run("table metrics", func(t *testing.T) {
		var count int64
		var p50, p99, maxMs, perSecond float64
		for _, table := range []string{"local_write_latency", "coordinator_write_latency", "local_read_latency", "coordinator_read_latency"} {
			if err := s.Query("SELECT count, p50th_ms, p99th_ms, max_ms, per_second FROM system_views."+table+" WHERE keyspace_name = 'ks' AND table_name = 'kv'").
				Scan(&count, &p50, &p99, &maxMs, &perSecond); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			if count != 20 || maxMs <= 0 || p50 > p99 || p99 > maxMs || math.IsNaN(perSecond) {
				t.Errorf("%s: count %d p50 %v p99 %v max %v rate %v", table, count, p50, p99, maxMs, perSecond)
			}
		}
		for _, table := range []string{"local_scan_latency", "coordinator_scan_latency"} {
			if err := s.Query("SELECT count FROM system_views." + table + " WHERE keyspace_name = 'ks' AND table_name = 'kv'").Scan(&count); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			if count != 1 {
				t.Errorf("%s: count %d, want 1", table, count)
			}
		}
		var p50r, p99r, maxr float64
		if err := s.Query("SELECT count, p50th, p99th, max FROM system_views.rows_per_read WHERE keyspace_name = 'ks' AND table_name = 'kv'").Scan(&count, &p50r, &p99r, &maxr); err != nil {
			t.Fatal(err)
		}
		// 20 reads of one row and a scan of 20.
		if count != 21 || p50r != 1 || maxr != 20 {
			t.Errorf("rows_per_read: count %d p50 %v p99 %v max %v", count, p50r, p99r, maxr)
		}
		// Filtering without ALLOW FILTERING, as on every virtual table.
		var n int
		iter := s.Query("SELECT table_name FROM system_views.local_write_latency WHERE count > 0").Iter()
		var name string
		for iter.Scan(&name) {
			n++
		}
		if err := iter.Close(); err != nil || n == 0 {
			t.Fatalf("filtered read: %d rows, %v", n, err)
		}
	})

	t.Run("cql_metrics", func(t *testing.T) {
		var executed float64
		if err := s.Query("SELECT value FROM system_views.cql_metrics WHERE name = 'prepared_statements_executed'").Scan(&executed); err != nil {
			t.Fatal(err)
		}
		// gocql prepares its INSERTs and SELECTs.
		if executed < 41 {
			t.Errorf("prepared_statements_executed %v, want at least 41", executed)
		}
		// A BATCH counts in neither counter, as in QueryProcessor; the
		// second read of the counter (an EXECUTE) counts itself.
		b := s.Batch(gocql.LoggedBatch)
		b.Query("INSERT INTO ks.kv (k, v) VALUES (?, ?)", 100, "b")
		b.Query("INSERT INTO ks.kv (k, v) VALUES (101, 'b')")
		if err := b.Exec(); err != nil {
			t.Fatal(err)
		}
		var after float64
		if err := s.Query("SELECT value FROM system_views.cql_metrics WHERE name = 'prepared_statements_executed'").Scan(&after); err != nil {
			t.Fatal(err)
		}
		if after != executed+1 {
			t.Errorf("prepared_statements_executed %v after a batch, want %v", after, executed+1)
		}
	})

	t.Run("caches", func(t *testing.T) {
		iter := s.Query("SELECT name, request_count, hit_count, capacity_bytes FROM system_views.caches").Iter()
		var name string
		var requests, hits, capacity int64
		var names []string
		for iter.Scan(&name, &requests, &hits, &capacity) {
			names = append(names, name)
			if name == "rows" && (requests < 20 || capacity <= 0) {
				t.Errorf("rows cache: %d requests, capacity %d", requests, capacity)
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if len(names) != 4 || names[0] != "chunks" || names[3] != "rows" {
			t.Errorf("caches %v", names)
		}
	})
}
