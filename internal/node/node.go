package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqld/cqld/internal/auth"
	"github.com/cqld/cqld/internal/cluster"
	"github.com/cqld/cqld/internal/cluster/ring"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/storage/snapshot"
	"github.com/cqld/cqld/internal/transport"
	"github.com/google/uuid"
)

// Node is a running cqld node.
type Node struct {
	cfg    Config
	log    *slog.Logger
	engine *storage.Pebble
	schema *schema.Manager
	exec   *query.Executor
	// auth is set when an authenticator or authorizer other than
	// Cassandra's AllowAll defaults is configured.
	auth    *auth.Manager
	server  *transport.Server
	ln      net.Listener
	admin   *http.Server
	adminLn net.Listener
	// adminMux serves the admin port; admin.Register adds nodetool's API.
	adminMux *http.ServeMux
	started  time.Time
	drained  atomic.Bool
	info     query.LocalInfo
	done     chan error
	// schemaLoaded is schema, for background work started before it is
	// set.
	schemaLoaded atomic.Pointer[schema.Manager]
	snapshots    *snapshot.Manager
	// stop ends the background work of the node (snapshot expiry).
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// Snapshot expiry runs snapshotExpiryDelay after the start, then every
// snapshotExpiryPeriod (Cassandra's snapshot TTL cleanup: 5 s and 60 s).
const (
	snapshotExpiryDelay  = 5 * time.Second
	snapshotExpiryPeriod = time.Minute
)

// expireSnapshots clears the snapshots whose TTL has passed until the node
// stops.
func (n *Node) expireSnapshots() {
	defer n.wg.Done()
	t := time.NewTimer(snapshotExpiryDelay)
	defer t.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-t.C:
		}
		if cleared, err := n.snapshots.ClearExpired(); err != nil {
			n.log.Warn("clearing expired snapshots", "err", err)
		} else if cleared > 0 {
			n.log.Info(fmt.Sprintf("Cleared %d expired snapshots", cleared))
		}
		t.Reset(snapshotExpiryPeriod)
	}
}

// The node's datacenter and rack (SimpleSnitch's).
const (
	dataCenter = "datacenter1"
	rack       = "rack1"
)

// murmur3 adapts the ring to query.Partitioner.
type murmur3 struct{}

func (murmur3) Token(key []byte) int64 { return ring.Token(key) }

