package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/crc"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// maxWriteBatch bounds how many queued responses the writer coalesces into
// one write.
const maxWriteBatch = 128

// outItem is one encoded envelope queued for the writer.
type outItem struct {
	buf *[]byte
	// segments, when non-nil, switches the writer to v5 segment framing
	// with this codec after buf (the READY) is written.
	segments *segCodec
}

// conn is one client connection.
//
// Goroutines: the reader (serve) reads envelopes, answers OPTIONS, STARTUP
// and REGISTER itself (they change connection state, so they are processed
// in order) and hands each QUERY/PREPARE/EXECUTE/BATCH to the server's
// worker pool (workers.go), at most MaxInFlightPerConn at a time. Responses
// are queued to a single writer goroutine that coalesces whatever is queued
// into one write.
//
// State written by the reader before READY (version, frameComp) is never
// changed afterwards; request goroutines start after it is set, and event
// broadcasters only see the connection once registeredSchema is stored,
// which happens after READY.
type conn struct {
	srv *Server
	nc  net.Conn
	br  *bufio.Reader
	log *slog.Logger
	max int

	ctx    context.Context
	cancel context.CancelFunc

	// Reader-owned negotiation state.
	version byte // 0 until the first envelope
	ready   bool
	// authPending is set between STARTUP and a successful AUTH_RESPONSE
	// when an authenticator is configured (auth.go).
	authPending bool
	frameComp   compression.Compressor // v3/v4 body compression after READY
	segIn       *segCodec              // v5: non-nil once input is segmented
	pending     []byte                 // v5: rest of a self-contained segment payload

	registeredSchema atomic.Bool
	draining         atomic.Bool

	// listed, stage and requests are what system_views.clients shows of
	// the connection (clients.go): it is listed from its STARTUP on, as
	// Cassandra attaches its ServerConnection then, and requests counts
	// the messages after STARTUP (Dispatcher.processRequest). startup
	// holds the STARTUP options, under sessMu.
	listed   atomic.Bool
	stage    atomic.Uint32
	requests atomic.Int64
	startup  map[string]string

	sessMu sync.Mutex
	sess   query.Session

	metaMu    sync.Mutex
	metaCache map[metaKey][]byte

	sem        chan struct{}
	inflight   sync.WaitGroup
	out        chan outItem
	quit       chan struct{}
	writerDone chan struct{}
}

type metaKey struct {
	first *query.ColumnSpec
	n     int
}

func newConn(s *Server, nc net.Conn) *conn {
	ctx, cancel := context.WithCancel(s.baseCtx)
	return &conn{
		srv:        s,
		nc:         nc,
		br:         bufio.NewReaderSize(nc, 64<<10),
		log:        s.log.With("remote", nc.RemoteAddr().String()),
		max:        s.cfg.MaxFrameSize,
		ctx:        ctx,
		cancel:     cancel,
		sem:        make(chan struct{}, s.cfg.MaxInFlightPerConn),
		out:        make(chan outItem, s.cfg.MaxInFlightPerConn+64),
		quit:       make(chan struct{}),
		writerDone: make(chan struct{}),
	}
}

// beginDrain stops reading new requests; serve then finishes in-flight
// requests, flushes and closes.
func (c *conn) beginDrain() {
	c.draining.Store(true)
	_ = c.nc.SetReadDeadline(time.Now())
}

// forceClose cancels in-flight handler contexts and closes the socket.
func (c *conn) forceClose() {
	c.cancel()
	c.nc.Close()
}

// serve runs the reader loop until the connection ends, then waits for
// in-flight requests, flushes their responses and closes the socket.
func (c *conn) serve() {
	go c.writeLoop()
	defer c.finish()
	for !c.draining.Load() {
		req, err := c.readRequest()
		if err != nil {
			var pe *protocolError
			if errors.As(err, &pe) {
				c.sendError(pe.stream, &cqlerr.Error{Code: cqlerr.ProtocolError, Message: pe.msg})
				if pe.fatal {
					c.log.Debug("closing connection after protocol error", "err", pe.msg)
					return
				}
				continue
			}
			if !errors.Is(err, errCloseConn) && !c.draining.Load() && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.log.Debug("connection read ended", "err", err)
			}
			return
		}
		if !c.dispatch(req) {
			return
		}
	}
}

