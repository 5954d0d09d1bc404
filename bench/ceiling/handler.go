package ceiling

import (
	"context"
	"crypto/md5"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/transport"
	"github.com/cqld/cqld/internal/types"
)

// handler implements transport.Handler over in-memory tables.
type handler struct {
	localIP net.IP

	mu        sync.RWMutex // schema
	keyspaces map[string]bool
	tables    map[string]*table // "ks.name"

	pmu      sync.RWMutex
	prepared map[string]*preparedStmt // by id
}

type preparedStmt struct {
	st   *stmt
	meta *query.Prepared
}

var _ transport.Handler = (*handler)(nil)

func newHandler(localIP net.IP) *handler {
	return &handler{localIP: localIP, keyspaces: map[string]bool{}, tables: map[string]*table{},
		prepared: map[string]*preparedStmt{}}
}

func keyspaceOf(sess *query.Session, opts *query.Options) string {
	if opts != nil && opts.Keyspace != "" {
		return opts.Keyspace
	}
	return sess.Keyspace
}

func (h *handler) Query(ctx context.Context, sess *query.Session, cql string, opts *query.Options) (*query.Result, error) {
	st, err := h.parse(cql, keyspaceOf(sess, opts))
	if err != nil {
		return nil, err
	}
	return h.run(st, opts.Values)
}

func (h *handler) Prepare(ctx context.Context, sess *query.Session, cql string, keyspace string) (*query.Prepared, error) {
	if keyspace == "" {
		keyspace = sess.Keyspace
	}
	st, err := h.parse(cql, keyspace)
	if err != nil {
		return nil, err
	}
	sum := md5.Sum([]byte(keyspace + cql))
	p := &query.Prepared{ID: sum[:]}
	switch st.kind {
	case stmtSystem:
		// Result columns do not depend on the bound values; the markers of a
		// system query are keyspace_name / table_name filters.
		res, err := h.system(st, nil)
		if err != nil {
			return nil, err
		}
		p.Columns = res.Columns
		for i := 0; i < countMarkers(cql); i++ {
			p.Bound = append(p.Bound, query.ColumnSpec{Keyspace: "system_schema", Table: st.name,
				Name: []string{"keyspace_name", "table_name"}[min(i, 1)], Type: types.TextType})
		}
	case stmtInsert, stmtUpdate, stmtSelect:
		t := st.tab
		for _, b := range st.bound {
			p.Bound = append(p.Bound, t.specs[b.col])
		}
		for _, pkc := range t.pk {
			for i, b := range st.bound {
				if b.col == pkc && b.slice == "" {
					p.PKIndexes = append(p.PKIndexes, uint16(i))
					break
				}
			}
		}
		if st.kind == stmtSelect {
			st.cols = proj(t, st.proj)
			p.Columns = st.cols
		}
	}
	h.pmu.Lock()
	h.prepared[string(p.ID)] = &preparedStmt{st: st, meta: p}
	h.pmu.Unlock()
	return p, nil
}

func countMarkers(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '?' {
			n++
		}
	}
	return n
}

func (h *handler) Execute(ctx context.Context, sess *query.Session, id []byte, resultMetadataID []byte, opts *query.Options) (*query.Result, error) {
	h.pmu.RLock()
	p := h.prepared[string(id)]
	h.pmu.RUnlock()
	if p == nil {
		return nil, &cqlerr.Error{Code: cqlerr.Unprepared, Message: "Prepared query with ID not found", ID: id}
	}
	return h.run(p.st, opts.Values)
}

func (h *handler) Batch(ctx context.Context, sess *query.Session, b *query.BatchRequest) (*query.Result, error) {
	for _, bs := range b.Statements {
		var st *stmt
		if bs.ID != nil {
			h.pmu.RLock()
			p := h.prepared[string(bs.ID)]
			h.pmu.RUnlock()
			if p == nil {
				return nil, &cqlerr.Error{Code: cqlerr.Unprepared, Message: "Prepared query with ID not found", ID: bs.ID}
			}
			st = p.st
		} else {
			var err error
			if st, err = h.parse(bs.Query, keyspaceOf(sess, &b.Options)); err != nil {
				return nil, err
			}
		}
		if _, err := h.run(st, bs.Values); err != nil {
			return nil, err
		}
	}
	return &query.Result{Kind: query.VoidResult}, nil
}

var voidResult = &query.Result{Kind: query.VoidResult}

