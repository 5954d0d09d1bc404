package query

import (
	"fmt"
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
		got := cartesian(c.comps)
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
}
