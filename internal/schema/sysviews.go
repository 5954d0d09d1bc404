package schema

// The tables of Cassandra 5.0's system_views keyspace (SystemViewsKeyspace)
// that cqld serves, with their layouts and comments. Their rows are the
// node's live state (query/sysviews.go); the keyspace's rows are ordered by
// partition key value, as Cassandra's LocalPartitioner orders them.

// tableMetricTables are TableMetricTables' tables: one row per stored
// table, keyed by ((keyspace_name, table_name)), without a comment.
var tableMetricTables = []struct {
	name    string
	columns []string
}{
	{"local_read_latency", latencyColumns},
	{"local_scan_latency", latencyColumns},
	{"local_write_latency", latencyColumns},
	{"coordinator_read_latency", latencyColumns},
	{"coordinator_scan_latency", latencyColumns},
	{"coordinator_write_latency", latencyColumns},
	{"tombstones_per_read", perReadColumns},
	{"rows_per_read", perReadColumns},
	{"disk_usage", []string{"mebibytes bigint"}},
	{"max_partition_size", []string{"mebibytes bigint"}},
}

var (
	latencyColumns = []string{"count bigint", "p50th_ms double", "p99th_ms double", "max_ms double", "per_second double"}
	perReadColumns = []string{"count bigint", "p50th double", "p99th double", "max double"}
)

// IsTableMetricTable reports whether name is one of system_views' table
// metric tables.
func IsTableMetricTable(name string) bool {
	for _, m := range tableMetricTables {
		if m.name == name {
			return true
		}
	}
	return false
}

func systemViewsTables() []*Table {
	sv := SystemViews
	tables := []*Table{
		withComment(defineTable(sv, "clients",
			"pk:address inet", "ck:port int", "hostname text", "username text", "connection_stage text",
			"protocol_version int", "client_options frozen<map<text, text>>", "driver_name text",
			"driver_version text", "request_count bigint", "ssl_enabled boolean", "ssl_protocol text",
			"ssl_cipher_suite text", "keyspace_name text"),
			"currently connected clients"),
		withComment(defineTable(sv, "settings", "pk:name text", "value text"), "current settings"),
		withComment(defineTable(sv, "caches",
			"pk:name text", "capacity_bytes bigint", "size_bytes bigint", "entry_count int",
			"request_count bigint", "hit_count bigint", "hit_ratio double",
			"recent_request_rate_per_second bigint", "recent_hit_rate_per_second bigint"),
			"system caches"),
		withComment(defineTable(sv, "cql_metrics", "pk:name text", "value double"),
			"Metrics specific to CQL prepared statement caching"),
	}
	for _, m := range tableMetricTables {
		tables = append(tables, defineTable(sv, m.name,
			append([]string{"pk:keyspace_name text", "pk:table_name text"}, m.columns...)...))
	}
	return tables
}
