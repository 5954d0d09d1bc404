package transport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

var versions = []primitive.ProtocolVersion{3, 4, 5}

func checkRows(t *testing.T, f interface{ String() string }, msg message.Message, wantRows int) *message.RowsResult {
	t.Helper()
	r, ok := msg.(*message.RowsResult)
	if !ok {
		t.Fatalf("expected rows, got %v", msg)
	}
	if len(r.Data) != wantRows {
		t.Fatalf("got %d rows, want %d", len(r.Data), wantRows)
	}
	return r
}

func TestHandshakeAndQuery(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	for _, v := range versions {
		t.Run(v.String(), func(t *testing.T) {
			c := dialRaw(t, s, v)
			c.send(7, &message.Options{})
			f := c.recv()
			sup, ok := f.Body.Message.(*message.Supported)
			if !ok || f.Header.StreamId != 7 || f.Header.Version != v {
				t.Fatalf("bad SUPPORTED: %v", f)
			}
			if got := sup.Options["CQL_VERSION"]; len(got) != 1 || got[0] != "3.4.7" {
				t.Errorf("CQL_VERSION = %v", got)
			}
			if got := strings.Join(sup.Options["PROTOCOL_VERSIONS"], ","); got != "3/v3,4/v4,5/v5" {
				t.Errorf("PROTOCOL_VERSIONS = %v", got)
			}
			if got := strings.Join(sup.Options["COMPRESSION"], ","); got != "lz4,snappy" {
				t.Errorf("COMPRESSION = %v", got)
			}
			c.startup("")
			f = c.query(3, "SELECT * FROM ks.t", nil)
			r := checkRows(t, f, f.Body.Message, 2)
			md := r.Metadata
			if md.ColumnCount != 2 || len(md.Columns) != 2 || md.Columns[0].Name != "k" || md.Columns[1].Keyspace != "ks" {
				t.Errorf("metadata = %+v", md)
			}
			if !bytes.Equal(r.Data[0][1], []byte("one")) || r.Data[1][1] != nil {
				t.Errorf("data = %v", r.Data)
			}
			// Paging state.
			f = c.query(4, "PAGE", nil)
			r = checkRows(t, f, f.Body.Message, 1)
			if string(r.Metadata.PagingState) != "next" {
				t.Errorf("paging state = %q", r.Metadata.PagingState)
			}
			// USE applies the keyspace and warnings come back on v4+.
			f = c.query(5, "USE other", nil)
			if ks, ok := f.Body.Message.(*message.SetKeyspaceResult); !ok || ks.Keyspace != "other" {
				t.Fatalf("USE: %v", f.Body.Message)
			}
			if v >= 4 && (len(f.Body.Warnings) != 1 || f.Body.Warnings[0] != "using other") {
				t.Errorf("warnings = %v", f.Body.Warnings)
			}
			if v < 4 && f.Header.Flags.Contains(primitive.HeaderFlagWarning) {
				t.Errorf("warning flag on v3")
			}
		})
	}
}

func TestQueryOptionsDecoded(t *testing.T) {
	h := newFakeHandler()
	s := startServer(t, h, Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("")
		serial := primitive.ConsistencyLevelLocalSerial
		ts := int64(12345)
		opts := &message.QueryOptions{
			Consistency:       primitive.ConsistencyLevelQuorum,
			NamedValues:       map[string]*primitive.Value{"a": primitive.NewValue([]byte{1})},
			PageSize:          100,
			PagingState:       []byte("ps"),
			SerialConsistency: &serial,
			DefaultTimestamp:  &ts,
		}
		if v >= 5 {
			now := int32(77)
			opts.Keyspace, opts.NowInSeconds = "ks5", &now
		}
		c.query(1, "VOID", opts)
		h.mu.Lock()
		o := h.lastOpts
		h.mu.Unlock()
		if o.Consistency != uint16(primitive.ConsistencyLevelQuorum) || o.PageSize != 100 || string(o.PagingState) != "ps" ||
			o.SerialConsistency != uint16(serial) || !o.HasTimestamp || o.Timestamp != 12345 || o.ProtocolVersion != int(v) ||
			len(o.Names) != 1 || o.Names[0] != "a" || !bytes.Equal(o.Values[0].B, []byte{1}) {
			t.Errorf("v%d: options = %+v", v, o)
		}
		if v >= 5 && (o.Keyspace != "ks5" || o.NowInSeconds != 77) {
			t.Errorf("v5 options = %+v", o)
		}
		if v >= 4 {
			c.query(2, "VOID", &message.QueryOptions{PositionalValues: []*primitive.Value{primitive.NewUnsetValue(), primitive.NewNullValue()}})
			h.mu.Lock()
			o = h.lastOpts
			h.mu.Unlock()
			if len(o.Values) != 2 || !o.Values[0].Unset || o.Values[1].B != nil || o.Values[1].Unset {
				t.Errorf("unset/null = %+v", o.Values)
			}
		}
	}
}

