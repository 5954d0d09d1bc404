package shell

import (
	"errors"
	"fmt"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/types"
)

// maxTraceWait is cqlsh's DEFAULT_MAX_TRACE_WAIT: how long TRACING ON
// waits for a statement's trace to be complete.
const maxTraceWait = 10 * time.Second

// showSessionWait is QueryTrace.populate's default wait (SHOW SESSION).
const showSessionWait = 2 * time.Second

// traceIDs is a gocql Tracer that keeps the tracing session ids of a
// statement's requests (one per page).
type traceIDs struct {
	mu  sync.Mutex
	ids []gocql.UUID
}

func (t *traceIDs) Trace(id []byte) {
	var u gocql.UUID
	copy(u[:], id)
	t.mu.Lock()
	t.ids = append(t.ids, u)
	t.mu.Unlock()
}

func (t *traceIDs) list() []gocql.UUID {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]gocql.UUID(nil), t.ids...)
}

// queryTrace is a tracing session as the Python driver's QueryTrace reads
// it from system_traces.
type queryTrace struct {
	id          gocql.UUID
	request     string
	coordinator string
	client      string
	startedAt   time.Time
	duration    *int // microseconds; nil while the request runs
	events      []traceEvent
}

type traceEvent struct {
	activity, source, thread string
	at                       time.Time
	elapsed                  *int
}

// selectsFrom reports whether the SELECT stmt reads a table of keyspace
// ks, named or as the current keyspace.
func (s *Shell) selectsFrom(stmt, ks string) bool {
	parsed, err := cql.Parse(stmt)
	sel, ok := parsed.(*cql.Select)
	if err != nil || !ok {
		return false
	}
	if sel.Table.Keyspace == "" {
		return s.keyspace == ks
	}
	return sel.Table.Keyspace == ks
}

// fetchTrace reads a session as QueryTrace.populate does, at consistency
// cl: the session row until it is complete (a duration and a start) or
// wait has passed, then the events. complete is false when the wait ran
// out; found is false when there is no session row at all. When only a
// complete trace will do (waitComplete) and it is not, the events are
// not read. Ctrl-C ends the wait (errInterrupted).
func (s *Shell) fetchTrace(id gocql.UUID, cl gocql.Consistency, wait time.Duration, waitComplete bool) (tr *queryTrace, found, complete bool, err error) {
	ctx, cancel := s.ctxFor(wait + s.opts.RequestTimeout)
	defer cancel()
	tr = &queryTrace{id: id}
	deadline := time.Now().Add(wait)
	for sleep := 3 * time.Millisecond; ; sleep *= 2 {
		var started time.Time
		var duration *int
		var coordinator, client string
		iter := s.sess.Query("SELECT request, coordinator, client, started_at, duration FROM system_traces.sessions WHERE session_id = ?", id).
			WithContext(ctx).Consistency(cl).Iter()
		found = iter.Scan(&tr.request, &coordinator, &client, &started, &duration)
		if err := iter.Close(); err != nil {
			return nil, false, false, s.wrapTimeout(err)
		}
		complete = found && duration != nil && !started.IsZero()
		if found && (complete || !waitComplete) || time.Now().Add(sleep).After(deadline) {
			tr.coordinator, tr.client, tr.startedAt, tr.duration = coordinator, client, started, duration
			break
		}
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return nil, false, false, s.wrapTimeout(ctx.Err())
		}
	}
	if !found || waitComplete && !complete {
		return tr, found, complete, nil
	}
	iter := s.sess.Query("SELECT event_id, activity, source, source_elapsed, thread FROM system_traces.events WHERE session_id = ?", id).
		WithContext(ctx).Consistency(cl).Iter()
	var ev traceEvent
	var eid gocql.UUID
	for iter.Scan(&eid, &ev.activity, &ev.source, &ev.elapsed, &ev.thread) {
		ev.at = eid.Time()
		tr.events = append(tr.events, ev)
		ev = traceEvent{}
	}
	return tr, true, complete, s.wrapTimeout(iter.Close())
}

