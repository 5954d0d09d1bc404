package transport

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// fakeHandler answers with canned results. It knows just enough of the
// system tables for drivers to connect; the real ones live elsewhere.
type fakeHandler struct {
	slow     chan struct{} // "SLOW" queries wait for it to close
	mu       sync.Mutex
	prepared map[string]*query.Prepared
	lastOpts query.Options
	// lastTrace is the tracing session of the last QUERY's, PREPARE's or
	// EXECUTE's context.
	lastTrace *tracing.Session
}

func newFakeHandler() *fakeHandler {
	return &fakeHandler{slow: make(chan struct{}), prepared: make(map[string]*query.Prepared)}
}

var (
	hostID        = []byte{0x5c, 0x2a, 0x3b, 0x4d, 0x11, 0x22, 0x43, 0x44, 0x85, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc}
	schemaVersion = []byte{0x1c, 0x2a, 0x3b, 0x4d, 0x11, 0x22, 0x13, 0x44, 0x85, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcd}
	setOfText     = types.SetOf(types.TextType, false)
)

func col(ks, table, name string, t *types.Type) query.ColumnSpec {
	return query.ColumnSpec{Keyspace: ks, Table: table, Name: name, Type: t}
}

func textSet(elems ...string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(elems)))
	for _, e := range elems {
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func int32Bytes(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

var localColumns = []query.ColumnSpec{
	col("system", "local", "key", types.TextType),
	col("system", "local", "bootstrapped", types.TextType),
	col("system", "local", "broadcast_address", types.InetType),
	col("system", "local", "cluster_name", types.TextType),
	col("system", "local", "cql_version", types.TextType),
	col("system", "local", "data_center", types.TextType),
	col("system", "local", "host_id", types.UUIDType),
	col("system", "local", "listen_address", types.InetType),
	col("system", "local", "native_protocol_version", types.TextType),
	col("system", "local", "partitioner", types.TextType),
	col("system", "local", "rack", types.TextType),
	col("system", "local", "release_version", types.TextType),
	col("system", "local", "rpc_address", types.InetType),
	col("system", "local", "schema_version", types.UUIDType),
	col("system", "local", "tokens", setOfText),
}

var peerColumns = []query.ColumnSpec{
	col("system", "peers", "peer", types.InetType),
	col("system", "peers", "data_center", types.TextType),
	col("system", "peers", "host_id", types.UUIDType),
	col("system", "peers", "rack", types.TextType),
	col("system", "peers", "release_version", types.TextType),
	col("system", "peers", "rpc_address", types.InetType),
	col("system", "peers", "schema_version", types.UUIDType),
	col("system", "peers", "tokens", setOfText),
}

var kvColumns = []query.ColumnSpec{
	col("ks", "t", "k", types.IntType),
	col("ks", "t", "v", types.TextType),
}

func localRow() [][]byte {
	lo := net.IPv4(127, 0, 0, 1).To4()
	return [][]byte{[]byte("local"), []byte("COMPLETED"), lo, []byte("cqld"), []byte("3.4.7"),
		[]byte("datacenter1"), hostID, lo, []byte("5"), []byte("org.apache.cassandra.dht.Murmur3Partitioner"),
		[]byte("rack1"), []byte("5.0.0"), lo, schemaVersion, textSet("0")}
}

func rows(cols []query.ColumnSpec, r ...[][]byte) *query.Result {
	return &query.Result{Kind: query.RowsResult, Columns: cols, Rows: r}
}

// errorsByName are the canned errors returned for "ERR <name>".
var errorsByName = map[string]*cqlerr.Error{
	"unavailable":     {Code: cqlerr.Unavailable, Message: "Cannot achieve consistency level QUORUM", Consistency: 4, Required: 2, Alive: 1},
	"alreadyexists":   cqlerr.TableExists("ks", "t"),
	"unprepared":      {Code: cqlerr.Unprepared, Message: "Prepared query with ID 0102 not found", ID: []byte{1, 2}},
	"writetimeout":    {Code: cqlerr.WriteTimeout, Message: "Operation timed out", Consistency: 1, Received: 0, BlockFor: 1, WriteType: "BATCH_LOG"},
	"readtimeout":     {Code: cqlerr.ReadTimeout, Message: "Operation timed out", Consistency: 6, Received: 1, BlockFor: 2, DataPresent: true},
	"syntax":          cqlerr.Syntaxf("line 1:0 no viable alternative at input 'SELEC'"),
	"invalid":         cqlerr.Invalidf("unconfigured table nope"),
	"readfailure":     {Code: cqlerr.ReadFailure, Message: "read failed", Consistency: 1, Received: 0, BlockFor: 1},
	"writefailure":    {Code: cqlerr.WriteFailure, Message: "write failed", Consistency: 1, Received: 0, BlockFor: 1, WriteType: "SIMPLE"},
	"caswriteunknown": {Code: cqlerr.CASWriteUnknown, Message: "CAS unknown", Consistency: 9, Received: 1, BlockFor: 2},
	"overloaded":      {Code: cqlerr.Overloaded, Message: "too busy"},
}

func (f *fakeHandler) Query(ctx context.Context, sess *query.Session, cql string, opts *query.Options) (*query.Result, error) {
	f.mu.Lock()
	f.lastOpts = *opts
	f.lastTrace = tracing.FromContext(ctx)
	f.mu.Unlock()
	lc := strings.ToLower(strings.TrimSpace(cql))
	switch {
	case strings.HasPrefix(lc, "select * from system.local"):
		return rows(localColumns, localRow()), nil
	case strings.HasPrefix(lc, "select schema_version from system.local"):
		return rows(localColumns[13:14], [][]byte{schemaVersion}), nil
	case strings.HasPrefix(lc, "select * from system.peers_v2"):
		return nil, cqlerr.Invalidf("unconfigured table peers_v2")
	case strings.HasPrefix(lc, "select * from system.peers"):
		return rows(peerColumns), nil
	case strings.Contains(lc, "system_schema.") || strings.Contains(lc, "system_virtual_schema."):
		return rows(nil), nil
	case strings.HasPrefix(lc, "use "):
		return &query.Result{Kind: query.SetKeyspaceResult, Keyspace: strings.Trim(cql[4:], " \""),
			Warnings: []string{"using " + cql[4:]}}, nil
	case strings.HasPrefix(lc, "create table"):
		return &query.Result{Kind: query.SchemaChangeResult, SchemaChange: &query.SchemaChange{
			Change: "CREATED", Target: "TABLE", Keyspace: "ks", Name: "t2"}}, nil
	case strings.HasPrefix(lc, "err "):
		if e, ok := errorsByName[lc[4:]]; ok {
			return nil, e
		}
		return nil, context.DeadlineExceeded // a non-CQL error
	case lc == "slow":
		select {
		case <-f.slow:
		case <-ctx.Done():
		}
		return rows(kvColumns, [][]byte{int32Bytes(1), []byte("slow")}), nil
	case lc == "panic":
		panic("boom")
	case lc == "echo":
		// One blob row per bound value.
		var out [][][]byte
		for _, v := range opts.Values {
			out = append(out, [][]byte{v.B})
		}
		return rows([]query.ColumnSpec{col("ks", "t", "b", types.BlobType)}, out...), nil
	case lc == "void" || strings.HasPrefix(lc, "insert"):
		return &query.Result{Kind: query.VoidResult}, nil
	case lc == "page":
		return &query.Result{Kind: query.RowsResult, Columns: kvColumns, PagingState: []byte("next"),
			Rows: [][][]byte{{int32Bytes(1), []byte("a")}}}, nil
	}
	return rows(kvColumns, [][]byte{int32Bytes(1), []byte("one")}, [][]byte{int32Bytes(2), nil}), nil
}

func (f *fakeHandler) Prepare(ctx context.Context, sess *query.Session, cql string, keyspace string) (*query.Prepared, error) {
	if strings.HasPrefix(strings.ToLower(cql), "err ") {
		_, err := f.Query(ctx, sess, cql, &query.Options{})
		return nil, err
	}
	f.mu.Lock()
	f.lastTrace = tracing.FromContext(ctx)
	f.mu.Unlock()
	sum := md5.Sum([]byte(keyspace + cql))
	nb := min(strings.Count(cql, "?"), len(kvColumns))
	p := &query.Prepared{ID: sum[:], Bound: kvColumns[:nb], Columns: kvColumns}
	if nb > 0 {
		p.PKIndexes = []uint16{0}
	}
	if strings.HasPrefix(strings.ToLower(cql), "insert") {
		p.Columns = nil
	}
	f.mu.Lock()
	f.prepared[string(p.ID)] = p
	f.mu.Unlock()
	return p, nil
}

func (f *fakeHandler) Execute(ctx context.Context, sess *query.Session, id []byte, resultMetadataID []byte, opts *query.Options) (*query.Result, error) {
	f.mu.Lock()
	p := f.prepared[string(id)]
	f.lastOpts = *opts
	f.lastTrace = tracing.FromContext(ctx)
	f.mu.Unlock()
	if p == nil {
		return nil, &cqlerr.Error{Code: cqlerr.Unprepared, Message: "Prepared query not found", ID: id}
	}
	if p.Columns == nil {
		return &query.Result{Kind: query.VoidResult}, nil
	}
	k := int32Bytes(1)
	if len(opts.Values) > 0 && opts.Values[0].B != nil {
		k = opts.Values[0].B
	}
	return &query.Result{Kind: query.RowsResult, Columns: p.Columns, Rows: [][][]byte{{k, []byte("one")}}}, nil
}

func (f *fakeHandler) Batch(ctx context.Context, sess *query.Session, b *query.BatchRequest) (*query.Result, error) {
	return &query.Result{Kind: query.VoidResult}, nil
}

var _ Handler = (*fakeHandler)(nil)

// startServer serves h on a random local port until the test ends.
func startServer(t testing.TB, h Handler, cfg Config) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(cfg, h)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	for s.Addr() == nil {
		time.Sleep(time.Millisecond)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	return s
}