func (c *conn) finish() {
	c.inflight.Wait()
	close(c.quit)
	<-c.writerDone
	c.nc.Close()
	c.cancel()
}

// errCloseConn ends the reader after a final answer was already queued.
var errCloseConn = errors.New("connection closed by server")

// negotiate reads the first envelope's version. Unsupported versions are
// answered with PROTOCOL_ERROR on the request's stream, in the version the
// client asked for (v1/v2 with their 8-byte header) or, for versions above
// ours, in v5 — as Cassandra's ProtocolVersion.decode does — so drivers
// downgrade; the connection is then closed.
func (c *conn) negotiate() error {
	b, err := c.br.Peek(1)
	if err != nil {
		return err
	}
	v := b[0] & 0x7f
	if v >= 3 && v <= 5 {
		c.version = v
		return nil
	}
	body := appendString(appendInt(nil, int32(cqlerr.ProtocolError)), unsupportedVersionMessage(v))
	bp := getBuf()
	out := (*bp)[:0]
	if v == 1 || v == 2 {
		h, err := c.br.Peek(8)
		if err != nil {
			return err
		}
		out = append(out, 0x80|v, 0, h[2], opError)
	} else {
		h, err := c.br.Peek(headerLen)
		if err != nil {
			return err
		}
		out = append(out, 0x80|5, 0, h[2], h[3], opError)
	}
	out = appendInt(out, int32(len(body)))
	out = append(out, body...)
	*bp = out
	c.queue(outItem{buf: bp})
	return errCloseConn
}

// readRequest reads the next envelope.
func (c *conn) readRequest() (*request, error) {
	if c.segIn != nil {
		return c.readSegmented()
	}
	if c.version == 0 {
		if err := c.negotiate(); err != nil {
			return nil, err
		}
	}
	var hb [headerLen]byte
	if _, err := io.ReadFull(c.br, hb[:]); err != nil {
		return nil, err
	}
	hdr := parseHeader(hb[:])
	if err := c.checkHeader(&hdr); err != nil {
		return nil, err
	}
	if int64(hdr.length) > int64(c.max) {
		// The boundary is known: skip the body and keep the connection.
		if _, err := c.br.Discard(int(hdr.length)); err != nil {
			return nil, err
		}
		return nil, protoErr(hdr.stream, false, "Request is too big: length %d exceeds maximum allowed length %d.", hdr.length, c.max)
	}
	body := make([]byte, hdr.length)
	if _, err := io.ReadFull(c.br, body); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, protoErr(hdr.stream, true, "Truncated frame: expected %d body bytes", hdr.length)
		}
		return nil, err
	}
	if hdr.flags&flagCompressed != 0 {
		if c.frameComp == nil {
			return nil, protoErr(hdr.stream, false, "Received compressed frame but no compression was negotiated")
		}
		d, err := decompressFrame(c.frameComp, body, c.max)
		if err != nil {
			return nil, protoErr(hdr.stream, false, "Cannot decompress frame body: %v", err)
		}
		body = d
	}
	return &request{hdr: hdr, body: body}, nil
}

// checkHeader validates what the frame boundary depends on; failures are
// fatal.
func (c *conn) checkHeader(h *frameHeader) error {
	if h.version != c.version {
		return protoErr(h.stream, true, "Invalid message version. Got %d but previous messages on this connection had version %d", h.version, c.version)
	}
	if h.response {
		return protoErr(h.stream, true, "Invalid message direction: a client must not send responses")
	}
	if h.length < 0 {
		return protoErr(h.stream, true, "Invalid frame body length %d", h.length)
	}
	return nil
}

