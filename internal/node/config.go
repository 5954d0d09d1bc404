package node

import (
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/auth"
	"github.com/cqld/cqld/internal/query"
	"gopkg.in/yaml.v3"
)

// Config is the node configuration. Field names follow cassandra.yaml.
type Config struct {
	ClusterName string
	DataDir     string
	// CommitlogDir is commitlog_directory: where the commit log (the
	// storage engine's write-ahead log) lives. Empty keeps it in DataDir.
	// Cassandra's advice holds: on a device of its own, fsyncs of the log
	// do not wait behind compactions' writes. Changing it is safe: the log
	// left in the previous directory is replayed at start.
	CommitlogDir  string
	ListenAddress string
	RPCAddress    string // "" means ListenAddress
	NativePort    int
	AdminPort     int
	NumTokens     int
	// CommitlogSync is "group" (default), "batch" or "periodic".
	CommitlogSync string
	// CommitlogSyncGroupWindow is the least time between two fsyncs of the
	// commit log in group mode while at least five writes are committing
	// (storage.Options.GroupWindow). Cassandra's default is 0, but its
	// default mode is periodic, which does not wait for fsyncs at all;
	// cqld's default, group, spaces them by 500us under load, which saves
	// fsyncs and CPU and never delays fewer writers.
	CommitlogSyncGroupWindow time.Duration
	CommitlogSyncPeriod      time.Duration
	// FileCacheSize is file_cache_size in bytes: the storage engine's block
	// cache (uncompressed SSTable blocks). Zero means Cassandra's default,
	// min(512MiB, heap/4) for the heap Cassandra would size from this
	// machine's memory (defaultFileCacheSize).
	FileCacheSize int64
	// PartitionCacheSize is partition_cache_size in bytes (cqld's own):
	// the storage engine's write-through cache of small partitions. Zero
	// means the default derived from memory (defaultPartitionCacheSize);
	// negative disables it (partition_cache_size: 0).
	PartitionCacheSize int64
	// PreparedStatementsCacheSize is prepared_statements_cache_size in
	// bytes: the bound of the prepared statements cache, by an estimate of
	// their memory. Zero means Cassandra's default, max(10MiB, heap/256)
	// (defaultPreparedStatementsCacheSize).
	PreparedStatementsCacheSize int64
	// TombstoneWarnThreshold and TombstoneFailureThreshold are Cassandra's
	// tombstone_warn_threshold and tombstone_failure_threshold: a read that
	// scans more tombstones than the first sends a client warning, more
	// than the second fails (ReadFailure). Negative disables.
	TombstoneWarnThreshold    int
	TombstoneFailureThreshold int
	// PartitionSize* (bytes) and PartitionTombstones* are Cassandra 5.0's
	// partition_size and partition_tombstones guardrails (null, i.e.
	// disabled, by default; the deprecated
	// compaction_large_partition_warning_threshold sets the first): a
	// partition over a threshold is logged when a read meets it. 0 (the
	// default) or -1 disables.
	PartitionSizeWarnThreshold, PartitionSizeFailThreshold             int64
	PartitionTombstonesWarnThreshold, PartitionTombstonesFailThreshold int64
	// Authenticator and Authorizer are cassandra.yaml's authenticator and
	// authorizer: AllowAllAuthenticator (default) or PasswordAuthenticator,
	// AllowAllAuthorizer (default) or CassandraAuthorizer.
	Authenticator string
	Authorizer    string
	// MaterializedViewsEnabled is materialized_views_enabled: CREATE
	// MATERIALIZED VIEW is refused unless set (Cassandra 5.0's default).
	MaterializedViewsEnabled bool
	// DefaultSecondaryIndex is default_secondary_index: the
	// implementation of CREATE INDEX without USING (legacy_local_table,
	// or sai). DefaultSecondaryIndexEnabled is
	// default_secondary_index_enabled: when false, CREATE INDEX needs
	// USING.
	DefaultSecondaryIndex        string
	DefaultSecondaryIndexEnabled bool
	// UserDefinedFunctionsEnabled is user_defined_functions_enabled
	// (false by default; cqld cannot run Java UDFs either way).
	UserDefinedFunctionsEnabled bool
	// DefaultKeyspaceRF is default_keyspace_rf: the replication factor
	// CREATE KEYSPACE uses when the replication map gives none (1).
	DefaultKeyspaceRF int
	// DynamicDataMaskingEnabled is dynamic_data_masking_enabled (false by
	// default, as in Cassandra 5.0; cqld does not implement masking).
	DynamicDataMaskingEnabled bool
	// PurgeInterval is how often tombstones and expired data older than
	// their table's gc_grace_seconds are purged in the background (cqld's
	// own key purge_interval; 0 disables).
	PurgeInterval time.Duration
	// BatchSizeWarnThreshold and BatchSizeFailThreshold are Cassandra's
	// batch_size_warn_threshold and batch_size_fail_threshold in bytes
	// (5KiB and 50KiB): a multi-partition batch larger than the first
	// gets a client warning, larger than the second is refused.
	BatchSizeWarnThreshold int64
	BatchSizeFailThreshold int64
	// UnloggedBatchAcrossPartitionsWarnThreshold is Cassandra's
	// unlogged_batch_across_partitions_warn_threshold.
	UnloggedBatchAcrossPartitionsWarnThreshold int
	// Guardrails are Cassandra 5.0's guardrails keys
	// (guardrails_config.go).
	Guardrails query.Guardrails
	// TraceTypeQueryTTL is trace_type_query_ttl: how long the
	// system_traces rows of a traced request live (one day; 0: they do
	// not expire).
	TraceTypeQueryTTL time.Duration
	// AutoSnapshot is auto_snapshot: TRUNCATE and the DROPs of tables,
	// views and keyspaces take a snapshot of the data they discard (true,
	// Cassandra's default). AutoSnapshotTTL is auto_snapshot_ttl: how
	// long those snapshots live (0, the default: until cleared).
	AutoSnapshot    bool
	AutoSnapshotTTL time.Duration
}

