package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

type adviseJSON struct {
	Findings []struct {
		Rule, Severity, Table, Query, Message, Fix, Seed string
	} `json:"findings"`
	Tables []struct {
		Table                       string  `json:"table"`
		PartitionSizeBytes          float64 `json:"partition_size_bytes"`
		RowsPerPartition            float64 `json:"rows_per_partition"`
		Bounded                     bool    `json:"bounded"`
		Measured                    bool    `json:"measured"`
		EstimatedPartitionSizeBytes float64 `json:"estimated_partition_size_bytes"`
		PartitionsCount             int64   `json:"partitions_count"`
		MaxPartitionSizeBytes       float64 `json:"max_partition_size_bytes"`
	} `json:"tables"`
}

// runAdvise runs `cqld advise args...` and returns its output and error.
func runAdviseCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newAdviseCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAdviseOffline checks the JSON shape and --fail-on.
func TestAdviseOffline(t *testing.T) {
	schemaFile := writeFile(t, "schema.cql", `
CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE app.users_by_status (status text, user_id uuid, name text, PRIMARY KEY ((status), user_id));
CREATE TABLE app.users (user_id uuid PRIMARY KEY, name text);
`)
	wl := writeFile(t, "workload.yaml", "queries:\n  - SELECT * FROM app.users WHERE name = ?\n")
	out, err := runAdviseCmd(t, "--format", "json", "--workload", wl, schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep adviseJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rules := map[string]string{}
	for _, f := range rep.Findings {
		rules[f.Rule] = f.Severity
		if f.Seed == "" || f.Fix == "" || f.Message == "" {
			t.Errorf("finding without seed, fix or message: %+v", f)
		}
	}
	if rules["low-cardinality-partition-key"] != "warning" || rules["partition-key-missing"] != "error" {
		t.Fatalf("findings: %s", out)
	}
	if len(rep.Tables) != 2 || rep.Tables[0].Measured {
		t.Fatalf("tables: %+v", rep.Tables)
	}
	for _, tc := range []struct {
		failOn string
		fail   bool
	}{{"warning", true}, {"error", true}, {"", false}} {
		args := []string{"--format", "json", "--workload", wl, schemaFile}
		if tc.failOn != "" {
			args = append([]string{"--fail-on", tc.failOn}, args...)
		}
		_, err := runAdviseCmd(t, args...)
		var ef errFindings
		if got := errors.As(err, &ef); got != tc.fail {
			t.Errorf("--fail-on %q: err %v", tc.failOn, err)
		}
	}
	// Without the error query, only warnings remain: --fail-on error passes.
	if _, err := runAdviseCmd(t, "--fail-on", "error", schemaFile); err != nil {
		t.Errorf("--fail-on error with warnings only: %v", err)
	}
	if _, err := runAdviseCmd(t, "--fail-on", "warning", schemaFile); err == nil {
		t.Errorf("--fail-on warning with a warning: no error")
	}
	text, err := runAdviseCmd(t, schemaFile)
	if err != nil || !strings.Contains(text, "app.users_by_status") || !strings.Contains(text, "low-cardinality-partition-key") {
		t.Fatalf("text output (%v):\n%s", err, text)
	}
}

func big(b []byte) int64 {
	n, _ := types.DecodeBigint(b)
	return n
}

// TestAdviseLiveMeasured starts a node, writes and reads partitions, and
// checks that `cqld advise --host` reports the sizes the server measured
// (system.size_estimates, system_views.cqld_table_histograms) rather than
// the formula's estimates.
func TestAdviseLiveMeasured(t *testing.T) {
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
	exec := func(q string) *query.Result {
		t.Helper()
		res, err := n.Executor().Query(ctx, &query.Session{}, q, &query.Options{Consistency: uint16(query.One)})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	exec(`CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
	exec(`CREATE TABLE shop.events (tenant_id text, event_id timeuuid, payload text, PRIMARY KEY ((tenant_id), event_id)) WITH default_time_to_live = 86400 AND gc_grace_seconds = 10800 AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS'}`)
	exec(`CREATE TABLE shop.users (user_id uuid PRIMARY KEY, name text)`)
	payload := strings.Repeat("x", 1000)
	const tenants, rows = 3, 100
	for i := 0; i < tenants; i++ {
		for j := 0; j < rows; j++ {
			exec(fmt.Sprintf(`INSERT INTO shop.events (tenant_id, event_id, payload) VALUES ('t%d', now(), '%s')`, i, payload))
		}
		// Whole-partition reads record the partition's size.
		exec(fmt.Sprintf(`SELECT * FROM shop.events WHERE tenant_id = 't%d'`, i))
	}
	exec(`INSERT INTO shop.users (user_id, name) VALUES (uuid(), 'ann')`)

	// The statistics tables answer through CQL.
	res := exec(`SELECT table_name, range_start, range_end, mean_partition_size, partitions_count FROM system.size_estimates WHERE keyspace_name = 'shop'`)
	var count, mean int64
	ranges := 0
	for _, r := range res.Rows {
		if string(r[0]) != "events" {
			continue
		}
		ranges++
		mean = big(r[3])
		count += big(r[4])
	}
	if ranges != cfg.NumTokens || count != tenants || mean < rows*1000 || mean > rows*1500 {
		t.Fatalf("size_estimates for events: %d ranges (want %d), %d partitions, mean %d B", ranges, cfg.NumTokens, count, mean)
	}
	res = exec(`SELECT range_type FROM system.table_estimates WHERE keyspace_name = 'shop' AND table_name = 'events'`)
	if len(res.Rows) != 2*cfg.NumTokens {
		t.Fatalf("table_estimates: %d rows", len(res.Rows))
	}
	res = exec(`SELECT partitions_measured, max_partition_size FROM system_views.cqld_table_histograms WHERE keyspace_name = 'shop' AND table_name = 'events'`)
	if len(res.Rows) != 1 || big(res.Rows[0][0]) != tenants || big(res.Rows[0][1]) < rows*1000 {
		t.Fatalf("cqld_table_histograms: %v", res.Rows)
	}

	addr := n.NativeAddr()
	out, err := runAdviseCmd(t, "--format", "json", "--host", addr.IP.String(), "--port", strconv.Itoa(addr.Port))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("advise --host:\n%s", out)
	var rep adviseJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range rep.Findings {
		// The live schema round-trips: nothing is refused, and the table
		// options (TWCS, gc_grace_seconds) leave nothing to tune.
		if f.Rule == "invalid-statement" || f.Table == "shop.events" {
			t.Errorf("unexpected finding: %+v", f)
		}
	}
	found := 0
	for _, tb := range rep.Tables {
		switch tb.Table {
		case "shop.events":
			found++
			if !tb.Measured || tb.PartitionsCount != tenants || tb.PartitionSizeBytes < rows*1000 || tb.MaxPartitionSizeBytes < rows*1000 ||
				tb.EstimatedPartitionSizeBytes != 0 && tb.EstimatedPartitionSizeBytes == tb.PartitionSizeBytes {
				t.Errorf("events not measured: %+v", tb)
			}
			if tb.RowsPerPartition < rows*0.8 || tb.RowsPerPartition > rows*1.25 {
				t.Errorf("events rows per partition %.0f, want ~%d", tb.RowsPerPartition, rows)
			}
		case "shop.users":
			found++
			if tb.Measured || tb.PartitionsCount != 1 {
				t.Errorf("users never read whole, yet measured (or not counted): %+v", tb)
			}
		}
	}
	if found != 2 {
		t.Fatalf("tables: %s", out)
	}
	text, err := runAdviseCmd(t, "--host", addr.IP.String(), "--port", strconv.Itoa(addr.Port))
	t.Logf("advise --host (text):\n%s", text)
	if err != nil || !strings.Contains(text, "measured mean") {
		t.Fatalf("text (%v):\n%s", err, text)
	}
}
