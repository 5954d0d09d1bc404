package query

import (
	"bytes"
	"sort"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

func sortCells(cells []mutation.Cell) {
	sort.Slice(cells, func(i, j int) bool {
		if cells[i].Column != cells[j].Column {
			return cells[i].Column < cells[j].Column
		}
		return bytes.Compare(cells[i].Path, cells[j].Path) < 0
	})
}

func sortValues(t *types.Type, vs [][]byte) {
	sort.SliceStable(vs, func(i, j int) bool { return types.Compare(t, vs[i], vs[j]) < 0 })
}

// compareClustering compares two clustering prefixes in clustering order
// over their common length.
func compareClustering(t *schema.Table, a, b [][]byte) int {
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	for i := 0; i < n; i++ {
		c := types.Compare(t.Clustering[i].Type, a[i], b[i])
		if t.Clustering[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// slicesAfter restricts slices to the rows after clustering c in the read
// direction (after c for forward reads, before c for reversed reads).
func slicesAfter(t *schema.Table, slices []mutation.Slice, c [][]byte, reversed bool) []mutation.Slice {
	out := make([]mutation.Slice, 0, len(slices))
	for _, s := range slices {
		if !reversed {
			ce := compareClustering(t, s.End.Values, c)
			if len(s.End.Values) > 0 && (ce < 0 || (ce == 0 && !s.End.Inclusive)) {
				continue
			}
			cs := compareClustering(t, s.Start.Values, c)
			if len(s.Start.Values) == 0 || cs < 0 || (cs == 0 && s.Start.Inclusive) {
				s.Start = mutation.Bound{Values: c, Inclusive: false}
			}
		} else {
			cs := compareClustering(t, s.Start.Values, c)
			if len(s.Start.Values) > 0 && (cs > 0 || (cs == 0 && !s.Start.Inclusive)) {
				continue
			}
			ce := compareClustering(t, s.End.Values, c)
			if len(s.End.Values) == 0 || ce > 0 || (ce == 0 && s.End.Inclusive) {
				s.End = mutation.Bound{Values: c, Inclusive: false}
			}
		}
		out = append(out, s)
	}
	return out
}
