package transport

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	gosnappy "github.com/golang/snappy"
)

// Envelope (frame) header layout for v3+ (spec section 2):
//
//	0         8        16        24        32         40
//	+---------+---------+---------+---------+---------+
//	| version |  flags  |      stream       | opcode  |
//	+---------+---------+---------+---------+---------+
//	|                length (body bytes)              |
//	+---------+---------+---------+---------+
//
// v1 and v2 used a one-byte stream id (8-byte header); they are only ever
// parsed to answer "unsupported version".
const (
	headerLen = 9

	flagCompressed    = 0x01
	flagTracing       = 0x02
	flagCustomPayload = 0x04
	flagWarning       = 0x08
	flagUseBeta       = 0x10

	opError        = 0x00
	opStartup      = 0x01
	opReady        = 0x02
	opAuthenticate = 0x03
	opOptions      = 0x05
	opSupported    = 0x06
	opQuery        = 0x07
	opResult       = 0x08
	opPrepare      = 0x09
	opExecute      = 0x0A
	opRegister     = 0x0B
	opEvent        = 0x0C
	opBatch        = 0x0D
	opAuthResponse = 0x0F
)

var opNames = map[byte]string{
	opStartup: "STARTUP", opOptions: "OPTIONS", opQuery: "QUERY", opPrepare: "PREPARE",
	opExecute: "EXECUTE", opRegister: "REGISTER", opBatch: "BATCH", opAuthResponse: "AUTH_RESPONSE",
	opError: "ERROR", opReady: "READY", opAuthenticate: "AUTHENTICATE", opSupported: "SUPPORTED",
	opResult: "RESULT", opEvent: "EVENT",
}

func opName(op byte) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("opcode 0x%02x", op)
}

// frameHeader is a parsed envelope header.
type frameHeader struct {
	version  byte // without the direction bit
	response bool
	flags    byte
	opcode   byte
	stream   int16
	length   int32
}

func parseHeader(b []byte) frameHeader {
	return frameHeader{
		version:  b[0] & 0x7f,
		response: b[0]&0x80 != 0,
		flags:    b[1],
		stream:   int16(binary.BigEndian.Uint16(b[2:4])),
		opcode:   b[4],
		length:   int32(binary.BigEndian.Uint32(b[5:9])),
	}
}

// request is one received envelope with its (decompressed) body.
type request struct {
	hdr  frameHeader
	body []byte
}

// protocolError is answered with ERROR PROTOCOL_ERROR on stream; fatal
// closes the connection after the answer (the frame boundary is lost).
type protocolError struct {
	stream int16
	msg    string
	fatal  bool
}

func (e *protocolError) Error() string { return e.msg }

func protoErr(stream int16, fatal bool, format string, args ...any) *protocolError {
	return &protocolError{stream: stream, msg: fmt.Sprintf(format, args...), fatal: fatal}
}

// unsupportedVersionMessage is Cassandra's ProtocolVersion.invalidVersionMessage.
func unsupportedVersionMessage(v byte) string {
	return fmt.Sprintf("Invalid or unsupported protocol version (%d); supported versions are (3/v3, 4/v4, 5/v5)", v)
}

// Response buffers are pooled: a buffer is taken when a response is built
// and returned by the writer once its bytes are on the wire.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(bp *[]byte) {
	if bp == nil || cap(*bp) > 1<<20 {
		return
	}
	*bp = (*bp)[:0]
	bufPool.Put(bp)
}

// compressorFor maps a STARTUP COMPRESSION option (upper-cased: drivers send
// "lz4", the library compares "LZ4") to a compressor; ok is false for
// unknown algorithms. v5 compresses segments, where only LZ4 exists.
func compressorFor(name string, version byte) (c compression.Compressor, ok bool) {
	switch name {
	case "", "NONE":
		return nil, true
	case "LZ4":
		return lz4.Compressor{}, true
	case "SNAPPY":
		if version >= 5 {
			return nil, false
		}
		return snappy.Compressor{}, true
	}
	return nil, false
}

// decompressFrame decompresses a v3/v4 frame body after checking the
// announced uncompressed size against max (the library allocates whatever a
// body claims).
func decompressFrame(c compression.Compressor, body []byte, max int) ([]byte, error) {
	switch c.(type) {
	case lz4.Compressor:
		if len(body) < 4 {
			return nil, fmt.Errorf("truncated LZ4 body")
		}
		if n := binary.BigEndian.Uint32(body); uint64(n) > uint64(max) {
			return nil, fmt.Errorf("decompressed body length %d exceeds maximum allowed length %d", n, max)
		}
	case snappy.Compressor:
		n, err := gosnappy.DecodedLen(body)
		if err != nil {
			return nil, err
		}
		if n > max {
			return nil, fmt.Errorf("decompressed body length %d exceeds maximum allowed length %d", n, max)
		}
	}
	return c.DecompressFrame(body)
}
