package ring

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// Vectors from a real Cassandra (shared/FACTS.md, "Murmur3Partitioner").
func TestTokenVectors(t *testing.T) {
	composite := mutation.CompositeKey([][]byte{be32(1), []byte("a")})
	if got, want := hex.EncodeToString(composite), "00040000000100000161"+"00"; got != want {
		t.Fatalf("CompositeKey = %s, want %s", got, want)
	}
	for _, tc := range []struct {
		name string
		key  []byte
		want int64
	}{
		{"int 1", be32(1), -4069959284402364209},
		{"int 0", be32(0), -3485513579396041028},
		{"int -1", be32(-1), 7297452126230313552},
		{"bigint 1", be64(1), 6292367497774912474},
		{"text hello", []byte("hello"), -3758069500696749310},
		{"composite (1, 'a')", composite, 6516349416904725244},
		{"empty", nil, math.MinInt64},
	} {
		if got := Token(tc.key); got != tc.want {
			t.Errorf("Token(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestTokenAllTailLengths exercises the block loop and every tail length with
// bytes that have the high bit set (Java sign extension).
func TestTokenAllTailLengths(t *testing.T) {
	key := make([]byte, 40)
	for i := range key {
		key[i] = byte(0x80 + i*7) // high bit set: exercises sign extension
	}
	seen := map[int64]int{}
	for n := 1; n <= len(key); n++ {
		tok := Token(key[:n])
		if prev, ok := seen[tok]; ok {
			t.Fatalf("Token collision between lengths %d and %d", prev, n)
		}
		seen[tok] = n
	}
}

func TestSplitCompositeKey(t *testing.T) {
	comps := [][]byte{be32(1), []byte("a"), {}, bytes.Repeat([]byte{0}, 300)}
	enc := mutation.CompositeKey(comps)
	got, err := mutation.SplitCompositeKey(enc, len(comps))
	if err != nil {
		t.Fatal(err)
	}
	for i := range comps {
		if !bytes.Equal(got[i], comps[i]) {
			t.Fatalf("component %d = %x, want %x", i, got[i], comps[i])
		}
	}
	for _, bad := range []struct {
		b []byte
		n int
	}{
		{enc, 3}, {enc, 5}, {enc[:len(enc)-1], 4}, {[]byte{0}, 2},
		{[]byte{0, 1, 'a', 1, 0, 0, 0}, 2}, // end-of-component byte must be 0
	} {
		if _, err := mutation.SplitCompositeKey(bad.b, bad.n); err == nil {
			t.Errorf("mutation.SplitCompositeKey(%x, %d) succeeded", bad.b, bad.n)
		}
	}
}

func TestRandomTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	toks := RandomTokens(r, 256)
	if len(toks) != 256 {
		t.Fatalf("got %d tokens", len(toks))
	}
	for i := 1; i < len(toks); i++ {
		if toks[i-1] >= toks[i] {
			t.Fatalf("tokens not strictly increasing at %d", i)
		}
	}
}

func FuzzCompositeKey(f *testing.F) {
	f.Add([]byte("a"), []byte{}, []byte{0, 0, 1})
	f.Fuzz(func(t *testing.T, a, b, c []byte) {
		if len(a) > math.MaxUint16 || len(b) > math.MaxUint16 || len(c) > math.MaxUint16 {
			return
		}
		comps := [][]byte{a, b, c}
		enc := mutation.CompositeKey(comps)
		got, err := mutation.SplitCompositeKey(enc, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := range comps {
			if !bytes.Equal(got[i], comps[i]) {
				t.Fatalf("round trip of component %d: %x != %x", i, got[i], comps[i])
			}
		}
		// Decoding arbitrary input never panics.
		_, _ = mutation.SplitCompositeKey(a, 2)
		// Token never returns MinToken for a non-empty key.
		if len(a) > 0 && Token(a) == MinToken {
			t.Fatal("non-empty key got MinToken")
		}
	})
}

func BenchmarkToken(b *testing.B) {
	for _, size := range []int{4, 16, 64, 256} {
		key := make([]byte, size)
		for i := range key {
			key[i] = byte(i)
		}
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				_ = Token(key)
			}
		})
	}
}
