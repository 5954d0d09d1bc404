package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
	"github.com/cqld/cqld/internal/query"
)

// startTestNode starts a node in-process on random ports over dir.
func startTestNode(t testing.TB, dir string) *Node {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = dir
	return startTestNodeConfig(t, cfg)
}

// startTestNodeConfig starts a node with cfg on random ports.
func startTestNodeConfig(t testing.TB, cfg Config) *Node {
	t.Helper()
	cfg.NativePort = 0
	cfg.AdminPort = -1
	n, err := Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mustQuery runs q on n's executor at ONE in sess, failing the test on
// an error.
func mustQuery(t testing.TB, n *Node, sess *query.Session, q string) *query.Result {
	t.Helper()
	res, err := n.Executor().Query(context.Background(), sess, q, &query.Options{Consistency: 1})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

func stopTestNode(t testing.TB, n *Node) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// driverNode starts a node over a fresh directory, connects gocql (v4),
// creates keyspace ks (SimpleStrategy, RF 1) and runs stmts; the session
// and the node end with the test.
func driverNode(t *testing.T, stmts ...string) (*Node, *gocql.Session) {
	t.Helper()
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	t.Cleanup(func() { stopTestNode(t, n) })
	s := connect(t, n, 4, nil)
	t.Cleanup(s.Close)
	execAll(t, s, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	execAll(t, s, stmts...)
	return n, s
}

func connect(t testing.TB, n *Node, proto int, comp gocql.Compressor) *gocql.Session {
	t.Helper()
	addr := n.NativeAddr()
	cluster := gocql.NewCluster(addr.IP.String())
	cluster.Port = addr.Port
	cluster.ProtoVersion = proto
	cluster.Compressor = comp
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting with protocol v%d: %v", proto, err)
	}
	return sess
}

type event struct {
	when string
	typ  string
	data string
}

// TestDriverEndToEnd runs the seeds' user_events example through gocql v2
// on protocol v4 and on v5 with LZ4, then restarts the node on the same
// data directory and reads the rows again.
func TestDriverEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto int
		comp  gocql.Compressor
	}{{"v4", 4, nil}, {"v5-lz4", 5, lz4.LZ4Compressor{}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			n := startTestNode(t, dir)
			sess := connect(t, n, tc.proto, tc.comp)

			mustExec := func(q string, args ...any) {
				t.Helper()
				if err := sess.Query(q, args...).Exec(); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			mustExec(`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
			mustExec(`CREATE TABLE app.user_events (
				user_id UUID,
				event_time TIMESTAMP,
				event_type TEXT,
				data TEXT,
				PRIMARY KEY ((user_id), event_time, event_type)
			) WITH CLUSTERING ORDER BY (event_time DESC, event_type ASC)`)

			user, _ := gocql.ParseUUID("123e4567-e89b-12d3-a456-426614174000")
			events := []event{
				{"2024-01-02 18:00:00", "logout", "d4"},
				{"2024-01-03 14:00:00", "click", "d1"},
				{"2024-01-03 12:00:00", "click", "d3"},
				{"2024-01-03 13:00:00", "login", "d2"},
				{"2024-01-01 09:00:00", "login", "d5"},
			}
			// Out of order, half as literals, half prepared.
			for i, e := range events {
				if i%2 == 0 {
					mustExec(fmt.Sprintf(`INSERT INTO app.user_events (user_id, event_time, event_type, data) VALUES (%s, '%s', '%s', '%s')`,
						user, e.when, e.typ, e.data))
				} else {
					ts, _ := time.Parse("2006-01-02 15:04:05", e.when)
					mustExec(`INSERT INTO app.user_events (user_id, event_time, event_type, data) VALUES (?, ?, ?, ?)`,
						user, ts, e.typ, e.data)
				}
			}
			want := []string{"d1", "d2", "d3", "d4", "d5"}
			readAll := func(s *gocql.Session, pageSize int) []string {
				t.Helper()
				iter := s.Query(`SELECT event_time, event_type, data FROM app.user_events WHERE user_id = ?`, user).PageSize(pageSize).Iter()
				var got []string
				var when time.Time
				var typ, data string
				for iter.Scan(&when, &typ, &data) {
					got = append(got, data)
				}
				if err := iter.Close(); err != nil {
					t.Fatal(err)
				}
				return got
			}
			if got := readAll(sess, 2); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("paged DESC read: got %v want %v", got, want)
			}
			// Manual paging with page size 2: three pages.
			var pages int
			var state []byte
			for {
				iter := sess.Query(`SELECT data FROM app.user_events WHERE user_id = ?`, user).PageSize(2).PageState(state).Iter()
				pages++
				state = iter.PageState()
				if err := iter.Close(); err != nil {
					t.Fatal(err)
				}
				if len(state) == 0 || pages > 10 {
					break
				}
			}
			if pages != 3 {
				t.Fatalf("got %d pages, want 3", pages)
			}
			// Clustering range and ORDER BY reversal.
			var got []string
			iter := sess.Query(`SELECT data FROM app.user_events WHERE user_id = ? AND event_time > '2024-01-02' ORDER BY event_time ASC`, user).Iter()
			var d string
			for iter.Scan(&d) {
				got = append(got, d)
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != "d4,d3,d2,d1" {
				t.Fatalf("range ASC: got %v", got)
			}
			// The seeds' invalid queries.
			err := sess.Query(`SELECT * FROM app.user_events WHERE user_id = ? AND event_type = ?`, user, "click").Exec()
			if err == nil || !strings.Contains(err.Error(), `PRIMARY KEY column "event_type" cannot be restricted as preceding column "event_time" is not restricted`) {
				t.Fatalf("skipped clustering column: %v", err)
			}
			err = sess.Query(`SELECT * FROM app.user_events WHERE event_time = ?`, time.Now()).Exec()
			if err == nil || !strings.Contains(err.Error(), "ALLOW FILTERING") {
				t.Fatalf("missing partition key: %v", err)
			}
			// Delete a row.
			ts, _ := time.Parse("2006-01-02 15:04:05", "2024-01-03 12:00:00")
			mustExec(`DELETE FROM app.user_events WHERE user_id = ? AND event_time = ? AND event_type = ?`, user, ts, "click")
			want = []string{"d1", "d2", "d4", "d5"}
			if got := readAll(sess, 100); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("after delete: got %v want %v", got, want)
			}
			// Driver schema metadata.
			// gocql v2 applies pushed SCHEMA_CHANGE events after a debounce.
			var km *gocql.KeyspaceMetadata
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				km, err = sess.KeyspaceMetadata("app")
				if err == nil && km.Tables["user_events"] != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("schema metadata never showed the table: %v", err)
				}
			}
			tm, ok := km.Tables["user_events"]
			if !ok {
				t.Fatalf("no table metadata: %+v", km.Tables)
			}
			if len(tm.PartitionKey) != 1 || tm.PartitionKey[0].Name != "user_id" || len(tm.ClusteringColumns) != 2 ||
				tm.ClusteringColumns[0].Name != "event_time" || tm.ClusteringColumns[0].ClusteringOrder != "desc" {
				t.Fatalf("unexpected table metadata: pk=%v ck=%v", tm.PartitionKey, tm.ClusteringColumns)
			}
			hostID, tokens := localIdentity(t, sess)
			if len(tokens) != 16 {
				t.Fatalf("system.local has %d tokens, want num_tokens = 16", len(tokens))
			}
			sess.Close()
			stopTestNode(t, n)

			// Restart on the same directory.
			n = startTestNode(t, dir)
			defer stopTestNode(t, n)
			sess = connect(t, n, tc.proto, tc.comp)
			defer sess.Close()
			if got := readAll(sess, 2); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("after restart: got %v want %v", got, want)
			}
			if h, toks := localIdentity(t, sess); h != hostID || strings.Join(toks, ",") != strings.Join(tokens, ",") {
				t.Fatalf("identity changed across restart: %s %v -> %s %v", hostID, tokens, h, toks)
			}
		})
	}
}

// localIdentity reads what drivers read from system.local and checks the
// fixed values.
func localIdentity(t *testing.T, sess *gocql.Session) (string, []string) {
	t.Helper()
	var hostID gocql.UUID
	var tokens []string
	var release, cqlVersion, partitioner, dc, rack, cluster string
	var schemaVersion gocql.UUID
	err := sess.Query(`SELECT host_id, tokens, release_version, cql_version, partitioner, data_center, rack, cluster_name, schema_version FROM system.local WHERE key = 'local'`).
		Scan(&hostID, &tokens, &release, &cqlVersion, &partitioner, &dc, &rack, &cluster, &schemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(release, "5.0.") || cqlVersion != "3.4.7" || partitioner != "org.apache.cassandra.dht.Murmur3Partitioner" ||
		dc != "datacenter1" || rack != "rack1" || cluster == "" {
		t.Fatalf("system.local: release %q cql %q partitioner %q dc %q rack %q cluster %q", release, cqlVersion, partitioner, dc, rack, cluster)
	}
	return hostID.String(), tokens
}

// TestSchemaVersionChanges checks that every schema change is visible in
// system.local.schema_version.
func TestSchemaVersionChanges(t *testing.T) {
	n := startTestNode(t, t.TempDir())
	defer stopTestNode(t, n)
	sess := connect(t, n, 4, nil)
	defer sess.Close()
	version := func() string {
		var v gocql.UUID
		if err := sess.Query(`SELECT schema_version FROM system.local WHERE key = 'local'`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
	seen := map[string]bool{version(): true}
	for _, stmt := range []string{
		`CREATE KEYSPACE k1 WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1}`,
		`CREATE TABLE k1.t (a int PRIMARY KEY, b text)`,
		`DROP TABLE k1.t`,
		`DROP KEYSPACE k1`,
	} {
		if err := sess.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		v := version()
		if seen[v] {
			t.Fatalf("schema_version %s did not change after %s", v, stmt)
		}
		seen[v] = true
	}
}
