package node

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
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
	n := startTestNodeConfig(t, cfg)
	setupKS(t, n.Executor(), "CREATE TABLE ks.t (k int PRIMARY KEY, v text)", "CREATE TABLE ks.gone (k int PRIMARY KEY)")
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
	written := func() string {
		t.Helper()
		res := exec(t, n, fmt.Sprintf("SELECT writetime(query_string) FROM system.prepared_statements WHERE prepared_id = 0x%x", sel.ID))
		if len(res.Rows) != 1 {
			t.Fatalf("persisted rows of the SELECT: %d", len(res.Rows))
		}
		return fmt.Sprintf("%x", res.Rows[0][0])
	}
	before := written()
	if _, err := n.Executor().Prepare(ctx, sess, "SELECT v FROM ks.t WHERE k = ?", ""); err != nil {
		t.Fatal(err)
	}
	if written() != before {
		t.Fatal("preparing a known statement wrote its row again")
	}
	if got := len(exec(t, n, "SELECT * FROM system.prepared_statements").Rows); got != 3 {
		t.Fatalf("%d persisted statements, want 3", got)
	}
	exec(t, n, "DROP TABLE ks.gone")
	// Rows the preload cannot use: a statement on a table that does not
	// exist (with its right id), and a row whose id is not its
	// statement's. The preload deletes both.
	nope := md5.Sum([]byte("SELECT * FROM ks.nope"))
	exec(t, n, fmt.Sprintf("INSERT INTO system.prepared_statements (prepared_id, query_string) VALUES (0x%x, 'SELECT * FROM ks.nope')", nope))
	exec(t, n, "INSERT INTO system.prepared_statements (prepared_id, query_string) VALUES (0x00, 'SELECT * FROM ks.t')")
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
	rows := exec(t, n, "SELECT logged_keyspace, query_string FROM system.prepared_statements").Rows
	if len(rows) != 2 {
		t.Fatalf("persisted after restart: %q", rows)
	}
	for _, r := range rows {
		if q := string(r[1]); q == "INSERT INTO t (k, v) VALUES (?, ?)" && string(r[0]) != "ks" || q != "INSERT INTO t (k, v) VALUES (?, ?)" && r[0] != nil {
			t.Errorf("row %q", r)
		}
	}
}

// TestPreparedStatementsBounded: the cache is bounded by
// prepared_statements_cache_size, an evicted statement's row is deleted
// and its EXECUTE gets UNPREPARED; a DROP TABLE removes its statements
// at once (so a table recreated under the name is prepared again); the
// table can be truncated; and the preload stops at the cache's bound.
func TestPreparedStatementsBounded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	// Room for about ten statements of this size.
	cfg.PreparedStatementsCacheSize = 10 * (2048 + 8*40)
	ctx := context.Background()
	sess := &query.Session{}
	persisted := func(n *Node) int { return len(exec(t, n, "SELECT prepared_id FROM system.prepared_statements").Rows) }
	prepare := func(n *Node, q string) []byte {
		t.Helper()
		p, err := n.Executor().Prepare(ctx, sess, q, "")
		if err != nil {
			t.Fatalf("prepare %s: %v", q, err)
		}
		return p.ID
	}
	n := startTestNodeConfig(t, cfg)
	setupKS(t, n.Executor(), "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	first := prepare(n, "SELECT v FROM ks.t WHERE k = 0  -- padding")
	for i := 1; i < 30; i++ {
		prepare(n, fmt.Sprintf("SELECT v FROM ks.t WHERE k = %d  -- padding", i))
	}
	if got := persisted(n); got < 8 || got > 10 {
		t.Fatalf("%d statements persisted, want the ~10 the cache holds", got)
	}
	if _, err := n.Executor().Execute(ctx, sess, first, nil, &query.Options{Consistency: 1}); !cqlerr.Is(err, cqlerr.Unprepared) {
		t.Fatalf("evicted statement: %v", err)
	}
	ev := exec(t, n, "SELECT value FROM system_views.cql_metrics WHERE name = 'prepared_statements_evicted'").Rows
	if len(ev) != 1 || binary.BigEndian.Uint64(ev[0][0]) == 0 {
		t.Fatalf("prepared_statements_evicted %x", ev)
	}

	// DROP TABLE removes the table's statements from the cache and the
	// table; the recreated table's clients prepare again.
	exec(t, n, "CREATE TABLE ks.u (k int PRIMARY KEY, v text)")
	sel := prepare(n, "SELECT * FROM ks.u")
	exec(t, n, "DROP TABLE ks.u")
	exec(t, n, "CREATE TABLE ks.u (k int PRIMARY KEY, w int, x int)")
	if _, err := n.Executor().Execute(ctx, sess, sel, nil, &query.Options{Consistency: 1}); !cqlerr.Is(err, cqlerr.Unprepared) {
		t.Fatalf("statement of a dropped table: %v", err)
	}
	// ALTER TABLE ... DROP removes the statements of the table that no
	// longer compile; the others stay prepared.
	exec(t, n, "CREATE TABLE ks.w (k int PRIMARY KEY, a int, b int)")
	selA, selB := prepare(n, "SELECT a FROM ks.w"), prepare(n, "SELECT b FROM ks.w")
	exec(t, n, "ALTER TABLE ks.w DROP a")
	if _, err := n.Executor().Execute(ctx, sess, selA, nil, &query.Options{Consistency: 1}); !cqlerr.Is(err, cqlerr.Unprepared) {
		t.Fatalf("statement on a dropped column: %v", err)
	}
	if _, err := n.Executor().Execute(ctx, sess, selB, nil, &query.Options{Consistency: 1}); err != nil {
		t.Fatalf("statement on a kept column: %v", err)
	}
	for _, r := range exec(t, n, "SELECT query_string FROM system.prepared_statements").Rows {
		if q := string(r[0]); q == "SELECT * FROM ks.u" || q == "SELECT a FROM ks.w" {
			t.Fatalf("%s still persisted", q)
		}
	}
	stopTestNode(t, n)

	// A smaller cache at start: the preload stops at its bound and
	// leaves the rest in the table.
	cfg.PreparedStatementsCacheSize = 3 * (2048 + 8*40)
	n = startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	before := persisted(n)
	if got := n.Executor().PreparedCount(); got < 1 || got > 3 {
		t.Fatalf("%d statements preloaded, want at most the 3 the cache holds", got)
	}
	if before < 8 {
		t.Fatalf("preload deleted statements it did not load: %d left", before)
	}
	exec(t, n, "TRUNCATE system.prepared_statements")
	if got := persisted(n); got != 0 {
		t.Fatalf("%d rows after TRUNCATE", got)
	}
}
