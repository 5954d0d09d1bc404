package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/compression/lz4"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// libEncodeSegment encodes one segment with the library's codec (test
// clients use it, so that the server's own codec is checked against it).
func libEncodeSegment(w *bytes.Buffer, codec segment.Codec, payload []byte, selfContained bool) {
	seg := &segment.Segment{
		Header:  &segment.Header{IsSelfContained: selfContained},
		Payload: &segment.Payload{UncompressedData: payload},
	}
	if err := codec.EncodeSegment(seg, w); err != nil {
		panic(err)
	}
}

func segTestPayloads() [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	repetitive := bytes.Repeat([]byte("cqld segment "), 11000)[:segment.MaxPayloadLength]
	return [][]byte{{}, {1}, []byte("hello"), random, repetitive}
}

// TestSegmentCodecMatchesLibrary checks both directions against the
// library's codec, with and without LZ4.
func TestSegmentCodecMatchesLibrary(t *testing.T) {
	for _, comp := range []compression.Compressor{nil, lz4.Compressor{}} {
		ours := newSegCodec(comp)
		lib := segment.NewCodecWithCompression(comp)
		for _, p := range segTestPayloads() {
			for _, sc := range []bool{true, false} {
				// ours → library
				enc := ours.appendSegment(nil, p, sc)
				seg, err := lib.DecodeSegment(bytes.NewReader(enc))
				if err != nil {
					t.Fatalf("comp=%v len=%d: library cannot decode ours: %v", comp, len(p), err)
				}
				if !bytes.Equal(seg.Payload.UncompressedData, p) || seg.Header.IsSelfContained != sc {
					t.Fatalf("comp=%v len=%d: library decoded something else", comp, len(p))
				}
				// library → ours
				var buf bytes.Buffer
				libEncodeSegment(&buf, lib, p, sc)
				got, gotSC, err := ours.read(bufio.NewReader(&buf))
				if err != nil {
					t.Fatalf("comp=%v len=%d: cannot decode the library's: %v", comp, len(p), err)
				}
				if !bytes.Equal(got, p) || gotSC != sc {
					t.Fatalf("comp=%v len=%d: decoded something else", comp, len(p))
				}
			}
		}
	}
}

// TestSegWriter packs envelopes the way the connection writer does and
// reads them back with the library.
func TestSegWriter(t *testing.T) {
	for _, comp := range []compression.Compressor{nil, lz4.Compressor{}} {
		var w segWriter
		lib := segment.NewCodecWithCompression(comp)
		for round := 0; round < 2; round++ {
			w.reset()
			w.add([]byte("unframed"))
			w.startSegments(newSegCodec(comp))
			var envs [][]byte
			for _, n := range []int{10, 1000, 60000, 70000, 300000, 5, segment.MaxPayloadLength, 1} {
				e := bytes.Repeat([]byte{byte(n)}, n)
				envs = append(envs, e)
				w.add(e)
			}
			out := w.finish()
			if !bytes.HasPrefix(out, []byte("unframed")) {
				t.Fatal("unframed prefix lost")
			}
			r := bytes.NewReader(out[len("unframed"):])
			var all []byte
			for {
				seg, err := lib.DecodeSegment(r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(seg.Payload.UncompressedData) > segment.MaxPayloadLength {
					t.Fatal("oversized segment")
				}
				all = append(all, seg.Payload.UncompressedData...)
			}
			if !bytes.Equal(all, bytes.Join(envs, nil)) {
				t.Fatalf("comp=%v: payloads differ", comp)
			}
			w.sc = nil
		}
	}
}

func TestSegmentCorruption(t *testing.T) {
	sc := newSegCodec(nil)
	enc := sc.appendSegment(nil, []byte("payload"), true)
	for i := range enc {
		bad := bytes.Clone(enc)
		bad[i] ^= 0x10
		if _, _, err := sc.read(bufio.NewReader(bytes.NewReader(bad))); err == nil {
			t.Errorf("flipped byte %d: no error", i)
		}
	}
	if _, _, err := sc.read(bufio.NewReader(bytes.NewReader(enc[:8]))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated payload: %v", err)
	}
}
