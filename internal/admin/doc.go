// Package admin implements `cqld nodetool`: the admin HTTP API a node serves
// on its admin port (Register mounts it through node.HandleAdmin) and the
// nodetool-compatible command line client (Nodetool) that talks to it.
//
// Commands, options and output follow Cassandra 5.0's nodetool: options
// before the command (-h host, -p port), the same headings and field names
// (status, info, version, ring, describering, describecluster,
// getendpoints, flush, compact, garbagecollect, drain, tablestats,
// tablehistograms, snapshot, listsnapshots, clearsnapshot, import).
// Values cqld does not track are left out rather than invented, except
// where nodetool prints a fixed value for a single node (Pending Flushes
// 0). The ring commands (ring.go) see a cluster of one: the node owns
// every token range, and is a keyspace's only replica unless its
// replication factor is 0.
//
// The API is JSON under /nodetool/v1/: GET info, ring, endpoints,
// tablestats, tablehistograms and snapshots; POST flush, compact, garbagecollect,
// drain, snapshot, clearsnapshot and import, with the keyspace and tables
// as query parameters.
//
// Snapshots (snapshot.go) are storage/snapshot's. nodetool import takes
// the directory of a snapshot (listsnapshots' tag under
// <data>/snapshots/<keyspace>/<table>-<id>/), as Cassandra's takes a
// directory of sstables, and merges its data into the table; the path is
// resolved by the node, as Cassandra's JMX call resolves it. The import
// options are accepted and change nothing: the snapshot is read, never
// moved (--copy-data), and every entry goes through the storage engine,
// which keeps its caches coherent. Indexes are built over the merged rows;
// materialized views are not updated (nor are they by Cassandra's
// import). Errors are HTTP 4xx/5xx with a
// JSON {"error": message} body; the client prints "nodetool: message" and
// fails, as nodetool does.
package admin
