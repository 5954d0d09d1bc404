package transport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// rawClient speaks the protocol with the library's codecs, independently of
// the server's hand-written paths.
type rawClient struct {
	t        testing.TB
	nc       net.Conn
	br       *bufio.Reader
	version  primitive.ProtocolVersion
	comp     compression.Compressor
	compress bool // v3/v4 frames after READY
	plain    frame.RawCodec
	framed   frame.RawCodec
	seg      segment.Codec // v5 after READY
	inbuf    bytes.Buffer  // v5: reassembled segment payloads
}

func dialRaw(t testing.TB, s *Server, v primitive.ProtocolVersion) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawClient{t: t, nc: nc, br: bufio.NewReader(nc), version: v, plain: frame.NewRawCodec()}
}

func (c *rawClient) send(stream int16, msg message.Message) {
	c.t.Helper()
	c.sendFlags(stream, msg, 0)
}

// sendFlags sends msg with extra header flags set (the library's encoder
// counts a tracing id into a v5 request's length, which requests never
// carry, so flags are set on the encoded bytes).
func (c *rawClient) sendFlags(stream int16, msg message.Message, flags byte) {
	c.t.Helper()
	f := frame.NewFrame(c.version, stream, msg)
	var buf bytes.Buffer
	codec := c.plain
	if c.compress {
		f.SetCompress(true)
		codec = c.framed
	}
	if err := codec.EncodeFrame(f, &buf); err != nil {
		c.t.Fatal(err)
	}
	buf.Bytes()[1] |= flags
	c.write(buf.Bytes())
}

// write sends envelope bytes, wrapped in segments once v5 framing is on.
func (c *rawClient) write(env []byte) {
	c.t.Helper()
	if c.seg == nil {
		if _, err := c.nc.Write(env); err != nil {
			c.t.Fatal(err)
		}
		return
	}
	var out bytes.Buffer
	if len(env) <= segment.MaxPayloadLength {
		libEncodeSegment(&out, c.seg, env, true)
	} else {
		for off := 0; off < len(env); off += segment.MaxPayloadLength {
			libEncodeSegment(&out, c.seg, env[off:min(off+segment.MaxPayloadLength, len(env))], false)
		}
	}
	if _, err := c.nc.Write(out.Bytes()); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads the next response frame.
func (c *rawClient) recv() *frame.Frame {
	c.t.Helper()
	f, err := c.tryRecv()
	if err != nil {
		c.t.Fatalf("recv: %v", err)
	}
	return f
}

func (c *rawClient) tryRecv() (*frame.Frame, error) {
	if c.seg == nil {
		codec := c.plain
		if c.framed != nil {
			codec = c.framed
		}
		return codec.DecodeFrame(c.br)
	}
	for {
		if c.inbuf.Len() >= headerLen {
			n := headerLen + int(binary.BigEndian.Uint32(c.inbuf.Bytes()[5:9]))
			if c.inbuf.Len() >= n {
				env := make([]byte, n)
				_, _ = io.ReadFull(&c.inbuf, env)
				return c.plain.DecodeFrame(bytes.NewReader(env))
			}
		}
		s, err := c.seg.DecodeSegment(c.br)
		if err != nil {
			return nil, err
		}
		c.inbuf.Write(s.Payload.UncompressedData)
	}
}

// startup performs OPTIONS/STARTUP and switches compression and framing.
func (c *rawClient) startup(comp string) {
	c.t.Helper()
	c.send(0, &message.Options{})
	if _, ok := c.recv().Body.Message.(*message.Supported); !ok {
		c.t.Fatal("expected SUPPORTED")
	}
	st := message.NewStartup()
	st.Options["CQL_VERSION"] = "3.0.0"
	if comp != "" {
		st.Options["COMPRESSION"] = comp
	}
	c.send(1, st)
	f := c.recv()
	if _, ok := f.Body.Message.(*message.Ready); !ok {
		c.t.Fatalf("expected READY, got %v", f.Body.Message)
	}
	if f.Header.Flags.Contains(primitive.HeaderFlagCompressed) {
		c.t.Fatal("READY must not be compressed")
	}
	switch strings.ToLower(comp) {
	case "lz4":
		c.comp = lz4.Compressor{}
	case "snappy":
		c.comp = snappy.Compressor{}
	}
	if c.version >= primitive.ProtocolVersion5 {
		c.seg = segment.NewCodecWithCompression(c.comp)
	} else if c.comp != nil {
		c.framed = frame.NewRawCodecWithCompression(c.comp)
		c.compress = true
	}
}

func (c *rawClient) query(stream int16, cql string, opts *message.QueryOptions) *frame.Frame {
	c.t.Helper()
	if opts == nil {
		opts = &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}
	}
	c.send(stream, &message.Query{Query: cql, Options: opts})
	f := c.recv()
	if f.Header.StreamId != stream {
		c.t.Fatalf("response on stream %d, want %d", f.Header.StreamId, stream)
	}
	return f
}
