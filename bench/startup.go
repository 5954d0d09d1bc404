package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
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
	cmd.Stdout, cmd.Stderr = nil, nil
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
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
		if cmd.ProcessState != nil || (cmd.Process != nil && cmd.Process.Signal(syscall.Signal(0)) != nil) {
			return nil, errors.New("bench: server exited during startup")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(idle)
	res.IdleAfterMS = float64(time.Since(t0).Milliseconds())
	s, err := readProc(cmd.Process.Pid)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, err
	}
	res.IdleRSSBytes = s.rssBytes
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
