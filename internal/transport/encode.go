package transport

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// Response bodies are appended to a frame buffer whose first 9 bytes are the
// envelope header (see frame.go). RESULT Void and Rows, the answers to nearly
// every QUERY and EXECUTE, are encoded here by append helpers with no
// allocation per cell; every other message is encoded by the library's
// message codecs (encodeMessage).

func appendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func appendInt(b []byte, v int32) []byte    { return binary.BigEndian.AppendUint32(b, uint32(v)) }

// appendString appends a [string]; longer strings than a [short] can count
// (error messages) are truncated.
func appendString(b []byte, s string) []byte {
	if len(s) > 0xFFFF {
		s = s[:0xFFFF]
	}
	return append(appendShort(b, uint16(len(s))), s...)
}

func appendBytes(b []byte, v []byte) []byte {
	if v == nil {
		return appendInt(b, -1)
	}
	return append(appendInt(b, int32(len(v))), v...)
}

func appendShortBytes(b []byte, v []byte) []byte {
	return append(appendShort(b, uint16(len(v))), v...)
}

func appendStringList(b []byte, l []string) []byte {
	b = appendShort(b, uint16(len(l)))
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

// Result kinds and rows flags (spec 4.2.5).
const (
	resultVoid = 0x0001
	resultRows = 0x0002

	rowsGlobalTableSpec = 0x0001
	rowsHasMorePages    = 0x0002
	rowsNoMetadata      = 0x0004
	rowsMetadataChanged = 0x0008
)

// sameTable reports whether all columns share keyspace and table, which
// allows the global_tables_spec form.
func sameTable(cols []query.ColumnSpec) bool {
	for i := 1; i < len(cols); i++ {
		if cols[i].Keyspace != cols[0].Keyspace || cols[i].Table != cols[0].Table {
			return false
		}
	}
	return len(cols) > 0
}

// appendColumnSpecs appends the column specifications of a metadata block.
func appendColumnSpecs(b []byte, cols []query.ColumnSpec, global bool) []byte {
	if global {
		b = appendString(b, cols[0].Keyspace)
		b = appendString(b, cols[0].Table)
	}
	for i := range cols {
		c := &cols[i]
		if !global {
			b = appendString(b, c.Keyspace)
			b = appendString(b, c.Table)
		}
		b = appendString(b, c.Name)
		b = appendType(b, c.Type)
	}
	return b
}

// appendRowsResult appends a RESULT Rows body. noMetadata omits the column
// specs (EXECUTE with skip_metadata); newMetadataID, when non-nil, sets
// METADATA_CHANGED (v5) and forces the specs.
func appendRowsResult(b []byte, res *query.Result, noMetadata bool, newMetadataID []byte) []byte {
	b = appendInt(b, resultRows)
	var flags int32
	global := sameTable(res.Columns)
	if newMetadataID != nil {
		flags |= rowsMetadataChanged
		noMetadata = false
	}
	if noMetadata || len(res.Columns) == 0 {
		flags |= rowsNoMetadata
	} else if global {
		flags |= rowsGlobalTableSpec
	}
	if res.PagingState != nil {
		flags |= rowsHasMorePages
	}
	b = appendInt(b, flags)
	b = appendInt(b, int32(len(res.Columns)))
	if res.PagingState != nil {
		b = appendBytes(b, res.PagingState)
	}
	if newMetadataID != nil {
		b = appendShortBytes(b, newMetadataID)
	}
	if flags&rowsNoMetadata == 0 {
		b = appendColumnSpecs(b, res.Columns, global)
	}
	b = appendInt(b, int32(len(res.Rows)))
	for _, row := range res.Rows {
		for _, cell := range row {
			b = appendBytes(b, cell)
		}
	}
	return b
}

// rowsResultSize estimates the body size of a Rows result, to size buffers.
func rowsResultSize(res *query.Result) int {
	n := 32 + len(res.PagingState)
	for i := range res.Columns {
		n += 24 + len(res.Columns[i].Name)
	}
	for _, row := range res.Rows {
		for _, cell := range row {
			n += 4 + len(cell)
		}
	}
	return n
}

// messageCodecs indexes the library's codecs by opcode.
var messageCodecs = func() map[primitive.OpCode]message.Codec {
	m := make(map[primitive.OpCode]message.Codec, len(message.DefaultMessageCodecs))
	for _, c := range message.DefaultMessageCodecs {
		m[c.GetOpCode()] = c
	}
	return m
}()

// encodeMessage appends the body of msg encoded by the library.
func encodeMessage(b []byte, msg message.Message, version byte) ([]byte, error) {
	codec := messageCodecs[msg.GetOpCode()]
	if codec == nil {
		return b, fmt.Errorf("no codec for opcode %v", msg.GetOpCode())
	}
	buf := bytes.NewBuffer(b)
	if err := codec.Encode(msg, buf, primitive.ProtocolVersion(version)); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// schemaChangeResult converts a query schema change to the library's RESULT.
func schemaChangeResult(sc *query.SchemaChange) *message.SchemaChangeResult {
	return &message.SchemaChangeResult{
		ChangeType: primitive.SchemaChangeType(sc.Change),
		Target:     primitive.SchemaChangeTarget(sc.Target),
		Keyspace:   sc.Keyspace,
		Object:     sc.Name,
		Arguments:  sc.Args,
	}
}

func schemaChangeEvent(sc *query.SchemaChange) *message.SchemaChangeEvent {
	return &message.SchemaChangeEvent{
		ChangeType: primitive.SchemaChangeType(sc.Change),
		Target:     primitive.SchemaChangeTarget(sc.Target),
		Keyspace:   sc.Keyspace,
		Object:     sc.Name,
		Arguments:  sc.Args,
	}
}

// columnsMetadata converts column specs to the library's metadata.
func columnsMetadata(cols []query.ColumnSpec) []*message.ColumnMetadata {
	if len(cols) == 0 {
		return nil
	}
	out := make([]*message.ColumnMetadata, len(cols))
	for i := range cols {
		c := &cols[i]
		out[i] = &message.ColumnMetadata{Keyspace: c.Keyspace, Table: c.Table, Name: c.Name,
			Index: int32(i), Type: toDataType(c.Type)}
	}
	return out
}

// preparedResult converts a prepared statement to the library's RESULT.
func preparedResult(p *query.Prepared, version byte) *message.PreparedResult {
	res := &message.PreparedResult{
		PreparedQueryId:   p.ID,
		VariablesMetadata: &message.VariablesMetadata{Columns: columnsMetadata(p.Bound)},
		ResultMetadata:    &message.RowsMetadata{ColumnCount: int32(len(p.Columns)), Columns: columnsMetadata(p.Columns)},
	}
	if version >= 4 {
		res.VariablesMetadata.PkIndices = p.PKIndexes
	}
	if version >= 5 {
		res.ResultMetadataId = resultMetadataID(p.Columns)
	}
	return res
}

// errorMessage converts a CQL error to the library's ERROR message. Codes
// the library lacks (CDC write failure, CAS write unknown) return nil and are
// encoded by appendErrorBody.
func errorMessage(e *cqlerr.Error) message.Message {
	msg := e.Message
	cl := primitive.ConsistencyLevel(e.Consistency)
	switch e.Code {
	case cqlerr.ServerError:
		return &message.ServerError{ErrorMessage: msg}
	case cqlerr.ProtocolError:
		return &message.ProtocolError{ErrorMessage: msg}
	case cqlerr.BadCredentials:
		return &message.AuthenticationError{ErrorMessage: msg}
	case cqlerr.Unavailable:
		return &message.Unavailable{ErrorMessage: msg, Consistency: cl, Required: e.Required, Alive: e.Alive}
	case cqlerr.Overloaded:
		return &message.Overloaded{ErrorMessage: msg}
	case cqlerr.IsBootstrapping:
		return &message.IsBootstrapping{ErrorMessage: msg}
	case cqlerr.TruncateError:
		return &message.TruncateError{ErrorMessage: msg}
	case cqlerr.WriteTimeout:
		return &message.WriteTimeout{ErrorMessage: msg, Consistency: cl, Received: e.Received,
			BlockFor: e.BlockFor, WriteType: writeType(e.WriteType)}
	case cqlerr.ReadTimeout:
		return &message.ReadTimeout{ErrorMessage: msg, Consistency: cl, Received: e.Received,
			BlockFor: e.BlockFor, DataPresent: e.DataPresent}
	case cqlerr.ReadFailure:
		// cqlerr carries no per-replica reasons: the v5 reason map is empty
		// and the pre-v5 failure count is BlockFor-Received (at least 1).
		return &message.ReadFailure{ErrorMessage: msg, Consistency: cl, Received: e.Received,
			BlockFor: e.BlockFor, NumFailures: numFailures(e), DataPresent: e.DataPresent}
	case cqlerr.WriteFailure:
		return &message.WriteFailure{ErrorMessage: msg, Consistency: cl, Received: e.Received,
			BlockFor: e.BlockFor, NumFailures: numFailures(e), WriteType: writeType(e.WriteType)}
	case cqlerr.FunctionFailure:
		// cqlerr has no function fields: Keyspace and Table carry the
		// function's keyspace and name.
		return &message.FunctionFailure{ErrorMessage: msg, Keyspace: e.Keyspace, Function: e.Table, Arguments: []string{}}
	case cqlerr.SyntaxError:
		return &message.SyntaxError{ErrorMessage: msg}
	case cqlerr.Unauthorized:
		return &message.Unauthorized{ErrorMessage: msg}
	case cqlerr.Invalid:
		return &message.Invalid{ErrorMessage: msg}
	case cqlerr.ConfigError:
		return &message.ConfigError{ErrorMessage: msg}
	case cqlerr.AlreadyExists:
		return &message.AlreadyExists{ErrorMessage: msg, Keyspace: e.Keyspace, Table: e.Table}
	case cqlerr.Unprepared:
		return &message.Unprepared{ErrorMessage: msg, Id: e.ID}
	}
	return nil
}

func numFailures(e *cqlerr.Error) int32 {
	if n := e.BlockFor - e.Received; n > 0 {
		return n
	}
	return 1
}

func writeType(s string) primitive.WriteType {
	if s == "" {
		return primitive.WriteTypeSimple
	}
	return primitive.WriteType(s)
}

// appendErrorBody appends the ERROR body for e.
func appendErrorBody(b []byte, e *cqlerr.Error, version byte) []byte {
	if m := errorMessage(e); m != nil {
		out, err := encodeMessage(b, m, version)
		if err == nil {
			return out
		}
		// Fall through to a plain ServerError with the original text.
		return appendString(appendInt(b, int32(cqlerr.ServerError)), e.Message)
	}
	start := len(b)
	b = appendInt(b, int32(e.Code))
	b = appendString(b, e.Message)
	switch e.Code {
	case cqlerr.CASWriteUnknown:
		b = appendShort(b, e.Consistency)
		b = appendInt(b, e.Received)
		b = appendInt(b, e.BlockFor)
	case cqlerr.CDCWriteFailure:
	default:
		// Unknown code: send it as a ServerError rather than a code the
		// driver cannot parse.
		b = appendInt(b[:start], int32(cqlerr.ServerError))
		b = appendString(b, e.Message)
	}
	return b
}