// readSegmented returns the next envelope of v5 modern framing: either one
// of the envelopes packed in a self-contained segment, or a large envelope
// reassembled from consecutive non-self-contained segments.
func (c *conn) readSegmented() (*request, error) {
	for len(c.pending) == 0 {
		payload, selfContained, err := c.segIn.read(c.br)
		if err != nil {
			return nil, segmentErr(err)
		}
		if selfContained {
			c.pending = payload
			continue
		}
		buf := payload
		total := -1
		for {
			if total < 0 && len(buf) >= headerLen {
				hdr := parseHeader(buf)
				if err := c.checkHeader(&hdr); err != nil {
					return nil, err
				}
				if int64(hdr.length) > int64(c.max) {
					return nil, protoErr(hdr.stream, true, "Request is too big: length %d exceeds maximum allowed length %d.", hdr.length, c.max)
				}
				total = headerLen + int(hdr.length)
			}
			if total >= 0 && len(buf) >= total {
				break
			}
			payload, selfContained, err = c.segIn.read(c.br)
			if err != nil {
				return nil, segmentErr(err)
			}
			if selfContained {
				return nil, protoErr(0, true, "Self-contained segment received while reassembling a multi-segment envelope")
			}
			buf = append(buf, payload...)
		}
		if len(buf) != total {
			return nil, protoErr(parseHeader(buf).stream, true, "Multi-segment envelope has %d trailing bytes", len(buf)-total)
		}
		hdr := parseHeader(buf)
		return &request{hdr: hdr, body: buf[headerLen:total:total]}, nil
	}
	if len(c.pending) < headerLen {
		return nil, protoErr(0, true, "Truncated envelope header in segment")
	}
	hdr := parseHeader(c.pending)
	if err := c.checkHeader(&hdr); err != nil {
		return nil, err
	}
	end := headerLen + int(hdr.length)
	if end > len(c.pending) {
		return nil, protoErr(hdr.stream, true, "Envelope of %d bytes does not fit its self-contained segment", end)
	}
	body := c.pending[headerLen:end:end]
	c.pending = c.pending[end:]
	return &request{hdr: hdr, body: body}, nil
}

// decodeError is the error answering a request that did not decode: a
// CQL error found while decoding as it is, anything else a protocol error
// naming the message.
func decodeError(kind string, err error) *cqlerr.Error {
	var e *cqlerr.Error
	if errors.As(err, &e) {
		return e
	}
	return cqlerr.Protocolf("Invalid %s message: %v", kind, err)
}

// segmentErr keeps I/O errors (connection closed) and turns corruption into
// a fatal protocol error.
func segmentErr(err error) error {
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne) {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return protoErr(0, true, "Truncated segment: %v", err)
	}
	return protoErr(0, true, "Invalid segment: %v", err)
}

// dispatch handles one envelope; it returns false to close the connection.
func (c *conn) dispatch(req *request) bool {
	h := &req.hdr
	if c.ready || c.authPending {
		c.requests.Add(1)
	}
	if h.flags&flagCustomPayload != 0 {
		r := reader{b: req.body}
		r.skipBytesMap()
		if r.err != nil {
			c.sendError(h.stream, cqlerr.Protocolf("Invalid custom payload: %v", r.err))
			return true
		}
		req.body = r.b
	}
	switch h.opcode {
	case opOptions:
		c.sendSupported(h.stream)
	case opStartup:
		c.handleStartup(req)
	case opRegister:
		c.handleRegister(req)
	case opQuery, opPrepare, opExecute, opBatch:
		if !c.ready {
			if c.authPending {
				c.sendError(h.stream, cqlerr.Protocolf("Unexpected message %s, expecting SASL response", opName(h.opcode)))
				return true
			}
			c.sendError(h.stream, cqlerr.Protocolf("Unexpected message %s, expecting STARTUP or OPTIONS", opName(h.opcode)))
			return true
		}
		c.sem <- struct{}{}
		c.inflight.Add(1)
		c.srv.pool.run(c, req)
	case opAuthResponse:
		c.handleAuthResponse(req)
	default:
		c.sendError(h.stream, cqlerr.Protocolf("Unexpected or unknown message %s", opName(h.opcode)))
	}
	return true
}

// decodeLibrary decodes a small control message (STARTUP, REGISTER) with
// the library; their fields are [short]-length-prefixed, so a hostile body
// cannot make it allocate much.
func (c *conn) decodeLibrary(req *request) (message.Message, error) {
	codec := messageCodecs[primitive.OpCode(req.hdr.opcode)]
	return codec.Decode(bytes.NewReader(req.body), primitive.ProtocolVersion(c.version))
}

