package query

import (
	"bytes"
	"encoding/binary"
	"math"
	"net"
	"sync/atomic"
	"time"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// The rows of Cassandra 5.0's system_views tables (schema/sysviews.go):
// the node's live state, which the node supplies through RuntimeSource.

// RuntimeSource supplies the node's live state to the system_views tables.
// The node composes it from the transport, the storage engine and its
// configuration (the query layer touches neither).
type RuntimeSource interface {
	// Clients returns the connected native-protocol clients.
	Clients() []ClientInfo
	// Settings returns the node's settings.
	Settings() []Setting
	// Caches returns the node's caches.
	Caches() []CacheInfo
	// TableMetrics returns the metrics of a stored table that the named
	// table metric table shows (the other fields are left zero).
	TableMetrics(t *schema.Table, metric string) TableMetrics
	// Snapshots returns the snapshots on disk.
	Snapshots() []SnapshotInfo
}

// SnapshotInfo is one row of system_views.snapshots: a snapshot of one
// table. ExpiresAt is zero without a TTL.
type SnapshotInfo struct {
	Tag, Keyspace, Table string
	TrueSize, SizeOnDisk int64
	CreatedAt, ExpiresAt time.Time
	Ephemeral            bool
}

// ClientInfo is one connection of system_views.clients (ConnectedClient).
type ClientInfo struct {
	// Address is 4 bytes for IPv4, 16 for IPv6 (an inet value).
	Address  net.IP
	Port     int
	Hostname string
	// Username is "" before authentication.
	Username        string
	Stage           string // established, authenticating, ready
	ProtocolVersion int
	// Options are the STARTUP options (nil before STARTUP).
	Options  map[string]string
	Requests int64
	Keyspace string // "" when none is set
}

// Setting is one row of system_views.settings; Null leaves value null.
type Setting struct {
	Name, Value string
	Null        bool
}

// CacheInfo is one row of system_views.caches: sizes in bytes, rates per
// second (fifteen-minute moving averages, as Cassandra's meters give).
type CacheInfo struct {
	Name                             string
	CapacityBytes, SizeBytes         int64
	Entries                          int64
	Requests, Hits                   int64
	RecentRequestRate, RecentHitRate float64
}

// Timer summarises the latencies of one kind of operation: all-time count,
// percentiles in milliseconds, and the five-minute moving average of the
// rate per second.
type Timer struct {
	Count               int64
	P50Ms, P99Ms, MaxMs float64
	PerSecond           float64
}

// PerRead summarises a per-read histogram (rows or tombstones).
type PerRead struct {
	Count         int64
	P50, P99, Max float64
}

// TableMetrics are the per-table metrics of system_views' table metric
// tables.
type TableMetrics struct {
	LocalRead, LocalScan, LocalWrite                   Timer
	CoordinatorRead, CoordinatorScan, CoordinatorWrite Timer
	TombstonesPerRead, RowsPerRead                     PerRead
	// DiskBytes is the table's share of the data on disk;
	// MaxPartitionBytes the largest partition measured.
	DiskBytes, MaxPartitionBytes int64
}

// cqlMetrics counts statements as QueryProcessor's metrics do:
// preparedExecuted and regularExecuted count EXECUTEs and QUERYs whose
// values bound (the node's own queries left out); BATCHes count in
// neither.
type cqlMetrics struct {
	preparedExecuted, regularExecuted atomic.Int64
}

// addSystemViewsRows fills a system_views table. Without a runtime source
// (the advisor's offline executor, tests) only cql_metrics has rows.
func (e *Executor) addSystemViewsRows(v *virtualTable, s *schema.Schema, addRow func(pk []byte, fill func(r *virtualRow), clustering ...[]byte)) {
	src := e.cfg.Runtime
	name := v.t.Name
	switch name {
	case "cql_metrics":
		e.addCQLMetricsRows(addRow)
		return
	case "sai_column_indexes":
		addSAIColumnIndexRows(s, addRow)
		return
	}
	if src == nil {
		return
	}
	switch {
	case name == "clients":
		for _, c := range src.Clients() {
			addRow([]byte(c.Address), func(r *virtualRow) {
				r.set("hostname", optText(c.Hostname)).
					set("username", optText(c.Username)).
					set("connection_stage", text(c.Stage)).
					set("protocol_version", types.EncodeInt(int32(c.ProtocolVersion))).
					set("request_count", types.EncodeBigint(c.Requests)).
					set("ssl_enabled", types.EncodeBoolean(false)).
					set("keyspace_name", optText(c.Keyspace))
				if c.Options != nil {
					r.set("client_options", textMap(c.Options))
					// Present but empty is '', as in ConnectedClient.
					if v, ok := c.Options["DRIVER_NAME"]; ok {
						r.set("driver_name", text(v))
					}
					if v, ok := c.Options["DRIVER_VERSION"]; ok {
						r.set("driver_version", text(v))
					}
				}
			}, types.EncodeInt(int32(c.Port)))
		}
	case name == "settings":
		for _, st := range src.Settings() {
			addRow(text(st.Name), func(r *virtualRow) {
				if !st.Null {
					r.set("value", text(st.Value))
				}
			})
		}
	case name == "snapshots":
		// SnapshotsTable: every snapshot on disk, ephemeral ones and those
		// of dropped tables included.
		for _, sn := range src.Snapshots() {
			addRow(text(sn.Tag), func(r *virtualRow) {
				r.set("true_size", types.EncodeBigint(sn.TrueSize)).
					set("size_on_disk", types.EncodeBigint(sn.SizeOnDisk)).
					set("created_at", types.EncodeTimestamp(sn.CreatedAt)).
					set("ephemeral", types.EncodeBoolean(sn.Ephemeral))
				if !sn.ExpiresAt.IsZero() {
					r.set("expires_at", types.EncodeTimestamp(sn.ExpiresAt))
				}
			}, text(sn.Keyspace), text(sn.Table))
		}
	case name == "caches":
		for _, c := range src.Caches() {
			addRow(text(c.Name), func(r *virtualRow) {
				r.set("capacity_bytes", types.EncodeBigint(c.CapacityBytes)).
					set("size_bytes", types.EncodeBigint(c.SizeBytes)).
					set("entry_count", types.EncodeInt(int32(min(c.Entries, math.MaxInt32)))).
					set("request_count", types.EncodeBigint(c.Requests)).
					set("hit_count", types.EncodeBigint(c.Hits)).
					set("hit_ratio", types.EncodeDouble(ratio(c.Hits, c.Requests))).
					set("recent_request_rate_per_second", types.EncodeBigint(int64(c.RecentRequestRate))).
					set("recent_hit_rate_per_second", types.EncodeBigint(int64(c.RecentHitRate)))
			})
		}
	case schema.IsTableMetricTable(name):
		for _, t := range metricTables(s) {
			m := src.TableMetrics(t, name)
			pk := mutation.CompositeKey([][]byte{text(t.Keyspace), text(t.Name)})
			addRow(pk, func(r *virtualRow) { setTableMetric(r, name, &m) })
		}
	}
}

// metricTables are the tables TableMetricTables lists: every stored table
// and view of every keyspace (ColumnFamilyStore.all()), the system
// keyspaces' included; index tables and virtual tables are not.
func metricTables(s *schema.Schema) []*schema.Table {
	var out []*schema.Table
	for _, t := range s.Tables(false) {
		if !t.Virtual {
			out = append(out, t)
		}
	}
	return out
}

// setTableMetric fills one table metric row as TableMetricTables does:
// latencies in milliseconds and counts rounded to three decimals, storage
// in mebibytes rounded up.
func setTableMetric(r *virtualRow, name string, m *TableMetrics) {
	timer := func(t *Timer) {
		r.set("count", types.EncodeBigint(t.Count)).
			set("p50th_ms", types.EncodeDouble(round3(t.P50Ms))).
			set("p99th_ms", types.EncodeDouble(round3(t.P99Ms))).
			set("max_ms", types.EncodeDouble(round3(t.MaxMs))).
			set("per_second", types.EncodeDouble(round3(t.PerSecond)))
	}
	perRead := func(h *PerRead) {
		r.set("count", types.EncodeBigint(h.Count)).
			set("p50th", types.EncodeDouble(round3(h.P50))).
			set("p99th", types.EncodeDouble(round3(h.P99))).
			set("max", types.EncodeDouble(round3(h.Max)))
	}
	mib := func(b int64) []byte { return types.EncodeBigint((b + 1<<20 - 1) >> 20) }
	switch name {
	case "local_read_latency":
		timer(&m.LocalRead)
	case "local_scan_latency":
		timer(&m.LocalScan)
	case "local_write_latency":
		timer(&m.LocalWrite)
	case "coordinator_read_latency":
		timer(&m.CoordinatorRead)
	case "coordinator_scan_latency":
		timer(&m.CoordinatorScan)
	case "coordinator_write_latency":
		timer(&m.CoordinatorWrite)
	case "tombstones_per_read":
		perRead(&m.TombstonesPerRead)
	case "rows_per_read":
		perRead(&m.RowsPerRead)
	case "disk_usage":
		r.set("mebibytes", mib(m.DiskBytes))
	case "max_partition_size":
		r.set("mebibytes", mib(m.MaxPartitionBytes))
	}
}

// addCQLMetricsRows fills system_views.cql_metrics (CQLMetricsTable).
func (e *Executor) addCQLMetricsRows(addRow func(pk []byte, fill func(r *virtualRow), clustering ...[]byte)) {
	count := e.prepared.size()
	prepared, regular := e.metrics.preparedExecuted.Load(), e.metrics.regularExecuted.Load()
	for _, row := range []struct {
		name  string
		value float64
	}{
		{"prepared_statements_count", float64(count)},
		{"prepared_statements_evicted", float64(e.prepared.evicted.Load())},
		{"prepared_statements_executed", float64(prepared)},
		{"prepared_statements_ratio", ratio(prepared, prepared+regular)},
		{"regular_statements_executed", float64(regular)},
	} {
		addRow(text(row.name), func(r *virtualRow) { r.set("value", types.EncodeDouble(row.value)) })
	}
}

// ratio is Dropwizard's RatioGauge: NaN when the denominator is 0.
func ratio(n, d int64) float64 {
	if d == 0 {
		return math.NaN()
	}
	return float64(n) / float64(d)
}

// round3 is Precision.round(v, 3, ROUND_HALF_UP).
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	return math.Round(v*1000) / 1000
}

