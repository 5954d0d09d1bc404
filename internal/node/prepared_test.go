package node

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cqld/cqld/internal/query"
)

// TestPreparedStatementsSurviveRestart: statements prepared before a
// restart execute after it by their id, as Cassandra preloads
// system.prepared_statements; one whose table was dropped is removed from
// the table instead.
func TestPreparedStatementsSurviveRestart(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	sess := &query.Session{}
	one := &query.Options{Consistency: 1}
	run := func(n *Node, q string) *query.Result {
		t.Helper()
		res, err := n.Executor().Query(ctx, sess, q, one)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	n := startTestNodeConfig(t, cfg)
	run(n, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run(n, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	run(n, "CREATE TABLE ks.gone (k int PRIMARY KEY)")
	ins, err := n.Executor().Prepare(ctx, sess, "INSERT INTO t (k, v) VALUES (?, ?)", "ks")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := n.Executor().Prepare(ctx, sess, "SELECT v FROM ks.t WHERE k = ?", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Executor().Prepare(ctx, sess, "SELECT * FROM ks.gone", ""); err != nil {
		t.Fatal(err)
	}
	// Preparing again writes nothing new.
	if _, err := n.Executor().Prepare(ctx, sess, "SELECT v FROM ks.t WHERE k = ?", ""); err != nil {
		t.Fatal(err)
	}
	if got := len(run(n, "SELECT * FROM system.prepared_statements").Rows); got != 3 {
		t.Fatalf("%d persisted statements, want 3", got)
	}
	run(n, "DROP TABLE ks.gone")
	stopTestNode(t, n)

	n = startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	one.Values = []query.Value{{B: []byte{0, 0, 0, 1}}, {B: []byte("a")}}
	if _, err := n.Executor().Execute(ctx, sess, ins.ID, nil, one); err != nil {
		t.Fatalf("execute after restart: %v", err)
	}
	one.Values = []query.Value{{B: []byte{0, 0, 0, 1}}}
	res, err := n.Executor().Execute(ctx, sess, sel.ID, nil, one)
	if err != nil {
		t.Fatalf("execute after restart: %v", err)
	}
	if len(res.Rows) != 1 || string(res.Rows[0][0]) != "a" {
		t.Fatalf("read %q", res.Rows)
	}
	one.Values = nil
	rows := run(n, "SELECT logged_keyspace, query_string FROM system.prepared_statements").Rows
	if len(rows) != 2 {
		t.Fatalf("persisted after restart: %q", rows)
	}
	for _, r := range rows {
		if q := string(r[1]); q == "INSERT INTO t (k, v) VALUES (?, ?)" && string(r[0]) != "ks" || q != "INSERT INTO t (k, v) VALUES (?, ?)" && r[0] != nil {
			t.Errorf("row %q", r)
		}
	}
}
