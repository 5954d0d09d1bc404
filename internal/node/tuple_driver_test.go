package node

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestDriverTupleRelationsInModifications checks multi-column relations
// in UPDATE and DELETE with bound values, through gocql: a marker for a
// list of tuples, tuples of markers, and nulls inside them.
func TestDriverTupleRelationsInModifications(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.t (k int, c int, d int, v int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC)",
		"CREATE TABLE ks.cnt (k int, c int, d int, n counter, PRIMARY KEY (k, c, d))",
	)
	exec := func(q string, args ...any) {
		t.Helper()
		if err := s.Query(q, args...).Exec(); err != nil {
			t.Fatalf("%s %v: %v", q, args, err)
		}
	}
	rows := func(q string, args ...any) string {
		t.Helper()
		it := s.Query(q, args...).Iter()
		var out []string
		var c, d, v int
		for it.Scan(&c, &d, &v) {
			out = append(out, fmt.Sprintf("%d,%d,%d", c, d, v))
		}
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return strings.Join(out, " ")
	}
	invalid := func(want string, q string, args ...any) {
		t.Helper()
		err := s.Query(q, args...).Exec()
		var rerr gocql.RequestError
		if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || !strings.Contains(rerr.Message(), want) {
			t.Fatalf("%s %v: %v, want Invalid %q", q, args, err, want)
		}
	}
	for c := 0; c < 3; c++ {
		for d := 0; d < 3; d++ {
			exec("INSERT INTO ks.t (k, c, d, v) VALUES (1, ?, ?, 0)", c, d)
		}
	}
	// gocql cannot bind a tuple marker ("(c, d) = ?"): it counts the
	// tuple's elements as values, then marshals each into the tuple.
	exec("UPDATE ks.t SET v = 1 WHERE k = 1 AND (c, d) = (?, ?)", 0, 0)
	exec("UPDATE ks.t SET v = 2 WHERE k = 1 AND (c, d) IN ?", [][]int{{0, 1}, {1, 1}, {0, 1}})
	exec("UPDATE ks.t SET v = 3 WHERE k = 1 AND (c, d) IN ((?, ?), (?, ?))", 2, 0, 2, 2)
	exec("UPDATE ks.t SET v = 4 WHERE k = 1 AND (c) IN ((?)) AND d = ?", 1, 0)
	if got, want := rows("SELECT c, d, v FROM ks.t WHERE k = 1"), "0,2,0 0,1,2 0,0,1 1,2,0 1,1,2 1,0,4 2,2,3 2,1,0 2,0,3"; got != want {
		t.Fatalf("after UPDATEs: %s, want %s", got, want)
	}
	invalid("Invalid null value in condition for columns: [c, d]", "UPDATE ks.t SET v = 5 WHERE k = 1 AND (c, d) IN ?", [][]*int{{new(int), nil}})
	invalid("Invalid null value in condition for columns: [c, d]", "UPDATE ks.t SET v = 5 WHERE k = 1 AND (c, d) IN ((?, ?), (?, ?))", 1, nil, 1, 1)
	invalid("Slice restrictions are not supported on the clustering columns in UPDATE statements", "UPDATE ks.t SET v = 5 WHERE k = 1 AND (c, d) > (?, ?)", 0, 0)

	// c ASC, d DESC: (c, d) > (0, 1) AND (c, d) <= (2, 0) is d > 1 for
	// c = 0, all of c = 1, and d <= 0 for c = 2, in value order: several
	// ranges in clustering order.
	exec("DELETE FROM ks.t WHERE k = 1 AND (c, d) > (?, ?) AND (c, d) <= (?, ?)", 0, 1, 2, 0)
	if got, want := rows("SELECT c, d, v FROM ks.t WHERE k = 1"), "0,1,2 0,0,1 2,2,3 2,1,0"; got != want {
		t.Fatalf("after a range DELETE: %s, want %s", got, want)
	}
	exec("DELETE FROM ks.t WHERE k = 1 AND (c) IN ?", [][]int{{2}})
	exec("DELETE FROM ks.t WHERE k = 1 AND (c, d) = (?, ?)", 0, 0)
	if got, want := rows("SELECT c, d, v FROM ks.t WHERE k = 1"), "0,1,2"; got != want {
		t.Fatalf("after DELETEs: %s, want %s", got, want)
	}

	// A counter UPDATE reads before it writes, row by row.
	exec("UPDATE ks.cnt SET n = n + 1 WHERE k = 1 AND (c, d) IN ?", [][]int{{1, 1}, {2, 2}})
	exec("UPDATE ks.cnt SET n = n + 1 WHERE k = 1 AND (c, d) IN ?", [][]int{{1, 1}})
	if got, want := rows("SELECT c, d, n FROM ks.cnt WHERE k = 1"), "1,1,2 2,2,1"; got != want {
		t.Fatalf("counters: %s, want %s", got, want)
	}
}

