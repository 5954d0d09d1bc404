package query

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// TestTupleRangesExact checks the clustering slices of tuple slices over
// columns of every order against the relation's meaning: tuples compared
// component by component in value order. Every clustering of a small
// domain is tried.
func TestTupleRangesExact(t *testing.T) {
	const domain = 3
	rng := rand.New(rand.NewSource(1))
	enc := func(v int) []byte { return types.EncodeInt(int32(v)) }
	for order := 0; order < 8; order++ {
		tbl := &schema.Table{}
		for i := 0; i < 3; i++ {
			col := &schema.Column{Name: fmt.Sprintf("c%d", i), Type: types.IntType, Kind: schema.Clustering, Position: i, Desc: order&(1<<i) != 0}
			tbl.Clustering = append(tbl.Clustering, col)
		}
		for trial := 0; trial < 300; trial++ {
			// A tuple over c1 and c2 (sometimes c1 alone) after a
			// prefix on c0.
			ncols := 1 + rng.Intn(2)
			tr := &tupleRestriction{start: 1, cols: tbl.Clustering[1 : 1+ncols]}
			var lower, upper []int
			bound := func() (termFn, []int, bool, int) {
				n := 1 + rng.Intn(ncols)
				vs := make([]int, n)
				parts := make([][]byte, n)
				for i := range vs {
					vs[i] = rng.Intn(domain)
					parts[i] = enc(vs[i])
				}
				b := types.EncodeTuple(parts)
				return func([]Value) ([]byte, bool, error) { return b, false, nil }, vs, rng.Intn(2) == 0, n
			}
			if rng.Intn(3) != 0 {
				tr.lower, lower, tr.lowerIncl, tr.lowerCols = bound()
			}
			if tr.lower == nil || rng.Intn(3) != 0 {
				tr.upper, upper, tr.upperIncl, tr.upperCols = bound()
			}
			prefixes := [][][]byte{{enc(1)}, {enc(0)}}
			sl, err := tr.tupleSlices(tbl, prefixes, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(sl); i++ {
				if tbl.CompareClustering(sl[i-1].Start.Values, sl[i].Start.Values) > 0 {
					t.Fatalf("order %03b, lower %v %v, upper %v %v: slices out of clustering order: %v", order, lower, tr.lowerIncl, upper, tr.upperIncl, sl)
				}
			}
			// cmp compares a row's tuple with a bound in value order.
			cmp := func(row [3]int, b []int) int {
				for i, v := range b {
					if d := row[1+i] - v; d != 0 {
						return d
					}
				}
				return 0
			}
			for a := 0; a < domain; a++ {
				for b := 0; b < domain; b++ {
					for c := 0; c < domain; c++ {
						row := [3]int{a, b, c}
						want := a <= 1
						if lower != nil {
							d := cmp(row, lower)
							want = want && (d > 0 || d == 0 && tr.lowerIncl)
						}
						if upper != nil {
							d := cmp(row, upper)
							want = want && (d < 0 || d == 0 && tr.upperIncl)
						}
						got := inSlices(tbl, sl, [][]byte{enc(a), enc(b), enc(c)})
						if got != want {
							t.Fatalf("order %03b, lower %v %v, upper %v %v: row %v in slices %v, want %v (%v)", order, lower, tr.lowerIncl, upper, tr.upperIncl, row, got, want, sl)
						}
					}
				}
			}
		}
	}
}

// TestTupleINMarkerLength: a bound list of tuples for (b, c) IN ? must
// hold tuples of exactly two components; a longer one is refused, not cut.
func TestTupleINMarkerLength(t *testing.T) {
	cols := []*schema.Column{
		{Name: "b", Type: types.IntType, Kind: schema.Clustering, Position: 0},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering, Position: 1},
	}
	one := types.EncodeInt(1)
	for _, n := range []int{1, 3} {
		parts := make([][]byte, n)
		for i := range parts {
			parts[i] = one
		}
		list := types.EncodeList([][]byte{types.EncodeTuple(parts)})
		tr := &tupleRestriction{cols: cols, listMarker: true,
			in: []termFn{func([]Value) ([]byte, bool, error) { return list, false, nil }}}
		if _, err := tr.tuples(nil); err == nil {
			t.Errorf("a tuple of %d components for (b, c) IN ?: accepted", n)
		}
	}
}
