package mutation

// Cell is one stored value: a regular or static column's value, or one element
// of a non-frozen collection (Path non-nil).
//
// Reconciliation (Reconcile) is Cassandra's: the higher Timestamp wins; on a
// tie a tombstone beats an expiring cell, which beats a live cell; then the
// later local deletion time, then the larger value.
type Cell struct {
	Column uint32 // column id within the table (schema.Column.ID)
	Path   []byte // collection element key (nil for simple cells)
	Value  []byte // serialized value; nil for tombstones
	// Timestamp is the write time in microseconds since the epoch.
	Timestamp int64
	// TTL is the time-to-live in seconds (0: none).
	TTL int32
	// LocalDeletionTime is, in seconds since the epoch, when the cell was
	// deleted (tombstone) or expires (TTL > 0). NoDeletion otherwise.
	LocalDeletionTime int64
	Tombstone         bool
}

// NoDeletion is the LocalDeletionTime of a live, non-expiring cell.
const NoDeletion = int64(1<<63 - 1)

// IsLive reports whether the cell is live at nowSec (seconds since epoch).
func (c *Cell) IsLive(nowSec int64) bool {
	if c.Tombstone {
		return false
	}
	return c.TTL == 0 || nowSec < c.LocalDeletionTime
}

// Reconcile returns the winner of two versions of the same cell, by
// Cassandra's Cells.reconcile (resolveRegular) rule:
//
//  1. the higher timestamp wins;
//  2. on equal timestamps, when either cell is a tombstone or expiring (has a
//     local deletion time), that one beats a live non-expiring cell; a
//     tombstone beats an expiring cell; between two tombstones or two
//     expiring cells the later local deletion time wins;
//  3. then the larger value (unsigned bytes) wins.
//
// Cassandra returns its first argument on a remaining tie (two expiring
// cells with equal timestamp, expiry and value but different TTLs); here
// the larger TTL wins then, so that the result never depends on argument
// order: Reconcile is commutative and associative (mutation_test.go). On a
// complete tie (equal cells) it returns a.
func Reconcile(a, b *Cell) *Cell {
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return a
		}
		return b
	}
	aDel, bDel := a.Tombstone || a.TTL != 0, b.Tombstone || b.TTL != 0
	if aDel || bDel {
		if aDel != bDel {
			if aDel {
				return a
			}
			return b
		}
		if a.Tombstone != b.Tombstone {
			if a.Tombstone {
				return a
			}
			return b
		}
		if a.LocalDeletionTime != b.LocalDeletionTime {
			if a.LocalDeletionTime > b.LocalDeletionTime {
				return a
			}
			return b
		}
	}
	var av, bv []byte
	if !a.Tombstone {
		av = a.Value
	}
	if !b.Tombstone {
		bv = b.Value
	}
	if c := compareBytes(av, bv); c != 0 {
		if c > 0 {
			return a
		}
		return b
	}
	if b.TTL > a.TTL {
		return b
	}
	return a
}

