package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Config is one benchmark run: which workload, against which server, at
// which load. The zero value is not usable; start from DefaultConfig.
type Config struct {
	// Hosts are host or host:port contact points (loopback only in the
	// scripts); Port applies to hosts without one.
	Hosts []string
	Port  int
	// Label names the server in results ("cqld", "ceiling").
	Label    string
	Workload string
	Keyspace string
	// RecordCount is the number of YCSB records (and of wide-partition rows).
	RecordCount int64
	FieldCount  int
	ValueSize   int   // bytes per field (YCSB) or per row (slice)
	Partitions  int64 // wide-partition workload
	Sensors     int   // time-series workload
	// Load runs the workload's load phase (insert RecordCount records,
	// closed loop) before the measured phase; LoadOnly loads and stops.
	Load, LoadOnly bool
	// Connections per host, and Concurrency = requests in flight at most
	// (one goroutine each).
	Connections int
	Concurrency int
	// Rate > 0 runs open loop at Rate ops/s in total (latency from the
	// intended start, no coordinated omission); 0 runs closed loop.
	Rate     float64
	Duration time.Duration
	Warmup   time.Duration
	// Progress is the interval of progress lines (0: none).
	Progress     time.Duration
	Consistency  string
	ProtoVersion int // 0: negotiate (v5 with gocql v2 and cqld)
	Timeout      time.Duration
	// WriteCoalesce is gocql's WriteCoalesceWaitTime: how long a
	// connection holds a request to write it together with the ones that
	// follow. 0 (the harness default) writes each at once; gocql's own
	// default is 200 µs (shared/FACTS.md: it caps a closed loop).
	WriteCoalesce time.Duration
	// ServerPID, when > 0, is sampled from /proc for CPU and RSS.
	ServerPID int
	// Log receives progress lines and errors; nil discards them.
	Log io.Writer
}

// DefaultConfig returns the harness defaults (YCSB's record shape: 10
// fields of 100 bytes).
func DefaultConfig() Config {
	return Config{
		Hosts: []string{"127.0.0.1"}, Port: 9042, Label: "server", Workload: "c", Keyspace: "cqld_bench",
		RecordCount: 100_000, FieldCount: 10, ValueSize: 100, Partitions: 100, Sensors: 1000,
		Connections: 2, Concurrency: 64, Duration: 10 * time.Second, Warmup: 2 * time.Second,
		Progress: time.Second, Consistency: "ONE", Timeout: 5 * time.Second,
	}
}

// Latency is a latency distribution summary in microseconds.
type Latency struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_us"`
	P50   int64   `json:"p50_us"`
	P90   int64   `json:"p90_us"`
	P99   int64   `json:"p99_us"`
	P999  int64   `json:"p999_us"`
	Max   int64   `json:"max_us"`
}

func summarize(h *hdrhistogram.Histogram) Latency {
	return Latency{Count: h.TotalCount(), Mean: h.Mean(), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
		P99: h.ValueAtQuantile(99), P999: h.ValueAtQuantile(99.9), Max: h.Max()}
}

// Result is one phase (load or run) of one workload against one server.
type Result struct {
	Label       string             `json:"label"`
	Workload    string             `json:"workload"`
	Phase       string             `json:"phase"` // "load" or "run"
	Start       time.Time          `json:"start"`
	Seconds     float64            `json:"seconds"`
	Ops         int64              `json:"ops"`
	Errors      int64              `json:"errors"`
	OpsPerSec   float64            `json:"ops_per_sec"`
	TargetRate  float64            `json:"target_rate,omitempty"` // open loop
	Concurrency int                `json:"concurrency"`
	Connections int                `json:"connections"`
	RecordCount int64              `json:"record_count"`
	ValueSize   int                `json:"value_size"`
	Latency     Latency            `json:"latency"`
	PerOp       map[string]Latency `json:"per_op"`
	Server      *ProcStats         `json:"server,omitempty"`
	Client      *ProcStats         `json:"client,omitempty"`
}

// recorder collects latencies of all workers. One mutex is enough: a record
// costs tens of nanoseconds and ops arrive at most ~10^5/s.
type recorder struct {
	mu       sync.Mutex
	perOp    [numOpKinds]*hdrhistogram.Histogram
	all      *hdrhistogram.Histogram
	interval *hdrhistogram.Histogram
	errors   int64
	ivErrors int64
}

const maxLatencyUS = 60_000_000

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, maxLatencyUS, 3) }

func newRecorder() *recorder {
	r := &recorder{all: newHist(), interval: newHist()}
	for i := range r.perOp {
		r.perOp[i] = newHist()
	}
	return r
}