func (c *conn) sendSupported(stream int16) {
	msg := &message.Supported{Options: map[string][]string{
		"CQL_VERSION":       {c.srv.cfg.CQLVersion},
		"COMPRESSION":       {"lz4", "snappy"},
		"PROTOCOL_VERSIONS": {"3/v3", "4/v4", "5/v5"},
	}}
	c.sendMessage(stream, msg)
}

func (c *conn) handleStartup(req *request) {
	stream := req.hdr.stream
	c.listed.Store(true)
	if c.ready || c.authPending {
		c.sendError(stream, cqlerr.Protocolf("Unexpected message STARTUP: the connection is already initialized"))
		return
	}
	m, err := c.decodeLibrary(req)
	if err != nil {
		c.sendError(stream, cqlerr.Protocolf("Invalid STARTUP message: %v", err))
		return
	}
	opts := m.(*message.Startup).Options
	if _, ok := opts[message.StartupOptionCqlVersion]; !ok {
		c.sendError(stream, cqlerr.Protocolf("Missing value CQL_VERSION in STARTUP message"))
		return
	}
	c.sessMu.Lock()
	c.startup = opts
	c.sessMu.Unlock()
	name := strings.ToUpper(opts[message.StartupOptionCompression])
	comp, ok := compressorFor(name, c.version)
	if !ok {
		c.sendError(stream, cqlerr.Protocolf("Unsupported compression algorithm %q for protocol version %d", strings.ToLower(name), c.version))
		return
	}
	// READY (or AUTHENTICATE) goes out uncompressed and, for v5,
	// unsegmented; the switch happens right after it in both directions.
	var bp *[]byte
	if a := c.srv.cfg.Authenticator; a != nil && a.RequireAuthentication() {
		bp = c.startFrame(stream, opAuthenticate)
		*bp = appendString(*bp, a.AuthenticatorClass())
		c.authPending = true
		c.stage.Store(stageAuthenticating)
	} else {
		bp = c.startFrame(stream, opReady)
		c.ready = true
		c.stage.Store(stageReady)
	}
	c.finishFrame(bp, false)
	it := outItem{buf: bp}
	if c.version >= 5 {
		it.segments = newSegCodec(comp)
		c.segIn = newSegCodec(comp)
	} else {
		c.frameComp = comp
	}
	c.queue(it)
}

func (c *conn) handleRegister(req *request) {
	stream := req.hdr.stream
	if !c.ready {
		c.sendError(stream, cqlerr.Protocolf("Unexpected message REGISTER, expecting STARTUP or OPTIONS"))
		return
	}
	m, err := c.decodeLibrary(req)
	if err != nil {
		c.sendError(stream, cqlerr.Protocolf("Invalid REGISTER message: %v", err))
		return
	}
	for _, t := range m.(*message.Register).EventTypes {
		if t == primitive.EventTypeSchemaChange {
			c.registeredSchema.Store(true)
		}
	}
	bp := c.startFrame(stream, opReady)
	c.finishFrame(bp, true)
	c.queue(outItem{buf: bp})
}

// session returns a snapshot of the connection's session.
func (c *conn) session() query.Session {
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	return c.sess
}

func (c *conn) setKeyspace(ks string) {
	c.sessMu.Lock()
	c.sess.Keyspace = ks
	c.sessMu.Unlock()
}

