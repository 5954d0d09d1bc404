package node

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cluster"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// runtimeSource implements query.RuntimeSource: the node's live state for
// the system_views tables.
type runtimeSource struct {
	n     *Node
	coord *cluster.Local

	mu     sync.Mutex
	meters map[meterKey]*meter
}

func newRuntimeSource(n *Node, coord *cluster.Local) *runtimeSource {
	return &runtimeSource{n: n, coord: coord, meters: map[meterKey]*meter{}}
}

// Clients implements query.RuntimeSource.
func (r *runtimeSource) Clients() []query.ClientInfo {
	if r.n.server == nil {
		return nil
	}
	return r.n.server.Clients()
}

// Settings implements query.RuntimeSource.
func (r *runtimeSource) Settings() []query.Setting { return settings(&r.n.cfg) }

// Snapshots implements query.RuntimeSource.
func (r *runtimeSource) Snapshots() []query.SnapshotInfo {
	infos := r.n.snapshots.List()
	out := make([]query.SnapshotInfo, len(infos))
	for i, in := range infos {
		out[i] = query.SnapshotInfo{Tag: in.Tag, Keyspace: in.Keyspace, Table: in.Table, TrueSize: in.TrueSize,
			SizeOnDisk: in.SizeOnDisk, CreatedAt: in.CreatedAt, ExpiresAt: in.ExpiresAt, Ephemeral: in.Ephemeral}
	}
	return out
}

