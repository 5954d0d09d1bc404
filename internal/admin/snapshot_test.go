package admin

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/query"
)

// count returns the rows of a SELECT.
func count(t *testing.T, n *node.Node, q string) int {
	t.Helper()
	res, err := n.Executor().Query(context.Background(), &query.Session{}, q, &query.Options{Consistency: 1})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return len(res.Rows)
}

// snapshotDir returns the directory of the one snapshot whose listing
// line matches re.
func snapshotDir(t *testing.T, n *node.Node, re string) string {
	t.Helper()
	var dirs []string
	for _, in := range n.Snapshots().List() {
		if regexp.MustCompile(re).MatchString(in.Tag + " " + in.Keyspace + "." + in.Table) {
			dirs = append(dirs, in.Dir)
		}
	}
	if len(dirs) != 1 {
		t.Fatalf("snapshots matching %q: %v", re, dirs)
	}
	return dirs[0]
}

func TestSnapshotCommands(t *testing.T) {
	n, opts := startNode(t)
	cql(t, n,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck))",
		"CREATE TABLE ks.u (k int PRIMARY KEY, v int)",
		"INSERT INTO ks.t (pk, ck, v) VALUES (1, 1, 'a')",
		"INSERT INTO ks.u (k, v) VALUES (1, 1)")

	out, _ := run(t, opts, false, "snapshot", "-t", "s1", "ks")
	if out != "Requested creating snapshot(s) for [ks] with snapshot name [s1] and options {skipFlush=false}\nSnapshot directory: s1\n" {
		t.Fatalf("snapshot:\n%s", out)
	}
	_, errOut := run(t, opts, true, "snapshot", "-t", "s1", "ks")
	wantLines(t, errOut, `^nodetool: Snapshot s1 already exists\.$`)
	out, _ = run(t, opts, false, "snapshot", "-kt", "ks.u", "--tag=s2", "-sf", "--ttl", "1h")
	wantLines(t, out, `^Requested creating snapshot\(s\) for \[ks\.u\] with snapshot name \[s2\] and options \{skipFlush=true, ttl=1h\}$`,
		`^Snapshot directory: s2$`)
	out, _ = run(t, opts, false, "snapshot")
	wantLines(t, out, `^Requested creating snapshot\(s\) for \[all keyspaces\] with snapshot name \[\d{13}\] and options \{skipFlush=false\}$`)
	// -kt decides by its first entry: without a dot, keyspaces; a
	// trailing comma is dropped, as Java's split drops it.
	run(t, opts, false, "snapshot", "-kt", "ks", "-t", "kt_keyspace")
	run(t, opts, false, "snapshot", "-kt", "ks.t,", "-t", "kt_comma")
	for tag, want := range map[string]int{"kt_keyspace": 2, "kt_comma": 1} {
		got := 0
		for _, in := range n.Snapshots().List() {
			if in.Tag == tag {
				got++
			}
		}
		if got != want {
			t.Errorf("snapshot %s covers %d tables, want %d", tag, got, want)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot", "--ttl", "30s"}, `^nodetool: ttl for snapshot must be at least 60 seconds$`},
		{[]string{"snapshot", "--ttl", "infinity"}, `^nodetool: Invalid duration: infinity Accepted units`},
		{[]string{"snapshot", "-t", "a/b"}, `^nodetool: Snapshot name cannot contain /$`},
		{[]string{"snapshot", "-kt", "ks.nope"}, `^nodetool: Unknown keyspace/cf pair \(ks\.nope\)$`},
		{[]string{"snapshot", "-kt", "ks.t", "ks"}, `^nodetool: When specifying the Keyspace table list \(using -kt,--kt-list,-kc,--kc\.list\), you must not also specify keyspaces to snapshot$`},
		{[]string{"snapshot", "-cf", "t", "ks", "system"}, `^nodetool: When specifying the table for a snapshot, you must specify one and only one keyspace$`},
		{[]string{"snapshot", "-cf", "nope", "ks"}, `^nodetool: Unknown keyspace/cf pair \(ks\.nope\)$`},
		{[]string{"snapshot", "-kt", "nope.t"}, `^nodetool: Keyspace nope does not exist$`},
		{[]string{"snapshot", "-kt", "system_views.clients"}, `^nodetool: Cannot perform any operations against virtual keyspace system_views$`},
		{[]string{"snapshot", "--ttl", "90000ms"}, `^nodetool: Invalid duration: 90000ms Accepted units:\[SECONDS, MINUTES, HOURS, DAYS\]`},
		{[]string{"snapshot", "nope"}, `^nodetool: Keyspace nope does not exist$`},
		{[]string{"snapshot", "system_views"}, `^nodetool: Cannot perform any operations against virtual keyspace system_views$`},
		{[]string{"clearsnapshot"}, `^nodetool: Specify snapshot name or --all$`},
		{[]string{"clearsnapshot", "-t", "x", "--all"}, `^nodetool: Specify only one of snapshot name or --all$`},
		{[]string{"clearsnapshot", "--all", "--older-than", "3k"}, `^nodetool: Invalid duration: 3k Accepted units:\[SECONDS, MINUTES, HOURS, DAYS\]`},
		{[]string{"clearsnapshot", "--all", "--older-than-timestamp", "yesterday"}, `^nodetool: Parameter --older-than-timestamp has to be a valid instant in ISO format\.$`},
		{[]string{"import", "ks", "t"}, `^nodetool: import requires keyspace, table name and directories$`},
		{[]string{"import", "ks", "nope", "/"}, `^nodetool: ColumnFamilyStore for ks/nope not found\.$`},
		{[]string{"import", "ks", "t", "/nowhere"}, `^nodetool: Directory /nowhere does not exist$`},
	} {
		_, errOut := run(t, opts, true, c.args...)
		wantLines(t, errOut, c.want)
	}

	out, _ = run(t, opts, false, "listsnapshots")
	wantLines(t, out,
		`^Snapshot Details: $`,
		`^Snapshot name +Keyspace name +Column family name +True size +Size on disk +Creation time +Expiration time +$`,
		`^s1 +ks +t +[\d.]+ (bytes|KiB) +[\d.]+ (bytes|KiB|MiB) +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z +$`,
		`^s2 +ks +u .*Z +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$`,
		`^\d{13} +system_auth +roles `,
		`^Total TrueDiskSpaceUsed: 0 bytes$`)
	if strings.Contains(out, "system_views") {
		t.Fatalf("virtual tables snapshotted:\n%s", out)
	}
	out, _ = run(t, opts, false, "listsnapshots", "-nt", "-e")
	wantLines(t, out, `Expiration time +Ephemeral$`, `^s1 +ks +t .* false +$`)
	if strings.Contains(out, "s2 ") {
		t.Fatalf("listsnapshots -nt listed a snapshot with a TTL:\n%s", out)
	}

	out, _ = run(t, opts, false, "clearsnapshot", "--all", "--older-than", "1d")
	if out != "Requested clearing snapshot(s) for [all keyspaces] with [all snapshots] older than 86400 seconds.\n" {
		t.Fatalf("clearsnapshot --older-than:\n%s", out)
	}
	out, _ = run(t, opts, false, "clearsnapshot", "-t", "s1", "--", "ks")
	if out != "Requested clearing snapshot(s) for [ks] with snapshot name [s1]\n" {
		t.Fatalf("clearsnapshot -t:\n%s", out)
	}
	out, _ = run(t, opts, false, "clearsnapshot", "--all", "--older-than-timestamp", "2000-01-01T00:00:00Z", "ks")
	if out != "Requested clearing snapshot(s) for [ks] with [all snapshots] older than timestamp 2000-01-01T00:00:00Z\n" {
		t.Fatalf("clearsnapshot --older-than-timestamp:\n%s", out)
	}
	// Snapshots newer than the cutoff stay.
	out, _ = run(t, opts, false, "listsnapshots")
	wantLines(t, out, `^kt_keyspace +ks +t `)
	run(t, opts, false, "clearsnapshot", "-t", "", "--all", "ks") // -t "" is no name
	run(t, opts, false, "clearsnapshot", "--all", "system_auth", "ks")
	out, _ = run(t, opts, false, "listsnapshots")
	if strings.Contains(out, " ks ") || strings.Contains(out, "system_auth") || !strings.Contains(out, "system_traces") {
		t.Fatalf("after clearsnapshot:\n%s", out)
	}
	run(t, opts, false, "clearsnapshot", "--all")
	out, _ = run(t, opts, false, "listsnapshots")
	if out != "Snapshot Details: \nThere are no snapshots\n" {
		t.Fatalf("no snapshots:\n%s", out)
	}
}

