package advisor

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/query"
)

// TestLiveSchema reads the schema of a running node through a driver and
// lints it like a schema file.
func TestLiveSchema(t *testing.T) {
	cfg := node.DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.NativePort = 0
	cfg.AdminPort = -1
	cfg.MaterializedViewsEnabled = true
	n, err := node.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n.Shutdown(ctx)
	}()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE shop.orders_by_status (status text, order_id timeuuid, total decimal, note text static, PRIMARY KEY ((status), order_id)) WITH CLUSTERING ORDER BY (order_id DESC)`,
		`CREATE TABLE shop.orders (order_id uuid PRIMARY KEY, user_id uuid, total decimal)`,
		`CREATE INDEX orders_user_idx ON shop.orders (user_id)`,
		`CREATE MATERIALIZED VIEW shop.orders_by_user AS SELECT * FROM shop.orders WHERE user_id IS NOT NULL AND order_id IS NOT NULL PRIMARY KEY (user_id, order_id)`,
	} {
		if _, err := n.Executor().Query(ctx, &query.Session{}, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	ddl, err := LiveSchema(ctx, n.NativeAddr().IP.String(), n.NativeAddr().Port)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("live DDL:\n%s", ddl)
	want := "CREATE TABLE shop.orders_by_status (status text, order_id timeuuid, note text static, total decimal, PRIMARY KEY ((status), order_id)) WITH CLUSTERING ORDER BY (order_id DESC);"
	if !strings.Contains(ddl, want) {
		t.Fatalf("live DDL:\n%s\nwant it to contain:\n%s", ddl, want)
	}
	if want := "CREATE INDEX orders_user_idx ON shop.orders (user_id);"; !strings.Contains(ddl, want) {
		t.Fatalf("live DDL:\n%s\nwant it to contain:\n%s", ddl, want)
	}
	rep, err := Analyze(ctx, []string{ddl}, &Workload{Queries: []string{"SELECT * FROM shop.orders WHERE user_id = ?"}})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, f := range rep.Findings {
		rules[f.Rule] = true
	}
	if !strings.Contains(ddl, "CREATE MATERIALIZED VIEW shop.orders_by_user AS SELECT ") {
		t.Fatalf("live DDL has no view:\n%s", ddl)
	}
	for _, r := range []string{"low-cardinality-partition-key", "secondary-index-high-cardinality", "secondary-index-primary-access", "materialized-view-reliance"} {
		if !rules[r] {
			t.Errorf("no %s finding: %+v", r, rep.Findings)
		}
	}
}
