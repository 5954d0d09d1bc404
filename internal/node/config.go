package node

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the node configuration. Field names follow cassandra.yaml.
type Config struct {
	ClusterName   string
	DataDir       string
	ListenAddress string
	RPCAddress    string // "" means ListenAddress
	NativePort    int
	AdminPort     int
	NumTokens     int
	// CommitlogSync is "group" (default), "batch" or "periodic".
	CommitlogSync            string
	CommitlogSyncGroupWindow time.Duration
	CommitlogSyncPeriod      time.Duration
}

// DefaultConfig returns the defaults of `cqld start`.
func DefaultConfig() Config {
	return Config{
		ClusterName:              "Test Cluster",
		DataDir:                  "./cqld-data",
		ListenAddress:            "127.0.0.1",
		NativePort:               9042,
		AdminPort:                7199,
		NumTokens:                16,
		CommitlogSync:            "group",
		CommitlogSyncGroupWindow: 15 * time.Millisecond,
		CommitlogSyncPeriod:      10 * time.Second,
	}
}

// LoadFile applies a cassandra.yaml-style file over cfg. Unknown keys are
// logged and ignored.
func LoadFile(cfg *Config, path string, log *slog.Logger) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading config: %w", err)
	}
	return LoadYAML(cfg, b, log)
}

// LoadYAML applies cassandra.yaml-style content over cfg.
func LoadYAML(cfg *Config, b []byte, log *slog.Logger) error {
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("parsing config: %w", err)
	}
	for k, v := range raw {
		if v == nil {
			continue
		}
		var err error
		switch k {
		case "cluster_name":
			cfg.ClusterName = fmt.Sprint(v)
		case "listen_address":
			cfg.ListenAddress = fmt.Sprint(v)
		case "rpc_address", "native_transport_address":
			cfg.RPCAddress = fmt.Sprint(v)
		case "native_transport_port":
			cfg.NativePort, err = toInt(v)
		case "admin_port", "jmx_port":
			cfg.AdminPort, err = toInt(v)
		case "num_tokens":
			cfg.NumTokens, err = toInt(v)
		case "data_file_directories":
			switch dirs := v.(type) {
			case []any:
				if len(dirs) > 0 {
					cfg.DataDir = fmt.Sprint(dirs[0])
				}
				if len(dirs) > 1 {
					log.Warn("only the first of data_file_directories is used", "dirs", dirs)
				}
			default:
				cfg.DataDir = fmt.Sprint(v)
			}
		case "commitlog_sync":
			cfg.CommitlogSync = strings.ToLower(fmt.Sprint(v))
		case "commitlog_sync_group_window", "commitlog_sync_group_window_in_ms":
			cfg.CommitlogSyncGroupWindow, err = toDuration(v, strings.HasSuffix(k, "_in_ms"))
		case "commitlog_sync_period", "commitlog_sync_period_in_ms":
			cfg.CommitlogSyncPeriod, err = toDuration(v, strings.HasSuffix(k, "_in_ms"))
		default:
			log.Info("ignoring unknown configuration key", "key", k)
		}
		if err != nil {
			return fmt.Errorf("config key %s: %w", k, err)
		}
	}
	return cfg.Validate()
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	switch c.CommitlogSync {
	case "group", "batch", "periodic":
	default:
		return fmt.Errorf("commitlog_sync must be one of group, batch, periodic (got %q)", c.CommitlogSync)
	}
	if c.NumTokens < 1 || c.NumTokens > 1536 {
		return fmt.Errorf("num_tokens must be between 1 and 1536 (got %d)", c.NumTokens)
	}
	if c.NativePort < 0 || c.NativePort > 65535 || c.AdminPort < -1 || c.AdminPort > 65535 {
		return fmt.Errorf("ports must be between 0 and 65535")
	}
	if c.DataDir == "" {
		return fmt.Errorf("data directory must not be empty")
	}
	return nil
}

func toInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case string:
		return strconv.Atoi(strings.TrimSpace(x))
	}
	return 0, fmt.Errorf("expected an integer, got %v", v)
}

// toDuration parses Cassandra 5.0 durations ("10000ms", "2s", "1m") or a
// plain number of milliseconds (old *_in_ms keys).
func toDuration(v any, millis bool) (time.Duration, error) {
	if n, ok := v.(int); ok {
		return time.Duration(n) * time.Millisecond, nil
	}
	s := strings.TrimSpace(strings.ToLower(fmt.Sprint(v)))
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Millisecond, nil
	}
	units := []struct {
		suffix string
		d      time.Duration
	}{{"milliseconds", time.Millisecond}, {"ms", time.Millisecond}, {"microseconds", time.Microsecond},
		{"us", time.Microsecond}, {"µs", time.Microsecond}, {"seconds", time.Second}, {"s", time.Second},
		{"minutes", time.Minute}, {"m", time.Minute}, {"hours", time.Hour}, {"h", time.Hour},
		{"days", 24 * time.Hour}, {"d", 24 * time.Hour}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("invalid duration %q", s)
			}
			return time.Duration(n) * u.d, nil
		}
	}
	return 0, fmt.Errorf("invalid duration %q", s)
}