// handleRequest runs one QUERY/PREPARE/EXECUTE/BATCH on a worker goroutine.
// With the tracing flag, the request runs with a tracing session in its
// context (the query layer records and writes it) and every response to
// it, errors too, carries the session id (Message.Request.execute).
func (c *conn) handleRequest(req *request) {
	r := reply{stream: req.hdr.stream}
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic while handling CQL request", "op", opName(req.hdr.opcode), "panic", p, "stack", string(debug.Stack()))
			c.replyError(r, cqlerr.Serverf("java.lang.RuntimeException: internal error: %v", p))
		}
		<-c.sem
		c.inflight.Done()
	}()
	h := c.srv.h
	sess := c.session()
	ctx := c.ctx
	// startTrace is called once the body decoded: a malformed request
	// gets no tracing session, as in Cassandra, where decoding comes
	// first. A request traced by probability gets no id in its response.
	startTrace := func() {
		requested := req.hdr.flags&flagTracing != 0
		if requested || c.srv.sampleTrace() {
			ts := tracing.New(c.clientIP())
			ts.Requested = requested
			ctx = tracing.NewContext(ctx, ts)
			if requested {
				r.trace = ts.ID[:]
			}
		}
	}
	switch req.hdr.opcode {
	case opQuery:
		var q queryRequest
		if err := decodeQuery(req.body, c.version, &q); err != nil {
			c.sendError(r.stream, decodeError("QUERY", err))
			return
		}
		startTrace()
		res, err := h.Query(ctx, &sess, q.cql, &q.opts)
		c.sendResult(r, res, err, false, nil)
	case opExecute:
		var e executeRequest
		if err := decodeExecute(req.body, c.version, &e); err != nil {
			c.sendError(r.stream, decodeError("EXECUTE", err))
			return
		}
		startTrace()
		res, err := h.Execute(ctx, &sess, e.id, e.resultMetadataID, &e.opts)
		c.sendResult(r, res, err, e.skipMetadata, e.resultMetadataID)
	case opBatch:
		var b query.BatchRequest
		if err := decodeBatch(req.body, c.version, &b); err != nil {
			c.sendError(r.stream, decodeError("BATCH", err))
			return
		}
		startTrace()
		res, err := h.Batch(ctx, &sess, &b)
		c.sendResult(r, res, err, false, nil)
	case opPrepare:
		var p prepareRequest
		if err := decodePrepare(req.body, c.version, &p); err != nil {
			c.sendError(r.stream, decodeError("PREPARE", err))
			return
		}
		startTrace()
		prep, err := h.Prepare(ctx, &sess, p.cql, p.keyspace)
		if err == nil && prep == nil {
			err = cqlerr.Serverf("prepare returned no statement")
		}
		if err != nil {
			c.replyError(r, cqlerr.As(err))
			return
		}
		c.replyMessage(r, preparedResult(prep, c.version))
	}
}

// reply addresses the response to a request: its stream and, for a
// traced request, the tracing session id the response starts with.
type reply struct {
	stream int16
	trace  []byte
}

// clientIP returns the client's address (4 or 16 bytes), or nil when the
// connection is not over IP.
func (c *conn) clientIP() []byte {
	a, ok := c.nc.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return nil
	}
	if ip4 := a.IP.To4(); ip4 != nil {
		return ip4
	}
	return a.IP
}

var voidResult = &query.Result{Kind: query.VoidResult}

// sendResult answers a QUERY/EXECUTE/BATCH. reqMetadataID is the v5 result
// metadata id the client sent with EXECUTE (nil otherwise).
func (c *conn) sendResult(r reply, res *query.Result, err error, skipMetadata bool, reqMetadataID []byte) {
	if err != nil {
		c.replyError(r, cqlerr.As(err))
		return
	}
	if res == nil {
		res = voidResult
	}
	bp := c.startReply(r, opResult)
	b := *bp
	if len(res.Warnings) > 0 && c.version >= 4 {
		b[1] |= flagWarning
		b = appendStringList(b, res.Warnings)
	}
	switch res.Kind {
	case query.VoidResult, 0:
		b = appendInt(b, resultVoid)
	case query.RowsResult:
		if n := rowsResultSize(res); cap(b)-len(b) < n {
			b = append(make([]byte, 0, len(b)+n), b...)
		}
		var newID []byte
		if reqMetadataID != nil && c.version >= 5 && len(res.Columns) > 0 {
			if id := c.metadataID(res.Columns); !bytes.Equal(id, reqMetadataID) {
				newID = id
			}
		}
		b = appendRowsResult(b, res, skipMetadata, newID)
	case query.SetKeyspaceResult:
		b, err = encodeMessage(b, &message.SetKeyspaceResult{Keyspace: res.Keyspace}, c.version)
		if err == nil {
			c.setKeyspace(res.Keyspace)
		}
	case query.SchemaChangeResult:
		if res.SchemaChange == nil {
			err = errors.New("schema change result without a change")
			break
		}
		b, err = encodeMessage(b, schemaChangeResult(res.SchemaChange), c.version)
		if err == nil {
			defer c.srv.BroadcastSchemaChange(res.SchemaChange)
		}
	default:
		err = errors.New("unknown result kind")
	}
	if err != nil {
		*bp = b
		putBuf(bp)
		c.replyError(r, cqlerr.Serverf("cannot encode result: %v", err))
		return
	}
	*bp = b
	c.finishFrame(bp, true)
	c.queue(outItem{buf: bp})
}