// Caches implements query.RuntimeSource: the storage engine's block cache
// is Cassandra's chunk cache, its partition cache the row cache; cqld has
// no key cache and no counter cache, which are listed as Cassandra lists
// a cache of size 0.
func (r *runtimeSource) Caches() []query.CacheInfo {
	e := r.n.engine
	bc := e.Metrics().BlockCache
	pc := e.PartitionCacheStats()
	out := []query.CacheInfo{
		{Name: "chunks", CapacityBytes: r.n.cfg.FileCacheSize, SizeBytes: bc.Size, Entries: bc.Count,
			Requests: bc.Hits + bc.Misses, Hits: bc.Hits},
		{Name: "counters"},
		{Name: "keys"},
		{Name: "rows", CapacityBytes: pc.Capacity, SizeBytes: pc.Bytes, Entries: pc.Entries,
			Requests: pc.Hits + pc.Misses, Hits: pc.Hits},
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range out {
		c := &out[i]
		c.RecentRequestRate = r.meter(meterKey{name: c.Name + "/requests"}).rate(c.Requests, now, 15*time.Minute)
		c.RecentHitRate = r.meter(meterKey{name: c.Name + "/hits"}).rate(c.Hits, now, 15*time.Minute)
	}
	return out
}

// TableMetrics implements query.RuntimeSource: it fills what the named
// table shows. Latency percentiles are the bucket bounds of the timed
// operations (one in eight); counts are exact.
func (r *runtimeSource) TableMetrics(t *schema.Table, metric string) query.TableMetrics {
	e := r.n.engine
	st := e.TableStats(t.ID)
	coord := func() *cluster.Timers {
		if ct := r.coord.TableTimers(t.ID); ct != nil {
			return ct
		}
		return new(cluster.Timers)
	}
	timer := func(s storage.TimerSnapshot) query.Timer {
		r.mu.Lock()
		defer r.mu.Unlock()
		return query.Timer{
			Count:     s.Ops,
			P50Ms:     float64(s.Latency.Percentile(0.5)) / 1000,
			P99Ms:     float64(s.Latency.Percentile(0.99)) / 1000,
			MaxMs:     float64(s.Latency.MaxBucket()) / 1000,
			PerSecond: r.meter(meterKey{t.ID, metric}).rate(s.Ops, time.Now(), 5*time.Minute),
		}
	}
	perRead := func(h *storage.Histogram) query.PerRead {
		return query.PerRead{Count: h.Count(), P50: float64(h.Percentile(0.5)), P99: float64(h.Percentile(0.99)),
			Max: float64(h.MaxBucket())}
	}
	var m query.TableMetrics
	switch metric {
	case "local_read_latency":
		m.LocalRead = timer(st.Read)
	case "local_scan_latency":
		m.LocalScan = timer(st.Scan)
	case "local_write_latency":
		m.LocalWrite = timer(st.Write)
	case "coordinator_read_latency":
		m.CoordinatorRead = timer(coord().Read.Snapshot())
	case "coordinator_scan_latency":
		m.CoordinatorScan = timer(coord().Scan.Snapshot())
	case "coordinator_write_latency":
		m.CoordinatorWrite = timer(coord().Write.Snapshot())
	case "tombstones_per_read":
		m.TombstonesPerRead = perRead(&st.TombstonesPerRead)
	case "rows_per_read":
		m.RowsPerRead = perRead(&st.RowsPerRead)
	case "max_partition_size":
		m.MaxPartitionBytes = st.PartitionSize.Max
	case "disk_usage":
		if d, err := e.TableDiskUsage(t.ID); err == nil {
			m.DiskBytes = int64(d)
		}
	}
	return m
}

// meterKey names a rate meter: a table's metric, or a cache's counter
// (zero id).
type meterKey struct {
	id   uuid.UUID
	name string
}

// meter returns the meter of key; r.mu is held.
func (r *runtimeSource) meter(key meterKey) *meter {
	m := r.meters[key]
	if m == nil {
		m = &meter{at: r.n.started}
		r.meters[key] = m
	}
	return m
}

// meter is an exponentially weighted moving average of a counter's rate
// per second, as Dropwizard's Meter keeps it (updated every five seconds),
// computed when read so that an idle node does no work for it: the count
// of the ticks since the last read is taken to be spread evenly over
// them. Read every few seconds it is Dropwizard's average; read rarely, a
// burst since the previous read weighs as if spread over the whole gap
// (and the first read averages since the node started).
type meter struct {
	last    int64
	at      time.Time
	avg     float64
	started bool
}

const meterTick = 5 * time.Second

// rate updates the average with the counter's value at now and returns
// it, for a moving window (one, five or fifteen minutes).
func (m *meter) rate(count int64, now time.Time, window time.Duration) float64 {
	ticks := int64(now.Sub(m.at) / meterTick)
	if ticks <= 0 {
		return m.avg
	}
	instant := float64(count-m.last) / (float64(ticks) * meterTick.Seconds())
	if !m.started {
		// Dropwizard's first tick takes the instant rate as it is (the
		// update below then keeps it).
		m.avg, m.started = instant, true
	}
	m.avg = instant + (m.avg-instant)*math.Pow(math.Exp(-meterTick.Seconds()/window.Seconds()), float64(ticks))
	m.last, m.at = count, m.at.Add(time.Duration(ticks)*meterTick)
	return m.avg
}

// settings lists the node's settings for system_views.settings (which
// orders them), by their cassandra.yaml names and the old names cqld
// reads, in their old units. Durations and sizes are written in their
// largest whole unit (Cassandra writes them as configured).
func settings(c *Config) []query.Setting {
	var out []query.Setting
	add := func(name, value string) { out = append(out, query.Setting{Name: name, Value: value}) }
	null := func(name string) { out = append(out, query.Setting{Name: name, Null: true}) }
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	b := strconv.FormatBool
	orDefault := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	add("cluster_name", c.ClusterName)
	add("listen_address", c.ListenAddress)
	add("rpc_address", orDefault(c.RPCAddress, c.ListenAddress))
	add("native_transport_port", itoa(int64(c.NativePort)))
	add("admin_port", itoa(int64(c.AdminPort)))
	add("num_tokens", itoa(int64(c.NumTokens)))
	add("data_file_directories", "["+c.DataDir+"]")
	add("commitlog_directory", orDefault(c.CommitlogDir, c.DataDir))
	add("commitlog_sync", c.CommitlogSync)
	add("commitlog_sync_group_window", formatDuration(c.CommitlogSyncGroupWindow))
	// A double in Cassandra's Config: Java's Double.toString.
	add("commitlog_sync_group_window_in_ms", types.JavaDouble(float64(c.CommitlogSyncGroupWindow)/float64(time.Millisecond), 64))
	add("commitlog_sync_period", formatDuration(c.CommitlogSyncPeriod))
	add("commitlog_sync_period_in_ms", itoa(c.CommitlogSyncPeriod.Milliseconds()))
	add("file_cache_size", formatSize(c.FileCacheSize))
	add("file_cache_size_in_mb", itoa(c.FileCacheSize>>20))
	add("partition_cache_size", formatSize(max(c.PartitionCacheSize, 0)))
	add("prepared_statements_cache_size", formatSize(c.PreparedStatementsCacheSize))
	add("prepared_statements_cache_size_mb", itoa(c.PreparedStatementsCacheSize>>20))
	add("tombstone_warn_threshold", itoa(int64(c.TombstoneWarnThreshold)))
	add("tombstone_failure_threshold", itoa(int64(c.TombstoneFailureThreshold)))
	optSize := func(name string, n int64) {
		if n <= 0 {
			null(name)
		} else {
			add(name, formatSize(n))
		}
	}
	optSize("partition_size_warn_threshold", c.PartitionSizeWarnThreshold)
	optSize("partition_size_fail_threshold", c.PartitionSizeFailThreshold)
	optCount := func(name string, n int64) {
		if n <= 0 {
			n = -1
		}
		add(name, itoa(n))
	}
	optCount("partition_tombstones_warn_threshold", c.PartitionTombstonesWarnThreshold)
	optCount("partition_tombstones_fail_threshold", c.PartitionTombstonesFailThreshold)
	add("authenticator", orDefault(c.Authenticator, "AllowAllAuthenticator"))
	add("authorizer", orDefault(c.Authorizer, "AllowAllAuthorizer"))
	add("materialized_views_enabled", b(c.MaterializedViewsEnabled))
	add("enable_materialized_views", b(c.MaterializedViewsEnabled))
	add("default_secondary_index", c.DefaultSecondaryIndex)
	add("default_secondary_index_enabled", b(c.DefaultSecondaryIndexEnabled))
	add("user_defined_functions_enabled", b(c.UserDefinedFunctionsEnabled))
	add("enable_user_defined_functions", b(c.UserDefinedFunctionsEnabled))
	add("default_keyspace_rf", itoa(int64(c.DefaultKeyspaceRF)))
	add("dynamic_data_masking_enabled", b(c.DynamicDataMaskingEnabled))
	add("batch_size_warn_threshold", formatSize(c.BatchSizeWarnThreshold))
	add("batch_size_warn_threshold_in_kb", itoa(c.BatchSizeWarnThreshold>>10))
	add("batch_size_fail_threshold", formatSize(c.BatchSizeFailThreshold))
	add("batch_size_fail_threshold_in_kb", itoa(c.BatchSizeFailThreshold>>10))
	add("unlogged_batch_across_partitions_warn_threshold", itoa(int64(c.UnloggedBatchAcrossPartitionsWarnThreshold)))
	add("purge_interval", formatDuration(c.PurgeInterval))
	add("trace_type_query_ttl", formatDuration(c.TraceTypeQueryTTL))
	add("tracetype_query_ttl", itoa(int64(c.TraceTypeQueryTTL/time.Second)))
	add("auto_snapshot", b(c.AutoSnapshot))
	if c.AutoSnapshotTTL > 0 {
		add("auto_snapshot_ttl", formatDuration(c.AutoSnapshotTTL))
	} else {
		null("auto_snapshot_ttl")
	}
	g := c.Guardrails
	for name, f := range guardrailThresholds(&g) {
		for i, suffix := range []string{"_warn_threshold", "_fail_threshold"} {
			n := *f[i]
			if isSizeGuardrail(name) {
				optSize(name+suffix, n)
			} else {
				optCount(name+suffix, n)
			}
		}
	}
	for name, disabled := range guardrailFlags(&g) {
		add(name, b(!*disabled))
	}
	timestamp := func(name string, us int64) {
		if us == 0 {
			null(name)
		} else {
			add(name, formatDuration(time.Duration(us)*time.Microsecond))
		}
	}
	timestamp("maximum_timestamp_warn_threshold", g.MaximumTimestampWarn)
	timestamp("maximum_timestamp_fail_threshold", g.MaximumTimestampFail)
	timestamp("minimum_timestamp_warn_threshold", g.MinimumTimestampWarn)
	timestamp("minimum_timestamp_fail_threshold", g.MinimumTimestampFail)
	add("zero_ttl_on_twcs_warned", b(g.ZeroTTLOnTWCSWarned))
	set := func(name string, v []string) {
		s := append([]string(nil), v...)
		sort.Strings(s)
		add(name, "["+strings.Join(s, ", ")+"]")
	}
	set("table_properties_warned", g.TablePropertiesWarned)
	set("table_properties_ignored", g.TablePropertiesIgnored)
	set("table_properties_disallowed", g.TablePropertiesDisallowed)
	set("read_consistency_levels_warned", g.ReadConsistencyLevelsWarned)
	set("read_consistency_levels_disallowed", g.ReadConsistencyLevelsDisallowed)
	set("write_consistency_levels_warned", g.WriteConsistencyLevelsWarned)
	set("write_consistency_levels_disallowed", g.WriteConsistencyLevelsDisallowed)
	return out
}

// formatDuration writes d in its largest whole unit, as DurationSpec
// writes a quantity and its unit ("10s", "500us", "1d").
func formatDuration(d time.Duration) string {
	units := []struct {
		d      time.Duration
		symbol string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"},
		{time.Millisecond, "ms"}, {time.Microsecond, "us"}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.symbol
		}
	}
	if d == 0 {
		return "0ms"
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// formatSize writes a byte count in its largest whole unit, as
// DataStorageSpec writes it ("5KiB", "512MiB").
func formatSize(n int64) string {
	units := []struct {
		n      int64
		symbol string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}}
	for _, u := range units {
		if n != 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.symbol
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