func (r *recorder) record(k opKind, d time.Duration, err error, measured bool) {
	us := min(max(d.Microseconds(), 1), maxLatencyUS)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.ivErrors++
		if measured {
			r.errors++
		}
		return
	}
	_ = r.interval.RecordValue(us)
	if measured {
		_ = r.perOp[k].RecordValue(us)
		_ = r.all.RecordValue(us)
	}
}

// takeInterval returns and resets the interval histogram and error count.
func (r *recorder) takeInterval() (Latency, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := summarize(r.interval)
	e := r.ivErrors
	r.interval.Reset()
	r.ivErrors = 0
	return l, e
}

// Run connects, creates the keyspace and the workload's table, runs the load
// phase when asked, then the measured phase. It returns one Result per phase.
func Run(ctx context.Context, cfg Config) ([]*Result, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Concurrency <= 0 || cfg.Connections <= 0 || cfg.RecordCount <= 0 || cfg.FieldCount <= 0 ||
		cfg.ValueSize <= 0 || cfg.Partitions <= 0 || cfg.Sensors <= 0 {
		return nil, errors.New("bench: concurrency, connections, records, fields, value size, partitions and sensors must be positive")
	}
	cl, err := gocql.ParseConsistencyWrapper(cfg.Consistency)
	if err != nil {
		return nil, err
	}
	session, err := Connect(cfg)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	e := &env{cfg: &cfg, session: session, cl: cl, ks: cfg.Keyspace}
	w, err := newWorkload(e)
	if err != nil {
		return nil, err
	}
	ddl := append([]string{fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = "+
		"{'class': 'SimpleStrategy', 'replication_factor': 1}", cfg.Keyspace)}, w.ddl()...)
	for _, stmt := range ddl {
		if err := session.Query(stmt).ExecContext(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	var results []*Result
	if cfg.Load || cfg.LoadOnly {
		if mk := w.loader(); mk != nil {
			lc := cfg
			lc.Rate, lc.Warmup, lc.Duration = 0, 0, 24*time.Hour
			res, err := runPhase(ctx, &lc, "load", mk)
			if err != nil {
				return results, err
			}
			results = append(results, res)
		}
	}
	if cfg.LoadOnly {
		return results, nil
	}
	res, err := runPhase(ctx, &cfg, "run", w.runner())
	if res != nil {
		results = append(results, res)
	}
	return results, err
}

// Connect opens a gocql session configured as the harness uses it
// (clusterConfig).
func Connect(cfg Config) (*gocql.Session, error) { return clusterConfig(cfg).CreateSession() }

// clusterConfig is gocql's configuration for cfg: token-aware routing, no
// retries, Connections per host, and no write coalescing unless
// cfg.WriteCoalesce asks for it (shared/FACTS.md: gocql's 200 µs default
// caps any server at ~12k ops/s here).
func clusterConfig(cfg Config) *gocql.ClusterConfig {
	hosts := make([]string, len(cfg.Hosts))
	for i, h := range cfg.Hosts {
		if _, _, err := net.SplitHostPort(h); err != nil && cfg.Port > 0 {
			h = net.JoinHostPort(h, strconv.Itoa(cfg.Port))
		}
		hosts[i] = h
	}
	cluster := gocql.NewCluster(hosts...)
	cluster.ProtoVersion = cfg.ProtoVersion
	cluster.NumConns = cfg.Connections
	cluster.WriteCoalesceWaitTime = cfg.WriteCoalesce
	cluster.Timeout = cfg.Timeout
	cluster.ConnectTimeout = 10 * time.Second
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cluster.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0} // an error is a result, not something to hide
	return cluster
}

