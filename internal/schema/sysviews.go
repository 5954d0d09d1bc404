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

// SystemLogsTable is system_views.system_logs, the one virtual table that
// does not filter implicitly (LogMessagesTable).
const SystemLogsTable = "system_logs"

func bigints(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + " bigint"
	}
	return out
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
		withComment(defineTable(sv, "sai_column_indexes",
			"pk:keyspace_name text", "ck:index_name text", "table_name text", "column_name text",
			"is_queryable boolean", "is_building boolean", "is_string boolean", "analyzer text"),
			"Storage-attached column index metadata"),
		// Tables of subsystems a single node does not run (hints,
		// streaming, internode messaging) or cqld does not have (the
		// CQLLOG log appender, off by default in Cassandra too): they
		// have no rows.
		withComment(defineTable(sv, "pending_hints",
			"pk:host_id uuid", "address inet", "port int", "rack text", "dc text", "status text",
			"files int", "newest timestamp", "oldest timestamp"),
			"Pending hints that this node has for other nodes"),
		defineTable(sv, "streaming",
			"pk:id timeuuid", "follower boolean", "operation text", "peers frozen<list<text>>", "status text",
			"progress_percentage float", "last_updated_at timestamp", "duration_millis bigint",
			"failure_cause text", "success_message text", "bytes_to_receive bigint", "bytes_received bigint",
			"bytes_to_send bigint", "bytes_sent bigint", "files_to_receive bigint", "files_received bigint",
			"files_to_send bigint", "files_sent bigint", "status_init_timestamp timestamp",
			"status_start_timestamp timestamp", "status_success_timestamp timestamp",
			"status_failure_timestamp timestamp"),
		defineTable(sv, "internode_inbound", append([]string{"pk:address inet", "pk:port int", "ck:dc text", "ck:rack text"},
			bigints("using_bytes", "using_reserve_bytes", "corrupt_frames_recovered", "corrupt_frames_unrecovered",
				"error_bytes", "error_count", "expired_bytes", "expired_count", "scheduled_bytes", "scheduled_count",
				"processed_bytes", "processed_count", "received_bytes", "received_count", "throttled_count",
				"throttled_nanos")...)...),
		defineTable(sv, "internode_outbound", append([]string{"pk:address inet", "pk:port int", "ck:dc text", "ck:rack text"},
			bigints("using_bytes", "using_reserve_bytes", "pending_count", "pending_bytes", "sent_count", "sent_bytes",
				"expired_count", "expired_bytes", "error_count", "error_bytes", "overload_count", "overload_bytes",
				"active_connections", "connection_attempts", "successful_connection_attempts")...)...),
		withComment(defineTable(sv, "snapshots",
			"pk:name text", "ck:keyspace_name text", "ck:table_name text", "true_size bigint",
			"size_on_disk bigint", "created_at timestamp", "expires_at timestamp", "ephemeral boolean"),
			"available snapshots"),
		withComment(defineTable(sv, SystemLogsTable,
			"pk:timestamp timestamp", "ck:order_in_millisecond int", "logger text", "level text", "message text"),
			"Cassandra logs"),
	}
	for _, m := range tableMetricTables {
		tables = append(tables, defineTable(sv, m.name,
			append([]string{"pk:keyspace_name text", "pk:table_name text"}, m.columns...)...))
	}
	return tables
}
