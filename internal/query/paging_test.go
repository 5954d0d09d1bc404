package query

import (
	"bytes"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

func testTable() *schema.Table {
	return schema.NewTable("ks", "t", uuid.New(), []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey, Position: 0},
		{Name: "c1", Type: types.IntType, Kind: schema.Clustering, Position: 0, Desc: true},
		{Name: "c2", Type: types.TextType, Kind: schema.Clustering, Position: 1},
		{Name: "v", Type: types.TextType, Kind: schema.Regular, Position: -1},
	}, schema.DefaultTableParams())
}

func TestPagingStateRoundTrip(t *testing.T) {
	tbl := testTable()
	for _, ps := range []*pagingState{
		{partitionKey: types.EncodeInt(7), remaining: 10},
		{partitionKey: types.EncodeInt(7), clustering: [][]byte{types.EncodeInt(3), types.EncodeText("x")}, remaining: 1, inPartition: 4},
	} {
		got, err := decodePaging(tbl, encodePaging(ps))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.partitionKey, ps.partitionKey) || len(got.clustering) != len(ps.clustering) ||
			got.remaining != ps.remaining || got.inPartition != ps.inPartition {
			t.Fatalf("round trip: got %+v want %+v", got, ps)
		}
	}
}

// FuzzDecodePaging: a tampered paging state is an error, never a panic.
func FuzzDecodePaging(f *testing.F) {
	tbl := testTable()
	f.Add(encodePaging(&pagingState{partitionKey: types.EncodeInt(7), remaining: 10}))
	f.Add(encodePaging(&pagingState{partitionKey: types.EncodeInt(7), clustering: [][]byte{types.EncodeInt(3), types.EncodeText("x")}}))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := decodePaging(tbl, b)
		if err == nil && ps == nil {
			t.Fatal("nil state without error")
		}
	})
}

func TestSlicesAfter(t *testing.T) {
	tbl := testTable()
	c := func(i int32, s string) [][]byte { return [][]byte{types.EncodeInt(i), types.EncodeText(s)} }
	full := []mutation.Slice{mutation.FullSlice}
	// Forward: everything after (5, "b").
	got := slicesAfter(tbl, full, c(5, "b"), false)
	if len(got) != 1 || got[0].Start.Inclusive || tbl.CompareClustering(got[0].Start.Values, c(5, "b")) != 0 {
		t.Fatalf("forward: %+v", got)
	}
	// Two point slices in clustering order (c1 DESC: 9 before 5); resuming
	// after a row of the first keeps the rest of the first and the second.
	pts := []mutation.Slice{
		{Start: mutation.Bound{Values: [][]byte{types.EncodeInt(9)}, Inclusive: true}, End: mutation.Bound{Values: [][]byte{types.EncodeInt(9)}, Inclusive: true}},
		{Start: mutation.Bound{Values: [][]byte{types.EncodeInt(5)}, Inclusive: true}, End: mutation.Bound{Values: [][]byte{types.EncodeInt(5)}, Inclusive: true}},
	}
	if got := slicesAfter(tbl, pts, c(9, "a"), false); len(got) != 2 {
		t.Fatalf("after a row of the first slice: %+v", got)
	}
	if got := slicesAfter(tbl, pts, c(5, "a"), false); len(got) != 1 {
		t.Fatalf("after a row of the second slice: %+v", got)
	}
	// Reversed: resuming before (5, "a") drops the first slice (9 sorts before 5).
	if got := slicesAfter(tbl, pts, c(5, "a"), true); len(got) != 2 {
		t.Fatalf("reversed: %+v", got)
	}
	if got := slicesAfter(tbl, pts, c(9, "a"), true); len(got) != 1 {
		t.Fatalf("reversed from the first slice: %+v", got)
	}
}
