package node

import (
	"path/filepath"
	"sort"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestDriverIndexesAndViews creates a secondary index and a materialized
// view through gocql, queries through both with prepared statements and
// paging, and checks that the driver's schema metadata (built from
// system_schema.indexes and system_schema.views) describes them.
func TestDriverIndexesAndViews(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.MaterializedViewsEnabled = true
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	sess := connect(t, n, 4, nil)
	defer sess.Close()
	mustExec := func(q string, args ...any) {
		t.Helper()
		if err := sess.Query(q, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec(`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
	mustExec(`CREATE TABLE app.log_messages (source_name text, day text, ts timestamp, source_type text, body text,
		PRIMARY KEY ((source_name, day), ts)) WITH CLUSTERING ORDER BY (ts DESC)`)
	mustExec(`CREATE INDEX log_messages_sourcetype_idx ON app.log_messages (source_type)`)
	mustExec(`CREATE MATERIALIZED VIEW app.log_by_type AS SELECT * FROM app.log_messages
		WHERE source_type IS NOT NULL AND source_name IS NOT NULL AND day IS NOT NULL AND ts IS NOT NULL
		PRIMARY KEY (source_type, source_name, day, ts)`)
	for i := 0; i < 25; i++ {
		typ := []string{"nginx", "postgres"}[i%2]
		mustExec(`INSERT INTO app.log_messages (source_name, day, ts, source_type, body) VALUES (?, ?, ?, ?, ?)`,
			[]string{"web01", "web02", "db01"}[i%3], "2024-01-15", int64(i)*1000, typ, "m")
	}
	count := func(q string, args ...any) int {
		t.Helper()
		iter := sess.Query(q, args...).PageSize(4).Iter()
		var body string
		rows := 0
		for iter.Scan(&body) {
			rows++
		}
		if err := iter.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rows
	}
	if got := count(`SELECT body FROM app.log_messages WHERE source_type = ?`, "nginx"); got != 13 {
		t.Fatalf("index query: %d rows, want 13", got)
	}
	if got := count(`SELECT body FROM app.log_by_type WHERE source_type = ?`, "postgres"); got != 12 {
		t.Fatalf("view query: %d rows, want 12", got)
	}
	// gocql v2 applies pushed SCHEMA_CHANGE events after a debounce.
	var md *gocql.KeyspaceMetadata
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		md, err = sess.KeyspaceMetadata("app")
		if err == nil && md.MaterializedViews["log_by_type"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("schema metadata never showed the view: %v", err)
		}
	}
	tm := md.Tables["log_messages"]
	if tm == nil {
		t.Fatalf("no table metadata: %+v", md.Tables)
	}
	var names []string
	for name := range md.MaterializedViews {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) != 1 || names[0] != "log_by_type" {
		t.Fatalf("views metadata: %v", names)
	}
	if v := md.MaterializedViews["log_by_type"]; v.BaseTable == nil || v.BaseTable.Name != "log_messages" {
		t.Fatalf("view metadata: %+v", v)
	}
}