func TestCompression(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	cases := []struct {
		v    primitive.ProtocolVersion
		comp string
	}{{4, "lz4"}, {4, "snappy"}, {3, "lz4"}, {5, "lz4"}}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("v%d-%s", tc.v, tc.comp), func(t *testing.T) {
			c := dialRaw(t, s, tc.v)
			c.startup(strings.ToUpper(tc.comp[:1]) + tc.comp[1:]) // mixed case is normalized
			big := bytes.Repeat([]byte("abcdefgh"), 4096)
			f := c.query(9, "ECHO", &message.QueryOptions{PositionalValues: []*primitive.Value{primitive.NewValue(big)}})
			if tc.v < 5 && !f.Header.Flags.Contains(primitive.HeaderFlagCompressed) {
				t.Error("response not compressed")
			}
			r := checkRows(t, f, f.Body.Message, 1)
			if !bytes.Equal(r.Data[0][0], big) {
				t.Error("echo mismatch")
			}
		})
	}
	t.Run("v5-snappy-refused", func(t *testing.T) {
		c := dialRaw(t, s, 5)
		st := message.NewStartup()
		st.Options["CQL_VERSION"] = "3.0.0"
		st.Options["COMPRESSION"] = "snappy"
		c.send(1, st)
		e, ok := c.recv().Body.Message.(*message.ProtocolError)
		if !ok {
			t.Fatalf("expected protocol error, got %v", e)
		}
	})
}

// TestSegments sends and receives envelopes larger than one segment
// (128 KiB) on v5, with and without LZ4.
func TestSegments(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	for _, comp := range []string{"", "lz4"} {
		t.Run("comp="+comp, func(t *testing.T) {
			c := dialRaw(t, s, 5)
			c.startup(comp)
			big := make([]byte, 300<<10)
			for i := range big {
				big[i] = byte(i * 7 / 3)
			}
			f := c.query(2, "ECHO", &message.QueryOptions{PositionalValues: []*primitive.Value{
				primitive.NewValue(big), primitive.NewValue([]byte("small"))}})
			r := checkRows(t, f, f.Body.Message, 2)
			if !bytes.Equal(r.Data[0][0], big) || string(r.Data[1][0]) != "small" {
				t.Error("echo mismatch")
			}
			// Small requests still work afterwards, including several
			// envelopes in one self-contained segment.
			var env bytes.Buffer
			for i := int16(10); i < 13; i++ {
				fr := frameBytes(t, 5, i, &message.Query{Query: "VOID", Options: &message.QueryOptions{}})
				env.Write(fr)
			}
			c.write(env.Bytes())
			seen := map[int16]bool{}
			for i := 0; i < 3; i++ {
				seen[c.recv().Header.StreamId] = true
			}
			if len(seen) != 3 {
				t.Errorf("streams = %v", seen)
			}
		})
	}
}

