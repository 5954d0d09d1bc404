package query

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
)

// readCounter is a Coordinator that holds no data and counts the reads
// it is asked for.
type readCounter struct {
	mu    sync.Mutex
	reads []mutation.ReadCommand
}

func (c *readCounter) Mutate(context.Context, *schema.Table, Consistency, []*mutation.PartitionUpdate) error {
	return nil
}

func (c *readCounter) Read(_ context.Context, _ *schema.Table, _ Consistency, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, *cmd)
	return nil, nil
}

func (c *readCounter) Truncate(context.Context, *schema.Table) error { return nil }
func (c *readCounter) CheckWrite(*schema.Table, Consistency) error   { return nil }

func (c *readCounter) Snapshot(context.Context, string, *schema.Keyspace, *schema.Table, time.Duration, bool) error {
	return nil
}

func (c *readCounter) LockPartitions(context.Context, []PartitionRef) (func(), error) {
	return func() {}, nil
}

// take returns the reads since the last take.
func (c *readCounter) take() []mutation.ReadCommand {
	c.mu.Lock()
	defer c.mu.Unlock()
	reads := c.reads
	c.reads = nil
	return reads
}

// oneToken puts every partition on one token (nothing here depends on it).
type oneToken struct{}

func (oneToken) Token([]byte) int64 { return 0 }

// ordinaryUsers is a Security that allows everything to every user, none
// of them a superuser: guardrails apply.
type ordinaryUsers struct{}

func (ordinaryUsers) Authorize(context.Context, *Session, string, string) error { return nil }
func (ordinaryUsers) Statement(context.Context, *Session, cql.Statement) (*Result, error) {
	return &Result{Kind: VoidResult}, nil
}
func (ordinaryUsers) Created(context.Context, *Session, string) {}
func (ordinaryUsers) Dropped(context.Context, string)           {}

// countingExecutor returns an Executor with cfg over a Coordinator that
// counts reads, with keyspace ks created and the statements run.
func countingExecutor(t *testing.T, cfg Config, stmts ...string) (*Executor, *Session, *readCounter) {
	t.Helper()
	sm, err := schema.NewManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := &readCounter{}
	cfg.Schema, cfg.Coordinator, cfg.Partitioner = sm, rc, oneToken{}
	e := New(cfg)
	sess := &Session{}
	stmts = append([]string{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"}, stmts...)
	for _, s := range stmts {
		if _, err := e.Query(context.Background(), sess, s, &Options{Consistency: uint16(One)}); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return e, sess, rc
}

// TestEmptySlicesReadNothing: a clustering restriction that selects no
// row (an empty IN list) answers without reading, not with a scan of the
// table or of the partitions listed that returns nothing.
func TestEmptySlicesReadNothing(t *testing.T) {
	e, sess, rc := countingExecutor(t, Config{},
		"CREATE TABLE ks.t (k int, c int, d int, s int static, v int, PRIMARY KEY (k, c, d))",
		"CREATE INDEX ON ks.t (v)",
	)
	for _, tc := range []struct {
		q     string
		reads bool
	}{
		{"SELECT * FROM ks.t WHERE c IN (1) ALLOW FILTERING", true},
		{"SELECT * FROM ks.t WHERE c IN () ALLOW FILTERING", false},
		{"SELECT * FROM ks.t WHERE c IN () AND d > 3 ALLOW FILTERING", false},
		{"SELECT count(*) FROM ks.t WHERE c IN () ALLOW FILTERING", false},
		{"SELECT * FROM ks.t WHERE k IN (1, 2) AND c IN ()", false},
		{"SELECT * FROM ks.t WHERE k IN (1, 2) AND c IN (3)", true},
		{"SELECT * FROM ks.t WHERE v = 1 AND c IN () ALLOW FILTERING", false},
		{"SELECT * FROM ks.t WHERE token(k) > 0 AND c IN () ALLOW FILTERING", false},
	} {
		if _, err := e.Query(context.Background(), sess, tc.q, &Options{Consistency: uint16(One)}); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if n := len(rc.take()); (n > 0) != tc.reads {
			t.Errorf("%s: %d reads", tc.q, n)
		}
	}
}

// TestReadBeforeWriteReadsItsRows: a read before write over several rows
// of a partition reads those rows (one point slice each), not the whole
// partition; over the static row alone, only that.
func TestReadBeforeWriteReadsItsRows(t *testing.T) {
	e, sess, rc := countingExecutor(t, Config{},
		"CREATE TABLE ks.c (k int, c int, n counter, PRIMARY KEY (k, c))",
		"CREATE TABLE ks.l (k int, c int, s int static, v list<int>, PRIMARY KEY (k, c))",
	)
	for _, tc := range []struct {
		q      string
		slices int // -1: static only
	}{
		{"UPDATE ks.c SET n = n + 1 WHERE k = 1 AND c IN (1, 2, 3)", 3},
		{"UPDATE ks.c SET n = n + 1 WHERE k = 1 AND c = 1", 1},
		{"UPDATE ks.l SET v = v - [1] WHERE k = 1 AND c IN (4, 5)", 2},
		{"BEGIN BATCH UPDATE ks.l SET s = 1 WHERE k = 1 IF s = 0; UPDATE ks.l SET v = [1] WHERE k = 1 AND c = 2 IF v = [0]; UPDATE ks.l SET v = [2] WHERE k = 1 AND c = 3 IF v = [0]; APPLY BATCH", 2},
		{"UPDATE ks.l SET s = 1 WHERE k = 1 IF s = 0", -1},
	} {
		if _, err := e.Query(context.Background(), sess, tc.q, &Options{Consistency: uint16(One), SerialConsistency: uint16(Serial)}); err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		reads := rc.take()
		if len(reads) == 0 {
			t.Fatalf("%s: no read", tc.q)
		}
		r := reads[0]
		switch {
		case tc.slices < 0 && !r.StaticOnly:
			t.Errorf("%s: read %d slices, want the static row only", tc.q, len(r.Slices))
		case tc.slices >= 0 && (r.StaticOnly || len(r.Slices) != tc.slices):
			t.Errorf("%s: read %d slices (static only: %v), want %d", tc.q, len(r.Slices), r.StaticOnly, tc.slices)
		}
	}
}

// TestEmptySlicesCheckKeys: with an empty IN on a clustering column, the
// partition key's bound values are still checked, as Cassandra's
// getSliceCommands does before it finds the clustering filter empty.
func TestEmptySlicesCheckKeys(t *testing.T) {
	e, sess, rc := countingExecutor(t, Config{},
		"CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))",
	)
	ctx := context.Background()
	p, err := e.Prepare(ctx, sess, "SELECT * FROM ks.t WHERE k = ? AND c IN ()", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    Value
		want string
	}{
		{Value{}, "Invalid null value in condition for column k"},
		{Value{Unset: true}, "Invalid unset value for column k"},
		{Value{B: []byte{0, 0, 0, 1}}, ""},
	} {
		_, err := e.Execute(ctx, sess, p.ID, nil, &Options{Consistency: uint16(One), Values: []Value{tc.v}})
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("k = %+v: got %v, want %q", tc.v, err, tc.want)
		}
	}
	if n := len(rc.take()); n != 0 {
		t.Errorf("%d reads", n)
	}
}