// TestAutoSnapshotRestore: TRUNCATE and DROP TABLE leave a snapshot
// (auto_snapshot), and the data comes back with nodetool import, after a
// DROP into the table recreated from the snapshot's schema.cql, indexes
// included.
func TestAutoSnapshotRestore(t *testing.T) {
	n, opts := startNode(t)
	cql(t, n,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.addr (street text, zip int)",
		"CREATE TABLE ks.t (pk int, ck int, v text, a frozen<addr>, gone int, PRIMARY KEY (pk, ck))",
		"CREATE INDEX t_v ON ks.t (v)",
		"ALTER TABLE ks.t DROP gone",
		"CREATE TABLE ks.quiet (k int PRIMARY KEY) WITH allow_auto_snapshot = false")
	for i := 0; i < 50; i++ {
		cql(t, n, "INSERT INTO ks.t (pk, ck, v, a) VALUES ("+strconv.Itoa(i%5)+", "+strconv.Itoa(i)+", 'v"+strconv.Itoa(i%3)+"', {street: 's', zip: 1})")
	}
	cql(t, n, "TRUNCATE ks.t", "TRUNCATE ks.quiet")
	if c := count(t, n, "SELECT * FROM ks.t"); c != 0 {
		t.Fatalf("%d rows after TRUNCATE", c)
	}
	dir := snapshotDir(t, n, `^truncated-\d{13}-t ks\.t$`)
	for _, in := range n.Snapshots().List() {
		if in.Table == "quiet" {
			t.Fatal("a table with allow_auto_snapshot = false was snapshotted")
		}
	}
	// A row written after the TRUNCATE, newer than the snapshot's.
	cql(t, n, "INSERT INTO ks.t (pk, ck, v) VALUES (0, 0, 'new')")
	out, _ := run(t, opts, false, "import", "-q", "ks", "t", dir)
	if out != "Doing a quick import - skipping sstable verification and row cache invalidation\n" {
		t.Fatalf("import -q:\n%s", out)
	}
	if c := count(t, n, "SELECT * FROM ks.t"); c != 50 {
		t.Fatalf("%d rows after import, want 50", c)
	}
	if c := count(t, n, "SELECT * FROM ks.t WHERE v = 'v1'"); c != 17 {
		t.Fatalf("the index finds %d imported rows, want 17", c)
	}
	if c := count(t, n, "SELECT * FROM ks.t WHERE v = 'new'"); c != 1 {
		t.Fatalf("the newer row: %d", c)
	}

	cql(t, n, "DROP TABLE ks.t")
	dir = snapshotDir(t, n, `^dropped-\d{13}-t ks\.t$`)
	schemaCQL, err := os.ReadFile(filepath.Join(dir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, string(schemaCQL),
		`^CREATE TYPE IF NOT EXISTS ks\.addr \($`,
		`^CREATE TABLE IF NOT EXISTS ks\.t \($`,
		`^\) WITH ID = [0-9a-f-]{36}$`,
		`^ALTER TABLE ks\.t DROP gone USING TIMESTAMP \d+;$`,
		`^CREATE INDEX IF NOT EXISTS t_v ON ks\.t \(v\);$`)
	for _, stmt := range strings.SplitAfter(strings.TrimSpace(string(schemaCQL)), ";\n") {
		cql(t, n, stmt)
	}
	if c := count(t, n, "SELECT * FROM ks.t"); c != 0 {
		t.Fatalf("the recreated table has %d rows", c)
	}
	_, errOut := run(t, opts, true, "import", "ks", "t", dir, filepath.Dir(dir))
	if errOut != "Some directories failed to import, check server logs for details:\n"+filepath.Dir(dir)+"\n" {
		t.Fatalf("a directory that is not a snapshot:\n%s", errOut)
	}
	if c := count(t, n, "SELECT * FROM ks.t"); c != 50 {
		t.Fatalf("%d rows after import, want 50", c)
	}
	if c := count(t, n, "SELECT * FROM ks.t WHERE v = 'new'"); c != 1 {
		t.Fatalf("the index after import: %d", c)
	}
	// The recreated table has the dropped one's id, so its snapshots are
	// its own, and their sstables are gone from the live data.
	out, _ = run(t, opts, false, "tablestats", "ks.t")
	wantLines(t, out, `Space used by snapshots \(total\): [1-9]\d*$`)
	out, _ = run(t, opts, false, "listsnapshots")
	wantLines(t, out, `^Total TrueDiskSpaceUsed: [1-9][\d.]* (bytes|KiB)$`)

	cql(t, n, "DROP KEYSPACE ks")
	if dirs := len(n.Snapshots().List()); dirs != 3 {
		t.Fatalf("%d snapshots after DROP KEYSPACE, want 3 (quiet has none)", dirs)
	}
	// The total counts the snapshots of existing tables only.
	out, _ = run(t, opts, false, "listsnapshots")
	wantLines(t, out, `^Total TrueDiskSpaceUsed: 0 bytes$`)
}
