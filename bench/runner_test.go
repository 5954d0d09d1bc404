package bench

import (
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestClusterConfig checks that the harness's settings reach gocql: the
// smoke runs (bench_test.go) show that a run works with coalescing, not
// that the flag was honoured.
func TestClusterConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hosts, cfg.Port = []string{"127.0.0.1", "10.0.0.2:9999"}, 9043
	c := clusterConfig(cfg)
	if c.WriteCoalesceWaitTime != 0 {
		t.Errorf("default WriteCoalesceWaitTime = %v, want 0 (gocql's is 200us)", c.WriteCoalesceWaitTime)
	}
	if want := []string{"127.0.0.1:9043", "10.0.0.2:9999"}; !slices.Equal(c.Hosts, want) {
		t.Errorf("hosts = %v, want %v", c.Hosts, want)
	}
	if c.NumConns != cfg.Connections || c.Timeout != cfg.Timeout {
		t.Errorf("NumConns %d, Timeout %v; want %d, %v", c.NumConns, c.Timeout, cfg.Connections, cfg.Timeout)
	}
	if r, ok := c.RetryPolicy.(*gocql.SimpleRetryPolicy); !ok || r.NumRetries != 0 {
		t.Errorf("retry policy %#v, want no retries", c.RetryPolicy)
	}
	cfg.WriteCoalesce, cfg.ProtoVersion, cfg.Connections = 200*time.Microsecond, 4, 3
	c = clusterConfig(cfg)
	if c.WriteCoalesceWaitTime != 200*time.Microsecond || c.ProtoVersion != 4 || c.NumConns != 3 {
		t.Errorf("WriteCoalesceWaitTime %v, ProtoVersion %d, NumConns %d; want 200us, 4, 3", c.WriteCoalesceWaitTime, c.ProtoVersion, c.NumConns)
	}
}
