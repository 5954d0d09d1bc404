// Package ceiling is a benchmark-only CQL server: cqld's own native-protocol
// transport (internal/transport) in front of an in-memory map instead of the
// query engine and storage. It exists to measure the protocol ceiling for a
// client on this machine: cqld's throughput divided by the ceiling's, same
// workload, same client, same run, is the efficiency figure docs/benchmarks.md
// tracks. It is not part of the product and must never be.
//
// It understands exactly the statements the harness (package bench) and the
// drivers' connect-time queries send:
//
//   - CREATE KEYSPACE, CREATE TABLE (columns, PRIMARY KEY ((p, ...), c, ...)),
//     USE;
//   - INSERT INTO t (c, ...) VALUES (?, ...);
//   - UPDATE t SET c = ?, ... WHERE p = ? AND ...;
//   - SELECT cols|* FROM t WHERE p = ? AND ... [AND c >|>=|<|<= ?] [LIMIT n];
//   - SELECT ... FROM system.local / system.peers / system_schema.* (enough
//     for gocql v2 to connect and to route by token); system.peers_v2 is
//     answered "unconfigured table" as Cassandra 3.x does.
//
// Every bound value must be a marker (?); literals are refused. Statements
// are parsed once, at PREPARE (or per QUERY); EXECUTE is a map lookup plus
// the data access, so the ceiling costs little more than the transport.
// There are no timestamps, TTLs, tombstones or consistency levels: the last
// write wins in arrival order.
package ceiling
