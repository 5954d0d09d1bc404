// Package query turns CQL statements into replica-level commands and results:
// it resolves statements against the schema, analyses restrictions with
// Cassandra's rules and messages, evaluates terms and bind values, builds
// mutation.PartitionUpdates and mutation.ReadCommands, hands them to a
// Coordinator (the only way to reach data), and shapes the rows it gets back
// (selection, ordering, limits, paging).
//
// It also serves the virtual system tables (system.local, system.peers,
// system_schema.*) from the live schema and node information, through the
// same selection and paging code as user tables.
//
// The Executor owns the prepared-statement cache. It is safe for concurrent
// use; per-connection state is the Session passed with each call.
package query
