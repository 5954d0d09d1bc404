package node

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/query"
)

// TestIndexMatchesFiltering applies the same random writes, updates and
// deletes to two identical tables, one with secondary indexes, and checks
// that every query answered through an index returns exactly the rows the
// same query returns with ALLOW FILTERING on the table without indexes —
// the index may hold stale entries, never a wrong answer.
func TestIndexMatchesFiltering(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{Keyspace: "ks"}
	run := func(q string) *query.Result {
		t.Helper()
		res, err := ex.Query(ctx, sess, q, &query.Options{Consistency: 1})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, tbl := range []string{"idx", "raw"} {
		run(fmt.Sprintf("CREATE TABLE %s (p int, q int, c int, v int, s int static, tags set<int>, m map<int, int>, PRIMARY KEY ((p, q), c))", tbl))
	}
	for _, target := range []string{"v", "s", "c", "q", "tags", "keys(m)", "entries(m)"} {
		run("CREATE INDEX ON idx (" + target + ")")
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 600; i++ {
		p, q, c, v := rng.Intn(5), rng.Intn(2), rng.Intn(6), rng.Intn(4)
		where := fmt.Sprintf("p = %d AND q = %d", p, q)
		var stmt string
		switch rng.Intn(9) {
		case 0, 1, 2:
			stmt = fmt.Sprintf("INSERT INTO %%s (p, q, c, v, tags, m) VALUES (%d, %d, %d, %d, {%d, %d}, {%d: %d})",
				p, q, c, v, rng.Intn(4), rng.Intn(4), rng.Intn(3), rng.Intn(3))
		case 3:
			stmt = fmt.Sprintf("UPDATE %%s SET v = %d WHERE %s AND c = %d", v, where, c)
		case 4:
			stmt = fmt.Sprintf("UPDATE %%s SET s = %d WHERE %s", v, where)
		case 5:
			stmt = fmt.Sprintf("DELETE FROM %%s WHERE %s AND c = %d", where, c)
		case 6:
			stmt = fmt.Sprintf("DELETE v FROM %%s WHERE %s AND c = %d", where, c)
		case 7:
			stmt = fmt.Sprintf("UPDATE %%s SET tags = tags - {%d}, m[%d] = %d WHERE %s AND c = %d", rng.Intn(4), rng.Intn(3), rng.Intn(3), where, c)
		case 8:
			if rng.Intn(4) == 0 {
				stmt = fmt.Sprintf("DELETE FROM %%s WHERE %s", where)
			} else {
				stmt = fmt.Sprintf("DELETE FROM %%s WHERE %s AND c > %d", where, c)
			}
		}
		// Same timestamp on both tables, so that ties resolve alike.
		using := fmt.Sprintf(" USING TIMESTAMP %d", 1000+i)
		for _, tbl := range []string{"idx", "raw"} {
			q := fmt.Sprintf(stmt, tbl+using)
			if strings.HasPrefix(q, "INSERT") {
				q = fmt.Sprintf(stmt, tbl) + using
			}
			run(q)
		}
	}
	var conds []string
	for x := 0; x < 4; x++ {
		conds = append(conds,
			fmt.Sprintf("v = %d", x), fmt.Sprintf("s = %d", x), fmt.Sprintf("c = %d", x),
			fmt.Sprintf("q = %d", x%2), fmt.Sprintf("tags CONTAINS %d", x),
			fmt.Sprintf("m CONTAINS KEY %d", x%3), fmt.Sprintf("m[%d] = %d", x%3, x%3),
			fmt.Sprintf("v = %d AND c > 2", x))
	}
	total := 0
	for _, cond := range conds {
		q := "SELECT * FROM idx WHERE " + cond
		if strings.Contains(cond, " AND ") {
			// The index answers v; the clustering slice is filtered.
			q += " ALLOW FILTERING"
		}
		got := run(q)
		want := run("SELECT * FROM raw WHERE " + cond + " ALLOW FILTERING")
		if !reflect.DeepEqual(got.Rows, want.Rows) {
			t.Errorf("%s: index returned %d rows, filtering %d", cond, len(got.Rows), len(want.Rows))
		}
		total += len(want.Rows)
	}
	if total < 50 {
		t.Fatalf("only %d rows matched: the history is too sparse to test anything", total)
	}
}

// TestViewMatchesBase applies random writes, updates, deletes, batches and
// conditional updates to a table with materialized views and checks after
// each step that every view holds exactly the image of the base table.
func TestViewMatchesBase(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.MaterializedViewsEnabled = true
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{Keyspace: "ks"}
	run := func(q string) *query.Result {
		t.Helper()
		res, err := ex.Query(ctx, sess, q, &query.Options{Consistency: 1})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run("CREATE TABLE base (p int, c int, v int, w text, s int static, PRIMARY KEY (p, c))")
	run("CREATE MATERIALIZED VIEW by_v AS SELECT p, c, v, w FROM base WHERE v IS NOT NULL AND p IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, p, c)")
	run("CREATE MATERIALIZED VIEW by_c AS SELECT p, c, w FROM base WHERE c IS NOT NULL AND p IS NOT NULL AND c > 1 PRIMARY KEY (c, p) WITH CLUSTERING ORDER BY (p DESC)")
	rng := rand.New(rand.NewSource(2))
	check := func(step string) {
		t.Helper()
		for _, c := range []struct{ view, base string }{
			{"SELECT v, p, c, w FROM by_v", "SELECT v, p, c, w FROM base WHERE v > -1000 ALLOW FILTERING"},
			{"SELECT c, p, w FROM by_c", "SELECT c, p, w FROM base WHERE c > 1 ALLOW FILTERING"},
		} {
			got, want := sortedRows(run(c.view).Rows), sortedRows(run(c.base).Rows)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after %s: %s has %d rows, base image %d\nview: %v\nbase: %v", step, c.view, len(got), len(want), got, want)
			}
		}
	}
	for i := 0; i < 300; i++ {
		p, c, v := rng.Intn(4), rng.Intn(5), rng.Intn(3)
		var stmt string
		switch rng.Intn(8) {
		case 0, 1:
			stmt = fmt.Sprintf("INSERT INTO base (p, c, v, w) VALUES (%d, %d, %d, 'w%d')", p, c, v, i)
		case 2:
			stmt = fmt.Sprintf("UPDATE base SET v = %d WHERE p = %d AND c = %d", v, p, c)
		case 3:
			stmt = fmt.Sprintf("UPDATE base SET w = 'u%d', s = %d WHERE p = %d AND c = %d", i, v, p, c)
		case 4:
			stmt = fmt.Sprintf("DELETE v FROM base WHERE p = %d AND c = %d", p, c)
		case 5:
			if rng.Intn(3) == 0 {
				stmt = fmt.Sprintf("DELETE FROM base WHERE p = %d", p)
			} else {
				stmt = fmt.Sprintf("DELETE FROM base WHERE p = %d AND c >= %d", p, c)
			}
		case 6:
			stmt = fmt.Sprintf("BEGIN BATCH INSERT INTO base (p, c, v) VALUES (%d, %d, %d); UPDATE base SET v = %d WHERE p = %d AND c = %d; APPLY BATCH",
				p, c, v, rng.Intn(3), rng.Intn(4), rng.Intn(5))
		case 7:
			stmt = fmt.Sprintf("UPDATE base SET v = %d WHERE p = %d AND c = %d IF EXISTS", v, p, c)
		}
		run(stmt)
		check(stmt)
	}
}

// sortedRows orders result rows by their bytes, for comparisons that do
// not depend on order.
func sortedRows(rows [][][]byte) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%x", r)
	}
	sort.Strings(out)
	return out
}

