package query

import (
	"bytes"
	"cmp"
	"slices"
	"sort"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// sortCells sorts cells by column and path (slices.SortFunc: sort.Slice
// allocated twice per call, for every row written).
func sortCells(cells []mutation.Cell) {
	slices.SortFunc(cells, func(a, b mutation.Cell) int {
		if a.Column != b.Column {
			return cmp.Compare(a.Column, b.Column)
		}
		return bytes.Compare(a.Path, b.Path)
	})
}

func sortValues(t *types.Type, vs [][]byte) {
	sort.SliceStable(vs, func(i, j int) bool { return types.Compare(t, vs[i], vs[j]) < 0 })
}

// slicesAfter restricts slices to the rows after clustering c in the read
// direction (after c for forward reads, before c for reversed reads).
func slicesAfter(t *schema.Table, slices []mutation.Slice, c [][]byte, reversed bool) []mutation.Slice {
	out := make([]mutation.Slice, 0, len(slices))
	for _, s := range slices {
		if !reversed {
			ce := t.CompareClustering(s.End.Values, c)
			if len(s.End.Values) > 0 && (ce < 0 || (ce == 0 && !s.End.Inclusive)) {
				continue
			}
			cs := t.CompareClustering(s.Start.Values, c)
			if len(s.Start.Values) == 0 || cs < 0 || (cs == 0 && s.Start.Inclusive) {
				s.Start = mutation.Bound{Values: c, Inclusive: false}
			}
		} else {
			cs := t.CompareClustering(s.Start.Values, c)
			if len(s.Start.Values) > 0 && (cs > 0 || (cs == 0 && !s.Start.Inclusive)) {
				continue
			}
			ce := t.CompareClustering(s.End.Values, c)
			if len(s.End.Values) == 0 || ce > 0 || (ce == 0 && s.End.Inclusive) {
				s.End = mutation.Bound{Values: c, Inclusive: false}
			}
		}
		out = append(out, s)
	}
	return out
}

// emptySlice reports whether slice s holds no clustering: its start is not
// before its end in clustering order (Cassandra's Slice.isEmpty, by which
// reads and deletions drop such slices, so c > 5 AND c < 3 reads nothing
// and deletes nothing). A bound is a position between clusterings: before
// or after all those with its values as a prefix; the start's inclusive
// bound is before them, the end's after them.
func emptySlice(t *schema.Table, s mutation.Slice) bool {
	startAfter, endAfter := !s.Start.Inclusive, s.End.Inclusive
	a, b := s.Start.Values, s.End.Values
	if c := t.CompareClustering(a, b); c != 0 {
		return c > 0
	}
	switch {
	case len(a) < len(b):
		// The end lies within the start's prefix.
		return startAfter
	case len(a) > len(b):
		// The start lies within the end's prefix.
		return !endAfter
	}
	return startAfter || !endAfter
}

// dropEmptySlices removes empty slices (emptySlice) in place. The result
// is not nil when slices is not: no slice left means no row to read.
func dropEmptySlices(t *schema.Table, ss []mutation.Slice) []mutation.Slice {
	return slices.DeleteFunc(ss, func(s mutation.Slice) bool { return emptySlice(t, s) })
}
