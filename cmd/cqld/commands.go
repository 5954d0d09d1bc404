package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/cqld/cqld/internal/admin"
	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/query"
	"github.com/spf13/cobra"
)

// Version is the cqld version, set at link time with -ldflags.
var Version = "0.1.0-dev"

// startFlags is the one table of `cqld start` flags (names are an interface:
// scripts and tools depend on them).
var startFlags = struct {
	config        string
	dataDir       string
	commitlogDir  string
	listenAddress string
	nativePort    int
	adminPort     int
	logLevel      string
	pprofAddr     string
}{}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "cqld",
		Short:         "cqld is a Cassandra-compatible wide-column database",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newStartCommand(), newVersionCommand(), newAdviseCommand(), newNodetoolCommand(), newShellCommand())
	return root
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the cqld version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "cqld %s (Cassandra %s compatible, CQL %s, %s)\n",
				Version, query.ReleaseVersion, query.CQLVersion, runtime.Version())
		},
	}
}

func newStartCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Run a cqld node",
		Args:  cobra.NoArgs,
		RunE:  runStart,
	}
	f := cmd.Flags()
	def := node.DefaultConfig()
	f.StringVar(&startFlags.config, "config", "", "YAML configuration file using cassandra.yaml key names")
	f.StringVar(&startFlags.dataDir, "data-dir", def.DataDir, "data directory")
	f.StringVar(&startFlags.commitlogDir, "commitlog-dir", "", "commit log directory (default: inside the data directory); best on a device of its own")
	f.StringVar(&startFlags.listenAddress, "listen-address", def.ListenAddress, "address to listen on")
	f.IntVar(&startFlags.nativePort, "native-port", def.NativePort, "CQL native protocol port")
	f.IntVar(&startFlags.adminPort, "admin-port", def.AdminPort, "admin port (used by cqld nodetool); -1 disables it")
	f.StringVar(&startFlags.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	f.StringVar(&startFlags.pprofAddr, "pprof-addr", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060); empty disables it")
	return cmd
}

func runStart(cmd *cobra.Command, _ []string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(startFlags.logLevel)); err != nil {
		return fmt.Errorf("invalid --log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	started := time.Now()
	cfg := node.DefaultConfig()
	if startFlags.config != "" {
		if err := node.LoadFile(&cfg, startFlags.config, log); err != nil {
			return err
		}
	}
	// Flags given explicitly override the file.
	flags := cmd.Flags()
	if flags.Changed("data-dir") || startFlags.config == "" {
		cfg.DataDir = startFlags.dataDir
	}
	if flags.Changed("commitlog-dir") {
		cfg.CommitlogDir = startFlags.commitlogDir
	}
	if flags.Changed("listen-address") || startFlags.config == "" {
		cfg.ListenAddress = startFlags.listenAddress
		if flags.Changed("listen-address") {
			cfg.RPCAddress = startFlags.listenAddress
		}
	}
	if flags.Changed("native-port") || startFlags.config == "" {
		cfg.NativePort = startFlags.nativePort
	}
	if flags.Changed("admin-port") || startFlags.config == "" {
		cfg.AdminPort = startFlags.adminPort
	}
	if startFlags.pprofAddr != "" {
		stopPprof, err := servePprof(startFlags.pprofAddr, log)
		if err != nil {
			return err
		}
		defer stopPprof()
	}
	n, err := node.Start(cfg, log)
	if err != nil {
		return err
	}
	admin.Register(n) // nodetool's API on the admin port
	c := n.Config()   // as resolved: the directories and cache sizes in use
	log.Info("cqld ready for CQL clients", "native_address", n.NativeAddr().String(),
		"data_dir", c.DataDir, "commitlog_directory", cmp.Or(c.CommitlogDir, c.DataDir), "commitlog_sync", c.CommitlogSync,
		"file_cache_size", fmt.Sprintf("%dMiB", c.FileCacheSize>>20),
		"partition_cache_size", fmt.Sprintf("%dMiB", max(c.PartitionCacheSize, 0)>>20), "startup", time.Since(started).Round(time.Millisecond))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	var serveErr error
	select {
	case s := <-sig:
		log.Info("shutting down", "signal", s.String())
	case serveErr = <-n.Done():
		log.Error("serving failed", "err", serveErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		return err
	}
	log.Info("cqld stopped")
	return serveErr
}

// servePprof serves the net/http/pprof handlers on addr (for profiling under
// load: go tool pprof http://ADDR/debug/pprof/profile). It listens before
// returning so that a bad address fails the start; the returned function
// stops it.
func servePprof(addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Error("pprof server failed", "err", err)
		}
	}()
	log.Info("pprof serving", "pprof_address", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
