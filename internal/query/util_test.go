package query

import (
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

func TestEmptySlice(t *testing.T) {
	tbl := &schema.Table{}
	for i, desc := range []bool{false, true} {
		tbl.Clustering = append(tbl.Clustering, &schema.Column{Name: "c", Type: types.IntType, Kind: schema.Clustering, Position: i, Desc: desc})
	}
	v := func(xs ...int32) [][]byte {
		out := make([][]byte, len(xs))
		for i, x := range xs {
			out[i] = types.EncodeInt(x)
		}
		return out
	}
	b := func(incl bool, xs ...int32) mutation.Bound { return mutation.Bound{Values: v(xs...), Inclusive: incl} }
	for _, tc := range []struct {
		name       string
		start, end mutation.Bound
		empty      bool
	}{
		{"everything", mutation.FullSlice.Start, mutation.FullSlice.End, false},
		{"one prefix", b(true, 1), b(true, 1), false},
		{"one row", b(true, 1, 2), b(true, 1, 2), false},
		{"exclusive start at the end", b(false, 1, 2), b(true, 1, 2), true},
		{"exclusive end at the start", b(true, 1, 2), b(false, 1, 2), true},
		{"start after end", b(true, 5), b(true, 3), true},
		{"start before end", b(false, 3), b(false, 5), false},
		{"end within the start's prefix", b(true, 1), b(false, 1, 2), false},
		{"end within an exclusive start's prefix", b(false, 1), b(true, 1, 2), true},
		{"start within the end's prefix", b(false, 1, 2), b(true, 1), false},
		{"start within an exclusive end's prefix", b(true, 1, 2), b(false, 1), true},
		// The second column is DESC: (1, 5) comes before (1, 3).
		{"DESC column in order", b(true, 1, 5), b(true, 1, 3), false},
		{"DESC column reversed", b(true, 1, 3), b(true, 1, 5), true},
		{"unbounded end", b(false, 7), mutation.Bound{Inclusive: true}, false},
		{"unbounded start", mutation.Bound{Inclusive: true}, b(false, 7), false},
	} {
		if got := emptySlice(tbl, mutation.Slice{Start: tc.start, End: tc.end}); got != tc.empty {
			t.Errorf("%s: empty %v, want %v", tc.name, got, tc.empty)
		}
	}
}
