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
// reports the failure and keeps the data; its id stays taken, and the next
// start snapshots the data (as the DROP asked) and removes it.
func TestAutoSnapshotFailure(t *testing.T) {
	dir := t.TempDir()
	n := startTestNode(t, dir)
	defer func() { stopTestNode(t, n) }()
	sess := &query.Session{}
	setupKS(t, n.Executor(), "CREATE TABLE ks.t (k int PRIMARY KEY, v int)", "INSERT INTO ks.t (k, v) VALUES (1, 1)")
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
	create := "CREATE TABLE ks.t (k int PRIMARY KEY, v int) WITH ID = " + id.String()
	if err := run(create); err == nil || !strings.Contains(err.Error(), "is still used by the data of dropped ks.t, not yet removed") {
		t.Fatalf("CREATE TABLE WITH ID of the kept data: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "snapshots", "ks")); err != nil {
		t.Fatal(err)
	}
	// The next start keeps to the snapshot the DROP asked for, even with
	// auto_snapshot off by then.
	stopTestNode(t, n)
	n = startNodeWith(t, dir, func(c *Config) { c.AutoSnapshot = false })
	if rs := n.Schema().PendingRemovals(); len(rs) != 0 {
		t.Fatalf("pending after the start: %v", rs)
	}
	snaps := n.Snapshots().List()
	if len(snaps) != 1 || !strings.HasPrefix(snaps[0].Tag, "dropped-") || snaps[0].TableID != id {
		t.Fatalf("snapshots after the start: %+v", snaps)
	}
	mustQuery(t, n, sess, create)
	if res := mustQuery(t, n, sess, "SELECT * FROM ks.t"); len(res.Rows) != 0 {
		t.Fatalf("the dropped table's data was not removed: %d rows", len(res.Rows))
	}
}
