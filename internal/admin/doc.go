// Package admin implements `cqld nodetool`: the admin HTTP API a node serves
// on its admin port (Register mounts it through node.HandleAdmin) and the
// nodetool-compatible command line client (Nodetool) that talks to it.
//
// Commands, options and output follow Cassandra 5.0's nodetool: options
// before the command (-h host, -p port), the same headings and field names
// (status, info, version, flush, compact, garbagecollect, drain,
// tablestats, tablehistograms). Values cqld does not track are left out
// rather than invented, except where nodetool prints a fixed value for a
// single node (Owns 100.0%, Pending Flushes 0).
//
// The API is JSON under /nodetool/v1/: GET info, tablestats and
// tablehistograms; POST flush, compact, garbagecollect and drain, with the
// keyspace and tables as query parameters. Errors are HTTP 4xx/5xx with a
// JSON {"error": message} body; the client prints "nodetool: message" and
// fails, as nodetool does.
package admin