func frameBytes(t testing.TB, v primitive.ProtocolVersion, stream int16, msg message.Message) []byte {
	var buf bytes.Buffer
	f := newLibFrame(v, stream, msg)
	if err := libCodec.EncodeFrame(f, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestUnsupportedVersion(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	cases := []struct {
		name    string
		frame   []byte
		respVer byte
		hdrLen  int
		stream  int
	}{
		{"v6", []byte{6, 0, 0x01, 0x02, opOptions, 0, 0, 0, 0}, 5, 9, 0x0102},
		{"v2", []byte{2, 0, 0x05, opOptions, 0, 0, 0, 0}, 2, 8, 5},
		{"v1", []byte{1, 0, 0x03, opOptions, 0, 0, 0, 0}, 1, 8, 3},
		{"v65", []byte{65, 0, 0x00, 0x09, opOptions, 0, 0, 0, 0}, 5, 9, 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, s, 4)
			if _, err := c.nc.Write(tc.frame); err != nil {
				t.Fatal(err)
			}
			resp, err := io.ReadAll(c.br) // the server closes after answering
			if err != nil {
				t.Fatal(err)
			}
			if len(resp) < tc.hdrLen+6 {
				t.Fatalf("short response %x", resp)
			}
			if resp[0] != 0x80|tc.respVer {
				t.Errorf("version byte %x", resp[0])
			}
			var stream int
			if tc.hdrLen == 8 {
				stream = int(resp[2])
			} else {
				stream = int(binary.BigEndian.Uint16(resp[2:4]))
			}
			if stream != tc.stream || resp[tc.hdrLen-5] != opError {
				t.Errorf("stream %d opcode %d", stream, resp[tc.hdrLen-5])
			}
			body := resp[tc.hdrLen:]
			if code := binary.BigEndian.Uint32(body); code != uint32(cqlerr.ProtocolError) {
				t.Errorf("code %x", code)
			}
			want := unsupportedVersionMessage(tc.frame[0])
			if msg := string(body[6:]); msg != want || int(binary.BigEndian.Uint16(body[4:])) != len(want) {
				t.Errorf("message %q", msg)
			}
		})
	}
}

func TestOutOfOrderStreams(t *testing.T) {
	h := newFakeHandler()
	s := startServer(t, h, Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("")
		h.slow = make(chan struct{})
		c.send(1, &message.Query{Query: "SLOW", Options: &message.QueryOptions{}})
		for i := int16(2); i < 50; i++ {
			c.send(i, &message.Query{Query: "SELECT", Options: &message.QueryOptions{}})
		}
		for i := 2; i < 50; i++ {
			if f := c.recv(); f.Header.StreamId == 1 {
				t.Fatal("slow response came first")
			}
		}
		close(h.slow)
		if f := c.recv(); f.Header.StreamId != 1 {
			t.Fatalf("got stream %d", f.Header.StreamId)
		}
	}
}

func TestErrorEncoding(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("")
		check := func(name string, want message.Message) {
			t.Helper()
			f := c.query(1, "ERR "+name, nil)
			got := f.Body.Message
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Errorf("v%d %s:\n got %#v\nwant %#v", v, name, got, want)
			}
		}
		check("unavailable", &message.Unavailable{ErrorMessage: "Cannot achieve consistency level QUORUM", Consistency: 4, Required: 2, Alive: 1})
		check("alreadyexists", &message.AlreadyExists{ErrorMessage: `Cannot add already existing table "t" to keyspace "ks"`, Keyspace: "ks", Table: "t"})
		check("unprepared", &message.Unprepared{ErrorMessage: "Prepared query with ID 0102 not found", Id: []byte{1, 2}})
		check("writetimeout", &message.WriteTimeout{ErrorMessage: "Operation timed out", Consistency: 1, BlockFor: 1, WriteType: "BATCH_LOG"})
		check("readtimeout", &message.ReadTimeout{ErrorMessage: "Operation timed out", Consistency: 6, Received: 1, BlockFor: 2, DataPresent: true})
		check("syntax", &message.SyntaxError{ErrorMessage: "line 1:0 no viable alternative at input 'SELEC'"})
		check("invalid", &message.Invalid{ErrorMessage: "unconfigured table nope"})
		check("overloaded", &message.Overloaded{ErrorMessage: "too busy"})
		check("other", &message.ServerError{ErrorMessage: "context deadline exceeded"})
		// Failures decode with a reason map on v5 and a count before.
		f := c.query(1, "ERR readfailure", nil)
		if rf, ok := f.Body.Message.(*message.ReadFailure); !ok || rf.BlockFor != 1 {
			t.Errorf("read failure: %#v", f.Body.Message)
		}
		f = c.query(1, "ERR writefailure", nil)
		if wf, ok := f.Body.Message.(*message.WriteFailure); !ok || wf.WriteType != "SIMPLE" {
			t.Errorf("write failure: %#v", f.Body.Message)
		}
		// CAS write unknown is not known to the library: check raw bytes
		// by re-encoding what we expect.
		want := appendErrorBody(nil, errorsByName["caswriteunknown"], byte(v))
		wantBody := append(binary.BigEndian.AppendUint32(nil, 0x1700), want[4:]...)
		if !bytes.Equal(want, wantBody) || binary.BigEndian.Uint16(want[len(want)-10:]) != 9 {
			t.Errorf("cas write unknown body %x", want)
		}
	}
}

