package query

import (
	"fmt"
	"strings"
	"testing"
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
	// An empty IN list selects nothing, however large the others are (as
	// in Cassandra), rather than being refused.
	if got, err := cartesian([][][]byte{in, in, nil}); err != nil || len(got) != 0 {
		t.Errorf("with an empty IN list: %d combinations, error %v", len(got), err)
	}
}