// Start opens storage and starts serving. It returns once the native port
// is accepting connections.
func Start(cfg Config, log *slog.Logger) (*Node, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RPCAddress == "" {
		cfg.RPCAddress = cfg.ListenAddress
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	sopts := storage.Options{Logger: log, SyncPeriod: cfg.CommitlogSyncPeriod, GroupWindow: cfg.CommitlogSyncGroupWindow}
	if cfg.CommitlogDir != "" {
		// Relative to the working directory, as Cassandra's; storage
		// wants it absolute (storage.Options.WALDir), and Config() shows
		// the directory in use.
		dir, err := filepath.Abs(cfg.CommitlogDir)
		if err != nil {
			return nil, fmt.Errorf("commitlog_directory: %w", err)
		}
		cfg.CommitlogDir = dir
		sopts.WALDir = dir
	}
	if cfg.FileCacheSize <= 0 || cfg.PartitionCacheSize == 0 || cfg.PreparedStatementsCacheSize <= 0 {
		mem := physicalMemory()
		if cfg.PreparedStatementsCacheSize <= 0 {
			cfg.PreparedStatementsCacheSize = defaultPreparedStatementsCacheSize(mem)
		}
		if cfg.FileCacheSize <= 0 {
			cfg.FileCacheSize = defaultFileCacheSize(mem)
		}
		if cfg.PartitionCacheSize == 0 {
			cfg.PartitionCacheSize = defaultPartitionCacheSize(mem)
		}
	}
	sopts.CacheSize = cfg.FileCacheSize
	sopts.PartitionCacheSize = cfg.PartitionCacheSize
	switch cfg.CommitlogSync {
	case "batch":
		sopts.SyncMode = storage.SyncBatch
	case "periodic":
		sopts.SyncMode = storage.SyncPeriodic
	default:
		sopts.SyncMode = storage.SyncGroup
	}
	sopts.TombstoneWarnThreshold = cfg.TombstoneWarnThreshold
	sopts.TombstoneFailureThreshold = cfg.TombstoneFailureThreshold
	sopts.PartitionSizeWarnThreshold, sopts.PartitionSizeFailThreshold = cfg.PartitionSizeWarnThreshold, cfg.PartitionSizeFailThreshold
	sopts.PartitionTombstonesWarnThreshold = cfg.PartitionTombstonesWarnThreshold
	sopts.PartitionTombstonesFailThreshold = cfg.PartitionTombstonesFailThreshold
	// Background purge of tombstones past gc_grace_seconds, over the live
	// schema's tables (the schema manager exists once storage is open).
	n := &Node{cfg: cfg, log: log, done: make(chan error, 2), started: time.Now(), stop: make(chan struct{})}
	sopts.PurgeInterval = cfg.PurgeInterval
	sopts.Tables = n.purgeTables
	engine, err := storage.Open(cfg.DataDir, sopts)
	if err != nil {
		return nil, fmt.Errorf("opening storage in %s: %w", cfg.DataDir, err)
	}
	n.engine = engine
	if err := n.start(); err != nil {
		if n.ln != nil {
			n.ln.Close() // start failed after listening
		}
		engine.Close()
		return nil, err
	}
	return n, nil
}

func (n *Node) start() error {
	cfg := n.cfg
	hostID, tokens, err := n.identity()
	if err != nil {
		return err
	}
	n.schema, err = schema.NewManager(n.engine)
	if err != nil {
		return err
	}
	n.schemaLoaded.Store(n.schema)
	listenIP := net.ParseIP(cfg.ListenAddress)
	rpcIP := net.ParseIP(cfg.RPCAddress)
	if listenIP == nil || rpcIP == nil {
		return fmt.Errorf("listen_address and rpc_address must be IP addresses (got %q, %q)", cfg.ListenAddress, cfg.RPCAddress)
	}
	n.ln, err = net.Listen("tcp", net.JoinHostPort(cfg.RPCAddress, strconv.Itoa(cfg.NativePort)))
	if err != nil {
		return fmt.Errorf("listening for CQL clients: %w", err)
	}
	port := n.ln.Addr().(*net.TCPAddr).Port
	n.info = query.LocalInfo{
		ClusterName: cfg.ClusterName, HostID: hostID, DataCenter: dataCenter, Rack: rack,
		ListenAddress: ipBytes(listenIP), RPCAddress: ipBytes(rpcIP), NativePort: port, ListenPort: 7000,
		ReleaseVersion: query.ReleaseVersion, Tokens: tokens, GossipGeneration: int32(time.Now().Unix()),
	}
	n.snapshots = snapshot.New(snapshot.Options{DataDir: cfg.DataDir, Engine: n.engine,
		SchemaCQL: query.SnapshotSchemaCQL, Logger: n.log})
	coord := cluster.NewLocal(n.engine, n.snapshots, n.schema, dataCenter)
	var security query.Security
	if ac := cfg.authConfig(); ac.Enabled() {
		n.auth = auth.New(ac, nil, n.log)
		security = n.auth
	}
	n.exec = query.New(query.Config{
		Security: security,
		Schema:   n.schema, Coordinator: coord, Partitioner: murmur3{}, Node: n, Logger: n.log,
		TableStats:                                 &tableStats{engine: n.engine},
		Runtime:                                    newRuntimeSource(n, coord),
		PersistPreparedStatements:                  true,
		PreparedStatementsCacheSize:                cfg.PreparedStatementsCacheSize,
		AutoSnapshot:                               cfg.AutoSnapshot,
		AutoSnapshotTTL:                            cfg.AutoSnapshotTTL,
		MaterializedViewsEnabled:                   cfg.MaterializedViewsEnabled,
		UserDefinedFunctionsEnabled:                cfg.UserDefinedFunctionsEnabled,
		DefaultSecondaryIndex:                      cfg.DefaultSecondaryIndex,
		RequireIndexImplementation:                 !cfg.DefaultSecondaryIndexEnabled,
		DefaultKeyspaceRF:                          cfg.DefaultKeyspaceRF,
		TraceTTL:                                   int32(cfg.TraceTypeQueryTTL / time.Second),
		DynamicDataMaskingEnabled:                  cfg.DynamicDataMaskingEnabled,
		BatchSizeWarnThreshold:                     cfg.BatchSizeWarnThreshold,
		BatchSizeFailThreshold:                     cfg.BatchSizeFailThreshold,
		UnloggedBatchAcrossPartitionsWarnThreshold: cfg.UnloggedBatchAcrossPartitionsWarnThreshold,
		Guardrails:                                 cfg.Guardrails,
		OnSchemaChange: func(sc *query.SchemaChange) {
			if n.server != nil {
				n.server.BroadcastSchemaChange(sc)
			}
		},
	})
	if n.auth != nil {
		n.auth.SetExecutor(n.exec)
		if err := n.auth.Setup(context.Background()); err != nil {
			return fmt.Errorf("setting up roles: %w", err)
		}
	}
	if loaded, removed, err := n.exec.PreloadPrepared(context.Background()); err != nil {
		return fmt.Errorf("preloading prepared statements: %w", err)
	} else if loaded > 0 || removed > 0 {
		n.log.Info(fmt.Sprintf("Preloaded %d prepared statements", loaded), "removed", removed)
	}
	// Dropped data whose removal a stop interrupted: before serving, so
	// that its ids are free again.
	if removed, err := n.exec.RemoveDropped(context.Background()); err != nil {
		n.log.Warn("removing the data of dropped tables", "removed", removed, "err", err)
	} else if removed > 0 {
		n.log.Info(fmt.Sprintf("Removed the data of %d dropped tables and indexes", removed))
	}
	tcfg := transport.Config{Logger: n.log, CQLVersion: query.CQLVersion}
	if n.auth != nil {
		tcfg.Authenticator = n.auth
	}
	n.server = transport.NewServer(tcfg, n.exec)
	go func() {
		if err := n.server.Serve(n.ln); err != nil && !errors.Is(err, transport.ErrServerClosed) {
			n.done <- err
		}
	}()
	if cfg.AdminPort >= 0 {
		if err := n.startAdmin(); err != nil {
			n.server.Shutdown(context.Background())
			return err
		}
	}
	n.wg.Add(1)
	go n.expireSnapshots()
	return nil
}

// purgeTables returns the stored tables of the current schema and their
// index tables (for the background purge; none before the schema is
// loaded).
func (n *Node) purgeTables() []*schema.Table {
	m := n.schemaLoaded.Load()
	if m == nil {
		return nil
	}
	var out []*schema.Table
	for _, t := range m.Current().Tables(false) {
		if !t.Virtual {
			out = append(out, t)
			// Index tables hold expiring entries (indexed cells' TTLs).
			for _, ix := range t.Indexes {
				out = append(out, ix.Table(t))
			}
		}
	}
	return out
}

// Local implements query.NodeInfo.
func (n *Node) Local() query.LocalInfo { return n.info }

// NativeAddr returns the address CQL clients connect to.
func (n *Node) NativeAddr() *net.TCPAddr { return n.ln.Addr().(*net.TCPAddr) }

// Executor returns the node's query executor (for in-process tools and tests).
func (n *Node) Executor() *query.Executor { return n.exec }

// Done reports fatal serving errors.
func (n *Node) Done() <-chan error { return n.done }

func ipBytes(ip net.IP) []byte {
	if v4 := ip.To4(); v4 != nil {
		return v4
	}
	return ip.To16()
}

// identity loads or creates the persisted host id and tokens.
func (n *Node) identity() (hostID [16]byte, tokens []int64, err error) {
	b, err := n.engine.GetMeta("host_id")
	if err != nil {
		return hostID, nil, err
	}
	if len(b) == 16 {
		copy(hostID[:], b)
	} else {
		hostID = uuid.New()
		if err := n.engine.PutMeta("host_id", hostID[:]); err != nil {
			return hostID, nil, err
		}
	}
	b, err = n.engine.GetMeta("tokens")
	if err != nil {
		return hostID, nil, err
	}
	if b != nil {
		if err := json.Unmarshal(b, &tokens); err != nil {
			return hostID, nil, fmt.Errorf("decoding persisted tokens: %w", err)
		}
	}
	if len(tokens) == 0 {
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		tokens = ring.RandomTokens(r, n.cfg.NumTokens)
		b, _ := json.Marshal(tokens)
		if err := n.engine.PutMeta("tokens", b); err != nil {
			return hostID, nil, err
		}
	}
	return hostID, tokens, nil
}

// startAdmin serves the admin endpoint (`cqld nodetool` talks to it).
func (n *Node) startAdmin() error {
	ln, err := net.Listen("tcp", net.JoinHostPort(n.cfg.ListenAddress, strconv.Itoa(n.cfg.AdminPort)))
	if err != nil {
		return fmt.Errorf("listening on admin port: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"cluster_name":    n.info.ClusterName,
			"host_id":         uuid.UUID(n.info.HostID).String(),
			"release_version": n.info.ReleaseVersion,
			"native_address":  n.ln.Addr().String(),
			"tokens":          n.info.Tokens,
			"schema_version":  n.schema.Current().Version.String(),
		})
	})
	n.adminLn = ln
	n.adminMux = mux
	n.admin = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go n.admin.Serve(ln)
	return nil
}