// run executes a parsed statement with its bound values.
func (h *handler) run(st *stmt, values []query.Value) (*query.Result, error) {
	switch st.kind {
	case stmtSystem:
		return h.system(st, values)
	case stmtUse:
		return &query.Result{Kind: query.SetKeyspaceResult, Keyspace: st.ks}, nil
	case stmtCreateKeyspace:
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.keyspaces[st.ks] {
			if st.ifNotExists {
				return voidResult, nil
			}
			return nil, cqlerr.KeyspaceExists(st.ks)
		}
		h.keyspaces[st.ks] = true
		return &query.Result{Kind: query.SchemaChangeResult, SchemaChange: &query.SchemaChange{
			Change: "CREATED", Target: "KEYSPACE", Keyspace: st.ks}}, nil
	case stmtCreateTable:
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.keyspaces[st.ks] {
			return nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", st.ks)
		}
		if h.tables[st.ks+"."+st.name] != nil {
			if st.ifNotExists {
				return voidResult, nil
			}
			return nil, cqlerr.TableExists(st.ks, st.name)
		}
		h.tables[st.ks+"."+st.name] = newTable(st.ks, st.name, st.def)
		return &query.Result{Kind: query.SchemaChangeResult, SchemaChange: &query.SchemaChange{
			Change: "CREATED", Target: "TABLE", Keyspace: st.ks, Name: st.name}}, nil
	}
	if len(values) != len(st.bound) {
		return nil, cqlerr.Invalidf("There were %d markers(?) in CQL but %d bound variables", len(st.bound), len(values))
	}
	t := st.tab
	byCol := make([][]byte, len(t.cols))
	set := make([]bool, len(t.cols))
	for i, b := range st.bound {
		if b.slice == "" {
			byCol[b.col] = values[i].B
			set[b.col] = true
		}
	}
	pkVals := make([][]byte, len(t.pk))
	for i, c := range t.pk {
		if byCol[c] == nil {
			return nil, cqlerr.Invalidf("Invalid null value for partition key part %s", t.cols[c].name)
		}
		pkVals[i] = byCol[c]
	}
	pk := partitionKey(pkVals)
	ckTypes := make([]*types.Type, len(t.ck))
	for i, c := range t.ck {
		ckTypes[i] = t.cols[c].typ
	}
	if st.kind == stmtSelect {
		// Equality on a clustering prefix becomes an inclusive range; a
		// slice operator narrows one side.
		var eq [][]byte
		for _, c := range t.ck {
			if !set[c] {
				break
			}
			eq = append(eq, byCol[c])
		}
		var lo, hi []byte
		loIncl, hiIncl := true, true
		if len(eq) > 0 {
			lo = clusteringKey(ckTypes[:len(eq)], eq)
			hi = lo
		}
		for i, b := range st.bound {
			if b.slice == "" {
				continue
			}
			k := clusteringKey(ckTypes[len(eq):len(eq)+1], [][]byte{values[i].B})
			k = append(append([]byte{}, lo...), k...)
			switch b.slice {
			case ">", ">=":
				lo, loIncl = k, b.slice == ">="
			case "<", "<=":
				hi, hiIncl = k, b.slice == "<="
			}
		}
		cols := st.cols
		if cols == nil {
			cols = proj(t, st.proj)
		}
		return &query.Result{Kind: query.RowsResult, Columns: cols,
			Rows: t.read(pk, lo, loIncl, hi, hiIncl, st.proj, st.limit)}, nil
	}
	ckVals := make([][]byte, len(t.ck))
	for i, c := range t.ck {
		if byCol[c] == nil {
			return nil, cqlerr.Invalidf("Invalid null value for clustering key part %s", t.cols[c].name)
		}
		ckVals[i] = byCol[c]
	}
	var cols []int
	var vals [][]byte
	for i, b := range st.bound {
		if values[i].Unset {
			continue
		}
		cols = append(cols, b.col)
		vals = append(vals, values[i].B)
	}
	t.upsert(pk, clusteringKey(ckTypes, ckVals), cols, vals)
	return voidResult, nil
}

func proj(t *table, cols []int) []query.ColumnSpec {
	out := make([]query.ColumnSpec, len(cols))
	for i, c := range cols {
		out[i] = t.specs[c]
	}
	return out
}

// Server is a running ceiling server.
type Server struct {
	srv  *transport.Server
	addr net.Addr
	done chan error
}

// Start listens on addr (host:port; port 0 picks one) and serves until
// Close.
func Start(addr string, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ip := ln.Addr().(*net.TCPAddr).IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Server{srv: transport.NewServer(transport.Config{Logger: log}, newHandler(ip)),
		addr: ln.Addr(), done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() net.Addr { return s.addr }

// Done receives Serve's error when serving stops.
func (s *Server) Done() <-chan error { return s.done }

// Close stops the server, waiting up to 5 s for in-flight requests.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
