package tracing

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Thread names of events, after the Cassandra stages that do the same
// work: cqlsh prints an event as "<activity> [<thread>]".
const (
	// RequestThread runs the statement: parsing, planning, coordination.
	RequestThread = "Native-Transport-Requests-1"
	// ReadThread reads the storage engine.
	ReadThread = "ReadStage-1"
	// MutationThread writes the storage engine.
	MutationThread = "MutationStage-1"
)

// Event is one row of system_traces.events.
type Event struct {
	// ID is a time UUID: the event's time and its order in the session.
	ID       uuid.UUID
	Activity string
	// Elapsed is the time since the session started, in microseconds.
	Elapsed int32
	Thread  string
}

// Session is one traced request: the row of system_traces.sessions and
// its events. Safe for concurrent use.
type Session struct {
	// ID is the tracing session id, a time UUID; the client receives it
	// with the response.
	ID uuid.UUID
	// Client is the client's address (4 or 16 bytes; nil when unknown).
	Client []byte
	// Started is when the request began.
	Started time.Time
	// Requested is set when the client asked for the trace (the
	// protocol's tracing flag) and gets the session id; a session traced
	// by probability (nodetool settraceprobability) is not waited for.
	Requested bool

	mu      sync.Mutex
	begun   bool
	request string
	params  map[string]string
	events  []Event
	// lastTick is the time of the last event id, in 100 ns ticks of the
	// UUID epoch.
	lastTick uint64
}

// New returns a session for a request that starts now.
func New(client []byte) *Session {
	s := &Session{ID: NewTimeUUID(), Client: client, Started: time.Now()}
	if s.ID.Version() == 1 {
		s.lastTick = uint64(s.ID.Time())
	}
	return s
}

// UUIDEpochTicks is the Unix epoch in 100 ns ticks since the UUID epoch
// (1582-10-15): a time UUID's timestamp less it is Unix time.
const UUIDEpochTicks = 0x01B21DD213814000

// NewTimeUUID returns a version 1 UUID of the current time, unique within
// the process.
func NewTimeUUID() uuid.UUID {
	u, err := uuid.NewUUID()
	if err != nil {
		// uuid.NewUUID fails only when no node id can be had, and it
		// falls back to a random one first; keep a random UUID rather
		// than fail the request.
		return uuid.New()
	}
	return u
}

// Begin records what the request is: the request column of
// system_traces.sessions ("Execute CQL3 query", ...) and its parameters
// (the query string, the consistency level, ...). The first call takes
// the session and returns true: its caller ends it. Later calls (the
// node's own statements made while serving the request) return false.
func (s *Session) Begin(request string, params map[string]string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.begun {
		return false
	}
	s.begun, s.request, s.params = true, request, params
	return true
}

// Begun reports whether Begin took the session.
func (s *Session) Begun() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begun
}

// Request returns what Begin recorded.
func (s *Session) Request() (request string, params map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.request, s.params
}

// Add records an event. Its id's time is strictly after the previous
// event's, with the session id's clock sequence and node, as Cassandra's
// TimeUUID generator makes them: ids sort as the events happened (a
// time UUID's tie-break on the clock sequence compares signed bytes, so
// ids that only differ there may not).
func (s *Session) Add(thread, activity string) {
	now := time.Now()
	s.mu.Lock()
	tick := max(uint64(now.UnixNano()/100)+UUIDEpochTicks, s.lastTick+1)
	s.lastTick = tick
	s.events = append(s.events, Event{ID: s.eventID(tick), Activity: activity, Thread: thread, Elapsed: micros(now.Sub(s.Started))})
	s.mu.Unlock()
}

// eventID is the version 1 UUID of tick with the session id's clock
// sequence and node.
func (s *Session) eventID(tick uint64) uuid.UUID {
	var u uuid.UUID
	binary.BigEndian.PutUint32(u[0:], uint32(tick))
	binary.BigEndian.PutUint16(u[4:], uint16(tick>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(tick>>48)&0x0fff|0x1000)
	copy(u[8:], s.ID[8:])
	return u
}

// Events returns the events recorded so far, in order.
func (s *Session) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// Elapsed returns the microseconds since the session started, as the
// duration column stores them.
func (s *Session) Elapsed() int32 {
	return micros(time.Since(s.Started))
}

func micros(d time.Duration) int32 {
	us := d.Microseconds()
	if us > 1<<31-1 {
		return 1<<31 - 1
	}
	return int32(max(us, 0))
}

type sessionKey struct{}

// NewContext returns ctx carrying s.
func NewContext(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// FromContext returns the session of ctx, or nil when the request is not
// traced.
func FromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// Without returns a context in which nothing is traced (for the node's own
// statements made while serving a traced request, such as writing the
// trace).
func Without(ctx context.Context) context.Context {
	if FromContext(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, (*Session)(nil))
}

// Trace adds an event to the request of ctx, if it is traced.
func Trace(ctx context.Context, thread, activity string) {
	if s := FromContext(ctx); s != nil {
		s.Add(thread, activity)
	}
}

// The events of a read, with the texts of Cassandra's
// SinglePartitionReadCommand, PartitionRangeReadCommand and ReadCommand;
// the storage engine and the query layer's system tables both read.

// ReadPartition traces the start of a single-partition read of table.
func ReadPartition(ctx context.Context, table string) {
	if s := FromContext(ctx); s != nil {
		s.Add(ReadThread, "Executing single-partition query on "+table)
	}
}

// ReadRange traces the start of a read of the token range (start, end],
// printed as Cassandra prints the key bounds of a range
// (AbstractBounds.getString): max(t) for a token's keys, and
// min(-9223372036854775808) for the ring's start or end (an end of
// MaxInt64 or MinInt64). cqld cannot count a table's sstables, so
// Cassandra's "across N sstables" is left out.
func ReadRange(ctx context.Context, start, end int64) {
	if s := FromContext(ctx); s != nil {
		const ringEdge = "min(-9223372036854775808)"
		lo, hi := ringEdge, ringEdge
		if start != math.MinInt64 {
			lo = "max(" + strconv.FormatInt(start, 10) + ")"
		}
		if end != math.MaxInt64 && end != math.MinInt64 {
			hi = "max(" + strconv.FormatInt(end, 10) + ")"
		}
		s.Add(ReadThread, "Executing seq scan for ("+lo+", "+hi+"]")
	}
}

// ReadDone traces what a read returned and went through; overWarn marks
// a read past tombstone_warn_threshold.
func ReadDone(ctx context.Context, liveRows, tombstones int64, overWarn bool) {
	if s := FromContext(ctx); s != nil {
		suffix := ""
		if overWarn {
			suffix = " (see tombstone_warn_threshold)"
		}
		s.Add(ReadThread, fmt.Sprintf("Read %d live rows and %d tombstone cells%s", liveRows, tombstones, suffix))
	}
}