// TestTracingFlag: a request with the tracing flag runs with a tracing
// session and every response to it (a result, a prepared statement, an
// error, one with warnings) starts with the session id; requests without
// the flag, or whose body does not decode, get neither.
func TestTracingFlag(t *testing.T) {
	h := newFakeHandler()
	s := startServer(t, h, Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("lz4")
		lastTrace := func() *tracing.Session {
			h.mu.Lock()
			defer h.mu.Unlock()
			ts := h.lastTrace
			h.lastTrace = nil
			return ts
		}
		traced := func(stream int16, msg message.Message) *frame.Frame {
			t.Helper()
			c.sendFlags(stream, msg, flagTracing)
			resp := c.recv()
			ts := lastTrace()
			if ts == nil {
				t.Fatalf("v%d %v: the handler saw no tracing session; response %v", v, msg, resp.Body.Message)
			}
			if resp.Header.StreamId != stream || !resp.Header.Flags.Contains(primitive.HeaderFlagTracing) ||
				resp.Body.TracingId == nil || *resp.Body.TracingId != primitive.UUID(ts.ID) {
				t.Fatalf("v%d %v: response on stream %d, tracing id %v, want %s", v, msg, resp.Header.StreamId, resp.Body.TracingId, ts.ID)
			}
			return resp
		}
		q := func(cql string) *message.Query {
			return &message.Query{Query: cql, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}
		}
		f := traced(2, q("SELECT"))
		checkRows(t, f, f.Body.Message, 2)
		if _, ok := traced(3, q("ERR invalid")).Body.Message.(*message.Invalid); !ok {
			t.Errorf("v%d: traced error lost its message", v)
		}
		if f := traced(4, q("USE ks")); v >= 4 && (len(f.Body.Warnings) != 1 || f.Body.Warnings[0] != "using ks") {
			t.Errorf("v%d: traced response warnings %q", v, f.Body.Warnings)
		}
		prep, ok := traced(5, &message.Prepare{Query: "SELECT * FROM kv WHERE k = ?"}).Body.Message.(*message.PreparedResult)
		if !ok {
			t.Fatalf("v%d: traced PREPARE answered %T", v, prep)
		}
		ex := &message.Execute{QueryId: prep.PreparedQueryId, ResultMetadataId: prep.ResultMetadataId,
			Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue(int32Bytes(1))}}}
		f = traced(6, ex)
		checkRows(t, f, f.Body.Message, 1)

		f = c.query(7, "SELECT", nil)
		if lastTrace() != nil || f.Header.Flags.Contains(primitive.HeaderFlagTracing) || f.Body.TracingId != nil {
			t.Errorf("v%d: untraced request traced", v)
		}
	}

	// A body that does not decode: no session, no id.
	c := dialRaw(t, s, 4)
	c.startup("")
	c.write([]byte{4, flagTracing, 0, 8, opQuery, 0, 0, 0, 4, 0, 0, 0, 100})
	f := c.recv()
	if _, ok := f.Body.Message.(*message.ProtocolError); !ok || f.Body.TracingId != nil || f.Header.Flags.Contains(primitive.HeaderFlagTracing) {
		t.Errorf("malformed traced QUERY: %v, tracing id %v", f.Body.Message, f.Body.TracingId)
	}
}

