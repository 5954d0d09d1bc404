package storage

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/mutation"
)

// TestPartitionGuardrails checks that reads log partitions over the
// partition_size and partition_tombstones thresholds with Cassandra's
// messages, once a minute per partition, and nothing under them.
func TestPartitionGuardrails(t *testing.T) {
	var logged bytes.Buffer
	now := time.Unix(1000, 0)
	p, err := Open(t.TempDir(), Options{
		Logger:                     slog.New(slog.NewTextHandler(&logged, nil)),
		Now:                        func() time.Time { return now },
		PartitionSizeWarnThreshold: 2000, PartitionSizeFailThreshold: 1 << 20,
		PartitionTombstonesWarnThreshold: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tbl := testTable()
	big, small, tombs := update(tbl, 1), update(tbl, 2), update(tbl, 3)
	for i := int32(0); i < 100; i++ {
		big.Rows = append(big.Rows, row(ck(i, "a"), marker(1), live(colV, 1, i)))
	}
	small.Rows = append(small.Rows, row(ck(0, "a"), marker(1), live(colV, 1, 0)))
	for i := int32(0); i < 6; i++ {
		tombs.Rows = append(tombs.Rows, row(ck(i, "a"), mutation.NoLiveness, tomb(colV, 1, 100)))
	}
	mustApply(t, p, tbl, big, small, tombs)
	read := func(pk int32) {
		if _, err := p.Read(context.Background(), tbl, pointRead(tbl, pk)); err != nil {
			t.Fatal(err)
		}
	}
	read(2)
	if logged.Len() != 0 {
		t.Fatalf("logged under the thresholds: %s", logged.String())
	}
	read(1)
	read(1) // the same minute: not again
	read(3)
	out := logged.String()
	if n := strings.Count(out, "Guardrail partition_size violated: Partition ks.t:1 has size "); n != 1 ||
		!strings.Contains(out, ", this exceeds the warning threshold of 2000.") || !strings.Contains(out, "level=WARN") {
		t.Fatalf("want one partition_size warning for ks.t:1, got:\n%s", out)
	}
	if !strings.Contains(out, "Guardrail partition_tombstones violated: Partition ks.t:3 has 6 tombstones, this exceeds the warning threshold of 5.") {
		t.Fatalf("want a partition_tombstones warning for ks.t:3, got:\n%s", out)
	}
	now = now.Add(time.Minute)
	read(1)
	if n := strings.Count(logged.String(), "Partition ks.t:1 has size"); n != 2 {
		t.Fatalf("a minute later: %d warnings, want 2", n)
	}
}
