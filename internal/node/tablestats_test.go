package node

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/cqld/cqld/internal/cluster/ring"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// TestTablePartitionCounts counts partitions per token range, exactly and
// (past the scan limit) extrapolated from the share of the ring scanned.
func TestTablePartitionCounts(t *testing.T) {
	e, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tbl := schema.NewTable("ks", "t", uuid.New(), []*schema.Column{
		{Name: "pk", Type: types.IntType, Kind: schema.PartitionKey, Position: 0, ID: 1},
		{Name: "v", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: 2},
	}, schema.DefaultTableParams())
	const n = 2000
	var ups []*mutation.PartitionUpdate
	for i := int32(0); i < n; i++ {
		key := binary.BigEndian.AppendUint32(nil, uint32(i))
		ups = append(ups, &mutation.PartitionUpdate{TableID: tbl.ID, Key: key, Token: ring.Token(key), Deletion: mutation.Live,
			Rows: []mutation.Row{{Marker: mutation.Liveness{Timestamp: 1, LocalDeletionTime: mutation.NoDeletion}, Deletion: mutation.Live,
				Cells: []mutation.Cell{{Column: 2, Value: key, Timestamp: 1, LocalDeletionTime: mutation.NoDeletion}}}}})
	}
	if err := e.Apply(context.Background(), tbl, ups...); err != nil {
		t.Fatal(err)
	}
	ends := []int64{-math.MaxInt64 / 2, 0, math.MaxInt64 / 2}
	sum := func(c []int64) (s int64) {
		for _, v := range c {
			s += v
		}
		return s
	}
	exact := (&tableStats{engine: e}).PartitionCounts(tbl, ends)
	if sum(exact) != n {
		t.Fatalf("exact counts %v sum to %d, want %d", exact, sum(exact), n)
	}
	for i, c := range exact {
		// Murmur3 spreads keys evenly: each range holds about its share.
		want := []float64{0.5, 0.25, 0.25}[i] * n
		if math.Abs(float64(c)-want) > 0.15*want {
			t.Errorf("range %d: %d partitions, want ~%.0f", i, c, want)
		}
	}
	est := (&tableStats{engine: e, limit: 500}).PartitionCounts(tbl, ends)
	if s := sum(est); math.Abs(float64(s)-n) > 0.2*n {
		t.Fatalf("extrapolated counts %v sum to %d, want ~%d", est, s, n)
	}
	// A single token: one range, the whole ring.
	if c := (&tableStats{engine: e}).PartitionCounts(tbl, []int64{42}); len(c) != 1 || c[0] != n {
		t.Fatalf("one range: %v", c)
	}
}