func optText(s string) []byte {
	if s == "" {
		return nil
	}
	return text(s)
}

// Tables of system_views are ordered by partition key value, as
// Cassandra's LocalPartitioner orders them, not by token. Their partitions
// get tokens that keep that order (localToken): token ranges, token() and
// paging work on them as on other tables, and keys whose tokens tie are
// ordered by compareLocalKeys. Unlike LocalPartitioner's tokens, which are
// the keys themselves, a token keeps only eight bytes of the key, so a
// token() bound cannot tell apart keys that share their first eight bytes
// (commitlog_sync and commitlog_sync_period). The keys that order this
// way are those that sort as their bytes (text, inet): the tables keyed
// otherwise (system_logs, pending_hints, internode_*, streaming) have no
// rows.

// localOrdered reports whether t is ordered by key value.
func localOrdered(t *schema.Table) bool { return t.Keyspace == schema.SystemViews }

// tokenOf returns the token of a partition key of t.
func (e *Executor) tokenOf(t *schema.Table, key []byte) int64 {
	if localOrdered(t) {
		return localToken(t, key)
	}
	return e.cfg.Partitioner.Token(key)
}

// localPartitioner is the Partitioner of a local-ordered table's token().
type localPartitioner struct{ t *schema.Table }

func (p localPartitioner) Token(key []byte) int64 { return localToken(p.t, key) }

