package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/node"
)

var updateShell = os.Getenv("CQLD_UPDATE_GOLDEN") != ""

// startShellNode starts an in-process node on a random port.
func startShellNode(t *testing.T) (host, port string) {
	t.Helper()
	cfg := node.DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.NativePort = 0
	cfg.AdminPort = -1
	n, err := node.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n.Shutdown(ctx)
	})
	addr := n.NativeAddr()
	return addr.IP.String(), strconv.Itoa(addr.Port)
}

// runShellCmd runs `cqld shell args...` with stdin and returns stdout,
// stderr and the exit status.
func runShellCmd(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := newShellCommand()
	var out, errOut bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	code := 0
	if err := cmd.Execute(); err != nil {
		var exit errExit
		if !errors.As(err, &exit) {
			t.Fatalf("shell %v: %v", args, err)
		}
		code = exit.code
	}
	return out.String(), errOut.String(), code
}

var (
	copyRate     = regexp.MustCompile(`Rate: +\d+ rows/s; Avg\. rate: +\d+ rows/s`)
	copySeconds  = regexp.MustCompile(`in \d+\.\d{3} seconds`)
	portInBanner = regexp.MustCompile(`at 127\.0\.0\.1:\d+`)
)

func normalize(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp, "$TMP")
	s = copyRate.ReplaceAllString(s, "Rate: N rows/s; Avg. rate: N rows/s")
	s = copySeconds.ReplaceAllString(s, "in N seconds")
	return portInBanner.ReplaceAllString(s, "at 127.0.0.1:PORT")
}

func checkShellGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "shell", name)
	if updateShell {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (set CQLD_UPDATE_GOLDEN=1 to create)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestShell runs `cqld shell` against an in-process node: a -f script
// (DDL, every type, EXPAND, paging, errors, DESCRIBE, COPY TO/FROM round
// trip), -e statements, piped stdin and an interactive session with
// "---MORE---" pages; stdout and stderr are compared to goldens.
func TestShell(t *testing.T) {
	host, port := startShellNode(t)
	tmp := t.TempDir()
	script := `-- setup
CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE shop;
CREATE TYPE addr (city text, zip int);
CREATE TABLE all_types (
  id int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d decimal, db double,
  du duration, f float, i inet, s smallint, t text, ts timestamp, ti tinyint, u uuid,
  tu timeuuid, v varint, dt date, tm time, l list<int>, st set<text>, m map<text, int>,
  tup tuple<int, text>, ad frozen<addr>, vec vector<float, 3>);
INSERT INTO all_types (id, a, b, bl, bo, d, db, du, f, i, s, t, ts, ti, u, tu, v, dt, tm, l, st, m, tup, ad, vec)
VALUES (1, 'asc', 123456789012, 0xcafe, true, 1.50, 3.14159265, 1h30m, 1.1, '127.0.0.1', 12,
  'it''s; here', '2024-01-15 10:30:00+0000', 7, 123e4567-e89b-12d3-a456-426614174000,
  50554d6e-29bb-11e5-b345-feff819cdc9f, 123456789012345678901234567890, '2024-01-15',
  '10:30:00.123', [1, 2, 3], {'b', 'a'}, {'x': 1, 'a': 2}, (1, 'o''k'),
  {city: 'Paris', zip: 75001}, [1.5, 2, 100000]);
INSERT INTO all_types (id, t) VALUES (2, 'second'); INSERT INTO all_types (id) VALUES (3);
SELECT * FROM all_types WHERE id IN (1, 2, 3);
SELECT id, t FROM all_types WHERE id = 42;
EXPAND ON;
SELECT id, t, m FROM all_types WHERE id = 1;
EXPAND OFF
PAGING 2
SELECT id, t FROM all_types;
PAGING OFF
SELECT count(*) FROM all_types;
CONSISTENCY
CONSISTENCY QUORUM
SERIAL CONSISTENCY LOCAL_SERIAL
TRACING ON
SELECT * FROM nope;
selec x;
DESCRIBE TABLES
DESC TYPE addr;
TRACING
TRACING OFF
TRACING OFF
COPY all_types TO '` + tmp + `/all.csv' WITH HEADER = true;
CREATE TABLE copy_of (
  id int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d decimal, db double,
  du duration, f float, i inet, s smallint, t text, ts timestamp, ti tinyint, u uuid,
  tu timeuuid, v varint, dt date, tm time, l list<int>, st set<text>, m map<text, int>,
  tup tuple<int, text>, ad frozen<addr>, vec vector<float, 3>);
COPY copy_of FROM '` + tmp + `/all.csv' WITH HEADER = true;
SELECT * FROM copy_of WHERE id IN (1, 2, 3);
COPY copy_of (id, t) TO STDOUT WITH DELIMITER = '|';
UPDATE all_types SET t = 'x' WHERE id = 1 IF t = 'nope';
SELECT id,
       t
  FROM all_types
 WHERE id = 2 -- trailing comment
;
BEGIN BATCH
  INSERT INTO all_types (id, t) VALUES (4, 'b;1');
  INSERT INTO all_types (id, t) VALUES (5, 'b2');
APPLY BATCH;
SELECT id, t FROM all_types WHERE id IN (4, 5);
CAPTURE '` + tmp + `/capture.txt'
SELECT id FROM all_types WHERE id = 3;
CAPTURE OFF
SOURCE '` + tmp + `/sub.cql'
SOURCE '` + tmp + `/missing.cql'
`
	if err := os.WriteFile(filepath.Join(tmp, "sub.cql"), []byte("SELECT id FROM all_types WHERE id = 1;\n\nSELECT * FROM missing;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "script.cql")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runShellCmd(t, "", "-f", file, host, port)
	if code != 2 {
		t.Errorf("-f with failing statements: exit %d, want 2", code)
	}
	checkShellGolden(t, "script.out", normalize(out, tmp))
	checkShellGolden(t, "script.err", normalize(errOut, tmp))

	csv, err := os.ReadFile(filepath.Join(tmp, "all.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checkShellGolden(t, "all.csv", string(csv))
	captured, err := os.ReadFile(filepath.Join(tmp, "capture.txt"))
	if err != nil {
		t.Fatal(err)
	}
	checkShellGolden(t, "capture.txt", string(captured))

	// -e: success, then an error with cqlsh's "<stdin>:1:" prefix.
	out, errOut, code = runShellCmd(t, "", "-k", "shop", "-e", "SELECT id, t FROM all_types WHERE id = 2", host, port)
	if code != 0 || errOut != "" {
		t.Errorf("-e select: exit %d, stderr %q", code, errOut)
	}
	checkShellGolden(t, "execute.out", out)
	_, errOut, code = runShellCmd(t, "", "-e", "SELECT * FROM shop.nope", host, port)
	if code != 2 || errOut != "<stdin>:1:InvalidRequest: Error from server: code=2200 [Invalid query] message=\"table nope does not exist\"\n" {
		t.Errorf("-e error: exit %d, stderr %q", code, errOut)
	}
	out, _, code = runShellCmd(t, "", "-e", "SHOW VERSION", host, port)
	if code != 0 || out != "[cqlsh 6.2.0 | Cassandra 5.0.4 | CQL spec 3.4.7 | Native protocol v5]\n" {
		t.Errorf("SHOW VERSION: exit %d, %q", code, out)
	}

	// Piped stdin: line numbers in errors, incomplete statement at EOF.
	out, errOut, code = runShellCmd(t, "USE shop;\nSELECT id FROM all_types\n WHERE id = 3;\nUSE nope;\nSELECT 1", host, port)
	if code != 2 {
		t.Errorf("piped: exit %d", code)
	}
	checkShellGolden(t, "piped.out", out)
	checkShellGolden(t, "piped.err", errOut)

	// Interactive (-t): banner, prompts, continuation, ---MORE--- pages.
	out, errOut, code = runShellCmd(t, "USE shop;\nPAGING 2\nSELECT id, t\nFROM all_types;\n\n\nEXIT\n", "-t", host, port)
	if code != 0 || errOut != "" {
		t.Errorf("interactive: exit %d, stderr %q", code, errOut)
	}
	checkShellGolden(t, "interactive.out", normalize(out, tmp))

	// Connection failure.
	_, errOut, code = runShellCmd(t, "", "-e", "SELECT 1", host, "1")
	if code != 1 || !strings.HasPrefix(errOut, "Connection error: ") {
		t.Errorf("bad port: exit %d, stderr %q", code, errOut)
	}
}

// TestShellTracing is dtest cql_tracing_test's trace(): TRACING ON prints
// each statement's trace after its result, ending with "Request
// complete"; SHOW SESSION prints one again by id.
func TestShellTracing(t *testing.T) {
	host, port := startShellNode(t)
	setup := "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n" +
		"CREATE TABLE ks.users (userid uuid PRIMARY KEY, firstname text, lastname text, age int);\n"
	if _, errOut, code := runShellCmd(t, setup, host, port); code != 0 {
		t.Fatalf("setup: exit %d: %s", code, errOut)
	}
	out, errOut, code := runShellCmd(t, "TRACING ON\nSELECT * FROM system.peers;\n", host, port)
	if code != 0 || errOut != "" || !strings.Contains(out, "Now Tracing is enabled") ||
		!strings.Contains(out, "Tracing session: ") || !strings.Contains(out, "Request complete ") {
		t.Errorf("traced select: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	// The shell's driver prepares the INSERT: its first run prints the
	// PREPARE's trace (with "Parsing") and the EXECUTE's.
	// cqlsh reads the trace at its consistency level: ALL cannot be had
	// from system_traces (replication factor 2) on one node.
	_, errOut, _ = runShellCmd(t, "CONSISTENCY ALL\nTRACING ON\nSELECT * FROM ks.users;\n", host, port)
	if want := `Unable to fetch query trace: Unavailable: Error from server: code=1000 [Unavailable exception] message="Cannot achieve consistency level ALL" info={'consistency': 'ALL', 'required_replicas': 2, 'alive_replicas': 1}`; !strings.Contains(errOut, want) {
		t.Errorf("traced select at ALL: stderr %q, want %q", errOut, want)
	}
	out, errOut, code = runShellCmd(t, "CONSISTENCY ONE\nTRACING ON\n"+
		"INSERT INTO ks.users (userid, firstname, lastname, age) VALUES (550e8400-e29b-41d4-a716-446655440000, 'Frodo', 'Baggins', 32);\n"+
		"SELECT firstname, lastname FROM ks.users WHERE userid = 550e8400-e29b-41d4-a716-446655440000;\n", host, port)
	for _, want := range []string{"Tracing session: ", " 127.0.0.1 ", "Parsing INSERT INTO ks.users ", "Request complete ", " Frodo |  Baggins",
		"activity", "source_elapsed", "Execute CQL3 prepared query |", "Adding to users memtable [MutationStage-1] |", "Read 1 live rows and 0 tombstone cells [ReadStage-1] |"} {
		if !strings.Contains(out, want) {
			t.Errorf("traced insert and select: no %q in:\n%s", want, out)
		}
	}
	if code != 0 || errOut != "" {
		t.Errorf("traced insert and select: exit %d, stderr %q", code, errOut)
	}
	i := strings.Index(out, "Tracing session: ")
	if i < 0 {
		t.Fatal("no trace printed")
	}
	id := strings.TrimSpace(strings.SplitN(out[i+len("Tracing session: "):], "\n", 2)[0])
	out, errOut, code = runShellCmd(t, "", "-e", "SHOW SESSION "+id, host, port)
	if code != 0 || errOut != "" || !strings.Contains(out, "Tracing session: "+id) || !strings.Contains(out, "Parsing INSERT INTO ks.users ") {
		t.Errorf("SHOW SESSION: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	// Reads of system_traces are not traced (cqlsh's do_select).
	out, _, _ = runShellCmd(t, "TRACING ON\nSELECT count(*) FROM system_traces.sessions;\nUSE system_traces;\nSELECT count(*) FROM events;\n", host, port)
	if strings.Contains(out, "Tracing session: ") {
		t.Errorf("a read of system_traces was traced:\n%s", out)
	}
	_, errOut, _ = runShellCmd(t, "", "-e", "SHOW SESSION 4f2d1f10-e86b-11f1-8b5d-b5a3f63b4b1e", host, port)
	if !strings.Contains(errOut, "Session 4f2d1f10-e86b-11f1-8b5d-b5a3f63b4b1e wasn't found.") {
		t.Errorf("SHOW SESSION of an unknown id: stderr %q", errOut)
	}
}

// TestShellPasswordAuth logs in with -u/-p on a PasswordAuthenticator node.
func TestShellPasswordAuth(t *testing.T) {
	cfg := node.DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.NativePort = 0
	cfg.AdminPort = -1
	cfg.Authenticator = "PasswordAuthenticator"
	cfg.Authorizer = "CassandraAuthorizer"
	n, err := node.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n.Shutdown(ctx)
	}()
	host, port := n.NativeAddr().IP.String(), strconv.Itoa(n.NativeAddr().Port)
	out, errOut, code := runShellCmd(t, "", "-u", "cassandra", "-p", "cassandra", "-e", "LIST ROLES", host, port)
	if code != 0 || !strings.Contains(out, " cassandra |") || !strings.Contains(out, "(1 rows)") {
		t.Errorf("login: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "Warning: Using a password on the command line interface can be insecure.") {
		t.Errorf("no password warning: %q", errOut)
	}
	_, errOut, code = runShellCmd(t, "", "-u", "cassandra", "-p", "wrong", "-e", "SELECT 1", host, port)
	if code != 1 || !strings.Contains(errOut, `Connection error: ('Unable to connect to any servers', {'`+host+":"+port+`': AuthenticationFailed('Failed to authenticate to `+host+":"+port+`: Error from server: code=0100 [Bad credentials] message="Provided username cassandra and/or password are incorrect"')})`) {
		t.Errorf("bad password: exit %d, stderr %q", code, errOut)
	}
}
