package node

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cqld/cqld/internal/query"
)

// TestPagingUnderConcurrentWrites pages through a whole table, one
// partition and an IN query with small pages while other goroutines insert
// and delete rows. A page may or may not see a concurrent change, but the
// reader must never fail, never see a row twice, always move forward in
// token and clustering order, and always see every row that existed for
// the whole read and was never touched.
func TestPagingUnderConcurrentWrites(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.CommitlogSync = "periodic" // writes as fast as the reads, for overlap
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{Keyspace: "ks"}
	run := func(q string, opts *query.Options) (*query.Result, error) {
		if opts == nil {
			opts = &query.Options{Consistency: 1}
		}
		return ex.Query(ctx, sess, q, opts)
	}
	must := func(q string) {
		t.Helper()
		if _, err := run(q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	must("CREATE TABLE t (p int, c int, v int, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)")
	// Stable rows: even clustering values, never written again. The
	// writers only touch odd clustering values.
	const parts, rows = 20, 30
	for p := 0; p < parts; p++ {
		for c := 0; c < rows; c += 2 {
			must(fmt.Sprintf("INSERT INTO t (p, c, v) VALUES (%d, %d, 0)", p, c))
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for {
				select {
				case <-stop:
					return
				default:
				}
				p, c := rng.Intn(parts+5), 2*rng.Intn(rows/2)+1
				var q string
				switch rng.Intn(3) {
				case 0, 1:
					q = fmt.Sprintf("INSERT INTO t (p, c, v) VALUES (%d, %d, 1)", p, c)
				default:
					q = fmt.Sprintf("DELETE FROM t WHERE p = %d AND c = %d", p, c)
				}
				if _, err := run(q, nil); err != nil {
					t.Errorf("%s: %v", q, err)
					return
				}
				writes.Add(1)
			}
		}(int64(w))
	}
	check := func(q string, wantStable int, page int32, tokenOrder bool) {
		t.Helper()
		seen := map[string]bool{}
		stable := 0
		var lastTok int64
		lastP, lastC := int32(-1), int32(1<<30)
		opts := &query.Options{Consistency: 1, PageSize: page}
		for pages := 0; ; pages++ {
			res, err := run(q, opts)
			if err != nil {
				t.Fatalf("%s page %d: %v", q, pages, err)
			}
			for _, row := range res.Rows {
				p := int32(binary.BigEndian.Uint32(row[0]))
				c := int32(binary.BigEndian.Uint32(row[1]))
				tok := int64(binary.BigEndian.Uint64(row[2]))
				key := fmt.Sprintf("%d/%d", p, c)
				if seen[key] {
					t.Fatalf("%s: row %s returned twice", q, key)
				}
				seen[key] = true
				if p != lastP {
					if tokenOrder && lastP >= 0 && tok < lastTok {
						t.Fatalf("%s: partition %d (token %d) after token %d", q, p, tok, lastTok)
					}
					lastP, lastTok, lastC = p, tok, 1<<30
				} else if c >= lastC {
					t.Fatalf("%s: row %s after clustering %d in a DESC table", q, key, lastC)
				}
				lastC = c
				if c%2 == 0 {
					stable++
				}
			}
			if len(res.PagingState) == 0 {
				break
			}
			opts = &query.Options{Consistency: 1, PageSize: page, PagingState: res.PagingState}
		}
		if stable != wantStable {
			t.Fatalf("%s with pages of %d: %d stable rows, want %d", q, page, stable, wantStable)
		}
	}
	for round := 0; round < 20 && (round < 2 || writes.Load() < 500); round++ {
		for _, page := range []int32{1, 3, 7, 50} {
			check("SELECT p, c, token(p) FROM t", parts*rows/2, page, true)
			check("SELECT p, c, token(p) FROM t WHERE p = 3", rows/2, page, true)
			check("SELECT p, c, token(p) FROM t WHERE p IN (1, 4, 9)", 3*rows/2, page, false)
		}
	}
	close(stop)
	wg.Wait()
	if writes.Load() < 100 {
		t.Fatalf("only %d concurrent writes happened: the test tested nothing", writes.Load())
	}
	t.Logf("%d concurrent writes and deletes while paging", writes.Load())
}
