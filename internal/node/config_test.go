package node

import (
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadYAML(t *testing.T) {
	cfg := DefaultConfig()
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	err := LoadYAML(&cfg, []byte(`
cluster_name: 'Prod'
listen_address: 127.0.0.2
rpc_address: 127.0.0.3
native_transport_port: 9142
data_file_directories:
  - /var/lib/cqld
commitlog_directory: /var/lib/cqld-commitlog
commitlog_sync: periodic
commitlog_sync_period: 5000ms
commitlog_sync_group_window: 2s
num_tokens: 8
concurrent_reads: 32
trace_type_query_ttl: 2h
auto_snapshot: false
auto_snapshot_ttl: 30d
`), log)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ClusterName: "Prod", ListenAddress: "127.0.0.2", RPCAddress: "127.0.0.3", NativePort: 9142,
		AdminPort: 7199, DataDir: "/var/lib/cqld", CommitlogDir: "/var/lib/cqld-commitlog", CommitlogSync: "periodic", CommitlogSyncPeriod: 5 * time.Second,
		CommitlogSyncGroupWindow: 2 * time.Second, NumTokens: 8, TraceTypeQueryTTL: 2 * time.Hour,
		AutoSnapshotTTL: 30 * 24 * time.Hour}
	// Keys the file does not set keep their defaults.
	d := DefaultConfig()
	want.TombstoneWarnThreshold, want.TombstoneFailureThreshold, want.PurgeInterval = d.TombstoneWarnThreshold, d.TombstoneFailureThreshold, d.PurgeInterval
	want.BatchSizeWarnThreshold, want.BatchSizeFailThreshold = d.BatchSizeWarnThreshold, d.BatchSizeFailThreshold
	want.UnloggedBatchAcrossPartitionsWarnThreshold = d.UnloggedBatchAcrossPartitionsWarnThreshold
	want.Guardrails, want.DefaultKeyspaceRF = d.Guardrails, d.DefaultKeyspaceRF
	want.DefaultSecondaryIndex, want.DefaultSecondaryIndexEnabled = d.DefaultSecondaryIndex, d.DefaultSecondaryIndexEnabled
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
	if !strings.Contains(logged.String(), "concurrent_reads") {
		t.Fatalf("unknown key not logged: %s", logged.String())
	}
}

func TestLoadYAMLErrors(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, in := range []string{
		"commitlog_sync: sometimes",
		"num_tokens: 0",
		"native_transport_port: lots",
		"commitlog_sync_period: 10 fortnights",
		"commitlog_sync_group_window: -1ms",
		"trace_type_query_ttl: 10ms",
		"auto_snapshot: sometimes",
		"auto_snapshot_ttl: 1w",
		"trace_type_query_ttl: 86400",
		"trace_type_query_ttl: 700000000s",
		"trace_type_query_ttl: 213504d", // wraps time.Duration around if multiplied first
		"trace_type_query_ttl: 5124096h",
		"tracetype_query_ttl: 9300000000",
		"[not a map",
	} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(in), quiet); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	// Old-style *_in_ms keys are plain milliseconds.
	cfg := DefaultConfig()
	if err := LoadYAML(&cfg, []byte("commitlog_sync_period_in_ms: 250"), quiet); err != nil || cfg.CommitlogSyncPeriod != 250*time.Millisecond {
		t.Fatalf("%v %v", cfg.CommitlogSyncPeriod, err)
	}
	// commitlog_sync_group_window_in_ms is a double in Cassandra.
	if err := LoadYAML(&cfg, []byte("commitlog_sync_group_window_in_ms: 0.5"), quiet); err != nil || cfg.CommitlogSyncGroupWindow != 500*time.Microsecond {
		t.Fatalf("%v %v", cfg.CommitlogSyncGroupWindow, err)
	}
}

