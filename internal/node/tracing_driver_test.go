package node

import (
	"context"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/tracing"
)

// idTracer records the tracing session ids gocql receives.
type idTracer struct{ ids [][]byte }

func (t *idTracer) Trace(id []byte) { t.ids = append(t.ids, append([]byte(nil), id...)) }

// traceRows reads what system_traces holds for one session.
func traceRows(t *testing.T, s *gocql.Session, id []byte) (sess map[string]any, activities []string) {
	t.Helper()
	sess = map[string]any{}
	if err := s.Query("SELECT * FROM system_traces.sessions WHERE session_id = ?", gocql.UUID(id)).MapScan(sess); err != nil {
		t.Fatalf("session %x: %v", id, err)
	}
	it := s.Query("SELECT activity, source_elapsed, thread FROM system_traces.events WHERE session_id = ?", gocql.UUID(id)).Iter()
	var act, thread string
	var elapsed, last int
	for it.Scan(&act, &elapsed, &thread) {
		if elapsed < last {
			t.Errorf("event %q: source_elapsed %d before the previous event's %d", act, elapsed, last)
		}
		last = elapsed
		activities = append(activities, act+" ["+thread+"]")
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return sess, activities
}

func hasActivity(acts []string, prefix string) bool {
	for _, a := range acts {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// TestTracingGocql traces requests through gocql: the response carries
// the session id, and system_traces holds the session and its events
// when the response arrives (gocql reads them once, right away).
func TestTracingGocql(t *testing.T) {
	n, s := driverNode(t, "CREATE TABLE ks.users (userid uuid PRIMARY KEY, firstname text, lastname text, age int)")
	tr := &idTracer{}
	uid := "550e8400-e29b-41d4-a716-446655440000"
	if err := s.Query("INSERT INTO ks.users (userid, firstname, lastname, age) VALUES (" + uid + ", 'Frodo', 'Baggins', 32)").Trace(tr).Exec(); err != nil {
		t.Fatal(err)
	}
	var first, last string
	if err := s.Query("SELECT firstname, lastname FROM ks.users WHERE userid = ?", mustUUID(t, uid)).Trace(tr).Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	if first != "Frodo" || last != "Baggins" {
		t.Fatalf("read %q %q", first, last)
	}
	// gocql prepares both statements: PREPARE and EXECUTE are traced.
	if len(tr.ids) != 4 {
		t.Fatalf("got %d trace ids, want 4", len(tr.ids))
	}
	sess, acts := traceRows(t, s, tr.ids[0])
	if sess["request"] != "Preparing CQL3 query" || !hasActivity(acts, "Parsing INSERT INTO ks.users ") || !hasActivity(acts, "Preparing statement [") {
		t.Errorf("insert prepare: %v %q", sess, acts)
	}
	sess, acts = traceRows(t, s, tr.ids[1])
	if sess["request"] != "Execute CQL3 prepared query" || sess["command"] != "QUERY" || sess["coordinator"] == nil || sess["client"] == nil {
		t.Errorf("insert session: %v", sess)
	}
	params, _ := sess["parameters"].(map[string]string)
	if !strings.HasPrefix(params["query"], "INSERT INTO ks.users") || params["consistency_level"] != "ONE" || params["serial_consistency_level"] != "SERIAL" {
		t.Errorf("insert parameters: %v", params)
	}
	if d, _ := sess["duration"].(int); d <= 0 {
		t.Errorf("insert duration: %v", sess["duration"])
	}
	if st, _ := sess["started_at"].(time.Time); time.Since(st) > time.Minute {
		t.Errorf("insert started_at: %v", sess["started_at"])
	}
	for _, want := range []string{"Determining replicas for mutation [Native-Transport-Requests", "Appending to commitlog [MutationStage", "Adding to users memtable [MutationStage"} {
		if !hasActivity(acts, want) || hasActivity(acts, "Parsing") {
			t.Errorf("insert events: want %q, got %q", want, acts)
		}
	}
	sess, acts = traceRows(t, s, tr.ids[3])
	params, _ = sess["parameters"].(map[string]string)
	if sess["request"] != "Execute CQL3 prepared query" || params["bound_var_0_userid"] != uid || params["page_size"] != "5000" {
		t.Errorf("select session: %v", sess)
	}
	for _, want := range []string{"Executing single-partition query on users [ReadStage", "Read 1 live rows and 0 tombstone cells [ReadStage"} {
		if !hasActivity(acts, want) {
			t.Errorf("select events: want %q, got %q", want, acts)
		}
	}

	// A range read; a query that is not traced leaves no session.
	tr.ids = nil
	if err := s.Query("SELECT * FROM ks.users").Trace(tr).Exec(); err != nil {
		t.Fatal(err)
	}
	_, acts = traceRows(t, s, tr.ids[len(tr.ids)-1])
	for _, want := range []string{"Computing ranges to query", "Executing seq scan for (min(-9223372036854775808), min(-9223372036854775808)]", "Read 1 live rows"} {
		if !hasActivity(acts, want) {
			t.Errorf("range read events: want %q, got %q", want, acts)
		}
	}
	var count int
	if err := s.Query("SELECT count(*) FROM system_traces.sessions").Scan(&count); err != nil || count != 6 {
		t.Errorf("system_traces.sessions holds %d sessions (%v), want 6", count, err)
	}

	// An error response carries the session id too.
	tr.ids = nil
	if err := s.Query("SELECT * FROM ks.nosuch").Trace(tr).Exec(); err == nil {
		t.Fatal("query of a missing table succeeded")
	}
	if len(tr.ids) != 1 {
		t.Fatalf("error response: got %d trace ids, want 1", len(tr.ids))
	}

	// nodetool settraceprobability 1: a request that did not ask is
	// traced too.
	var before, after int
	if err := s.Query("SELECT count(*) FROM system_traces.sessions").Scan(&before); err != nil {
		t.Fatal(err)
	}
	n.SetTraceProbability(1)
	if err := s.Query("SELECT * FROM ks.users WHERE userid = ?", mustUUID(t, uid)).Exec(); err != nil {
		t.Fatal(err)
	}
	n.SetTraceProbability(0)
	// The SELECT's PREPARE and EXECUTE, written in the background: no
	// client waits for them.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := s.Query("SELECT count(*) FROM system_traces.sessions").Scan(&after); err != nil {
			t.Fatal(err)
		}
		if after >= before+2 || time.Now().After(deadline) {
			break
		}
	}
	if after != before+2 {
		t.Errorf("sampled requests: %d sessions before, %d after", before, after)
	}

	// A traced EXECUTE of an unknown statement fails, but its session
	// is written: the client has its id (drivers re-prepare and retry).
	ts := tracing.New([]byte{127, 0, 0, 1})
	ts.Requested = true
	if _, err := n.Executor().Execute(tracing.NewContext(context.Background(), ts), &query.Session{}, make([]byte, 16), nil, &query.Options{Consistency: 1}); err == nil {
		t.Fatal("EXECUTE of an unknown id succeeded")
	}
	if sess, _ := traceRows(t, s, ts.ID[:]); sess["request"] != "Execute CQL3 prepared query" {
		t.Errorf("session of a failed EXECUTE: %v", sess)
	}
	// MapScan reads a null int as 0: the duration's presence needs a
	// pointer.
	var duration *int
	if err := s.Query("SELECT duration FROM system_traces.sessions WHERE session_id = ?", gocql.UUID(ts.ID)).Scan(&duration); err != nil || duration == nil {
		t.Errorf("duration of a failed EXECUTE's session: %v, %v", duration, err)
	}

	// gocql's own trace writer reads the trace back. The rows expire
	// after trace_type_query_ttl.
	var ttl int
	if err := s.Query("SELECT ttl(duration) FROM system_traces.sessions WHERE session_id = ?", gocql.UUID(tr.ids[0])).Scan(&ttl); err != nil || ttl <= 86000 || ttl > 86400 {
		t.Errorf("trace TTL %d (%v), want a day", ttl, err)
	}
	var out strings.Builder
	if err := s.Query("SELECT * FROM ks.users").Trace(gocql.NewTraceWriter(s, &out)).Exec(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Tracing session") || !strings.Contains(out.String(), "Executing seq scan for") {
		t.Errorf("trace writer output:\n%s", out.String())
	}
}

// TestTracingEvents: the events of an index read, a counter update, a
// cached read, a token range read, an indexed write and a conditional
// update ("!" marks an event that must not be there). A live static row
// counts as a live row, as in Cassandra's read metrics.
func TestTracingEvents(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"CREATE INDEX t_v ON ks.t (v)",
		"CREATE TABLE ks.c (k int PRIMARY KEY, n counter)",
		"CREATE TABLE ks.s (k int, c int, st int static, PRIMARY KEY (k, c))",
		"INSERT INTO ks.s (k, c, st) VALUES (1, 1, 1)",
		"INSERT INTO ks.t (k, v) VALUES (1, 10)")
	traced := func(stmt string, values ...any) []string {
		t.Helper()
		tr := &idTracer{}
		if err := s.Query(stmt, values...).Trace(tr).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		_, acts := traceRows(t, s, tr.ids[len(tr.ids)-1])
		return acts
	}
	for _, c := range []struct {
		stmt string
		want []string
	}{
		{"SELECT * FROM ks.t WHERE v = 10", []string{"Executing read on ks.t using index t_v [ReadStage-1]",
			"Executing single-partition query on t.t_v [ReadStage-1]", "Executing single-partition query on t [ReadStage-1]"}},
		{"UPDATE ks.c SET n = n + 1 WHERE k = 1", []string{"Acquiring counter locks", "Adding to c memtable"}},
		// The second read of a partition is a cache hit: no storage read.
		{"SELECT * FROM ks.s WHERE k = 1", []string{"Row cache miss", "Executing single-partition query on s", "Read 2 live rows"}},
		{"SELECT * FROM ks.s WHERE k = 1", []string{"Row cache hit", "Read 2 live rows", "!Executing single-partition query"}},
		{"SELECT * FROM ks.t WHERE token(k) > 5", []string{"Executing seq scan for (max(5), min(-9223372036854775808)]"}},
		// An index entry is written with its row, untraced.
		{"INSERT INTO ks.t (k, v) VALUES (2, 20)", []string{"Adding to t memtable", "!Adding to t.t_v memtable"}},
		{"UPDATE ks.t SET v = 11 WHERE k = 1 IF v = 10", []string{"Reading existing values for CAS precondition",
			"CAS precondition is met; applying client-requested updates", "Adding to t memtable", "CAS applied successfully"}},
		{"UPDATE ks.t SET v = 12 WHERE k = 1 IF v = 10", []string{"CAS precondition does not match current values", "CAS did not apply"}},
	} {
		acts := traced(c.stmt)
		for _, w := range c.want {
			if not, ok := strings.CutPrefix(w, "!"); ok {
				if hasActivity(acts, not) {
					t.Errorf("%s: %q in %q", c.stmt, not, acts)
				}
			} else if !hasActivity(acts, w) {
				t.Errorf("%s: no %q in %q", c.stmt, w, acts)
			}
		}
	}
	// A partition too large for the partition cache is read once, and
	// traced once, after the cache's fill gives up on it.
	if err := s.Query("CREATE TABLE ks.big (k int PRIMARY KEY, v text)").Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("INSERT INTO ks.big (k, v) VALUES (1, ?)", strings.Repeat("x", 20<<10)).Exec(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range traced("SELECT k FROM ks.big WHERE k = 1") {
		if strings.HasPrefix(a, "Executing single-partition query on big") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a large partition's read is traced %d times", n)
	}
}

func mustUUID(t *testing.T, s string) gocql.UUID {
	t.Helper()
	u, err := gocql.ParseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
