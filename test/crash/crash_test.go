// Package crash holds the crash-recovery test: a real cqld process is killed
// with SIGKILL while concurrent clients write to it, restarted on the same data
// directory, and every write it acknowledged must be there with its value.
//
// It runs for each commitlog_sync mode that promises durability on
// acknowledgement (group, the default, and batch). It builds the cqld binary,
// listens on loopback only and is bounded in time (about 30 s per mode).
package crash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

const (
	readyLine     = "cqld ready for CQL clients"
	numWriters    = 8
	writeDuration = 2 * time.Second
	rounds        = 2 // kill/restart cycles per mode
	rowsPerBucket = 100
	startTimeout  = 60 * time.Second
	stopTimeout   = 40 * time.Second
)

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test builds and runs cqld processes; skipped with -short")
	}
	bin := buildCqld(t)
	for _, mode := range []string{"group", "batch"} {
		t.Run(mode, func(t *testing.T) { runCrashTest(t, bin, mode) })
	}
}

// buildCqld builds ./cmd/cqld of this module into a temporary directory.
func buildCqld(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	bin := filepath.Join(t.TempDir(), "cqld")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/cqld")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cqld: %v\n%s", err, out)
	}
	return bin
}

func runCrashTest(t *testing.T, bin, mode string) {
	dataDir := filepath.Join(t.TempDir(), "data")
	var config string
	if mode != "group" {
		config = filepath.Join(t.TempDir(), "cqld.yaml")
		if err := os.WriteFile(config, []byte("commitlog_sync: "+mode+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)

	srv := startServer(t, bin, dataDir, config, port)
	if !strings.Contains(srv.logText(), "commitlog_sync="+mode) {
		t.Errorf("server did not report commitlog_sync=%s in its ready line:\n%s", mode, srv.logText())
	}
	sess := connect(t, port)
	for _, q := range []string{
		"CREATE KEYSPACE crash WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE crash.kv (w int, b int, seq int, v text, PRIMARY KEY ((w, b), seq))",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			sess.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}

	acked := make([][]int, numWriters) // acknowledged seqs per writer, over all rounds
	for round := 0; round < rounds; round++ {
		if round > 0 {
			sess = connect(t, port)
		}
		n := writeUntilKilled(t, sess, srv, round, acked)
		sess.Close()
		t.Logf("%s round %d: %d acknowledged writes, then SIGKILL", mode, round, n)
		if t.Failed() {
			return
		}

		srv = startServer(t, bin, dataDir, config, port)
		sess = connect(t, port)
		verify(t, sess, acked, fmt.Sprintf("after SIGKILL %d", round+1))
		sess.Close()
		if t.Failed() {
			return
		}
		// The restarted server takes the next round's writes.
	}

	// A clean shutdown (SIGTERM) must exit 0 and keep everything too.
	srv.stop(t)
	srv = startServer(t, bin, dataDir, config, port)
	sess = connect(t, port)
	verify(t, sess, acked, "after clean restart")
	sess.Close()
	srv.stop(t)
}

// writeUntilKilled runs numWriters concurrent writers for writeDuration, then
// SIGKILLs the server while they are writing. It appends every acknowledged
// seq to acked[w] and returns how many writes were acknowledged.
func writeUntilKilled(t *testing.T, sess *gocql.Session, srv *server, round int, acked [][]int) int {
	t.Helper()
	var killed atomic.Bool
	var total atomic.Int64
	var wg sync.WaitGroup
	roundAcked := make([][]int, numWriters)
	errs := make(chan error, numWriters)
	base := round * 1_000_000 // fresh keys each round
	insert := "INSERT INTO crash.kv (w, b, seq, v) VALUES (?, ?, ?, ?)"
	for w := 0; w < numWriters; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := base; seq < base+1_000_000; seq++ {
				err := sess.Query(insert, w, bucket(seq), seq, value(w, seq)).Exec()
				if err != nil {
					if !killed.Load() {
						errs <- fmt.Errorf("writer %d seq %d before the kill: %w", w, seq, err)
					}
					return
				}
				roundAcked[w] = append(roundAcked[w], seq)
				total.Add(1)
			}
		}()
	}
	time.Sleep(writeDuration)
	killed.Store(true)
	srv.kill(t)

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writers did not stop within 30s of the kill")
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range acked {
		if len(roundAcked[w]) == 0 {
			t.Errorf("writer %d had no write acknowledged in %v", w, writeDuration)
		}
		acked[w] = append(acked[w], roundAcked[w]...)
	}
	return int(total.Load())
}

