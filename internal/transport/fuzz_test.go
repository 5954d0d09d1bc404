package transport

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// FuzzConn feeds arbitrary bytes to a connection as if a client sent them:
// the connection must answer or close, never panic or hang.
func FuzzConn(f *testing.F) {
	startup := func(v primitive.ProtocolVersion, comp string) []byte {
		st := message.NewStartup()
		st.Options["CQL_VERSION"] = "3.0.0"
		if comp != "" {
			st.Options["COMPRESSION"] = comp
		}
		return frameBytes(f, v, 0, st)
	}
	q := &message.Query{Query: "SELECT", Options: &message.QueryOptions{
		PositionalValues: []*primitive.Value{primitive.NewValue([]byte("x"))}, PageSize: 5}}
	for _, v := range versions {
		f.Add(append(startup(v, ""), frameBytes(f, v, 1, q)...))
		f.Add(append(frameBytes(f, v, 0, &message.Options{}), frameBytes(f, v, 1, q)...))
	}
	var seg bytes.Buffer
	libEncodeSegment(&seg, segment.NewCodec(), frameBytes(f, 5, 1, q), true)
	f.Add(append(startup(5, ""), seg.Bytes()...))
	f.Add(append(startup(4, "snappy"), 4, 1, 0, 1, opQuery, 0, 0, 0, 3, 1, 2, 3))
	f.Add([]byte{6, 0, 0, 1, opOptions, 0, 0, 0, 0})
	f.Add([]byte{2, 0, 1, opOptions, 0, 0, 0, 0})

	h := newFakeHandler()
	close(h.slow)
	s := NewServer(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxFrameSize: 1 << 20}, h)
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		c := newConn(s, server)
		done := make(chan struct{})
		go func() {
			c.serve()
			close(done)
		}()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		_, _ = client.Write(data)
		client.Close()
		<-done
	})
}
