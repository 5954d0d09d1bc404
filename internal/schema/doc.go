// Package schema holds keyspace, table, column and user-defined type
// definitions (types.go) as immutable
// versions (a *Schema never changes after it is published), the Manager that
// applies DDL and persists every version through a small MetaStore
// interface, the definitions of the system keyspaces cqld serves itself
// (system.local, system.peers(_v2), system_schema.*, system_virtual_schema.*)
// and the rows of system_schema that describe the live schema.
//
// Invariants: a published Schema is never mutated; every change produces a
// new Schema with a new Version (a time-based UUID), which system.local's
// schema_version reports; column ids are never reused within a table; a
// column or type that uses a user type embeds that type's current
// definition (altering a type rebuilds its users in the same version).
package schema