func compareBytes(a, b []byte) int {
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// Deletion is a deletion time: data with a timestamp <= MarkedForDeleteAt is
// shadowed. The zero value (MarkedForDeleteAt == math.MinInt64 is not used;
// use Live) means "not deleted".
type Deletion struct {
	MarkedForDeleteAt int64 // microseconds; NoTimestamp when not deleted
	LocalDeletionTime int64 // seconds
}

// NoTimestamp marks an absent deletion or row marker.
const NoTimestamp = int64(-1 << 63)

// Live is the "not deleted" deletion.
var Live = Deletion{MarkedForDeleteAt: NoTimestamp, LocalDeletionTime: NoDeletion}

// IsLive reports whether d deletes nothing.
func (d Deletion) IsLive() bool { return d.MarkedForDeleteAt == NoTimestamp }

// Deletes reports whether d shadows data written at ts.
func (d Deletion) Deletes(ts int64) bool { return !d.IsLive() && ts <= d.MarkedForDeleteAt }

// Supersedes reports whether d wins over o.
func (d Deletion) Supersedes(o Deletion) bool {
	return d.MarkedForDeleteAt > o.MarkedForDeleteAt ||
		(d.MarkedForDeleteAt == o.MarkedForDeleteAt && d.LocalDeletionTime > o.LocalDeletionTime)
}

// Liveness is a row marker: written by INSERT, it keeps a row alive even when
// it has no live regular cells. Timestamp == NoTimestamp means no marker.
type Liveness struct {
	Timestamp         int64
	TTL               int32
	LocalDeletionTime int64 // expiry when TTL > 0
}

// NoLiveness is the absent row marker.
var NoLiveness = Liveness{Timestamp: NoTimestamp, LocalDeletionTime: NoDeletion}

// IsLive reports whether the marker exists and has not expired at nowSec.
func (l Liveness) IsLive(nowSec int64) bool {
	return l.Timestamp != NoTimestamp && (l.TTL == 0 || nowSec < l.LocalDeletionTime)
}

// Row is one row of a partition: its clustering values (serialized, one per
// clustering column; empty for the static row), its marker, its row deletion
// and its cells sorted by (Column, Path).
type Row struct {
	Clustering [][]byte
	Marker     Liveness
	Deletion   Deletion
	Cells      []Cell
}

// Bound is one end of a clustering slice. Values is a clustering prefix (it
// may be shorter than the clustering); an empty prefix is unbounded.
// Inclusive says whether rows whose clustering starts with Values are inside.
type Bound struct {
	Values    [][]byte
	Inclusive bool
}

// Slice is a clustering range in *clustering order* (Start sorts before End
// in the table's order, so for DESC columns the "larger" value is Start).
type Slice struct {
	Start, End Bound
}

// FullSlice selects every row.
var FullSlice = Slice{Start: Bound{Inclusive: true}, End: Bound{Inclusive: true}}

// RangeTombstone deletes the rows of a slice.
type RangeTombstone struct {
	Slice    Slice
	Deletion Deletion
}

// PartitionUpdate is all the changes a write makes to one partition. It is
// the unit the coordinator replicates and storage applies atomically.
type PartitionUpdate struct {
	TableID [16]byte
	// Key is the serialized partition key: the value itself for a single
	// column key, Cassandra's composite encoding for multi-column keys.
	Key   []byte
	Token int64
	// Deletion deletes the whole partition (DELETE with only the partition
	// key restricted).
	Deletion        Deletion
	RangeTombstones []RangeTombstone
	Static          *Row // nil when statics are untouched
	Rows            []Row
}

// ReadCommand reads clustering slices of one partition, or (Key == nil) a
// token range of partitions.
type ReadCommand struct {
	TableID [16]byte
	Key     []byte // nil: range read
	Token   int64  // token of Key
	// Range read bounds (when Key == nil): partitions with StartToken <
	// token <= EndToken (Cassandra's (start, end] ranges); StartKey, when
	// set, resumes after that partition (paging).
	StartToken, EndToken int64
	StartKey             []byte
	StartInclusive       bool // StartKey itself is included
	// Slices in clustering order; nil means the whole partition.
	Slices []Slice
	// Reversed returns rows in reverse clustering order.
	Reversed bool
	// Limits: 0 means none. RowLimit counts rows over all partitions,
	// PartitionLimit caps partitions, PerPartitionLimit rows in each one.
	RowLimit          int
	PartitionLimit    int
	PerPartitionLimit int
	// StaticOnly reads only the static row (SELECT DISTINCT).
	StaticOnly bool
	// NowSec is the query time in seconds, used for TTL expiry.
	NowSec int64
	// Unmetered marks the node's own scans (index and view builds, the
	// partition counts of size_estimates): they are left out of the
	// tables' read metrics, as Cassandra's reads of sstables for those
	// are.
	Unmetered bool
}

// Partition is a reconciled partition as a read returns it: only live data,
// tombstones already applied.
type Partition struct {
	Key    []byte
	Token  int64
	Static *Row // nil when the table has no statics or none are live
	Rows   []Row
}

// LiveRows counts the rows a read returned as Cassandra's read metrics
// (ReadCommand.withMetricsRecording) do: a live static row is a row of
// its own. A partition returned with neither rows nor a static row (its
// key only) counts as one.
func LiveRows(ps []Partition) int64 {
	var n int64
	for i := range ps {
		n += int64(len(ps[i].Rows))
		if ps[i].Static != nil || len(ps[i].Rows) == 0 {
			n++
		}
	}
	return n
}
