package node

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
)

// TestPasswordAuthAndPermissions runs a node with PasswordAuthenticator and
// CassandraAuthorizer: the default superuser, roles, logins, grants and
// the checks on every statement.
func TestPasswordAuthAndPermissions(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Authenticator = "PasswordAuthenticator"
	cfg.Authorizer = "org.apache.cassandra.auth.CassandraAuthorizer"
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ctx := context.Background()
	ex := n.Executor()
	as := func(user string) *query.Session { return &query.Session{User: user} }
	run := func(sess *query.Session, q string) (*query.Result, error) {
		return ex.Query(ctx, sess, q, &query.Options{Consistency: 1})
	}
	ok := func(sess *query.Session, q string) *query.Result {
		t.Helper()
		res, err := run(sess, q)
		if err != nil {
			t.Fatalf("%s as %q: %v", q, sess.User, err)
		}
		return res
	}
	fails := func(sess *query.Session, q string, code cqlerr.Code, msg string) {
		t.Helper()
		_, err := run(sess, q)
		if !cqlerr.Is(err, code) || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%s as %q: got %v, want %v containing %q", q, sess.User, err, code, msg)
		}
	}
	login := func(user, pw string) error {
		_, err := n.auth.Authenticate(ctx, user, pw)
		return err
	}
	if err := login("cassandra", "cassandra"); err != nil {
		t.Fatalf("default superuser: %v", err)
	}
	if err := login("cassandra", "wrong"); !cqlerr.Is(err, cqlerr.BadCredentials) || !strings.Contains(err.Error(), "Provided username cassandra and/or password are incorrect") {
		t.Fatalf("bad password: %v", err)
	}
	admin := as("cassandra")
	anon := as("")
	fails(anon, "CREATE ROLE x", cqlerr.Unauthorized, "You have to be logged in and not anonymous")

	ok(admin, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	ok(admin, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	ok(admin, "CREATE ROLE alice WITH PASSWORD = 'pw1' AND LOGIN = true")
	ok(admin, "CREATE ROLE readers")
	ok(admin, "CREATE USER bob WITH PASSWORD 'pw2' NOSUPERUSER")
	fails(admin, "CREATE ROLE alice", cqlerr.Invalid, "alice already exists")
	ok(admin, "CREATE ROLE IF NOT EXISTS alice")
	fails(admin, "CREATE ROLE carol WITH OPTIONS = {'a': 'b'}", cqlerr.Invalid, "doesn't support OPTIONS")
	if err := login("alice", "pw1"); err != nil {
		t.Fatalf("alice login: %v", err)
	}
	if err := login("readers", ""); !cqlerr.Is(err, cqlerr.BadCredentials) {
		t.Fatalf("role without password logged in: %v", err)
	}

	alice := as("alice")
	fails(alice, "SELECT * FROM ks.t", cqlerr.Unauthorized, "User alice has no SELECT permission on <table ks.t> or any of its parents")
	fails(alice, "INSERT INTO ks.t (k, v) VALUES (1, 'a')", cqlerr.Unauthorized, "User alice has no MODIFY permission on <table ks.t>")
	// What drivers read on connect is readable by all
	// (READABLE_SYSTEM_RESOURCES); the rest of system and system_views
	// needs SELECT: prepared statements hold literals, settings the
	// configuration.
	ok(alice, "SELECT * FROM system.local")
	ok(alice, "SELECT * FROM system.peers_v2")
	ok(alice, "SELECT * FROM system_schema.tables")
	ok(alice, "SELECT * FROM system_virtual_schema.tables")
	fails(alice, "SELECT * FROM system.prepared_statements", cqlerr.Unauthorized,
		"User alice has no SELECT permission on <table system.prepared_statements> or any of its parents")
	fails(alice, "SELECT * FROM system_views.settings", cqlerr.Unauthorized,
		"User alice has no SELECT permission on <table system_views.settings> or any of its parents")
	ok(admin, "SELECT * FROM system_views.settings")
	fails(alice, "CREATE ROLE eve", cqlerr.Unauthorized, "User alice has no CREATE permission on <all roles>")

	ok(admin, "GRANT SELECT ON KEYSPACE ks TO readers")
	ok(admin, "GRANT readers TO alice")
	ok(alice, "SELECT * FROM ks.t")
	fails(alice, "INSERT INTO ks.t (k, v) VALUES (1, 'a')", cqlerr.Unauthorized, "MODIFY")
	ok(admin, "GRANT MODIFY ON TABLE ks.t TO alice")
	ok(alice, "INSERT INTO ks.t (k, v) VALUES (1, 'a')")
	fails(alice, "DROP TABLE ks.t", cqlerr.Unauthorized, "User alice has no DROP permission on <table ks.t>")
	fails(admin, "GRANT DESCRIBE ON KEYSPACE ks TO alice", cqlerr.Invalid, "does not support the requested permissions: DESCRIBE")
	fails(admin, "GRANT SELECT ON KEYSPACE nope TO alice", cqlerr.Invalid, "Resource <keyspace nope> doesn't exist")
	fails(admin, "GRANT SELECT ON KEYSPACE ks TO nobody", cqlerr.Invalid, "Role nobody doesn't exist")
	fails(admin, "GRANT alice TO readers", cqlerr.Invalid, "alice is a member of readers")

	res := ok(admin, "LIST ALL PERMISSIONS OF alice")
	var got []string
	for _, r := range res.Rows {
		got = append(got, string(r[0])+" "+string(r[2])+" "+string(r[3]))
	}
	want := "alice <table ks.t> MODIFY|readers <keyspace ks> SELECT"
	if strings.Join(got, "|") != want {
		t.Fatalf("LIST PERMISSIONS: %q, want %q", strings.Join(got, "|"), want)
	}
	res = ok(admin, "LIST ROLES")
	got = nil
	for _, r := range res.Rows {
		got = append(got, string(r[0]))
	}
	if strings.Join(got, ",") != "alice,bob,cassandra,readers" {
		t.Fatalf("LIST ROLES: %v", got)
	}
	res = ok(alice, "LIST ROLES")
	got = nil
	for _, r := range res.Rows {
		got = append(got, string(r[0]))
	}
	if strings.Join(got, ",") != "alice,readers" {
		t.Fatalf("LIST ROLES as alice: %v", got)
	}
	res = ok(admin, "LIST USERS")
	if len(res.Rows) != 3 { // alice, bob, cassandra can log in
		t.Fatalf("LIST USERS: %d rows", len(res.Rows))
	}

	// A keyspace's creator gets every permission on it.
	ok(admin, "GRANT CREATE ON ALL KEYSPACES TO bob")
	bob := as("bob")
	ok(bob, "CREATE KEYSPACE bobs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	ok(bob, "CREATE TABLE bobs.t (k int PRIMARY KEY)")
	ok(bob, "INSERT INTO bobs.t (k) VALUES (1)")
	ok(bob, "DROP TABLE bobs.t")
	// Dropping a table revokes what was granted on it: a new table of the
	// same name starts with no grants.
	ok(admin, "DROP TABLE ks.t")
	ok(admin, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
	fails(alice, "INSERT INTO ks.t (k, v) VALUES (1, 'a')", cqlerr.Unauthorized, "MODIFY")

	// Passwords change; revoked permissions stop working.
	ok(alice, "ALTER ROLE alice WITH PASSWORD = 'new'")
	if err := login("alice", "new"); err != nil {
		t.Fatalf("new password: %v", err)
	}
	fails(alice, "ALTER ROLE alice WITH SUPERUSER = true", cqlerr.Unauthorized, "alter your own superuser status")
	ok(admin, "REVOKE readers FROM alice")
	fails(alice, "SELECT * FROM ks.t", cqlerr.Unauthorized, "SELECT")
	fails(admin, "REVOKE readers FROM alice", cqlerr.Invalid, "alice is not a member of readers")
	fails(admin, "DROP ROLE cassandra", cqlerr.Invalid, "Cannot DROP primary role for current login")
	ok(admin, "DROP ROLE alice")
	fails(admin, "DROP ROLE nobody", cqlerr.Invalid, "nobody doesn't exist")
	ok(admin, "DROP ROLE IF EXISTS nobody")
	fails(admin, "ALTER ROLE nobody WITH LOGIN = true", cqlerr.Invalid, "nobody doesn't exist")
	ok(admin, "ALTER ROLE IF EXISTS nobody WITH LOGIN = true")
	fails(bob, "CREATE ROLE su WITH SUPERUSER = true", cqlerr.Unauthorized, "User bob has no CREATE permission on <all roles>")
	ok(admin, "GRANT CREATE ON ALL ROLES TO bob")
	fails(bob, "CREATE ROLE su WITH SUPERUSER = true", cqlerr.Unauthorized, "Only superusers can create a role with superuser status")
	ok(bob, "CREATE ROLE plain")
	if err := login("alice", "new"); !cqlerr.Is(err, cqlerr.BadCredentials) {
		t.Fatalf("dropped role logged in: %v", err)
	}
}

// TestDriverPasswordAuth logs gocql in with PasswordAuthenticator on
// protocol v4 and v5 (LZ4), and checks that a wrong password and a
// missing login are refused.
func TestDriverPasswordAuth(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Authenticator = "PasswordAuthenticator"
	cfg.Authorizer = "CassandraAuthorizer"
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	dial := func(proto int, comp gocql.Compressor, user, pw string) (*gocql.Session, error) {
		addr := n.NativeAddr()
		cluster := gocql.NewCluster(addr.IP.String())
		cluster.Port = addr.Port
		cluster.ProtoVersion = proto
		cluster.Compressor = comp
		cluster.Timeout = 10 * time.Second
		cluster.ConnectTimeout = 10 * time.Second
		cluster.Consistency = gocql.One
		cluster.DisableInitialHostLookup = false
		if user != "" {
			cluster.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: pw}
		}
		return cluster.CreateSession()
	}
	for _, tc := range []struct {
		proto int
		comp  gocql.Compressor
	}{{4, nil}, {5, lz4.LZ4Compressor{}}} {
		sess, err := dial(tc.proto, tc.comp, "cassandra", "cassandra")
		if err != nil {
			t.Fatalf("v%d login: %v", tc.proto, err)
		}
		var name string
		if err := sess.Query("SELECT cluster_name FROM system.local").Scan(&name); err != nil {
			t.Fatalf("v%d query: %v", tc.proto, err)
		}
		if err := sess.Query("CREATE KEYSPACE IF NOT EXISTS app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec(); err != nil {
			t.Fatalf("v%d DDL as superuser: %v", tc.proto, err)
		}
		sess.Close()
		if _, err := dial(tc.proto, tc.comp, "cassandra", "nope"); err == nil || !strings.Contains(err.Error(), "Provided username cassandra and/or password are incorrect") {
			t.Fatalf("v%d wrong password: %v", tc.proto, err)
		}
		if _, err := dial(tc.proto, tc.comp, "", ""); err == nil {
			t.Fatalf("v%d connected without credentials", tc.proto)
		}
	}
}

// TestDynamicDataMasking checks that masked columns show masked values to
// a role without UNMASK, clear values to a superuser and to a role granted
// UNMASK, and that DESCRIBE prints the masks.
func TestDynamicDataMasking(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.Authenticator = "PasswordAuthenticator"
	cfg.Authorizer = "CassandraAuthorizer"
	cfg.DynamicDataMaskingEnabled = true
	cfg.MaterializedViewsEnabled = true
	n := startTestNodeConfig(t, cfg)
	defer stopTestNode(t, n)
	ctx := context.Background()
	ex := n.Executor()
	run := func(user, q string) *query.Result {
		t.Helper()
		res, err := ex.Query(ctx, &query.Session{User: user}, q, &query.Options{Consistency: 1})
		if err != nil {
			t.Fatalf("%s as %s: %v", q, user, err)
		}
		return res
	}
	row := func(user string) string {
		t.Helper()
		res := run(user, "SELECT name, birth, score FROM ks.patients")
		r := res.Rows[0]
		return fmt.Sprintf("%s|%x|%x", r[0], r[1], r[2])
	}
	run("cassandra", "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run("cassandra", "CREATE TABLE ks.patients (id int PRIMARY KEY, name text MASKED WITH mask_inner(1, null), birth date MASKED WITH DEFAULT, score int)")
	run("cassandra", "INSERT INTO ks.patients (id, name, birth, score) VALUES (1, 'alice', '1984-01-02', 7)")
	run("cassandra", "CREATE ROLE reader WITH PASSWORD = 'pw' AND LOGIN = true")
	run("cassandra", "GRANT SELECT ON KEYSPACE ks TO reader")
	clear := row("cassandra")
	masked := row("reader")
	if clear == masked || !strings.HasPrefix(masked, "a****|80000000|") || !strings.HasPrefix(clear, "alice|") {
		t.Fatalf("superuser sees %q, reader sees %q", clear, masked)
	}
	run("cassandra", "ALTER TABLE ks.patients ALTER score MASKED WITH mask_null()")
	if got := row("reader"); got != "a****|80000000|" {
		t.Fatalf("after masking score, reader sees %q", got)
	}
	run("cassandra", "GRANT UNMASK ON TABLE ks.patients TO reader")
	if got := row("reader"); got != clear {
		t.Fatalf("with UNMASK, reader sees %q, want %q", got, clear)
	}
	res := run("cassandra", "DESCRIBE TABLE ks.patients")
	create := string(res.Rows[0][3])
	for _, want := range []string{"name text MASKED WITH system.mask_inner(1, null)", "birth date MASKED WITH system.mask_default()", "score int MASKED WITH system.mask_null()"} {
		if !strings.Contains(create, want) {
			t.Fatalf("DESCRIBE lacks %q:\n%s", want, create)
		}
	}

	// A view's columns carry the base table's masks, and follow them when
	// the base is altered (ColumnMaskTest.testViews).
	run("cassandra", "CREATE MATERIALIZED VIEW ks.by_name AS SELECT * FROM ks.patients WHERE name IS NOT NULL AND id IS NOT NULL PRIMARY KEY (name, id)")
	run("cassandra", "CREATE ROLE viewer WITH PASSWORD = 'pw' AND LOGIN = true")
	run("cassandra", "GRANT SELECT ON KEYSPACE ks TO viewer")
	viewRow := func() string {
		t.Helper()
		r := run("viewer", "SELECT name, score FROM ks.by_name").Rows[0]
		return fmt.Sprintf("%s|%x", r[0], r[1])
	}
	if got := viewRow(); got != "a****|" {
		t.Fatalf("viewer reads the view as %q, want it masked", got)
	}
	run("cassandra", "ALTER TABLE ks.patients ALTER name DROP MASKED")
	run("cassandra", "ALTER TABLE ks.patients ALTER score MASKED WITH mask_default()")
	if got := viewRow(); got != "alice|00000000" {
		t.Fatalf("after altering the base's masks, viewer reads the view as %q", got)
	}
}