// TestDriverIndexValueOver64K checks that a legacy index refuses a lookup
// of more than 65,535 bytes, which it cannot hold as its partition key, as
// Cassandra's CassandraIndex.validate(ReadCommand) does (SelectTest.
// testIndexQueryWithValueOver64K); a query without the index answers it.
func TestDriverIndexValueOver64K(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.big (a int, b int, c text, PRIMARY KEY (a, b))",
		"CREATE INDEX big_c ON ks.big (c)",
		"INSERT INTO ks.big (a, b, c) VALUES (1, 1, 'x')",
	)
	big := strings.Repeat("x", 70000)
	for _, n := range []int{70000, 0x10000} {
		err := s.Query("SELECT a FROM ks.big WHERE c = ?", big[:n]).Exec()
		var rerr gocql.RequestError
		if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != "Index expression values may not be larger than 64K" {
			t.Fatalf("indexed value of %d bytes: %v, want Invalid (64K)", n, err)
		}
	}
	// The edge: 65,535 bytes are looked up (and find nothing).
	if n := countRows(t, s, "SELECT a FROM ks.big WHERE c = ?", big[:0xFFFF]); n != 0 {
		t.Fatalf("indexed value of 65,535 bytes: %d rows, want 0", n)
	}
	if err := s.Query("DROP INDEX ks.big_c").Exec(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT a FROM ks.big WHERE c = ? ALLOW FILTERING", big); n != 0 {
		t.Fatalf("filtered: %d rows, want 0", n)
	}
}

// TestDriverIndexedWriteOver64K checks that a write whose indexed value a
// legacy index cannot hold (64 KiB or more) is refused before anything is
// written, as Cassandra's CassandraIndex.validateIndexedValue does
// (SecondaryIndexTest.testIndexOnCompositeValueOver64k); the column's
// other writes, and tables without the index, take it.
func TestDriverIndexedWriteOver64K(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.w (a int PRIMARY KEY, b int, c blob)",
		"CREATE INDEX w_c ON ks.w (c)",
		"CREATE TABLE ks.plain (a int PRIMARY KEY, c blob)",
	)
	big := make([]byte, 66560)
	err := s.Query("INSERT INTO ks.w (a, b, c) VALUES (0, 0, ?)", big).Exec()
	var rerr gocql.RequestError
	want := "Cannot index value of size 66560 for index w_c on ks.w(c) (maximum allowed size=65535)"
	if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != want {
		t.Fatalf("indexed write of 66,560 bytes: %v, want Invalid %q", err, want)
	}
	if n := countRows(t, s, "SELECT a FROM ks.w"); n != 0 {
		t.Fatalf("%d rows written, want none", n)
	}
	// The edge: 65,534 bytes are indexed (and found), 65,535 are not.
	if err := s.Query("INSERT INTO ks.w (a, b, c) VALUES (0, 0, ?)", big[:0xFFFE]).Exec(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT a FROM ks.w WHERE c = ?", big[:0xFFFE]); n != 1 {
		t.Fatalf("indexed value of 65,534 bytes: %d rows found, want 1", n)
	}
	err = s.Query("INSERT INTO ks.w (a, b, c) VALUES (1, 0, ?)", big[:0xFFFF]).Exec()
	want = "Cannot index value of size 65535 for index w_c on ks.w(c) (maximum allowed size=65535)"
	if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != want {
		t.Fatalf("indexed write of 65,535 bytes: %v, want Invalid %q", err, want)
	}
	if err := s.Query("INSERT INTO ks.plain (a, c) VALUES (0, ?)", big).Exec(); err != nil {
		t.Fatal(err)
	}
}

// TestDriverIndexedBatchOver64K checks that a logged batch over two tables
// writes neither when the second's indexed value is too large.
func TestDriverIndexedBatchOver64K(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.first (a int PRIMARY KEY, c blob)",
		"CREATE TABLE ks.second (a int PRIMARY KEY, c blob)",
		"CREATE INDEX second_c ON ks.second (c)",
	)
	b := s.Batch(gocql.LoggedBatch)
	b.Query("INSERT INTO ks.first (a, c) VALUES (0, 0x00)")
	b.Query("INSERT INTO ks.second (a, c) VALUES (0, ?)", make([]byte, 70000))
	var rerr gocql.RequestError
	if err := b.Exec(); !errors.As(err, &rerr) || rerr.Code() != 0x2200 || !strings.Contains(rerr.Message(), "Cannot index value of size 70000") {
		t.Fatalf("batch: %v, want Invalid (index size)", err)
	}
	if n := countRows(t, s, "SELECT a FROM ks.first"); n != 0 {
		t.Fatalf("first table: %d rows written, want none", n)
	}
}

// countRows runs a query and returns its rows, failing the test on an error
// (which NumRows alone would count as no row).
func countRows(t *testing.T, s *gocql.Session, q string, args ...any) int {
	t.Helper()
	it := s.Query(q, args...).Iter()
	n := it.NumRows()
	if err := it.Close(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
