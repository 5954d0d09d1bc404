package node

import (
	"context"
	"errors"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// TestDriverBatchWarnings checks the batch guardrails of protocol BATCH
// messages: the size and unlogged-partitions warnings, and that a batch
// over batch_size_fail_threshold fails through gocql with Invalid "Batch
// too large" and writes nothing.
func TestDriverBatchWarnings(t *testing.T) {
	n, s := driverNode(t,
		"CREATE TABLE ks.b (k int PRIMARY KEY, v text)",
	)
	// gocql drops the warnings of a VOID result (it attaches the frame to
	// the Iter only for ROWS), so the warnings of protocol BATCH messages
	// are checked on the executor's Batch, which the transport encodes
	// like every other result's warnings (transport tests cover that).
	big := strings.Repeat("a", 3000)
	ex := n.Executor()
	ctx := context.Background()
	req := &query.BatchRequest{Type: 0, Options: query.Options{Consistency: 1}, Statements: []query.BatchStatement{
		{Query: "INSERT INTO ks.b (k, v) VALUES (?, ?)", Values: []query.Value{{B: types.EncodeInt(1)}, {B: types.EncodeText(big)}}},
		{Query: "INSERT INTO ks.b (k, v) VALUES (?, ?)", Values: []query.Value{{B: types.EncodeInt(2)}, {B: types.EncodeText(big)}}},
	}}
	res, err := ex.Batch(ctx, &query.Session{}, req)
	if err != nil {
		t.Fatal(err)
	}
	want := "Batch for [ks.b] is of size 6032, exceeding specified threshold of 5120 by 912."
	if w := res.Warnings; len(w) != 1 || w[0] != want {
		t.Fatalf("warnings = %q, want %q", w, want)
	}
	req = &query.BatchRequest{Type: 1, Options: query.Options{Consistency: 1}}
	for i := 0; i < 11; i++ {
		req.Statements = append(req.Statements, query.BatchStatement{Query: "INSERT INTO ks.b (k, v) VALUES (?, 'x')",
			Values: []query.Value{{B: types.EncodeInt(int32(100 + i))}}})
	}
	res, err = ex.Batch(ctx, &query.Session{}, req)
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Warnings; len(w) != 1 || !strings.HasPrefix(w[0], "Unlogged batch covering 11 partitions detected against table [ks.b].") {
		t.Fatalf("unlogged warnings = %q", w)
	}

	huge := strings.Repeat("b", 26000)
	f := s.Batch(gocql.LoggedBatch)
	f.Query("INSERT INTO ks.b (k, v) VALUES (?, ?)", 10, huge)
	f.Query("INSERT INTO ks.b (k, v) VALUES (?, ?)", 11, huge)
	err = f.Exec()
	var rerr gocql.RequestError
	if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != "Batch too large" {
		t.Fatalf("oversized batch: %v", err)
	}
	var cnt int64
	if err := s.Query("SELECT count(*) FROM ks.b WHERE k IN (10, 11)").Scan(&cnt); err != nil || cnt != 0 {
		t.Fatalf("rejected batch wrote %d rows (%v)", cnt, err)
	}
}

// TestDriverNodeLocal: NODE_LOCAL (code 11) reaches the server and is
// refused as by a default Cassandra 5.0: a statement with Invalid, a
// protocol BATCH with the ServerError of ConsistencyLevel.blockFor; the
// batch writes nothing.
func TestDriverNodeLocal(t *testing.T) {
	_, s := driverNode(t, "CREATE TABLE ks.nl (k int PRIMARY KEY)")
	const nodeLocal = gocql.Consistency(0x000B)
	err := s.Query("SELECT * FROM ks.nl").Consistency(nodeLocal).Exec()
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid ||
		re.Message() != "NODE_LOCAL consistency level is highly dangerous and should be used only for debugging purposes" {
		t.Fatalf("SELECT at NODE_LOCAL: %v", err)
	}
	b := s.Batch(gocql.LoggedBatch).Consistency(nodeLocal)
	b.Query("INSERT INTO ks.nl (k) VALUES (1)")
	err = s.ExecuteBatch(b)
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeServer || re.Message() != "Invalid consistency level: NODE_LOCAL" {
		t.Fatalf("BATCH at NODE_LOCAL: %v", err)
	}
	var n int
	if err := s.Query("SELECT count(*) FROM ks.nl").Consistency(gocql.One).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after the refused batch: %d %v", n, err)
	}
}