// DefaultConfig returns the defaults of `cqld start`.
func DefaultConfig() Config {
	return Config{
		ClusterName:                  "Test Cluster",
		DataDir:                      "./cqld-data",
		ListenAddress:                "127.0.0.1",
		NativePort:                   9042,
		AdminPort:                    7199,
		NumTokens:                    16,
		DefaultKeyspaceRF:            1,
		TraceTypeQueryTTL:            24 * time.Hour,
		AutoSnapshot:                 true,
		DefaultSecondaryIndex:        "legacy_local_table",
		DefaultSecondaryIndexEnabled: true,
		CommitlogSync:                "group",
		CommitlogSyncGroupWindow:     500 * time.Microsecond,
		CommitlogSyncPeriod:          10 * time.Second,
		TombstoneWarnThreshold:       1000,
		TombstoneFailureThreshold:    100000,
		PurgeInterval:                time.Minute,
		BatchSizeWarnThreshold:       5 * 1024,
		BatchSizeFailThreshold:       50 * 1024,
		UnloggedBatchAcrossPartitionsWarnThreshold: 10,
		Guardrails: query.Guardrails{ZeroTTLOnTWCSWarned: true},
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
		case "commitlog_directory":
			cfg.CommitlogDir = fmt.Sprint(v)
		case "commitlog_sync":
			cfg.CommitlogSync = strings.ToLower(fmt.Sprint(v))
		case "commitlog_sync_group_window", "commitlog_sync_group_window_in_ms":
			cfg.CommitlogSyncGroupWindow, err = toDuration(v)
		case "commitlog_sync_period", "commitlog_sync_period_in_ms":
			cfg.CommitlogSyncPeriod, err = toDuration(v)
		case "file_cache_size", "file_cache_size_in_mb":
			cfg.FileCacheSize, err = toMiBSize(v)
		case "prepared_statements_cache_size", "prepared_statements_cache_size_mb":
			cfg.PreparedStatementsCacheSize, err = toMiBSize(v)
		case "partition_cache_size":
			cfg.PartitionCacheSize, err = toMiBSize(v)
			if err == nil && cfg.PartitionCacheSize == 0 {
				cfg.PartitionCacheSize = -1 // 0 disables, as Cassandra's cache sizes
			}
		case "tombstone_warn_threshold":
			cfg.TombstoneWarnThreshold, err = toInt(v)
		case "tombstone_failure_threshold":
			cfg.TombstoneFailureThreshold, err = toInt(v)
		case "partition_size_warn_threshold", "compaction_large_partition_warning_threshold":
			cfg.PartitionSizeWarnThreshold, err = toBytes(v)
		case "compaction_large_partition_warning_threshold_mb":
			var mb int
			mb, err = toInt(v)
			cfg.PartitionSizeWarnThreshold = int64(mb) << 20
		case "partition_size_fail_threshold":
			cfg.PartitionSizeFailThreshold, err = toBytes(v)
		case "partition_tombstones_warn_threshold", "partition_tombstones_fail_threshold":
			var n int
			n, err = toInt(v)
			if k == "partition_tombstones_warn_threshold" {
				cfg.PartitionTombstonesWarnThreshold = int64(n)
			} else {
				cfg.PartitionTombstonesFailThreshold = int64(n)
			}
		case "authenticator", "authorizer":
			name := fmt.Sprint(v)
			if m, ok := v.(map[string]any); ok {
				// Cassandra 5.0's form: authenticator: {class_name: ...}.
				name = fmt.Sprint(m["class_name"])
			}
			if k == "authenticator" {
				cfg.Authenticator = name
			} else {
				cfg.Authorizer = name
			}
		case "materialized_views_enabled", "enable_materialized_views":
			cfg.MaterializedViewsEnabled, err = toBool(v)
		case "default_secondary_index":
			cfg.DefaultSecondaryIndex = fmt.Sprint(v)
		case "default_secondary_index_enabled":
			cfg.DefaultSecondaryIndexEnabled, err = toBool(v)
		case "user_defined_functions_enabled", "enable_user_defined_functions":
			cfg.UserDefinedFunctionsEnabled, err = toBool(v)
		case "default_keyspace_rf":
			cfg.DefaultKeyspaceRF, err = toInt(v)
		case "dynamic_data_masking_enabled":
			cfg.DynamicDataMaskingEnabled, err = toBool(v)
		case "batch_size_warn_threshold", "batch_size_warn_threshold_in_kb":
			cfg.BatchSizeWarnThreshold, err = toDataSize(v)
		case "batch_size_fail_threshold", "batch_size_fail_threshold_in_kb":
			cfg.BatchSizeFailThreshold, err = toDataSize(v)
		case "unlogged_batch_across_partitions_warn_threshold":
			cfg.UnloggedBatchAcrossPartitionsWarnThreshold, err = toInt(v)
		case "purge_interval", "purge_interval_in_ms":
			cfg.PurgeInterval, err = toDuration(v)
		case "trace_type_query_ttl":
			cfg.TraceTypeQueryTTL, err = toSecondsDuration(v)
		case "auto_snapshot":
			cfg.AutoSnapshot, err = toBool(v)
		case "auto_snapshot_ttl":
			cfg.AutoSnapshotTTL, err = toSecondsDuration(v)
		case "tracetype_query_ttl": // the old key, in seconds
			cfg.TraceTypeQueryTTL, err = toSecondsDuration(fmt.Sprintf("%vs", v))
		default:
			var ok bool
			if ok, err = loadGuardrailKey(&cfg.Guardrails, k, v, log); !ok {
				log.Info("ignoring unknown configuration key", "key", k)
			}
		}
		if err != nil {
			return fmt.Errorf("config key %s: %w", k, err)
		}
	}
	return cfg.Validate()
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if err := c.authConfig().Validate(); err != nil {
		return err
	}
	switch c.CommitlogSync {
	case "group", "batch", "periodic":
	default:
		return fmt.Errorf("commitlog_sync must be one of group, batch, periodic (got %q)", c.CommitlogSync)
	}
	if c.CommitlogSyncGroupWindow < 0 {
		return fmt.Errorf("commitlog_sync_group_window must not be negative (got %s)", c.CommitlogSyncGroupWindow)
	}
	if c.TraceTypeQueryTTL < 0 || c.TraceTypeQueryTTL > maxTTL {
		return fmt.Errorf("trace_type_query_ttl must be between 0s and 20 years (got %s)", c.TraceTypeQueryTTL)
	}
	if c.DefaultKeyspaceRF < 1 {
		return fmt.Errorf("default_keyspace_rf must be at least 1 (got %d)", c.DefaultKeyspaceRF)
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
	if err := validateGuardrails(&c.Guardrails); err != nil {
		return err
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
func toDuration(v any) (time.Duration, error) {
	switch n := v.(type) {
	case int:
		return time.Duration(n) * time.Millisecond, nil
	case float64: // commitlog_sync_group_window_in_ms is a double
		return time.Duration(n * float64(time.Millisecond)), nil
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

// maxTTL is Cassandra's maximum TTL, 20 years.
const maxTTL = 630720000 * time.Second

// durationRE is DurationSpec's syntax: a non-negative integer and a unit.
var durationRE = regexp.MustCompile(`^(\d+)(d|h|s|ms|us|µs|ns|m)$`)

var durationUnits = map[string]time.Duration{
	"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "ms": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

var unitNames = map[time.Duration]string{
	time.Nanosecond: "NANOSECONDS", time.Microsecond: "MICROSECONDS", time.Millisecond: "MILLISECONDS",
	time.Second: "SECONDS", time.Minute: "MINUTES", time.Hour: "HOURS", 24 * time.Hour: "DAYS",
}

// ParseDurationSpec parses a Cassandra duration (DurationSpec: a
// non-negative integer and a unit) whose smallest unit is min, with
// DurationSpec's message (nodetool's options, cassandra.yaml's keys).
func ParseDurationSpec(s string, min time.Duration) (time.Duration, error) {
	m := durationRE.FindStringSubmatch(s)
	var unit time.Duration
	if m != nil {
		unit = durationUnits[m[2]]
	}
	if m == nil || unit < min {
		var accepted []string
		for _, u := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour} {
			if u >= min {
				accepted = append(accepted, unitNames[u])
			}
		}
		return 0, fmt.Errorf("Invalid duration: %s Accepted units:[%s] where case matters and only non-negative values.", s, strings.Join(accepted, ", "))
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64((1<<63-1)/unit) {
		return 0, fmt.Errorf("Invalid duration: %s: too large", s)
	}
	return time.Duration(n) * unit, nil
}

// toSecondsDuration parses a Cassandra 5.0 duration in whole seconds or
// larger units (DurationSpec.IntSecondsBound): "1d", "3600s", at most
// Cassandra's maximum TTL.
func toSecondsDuration(v any) (time.Duration, error) {
	s := strings.TrimSpace(fmt.Sprint(v))
	d, err := ParseDurationSpec(s, time.Second)
	if err == nil && d > maxTTL {
		err = fmt.Errorf("Invalid duration: %s: too large", s)
	}
	return d, err
}

func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		return strconv.ParseBool(strings.TrimSpace(x))
	}
	return false, fmt.Errorf("%v is not a boolean", v)
}

// toDataSize parses Cassandra 5.0 data sizes ("5KiB", "1MiB", "100B") into
// bytes; a plain number is KiB (the old *_in_kb keys, and the unit of the
// batch thresholds).
func toDataSize(v any) (int64, error) { return toSize(v, 1<<10) }

// toMiBSize parses a data size ("512MiB", "1GiB") into bytes; a plain
// number is MiB (file_cache_size's unit, and the old *_in_mb keys).
// Negative sizes are refused.
func toMiBSize(v any) (int64, error) {
	n, err := toSize(v, 1<<20)
	if err == nil && n < 0 {
		return 0, errDataSize(v)
	}
	return n, err
}

func errDataSize(v any) error {
	return fmt.Errorf("invalid data size %q (use B, KiB, MiB or GiB)", strings.TrimSpace(fmt.Sprint(v)))
}

// toSize parses a data size with a unit suffix, or a plain number of unit
// bytes.
func toSize(v any, unit int64) (int64, error) {
	if n, ok := v.(int); ok {
		return int64(n) * unit, nil
	}
	s := strings.TrimSpace(fmt.Sprint(v))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n * unit, nil
	}
	if n, ok := parseDataSize(s); ok {
		return n, nil
	}
	return 0, errDataSize(s)
}

func (c *Config) authConfig() auth.Config {
	return auth.Config{Authenticator: c.Authenticator, Authorizer: c.Authorizer}
}

// parseDataSize parses a non-negative size with a unit (B, KiB, MiB, GiB:
// Cassandra 5.0's DataStorageSpec).
func parseDataSize(s string) (int64, bool) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1024}, {"MiB", 1024 * 1024}, {"GiB", 1024 * 1024 * 1024}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), 10, 64)
			if err != nil || n < 0 {
				return 0, false
			}
			return n * u.mult, true
		}
	}
	return 0, false
}
