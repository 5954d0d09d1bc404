package shell

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestPrintTrace: cqlsh's print_trace layout, "--" for a null or zero
// elapsed time, no "Request complete" row without a duration, and the
// same layout with colors on.
func TestPrintTrace(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	defer func() { time.Local = local }()
	start := time.Date(2026, 11, 25, 1, 2, 3, 0, time.UTC)
	d, e1, e0 := 1500, 42, 0
	tr := &queryTrace{
		id:      gocql.UUID{0x4f, 0x2d, 0x1f, 0x10, 0xe8, 0x6b, 0x11, 0xf1, 0x8b, 0x5d, 0xb5, 0xa3, 0xf6, 0x3b, 0x4b, 0x1e},
		request: "Execute CQL3 query", coordinator: "127.0.0.1", client: "127.0.0.2", startedAt: start, duration: &d,
		events: []traceEvent{
			{activity: "Parsing SELECT * FROM t", source: "127.0.0.1", thread: "Native-Transport-Requests-1", at: start.Add(5 * time.Microsecond), elapsed: &e0},
			{activity: "Read 1 live rows and 0 tombstone cells", source: "127.0.0.1", thread: "ReadStage-1", at: start.Add(42 * time.Microsecond), elapsed: &e1},
			{activity: "Merged", source: "127.0.0.1", thread: "ReadStage-1", at: start.Add(time.Millisecond)},
		},
	}
	print := func(color bool) string {
		var b bytes.Buffer
		s := &Shell{out: &b, format: DefaultFormat(), color: color}
		s.printTrace(tr)
		return b.String()
	}
	want := `
Tracing session: 4f2d1f10-e86b-11f1-8b5d-b5a3f63b4b1e

 activity                                              | timestamp                  | source    | source_elapsed | client
-------------------------------------------------------+----------------------------+-----------+----------------+-----------
                                    Execute CQL3 query |        2026-11-25 01:02:03 | 127.0.0.1 |              0 | 127.0.0.2
 Parsing SELECT * FROM t [Native-Transport-Requests-1] | 2026-11-25 01:02:03.000005 | 127.0.0.1 |             -- | 127.0.0.2
  Read 1 live rows and 0 tombstone cells [ReadStage-1] | 2026-11-25 01:02:03.000042 | 127.0.0.1 |             42 | 127.0.0.2
                                  Merged [ReadStage-1] | 2026-11-25 01:02:03.001000 | 127.0.0.1 |             -- | 127.0.0.2
                                      Request complete | 2026-11-25 01:02:03.001500 | 127.0.0.1 |           1500 | 127.0.0.2

`
	if got := print(false); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m")
	if got := ansi.ReplaceAllString(print(true), ""); got != want {
		t.Errorf("with colors, less the colors:\n%s", got)
	}
	tr.duration = nil
	if got := print(false); strings.Contains(got, "Request complete") {
		t.Errorf("Request complete without a duration:\n%s", got)
	}
}

func TestSelectsFrom(t *testing.T) {
	s := &Shell{keyspace: "system_traces"}
	for stmt, want := range map[string]bool{
		"SELECT * FROM system_traces.sessions":         true,
		"select * from SYSTEM_TRACES . events":         true,
		`SELECT * FROM "system_traces"."sessions"`:     true,
		"SELECT * FROM sessions":                       true, // the current keyspace
		"SELECT * FROM ks.sessions":                    false,
		`SELECT * FROM "System_Traces".sessions`:       false,
		"SELECT from_ FROM ks.t WHERE k = 'FROM x'":    false,
		"SELECT * FROM /* c */ system_traces.sessions": true,
	} {
		if got := s.selectsFrom(stmt, "system_traces"); got != want {
			t.Errorf("selectsFrom(%q) = %v, want %v", stmt, got, want)
		}
	}
}
