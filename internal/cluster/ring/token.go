package ring

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// MinToken is the token of the empty key and the start of the ring; no
// partition key hashes to it (see Token).
const MinToken = math.MinInt64

// MaxToken is the largest token.
const MaxToken = math.MaxInt64

const (
	murmurC1 = 0x87c37b91114253d5
	murmurC2 = 0x4cf5ad432745937f
)

// Token returns the Murmur3Partitioner token of a serialized partition key.
// It does not allocate.
func Token(key []byte) int64 {
	if len(key) == 0 {
		return MinToken
	}
	h := int64(murmur3H1(key))
	if h == math.MinInt64 {
		return math.MaxInt64
	}
	return h
}

// murmur3H1 is the first half of Cassandra's MurmurHash.hash3_x64_128 with
// seed 0. It differs from the reference MurmurHash3 only in the tail, where
// Java sign-extends each byte before shifting it into place.
func murmur3H1(key []byte) uint64 {
	var h1, h2 uint64
	n := len(key)
	nblocks := n >> 4
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(key[i*16:])
		k2 := binary.LittleEndian.Uint64(key[i*16+8:])

		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := key[nblocks*16:]
	// sx sign-extends a byte the way Java's (long) cast of a byte does.
	sx := func(b byte) uint64 { return uint64(int64(int8(b))) }
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= sx(tail[14]) << 48
		fallthrough
	case 14:
		k2 ^= sx(tail[13]) << 40
		fallthrough
	case 13:
		k2 ^= sx(tail[12]) << 32
		fallthrough
	case 12:
		k2 ^= sx(tail[11]) << 24
		fallthrough
	case 11:
		k2 ^= sx(tail[10]) << 16
		fallthrough
	case 10:
		k2 ^= sx(tail[9]) << 8
		fallthrough
	case 9:
		k2 ^= sx(tail[8])
		k2 *= murmurC2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= murmurC1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= sx(tail[7]) << 56
		fallthrough
	case 7:
		k1 ^= sx(tail[6]) << 48
		fallthrough
	case 6:
		k1 ^= sx(tail[5]) << 40
		fallthrough
	case 5:
		k1 ^= sx(tail[4]) << 32
		fallthrough
	case 4:
		k1 ^= sx(tail[3]) << 24
		fallthrough
	case 3:
		k1 ^= sx(tail[2]) << 16
		fallthrough
	case 2:
		k1 ^= sx(tail[1]) << 8
		fallthrough
	case 1:
		k1 ^= sx(tail[0])
		k1 *= murmurC1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= murmurC2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	return h1
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// RandomTokens returns n distinct tokens drawn from r, sorted ascending.
// MinToken is never returned (it belongs to the empty key). The node picks
// them once and persists them.
func RandomTokens(r *rand.Rand, n int) []int64 {
	seen := make(map[int64]struct{}, n)
	out := make([]int64, 0, n)
	for len(out) < n {
		t := int64(r.Uint64())
		if t == MinToken {
			continue
		}
		if _, ok := seen[t]; ok {
			continue
		}
		seen[t] = struct{}{}
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