func TestLoadYAMLBatchThresholds(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.BatchSizeWarnThreshold != 5*1024 || cfg.BatchSizeFailThreshold != 50*1024 || cfg.UnloggedBatchAcrossPartitionsWarnThreshold != 10 {
		t.Fatalf("defaults: %+v", cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := LoadYAML(&cfg, []byte("batch_size_warn_threshold: 1KiB\nbatch_size_fail_threshold: 2MiB\nunlogged_batch_across_partitions_warn_threshold: 3\n"), log); err != nil {
		t.Fatal(err)
	}
	if cfg.BatchSizeWarnThreshold != 1024 || cfg.BatchSizeFailThreshold != 2*1024*1024 || cfg.UnloggedBatchAcrossPartitionsWarnThreshold != 3 {
		t.Fatalf("got %+v", cfg)
	}
	if err := LoadYAML(&cfg, []byte("batch_size_warn_threshold_in_kb: 7\n"), log); err != nil || cfg.BatchSizeWarnThreshold != 7*1024 {
		t.Fatalf("old key: %v %d", err, cfg.BatchSizeWarnThreshold)
	}
	if err := LoadYAML(&cfg, []byte("tracetype_query_ttl: 600\n"), log); err != nil || cfg.TraceTypeQueryTTL != 10*time.Minute {
		t.Fatalf("old trace TTL key (seconds): %v %s", err, cfg.TraceTypeQueryTTL)
	}
	if err := LoadYAML(&cfg, []byte("trace_type_query_ttl: 0s\n"), log); err != nil || cfg.TraceTypeQueryTTL != 0 {
		t.Fatalf("trace TTL 0s (rows that do not expire): %v %s", err, cfg.TraceTypeQueryTTL)
	}
	if err := LoadYAML(&cfg, []byte("batch_size_fail_threshold: 5 lots\n"), log); err == nil {
		t.Fatal("bad size accepted")
	}
}

func TestFileCacheSize(t *testing.T) {
	cfg := DefaultConfig()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for in, want := range map[string]int64{"file_cache_size: 256MiB": 256 << 20, "file_cache_size: 1GiB": 1 << 30,
		"file_cache_size_in_mb: 128": 128 << 20, "file_cache_size: 100": 100 << 20} {
		cfg.FileCacheSize = 0
		if err := LoadYAML(&cfg, []byte(in), quiet); err != nil || cfg.FileCacheSize != want {
			t.Errorf("%s: got %d, %v; want %d", in, cfg.FileCacheSize, err, want)
		}
	}
	if err := LoadYAML(&cfg, []byte("file_cache_size: lots"), quiet); err == nil {
		t.Error("file_cache_size: lots accepted")
	}
	// Cassandra's default: min(512MiB, heap/4), heap = max(min(mem/2, 1GiB), min(mem/4, 8GiB)).
	for mem, want := range map[int64]int64{0: 64 << 20, 512 << 20: 64 << 20, 2 << 30: 256 << 20,
		4 << 30: 256 << 20, 8 << 30: 512 << 20, 24 << 30: 512 << 20} {
		if got := defaultFileCacheSize(mem); got != want {
			t.Errorf("defaultFileCacheSize(%d MiB) = %d MiB, want %d MiB", mem>>20, got>>20, want>>20)
		}
	}
}

func TestPartitionCacheSize(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for in, want := range map[string]int64{"partition_cache_size: 64MiB": 64 << 20, "partition_cache_size: 100": 100 << 20,
		"partition_cache_size: 0": -1, "partition_cache_size: 0MiB": -1} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(in), quiet); err != nil || cfg.PartitionCacheSize != want {
			t.Errorf("%s: got %d, %v; want %d", in, cfg.PartitionCacheSize, err, want)
		}
	}
	for _, in := range []string{"partition_cache_size: -5", "partition_cache_size: -5MiB", "file_cache_size: -1"} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(in), quiet); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	// min(128MiB, heap/16), at least 16MiB, for the heap of defaultFileCacheSize.
	for mem, want := range map[int64]int64{0: 16 << 20, 512 << 20: 16 << 20, 2 << 30: 64 << 20,
		8 << 30: 128 << 20, 24 << 30: 128 << 20} {
		if got := defaultPartitionCacheSize(mem); got != want {
			t.Errorf("defaultPartitionCacheSize(%d MiB) = %d MiB, want %d MiB", mem>>20, got>>20, want>>20)
		}
	}
}

func TestPreparedStatementsCacheSize(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for in, want := range map[string]int64{"prepared_statements_cache_size: 32MiB": 32 << 20,
		"prepared_statements_cache_size_mb: 20": 20 << 20, "prepared_statements_cache_size: 1GiB": 1 << 30} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(in), quiet); err != nil || cfg.PreparedStatementsCacheSize != want {
			t.Errorf("%s: got %d, %v; want %d", in, cfg.PreparedStatementsCacheSize, err, want)
		}
	}
	// max(10MiB, heap/256) for the heap cassandra-env.sh picks.
	for mem, want := range map[int64]int64{0: 10 << 20, 4 << 30: 10 << 20, 16 << 30: 16 << 20, 64 << 30: 32 << 20} {
		if got := defaultPreparedStatementsCacheSize(mem); got != want {
			t.Errorf("memory %d: %d, want %d", mem, got, want)
		}
	}
}
