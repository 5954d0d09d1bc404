package query

import (
	"github.com/cqld/cqld/internal/types"
)

// Session is the per-connection state the query layer reads and changes:
// the current keyspace (USE). The transport owns one per connection and
// serializes nothing: Keyspace is only changed by USE results, which the
// transport applies.
type Session struct {
	Keyspace string
	// User is the logged-in role ("" for the anonymous user of
	// AllowAllAuthenticator).
	User string
	// Internal marks the node's own queries (internal/auth): never
	// authorized, and allowed to write system_auth.
	Internal bool
}

// Value is a bound value. Null is B == nil && !Unset; an empty value (a
// zero-length int, ...) is B != nil with len 0; Unset is protocol v4+'s
// "not set" marker, which leaves the column untouched.
type Value struct {
	B     []byte
	Unset bool
}

// Options are the per-request parameters of QUERY, EXECUTE and BATCH.
type Options struct {
	Consistency       uint16
	SerialConsistency uint16
	// Values are the positional bound values; Names, when non-nil, names
	// each value (QUERY with named values).
	Values []Value
	Names  []string
	// PageSize <= 0 means no paging.
	PageSize    int32
	PagingState []byte
	// Timestamp is the client-provided default timestamp (µs), or 0 when
	// none was given.
	Timestamp    int64
	HasTimestamp bool
	// Keyspace is the v5 per-request keyspace ("" when absent).
	Keyspace string
	// NowInSeconds is the v5 per-request "now" (0 when absent).
	NowInSeconds int32
	// ProtocolVersion of the connection (3, 4 or 5), for version-dependent
	// encodings of collections in v2 vs v3+ (always v3+ here) and warnings.
	ProtocolVersion int
}

// serialConsistency is the request's serial consistency, SERIAL when not
// given (QueryOptions' default).
func (o *Options) serialConsistency() Consistency {
	if o.SerialConsistency == 0 {
		return Serial
	}
	return Consistency(o.SerialConsistency)
}

// ColumnSpec describes one bound variable or one result column.
type ColumnSpec struct {
	Keyspace, Table, Name string
	Type                  *types.Type
}

// ResultKind is the kind of a RESULT message.
type ResultKind uint8

const (
	VoidResult ResultKind = iota + 1
	RowsResult
	SetKeyspaceResult
	SchemaChangeResult
)

// SchemaChange describes a schema change for results and events. Change is
// CREATED, UPDATED or DROPPED; Target is KEYSPACE, TABLE, TYPE, FUNCTION or
// AGGREGATE; Name is empty for keyspace targets; Args are the argument types
// of functions and aggregates.
type SchemaChange struct {
	Change   string
	Target   string
	Keyspace string
	Name     string
	Args     []string
}

// Result is the answer to a QUERY, EXECUTE or BATCH.
type Result struct {
	Kind ResultKind
	// Rows results.
	Columns     []ColumnSpec
	Rows        [][][]byte
	PagingState []byte // nil on the last page
	// SetKeyspace result.
	Keyspace string
	// SchemaChange result.
	SchemaChange *SchemaChange
	// Warnings are sent with the response (v4+ warning flag).
	Warnings []string
}

// Prepared is a prepared statement as PREPARE returns it.
type Prepared struct {
	// ID is Cassandra's id: MD5 of the keyspace and the query string.
	ID    []byte
	Bound []ColumnSpec
	// PKIndexes are the indexes in Bound of the partition key columns, in
	// partition key order (for token-aware routing); nil when not all of
	// them are bound.
	PKIndexes []uint16
	// Columns are the result columns (nil for non-SELECT). The transport
	// derives the v5 result metadata id from them.
	Columns []ColumnSpec
}

// BatchStatement is one statement of a BATCH request: either a query string
// or a prepared statement id, with its values.
type BatchStatement struct {
	Query  string
	ID     []byte
	Values []Value
	Names  []string
}

// BatchRequest is a BATCH message. Type is 0 logged, 1 unlogged, 2 counter.
type BatchRequest struct {
	Type       uint8
	Statements []BatchStatement
	Options    Options
}
