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
	} {
		if _, err := n.Executor().Query(ctx, &query.Session{}, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	ddl, err := LiveSchema(ctx, n.NativeAddr().IP.String(), n.NativeAddr().Port)
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE shop.orders_by_status (status text, order_id timeuuid, note text static, total decimal, PRIMARY KEY ((status), order_id)) WITH CLUSTERING ORDER BY (order_id DESC);"
	if !strings.Contains(ddl, want) {
		t.Fatalf("live DDL:\n%s\nwant it to contain:\n%s", ddl, want)
	}
	rep, err := Analyze(ctx, []string{ddl}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Rule != "low-cardinality-partition-key" {
		t.Fatalf("findings: %+v", rep.Findings)
	}
}
