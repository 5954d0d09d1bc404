package transport

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqld/cqld/internal/query"
)

// Handler is what the server needs from the query layer. Every method may be
// called concurrently, from many worker goroutines (one request at a time
// each).
//
// sess is a per-request snapshot of the connection's session: the handler may
// read it but changes to it are not kept. A SetKeyspace result is applied to
// the connection's session by the transport once the response is produced.
//
// Byte slices in opts (values, paging state), in id and in resultMetadataID
// alias the request's frame body; they stay valid after the call returns (the
// transport never reuses request buffers), so the handler may retain them.
//
// A *cqlerr.Error return is sent as the matching ERROR message with its
// payload; any other error becomes a ServerError. A panic is recovered,
// logged and answered as a ServerError on that stream.
type Handler interface {
	Query(ctx context.Context, sess *query.Session, cql string, opts *query.Options) (*query.Result, error)
	Prepare(ctx context.Context, sess *query.Session, cql string, keyspace string) (*query.Prepared, error)
	Execute(ctx context.Context, sess *query.Session, id []byte, resultMetadataID []byte, opts *query.Options) (*query.Result, error)
	Batch(ctx context.Context, sess *query.Session, b *query.BatchRequest) (*query.Result, error)
}

// Config configures a Server. The zero value is usable.
type Config struct {
	// Logger receives connection-level events; nil means slog.Default().
	Logger *slog.Logger
	// MaxFrameSize bounds the body length of a request frame (after
	// decompression). Cassandra 5.0's native_transport_max_frame_size is
	// 16 MiB, which is the default.
	MaxFrameSize int
	// CQLVersion is announced in SUPPORTED; default "3.4.7".
	CQLVersion string
	// MaxInFlightPerConn caps the requests a connection processes at once;
	// the reader stops reading when the cap is reached (back-pressure).
	// Default 1024.
	MaxInFlightPerConn int
	// MaxConns caps concurrent connections (0: unlimited). Further
	// connections are closed right after accept.
	MaxConns int
	// Authenticator, when set and requiring authentication, makes clients
	// log in with SASL PLAIN after STARTUP (auth.go).
	Authenticator Authenticator
}

// Authenticator checks logins (internal/auth's PasswordAuthenticator).
type Authenticator interface {
	RequireAuthentication() bool
	AuthenticatorClass() string
	// Authenticate returns the role name, or a BadCredentials error.
	Authenticate(ctx context.Context, user, password string) (string, error)
}

const (
	defaultMaxFrameSize = 16 << 20
	defaultCQLVersion   = "3.4.7"
	defaultMaxInFlight  = 1024
)

func (c *Config) withDefaults() Config {
	out := *c
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	if out.MaxFrameSize <= 0 {
		out.MaxFrameSize = defaultMaxFrameSize
	}
	if out.CQLVersion == "" {
		out.CQLVersion = defaultCQLVersion
	}
	if out.MaxInFlightPerConn <= 0 {
		out.MaxInFlightPerConn = defaultMaxInFlight
	}
	return out
}

// Server serves the CQL native protocol (v3, v4, v5) over accepted
// connections, dispatching requests to a Handler.
type Server struct {
	cfg     Config
	h       Handler
	log     *slog.Logger
	baseCtx context.Context
	cancel  context.CancelFunc

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	addr      net.Addr
	shutdown  atomic.Bool
	connWG    sync.WaitGroup

	pool workerPool

	// traceProbability holds the float64 bits of the probability of
	// tracing a request that did not ask for it (nodetool
	// settraceprobability; 0, the default, traces none).
	traceProbability atomic.Uint64
}

// SetTraceProbability sets the probability, between 0 and 1, of tracing
// a request that did not ask for it, as StorageService does. Such a
// request is traced into system_traces, but its response carries no
// tracing id.
func (s *Server) SetTraceProbability(p float64) {
	s.traceProbability.Store(math.Float64bits(p))
}

// TraceProbability returns what SetTraceProbability set.
func (s *Server) TraceProbability() float64 {
	return math.Float64frombits(s.traceProbability.Load())
}

// sampleTrace decides whether to trace a request that did not ask for it
// (StorageService.shouldTraceProbablistically).
func (s *Server) sampleTrace() bool {
	p := s.TraceProbability()
	return p != 0 && rand.Float64() < p
}

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("transport: server closed")

// NewServer returns a server that dispatches to h.
func NewServer(cfg Config, h Handler) *Server {
	c := cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:       c,
		h:         h,
		log:       c.Logger,
		baseCtx:   ctx,
		cancel:    cancel,
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
	}
	s.pool.handle = (*conn).handleRequest
	return s
}

// Addr returns the address of the most recent listener passed to Serve, or
// nil before Serve is called.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Serve accepts connections on ln until Shutdown or a permanent accept error.
// It always closes ln; after Shutdown it returns ErrServerClosed.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutdown.Load() {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.addr = ln.Addr()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.shutdown.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("cql accept error; retrying", "err", err, "backoff", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		s.mu.Lock()
		if s.shutdown.Load() || (s.cfg.MaxConns > 0 && len(s.conns) >= s.cfg.MaxConns) {
			s.mu.Unlock()
			nc.Close()
			continue
		}
		c := newConn(s, fastConn(nc))
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.connWG.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Shutdown stops accepting connections, stops reading new requests, lets
// in-flight requests finish and flushes their responses, then closes every
// connection. When ctx ends first, the remaining connections are closed
// forcibly (handler contexts are cancelled) and ctx.Err() is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown.Store(true)
	for ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.beginDrain()
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.cancel()
		s.pool.stop()
		return nil
	case <-ctx.Done():
		s.cancel()
		s.mu.Lock()
		for c := range s.conns {
			c.forceClose()
		}
		s.mu.Unlock()
		<-done
		s.pool.stop()
		return ctx.Err()
	}
}

// BroadcastSchemaChange pushes an EVENT SCHEMA_CHANGE (stream -1) to every
// connection that REGISTERed for SCHEMA_CHANGE. It does not wait for the
// events to be written.
func (s *Server) BroadcastSchemaChange(sc *query.SchemaChange) {
	if sc == nil {
		return
	}
	s.mu.Lock()
	targets := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		if c.registeredSchema.Load() {
			targets = append(targets, c)
		}
	}
	s.mu.Unlock()
	for _, c := range targets {
		c.pushSchemaEvent(sc)
	}
}
