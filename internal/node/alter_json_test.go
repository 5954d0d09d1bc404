package node

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// TestAlterTableAndBoundJSON checks, at the executor level, the result of
// ALTER TABLE (a SCHEMA_CHANGE UPDATED TABLE, pushed to clients by the same
// hook as every DDL), that a prepared statement sees the new columns, and
// INSERT JSON with a bound JSON value.
func TestAlterTableAndBoundJSON(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{}
	run := func(q string, vals ...query.Value) *query.Result {
		t.Helper()
		res, err := ex.Query(ctx, sess, q, &query.Options{Consistency: 1, Values: vals})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run("CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	before := n.schema.Current().Version
	prep, err := ex.Prepare(ctx, sess, "SELECT * FROM ks.t", "")
	if err != nil {
		t.Fatal(err)
	}
	res := run("ALTER TABLE ks.t ADD w text")
	if sc := res.SchemaChange; res.Kind != query.SchemaChangeResult || sc.Change != "UPDATED" || sc.Target != "TABLE" || sc.Keyspace != "ks" || sc.Name != "t" {
		t.Fatalf("ALTER result %+v %+v", res, res.SchemaChange)
	}
	if n.schema.Current().Version == before {
		t.Fatal("schema version unchanged by ALTER TABLE")
	}
	// Nothing changes: no event, no new version.
	v1 := n.schema.Current().Version
	if res := run("ALTER TABLE ks.t ADD IF NOT EXISTS w text"); res.Kind != query.VoidResult || n.schema.Current().Version != v1 {
		t.Fatalf("no-op ALTER: %+v", res)
	}

	p, err := ex.Prepare(ctx, sess, "INSERT INTO ks.t JSON ? DEFAULT UNSET", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Bound) != 1 || p.Bound[0].Name != "[json]" || p.Bound[0].Type.Kind != types.Text {
		t.Fatalf("bound JSON spec %+v", p.Bound)
	}
	exec := func(doc string) error {
		_, err := ex.Execute(ctx, sess, p.ID, nil, &query.Options{Consistency: 1, Values: []query.Value{{B: []byte(doc)}}})
		return err
	}
	if err := exec(`{"k": 1, "v": 1, "w": "a"}`); err != nil {
		t.Fatal(err)
	}
	if err := exec(`{"k": 1, "w": "b"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Execute(ctx, sess, p.ID, nil, &query.Options{Consistency: 1, Values: []query.Value{{}}}); err == nil || err.Error() == "" {
		t.Fatal("null JSON accepted")
	}
	res, err = ex.Execute(ctx, sess, prep.ID, nil, &query.Options{Consistency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 3 || res.Columns[2].Name != "w" || len(res.Rows) != 1 {
		t.Fatalf("prepared SELECT * after ALTER: %+v", res.Columns)
	}
	row := res.Rows[0]
	if types.Format(types.IntType, row[1]) != "1" || string(row[2]) != "b" {
		t.Fatalf("row after DEFAULT UNSET: v=%x w=%q", row[1], row[2])
	}
}
