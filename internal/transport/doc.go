// Package transport serves the CQL native protocol (versions 3, 4 and 5, as
// Apache Cassandra 5.0 does) over TCP and hands requests to a Handler (the
// query layer). It owns connections, protocol negotiation, compression, v5
// segment framing, stream multiplexing and server-pushed events. Frames,
// messages, segments and compressors come from
// github.com/datastax/go-cassandra-native-protocol; see "Hand-written
// codecs" for the exceptions.
//
// # Connection life cycle
//
//  1. Negotiation: the first envelope's version byte is peeked. Versions
//     other than 3, 4 and 5 are answered with ERROR PROTOCOL_ERROR
//     "Invalid or unsupported protocol version (N); supported versions are
//     (3/v3, 4/v4, 5/v5)" on the request's stream — v1/v2 in their own
//     8-byte header layout, v6+ in v5 — and the connection is closed, so
//     drivers retry with a lower version. The USE_BETA flag is ignored: v5
//     is final.
//  2. Before READY only OPTIONS (→ SUPPORTED) and STARTUP are accepted.
//     STARTUP's COMPRESSION is upper-cased before lookup (drivers send
//     "lz4"); v5 accepts only LZ4. READY is sent uncompressed and
//     unsegmented; right after it, v3/v4 bodies are compressed (both
//     directions) and v5 switches both directions to segments (CRC24
//     header, CRC32 payload, LZ4 when negotiated). No authenticator yet:
//     STARTUP is answered with READY.
//  3. After READY: REGISTER (→ READY), QUERY, PREPARE, EXECUTE, BATCH.
//
// # Concurrency
//
// One reader goroutine per connection reads envelopes, handles the control
// messages itself (they change connection state and must be ordered) and
// hands each query request to a worker goroutine, at most
// Config.MaxInFlightPerConn at once (the reader blocks beyond that:
// back-pressure). Workers are long-lived and shared by all connections
// (workers.go): a request that reaches storage needs a deep stack, and a
// fresh goroutine per request paid for growing it by copying every time.
// Responses go out in completion order through a single writer goroutine
// per connection that coalesces every queued response into one write (for
// v5, into as few segments as possible); while at least eight other
// requests of the connection are still running it yields once before
// writing, so that responses about to be queued share the write.
// Outgoing envelopes larger than a segment (131071 bytes) are split into
// non-self-contained segments; incoming ones are reassembled by envelope
// length. On Linux the reader and writer read and write TCP sockets with
// raw system calls through the poller (rawsock_linux.go): the runtime's
// syscall state, which net.Conn enters, wakes its sysmon thread after
// every idle spell and cost a moderately loaded server ~10% of its CPU.
//
// The connection's query.Session is guarded by a mutex; each request gets
// a snapshot copy. A SetKeyspace result (USE) updates the connection's
// session when its response is produced. A SchemaChange result is also
// broadcast as EVENT SCHEMA_CHANGE (stream -1) to connections that
// REGISTERed for it.
//
// # Errors
//
// A *cqlerr.Error from the handler is sent as the matching ERROR with its
// payload; other errors become ServerError; handler panics are recovered,
// logged and answered as ServerError on their stream. Malformed bodies are
// answered with PROTOCOL_ERROR on their stream and the connection stays up;
// when the frame boundary is lost (bad header, truncated frame, corrupt
// segment, version change) the error is sent and the connection closed.
// Bodies longer than Config.MaxFrameSize (default 16 MiB, Cassandra 5.0's
// native_transport_max_frame_size) are skipped and refused (v3/v4) or
// close the connection (v5); compressed bodies are checked against it
// before decompression.
//
// # Hand-written codecs
//
// QUERY, EXECUTE, BATCH and PREPARE bodies are decoded by decode.go, and
// RESULT Void/Rows bodies are encoded by encode.go, instead of the
// library: the library allocates whatever length a field claims (a 20-byte
// frame can request 2 GiB) and costs dozens of allocations per request. Bound
// values and paging states alias the request body (never reused). Tests
// check both directions against the library's codecs. Everything else
// (SUPPORTED, READY, ERROR, PREPARED, SET_KEYSPACE, SCHEMA_CHANGE, EVENT,
// STARTUP, REGISTER, compression, CRCs) uses the library. v5 segments are
// framed by segment.go with the library's CRCs and compressors: the
// library's segment codec reads headers a byte at a time through
// io.Reader and allocates a dozen times per segment; tests check ours
// against it in both directions.
//
// # v5 result metadata ids
//
// The transport computes result metadata ids itself (Cassandra's algorithm:
// MD5 over each column's name and AbstractType string) for PREPARED and
// compares them with the id an EXECUTE carries; on mismatch the Rows result
// carries METADATA_CHANGED, the new id and full metadata.
// query.Prepared has no metadata id of its own for that reason. Result column
// slices must not be mutated after being returned (ids are cached by slice
// identity).
package transport
