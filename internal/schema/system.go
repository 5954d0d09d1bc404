package schema

import (
	"crypto/md5"
	"fmt"
	"strings"

	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Names of the keyspaces cqld owns.
const (
	SystemKeyspace       = "system"
	SystemSchemaKeyspace = "system_schema"
	SystemVirtualSchema  = "system_virtual_schema"
	SystemAuthKeyspace   = "system_auth"
	SystemDistributed    = "system_distributed"
	SystemTracesKeyspace = "system_traces"
	SystemViews          = "system_views"
	LocalStrategyClass   = "org.apache.cassandra.locator.LocalStrategy"
	SimpleStrategyClass  = "org.apache.cassandra.locator.SimpleStrategy"
	NetworkTopologyClass = "org.apache.cassandra.locator.NetworkTopologyStrategy"
)

var systemKeyspaceNames = map[string]struct{}{
	SystemKeyspace: {}, SystemSchemaKeyspace: {}, SystemVirtualSchema: {},
	SystemAuthKeyspace: {}, SystemDistributed: {}, SystemTracesKeyspace: {}, SystemViews: {},
}

// SystemTableID returns Cassandra's id for a system table:
// UUID.nameUUIDFromBytes(keyspace bytes ++ table bytes).
func SystemTableID(ks, table string) uuid.UUID {
	sum := md5.Sum([]byte(ks + table))
	sum[6] = sum[6]&0x0f | 0x30
	sum[8] = sum[8]&0x3f | 0x80
	return uuid.UUID(sum)
}

// defineTable builds a virtual table from column specs of the form
// "name type" with an optional "pk:" or "ck:" / "ck-desc:" prefix or
// "static:" prefix; key columns take positions in order of appearance.
func defineTable(ks, name string, specs ...string) *Table {
	var cols []*Column
	pkPos, ckPos := 0, 0
	for i, s := range specs {
		kind := Regular
		desc := false
		switch {
		case strings.HasPrefix(s, "pk:"):
			kind, s = PartitionKey, s[3:]
		case strings.HasPrefix(s, "ck-desc:"):
			kind, s, desc = Clustering, s[8:], true
		case strings.HasPrefix(s, "ck:"):
			kind, s = Clustering, s[3:]
		case strings.HasPrefix(s, "static:"):
			kind, s = Static, s[7:]
		}
		sp := strings.IndexByte(s, ' ')
		typ, err := types.ParseTypeString(s[sp+1:])
		if err != nil {
			panic(fmt.Sprintf("schema: bad system column type %q: %v", s, err))
		}
		c := &Column{Name: s[:sp], Type: typ, Kind: kind, Position: -1, Desc: desc, ID: uint32(i + 1)}
		switch kind {
		case PartitionKey:
			c.Position = pkPos
			pkPos++
		case Clustering:
			c.Position = ckPos
			ckPos++
		}
		cols = append(cols, c)
	}
	params := DefaultTableParams()
	params.GCGraceSeconds = 0
	t := NewTable(ks, name, SystemTableID(ks, name), cols, params)
	t.Virtual = true
	return t
}

// withComment sets a virtual table's comment.
func withComment(t *Table, comment string) *Table {
	t.Params.Comment = comment
	return t
}

// storedTable defines a system table kept in storage (system_auth), with
// Cassandra's 90-day gc_grace_seconds for those tables.
func storedTable(ks, name string, specs ...string) *Table {
	t := localTable(ks, name, specs...)
	t.Params.GCGraceSeconds = 7776000
	return t
}

// PreparedStatementsTable is system.prepared_statements, where prepared
// statements persist (query/prepared.go).
const PreparedStatementsTable = "prepared_statements"

// localTable defines a stored table of the system keyspace, with
// SystemKeyspace's gc_grace_seconds of 0 (defineTable's).
func localTable(ks, name string, specs ...string) *Table {
	t := defineTable(ks, name, specs...)
	t.Virtual = false
	return t
}

// traceTable defines a table of system_traces: stored, with no
// gc_grace_seconds (defineTable's), as TraceKeyspace has them.
func traceTable(name, comment string, specs ...string) *Table {
	return withComment(localTable(SystemTracesKeyspace, name, specs...), comment)
}

var tableParamColumns = []string{
	"additional_write_policy text",
	"allow_auto_snapshot boolean",
	"bloom_filter_fp_chance double",
	"caching frozen<map<text, text>>",
	"cdc boolean",
	"comment text",
	"compaction frozen<map<text, text>>",
	"compression frozen<map<text, text>>",
	"crc_check_chance double",
	"default_time_to_live int",
	"extensions frozen<map<text, blob>>",
	"gc_grace_seconds int",
	"id uuid",
	"incremental_backups boolean",
	"max_index_interval int",
	"memtable text",
	"memtable_flush_period_in_ms int",
	"min_index_interval int",
	"read_repair text",
	"speculative_retry text",
}

func withParams(specs ...string) []string {
	return append(specs, tableParamColumns...)
}

// SystemKeyspaces returns fresh definitions of the system keyspaces with
// their Cassandra 5.0 column layouts.
func SystemKeyspaces() map[string]*Keyspace {
	local := map[string]string{"class": LocalStrategyClass}
	mk := func(name string, repl map[string]string, tables ...*Table) *Keyspace {
		ks := &Keyspace{Name: name, Replication: repl, DurableWrites: true, Tables: map[string]*Table{},
			Virtual: IsVirtualKeyspace(name)}
		for _, t := range tables {
			ks.Tables[t.Name] = t
		}
		return ks
	}
	sys := SystemKeyspace
	ss := SystemSchemaKeyspace
	vs := SystemVirtualSchema
	return map[string]*Keyspace{
		sys: mk(sys, local,
			defineTable(sys, "local",
				"pk:key text", "bootstrapped text", "broadcast_address inet", "broadcast_port int",
				"cluster_name text", "cql_version text", "data_center text", "gossip_generation int",
				"host_id uuid", "listen_address inet", "listen_port int", "native_protocol_version text",
				"partitioner text", "rack text", "release_version text", "rpc_address inet", "rpc_port int",
				"schema_version uuid", "tokens set<text>", "truncated_at map<uuid, blob>"),
			defineTable(sys, "peers",
				"pk:peer inet", "data_center text", "host_id uuid", "preferred_ip inet", "rack text",
				"release_version text", "rpc_address inet", "schema_version uuid", "tokens set<text>"),
			defineTable(sys, "peers_v2",
				"pk:peer inet", "ck:peer_port int", "data_center text", "host_id uuid", "native_address inet",
				"native_port int", "preferred_ip inet", "preferred_port int", "rack text",
				"release_version text", "schema_version uuid", "tokens set<text>"),
			// Partition estimates per local token range, answered live from
			// the storage engine's per-table statistics (query/tablestats.go).
			defineTable(sys, "size_estimates",
				"pk:keyspace_name text", "ck:table_name text", "ck:range_start text", "ck:range_end text",
				"mean_partition_size bigint", "partitions_count bigint"),
			// Index and view build status. cqld builds an index or a view
			// before CREATE returns, so every one in the schema is listed
			// as built (query/systables.go).
			defineTable(sys, "IndexInfo", "pk:table_name text", "ck:index_name text", "value blob"),
			defineTable(sys, "built_views",
				"pk:keyspace_name text", "ck:view_name text", "status_replicated boolean"),
			defineTable(sys, "view_builds_in_progress",
				"pk:keyspace_name text", "ck:view_name text", "ck:start_token text", "ck:end_token text",
				"keys_built bigint", "last_token text"),
			withComment(localTable(sys, PreparedStatementsTable,
				"pk:prepared_id blob", "logged_keyspace text", "query_string text"), "prepared statements"),
			defineTable(sys, "table_estimates",
				"pk:keyspace_name text", "ck:table_name text", "ck:range_type text", "ck:range_start text",
				"ck:range_end text", "mean_partition_size bigint", "partitions_count bigint"),
		),
		ss: mk(ss, local,
			defineTable(ss, "keyspaces",
				"pk:keyspace_name text", "durable_writes boolean", "replication frozen<map<text, text>>"),
			defineTable(ss, "tables", withParams(
				"pk:keyspace_name text", "ck:table_name text", "flags frozen<set<text>>")...),
			defineTable(ss, "columns",
				"pk:keyspace_name text", "ck:table_name text", "ck:column_name text",
				"clustering_order text", "column_name_bytes blob", "kind text", "position int", "type text"),
			defineTable(ss, "column_masks",
				"pk:keyspace_name text", "ck:table_name text", "ck:column_name text",
				"function_keyspace text", "function_name text", "function_argument_types frozen<list<text>>",
				"function_argument_values frozen<list<text>>", "function_argument_nulls frozen<list<boolean>>"),
			defineTable(ss, "dropped_columns",
				"pk:keyspace_name text", "ck:table_name text", "ck:column_name text",
				"dropped_time timestamp", "kind text", "type text"),
			defineTable(ss, "types",
				"pk:keyspace_name text", "ck:type_name text", "field_names frozen<list<text>>",
				"field_types frozen<list<text>>"),
			defineTable(ss, "functions",
				"pk:keyspace_name text", "ck:function_name text", "ck:argument_types frozen<list<text>>",
				"argument_names frozen<list<text>>", "body text", "called_on_null_input boolean",
				"language text", "return_type text"),
			defineTable(ss, "aggregates",
				"pk:keyspace_name text", "ck:aggregate_name text", "ck:argument_types frozen<list<text>>",
				"final_func text", "initcond text", "return_type text", "state_func text", "state_type text"),
			defineTable(ss, "indexes",
				"pk:keyspace_name text", "ck:table_name text", "ck:index_name text", "kind text",
				"options frozen<map<text, text>>"),
			defineTable(ss, "views", withParams(
				"pk:keyspace_name text", "ck:view_name text", "base_table_id uuid", "base_table_name text",
				"include_all_columns boolean", "where_clause text",
				// Not in Cassandra 5.0, but gocql v1 projects them from views.
				"dclocal_read_repair_chance double", "read_repair_chance double")...),
			defineTable(ss, "triggers",
				"pk:keyspace_name text", "ck:table_name text", "ck:trigger_name text",
				"options frozen<map<text, text>>"),
		),
		// Comments as VirtualSchemaKeyspace gives them.
		vs: mk(vs, local,
			withComment(defineTable(vs, "keyspaces", "pk:keyspace_name text"), "virtual keyspace definitions"),
			withComment(defineTable(vs, "tables", "pk:keyspace_name text", "ck:table_name text", "comment text"),
				"virtual table definitions"),
			withComment(defineTable(vs, "columns",
				"pk:keyspace_name text", "ck:table_name text", "ck:column_name text",
				"clustering_order text", "column_name_bytes blob", "kind text", "position int", "type text"),
				"virtual column definitions"),
		),
		// system_views holds Cassandra 5.0's tables (systemViewsTables) and
		// cqld's own cqld_table_histograms, the per-table histograms of
		// nodetool tablehistograms (sizes in bytes, from the storage
		// engine's statistics; see query/tablestats.go).
		SystemViews: mk(SystemViews, local, append(systemViewsTables(),
			defineTable(SystemViews, "cqld_table_histograms",
				"pk:keyspace_name text", "ck:table_name text", "reads bigint", "partitions_measured bigint",
				"mean_partition_size bigint", "p50_partition_size bigint", "p75_partition_size bigint",
				"p95_partition_size bigint", "p99_partition_size bigint", "max_partition_size bigint",
				"mean_cell_count bigint", "p50_cell_count bigint", "p99_cell_count bigint", "max_cell_count bigint",
				"p50_tombstones_per_read bigint", "p99_tombstones_per_read bigint", "max_tombstones_per_read bigint"),
		)...),
		SystemAuthKeyspace: mk(SystemAuthKeyspace,
			map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"},
			storedTable(SystemAuthKeyspace, "roles", "pk:role text", "can_login boolean", "is_superuser boolean",
				"member_of set<text>", "salted_hash text"),
			storedTable(SystemAuthKeyspace, "role_members", "pk:role text", "ck:member text"),
			storedTable(SystemAuthKeyspace, "role_permissions", "pk:role text", "ck:resource text", "permissions set<text>"),
			storedTable(SystemAuthKeyspace, "resource_role_permissons_index", "pk:resource text", "ck:role text"),
			storedTable(SystemAuthKeyspace, "network_permissions", "pk:role text", "dcs frozen<set<text>>"),
			storedTable(SystemAuthKeyspace, "cidr_permissions", "pk:role text", "cidr_groups frozen<set<text>>"),
			storedTable(SystemAuthKeyspace, "cidr_groups", "pk:cidr_group text", "cidrs frozen<set<frozen<tuple<inet, smallint>>>>"),
			storedTable(SystemAuthKeyspace, "identity_to_role", "pk:identity text", "role text"),
		),
		SystemDistributed: mk(SystemDistributed,
			map[string]string{"class": SimpleStrategyClass, "replication_factor": "3"}),
		// TraceKeyspace's tables, written by traced requests
		// (internal/tracing, query/trace.go).
		SystemTracesKeyspace: mk(SystemTracesKeyspace,
			map[string]string{"class": SimpleStrategyClass, "replication_factor": "2"},
			traceTable("sessions", "tracing sessions",
				"pk:session_id uuid", "client inet", "command text", "coordinator inet", "coordinator_port int",
				"duration int", "parameters map<text, text>", "request text", "started_at timestamp"),
			traceTable("events", "tracing events",
				"pk:session_id uuid", "ck:event_id timeuuid", "activity text", "source inet", "source_elapsed int",
				"source_port int", "thread text"),
		),
	}
}
