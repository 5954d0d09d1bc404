package node

import (
	"io"
	"log/slog"
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
commitlog_sync: periodic
commitlog_sync_period: 5000ms
commitlog_sync_group_window: 2s
num_tokens: 8
concurrent_reads: 32
`), log)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ClusterName: "Prod", ListenAddress: "127.0.0.2", RPCAddress: "127.0.0.3", NativePort: 9142,
		AdminPort: 7199, DataDir: "/var/lib/cqld", CommitlogSync: "periodic", CommitlogSyncPeriod: 5 * time.Second,
		CommitlogSyncGroupWindow: 2 * time.Second, NumTokens: 8}
	if cfg != want {
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
}