// verify checks that every acknowledged row is present with its value.
func verify(t *testing.T, sess *gocql.Session, acked [][]int, when string) {
	t.Helper()
	checked, missing, wrong := 0, 0, 0
	var report []string
	for w, seqs := range acked {
		buckets := map[int][]int{}
		for _, seq := range seqs {
			buckets[bucket(seq)] = append(buckets[bucket(seq)], seq)
		}
		keys := make([]int, 0, len(buckets))
		for b := range buckets {
			keys = append(keys, b)
		}
		slices.Sort(keys)
		for _, b := range keys {
			got := map[int]string{}
			iter := sess.Query("SELECT seq, v FROM crash.kv WHERE w = ? AND b = ?", w, b).PageSize(1000).Iter()
			var seq int
			var v string
			for iter.Scan(&seq, &v) {
				got[seq] = v
			}
			if err := iter.Close(); err != nil {
				t.Fatalf("%s: reading partition (w=%d, b=%d): %v", when, w, b, err)
			}
			for _, seq := range buckets[b] {
				checked++
				v, ok := got[seq]
				switch {
				case !ok:
					missing++
					if len(report) < 10 {
						report = append(report, fmt.Sprintf("w=%d b=%d seq=%d missing", w, b, seq))
					}
				case v != value(w, seq):
					wrong++
					if len(report) < 10 {
						report = append(report, fmt.Sprintf("w=%d b=%d seq=%d: v=%q, want %q", w, b, seq, v, value(w, seq)))
					}
				}
			}
		}
	}
	if missing > 0 || wrong > 0 {
		t.Errorf("%s: %d of %d acknowledged rows missing, %d with a wrong value; first ones:\n%s",
			when, missing, checked, wrong, strings.Join(report, "\n"))
	} else {
		t.Logf("%s: all %d acknowledged rows present", when, checked)
	}
}

func bucket(seq int) int { return seq / rowsPerBucket }

// value is the row's value: deterministic, of varying length.
func value(w, seq int) string {
	return fmt.Sprintf("w%d-s%d-%s", w, seq, strings.Repeat("x", seq%97))
}

func connect(t *testing.T, port int) *gocql.Session {
	t.Helper()
	cluster := gocql.NewCluster("127.0.0.1")
	cluster.Port = port
	cluster.Consistency = gocql.One
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.WriteCoalesceWaitTime = 0
	cluster.NumConns = 2
	cluster.Logger = gocql.NewLogger(gocql.LogLevelNone)
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting to 127.0.0.1:%d: %v", port, err)
	}
	return sess
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// server is one cqld process.
type server struct {
	cmd    *exec.Cmd
	out    *logWriter
	exited chan struct{}
	err    error // exit status, valid once exited is closed
}

func startServer(t *testing.T, bin, dataDir, config string, port int) *server {
	t.Helper()
	args := []string{"start", "--data-dir", dataDir, "--listen-address", "127.0.0.1",
		"--native-port", strconv.Itoa(port), "--admin-port", "-1"}
	if config != "" {
		args = append(args, "--config", config)
	}
	s := &server{out: &logWriter{ready: make(chan struct{})}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout = s.out
	s.cmd.Stderr = s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("cqld log (%s):\n%s", strings.Join(args, " "), s.logText())
		}
	})
	select {
	case <-s.out.ready:
	case <-s.exited:
		t.Fatalf("cqld exited before it was ready (%v):\n%s", s.err, s.logText())
	case <-time.After(startTimeout):
		t.Fatalf("cqld not ready after %v:\n%s", startTimeout, s.logText())
	}
	return s
}

func (s *server) logText() string { return s.out.String() }

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		t.Fatal("cqld still running after SIGKILL")
	}
}

// stop sends SIGTERM and expects a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-s.exited:
		if s.err != nil {
			var ee *exec.ExitError
			if errors.As(s.err, &ee) {
				t.Errorf("cqld exited with %v after SIGTERM:\n%s", ee, s.logText())
			} else {
				t.Errorf("cqld: %v", s.err)
			}
		}
	case <-time.After(stopTimeout):
		t.Errorf("cqld did not stop within %v of SIGTERM; killing it", stopTimeout)
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// logWriter collects the server's output and closes ready at the ready line.
type logWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	seen  bool
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.seen && bytes.Contains(l.buf.Bytes(), []byte(readyLine)) {
		l.seen = true
		close(l.ready)
	}
	return len(p), nil
}

func (l *logWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
