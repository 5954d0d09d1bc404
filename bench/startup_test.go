package bench_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cqld/cqld/bench"
	"github.com/cqld/cqld/bench/ceiling"
)

// ceilingEnv makes the test binary a ceiling server on the address it
// names (TestMain), for MeasureStartup to start.
const ceilingEnv = "CQLD_BENCH_TEST_CEILING"

func TestMain(m *testing.M) {
	if addr := os.Getenv(ceilingEnv); addr != "" {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		srv, err := ceiling.Start(addr, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			fmt.Fprintln(os.Stderr, "ceiling:", err)
			os.Exit(3)
		}
		<-sig
		srv.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestMeasureStartup(t *testing.T) {
	// A socket bound to a port without listening on it, as the local end
	// of a client connection is: connecting to the port is refused, and
	// a server cannot bind it.
	// Close-on-exec: the `sleep 60` left behind below must not keep it.
	// ForkLock, as package net holds it: no fork between the two calls.
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	closeFD := sync.OnceFunc(func() { syscall.Close(fd) })
	defer closeFD()
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
	argv := []string{os.Args[0], "-test.run=^$"}
	t.Setenv(ceilingEnv, addr)

	// The server exits at once, and the probe says so with the server's
	// own words instead of waiting out its 30 s.
	_, err = bench.MeasureStartup(context.Background(), argv, addr, 0)
	if err == nil || !strings.Contains(err.Error(), "exited during startup") || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("start on a taken port: %v", err)
	}

	// A server that leaves a process behind holding its stderr is still
	// seen to exit (cmd.WaitDelay), long before that process ends or the
	// probe gives up.
	_, err = bench.MeasureStartup(context.Background(), []string{"sh", "-c", "sleep 60 & echo $! gone >&2; exit 1"}, addr, 0)
	m := regexp.MustCompile(`(\d+) gone`).FindStringSubmatch(fmt.Sprint(err))
	if m != nil {
		if pid, _ := strconv.Atoi(m[1]); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if m == nil || !strings.Contains(err.Error(), "exited during startup") {
		t.Fatalf("start that leaves a child behind: %v", err)
	}

	closeFD()
	res, err := bench.MeasureStartup(context.Background(), argv, addr, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstQueryMS <= 0 || res.ReleaseVersion == "" || res.IdleRSSBytes <= 0 {
		t.Fatalf("result %+v", res)
	}
}