// printStatementTraces prints the traces of a statement's requests after
// its result, as cqlsh's perform_statement does with TRACING ON: every
// trace is fetched complete first, at the shell's consistency level;
// when one is not complete within max_trace_wait, cqlsh's warning and
// then every trace as it is, as SHOW SESSION shows them.
func (s *Shell) printStatementTraces(ids []gocql.UUID) {
	var traces []*queryTrace
	for _, id := range ids {
		tr, found, complete, err := s.fetchTrace(id, s.consistency, maxTraceWait, true)
		switch {
		case s.traceFailed(err):
			return
		case !found || !complete:
			msg := fmt.Sprintf("Statement trace did not complete within %d seconds; trace data may be incomplete.", int(maxTraceWait/time.Second))
			if s.color {
				msg = ansiRed + msg + ansiReset
			}
			s.writeresult(msg)
			for _, id := range ids {
				s.showSession(id, true)
			}
			return
		}
		traces = append(traces, tr)
	}
	for _, tr := range traces {
		s.printTrace(tr)
	}
}

// traceFailed reports whether reading a trace failed, printing cqlsh's
// message unless Ctrl-C interrupted it.
func (s *Shell) traceFailed(err error) bool {
	if err != nil && !errors.Is(err, errInterrupted) {
		s.printerr(fmt.Sprintf("Unable to fetch query trace: %s", errorText(err)))
	}
	return err != nil
}

// showSession is SHOW SESSION <id>: the trace as it is now when partial,
// else once complete (waiting QueryTrace.populate's two seconds), read at
// ONE, the consistency of cqlsh's own session.
func (s *Shell) showSession(id gocql.UUID, partial bool) {
	tr, found, complete, err := s.fetchTrace(id, gocql.One, showSessionWait, !partial)
	switch {
	case s.traceFailed(err):
		return
	case !found || !partial && !complete:
		s.printerr(fmt.Sprintf("Session %s wasn't found.", id))
		return
	}
	s.printTrace(tr)
}

// printTrace is cqlsh's print_trace: the session's request, its events as
// "<activity> [<thread>]", and "Request complete" when it has a
// duration, with times in local time as Python's str(datetime) prints
// them. An event's elapsed time prints as "--" when it is null or 0
// (total_micro_seconds of a false timedelta).
func (s *Shell) printTrace(tr *queryTrace) {
	if len(tr.events) == 0 {
		s.printerr(fmt.Sprintf("No rows for session %s found.", tr.id))
		return
	}
	text := func(v string) cell { return s.valueCell(types.TextType, []byte(v)) }
	micros := func(n *int) cell {
		if n == nil || *n == 0 {
			return text("--")
		}
		return s.valueCell(types.IntType, types.EncodeInt(int32(*n)))
	}
	rows := [][]cell{{text(tr.request), text(pyDatetime(tr.startedAt)), text(tr.coordinator),
		s.valueCell(types.IntType, types.EncodeInt(0)), text(tr.client)}}
	for _, ev := range tr.events {
		rows = append(rows, []cell{text(ev.activity + " [" + ev.thread + "]"), text(pyDatetime(ev.at)), text(ev.source), micros(ev.elapsed), text(tr.client)})
	}
	if tr.duration != nil && *tr.duration != 0 {
		done := tr.startedAt.Add(time.Duration(*tr.duration) * time.Microsecond)
		rows = append(rows, []cell{text("Request complete"), text(pyDatetime(done)), text(tr.coordinator), micros(tr.duration), text(tr.client)})
	}
	names := []string{"activity", "timestamp", "source", "source_elapsed", "client"}
	header := make([]cell, len(names))
	for i, n := range names {
		header[i] = newCell(n)
		if s.color {
			header[i].text = ansiMagenta + n + ansiReset
		}
	}
	s.writeresult("")
	id := tr.id.String()
	if s.color {
		s.writeresult(ansiMagenta + "Tracing session: " + ansiReset + id)
	} else {
		s.writeresult("Tracing session: " + id)
	}
	s.writeresult("")
	writeTable(s.out, header, rows, true, s.tty)
	s.writeresult("")
}

// pyDatetime formats t in local time as Python's str(datetime) does: the
// microseconds only when there are some.
func pyDatetime(t time.Time) string {
	t = t.Local()
	out := t.Format("2006-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		out += "." + fmt.Sprintf("%06d", us)
	}
	return out
}
