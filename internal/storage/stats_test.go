package storage

import (
	"context"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

func TestHistogramPercentile(t *testing.T) {
	var h atomicHistogram
	for v := int64(1); v <= 100; v++ {
		h.add(v)
	}
	s := h.snapshot()
	if s.Count() != 100 || s.Max != 100 {
		t.Fatalf("count %d max %d", s.Count(), s.Max)
	}
	// Cassandra's offsets around 50 and 100 are 50 and 103.
	if p := s.Percentile(0.5); p != 50 {
		t.Fatalf("p50 = %d", p)
	}
	if p := s.Percentile(0.99); p != 103 {
		t.Fatalf("p99 = %d", p)
	}
	if o := s.Offsets(); o[0] != 1 || o[1] != 2 || o[8] != 10 || o[14] != 29 || o[21] != 103 {
		t.Fatalf("offsets %v", o[:21])
	}
}

func TestTableStats(t *testing.T) {
	tbl := testTable()
	p, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u := update(tbl, 1)
	u.Rows = []mutation.Row{
		row(ck(1, "a"), marker(10), live(colV, 10, 1)),
		row(ck(2, "a"), mutation.NoLiveness, tomb(colV, 10, 100)),
		{Clustering: ck(3, "a"), Marker: mutation.NoLiveness, Deletion: del(5)},
	}
	mustApply(t, p, tbl, u)
	_, info, err := p.ReadWithInfo(context.Background(), tbl, pointRead(tbl, 1))
	if err != nil || info.TombstonesScanned != 2 || info.CellsScanned != 4 {
		t.Fatalf("%+v %v", info, err)
	}
	cmd := pointRead(tbl, 1)
	cmd.Slices = []mutation.Slice{{Start: mutation.Bound{Values: ck(1, "a"), Inclusive: true}, End: mutation.Bound{Values: ck(1, "a"), Inclusive: true}}}
	mustRead(t, p, tbl, cmd)
	st := p.TableStats(tbl.ID)
	if st.Reads != 2 {
		t.Fatalf("reads %d", st.Reads)
	}
	// Only the unrestricted read describes the whole partition: 4 entries.
	if st.CellCount.Count() != 1 || st.CellCount.Max != 4 || st.PartitionSize.Max == 0 {
		t.Fatalf("cell count %+v size max %d", st.CellCount.Max, st.PartitionSize.Max)
	}
	if st.TombstonesPerRead.Count() != 2 || st.TombstonesPerRead.Max != 2 || st.RowsPerRead.Count() != 2 || st.RowsPerRead.Max != 1 {
		t.Fatalf("tombstones %d (max %d) rows %d (max %d)", st.TombstonesPerRead.Count(), st.TombstonesPerRead.Max,
			st.RowsPerRead.Count(), st.RowsPerRead.Max)
	}
	if st.Read.Ops != 2 || st.Scan.Ops != 0 {
		t.Fatalf("read ops %d scan ops %d", st.Read.Ops, st.Scan.Ops)
	}
	// A range read is one command of the scan timer and of the per-read
	// histograms, whatever partitions it reads (ReadCommand's metrics):
	// here 1 row of partition 1 and 2 of partition 2.
	u2 := update(tbl, 2)
	u2.Rows = []mutation.Row{row(ck(1, "a"), marker(10), live(colV, 10, 1))}
	u2b := update(tbl, 2)
	u2b.Rows = []mutation.Row{row(ck(2, "a"), marker(10), live(colV, 10, 1))}
	mustApply(t, p, tbl, u2, u2b)
	mustRead(t, p, tbl, fullScan(tbl))
	st = p.TableStats(tbl.ID)
	if st.Read.Ops != 2 || st.Scan.Ops != 1 || st.RowsPerRead.Count() != 3 || st.RowsPerRead.Max != 3 || st.TombstonesPerRead.Count() != 3 {
		t.Fatalf("after a scan: read ops %d scan ops %d rows %d (max %d) tombstone reads %d", st.Read.Ops, st.Scan.Ops,
			st.RowsPerRead.Count(), st.RowsPerRead.Max, st.TombstonesPerRead.Count())
	}
}