// HandleAdmin registers h for pattern on the admin port (nothing when the
// admin port is disabled). internal/admin registers nodetool's API with it.
func (n *Node) HandleAdmin(pattern string, h http.Handler) {
	if n.adminMux != nil {
		n.adminMux.Handle(pattern, h)
	}
}

// Engine returns the node's storage engine (for admin commands and tests).
func (n *Node) Engine() *storage.Pebble { return n.engine }

// Logger returns the node's logger.
func (n *Node) Logger() *slog.Logger { return n.log }

// Snapshots returns the node's snapshots.
func (n *Node) Snapshots() *snapshot.Manager { return n.snapshots }

// Schema returns the node's schema manager.
func (n *Node) Schema() *schema.Manager { return n.schema }

// Config returns the node's configuration.
func (n *Node) Config() Config { return n.cfg }

// StartTime returns when the node was started.
func (n *Node) StartTime() time.Time { return n.started }

// SetTraceProbability sets the probability of tracing a request that did
// not ask for it (nodetool settraceprobability).
func (n *Node) SetTraceProbability(p float64) {
	if n.server != nil {
		n.server.SetTraceProbability(p)
	}
}

// TraceProbability returns the probability of tracing a request that did
// not ask for it (nodetool gettraceprobability).
func (n *Node) TraceProbability() float64 {
	if n.server == nil {
		return 0
	}
	return n.server.TraceProbability()
}

// Drained reports whether Drain was called.
func (n *Node) Drained() bool { return n.drained.Load() }

// Drain stops accepting CQL clients, waits for in-flight requests (until
// ctx is done) and flushes storage, as nodetool drain does. The node keeps
// its admin port until Shutdown.
func (n *Node) Drain(ctx context.Context) error {
	if n.drained.Swap(true) {
		return nil
	}
	if err := n.server.Shutdown(ctx); err != nil {
		return err
	}
	return n.engine.Flush()
}

// AdminAddr returns the admin listener's address (nil when disabled).
func (n *Node) AdminAddr() net.Addr {
	if n.adminLn == nil {
		return nil
	}
	return n.adminLn.Addr()
}

// Shutdown stops accepting clients, waits for in-flight requests (until ctx
// is done), flushes and closes storage.
func (n *Node) Shutdown(ctx context.Context) error {
	var errs []error
	if n.admin != nil {
		n.admin.Shutdown(ctx)
	}
	if n.server != nil && !n.drained.Swap(true) {
		if err := n.server.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	n.stopOnce.Do(func() { close(n.stop) })
	n.wg.Wait()
	if err := n.engine.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
