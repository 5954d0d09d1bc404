package node

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cqld/cqld/internal/query"
)

// TestNegatedEmptyValue: -? of an empty bound value writes null, as 0 - ?
// does (an empty operand of an arithmetic operation is null).
func TestNegatedEmptyValue(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	sess := &query.Session{}
	setupKS(t, n.Executor(), "CREATE TABLE ks.t (k int PRIMARY KEY, v int, d decimal)", "INSERT INTO ks.t (k, v, d) VALUES (1, 5, 1.5)")
	for _, q := range []string{"UPDATE ks.t SET v = -?, d = -? WHERE k = 1", "UPDATE ks.t SET v = 0 - ?, d = 0 - ? WHERE k = 1"} {
		opts := &query.Options{Consistency: 1, Values: []query.Value{{B: []byte{}}, {B: []byte{}}}}
		if _, err := n.Executor().Query(context.Background(), sess, q, opts); err != nil {
			t.Fatalf("%s with empty values: %v", q, err)
		}
		row := mustQuery(t, n, sess, "SELECT v, d FROM ks.t WHERE k = 1").Rows[0]
		if row[0] != nil || row[1] != nil {
			t.Fatalf("%s: v=%x d=%x, want nulls", q, row[0], row[1])
		}
		mustQuery(t, n, sess, "INSERT INTO ks.t (k, v, d) VALUES (1, 5, 1.5)")
	}
}
