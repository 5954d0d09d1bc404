// Package tracing collects the events of a traced request (Cassandra's
// query tracing: the native protocol's tracing flag, cqlsh's TRACING ON,
// a driver's query trace).
//
// A traced request carries a *Session in its context. Any layer that holds
// the context adds events with Trace, which costs one context lookup when
// the request is not traced (a formatted event is built only after
// FromContext found a session).
// The query layer starts a session with its parameters (Begin) and, when
// the request ends, writes the session and its events to the
// system_traces.sessions and system_traces.events tables.
//
// The package sits right below cqlerr in the dependency order (see
// internal/lint): the storage engine and the query layer both add events,
// and a package they both import is the only place for the collector.
// DESIGN.md's package list predates tracing; this is the one addition.
package tracing