// metadataID returns the v5 result metadata id of cols, cached by slice
// identity (result column slices are treated as immutable).
func (c *conn) metadataID(cols []query.ColumnSpec) []byte {
	k := metaKey{first: &cols[0], n: len(cols)}
	c.metaMu.Lock()
	id, ok := c.metaCache[k]
	c.metaMu.Unlock()
	if ok {
		return id
	}
	id = resultMetadataID(cols)
	c.metaMu.Lock()
	if c.metaCache == nil || len(c.metaCache) >= 256 {
		c.metaCache = make(map[metaKey][]byte)
	}
	c.metaCache[k] = id
	c.metaMu.Unlock()
	return id
}

// startFrame takes a buffer and writes a response header for stream.
func (c *conn) startFrame(stream int16, opcode byte) *[]byte {
	return c.startReply(reply{stream: stream}, opcode)
}

// startReply takes a buffer and writes a response header for r and, when
// r is traced, the tracing flag and the session id: the first thing of
// the body, before any warnings.
func (c *conn) startReply(r reply, opcode byte) *[]byte {
	bp := getBuf()
	*bp = append((*bp)[:0], 0x80|c.version, 0, byte(uint16(r.stream)>>8), byte(r.stream), opcode, 0, 0, 0, 0)
	if r.trace != nil {
		(*bp)[1] |= flagTracing
		*bp = append(*bp, r.trace...)
	}
	return bp
}

// finishFrame compresses the body (v3/v4 after READY, when compress) and
// fills in the body length.
func (c *conn) finishFrame(bp *[]byte, compress bool) {
	b := *bp
	if compress && c.frameComp != nil {
		if z, err := c.frameComp.CompressFrame(b[headerLen:]); err == nil {
			b = append(b[:headerLen], z...)
			b[1] |= flagCompressed
		}
	}
	binary.BigEndian.PutUint32(b[5:9], uint32(len(b)-headerLen))
	*bp = b
}

// sendMessage encodes msg with the library and queues it.
func (c *conn) sendMessage(stream int16, msg message.Message) {
	c.replyMessage(reply{stream: stream}, msg)
}

func (c *conn) replyMessage(r reply, msg message.Message) {
	bp := c.startReply(r, byte(msg.GetOpCode()))
	b, err := encodeMessage(*bp, msg, c.version)
	*bp = b
	if err != nil {
		putBuf(bp)
		c.replyError(r, cqlerr.Serverf("cannot encode response: %v", err))
		return
	}
	c.finishFrame(bp, c.ready)
	c.queue(outItem{buf: bp})
}

func (c *conn) sendError(stream int16, e *cqlerr.Error) {
	c.replyError(reply{stream: stream}, e)
}

func (c *conn) replyError(r reply, e *cqlerr.Error) {
	bp := c.startReply(r, opError)
	*bp = appendErrorBody(*bp, e, c.version)
	c.finishFrame(bp, c.ready || c.authPending)
	c.queue(outItem{buf: bp})
}

func (c *conn) pushSchemaEvent(sc *query.SchemaChange) {
	c.sendMessage(-1, schemaChangeEvent(sc))
}

// queue hands an envelope to the writer (dropping it if the writer is gone).
func (c *conn) queue(it outItem) {
	select {
	case c.out <- it:
	case <-c.writerDone:
		putBuf(it.buf)
	}
}

