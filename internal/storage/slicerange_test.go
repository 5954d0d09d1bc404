package storage

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

// TestSliceRangeInto checks the allocation-free sliceRangeInto against
// sliceRange over random bounds (prefixes, inclusive/exclusive, 0xFF
// carries in the encodings).
func TestSliceRangeInto(t *testing.T) {
	tbl := testTable()
	r := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "a", "\xff", "\xff\xff", "b\x00"}
	bound := func() mutation.Bound {
		b := mutation.Bound{Inclusive: r.IntN(2) == 0}
		switch r.IntN(3) {
		case 1:
			b.Values = [][]byte{i32(int32(r.IntN(5) - 2))}
		case 2:
			b.Values = ck(int32(r.IntN(5)-2), strs[r.IntN(len(strs))])
		}
		return b
	}
	buf := []byte("junk")
	for i := 0; i < 20000; i++ {
		s := mutation.Slice{Start: bound(), End: bound()}
		want, err := sliceRange(tbl, s)
		if err != nil {
			t.Fatal(err)
		}
		got, nbuf, err := sliceRangeInto(buf[:4], tbl, s)
		if err != nil {
			t.Fatal(err)
		}
		buf = nbuf
		if !bytes.Equal(got.lo, want.lo) || got.hiInf != want.hiInf || (!want.hiInf && !bytes.Equal(got.hi, want.hi)) ||
			got.empty() != want.empty() {
			t.Fatalf("slice %+v: got %x..%x (inf %v), want %x..%x (inf %v)", s, got.lo, got.hi, got.hiInf, want.lo, want.hi, want.hiInf)
		}
	}
}
