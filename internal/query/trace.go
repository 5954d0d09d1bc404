package query

import (
	"context"
	"strconv"
	"unicode/utf16"

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

// traceCommand is the command column: Tracing.TraceType.QUERY.
const traceCommand = "QUERY"

// beginTrace starts the tracing session of ctx, if the request is traced
// and no outer entry point started it, and returns the function that ends
// it (a no-op otherwise). A session traced by probability is written in
// the background, as Cassandra writes every trace: no client waits for
// it.
func (e *Executor) beginTrace(ctx context.Context, request string, params func() map[string]string) func() {
	s := tracing.FromContext(ctx)
	if s == nil || s.Begun() || !s.Begin(request, params()) {
		return func() {}
	}
	if !s.Requested {
		return func() { go e.writeTrace(context.WithoutCancel(ctx), s) }
	}
	return func() { e.writeTrace(ctx, s) }
}

// optionParams are the consistency parameters QueryMessage,
// ExecuteMessage and BatchMessage record from the request's options.
func optionParams(opts *Options) map[string]string {
	m := map[string]string{}
	m["consistency_level"] = ConsistencyName(Consistency(opts.Consistency))
	m["serial_consistency_level"] = ConsistencyName(opts.serialConsistency())
	return m
}

// pagedParams are optionParams with the page size, for QUERY and EXECUTE.
func pagedParams(opts *Options) map[string]string {
	m := optionParams(opts)
	if opts.PageSize > 0 {
		m["page_size"] = strconv.Itoa(int(opts.PageSize))
	}
	return m
}

// queryTraceParams are QueryMessage.traceQuery's parameters.
func queryTraceParams(query string, opts *Options) func() map[string]string {
	return func() map[string]string {
		m := pagedParams(opts)
		m["query"] = query
		return m
	}
}

// executeTraceParams are ExecuteMessage.traceQuery's: the query string and
// each bound value (in marker order: named values are bound first) as a
// CQL literal, keyed bound_var_<i>_<name> (only the options when the
// statement is unknown: c is nil).
func executeTraceParams(query string, c *compiled, opts *Options) func() map[string]string {
	return func() map[string]string {
		m := pagedParams(opts)
		if c == nil {
			return m
		}
		m["query"] = query
		for i, spec := range c.bound {
			if i >= len(opts.Values) {
				break
			}
			m["bound_var_"+strconv.Itoa(i)+"_"+spec.Name] = traceLiteral(spec.Type, opts.Values[i])
		}
		return m
	}
}

// traceLiteral is a bound value as ExecuteMessage records it
// (toCQLLiteral): a CQL literal, null for a null value, and for an empty
// or unset one (the unset marker is an empty buffer) ” or 0x for text
// and blobs, null otherwise; cut after 1000 UTF-16 units as Java's
// substring(0, 1000) cuts, plus "...'".
func traceLiteral(t *types.Type, v Value) string {
	if len(v.B) == 0 {
		switch {
		case v.B == nil && !v.Unset:
			return "null"
		case t.Kind == types.Text || t.Kind == types.Ascii:
			return "''"
		case t.Kind == types.Blob:
			return "0x"
		}
		return "null"
	}
	lit := types.FormatCQL(t, v.B)
	units := 0
	for i, r := range lit {
		if units >= 1000 {
			return lit[:i] + "...'"
		}
		units += utf16.RuneLen(r)
	}
	return lit
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
	ts := e.timestamp()
	expiry := mutation.NoDeletion
	if ttl > 0 {
		expiry = e.now().Unix() + int64(ttl)
	}
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
	for k, v := range params {
		c := cell(sessions, "parameters", []byte(v))
		c.Path = []byte(k)
		sc = append(sc, c)
	}
	sortCells(sc) // by column, then map key
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
	// every event (the Python driver waits for the duration). The
	// session is written even when its events could not be. At ANY, as
	// Cassandra's TraceState writes them.
	if len(eup.Rows) > 0 {
		if err := e.cfg.Coordinator.Mutate(ctx, events, Any, []*mutation.PartitionUpdate{eup}); err != nil {
			e.cfg.Logger.Warn("cannot write trace events", "session", s.ID.String(), "err", err)
		}
	}
	if err := e.cfg.Coordinator.Mutate(ctx, sessions, Any, []*mutation.PartitionUpdate{sup}); err != nil {
		e.cfg.Logger.Warn("cannot write trace session", "session", s.ID.String(), "err", err)
	}
}
