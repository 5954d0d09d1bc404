// Command cqld-bench is cqld's load harness: YCSB core workloads and the
// seeds' time-series and wide-partition workloads over gocql v2, the
// benchmark-only ceiling server, a startup probe, and the results table.
// scripts/bench.sh drives it; docs/benchmarks.md records what it measured.
//
//	cqld-bench run      [flags]            run one workload, print progress, write JSON
//	cqld-bench ceiling  --listen ADDR      serve the in-memory protocol ceiling
//	cqld-bench startup  --addr A -- CMD... time exec to first answered query, idle RSS
//	cqld-bench table    FILE...            print the results table (markdown)
//	cqld-bench cql      --port P STMT...   execute statements (setup for scripts/ycsb.sh)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/cqld/cqld/bench"
	"github.com/cqld/cqld/bench/ceiling"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(ctx, os.Args[2:])
	case "ceiling":
		err = ceilingCmd(ctx, os.Args[2:])
	case "startup":
		err = startupCmd(ctx, os.Args[2:])
	case "table":
		err = tableCmd(os.Args[2:])
	case "cql":
		err = cqlCmd(ctx, os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cqld-bench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: cqld-bench run|ceiling|startup|table|cql [flags]; cqld-bench CMD -h for flags")
	os.Exit(2)
}

// clientGCPercent is the load generator's GOGC (unless GOGC is set). Its
// live heap is a few MB, so at the default of 100 it collected 20+ times a
// second at 20,000 ops/s, and its collection pauses were counted in the
// servers' latencies: at 1000 the ceiling's open-loop p99 at 20,000/s went
// from 2.6-3.3 ms to 1.9-2.3 ms (docs/benchmarks.md).
const clientGCPercent = 1000

func runCmd(ctx context.Context, args []string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(clientGCPercent)
	}
	cfg := bench.DefaultConfig()
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	hosts := fs.String("hosts", "127.0.0.1", "comma-separated contact points (host or host:port)")
	fs.IntVar(&cfg.Port, "port", cfg.Port, "native port for hosts given without one")
	fs.StringVar(&cfg.Label, "label", cfg.Label, `server label in results ("ceiling" is the ratio's denominator)`)
	fs.StringVar(&cfg.Workload, "workload", cfg.Workload, "workload: "+strings.Join(bench.Workloads, ", "))
	fs.StringVar(&cfg.Keyspace, "keyspace", cfg.Keyspace, "keyspace (created with SimpleStrategy RF 1)")
	fs.Int64Var(&cfg.RecordCount, "records", cfg.RecordCount, "YCSB records / wide-partition rows")
	fs.IntVar(&cfg.FieldCount, "fields", cfg.FieldCount, "YCSB fields per record")
	fs.IntVar(&cfg.ValueSize, "value-size", cfg.ValueSize, "bytes per field (YCSB) or per row (slice)")
	fs.Int64Var(&cfg.Partitions, "partitions", cfg.Partitions, "partitions of the wide-partition table")
	fs.IntVar(&cfg.Sensors, "sensors", cfg.Sensors, "sensors of the time-series workload")
	fs.BoolVar(&cfg.Load, "load", false, "load the records first (closed loop, reported as phase \"load\")")
	fs.BoolVar(&cfg.LoadOnly, "load-only", false, "only load")
	fs.IntVar(&cfg.Connections, "connections", cfg.Connections, "connections per host")
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "requests in flight at most (one goroutine each)")
	fs.Float64Var(&cfg.Rate, "rate", 0, "open loop at this many ops/s in total (0: closed loop)")
	rateFrom := fs.String("rate-from", "", "open loop at --rate-fraction of the closed-loop ops/s recorded in this result file")
	rateFraction := fs.Float64("rate-fraction", 0.5, "fraction of the peak for --rate-from")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "measured duration")
	fs.DurationVar(&cfg.Warmup, "warmup", cfg.Warmup, "unmeasured warmup before it")
	fs.DurationVar(&cfg.Progress, "progress", cfg.Progress, "progress line interval (0: none)")
	fs.StringVar(&cfg.Consistency, "consistency", cfg.Consistency, "consistency level")
	fs.IntVar(&cfg.ProtoVersion, "protocol", 0, "native protocol version (0: negotiate)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout")
	fs.DurationVar(&cfg.WriteCoalesce, "write-coalesce", 0, "gocql WriteCoalesceWaitTime: hold each request this long to write it with the next ones (0: write at once)")
	fs.IntVar(&cfg.ServerPID, "server-pid", 0, "server process to sample for CPU and RSS (/proc)")
	out := fs.String("json", "", "write the results (a JSON array) to this file; - for stdout")
	cpuProfile := fs.String("cpuprofile", "", "write the load generator's CPU profile to this file")
	_ = fs.Parse(args)
	cfg.Hosts = strings.Split(*hosts, ",")
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	cfg.Log = os.Stderr
	if *rateFrom != "" {
		rs, err := bench.ReadResults(*rateFrom)
		if err != nil {
			return err
		}
		peak := bench.PeakRate(rs, cfg.Label, cfg.Workload)
		if peak == 0 {
			return fmt.Errorf("no closed-loop %s result for %s in %s", cfg.Workload, cfg.Label, *rateFrom)
		}
		cfg.Rate = peak * *rateFraction
	}
	results, err := bench.Run(ctx, cfg)
	for _, r := range results {
		fmt.Fprintf(os.Stderr, "[%s %s %s] done: %.0f ops/s over %.1fs, %d errors, p50 %.2fms p99 %.2fms p99.9 %.2fms max %.1fms\n",
			r.Label, r.Workload, r.Phase, r.OpsPerSec, r.Seconds, r.Errors,
			float64(r.Latency.P50)/1000, float64(r.Latency.P99)/1000, float64(r.Latency.P999)/1000, float64(r.Latency.Max)/1000)
	}
	if *out != "" && len(results) > 0 {
		b, jerr := json.MarshalIndent(results, "", "  ")
		if jerr != nil {
			return jerr
		}
		b = append(b, '\n')
		if *out == "-" {
			_, jerr = os.Stdout.Write(b)
		} else {
			jerr = os.WriteFile(*out, b, 0o644)
		}
		if jerr != nil {
			return jerr
		}
	}
	return err
}

func ceilingCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ceiling", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:9043", "address to listen on (port 0 picks one)")
	_ = fs.Parse(args)
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := ceiling.Start(*listen, log)
	if err != nil {
		return err
	}
	log.Info("ceiling ready for CQL clients", "native_address", s.Addr().String())
	select {
	case <-ctx.Done():
		log.Info("ceiling stopping")
		return s.Close()
	case err := <-s.Done():
		return err
	}
}

func startupCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("startup", flag.ExitOnError)
	addr := fs.String("addr", "", "host:port the command makes the server listen on")
	idle := fs.Duration("idle", 2*time.Second, "idle time after the first answer before sampling RSS")
	out := fs.String("json", "", "write the result as JSON to this file")
	_ = fs.Parse(args)
	argv := fs.Args()
	if *addr == "" || len(argv) == 0 {
		return errors.New("usage: cqld-bench startup --addr HOST:PORT [--idle D] [--json FILE] -- COMMAND ARGS...")
	}
	res, err := bench.MeasureStartup(ctx, argv, *addr, *idle)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "startup: first answered query after %.1f ms; idle RSS %.1f MB (at %.0f ms)\n",
		res.FirstQueryMS, float64(res.IdleRSSBytes)/(1<<20), res.IdleAfterMS)
	if *out != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*out, append(b, '\n'), 0o644)
	}
	return nil
}

func tableCmd(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: cqld-bench table RESULT.json...")
	}
	rs, err := bench.ReadResults(args...)
	if err != nil {
		return err
	}
	bench.WriteTable(os.Stdout, rs)
	return nil
}

func cqlCmd(ctx context.Context, args []string) error {
	cfg := bench.DefaultConfig()
	fs := flag.NewFlagSet("cql", flag.ExitOnError)
	hosts := fs.String("hosts", "127.0.0.1", "comma-separated contact points")
	fs.IntVar(&cfg.Port, "port", cfg.Port, "native port")
	_ = fs.Parse(args)
	cfg.Hosts, cfg.Connections = strings.Split(*hosts, ","), 1
	s, err := bench.Connect(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	for _, stmt := range fs.Args() {
		if err := s.Query(stmt).ExecContext(ctx); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}