// localToken is an order-preserving token: the first eight bytes of the
// first key component, with the sign bit flipped so that signed order is
// the bytes' unsigned order. The minimum token is never one (a range
// read starting there would exclude it), so a key of eight zero bytes
// (the inet ::1) takes the next.
func localToken(t *schema.Table, key []byte) int64 {
	first := key
	if len(t.PartitionKey) > 1 {
		if parts, err := mutation.SplitCompositeKey(key, len(t.PartitionKey)); err == nil {
			first = parts[0]
		}
	}
	var b [8]byte
	copy(b[:], first)
	tok := int64(binary.BigEndian.Uint64(b[:]) ^ 1<<63)
	if tok == math.MinInt64 {
		tok++
	}
	return tok
}

// compareLocalKeys orders two partition keys of a local-ordered table by
// their components' values.
func compareLocalKeys(t *schema.Table, a, b []byte) int {
	pk := t.PartitionKey
	if len(pk) == 1 {
		return bytes.Compare(a, b)
	}
	pa, errA := mutation.SplitCompositeKey(a, len(pk))
	pb, errB := mutation.SplitCompositeKey(b, len(pk))
	if errA != nil || errB != nil {
		return bytes.Compare(a, b)
	}
	for i := range pa {
		if c := bytes.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareKeys orders two partition keys of a virtual table whose tokens
// are equal.
func compareKeys(t *schema.Table, a, b []byte) int {
	if localOrdered(t) {
		return compareLocalKeys(t, a, b)
	}
	return bytes.Compare(a, b)
}

// addSAIColumnIndexRows fills system_views.sai_column_indexes
// (ColumnIndexesSystemView): the storage-attached indexes of the user
// keyspaces. cqld builds an index before CREATE INDEX returns, so every
// one is queryable and none is building.
func addSAIColumnIndexRows(s *schema.Schema, addRow func(pk []byte, fill func(r *virtualRow), clustering ...[]byte)) {
	for _, t := range s.UserTables() {
		for _, ix := range t.Indexes {
			if !ix.SAI() {
				continue
			}
			col := t.Column(ix.Column)
			if col == nil {
				continue
			}
			addRow(text(t.Keyspace), func(r *virtualRow) {
				r.set("table_name", text(t.Name)).
					set("column_name", text(col.Name)).
					set("is_queryable", types.EncodeBoolean(true)).
					set("is_building", types.EncodeBoolean(false)).
					set("is_string", types.EncodeBoolean(ix.TermsLiteral(col))).
					set("analyzer", text(ix.AnalyzerName(col)))
			}, text(ix.Name))
		}
	}
}
