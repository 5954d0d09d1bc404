package node

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
)

// FuzzExecutor sends arbitrary statements to a node with a few tables and
// rows: whatever the input, the answer is a result or a CQL error, never a
// panic, and never a ServerError (which would mean an unexpected failure).
func FuzzExecutor(f *testing.F) {
	files, _ := filepath.Glob("testdata/logic/*")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		// Seeds: the statement lines of the logic tests.
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "SELECT") || strings.HasPrefix(line, "INSERT") ||
				strings.HasPrefix(line, "UPDATE") || strings.HasPrefix(line, "DELETE") ||
				strings.HasPrefix(line, "CREATE") || strings.HasPrefix(line, "DROP") {
				f.Add(line)
			}
		}
	}
	n := startTestNode(f, f.TempDir())
	defer stopTestNode(f, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{}
	for _, q := range []string{
		`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE ks.user_events (user_id uuid, event_time timestamp, event_type text, data text, PRIMARY KEY ((user_id), event_time, event_type)) WITH CLUSTERING ORDER BY (event_time DESC, event_type ASC)`,
		`CREATE TABLE ks.kv (k int PRIMARY KEY, v text)`,
		`CREATE TABLE ks.sensor (sensor_id text, day text, ts timestamp, value double, unit text static, PRIMARY KEY ((sensor_id, day), ts))`,
		// Tables of the tuple_relations logic test, whose statements are seeds.
		`CREATE TABLE ks.t (a int, b int, c int, d int, PRIMARY KEY (a, b, c, d))`,
		`CREATE TABLE ks.m (a int, b int, c int, v int, PRIMARY KEY (a, b, c)) WITH CLUSTERING ORDER BY (b ASC, c DESC)`,
		`INSERT INTO ks.m (a, b, c, v) VALUES (0, 1, 1, 1)`,
		`INSERT INTO ks.kv (k, v) VALUES (1, 'a')`,
		`INSERT INTO ks.sensor (sensor_id, day, ts, value, unit) VALUES ('s', 'd', 0, 1.5, 'C')`,
	} {
		if _, err := ex.Query(ctx, sess, q, nil); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, stmt string) {
		s := &query.Session{Keyspace: "ks"}
		for _, page := range []int32{0, 1} {
			_, err := ex.Query(ctx, s, stmt, &query.Options{Consistency: 1, PageSize: page})
			if err != nil && cqlerr.As(err).Code == cqlerr.ServerError {
				t.Fatalf("%q: %v", stmt, err)
			}
		}
	})
}
