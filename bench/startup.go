package bench

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// StartupResult is how long a server took from exec to its first answered
// query, and its resident set when idle afterwards.
type StartupResult struct {
	Command        []string `json:"command"`
	FirstQueryMS   float64  `json:"first_query_ms"`
	IdleRSSBytes   int64    `json:"idle_rss_bytes"`
	IdleAfterMS    float64  `json:"idle_after_ms"`
	ReleaseVersion string   `json:"release_version"`
}

// MeasureStartup starts argv (which must make the server listen on addr),
// polls addr with a minimal native-protocol client (v4 STARTUP, then
// SELECT release_version FROM system.local) until the query is answered,
// waits idle, samples RSS, then stops the server with SIGTERM.
func MeasureStartup(ctx context.Context, argv []string, addr string, idle time.Duration) (*StartupResult, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr tailBuffer // why it exited, if it does
	cmd.Stdout, cmd.Stderr = nil, &stderr
	// Wait returns this long after the server exits even if a process it
	// left behind still holds its stderr (by then its own output is read).
	cmd.WaitDelay = time.Second
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Wait in the background: a server that exited stays a zombie, which
	// still answers signal 0, until it is waited for. waitErr is set
	// before exited is closed.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
			return
		default:
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	died := func(when string) error {
		return fmt.Errorf("bench: server exited %s (%v): %s", when, waitErr, stderr.String())
	}
	res := &StartupResult{Command: argv}
	deadline := t0.Add(30 * time.Second)
	for {
		v, err := probe(addr)
		if err == nil {
			res.FirstQueryMS = float64(time.Since(t0).Microseconds()) / 1000
			res.ReleaseVersion = v
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("bench: no answer from %s within 30s: %w", addr, err)
		}
		select {
		case <-exited:
			return nil, died("during startup")
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case <-exited:
		return nil, died("while idle")
	case <-time.After(idle):
	}
	res.IdleAfterMS = float64(time.Since(t0).Milliseconds())
	if runtime.GOOS != "linux" {
		return res, nil // no /proc: the RSS stays absent (procstat.go)
	}
	rss, err := readRSS(strconv.Itoa(cmd.Process.Pid))
	if err != nil {
		// A server that died meanwhile (reaped: no /proc entry; a zombie:
		// no VmRSS) is reported as such, not with an RSS of 0; exited
		// closes once Wait has its stderr (WaitDelay at most).
		select {
		case <-exited:
			return nil, died("while idle")
		case <-time.After(2 * cmd.WaitDelay):
			return nil, err
		}
	}
	res.IdleRSSBytes = rss
	return res, nil
}

// probe connects, starts a v4 session and reads release_version.
func probe(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	codec := frame.NewCodec()
	send := func(stream int16, m message.Message) (*frame.Frame, error) {
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, stream, m), c); err != nil {
			return nil, err
		}
		return codec.DecodeFrame(c)
	}
	f, err := send(1, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if err != nil {
		return "", err
	}
	if _, ok := f.Body.Message.(*message.Ready); !ok {
		return "", fmt.Errorf("STARTUP answered with %v", f.Body.Message)
	}
	f, err = send(2, &message.Query{Query: "SELECT release_version FROM system.local WHERE key = 'local'",
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if err != nil {
		return "", err
	}
	rows, ok := f.Body.Message.(*message.RowsResult)
	if !ok || len(rows.Data) != 1 || len(rows.Data[0]) != 1 {
		return "", fmt.Errorf("query answered with %v", f.Body.Message)
	}
	return string(rows.Data[0][0]), nil
}

// tailBuffer keeps the last 4 KiB written to it (a server's log).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	const keep = 4 << 10
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > keep {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-keep:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}
