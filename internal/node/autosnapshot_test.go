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

// TestAutoSnapshotFailure: when the snapshot before a TRUNCATE or a DROP
// cannot be taken, TRUNCATE fails and leaves the data, and DROP TABLE
// reports the failure and keeps the data (the table is gone; recreating
// it with its id, as the snapshot's schema.cql would, finds the rows).
func TestAutoSnapshotFailure(t *testing.T) {
	dir := t.TempDir()
	n := startTestNode(t, dir)
	defer stopTestNode(t, n)
	sess := &query.Session{}
	mustQuery(t, n, sess, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustQuery(t, n, sess, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	mustQuery(t, n, sess, "INSERT INTO ks.t (k, v) VALUES (1, 1)")
	id := n.Schema().Current().Table("ks", "t").ID
	// A file where the keyspace's snapshot directory would go.
	if err := os.MkdirAll(filepath.Join(dir, "snapshots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshots", "ks"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(q string) error {
		_, err := n.Executor().Query(context.Background(), sess, q, &query.Options{Consistency: 1})
		return err
	}
	err := run("TRUNCATE ks.t")
	if ce := cqlerr.As(err); ce == nil || ce.Code != cqlerr.TruncateError {
		t.Fatalf("TRUNCATE: %v", err)
	}
	if res := mustQuery(t, n, sess, "SELECT * FROM ks.t"); len(res.Rows) != 1 {
		t.Fatalf("TRUNCATE without its snapshot removed the data: %d rows", len(res.Rows))
	}
	err = run("DROP TABLE ks.t")
	if ce := cqlerr.As(err); ce == nil || ce.Code != cqlerr.ServerError || !strings.Contains(ce.Message, "Failed to snapshot ks.t before dropping its data, which is kept") {
		t.Fatalf("DROP TABLE: %v", err)
	}
	if n.Schema().Current().Table("ks", "t") != nil {
		t.Fatal("the table was not dropped")
	}
	mustQuery(t, n, sess, "CREATE TABLE ks.t (k int PRIMARY KEY, v int) WITH ID = "+id.String())
	if res := mustQuery(t, n, sess, "SELECT * FROM ks.t"); len(res.Rows) != 1 {
		t.Fatalf("the dropped table's data: %d rows", len(res.Rows))
	}
}
