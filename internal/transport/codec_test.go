package transport

import (
	"bytes"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

var libCodec = frame.NewRawCodec()

func newLibFrame(v primitive.ProtocolVersion, stream int16, msg message.Message) *frame.Frame {
	return frame.NewFrame(v, stream, msg)
}

func libBody(t *testing.T, msg message.Message, v primitive.ProtocolVersion) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := messageCodecs[msg.GetOpCode()].Encode(msg, &buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var testTypes = []*types.Type{
	types.IntType, types.TextType, types.BlobType, types.DurationType,
	types.ListOf(types.IntType, false), types.SetOf(types.TextType, true),
	types.MapOf(types.TextType, types.ListOf(types.BigintType, true), false),
	types.TupleOf(types.IntType, types.UUIDType),
	{Kind: types.UDT, Keyspace: "ks", Name: "addr", FieldNames: []string{"street", "zip"},
		Params: []*types.Type{types.TextType, types.IntType}, Frozen: true},
	{Kind: types.Vector, Params: []*types.Type{types.FloatType}, Dimension: 3},
	{Kind: types.Custom, Class: "org.example.MyType"},
	types.EmptyType,
}

func TestAppendTypeMatchesLibrary(t *testing.T) {
	for _, typ := range testTypes {
		var want bytes.Buffer
		if err := datatype.WriteDataType(toDataType(typ), &want, primitive.ProtocolVersion5); err != nil {
			t.Fatal(err)
		}
		if got := appendType(nil, typ); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%v: got %x want %x", typ, got, want.Bytes())
		}
	}
	vec := &types.Type{Kind: types.Vector, Params: []*types.Type{types.FloatType}, Dimension: 3}
	if got, want := javaTypeName(vec), "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)"; got != want {
		t.Errorf("vector class %q", got)
	}
}

func TestRowsResultDecodesWithLibrary(t *testing.T) {
	cols := []query.ColumnSpec{col("ks", "t", "a", types.IntType), col("ks", "u", "b", testTypes[6])}
	res := &query.Result{Kind: query.RowsResult, Columns: cols, PagingState: []byte{1, 2},
		Rows: [][][]byte{{int32Bytes(1), nil}, {int32Bytes(2), {}}}}
	for _, v := range versions {
		body := appendRowsResult(nil, res, false, []byte{9})
		m, err := messageCodecs[primitive.OpCodeResult].Decode(bytes.NewReader(body), v)
		if err != nil {
			t.Fatal(err)
		}
		r := m.(*message.RowsResult)
		if len(r.Metadata.Columns) != 2 || r.Metadata.Columns[1].Table != "u" || string(r.Metadata.PagingState) != "\x01\x02" ||
			len(r.Data) != 2 || r.Data[0][1] != nil || r.Data[1][1] == nil {
			t.Errorf("decoded %+v %v", r.Metadata, r.Data)
		}
		if v >= 5 && !bytes.Equal(r.Metadata.NewResultMetadataId, []byte{9}) {
			t.Errorf("new metadata id %x", r.Metadata.NewResultMetadataId)
		}
	}
}

func TestRequestDecodersMatchLibrary(t *testing.T) {
	serial := primitive.ConsistencyLevelSerial
	ts := int64(-5)
	for _, v := range versions {
		opts := &message.QueryOptions{
			Consistency:      primitive.ConsistencyLevelLocalQuorum,
			PositionalValues: []*primitive.Value{primitive.NewValue([]byte("x")), primitive.NewNullValue(), primitive.NewValue([]byte{})},
			SkipMetadata:     true, PageSize: 10, PagingState: []byte("p"), SerialConsistency: &serial, DefaultTimestamp: &ts,
		}
		var q queryRequest
		if err := decodeQuery(libBody(t, &message.Query{Query: "SELECT 1", Options: opts}, v), byte(v), &q); err != nil {
			t.Fatal(err)
		}
		o := q.opts
		if q.cql != "SELECT 1" || len(o.Values) != 3 || string(o.Values[0].B) != "x" || o.Values[1].B != nil ||
			o.Values[2].B == nil || o.PageSize != 10 || o.Timestamp != -5 || o.SerialConsistency != uint16(serial) {
			t.Errorf("query %+v", q)
		}
		var e executeRequest
		ex := &message.Execute{QueryId: []byte{1}, ResultMetadataId: []byte{2}, Options: opts}
		if err := decodeExecute(libBody(t, ex, v), byte(v), &e); err != nil {
			t.Fatal(err)
		}
		if !e.skipMetadata || !bytes.Equal(e.id, []byte{1}) || (v >= 5) != (e.resultMetadataID != nil) {
			t.Errorf("execute %+v", e)
		}
		var p prepareRequest
		if err := decodePrepare(libBody(t, &message.Prepare{Query: "Q", Keyspace: "k"}, v), byte(v), &p); err != nil {
			t.Fatal(err)
		}
		if p.cql != "Q" || (v >= 5 && p.keyspace != "k") {
			t.Errorf("prepare %+v", p)
		}
		var b query.BatchRequest
		bm := &message.Batch{Type: primitive.BatchTypeUnlogged, Consistency: primitive.ConsistencyLevelAll,
			DefaultTimestamp: &ts, Children: []*message.BatchChild{{Query: "A"}, {Id: []byte{7}, Values: opts.PositionalValues}}}
		if err := decodeBatch(libBody(t, bm, v), byte(v), &b); err != nil {
			t.Fatal(err)
		}
		if b.Type != 1 || len(b.Statements) != 2 || b.Statements[0].Query != "A" || len(b.Statements[1].Values) != 3 ||
			!b.Options.HasTimestamp || b.Options.Consistency != uint16(primitive.ConsistencyLevelAll) {
			t.Errorf("batch %+v", b)
		}
	}
}

func TestDecodersRejectHostileLengths(t *testing.T) {
	bodies := [][]byte{
		{0x7f, 0xff, 0xff, 0xff},                                    // long string of 2 GiB
		{0, 0, 0, 1, 'Q', 0, 1, 0x01, 0, 1, 0x7f, 0xff, 0xff, 0xff}, // value of 2 GiB
		{0, 0, 0, 1, 'Q', 0, 99, 0},                                 // bad consistency
		{0, 0, 0, 1, 'Q', 0, 1, 0x01, 0, 1, 0xff, 0xff, 0xff, 0xf0}, // negative value length
	}
	for _, b := range bodies {
		var q queryRequest
		if err := decodeQuery(b, 4, &q); err == nil {
			t.Errorf("%x: no error", b)
		}
	}
}

// TestDecodersRefuseInvalidUTF8 checks that a [long string] or [string]
// that is not UTF-8 fails the message with CBUtil.readString's protocol
// error, not a later Invalid (dtest invalid_string_literals_test).
func TestDecodersRefuseInvalidUTF8(t *testing.T) {
	// QUERY "\xc2\x01", consistency ONE, no flags.
	var q queryRequest
	err := decodeQuery([]byte{0, 0, 0, 2, 0xc2, 0x01, 0, 1, 0}, 4, &q)
	e := decodeError("QUERY", err)
	if e.Code != cqlerr.ProtocolError || e.Message != "Cannot decode string as UTF8: 'c201'" {
		t.Fatalf("got %v %q", e.Code, e.Message)
	}
	// PREPARE "SELECT 1" with a keyspace that is not UTF-8 (v5 flags).
	var p prepareRequest
	body := []byte{0, 0, 0, 8, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0, 0, 0, 1, 0, 1, 0xff}
	if err := decodePrepare(body, 5, &p); decodeError("PREPARE", err).Message != "Cannot decode string as UTF8: 'ff'" {
		t.Fatalf("PREPARE: %v", err)
	}
	// Truncation is still reported as a malformed message.
	if e := decodeError("QUERY", decodeQuery([]byte{0, 0, 0, 9, 'x'}, 4, &q)); e.Message != "Invalid QUERY message: truncated message body" {
		t.Fatalf("truncated: %q", e.Message)
	}
}
