package admin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/query"
)

// startNode starts a node with its admin port on a random port and the
// admin API registered.
func startNode(t *testing.T) (*node.Node, []string) {
	t.Helper()
	cfg := node.DefaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.NativePort = 0
	cfg.AdminPort = 0
	n, err := node.Start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Shutdown(ctx)
	})
	Register(n)
	addr := n.AdminAddr().(*net.TCPAddr)
	return n, []string{"-h", addr.IP.String(), "-p", strconv.Itoa(addr.Port)}
}

func cql(t *testing.T, n *node.Node, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := n.Executor().Query(context.Background(), &query.Session{}, s, &query.Options{Consistency: 1}); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// run runs nodetool and returns its output; it fails the test on a non-zero
// exit unless wantFail.
func run(t *testing.T, opts []string, wantFail bool, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Nodetool(context.Background(), append(append([]string(nil), opts...), args...), &out, &errOut)
	if (code != 0) != wantFail {
		t.Fatalf("nodetool %s: exit %d, stdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}

func wantLines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(`(?m)` + p).MatchString(out) {
			t.Errorf("output does not match %q:\n%s", p, out)
		}
	}
}

func TestNodetool(t *testing.T) {
	n, opts := startNode(t)
	cql(t, n,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH gc_grace_seconds = 0",
		"CREATE TABLE ks.u (k int PRIMARY KEY, v int)")
	for pk := 0; pk < 10; pk++ {
		for ck := 0; ck < 5; ck++ {
			cql(t, n, fmt.Sprintf("INSERT INTO ks.t (pk, ck, v) VALUES (%d, %d, 'value %d')", pk, ck, ck))
		}
	}
	cql(t, n, "SELECT * FROM ks.t WHERE pk = 1")

	out, _ := run(t, opts, false, "version")
	wantLines(t, out, `^ReleaseVersion: 5\.0\.\d+$`)

	out, _ = run(t, opts, false, "status")
	wantLines(t, out, `^Datacenter: datacenter1$`, `^=+$`, `^Status=Up/Down$`,
		`^--  Address +Load +Tokens +Owns \(effective\) +Host ID +Rack$`,
		`^UN  127\.0\.0\.1 +[0-9.]+ (bytes|KiB|MiB) +16 +100\.0% +[0-9a-f-]{36} +rack1$`)

	out, _ = run(t, opts, false, "info")
	wantLines(t, out, `^ID +: [0-9a-f-]{36}$`, `^Native Transport active: true$`, `^Load +: `,
		`^Uptime \(seconds\) +: \d+$`, `^Data Center +: datacenter1$`, `^Token +: \(invoke with -T/--tokens to see all 16 tokens\)$`,
		`^Row Cache +: entries \d+, size [0-9.]+ (bytes|KiB|MiB), capacity [0-9.]+ MiB, \d+ hits, \d+ requests, ([0-9.]+|NaN) recent hit rate, 0 save period in seconds$`)

	run(t, opts, false, "flush")
	run(t, opts, false, "flush", "ks", "t", "u")
	run(t, opts, false, "compact", "ks", "t")

	out, _ = run(t, opts, false, "tablestats", "ks.t")
	wantLines(t, out, `^Total number of tables: 1$`, `^Keyspace : ks$`, `^\t\tTable: t$`,
		`^\t\tSSTable count: [1-9]\d*$`, `^\t\tSpace used \(live\): [1-9]\d*$`,
		`^\t\tNumber of partitions \(estimate\): 10$`,
		`^\t\tCompacted partition maximum bytes: [1-9]\d*$`,
		`^\t\tLocal read count: 1$`, `^\t\tLocal write count: 50$`,
		`^\t\tAverage live cells per slice \(last five minutes\): 5\.0$`)
	out, _ = run(t, opts, false, "tablestats", "ks")
	wantLines(t, out, `^Total number of tables: 2$`, `^\t\tTable: u$`)

	for _, args := range [][]string{{"tablehistograms", "ks", "t"}, {"tablehistograms", "ks.t"}} {
		out, _ = run(t, opts, false, args...)
		wantLines(t, out, `^ks/t histograms$`,
			`^Percentile +Read Latency +Write Latency +SSTables +Partition Size +Cell Count$`,
			`^ +\(micros\) +\(micros\) +\(bytes\)`,
			// 10 partitions of 5 rows: a marker and a cell per row.
			`^50% +[0-9.]+ +[0-9.]+ +[0-9.]+ +\d+ +10$`, `^Max +[0-9.]+ +[0-9.]+ +[0-9.]+ +\d+ +10$`)
	}

	// garbagecollect purges tombstones past gc_grace_seconds (0 here).
	cql(t, n, "DELETE FROM ks.t WHERE pk = 1")
	time.Sleep(1100 * time.Millisecond)
	run(t, opts, false, "garbagecollect", "ks", "t")
	out, _ = run(t, opts, false, "tablestats", "ks.t")
	wantLines(t, out, `^\t\tNumber of partitions \(estimate\): 9$`, `^\t\tDroppable tombstone ratio: 0\.00000$`)

	// settraceprobability/gettraceprobability (Java's Double.toString).
	out, _ = run(t, opts, false, "gettraceprobability")
	wantLines(t, out, `^Current trace probability: 0\.0$`)
	run(t, opts, false, "settraceprobability", "0.0001")
	out, _ = run(t, opts, false, "gettraceprobability")
	wantLines(t, out, `^Current trace probability: 1\.0E-4$`)
	if p := n.TraceProbability(); p != 0.0001 {
		t.Errorf("trace probability %v after settraceprobability 0.0001", p)
	}
	_, errOut := run(t, opts, true, "settraceprobability", "1.1")
	wantLines(t, errOut, `^nodetool: Trace probability must be between 0 and 1$`, `^See 'nodetool help'`)
	_, errOut = run(t, opts, true, "settraceprobability", "adadad")
	wantLines(t, errOut, `^nodetool: trace_probability: can not convert "adadad" to a Double$`)
	_, errOut = run(t, opts, true, "settraceprobability")
	wantLines(t, errOut, `^nodetool: Required parameters are missing: trace_probability$`)
	run(t, opts, false, "settraceprobability", "0")

	// Errors, as nodetool reports them.
	_, errOut = run(t, opts, true, "flush", "nosuch")
	wantLines(t, errOut, `^nodetool: Keyspace \[nosuch\] does not exist\.$`)
	_, errOut = run(t, opts, true, "tablestats", "ks.nosuch")
	wantLines(t, errOut, `^nodetool: Unknown keyspace/cf pair \(ks\.nosuch\)$`)
	_, errOut = run(t, opts, true, "tablehistograms", "ks")
	wantLines(t, errOut, `requires keyspace and table`)
	_, errOut = run(t, opts, true, "frobnicate")
	wantLines(t, errOut, `^nodetool: Found unexpected parameters: \[frobnicate\]$`, `^See 'nodetool help'`)
	_, errOut = run(t, []string{"-h", "127.0.0.1", "-p", "1"}, true, "status")
	wantLines(t, errOut, `^nodetool: Failed to connect to '127\.0\.0\.1:1'`)

	// drain: clients can no longer connect; the admin port still answers.
	run(t, opts, false, "drain")
	if c, err := net.DialTimeout("tcp", n.NativeAddr().String(), time.Second); err == nil {
		c.Close()
		t.Fatal("native port still accepts connections after drain")
	}
	out, _ = run(t, opts, false, "info")
	wantLines(t, out, `^Native Transport active: false$`)
}

func TestHumanBytes(t *testing.T) {
	for v, want := range map[float64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 106687: "104.19 KiB", 1.5 * (1 << 20): "1.5 MiB"} {
		if got := humanBytes(v); got != want {
			t.Errorf("humanBytes(%v) = %q, want %q", v, got, want)
		}
	}
}
