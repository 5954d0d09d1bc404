// Package advisor checks data models against the method the seed documents
// teach: queries must be answered by their table's primary key (the query
// layer's own restriction analysis decides it — the advisor never
// re-implements it), partition keys must spread data and bound growth, and
// partitions are sized with seed 000's formula.
//
// It works offline on CQL schema files plus an optional workload (the
// queries and per-table expectations) and produces findings with stable rule
// ids, each citing the seed document its rule comes from, and per-table
// partition-size estimates. It reads no storage.
package advisor
