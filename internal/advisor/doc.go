// Package advisor checks data models against the method the seed documents
// teach: queries must be answered by their table's primary key (the query
// layer's own restriction analysis decides it — the advisor never
// re-implements it), partition keys must spread data and bound growth,
// partitions are sized with seed 000's formula, and the anti-patterns the
// seeds list (queues, deletes without TTL, secondary indexes as the primary
// access path, materialized views, multi-table writes outside a logged
// batch, counters as sequences, large collections, ...) are reported.
//
// It works offline on CQL schema files plus an optional workload (the
// queries and per-table expectations) and produces findings with stable rule
// ids (rules.go), each citing the seed document its rule comes from, and
// per-table partition-size estimates. Against a live server (Live), the
// schema comes from system_schema and partition sizes from the server's
// statistics (system.size_estimates, system_views.cqld_table_histograms)
// instead of the formula. It reads no storage.
package advisor