// writeLoop is the single writer: it takes whatever responses are queued
// (up to maxWriteBatch), frames them (v5: packs them into segments) and
// writes them with one syscall. It exits when quit is closed and the queue
// is empty.
//
// Before writing, while at least yieldMinPending other requests of this
// connection are still being handled, it yields the processor once so
// that handlers that are ready to run can finish and queue their
// responses for the same write: under load this turns one write(2) per
// response into one per several (and lets the client read several
// responses per read), for the price of a scheduler round trip. With few
// requests in flight it writes at once: a yield puts the writer behind
// every runnable goroutine (a compaction can hold a processor for a
// 10 ms time slice), which only pays when many responses are coming.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	var (
		items  []outItem
		w      segWriter
		failed bool
	)
	for {
		var it outItem
		select {
		case it = <-c.out:
		case <-c.quit:
			select {
			case it = <-c.out:
			default:
				return
			}
		}
		items = append(items[:0], it)
		items = c.gather(items)
		if len(items) < maxWriteBatch && len(c.sem)-len(items) >= yieldMinPending {
			runtime.Gosched()
			items = c.gather(items)
		}
		if !failed {
			w.reset()
			for _, it := range items {
				w.add(*it.buf)
				if it.segments != nil {
					w.startSegments(it.segments)
				}
			}
			if _, err := c.nc.Write(w.finish()); err != nil {
				failed = true
				c.log.Debug("connection write failed", "err", err)
				c.nc.Close()
			}
		}
		for _, it := range items {
			putBuf(it.buf)
		}
	}
}

// segWriter builds the bytes of one write: envelopes as they are (before
// v5 framing starts) or packed into self-contained segments, one envelope
// after another; envelopes larger than a segment's maximum payload are
// split into non-self-contained segments.
type segWriter struct {
	sc  *segCodec // nil: unframed
	buf []byte
	// open is the offset in buf of the open segment's reserved header
	// (uncompressed codec), or -1.
	open int
	// payload is the open segment's payload (compressing codec).
	payload []byte
}

func (w *segWriter) reset() {
	if cap(w.buf) > 4<<20 {
		w.buf = nil
	}
	w.buf = w.buf[:0]
	w.open = -1
	w.payload = w.payload[:0]
}

// startSegments switches to v5 framing for the envelopes added after.
func (w *segWriter) startSegments(sc *segCodec) {
	w.closeSegment()
	w.sc = sc
}

// segHeaderRoom is the uncompressed segment header plus its CRC24.
const segHeaderRoom = segment.UncompressedHeaderLength + segment.Crc24Length

func (w *segWriter) add(env []byte) {
	const max = segment.MaxPayloadLength
	switch {
	case w.sc == nil:
		w.buf = append(w.buf, env...)
	case len(env) > max:
		w.closeSegment()
		for off := 0; off < len(env); off += max {
			w.buf = w.sc.appendSegment(w.buf, env[off:min(off+max, len(env))], false)
		}
	case w.sc.comp != nil:
		if len(w.payload)+len(env) > max {
			w.closeSegment()
		}
		w.payload = append(w.payload, env...)
	default:
		// Uncompressed: build the payload in place after a reserved
		// header, filled in when the segment is closed.
		if w.open >= 0 && len(w.buf)-w.open-segHeaderRoom+len(env) > max {
			w.closeSegment()
		}
		if w.open < 0 {
			w.open = len(w.buf)
			w.buf = append(w.buf, make([]byte, segHeaderRoom)...)
		}
		w.buf = append(w.buf, env...)
	}
}

func (w *segWriter) closeSegment() {
	if w.sc == nil {
		return
	}
	if w.open >= 0 {
		payload := w.buf[w.open+segHeaderRoom:]
		putSegmentHeader(w.buf[w.open:w.open+segHeaderRoom], len(payload), true)
		w.buf = binary.LittleEndian.AppendUint32(w.buf, crc.ChecksumIEEE(payload))
		w.open = -1
	}
	if len(w.payload) > 0 {
		w.buf = w.sc.appendSegment(w.buf, w.payload, true)
		w.payload = w.payload[:0]
	}
}

// finish closes the open segment and returns the bytes to write.
func (w *segWriter) finish() []byte {
	w.closeSegment()
	return w.buf
}

// yieldMinPending is how many of the connection's requests must still be
// running for the writer to yield before writing (see writeLoop).
const yieldMinPending = 8

// gather appends the queued items without blocking.
func (c *conn) gather(items []outItem) []outItem {
	for len(items) < maxWriteBatch {
		select {
		case it := <-c.out:
			items = append(items, it)
		default:
			return items
		}
	}
	return items
}
