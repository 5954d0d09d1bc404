package query

import (
	"context"
	"sort"
	"strconv"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Tracing sessions: the transport gives a traced request's context a
// tracing.Session; the entry point (Query, Prepare, Execute, Batch)
// begins it with what Cassandra's messages record (QueryMessage.traceQuery
// and the others) and, when the request ends, writes it to
// system_traces.sessions and system_traces.events before the response
// goes out, so that a client reading its trace right away finds it
// (gocql reads it once, without waiting).

// DefaultTraceTTL is trace_type_query_ttl's default: trace rows live one
// day.
const DefaultTraceTTL = 86400

// traceCommand is the command column: Tracing.TraceType.QUERY.
const traceCommand = "QUERY"

// beginTrace starts the tracing session of ctx, if the request is traced
// and no outer entry point started it, and returns the function that ends
// it (a no-op otherwise).
func (e *Executor) beginTrace(ctx context.Context, request string, params func() map[string]string) func() {
	s := tracing.FromContext(ctx)
	if s == nil || !s.Begin(request, params()) {
		return func() {}
	}
	return func() { e.writeTrace(ctx, s) }
}

// optionParams are the parameters QueryMessage and ExecuteMessage record
// from the request's options.
func optionParams(opts *Options) map[string]string {
	m := map[string]string{}
	if opts.PageSize > 0 {
		m["page_size"] = strconv.Itoa(int(opts.PageSize))
	}
	m["consistency_level"] = ConsistencyName(Consistency(opts.Consistency))
	serial := Consistency(opts.SerialConsistency)
	if serial == 0 {
		serial = Serial // QueryOptions' default
	}
	m["serial_consistency_level"] = ConsistencyName(serial)
	return m
}

// queryTraceParams are QueryMessage.traceQuery's parameters.
func queryTraceParams(query string, opts *Options) func() map[string]string {
	return func() map[string]string {
		m := optionParams(opts)
		m["query"] = query
		return m
	}
}

// executeTraceParams are ExecuteMessage.traceQuery's: the query string and
// each bound value as a CQL literal, keyed bound_var_<i>_<name> (only the
// options when the statement is unknown: c is nil).
func executeTraceParams(query string, c *compiled, opts *Options) func() map[string]string {
	return func() map[string]string {
		m := optionParams(opts)
		if c == nil {
			return m
		}
		m["query"] = query
		for i, spec := range c.bound {
			if i >= len(opts.Values) {
				break
			}
			v := opts.Values[i]
			lit := "null"
			switch {
			case v.Unset:
				lit = "unset"
			case v.B != nil:
				lit = types.FormatCQL(spec.Type, v.B)
			}
			if len(lit) > 1000 {
				lit = lit[:1000] + "...'"
			}
			m["bound_var_"+strconv.Itoa(i)+"_"+spec.Name] = lit
		}
		return m
	}
}

// writeTrace writes the session row and the events of s, with the
// trace TTL. A failure is logged, never returned: the traced request
// itself is done.
func (e *Executor) writeTrace(ctx context.Context, s *tracing.Session) {
	ctx = tracing.Without(ctx)
	cur := e.cfg.Schema.Current()
	ks := cur.Keyspaces[schema.SystemTracesKeyspace]
	if ks == nil {
		return
	}
	sessions, events := ks.Tables["sessions"], ks.Tables["events"]
	if sessions == nil || events == nil {
		return
	}
	ttl := e.cfg.TraceTTL
	if ttl <= 0 {
		ttl = DefaultTraceTTL
	}
	ts := e.timestamp()
	nowSec := e.now().Unix()
	expiry := nowSec + int64(ttl)
	cell := func(t *schema.Table, col string, v []byte) mutation.Cell {
		return mutation.Cell{Column: t.Column(col).ID, Value: v, Timestamp: ts, TTL: ttl, LocalDeletionTime: expiry}
	}
	marker := mutation.Liveness{Timestamp: ts, TTL: ttl, LocalDeletionTime: expiry}
	// The coordinator and the source are the node's broadcast address
	// and internode port, as Cassandra records them.
	local := e.cfg.Node.Local()
	key := s.ID[:]
	token := e.cfg.Partitioner.Token(key)

	request, params := s.Request()
	sc := []mutation.Cell{
		cell(sessions, "command", []byte(traceCommand)),
		cell(sessions, "coordinator", local.ListenAddress),
		cell(sessions, "coordinator_port", types.EncodeInt(int32(local.ListenPort))),
		cell(sessions, "duration", types.EncodeInt(s.Elapsed())),
		cell(sessions, "request", []byte(request)),
		cell(sessions, "started_at", types.EncodeBigint(s.Started.UnixMilli())),
	}
	if s.Client != nil {
		sc = append(sc, cell(sessions, "client", s.Client))
	}
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c := cell(sessions, "parameters", []byte(params[k]))
		c.Path = []byte(k)
		sc = append(sc, c)
	}
	sortCells(sc)
	sup := &mutation.PartitionUpdate{TableID: sessions.ID, Key: key, Token: token, Deletion: mutation.Live,
		Rows: []mutation.Row{{Marker: marker, Deletion: mutation.Live, Cells: sc}}}

	evs := s.Events()
	eup := &mutation.PartitionUpdate{TableID: events.ID, Key: key, Token: token, Deletion: mutation.Live}
	for _, ev := range evs {
		id := ev.ID
		ec := []mutation.Cell{
			cell(events, "activity", []byte(ev.Activity)),
			cell(events, "source", local.ListenAddress),
			cell(events, "source_elapsed", types.EncodeInt(ev.Elapsed)),
			cell(events, "source_port", types.EncodeInt(int32(local.ListenPort))),
			cell(events, "thread", []byte(ev.Thread)),
		}
		sortCells(ec)
		eup.Rows = append(eup.Rows, mutation.Row{Clustering: [][]byte{append([]byte(nil), id[:]...)},
			Marker: marker, Deletion: mutation.Live, Cells: ec})
	}
	// Events first: a reader that sees the session's duration finds
	// every event (the Python driver waits for the duration).
	if len(eup.Rows) > 0 {
		if err := e.cfg.Coordinator.Mutate(ctx, events, One, []*mutation.PartitionUpdate{eup}); err != nil {
			e.cfg.Logger.Warn("cannot write trace events", "session", s.ID.String(), "err", err)
			return
		}
	}
	if err := e.cfg.Coordinator.Mutate(ctx, sessions, One, []*mutation.PartitionUpdate{sup}); err != nil {
		e.cfg.Logger.Warn("cannot write trace session", "session", s.ID.String(), "err", err)
	}
}
