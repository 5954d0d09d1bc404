package storage

import (
	"context"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/mutation"
)

// TestAutomaticCompactionsRunAfterOpen checks that the open gate
// (opengate.go) lets Pebble's automatic compactions run once Open has
// returned, in a first session and after a reopen.
func TestAutomaticCompactionsRunAfterOpen(t *testing.T) {
	dir := t.TempDir()
	tbl := testTable()
	for session := 0; session < 2; session++ {
		p, err := Open(dir, Options{SyncMode: SyncPeriodic})
		if err != nil {
			t.Fatal(err)
		}
		before := p.Metrics().Compact.Count
		// Overlapping flushes put L0 over its compaction threshold.
		for f := 0; f < 8; f++ {
			for pk := int32(0); pk < 50; pk++ {
				u := update(tbl, pk)
				u.Token = int64(pk) * 7919
				u.Rows = []mutation.Row{row(ck(int32(f), "x"), mutation.NoLiveness, live(colV, int64(f+1), int32(f)))}
				mustApply(t, p, tbl, u)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for p.Metrics().Compact.Count == before {
			if time.Now().After(deadline) {
				t.Fatalf("session %d: no automatic compaction within 10s (L0 files: %d)", session, p.Metrics().Levels[0].TablesCount)
			}
			time.Sleep(10 * time.Millisecond)
		}
		// Manual compactions go through the scheduler too.
		if err := p.Compact(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