// TestIndexesAndViewsSurviveRestart checks that indexes and views, their
// definitions and their data, are there after a restart, and keep being
// maintained.
func TestIndexesAndViewsSurviveRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := DefaultConfig()
	cfg.DataDir = dir
	cfg.MaterializedViewsEnabled = true
	sess := &query.Session{Keyspace: "ks"}
	run := func(n *Node, q string) *query.Result {
		t.Helper()
		return mustQuery(t, n, sess, q)
	}
	n := startTestNodeConfig(t, cfg)
	run(n, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run(n, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	run(n, "CREATE INDEX t_v ON t (v)")
	run(n, "CREATE MATERIALIZED VIEW t_by_v AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)")
	run(n, "INSERT INTO t (k, v) VALUES (1, 'a')")
	run(n, "INSERT INTO t (k, v) VALUES (2, 'b')")
	stopTestNode(t, n)

	n = startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	run(n, "UPDATE t SET v = 'a' WHERE k = 2")
	if got := len(run(n, "SELECT k FROM t WHERE v = 'a'").Rows); got != 2 {
		t.Fatalf("index after restart: %d rows, want 2", got)
	}
	if got := len(run(n, "SELECT k FROM t_by_v WHERE v = 'a'").Rows); got != 2 {
		t.Fatalf("view after restart: %d rows, want 2", got)
	}
	if got := len(run(n, "SELECT k FROM t_by_v WHERE v = 'b'").Rows); got != 0 {
		t.Fatalf("view kept a moved row: %d rows", got)
	}
}
