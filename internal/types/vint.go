package types

import "math/bits"

// Cassandra's variable-length integers (utils/vint/VIntCoding.java): the
// number of leading one bits of the first byte is the number of extra bytes
// that follow; the value is big-endian in the remaining bits. Signed values
// are zig-zag encoded first. Used by duration and by vector element lengths.

func appendUnsignedVint(b []byte, v uint64) []byte {
	mag := bits.LeadingZeros64(v | 1)
	size := (639 - mag*9) >> 6
	if size == 1 {
		return append(b, byte(v))
	}
	extra := size - 1
	var buf [9]byte
	for i := size - 1; i >= 0; i-- {
		buf[i] = byte(v)
		v >>= 8
	}
	buf[0] |= ^byte(0xFF >> uint(extra))
	return append(b, buf[:size]...)
}

// readUnsignedVint returns the value and the number of bytes read (0 on
// truncated input).
func readUnsignedVint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	first := b[0]
	extra := bits.LeadingZeros8(^first)
	if extra == 0 {
		return uint64(first), 1
	}
	if len(b) < 1+extra {
		return 0, 0
	}
	v := uint64(first & (0xFF >> uint(extra)))
	if extra == 8 {
		v = 0
	}
	for i := 1; i <= extra; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, 1 + extra
}

func appendSignedVint(b []byte, v int64) []byte {
	return appendUnsignedVint(b, uint64((v<<1)^(v>>63)))
}

func readSignedVint(b []byte) (int64, int) {
	u, n := readUnsignedVint(b)
	return int64(u>>1) ^ -int64(u&1), n
}
