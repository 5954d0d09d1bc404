package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/tracing"
)

// startNodeWith starts a node in-process on random ports with cfg adjusted
// by edit.
func startNodeWith(t testing.TB, dir string, edit func(*Config)) *Node {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DataDir = dir
	cfg.NativePort = 0
	cfg.AdminPort = -1
	if edit != nil {
		edit(&cfg)
	}
	n, err := Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func exec(t *testing.T, n *Node, q string) *query.Result {
	t.Helper()
	return mustQuery(t, n, &query.Session{}, q)
}

// tombstonesIn reads a partition of ks.t directly from the engine and
// returns how many tombstones the read scanned.
func tombstonesIn(t *testing.T, n *Node, table string, pk int32) int64 {
	t.Helper()
	tbl := n.schema.Current().Table("ks", table)
	key := []byte{byte(pk >> 24), byte(pk >> 16), byte(pk >> 8), byte(pk)}
	cmd := &mutation.ReadCommand{TableID: tbl.ID, Key: key, Token: murmur3{}.Token(key), NowSec: time.Now().Unix()}
	_, info, err := n.engine.ReadWithInfo(context.Background(), tbl, cmd)
	if err != nil {
		t.Fatal(err)
	}
	return info.TombstonesScanned
}

// TestBackgroundPurgeNoResurrection writes data, deletes it in every way
// (row, cell, range, partition, TTL), waits until the node's background
// purge has removed the tombstones (gc_grace_seconds 0 and 1), and checks
// that the old values never come back: right after the purge, after a
// flush and compaction, and after a restart.
func TestBackgroundPurgeNoResurrection(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for gc_grace_seconds")
	}
	dir := filepath.Join(t.TempDir(), "data")
	edit := func(c *Config) { c.PurgeInterval = 100 * time.Millisecond }
	n := startNodeWith(t, dir, edit)
	setupKS(t, n.Executor(),
		"CREATE TABLE ks.g0 (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH gc_grace_seconds = 0",
		"CREATE TABLE ks.g1 (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH gc_grace_seconds = 1")
	for _, tbl := range []string{"g0", "g1"} {
		for _, q := range []string{
			// Old values, written at timestamp 1000 and flushed so that
			// they sit in an older level than the tombstones.
			"INSERT INTO ks.%s (pk, ck, v) VALUES (1, 1, 11) USING TIMESTAMP 1000",
			"INSERT INTO ks.%s (pk, ck, v) VALUES (1, 2, 12) USING TIMESTAMP 1000",
			"INSERT INTO ks.%s (pk, ck, v) VALUES (1, 3, 13) USING TIMESTAMP 1000",
			"INSERT INTO ks.%s (pk, ck, v) VALUES (1, 4, 14) USING TIMESTAMP 1000",
			"INSERT INTO ks.%s (pk, ck, v) VALUES (2, 1, 21) USING TIMESTAMP 1000",
			"INSERT INTO ks.%s (pk, ck, v) VALUES (3, 1, 31) USING TIMESTAMP 1000 AND TTL 1",
		} {
			exec(t, n, fmt.Sprintf(q, tbl))
		}
	}
	if err := n.engine.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []string{"g0", "g1"} {
		for _, q := range []string{
			"DELETE FROM ks.%s USING TIMESTAMP 2000 WHERE pk = 1 AND ck = 1",
			"DELETE v FROM ks.%s USING TIMESTAMP 2000 WHERE pk = 1 AND ck = 2",
			"DELETE FROM ks.%s USING TIMESTAMP 2000 WHERE pk = 1 AND ck >= 3",
			"DELETE FROM ks.%s USING TIMESTAMP 2000 WHERE pk = 2",
		} {
			exec(t, n, fmt.Sprintf(q, tbl))
		}
	}
	check := func(stage string) {
		t.Helper()
		for _, tbl := range []string{"g0", "g1"} {
			res := exec(t, n, "SELECT pk, ck, v FROM ks."+tbl)
			// Row (1, 2) keeps its INSERT marker: only v was deleted.
			if len(res.Rows) != 1 || res.Rows[0][2] != nil {
				t.Fatalf("%s: ks.%s has %d rows %v, want only (1, 2, null)", stage, tbl, len(res.Rows), res.Rows)
			}
		}
	}
	// Counted before anything can be purgeable: a tombstone of g1 (grace
	// 1 s) is purgeable only from 2 s after its deletion time (whole
	// seconds), and the background purge runs every 100 ms.
	if got := tombstonesIn(t, n, "g1", 1); got != 3 {
		t.Fatalf("ks.g1 pk=1: %d tombstones before the purge, want 3", got)
	}
	time.Sleep(1100 * time.Millisecond) // the TTL 1 row expires
	check("before purge")
	deadline := time.Now().Add(20 * time.Second)
	for _, tbl := range []string{"g0", "g1"} {
		for _, pk := range []int32{1, 2, 3} {
			for tombstonesIn(t, n, tbl, pk) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("ks.%s pk=%d: tombstones not purged", tbl, pk)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	check("after purge")
	if err := n.engine.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := n.engine.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after compaction")
	stopTestNode(t, n)
	n = startNodeWith(t, dir, edit)
	defer stopTestNode(t, n)
	check("after restart")
	for _, tbl := range []string{"g0", "g1"} {
		for _, pk := range []int32{1, 2, 3} {
			if got := tombstonesIn(t, n, tbl, pk); got != 0 {
				t.Fatalf("ks.%s pk=%d: %d tombstones after restart", tbl, pk, got)
			}
		}
	}
}

// TestTombstoneThresholds checks tombstone_warn_threshold (client warning,
// over the wire too) and tombstone_failure_threshold (ReadFailure).
func TestTombstoneThresholds(t *testing.T) {
	n := startNodeWith(t, filepath.Join(t.TempDir(), "data"), func(c *Config) {
		c.TombstoneWarnThreshold = 10
		c.TombstoneFailureThreshold = 50
	})
	defer stopTestNode(t, n)
	setupKS(t, n.Executor(), "CREATE TABLE ks.tbl (pk int, ck int, v int, PRIMARY KEY (pk, ck))")
	// A null in an INSERT is a cell tombstone.
	for i := 0; i < 11; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (1, %d, null)", i))
	}
	for i := 0; i < 10; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (2, %d, null)", i))
	}
	for i := 0; i < 51; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (3, %d, null)", i))
	}
	if res := exec(t, n, "SELECT * FROM ks.tbl WHERE pk = 2"); len(res.Warnings) != 0 {
		t.Fatalf("warnings at the threshold: %q", res.Warnings)
	}
	res := exec(t, n, "SELECT * FROM ks.tbl WHERE pk = 1")
	want := "1 nodes scanned up to 11 tombstones and issued tombstone warnings for query SELECT * FROM ks.tbl WHERE pk = 1"
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], want) {
		t.Fatalf("warnings %q, want one containing %q", res.Warnings, want)
	}
	if len(res.Rows) != 11 {
		t.Fatalf("%d rows, want 11", len(res.Rows))
	}
	// Traced, the reads say why (ReadCommand.withMetricsRecording).
	ts := tracing.New(nil)
	tctx := tracing.NewContext(context.Background(), ts)
	if _, err := n.Executor().Query(tctx, &query.Session{}, "SELECT * FROM ks.tbl WHERE pk = 1", &query.Options{Consistency: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := n.Executor().Query(tctx, &query.Session{}, "SELECT * FROM ks.tbl WHERE pk = 3", &query.Options{Consistency: 1})
	var ce *cqlerr.Error
	if !errors.As(err, &ce) || ce.Code != cqlerr.ReadFailure ||
		!strings.Contains(ce.Message, "1 nodes scanned over 51 tombstones and aborted the query SELECT * FROM ks.tbl WHERE pk = 3") {
		t.Fatalf("got %v, want ReadFailure for tombstone_failure_threshold", err)
	}
	var acts []string
	for _, ev := range ts.Events() {
		acts = append(acts, ev.Activity)
	}
	for _, want := range []string{"Read 11 live rows and 11 tombstone cells (see tombstone_warn_threshold)",
		"Scanned over 50 tombstones for query SELECT * FROM ks.tbl WHERE pk = 3 ALLOW FILTERING; query aborted (see tombstone_failure_threshold)"} {
		if !slices.Contains(acts, want) {
			t.Errorf("trace events %q lack %q", acts, want)
		}
	}
	// A range scan counts every partition's tombstones.
	if _, err := n.Executor().Query(context.Background(), &query.Session{}, "SELECT * FROM ks.tbl", &query.Options{Consistency: 1}); !errors.As(err, &ce) || ce.Code != cqlerr.ReadFailure {
		t.Fatalf("range scan: got %v, want ReadFailure", err)
	}
	// Tombstones under a partition or range deletion are purged before
	// they are counted (TombstonesTest.testAllShadowedSelect): the same 51
	// cell tombstones, deleted with their partition or rows, fail nothing.
	for i := 0; i < 51; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (4, %d, null)", i))
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (5, %d, null)", i))
	}
	exec(t, n, "DELETE FROM ks.tbl WHERE pk = 4")
	exec(t, n, "DELETE FROM ks.tbl WHERE pk = 5 AND ck >= 0")
	// Row deletions over cell tombstones count once per row, in either
	// direction of the read (a reversed read meets the row deletion after
	// the cells); rows written again after their deletion count nothing.
	for i := 0; i < 30; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (6, %d, null)", i))
		exec(t, n, fmt.Sprintf("DELETE FROM ks.tbl WHERE pk = 6 AND ck = %d", i))
	}
	for i := 0; i < 60; i++ {
		exec(t, n, fmt.Sprintf("DELETE FROM ks.tbl WHERE pk = 7 AND ck = %d", i))
		exec(t, n, fmt.Sprintf("INSERT INTO ks.tbl (pk, ck, v) VALUES (7, %d, 1)", i))
	}
	for _, q := range []string{"SELECT * FROM ks.tbl WHERE pk = 4", "SELECT * FROM ks.tbl WHERE pk = 5"} {
		if res := exec(t, n, q); len(res.Rows) != 0 || len(res.Warnings) != 0 {
			t.Fatalf("%s: %d rows, warnings %q; want none", q, len(res.Rows), res.Warnings)
		}
	}
	// 30 row deletions: over the warning threshold, under the failure one.
	for _, q := range []string{"SELECT * FROM ks.tbl WHERE pk = 6", "SELECT * FROM ks.tbl WHERE pk = 6 ORDER BY ck DESC"} {
		res := exec(t, n, q)
		if len(res.Rows) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "scanned up to 30 tombstones") {
			t.Fatalf("%s: %d rows, warnings %q; want one warning for 30 tombstones", q, len(res.Rows), res.Warnings)
		}
	}
	for _, q := range []string{"SELECT * FROM ks.tbl WHERE pk = 7", "SELECT * FROM ks.tbl WHERE pk = 7 ORDER BY ck DESC"} {
		if res := exec(t, n, q); len(res.Rows) != 60 || len(res.Warnings) != 0 {
			t.Fatalf("%s: %d rows, warnings %q; want 60 rows and no warning", q, len(res.Rows), res.Warnings)
		}
	}
	// A non-frozen collection written whole leaves a collection deletion
	// in every row: that is not a cell, so it counts nothing.
	exec(t, n, "CREATE TABLE ks.coll (pk int, ck int, s set<int>, PRIMARY KEY (pk, ck))")
	for i := 0; i < 60; i++ {
		exec(t, n, fmt.Sprintf("INSERT INTO ks.coll (pk, ck, s) VALUES (1, %d, {1})", i))
	}
	if res := exec(t, n, "SELECT * FROM ks.coll WHERE pk = 1"); len(res.Rows) != 60 || len(res.Warnings) != 0 {
		t.Fatalf("collection rows: %d rows, warnings %q", len(res.Rows), res.Warnings)
	}

	// Over the wire (protocol v4 warning flag) with a real driver.
	sess := connect(t, n, 4, nil)
	defer sess.Close()
	iter := sess.Query("SELECT * FROM ks.tbl WHERE pk = 1").Iter()
	for iter.Scan(new(int), new(int), new(*int)) {
	}
	warns := iter.Warnings()
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], want) {
		t.Fatalf("driver warnings %q", warns)
	}
	err = sess.Query("SELECT * FROM ks.tbl WHERE pk = 3").Exec()
	var rf *gocql.RequestErrReadFailure
	if !errors.As(err, &rf) {
		t.Fatalf("driver: got %v (%T), want a read failure", err, err)
	}
}

