package transport

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/datastax/go-cassandra-native-protocol/compression"
	"github.com/datastax/go-cassandra-native-protocol/crc"
	"github.com/datastax/go-cassandra-native-protocol/segment"
)

// segCodec reads and writes v5 segments (protocol spec section 2,
// "Modern framing"). It is the library's segment codec without its
// per-byte reads through io.Reader and its allocations per header field
// (about a dozen allocations per segment in each direction); the CRCs and
// the compressor are the library's, and tests check both directions
// against the library's codec.
//
// Layout: a header of 3 bytes (uncompressed: payload length in 17 bits,
// self-contained flag in bit 17) or 5 bytes (compressed: compressed length
// in 17 bits, uncompressed length in the next 17 — 0 when the sender did
// not compress — and the self-contained flag in bit 34), little-endian,
// followed by its CRC24 (3 bytes, little-endian); then the payload and its
// CRC32 (4 bytes, little-endian).
type segCodec struct {
	comp compression.Compressor // nil: uncompressed segments
}

func newSegCodec(comp compression.Compressor) *segCodec { return &segCodec{comp: comp} }

func (sc *segCodec) headerLen() int {
	if sc.comp == nil {
		return segment.UncompressedHeaderLength
	}
	return segment.CompressedHeaderLength
}

// errSegmentCRC marks a corrupt segment.
var errSegmentCRC = errors.New("crc mismatch")

// read reads one segment from r and returns its (decompressed) payload in a
// newly allocated slice (request bodies alias it, so it is never reused).
func (sc *segCodec) read(r *bufio.Reader) (payload []byte, selfContained bool, err error) {
	hl := sc.headerLen()
	var hb [segment.CompressedHeaderLength + segment.Crc24Length]byte
	if _, err := io.ReadFull(r, hb[:hl+segment.Crc24Length]); err != nil {
		return nil, false, err
	}
	var h uint64
	for i := hl - 1; i >= 0; i-- {
		h = h<<8 | uint64(hb[i])
	}
	want := uint32(hb[hl]) | uint32(hb[hl+1])<<8 | uint32(hb[hl+2])<<16
	if got := crc.ChecksumKoopman(h, hl); got != want {
		return nil, false, fmt.Errorf("header %x: %w: received %x, computed %x", h, errSegmentCRC, want, got)
	}
	var wireLen, rawLen int
	if sc.comp == nil {
		wireLen = int(h & segment.MaxPayloadLength)
		selfContained = (h>>17)&1 == 1
	} else {
		wireLen = int(h & segment.MaxPayloadLength)
		rawLen = int((h >> 17) & segment.MaxPayloadLength)
		selfContained = (h>>34)&1 == 1
	}
	wire := make([]byte, wireLen+segment.Crc32Length)
	if _, err := io.ReadFull(r, wire); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, err
	}
	wire, crcBytes := wire[:wireLen], wire[wireLen:]
	if got, want := crc.ChecksumIEEE(wire), binary.LittleEndian.Uint32(crcBytes); got != want {
		return nil, false, fmt.Errorf("payload: %w: received %x, computed %x", errSegmentCRC, want, got)
	}
	if sc.comp == nil || rawLen == 0 {
		return wire, selfContained, nil
	}
	raw := make([]byte, rawLen)
	if err := sc.comp.DecompressSegment(wire, raw); err != nil {
		return nil, false, fmt.Errorf("cannot decompress segment payload: %w", err)
	}
	return raw, selfContained, nil
}

// appendSegment appends payload (at most segment.MaxPayloadLength bytes)
// to dst as one segment. Compressed codecs send the payload uncompressed
// (uncompressed length 0) when compression does not make it smaller, as
// Cassandra does.
func (sc *segCodec) appendSegment(dst, payload []byte, selfContained bool) []byte {
	if sc.comp == nil {
		n := len(dst)
		dst = append(dst, make([]byte, segment.UncompressedHeaderLength+segment.Crc24Length)...)
		putSegmentHeader(dst[n:], len(payload), selfContained)
		dst = append(dst, payload...)
		return binary.LittleEndian.AppendUint32(dst, crc.ChecksumIEEE(payload))
	}
	wire, rawLen := payload, len(payload)
	if z, err := sc.comp.CompressSegment(payload); err == nil && len(z) > 0 && len(z) < len(payload) {
		wire = z
	} else {
		rawLen = 0
	}
	h := uint64(len(wire)) | uint64(rawLen)<<17
	if selfContained {
		h |= 1 << 34
	}
	const hl = segment.CompressedHeaderLength
	c24 := crc.ChecksumKoopman(h, hl)
	for i := 0; i < hl; i++ {
		dst = append(dst, byte(h>>(8*i)))
	}
	dst = append(dst, byte(c24), byte(c24>>8), byte(c24>>16))
	dst = append(dst, wire...)
	return binary.LittleEndian.AppendUint32(dst, crc.ChecksumIEEE(wire))
}

// putSegmentHeader writes the header of an uncompressed segment and its
// CRC24 into the 6 bytes of b.
func putSegmentHeader(b []byte, payloadLen int, selfContained bool) {
	h := uint64(payloadLen)
	if selfContained {
		h |= 1 << 17
	}
	c24 := crc.ChecksumKoopman(h, segment.UncompressedHeaderLength)
	_ = b[5]
	b[0], b[1], b[2] = byte(h), byte(h>>8), byte(h>>16)
	b[3], b[4], b[5] = byte(c24), byte(c24>>8), byte(c24>>16)
}
