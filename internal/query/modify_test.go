package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

func TestCartesian(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	for _, c := range []struct {
		comps [][][]byte
		want  string
	}{
		{nil, "[[]]"},
		{[][][]byte{{b("a")}}, "[[a]]"},
		{[][][]byte{{b("a")}, {b("x")}}, "[[a x]]"},
		{[][][]byte{{b("a"), b("b")}, {b("x"), b("y"), b("z")}}, "[[a x] [a y] [a z] [b x] [b y] [b z]]"},
		{[][][]byte{{b("a"), b("b")}, {}, {b("x")}}, "[]"},
	} {
		got, err := cartesian(c.comps)
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf("%s", got); s != c.want {
			t.Errorf("cartesian(%s) = %s, want %s", c.comps, s, c.want)
		}
		// Appending to one combination must not overwrite the next.
		if len(got) > 1 {
			_ = append(got[0], b("!"))
			if s := fmt.Sprintf("%s", got); s != c.want {
				t.Errorf("after an append to the first combination: %s, want %s", s, c.want)
			}
		}
	}
	// IN lists whose product wraps an int (2^64 here) must be refused, not
	// read or written as no combination at all.
	in := make([][]byte, 1<<16)
	for _, comps := range [][][][]byte{{in, in, in, in}, {in, in}} {
		if got, err := cartesian(comps); err == nil || !strings.Contains(err.Error(), "cartesian product") {
			t.Errorf("%d IN lists of %d values: %d combinations, error %v", len(comps), len(in), len(got), err)
		}
	}
	// The product is bounded by what it holds, not by its count: two lists
	// of 4096 made 2^24 combinations (1.2 GB of slices), and one large value
	// is in every combination with it. ints(n, size) is n values of size
	// bytes (sharing their bytes: only lengths count).
	ints := func(n, size int) [][]byte {
		vs, v := make([][]byte, n), make([]byte, size)
		for i := range vs {
			vs[i] = v
		}
		return vs
	}
	// A product that overflows to +Inf next to a list of empty values
	// (Inf*0: NaN, which compares false) is refused too.
	huge := [][][]byte{{{}}}
	for range 128 {
		huge = append(huge, ints(256, 1))
	}
	for _, comps := range [][][][]byte{
		{ints(4096, 4), ints(4096, 4)},
		{ints(1, 64<<10), ints(2000, 4)},
		{ints(1<<16, 1<<10)},
		huge,
	} {
		if got, err := cartesian(comps); err == nil || !strings.Contains(err.Error(), "cartesian product") {
			t.Errorf("%d IN lists: %d combinations, error %v", len(comps), len(got), err)
		}
	}
	for _, c := range []struct {
		comps [][][]byte
		count string
	}{
		{[][][]byte{ints(4096, 4), ints(4096, 4)}, "produces 16777216 combinations"},
		{[][][]byte{ints(1<<16, 1), ints(1<<16, 1), ints(1<<16, 1), ints(1<<16, 1)}, "produces 1.84e+19 combinations"},
		{huge, "produces more than 1.8e+308 combinations"},
	} {
		if _, err := cartesian(c.comps); err == nil || !strings.Contains(err.Error(), c.count) {
			t.Errorf("%d IN lists: error %v, want %q", len(c.comps), err, c.count)
		}
	}
	for _, comps := range [][][][]byte{
		{ints(500, 4), ints(500, 4)},
		{ints(1, 64<<10), ints(500, 4)},
		{ints(1<<18, 16)},
	} {
		if _, err := cartesian(comps); err != nil {
			t.Errorf("%d IN lists: %v", len(comps), err)
		}
	}
	// An empty IN list selects nothing, however large the others are (as
	// in Cassandra), rather than being refused.
	if got, err := cartesian([][][]byte{in, in, nil}); err != nil || len(got) != 0 {
		t.Errorf("with an empty IN list: %d combinations, error %v", len(got), err)
	}
}

// TestBoundUpdates checks that a single row is never refused as a product
// (Cassandra takes one as large as a mutation may be), while two rows of
// the same cells are.
func TestBoundUpdates(t *testing.T) {
	big := make([]byte, 70<<20) // never written: its pages stay untouched
	cells := []mutation.Cell{{Column: 1, Value: big}}
	p := &modifyPlan{}
	one := [][]byte{[]byte("k")}
	if err := boundUpdates(p, one, [][][]byte{{[]byte("c")}}, cells, nil, false, nil); err != nil {
		t.Errorf("one row of 70 MiB: %v", err)
	}
	two := [][]byte{[]byte("k1"), []byte("k2")}
	if err := boundUpdates(p, two, [][][]byte{{[]byte("c")}}, cells, nil, false, nil); err == nil || !strings.Contains(err.Error(), "cartesian product") {
		t.Errorf("two rows of 70 MiB: %v", err)
	}
}