func TestLoadYAMLStorageKeys(t *testing.T) {
	cfg := DefaultConfig()
	if cfg.TombstoneWarnThreshold != 1000 || cfg.TombstoneFailureThreshold != 100000 {
		t.Fatalf("defaults: %d %d", cfg.TombstoneWarnThreshold, cfg.TombstoneFailureThreshold)
	}
	y := "tombstone_warn_threshold: 5\ntombstone_failure_threshold: 50\npurge_interval: 30s\n"
	if err := LoadYAML(&cfg, []byte(y), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if cfg.TombstoneWarnThreshold != 5 || cfg.TombstoneFailureThreshold != 50 || cfg.PurgeInterval != 30*time.Second {
		t.Fatalf("got %d %d %v", cfg.TombstoneWarnThreshold, cfg.TombstoneFailureThreshold, cfg.PurgeInterval)
	}
	// The partition guardrails, and the 4.x key 5.0 replaced by the first.
	for _, c := range []struct {
		yaml       string
		warn, fail int64
		tw, tf     int64
	}{
		{"partition_size_warn_threshold: 100MiB\npartition_size_fail_threshold: 1GiB\npartition_tombstones_warn_threshold: 1000\npartition_tombstones_fail_threshold: 5000\n",
			100 << 20, 1 << 30, 1000, 5000},
		{"compaction_large_partition_warning_threshold: 64MiB\n", 64 << 20, 0, 0, 0},
		{"compaction_large_partition_warning_threshold_mb: 100\n", 100 << 20, 0, 0, 0},
	} {
		cfg := DefaultConfig()
		if err := LoadYAML(&cfg, []byte(c.yaml), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
			t.Fatal(err)
		}
		if cfg.PartitionSizeWarnThreshold != c.warn || cfg.PartitionSizeFailThreshold != c.fail ||
			cfg.PartitionTombstonesWarnThreshold != c.tw || cfg.PartitionTombstonesFailThreshold != c.tf {
			t.Fatalf("%q: got %d %d %d %d", c.yaml, cfg.PartitionSizeWarnThreshold, cfg.PartitionSizeFailThreshold,
				cfg.PartitionTombstonesWarnThreshold, cfg.PartitionTombstonesFailThreshold)
		}
	}
}

// TestDropFreesSpace checks that TRUNCATE, DROP TABLE and DROP KEYSPACE
// remove the data from disk, not only from reads.
func TestDropFreesSpace(t *testing.T) {
	n := startNodeWith(t, filepath.Join(t.TempDir(), "data"), nil)
	defer stopTestNode(t, n)
	setupKS(t, n.Executor(), "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	tables := []string{"ks.tr", "ks.dr", "ks2.dk"}
	for _, tbl := range tables {
		exec(t, n, "CREATE TABLE "+tbl+" (pk int, ck int, v blob, PRIMARY KEY (pk, ck))")
	}
	// 2 MB of incompressible values per table, one single-partition batch
	// per partition.
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 10<<10)
	for _, tbl := range tables {
		for pk := 0; pk < 10; pk++ {
			var b strings.Builder
			b.WriteString("BEGIN UNLOGGED BATCH ")
			for ck := 0; ck < 20; ck++ {
				for j := range val {
					val[j] = byte(rng.Uint32())
				}
				fmt.Fprintf(&b, "INSERT INTO %s (pk, ck, v) VALUES (%d, %d, 0x%x); ", tbl, pk, ck, val)
			}
			b.WriteString("APPLY BATCH")
			exec(t, n, b.String())
		}
	}
	e := n.Engine()
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	// usage waits for obsolete files to be deleted (Pebble deletes them in
	// the background) and returns the bytes on disk.
	usage := func(below uint64) uint64 {
		var u uint64
		for i := 0; i < 100; i++ {
			if u = e.Metrics().DiskSpaceUsage(); u < below {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return u
	}
	before := e.Metrics().DiskSpaceUsage()
	for _, stmt := range []string{"TRUNCATE ks.tr", "DROP TABLE ks.dr", "DROP KEYSPACE ks2"} {
		exec(t, n, stmt)
		after := usage(before - 1<<20)
		if after > before-1<<20 {
			t.Fatalf("%s: %d bytes on disk before, %d after; want at least 1 MiB freed", stmt, before, after)
		}
		before = after
	}
}

// TestCommitlogDirectory checks that commitlog_directory puts the commit
// log there (a relative path is taken from the working directory, as
// Cassandra does, and handed to storage resolved: Pebble records it in
// OPTIONS and compares it at the next open) and that the node opens again
// after the setting is removed (Pebble refuses a moved log directory
// unless told where the old one is). Replaying a log left in the old
// directory after a crash is storage's TestWALDir.
func TestCommitlogDirectory(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	dir := filepath.Join(root, "data")
	n := startNodeWith(t, dir, func(c *Config) { c.CommitlogDir = "commitlog" })
	setupKS(t, n.Executor(), "CREATE TABLE ks.t (pk int PRIMARY KEY, v int)")
	exec(t, n, "INSERT INTO ks.t (pk, v) VALUES (1, 10)")
	logs, err := filepath.Glob(filepath.Join(root, "commitlog", "*.log"))
	if err != nil || len(logs) == 0 {
		t.Fatalf("no commit log in commitlog_directory: %v %v", logs, err)
	}
	if inData, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(inData) != 0 {
		t.Fatalf("commit log in the data directory: %v", inData)
	}
	want := filepath.Join(root, "commitlog")
	if got := n.Config().CommitlogDir; got != want {
		t.Fatalf("Config().CommitlogDir = %q, want %q", got, want)
	}
	opts, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	if len(opts) == 0 {
		t.Fatal("no OPTIONS file")
	}
	if b, err := os.ReadFile(opts[len(opts)-1]); err != nil || !strings.Contains(string(b), "wal_dir="+want+"\n") {
		t.Fatalf("OPTIONS does not record wal_dir=%s (%v):\n%s", want, err, b)
	}
	if err := n.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	n = startNodeWith(t, dir, nil)
	defer n.Shutdown(context.Background())
	res := exec(t, n, "SELECT v FROM ks.t WHERE pk = 1")
	if len(res.Rows) != 1 {
		t.Fatalf("after moving the commit log back: %d rows", len(res.Rows))
	}
}
