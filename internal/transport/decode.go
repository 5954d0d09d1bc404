package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
)

// The request decoders below cover the hot messages (QUERY, EXECUTE, BATCH,
// PREPARE). They exist beside go-cassandra-native-protocol's codecs for two
// reasons: the library allocates a buffer of whatever length a [bytes] or
// [long string] prefix claims before reading it (a 20-byte frame can ask for
// 2 GiB), and it decodes into its own structs that would then be copied into
// query.Options. Here every length is checked against the bytes actually
// present, and values alias the body (no copy). codec_test.go checks them
// against the library's encoders.

// errTruncated is returned when a body ends before a field does.
var errTruncated = errors.New("truncated message body")

// reader decodes native-protocol primitives from a byte slice. After the
// first failure err is set and every further read returns zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b) < n {
		r.fail(errTruncated)
		return false
	}
	return true
}

func (r *reader) byte() byte {
	if !r.need(1) {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) short() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v
}

func (r *reader) int() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

func (r *reader) long() int64 {
	if !r.need(8) {
		return 0
	}
	v := int64(binary.BigEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *reader) raw(n int) []byte {
	if !r.need(n) {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// string reads a [string]: a [short] length and UTF-8 bytes.
func (r *reader) string() string { return r.utf8(r.raw(int(r.short()))) }

// longString reads a [long string].
func (r *reader) longString() string {
	n := r.int()
	if n < 0 {
		r.fail(fmt.Errorf("invalid [long string] length %d", n))
		return ""
	}
	return r.utf8(r.raw(int(n)))
}

// utf8 converts the bytes of a [string] or [long string], which must be
// UTF-8: Cassandra's CBUtil.readString fails the message with a protocol
// error naming the bytes. At most the first 16 KiB are named: an error
// message is a [string] (64 KiB), and a 16 MiB body must not cost 32 MiB
// of hex.
func (r *reader) utf8(b []byte) string {
	if !utf8.Valid(b) {
		r.fail(cqlerr.Protocolf("Cannot decode string as UTF8: '%x'", b[:min(len(b), 16<<10)]))
		return ""
	}
	return string(b)
}

// shortBytes reads [short bytes].
func (r *reader) shortBytes() []byte { return r.raw(int(r.short())) }

// bytes reads [bytes]; a negative length is null.
func (r *reader) bytes() []byte {
	n := r.int()
	if n < 0 {
		return nil
	}
	return r.raw(int(n))
}

// value reads a [value]: null (-1), unset (-2, v4+) or bytes.
func (r *reader) value(version byte) query.Value {
	n := r.int()
	switch {
	case n == -1:
		return query.Value{}
	case n == -2 && version >= 4:
		return query.Value{Unset: true}
	case n < 0:
		r.fail(fmt.Errorf("invalid [value] length %d", n))
		return query.Value{}
	case n == 0:
		if r.err != nil {
			return query.Value{}
		}
		return query.Value{B: []byte{}}
	}
	return query.Value{B: r.raw(int(n))}
}

// skipBytesMap skips a [bytes map] (a request's custom payload).
func (r *reader) skipBytesMap() {
	n := int(r.short())
	for i := 0; i < n && r.err == nil; i++ {
		r.raw(int(r.short()))
		r.bytes()
	}
}

// Query parameter flags (native_protocol_v5.spec 4.1.4).
const (
	qfValues            = 0x0001
	qfSkipMetadata      = 0x0002
	qfPageSize          = 0x0004
	qfPagingState       = 0x0008
	qfSerialConsistency = 0x0010
	qfDefaultTimestamp  = 0x0020
	qfValueNames        = 0x0040
	qfWithKeyspace      = 0x0080
	qfNowInSeconds      = 0x0100
)

// maxConsistency is NODE_LOCAL (0x000B), the highest consistency code
// (the executor refuses it, as Cassandra does by default).
const maxConsistency = 0x000B

func (r *reader) consistency() uint16 {
	c := r.short()
	if r.err == nil && c > maxConsistency {
		r.fail(fmt.Errorf("unknown code %d for a consistency level", c))
	}
	return c
}

func (r *reader) flags(version byte) uint32 {
	if version >= 5 {
		return uint32(r.int())
	}
	return uint32(r.byte())
}

// queryParams decodes <query_parameters> into o and reports skip_metadata.
func (r *reader) queryParams(version byte, o *query.Options) (skipMetadata bool) {
	o.ProtocolVersion = int(version)
	o.Consistency = r.consistency()
	flags := r.flags(version)
	if flags&qfValues != 0 {
		n := int(r.short())
		if r.err == nil && n > 0 {
			o.Values = make([]query.Value, n)
			if flags&qfValueNames != 0 {
				o.Names = make([]string, n)
			}
			for i := 0; i < n && r.err == nil; i++ {
				if o.Names != nil {
					o.Names[i] = r.string()
				}
				o.Values[i] = r.value(version)
			}
		}
	}
	skipMetadata = flags&qfSkipMetadata != 0
	if flags&qfPageSize != 0 {
		o.PageSize = r.int()
	}
	if flags&qfPagingState != 0 {
		o.PagingState = r.bytes()
	}
	r.trailingOptions(o, flags, version)
	return skipMetadata
}

// queryRequest is a decoded QUERY.
type queryRequest struct {
	cql  string
	opts query.Options
}

func decodeQuery(body []byte, version byte, q *queryRequest) error {
	r := reader{b: body}
	q.cql = r.longString()
	r.queryParams(version, &q.opts)
	return r.err
}

// executeRequest is a decoded EXECUTE.
type executeRequest struct {
	id, resultMetadataID []byte
	skipMetadata         bool
	opts                 query.Options
}

func decodeExecute(body []byte, version byte, e *executeRequest) error {
	r := reader{b: body}
	e.id = r.shortBytes()
	if r.err == nil && len(e.id) == 0 {
		return errors.New("EXECUTE missing query id")
	}
	if version >= 5 {
		e.resultMetadataID = r.shortBytes()
	}
	e.skipMetadata = r.queryParams(version, &e.opts)
	return r.err
}

// prepareRequest is a decoded PREPARE.
type prepareRequest struct {
	cql, keyspace string
}

func decodePrepare(body []byte, version byte, p *prepareRequest) error {
	r := reader{b: body}
	p.cql = r.longString()
	if version >= 5 {
		if flags := r.int(); flags&0x01 != 0 {
			p.keyspace = r.string()
		}
	}
	return r.err
}

func decodeBatch(body []byte, version byte, b *query.BatchRequest) error {
	r := reader{b: body}
	b.Type = r.byte()
	if r.err == nil && b.Type > 2 {
		return fmt.Errorf("unknown batch type %d", b.Type)
	}
	n := int(r.short())
	if r.err != nil {
		return r.err
	}
	b.Statements = make([]query.BatchStatement, n)
	for i := 0; i < n && r.err == nil; i++ {
		st := &b.Statements[i]
		switch kind := r.byte(); kind {
		case 0:
			st.Query = r.longString()
		case 1:
			st.ID = r.shortBytes()
		default:
			if r.err == nil {
				return fmt.Errorf("invalid query kind in BATCH messages. Must be 0 or 1 but got %d", kind)
			}
		}
		nv := int(r.short())
		if r.err == nil && nv > 0 {
			st.Values = make([]query.Value, nv)
			for j := 0; j < nv && r.err == nil; j++ {
				st.Values[j] = r.value(version)
			}
		}
	}
	o := &b.Options
	o.ProtocolVersion = int(version)
	o.Consistency = r.consistency()
	flags := r.flags(version)
	if r.err == nil && flags&qfValueNames != 0 {
		return errors.New("alternative syntax for named values in BATCH is not supported")
	}
	r.trailingOptions(o, flags, version)
	return r.err
}

// trailingOptions reads the query parameters QUERY, EXECUTE and BATCH share
// after their own: serial consistency, default timestamp and, on v5, the
// keyspace and now_in_seconds.
func (r *reader) trailingOptions(o *query.Options, flags uint32, version byte) {
	if flags&qfSerialConsistency != 0 {
		o.SerialConsistency = r.consistency()
	}
	if flags&qfDefaultTimestamp != 0 {
		o.Timestamp = r.long()
		o.HasTimestamp = true
	}
	if version >= 5 {
		if flags&qfWithKeyspace != 0 {
			o.Keyspace = r.string()
		}
		if flags&qfNowInSeconds != 0 {
			o.NowInSeconds = r.int()
		}
	}
}