// runPhase runs cfg.Concurrency workers until the workload is exhausted or
// warmup+duration have passed, recording only what completes after warmup.
func runPhase(ctx context.Context, cfg *Config, phase string, mk func(r *rand.Rand) worker) (*Result, error) {
	rec := newRecorder()
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	deadline := measureFrom.Add(cfg.Duration)
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(cfg.Timeout))
	defer cancel()

	var stop atomic.Bool
	var errLogged atomic.Int32
	var wg sync.WaitGroup
	seed := uint64(start.UnixNano())
	for i := 0; i < cfg.Concurrency; i++ {
		wk := mk(rand.New(rand.NewPCG(seed, uint64(i))))
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var interval time.Duration
			var next time.Time
			if cfg.Rate > 0 {
				// Each worker owns every Concurrency-th slot of the schedule.
				interval = time.Duration(float64(cfg.Concurrency) * float64(time.Second) / cfg.Rate)
				next = start.Add(time.Duration(i) * interval / time.Duration(cfg.Concurrency))
			}
			for !stop.Load() {
				var began time.Time
				if cfg.Rate > 0 {
					if now := time.Now(); now.Before(next) {
						time.Sleep(next.Sub(now))
						// On schedule: timer slack is the client's, not the server's.
						began = time.Now()
					} else {
						// Behind schedule: the op waited for an earlier one; charge
						// the wait (coordinated-omission correction).
						began = next
					}
					next = next.Add(interval)
				} else {
					began = time.Now()
				}
				if began.After(deadline) {
					return
				}
				kind, err := wk.op(ctx)
				if errors.Is(err, errExhausted) {
					return
				}
				end := time.Now()
				if end.After(deadline) {
					return
				}
				if err != nil && errLogged.Add(1) <= 5 {
					fmt.Fprintf(cfg.Log, "[%s %s %s] %s error: %v\n", cfg.Label, cfg.Workload, phase, kind, err)
				}
				rec.record(kind, end.Sub(began), err, !began.Before(measureFrom))
			}
		}(i)
	}

	var srvBegin, cliBegin *procSample
	var peakRSS int64
	sample := func() {
		if cfg.ServerPID > 0 {
			if s, err := readProc(cfg.ServerPID); err == nil {
				peakRSS = max(peakRSS, s.rssBytes)
			}
		}
	}
	begin := func() {
		if cfg.ServerPID > 0 {
			if s, err := readProc(cfg.ServerPID); err == nil {
				srvBegin = &s
			}
		}
		if s, err := readProc(0); err == nil {
			cliBegin = &s
		}
	}
	if cfg.Warmup <= 0 {
		begin()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := cfg.Progress
	if tick <= 0 {
		tick = time.Second
	}
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	warm := cfg.Warmup > 0
	var warmTimer <-chan time.Time
	if warm {
		warmTimer = time.After(cfg.Warmup)
	}
	last := start
loop:
	for {
		select {
		case <-done:
			break loop
		case <-warmTimer:
			begin()
		case now := <-ticker.C:
			sample()
			if cfg.Progress > 0 {
				l, errs := rec.takeInterval()
				secs := now.Sub(last).Seconds()
				tag := ""
				if now.Before(measureFrom) {
					tag = " (warmup)"
				}
				fmt.Fprintf(cfg.Log, "[%s %s %s] %5.1fs %9.0f ops/s  p50 %s  p99 %s  max %s  errors %d%s\n",
					cfg.Label, cfg.Workload, phase, now.Sub(start).Seconds(), float64(l.Count)/secs,
					fmtUS(l.P50), fmtUS(l.P99), fmtUS(l.Max), errs, tag)
			}
			last = now
			if now.After(deadline) {
				stop.Store(true)
			}
		case <-ctx.Done():
			stop.Store(true)
		}
	}
	end := time.Now()
	sample()
	// The measured window ends at the deadline, or earlier when the
	// workload ran out (load phases).
	windowEnd := end
	if windowEnd.After(deadline) {
		windowEnd = deadline
	}
	if windowEnd.Before(measureFrom) {
		windowEnd = measureFrom
	}
	secs := windowEnd.Sub(measureFrom).Seconds()
	res := &Result{
		Label: cfg.Label, Workload: cfg.Workload, Phase: phase, Start: start.UTC(), Seconds: secs,
		Errors: rec.errors, TargetRate: cfg.Rate, Concurrency: cfg.Concurrency, Connections: cfg.Connections,
		RecordCount: cfg.RecordCount, ValueSize: cfg.ValueSize, Latency: summarize(rec.all),
		PerOp: map[string]Latency{},
	}
	res.Ops = res.Latency.Count
	if secs > 0 {
		res.OpsPerSec = float64(res.Ops) / secs
	}
	for k, h := range rec.perOp {
		if h.TotalCount() > 0 {
			res.PerOp[opKind(k).String()] = summarize(h)
		}
	}
	if srvBegin != nil {
		if s, err := readProc(cfg.ServerPID); err == nil {
			res.Server = srvBegin.stats(s, end, peakRSS)
		}
	}
	if cliBegin != nil {
		if s, err := readProc(0); err == nil {
			res.Client = cliBegin.stats(s, end, 0)
		}
	}
	if res.Ops == 0 && rec.errors > 0 {
		return res, fmt.Errorf("bench: %s %s: every operation failed (%d errors)", cfg.Workload, phase, rec.errors)
	}
	return res, nil
}

func fmtUS(us int64) string {
	if us >= 10_000 {
		return fmt.Sprintf("%.0fms", float64(us)/1000)
	}
	return fmt.Sprintf("%.2fms", float64(us)/1000)
}
