// Package node is the composition root: it reads the configuration
// (cassandra.yaml key names), opens storage, loads the schema, assigns the
// node's identity (host id and vnode tokens, persisted), wires the query
// executor to the coordinator and the native protocol server, and shuts all
// of it down in order: stop accepting, finish in-flight requests, flush,
// close storage.
package node
