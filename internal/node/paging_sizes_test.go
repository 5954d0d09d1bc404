package node

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cqld/cqld/internal/query"
)

// TestPagingEveryPageSize checks, for several query shapes, that reading a
// SELECT with every page size from 1 up to past the result size returns
// exactly the unpaged rows, in the same order.
func TestPagingEveryPageSize(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{}
	exec := func(q string) {
		t.Helper()
		res, err := ex.Query(ctx, sess, q, &query.Options{Consistency: 1})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if res.Kind == query.SetKeyspaceResult {
			sess.Keyspace = res.Keyspace
		}
	}
	exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec("USE ks")
	exec("CREATE TABLE t (p int, c1 int, c2 text, v int, s text static, PRIMARY KEY (p, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)")
	for p := 0; p < 6; p++ {
		if p != 4 {
			exec(fmt.Sprintf("UPDATE t SET s = 's%d' WHERE p = %d", p, p))
		}
		for c1 := 0; c1 < p; c1++ {
			for _, c2 := range []string{"a", "b"} {
				exec(fmt.Sprintf("INSERT INTO t (p, c1, c2, v) VALUES (%d, %d, '%s', %d)", p, c1, c2, p*100+c1))
			}
		}
	}
	exec("CREATE TABLE ev (p int, t timestamp, v int, PRIMARY KEY (p, t))")
	for p := 0; p < 3; p++ {
		for i := 0; i < 12; i++ {
			exec(fmt.Sprintf("INSERT INTO ev (p, t, v) VALUES (%d, %d, %d)", p, int64(i)*1700000, i))
		}
	}
	exec("CREATE TABLE kv (k int PRIMARY KEY, v int)")
	for k := 0; k < 9; k++ {
		exec(fmt.Sprintf("INSERT INTO kv (k, v) VALUES (%d, %d)", k, k*k))
	}
	// Secondary indexes: on a regular column (several rows per partition),
	// on a static column (whole partitions) and on a clustering column.
	exec("CREATE TABLE ix (p int, c int, g int, st int static, PRIMARY KEY (p, c))")
	for p := 0; p < 7; p++ {
		exec(fmt.Sprintf("UPDATE ix SET st = %d WHERE p = %d", p%2, p))
		for c := 0; c < p; c++ {
			exec(fmt.Sprintf("INSERT INTO ix (p, c, g) VALUES (%d, %d, %d)", p, c, c%3))
		}
	}
	exec("CREATE INDEX ON ix (g)")
	exec("CREATE INDEX ON ix (st)")
	exec("CREATE INDEX ON ix (c)")
	queries := []string{
		"SELECT * FROM ix WHERE g = 1",
		"SELECT * FROM ix WHERE g = 0 PER PARTITION LIMIT 1",
		"SELECT * FROM ix WHERE g = 0 LIMIT 4",
		"SELECT * FROM ix WHERE st = 1",
		"SELECT * FROM ix WHERE st = 0 PER PARTITION LIMIT 2",
		"SELECT * FROM ix WHERE c = 2",
		"SELECT * FROM ix WHERE g = 2 AND c > 2 ALLOW FILTERING",
		"SELECT * FROM t WHERE p = 5",
		"SELECT * FROM t WHERE p = 5 ORDER BY c1 ASC",
		"SELECT * FROM t WHERE p = 5 AND c1 >= 1 AND c1 < 4",
		"SELECT * FROM t WHERE p = 5 AND c1 IN (0, 3, 4)",
		"SELECT * FROM t WHERE p = 5 AND c1 IN (0, 3, 4) ORDER BY c1 ASC, c2 DESC",
		"SELECT * FROM t WHERE p = 5 AND (c1, c2) > (1, 'a')",
		"SELECT * FROM t WHERE p = 5 AND (c1, c2) IN ((1, 'a'), (3, 'b'), (4, 'a'))",
		"SELECT * FROM t WHERE p IN (0, 2, 3, 5)",
		"SELECT * FROM t WHERE p IN (0, 2, 3, 5) AND c1 = 1",
		"SELECT * FROM t",
		"SELECT p, s FROM t",
		"SELECT * FROM t LIMIT 7",
		"SELECT * FROM t PER PARTITION LIMIT 3",
		"SELECT * FROM t PER PARTITION LIMIT 1",
		"SELECT * FROM t WHERE p IN (1, 3, 5) PER PARTITION LIMIT 2 LIMIT 5",
		"SELECT DISTINCT p, s FROM t",
		"SELECT * FROM t WHERE v > 200 ALLOW FILTERING",
		"SELECT * FROM t WHERE c1 = 2 ALLOW FILTERING",
		"SELECT * FROM t WHERE token(p) > 0",
		"SELECT p, c1, v + 1, writetime(v) FROM t WHERE p = 4",
		"SELECT p, count(*), max(v) FROM t GROUP BY p",
		"SELECT count(*), max(v), min(c2) FROM t",
		"SELECT count(*), sum(v) FROM t WHERE p = 5",
		"SELECT count(*), avg(v) FROM t WHERE p IN (2, 3, 5) AND c1 > 0",
		"SELECT count(*) FROM t WHERE v > 100 ALLOW FILTERING",
		"SELECT count(*), max(v) FROM kv",
		"SELECT count(*), max(c) FROM ix WHERE g = 1",
		"SELECT p, c1, count(*), sum(v) FROM t GROUP BY p, c1",
		"SELECT p, c1, count(*) FROM t GROUP BY p, c1 LIMIT 5",
		"SELECT c1, count(*) FROM t WHERE p = 5 GROUP BY c1",
		"SELECT p, c1, c2 FROM t WHERE p IN (3, 5) GROUP BY p, c1",
		"SELECT * FROM t WHERE p = 5 AND (c1, c2) >= (1, 'b') AND (c1, c2) < (4, 'a')",
		"SELECT p, floor(t, 1h), count(*), max(v) FROM ev GROUP BY p, floor(t, 1h)",
		"SELECT floor(t, 2h), avg(v) FROM ev WHERE p = 1 GROUP BY floor(t, 2h)",
		"SELECT p, count(*) FROM ev GROUP BY p LIMIT 2",
		"SELECT p, floor(t, 1h), count(*) FROM ev GROUP BY p, floor(t, 1h) PER PARTITION LIMIT 2",
		"SELECT p, c1, count(*) FROM t GROUP BY p, c1 PER PARTITION LIMIT 1",
		"SELECT JSON p, t FROM ev WHERE p IN (0, 2) AND t > 3000000",
		"SELECT * FROM kv",
		"SELECT * FROM kv WHERE k IN (8, 1, 5)",
		"SELECT k FROM kv WHERE v > 10 ALLOW FILTERING",
		"SELECT * FROM kv LIMIT 4",
	}
	for _, q := range queries {
		full, err := ex.Query(ctx, sess, q, &query.Options{Consistency: 1})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if full.PagingState != nil {
			t.Fatalf("%s: unpaged query returned a paging state", q)
		}
		for size := 1; size <= len(full.Rows)+1; size++ {
			var got [][][]byte
			opts := &query.Options{Consistency: 1, PageSize: int32(size)}
			for pages := 0; ; pages++ {
				if pages > len(full.Rows)+2 {
					t.Fatalf("%s page size %d: too many pages", q, size)
				}
				res, err := ex.Query(ctx, sess, q, opts)
				if err != nil {
					t.Fatalf("%s page size %d: %v", q, size, err)
				}
				if len(res.Rows) > size {
					t.Fatalf("%s page size %d: page of %d rows", q, size, len(res.Rows))
				}
				got = append(got, res.Rows...)
				if res.PagingState == nil {
					break
				}
				opts = &query.Options{Consistency: 1, PageSize: int32(size), PagingState: res.PagingState}
			}
			if len(got) == 0 && len(full.Rows) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, full.Rows) {
				t.Errorf("%s page size %d:\n got %d rows %v\nwant %d rows %v", q, size, len(got), got, len(full.Rows), full.Rows)
				break
			}
		}
	}
}
