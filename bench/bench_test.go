package bench_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/cqld/cqld/bench"
	"github.com/cqld/cqld/bench/ceiling"
)

// TestSmoke runs every workload for a fraction of a second against the
// ceiling server in-process, so the harness keeps working. It asserts that
// operations succeed, never how fast they are.
func TestSmoke(t *testing.T) {
	srv, err := ceiling.Start("127.0.0.1:0", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	for _, w := range bench.Workloads {
		t.Run(w, func(t *testing.T) {
			cfg := bench.DefaultConfig()
			cfg.Hosts, cfg.Port, cfg.Label = []string{host}, p, "ceiling"
			cfg.Workload, cfg.RecordCount, cfg.Partitions, cfg.Load = w, 2000, 10, true
			cfg.Concurrency, cfg.Connections = 8, 1
			cfg.Duration, cfg.Warmup, cfg.Progress = 400*time.Millisecond, 100*time.Millisecond, 0
			switch w {
			case "c":
				cfg.Rate = 2000 // open loop once
			case "a":
				cfg.WriteCoalesce = 200 * time.Microsecond // gocql's default, once
			}
			results, err := bench.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			run := results[len(results)-1]
			if run.Phase != "run" || run.Ops == 0 || run.Errors != 0 {
				t.Fatalf("run: %+v", run)
			}
			if load := results[0]; load.Phase == "load" && load.Ops != cfg.RecordCount {
				t.Errorf("load phase wrote %d records, want %d", load.Ops, cfg.RecordCount)
			}
			if w == "slice" {
				checkSlice(t, cfg)
			}
			t.Logf("%s: %.0f ops/s p50 %dµs p99 %dµs", w, run.OpsPerSec, run.Latency.P50, run.Latency.P99)
		})
	}
}

// checkSlice checks the ceiling's answer to the slice query, so that the
// ceiling does the work cqld does: 2000 rows over 10 partitions are 200 rows
// per partition, ck 0..199.
func checkSlice(t *testing.T, cfg bench.Config) {
	s, err := bench.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	iter := s.Query("SELECT ck, v FROM cqld_bench.wide WHERE pk = ? AND ck > ? LIMIT 50", int64(3), int64(10)).Iter()
	var ck int64
	var v []byte
	want := int64(11)
	for iter.Scan(&ck, &v) {
		if ck != want || len(v) != cfg.ValueSize {
			t.Fatalf("slice row ck=%d len(v)=%d, want ck=%d len %d", ck, len(v), want, cfg.ValueSize)
		}
		want++
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if want != 61 {
		t.Fatalf("slice returned %d rows, want 50", want-11)
	}
}