// TestTraceProbability: with settraceprobability 1 every request is
// traced, but only a request that asked for it gets the session id.
func TestTraceProbability(t *testing.T) {
	h := newFakeHandler()
	s := startServer(t, h, Config{})
	c := dialRaw(t, s, 4)
	c.startup("")
	s.SetTraceProbability(1)
	f := c.query(2, "SELECT", nil)
	h.mu.Lock()
	ts := h.lastTrace
	h.mu.Unlock()
	if ts == nil || f.Header.Flags.Contains(primitive.HeaderFlagTracing) || f.Body.TracingId != nil {
		t.Errorf("probability 1: traced %v, response tracing id %v", ts != nil, f.Body.TracingId)
	}
	s.SetTraceProbability(0)
	c.query(3, "SELECT", nil)
	h.mu.Lock()
	ts = h.lastTrace
	h.mu.Unlock()
	if ts != nil || s.TraceProbability() != 0 {
		t.Error("probability 0: request traced")
	}
}

func TestPanicRecovered(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	c := dialRaw(t, s, 4)
	c.startup("")
	f := c.query(3, "PANIC", nil)
	if e, ok := f.Body.Message.(*message.ServerError); !ok || !strings.Contains(e.ErrorMessage, "boom") {
		t.Fatalf("got %v", f.Body.Message)
	}
	f = c.query(4, "SELECT", nil) // the connection is still up
	checkRows(t, f, f.Body.Message, 2)
}

func TestPrepareExecuteBatch(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("")
		c.send(1, &message.Prepare{Query: "SELECT * FROM ks.t WHERE k = ?"})
		p, ok := c.recv().Body.Message.(*message.PreparedResult)
		if !ok {
			t.Fatal("expected PREPARED")
		}
		if len(p.VariablesMetadata.Columns) != 1 || len(p.ResultMetadata.Columns) != 2 {
			t.Fatalf("prepared = %+v", p)
		}
		if v >= 4 && (len(p.VariablesMetadata.PkIndices) != 1 || p.VariablesMetadata.PkIndices[0] != 0) {
			t.Errorf("pk indices = %v", p.VariablesMetadata.PkIndices)
		}
		if v >= 5 && len(p.ResultMetadataId) != 16 {
			t.Errorf("result metadata id = %x", p.ResultMetadataId)
		}
		metaID := p.ResultMetadataId
		if v >= 5 && metaID == nil {
			metaID = []byte{0}
		}
		exec := func(skip bool, id []byte) *message.RowsResult {
			c.send(2, &message.Execute{QueryId: p.PreparedQueryId, ResultMetadataId: id, Options: &message.QueryOptions{
				SkipMetadata: skip, PositionalValues: []*primitive.Value{primitive.NewValue(int32Bytes(5))}}})
			f := c.recv()
			return checkRows(t, f, f.Body.Message, 1)
		}
		r := exec(true, metaID)
		if r.Metadata.Columns != nil || r.Metadata.ColumnCount != 2 || !bytes.Equal(r.Data[0][0], int32Bytes(5)) {
			t.Errorf("skip metadata: %+v", r.Metadata)
		}
		r = exec(false, metaID)
		if len(r.Metadata.Columns) != 2 || r.Metadata.NewResultMetadataId != nil {
			t.Errorf("full metadata: %+v", r.Metadata)
		}
		if v >= 5 {
			r = exec(true, []byte{1, 2, 3})
			if len(r.Metadata.Columns) != 2 || !bytes.Equal(r.Metadata.NewResultMetadataId, p.ResultMetadataId) {
				t.Errorf("metadata changed: %+v", r.Metadata)
			}
		}
		// Unknown id → Unprepared with the id.
		c.send(3, &message.Execute{QueryId: []byte{9, 9}, ResultMetadataId: metaID, Options: &message.QueryOptions{}})
		if u, ok := c.recv().Body.Message.(*message.Unprepared); !ok || !bytes.Equal(u.Id, []byte{9, 9}) {
			t.Errorf("unprepared: %v", u)
		}
		c.send(4, &message.Batch{Type: primitive.BatchTypeLogged, Children: []*message.BatchChild{
			{Query: "INSERT", Values: []*primitive.Value{primitive.NewValue([]byte{1})}},
			{Id: p.PreparedQueryId},
		}})
		if _, ok := c.recv().Body.Message.(*message.VoidResult); !ok {
			t.Error("batch: expected void")
		}
	}
}

