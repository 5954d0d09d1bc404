package node

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestDriverINProductBounded checks through gocql that products of IN
// lists that would hold more than 64 MiB are refused with Invalid instead
// of built (rows of an UPDATE, partition keys times clusterings, with what
// each writes; slices of a SELECT, clustering prefixes times tuples), and
// that ordinary ones run.
func TestDriverINProductBounded(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.p (k int, c int, d int, e int, v int, b blob, PRIMARY KEY (k, c, d, e)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE TABLE ks.cnt (k int, c int, n counter, PRIMARY KEY (k, c))",
	)
	ints := func(n int) []int {
		vs := make([]int, n)
		for i := range vs {
			vs[i] = i
		}
		return vs
	}
	tuples := func(n int) [][]int {
		vs := make([][]int, n)
		for i := range vs {
			vs[i] = []int{i, i}
		}
		return vs
	}
	refused := func(what string, err error) {
		t.Helper()
		var rerr gocql.RequestError
		if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || !strings.Contains(rerr.Message(), "cartesian product") {
			t.Fatalf("%s: %v, want Invalid (cartesian product)", what, err)
		}
	}
	update := "UPDATE ks.p SET v = 1 WHERE k IN ? AND c IN ? AND d = 0 AND e = 0"
	refused("UPDATE of 3,000 x 3,000 rows", s.Query(update, ints(3000), ints(3000)).Exec())
	if err := s.Query(update, ints(50), ints(50)).Exec(); err != nil {
		t.Fatalf("UPDATE of 50 x 50 rows: %v", err)
	}
	// What each row writes counts too: 100 x 100 rows of an 8 KB value
	// are 80 MB in the storage batch.
	blob := "UPDATE ks.p SET b = ? WHERE k IN ? AND c IN ? AND d = 1 AND e = 1"
	big := make([]byte, 8<<10)
	refused("UPDATE of 100 x 100 rows of 8 KB", s.Query(blob, big, ints(100), ints(100)).Exec())
	if err := s.Query(blob, big, ints(10), ints(10)).Exec(); err != nil {
		t.Fatalf("UPDATE of 10 x 10 rows of 8 KB: %v", err)
	}
	// A statement that reads before writing counts what its operations
	// write per row, not its bound IN list once per row.
	if err := s.Query("UPDATE ks.cnt SET n = n + 1 WHERE k = 1 AND c IN ?", ints(3000)).Exec(); err != nil {
		t.Fatalf("counter UPDATE of 3,000 rows: %v", err)
	}
	sel := "SELECT c, d, e FROM ks.p WHERE k = 7 AND c IN ? AND (d, e) IN ?"
	refused("SELECT of 3,000 prefixes x 3,000 tuples", s.Query(sel, ints(3000), tuples(3000)).Exec())
	// Partition 7 has rows c = 0..49 (d = e = 0), returned in clustering
	// order (c DESC), after an IN of tuples and after a range of them. A
	// DESC column's prefixes arrive in the reverse of clustering order:
	// 200,000 of them must be sorted in n log n, not n^2/2 steps (the
	// query layer's and storage's sorts were insertion sorts: minutes, far
	// past this deadline, instead of milliseconds).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rangeSel := "SELECT c, d, e FROM ks.p WHERE k = 7 AND c IN ? AND (d, e) >= (0, 0) AND (d, e) <= (0, 0)"
	for _, tc := range []struct {
		q        string
		prefixes int
		more     []any // bound after the prefixes
	}{{sel, 50, []any{tuples(1)}}, {sel, 200000, []any{tuples(1)}}, {rangeSel, 50, nil}, {rangeSel, 200000, nil}} {
		it := s.Query(tc.q, append([]any{ints(tc.prefixes)}, tc.more...)...).WithContext(ctx).Iter()
		var c, d, e, rows int
		prev := 1 << 30
		for it.Scan(&c, &d, &e) {
			if c >= prev || d != 0 || e != 0 {
				t.Fatalf("%d prefixes: row (%d, %d, %d) after c = %d", tc.prefixes, c, d, e, prev)
			}
			prev = c
			rows++
		}
		if err := it.Close(); err != nil || rows != 50 {
			t.Fatalf("%s with %d prefixes: %d rows, %v", tc.q, tc.prefixes, rows, err)
		}
	}
}

// TestDriverEmptyINSelectsNothing checks that an empty IN list selects no
// row whatever follows it: a range or an IN of tuples after `c IN ()`,
// and an empty IN of tuples. A nil list of slices means "no clustering
// restriction", and a range after an empty IN once returned the whole
// partition.
func TestDriverEmptyINSelectsNothing(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.p (k int, c int, d int, e int, PRIMARY KEY (k, c, d, e))",
		"INSERT INTO ks.p (k, c, d, e) VALUES (1, 1, 1, 1)",
		"INSERT INTO ks.p (k, c, d, e) VALUES (1, 2, 2, 2)",
	)
	for _, c := range []struct {
		q    string
		args []any
		want int
	}{
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ? AND (d, e) > (0, 0)", []any{[]int{}}, 0},
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ? AND (d, e) IN ?", []any{[]int{}, [][]int{{1, 1}}}, 0},
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ? AND (d, e) IN ?", []any{[]int{1, 2}, [][]int{}}, 0},
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ?", []any{[]int{}}, 0},
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ? AND (d, e) > (0, 0)", []any{[]int{1, 2}}, 2},
		{"SELECT c FROM ks.p WHERE k = 1 AND c IN ? AND (d, e) IN ?", []any{[]int{1, 2}, [][]int{{2, 2}}}, 1},
	} {
		it := s.Query(c.q, c.args...).Iter()
		rows := it.NumRows()
		if err := it.Close(); err != nil || rows != c.want {
			t.Errorf("%s %v: %d rows, %v; want %d", c.q, c.args, rows, err, c.want)
		}
	}
}