func TestSchemaChangeEvent(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{})
	for _, v := range versions {
		c := dialRaw(t, s, v)
		c.startup("lz4")
		other := dialRaw(t, s, v) // not registered: gets no event
		other.startup("")
		c.send(1, &message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}})
		if _, ok := c.recv().Body.Message.(*message.Ready); !ok {
			t.Fatal("expected READY to REGISTER")
		}
		f := other.query(2, "CREATE TABLE ks.t2 (k int PRIMARY KEY)", nil)
		if sc, ok := f.Body.Message.(*message.SchemaChangeResult); !ok || sc.Object != "t2" {
			t.Fatalf("got %v", f.Body.Message)
		}
		f = c.recv()
		ev, ok := f.Body.Message.(*message.SchemaChangeEvent)
		if !ok || f.Header.StreamId != -1 || ev.Target != primitive.SchemaChangeTargetTable || ev.Keyspace != "ks" {
			t.Fatalf("event: %v", f)
		}
	}
}

func TestBadInput(t *testing.T) {
	s := startServer(t, newFakeHandler(), Config{MaxFrameSize: 1 << 20})
	t.Run("truncated-body", func(t *testing.T) {
		c := dialRaw(t, s, 4)
		c.startup("")
		// QUERY claiming 100 bytes with 3, then half-close.
		_, _ = c.nc.Write([]byte{4, 0, 0, 7, opQuery, 0, 0, 0, 100, 1, 2, 3})
		c.nc.(interface{ CloseWrite() error }).CloseWrite()
		f := c.recv()
		if e, ok := f.Body.Message.(*message.ProtocolError); !ok || f.Header.StreamId != 7 {
			t.Fatalf("got %v", e)
		}
		if _, err := c.tryRecv(); err == nil {
			t.Error("connection should be closed")
		}
	})
	t.Run("malformed-body-keeps-connection", func(t *testing.T) {
		c := dialRaw(t, s, 4)
		c.startup("")
		// QUERY whose long string claims 2 GiB inside a 6-byte body.
		_, _ = c.nc.Write([]byte{4, 0, 0, 8, opQuery, 0, 0, 0, 6, 0x7f, 0xff, 0xff, 0xff, 0, 1})
		f := c.recv()
		if _, ok := f.Body.Message.(*message.ProtocolError); !ok || f.Header.StreamId != 8 {
			t.Fatalf("got %v", f)
		}
		f = c.query(9, "SELECT", nil)
		checkRows(t, f, f.Body.Message, 2)
	})
	t.Run("too-big", func(t *testing.T) {
		c := dialRaw(t, s, 4)
		c.startup("")
		hdr := []byte{4, 0, 0, 5, opQuery, 0, 0x20, 0, 0} // 2 MiB body
		_, _ = c.nc.Write(append(hdr, make([]byte, 2<<20)...))
		f := c.recv()
		if e, ok := f.Body.Message.(*message.ProtocolError); !ok || f.Header.StreamId != 5 || !strings.Contains(e.ErrorMessage, "too big") {
			t.Fatalf("got %v", f)
		}
		f = c.query(6, "SELECT", nil)
		checkRows(t, f, f.Body.Message, 2)
	})
	t.Run("query-before-startup", func(t *testing.T) {
		c := dialRaw(t, s, 4)
		f := c.query(3, "SELECT", nil)
		if _, ok := f.Body.Message.(*message.ProtocolError); !ok {
			t.Fatalf("got %v", f)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		c := dialRaw(t, s, 4)
		c.startup("")
		_, _ = c.nc.Write([]byte{0x84, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		f, err := c.tryRecv()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Body.Message.(*message.ProtocolError); !ok {
			t.Fatalf("got %v", f)
		}
		if _, err := c.tryRecv(); err == nil {
			t.Error("connection should be closed")
		}
	})
	t.Run("v5-corrupt-segment", func(t *testing.T) {
		c := dialRaw(t, s, 5)
		c.startup("")
		_, _ = c.nc.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
		f, err := c.tryRecv()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Body.Message.(*message.ProtocolError); !ok {
			t.Fatalf("got %v", f)
		}
	})
}
