package advisor

import (
	"strings"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// CellOverhead is seed 000's per-cell overhead Cs.
const CellOverhead = 23

// Partition size thresholds from seed 000: target 10–100 MB, over 100 MB is
// too large; over 100,000 rows is too many.
const (
	targetPartitionBytes = 10_000_000
	maxPartitionBytes    = 100_000_000
	maxRowsPerPartition  = 100_000
	// maxValueBytes: seed 003 limits a column value to "a few MBs".
	maxValueBytes = 5_000_000
)

// Default sizes of variable-length values when the workload gives none.
var defaultVariableSize = map[types.Kind]int{
	types.Text: 20, types.Ascii: 20, types.Blob: 64, types.Varint: 8, types.Decimal: 12,
	types.Duration: 12, types.Inet: 16, types.List: 100, types.Set: 100, types.Map: 200,
	types.Tuple: 32, types.UDT: 64, types.Vector: 128, types.Custom: 64,
}

// valueSize is the expected serialized size of a column's values.
func valueSize(c *schema.Column, tw TableWorkload) int {
	if n, ok := tw.AvgValueBytes[c.Name]; ok {
		return n
	}
	switch c.Type.Kind {
	case types.Boolean, types.Tinyint:
		return 1
	case types.Smallint:
		return 2
	case types.Int, types.Float, types.Date:
		return 4
	case types.Bigint, types.Counter, types.Double, types.Timestamp, types.Time:
		return 8
	case types.UUID, types.Timeuuid:
		return 16
	}
	if n, ok := defaultVariableSize[c.Type.Kind]; ok {
		return n
	}
	return 16
}

// RowBytes is seed 000's per-row size: clustering key size, the regular
// column values and Cs per cell (one per regular column plus the row's own).
func RowBytes(t *schema.Table, tw TableWorkload) int {
	n := 0
	for _, c := range t.Clustering {
		n += valueSize(c, tw)
	}
	for _, c := range t.Regulars {
		n += valueSize(c, tw)
	}
	return n + CellOverhead*(len(t.Regulars)+1)
}

// StaticBytes is the static part of a partition (Nstatic × static sizes).
func StaticBytes(t *schema.Table, tw TableWorkload) int {
	n := 0
	for _, c := range t.Statics {
		n += valueSize(c, tw) + CellOverhead
	}
	return n
}

// bucketSeconds returns the time span one partition covers when the
// partition key contains a time bucket (a date column, or a column named
// like a bucket), or 0.
func bucketSeconds(t *schema.Table) (int, string) {
	for _, c := range t.PartitionKey {
		name := strings.ToLower(c.Name)
		switch {
		// Time periods written as text or numbers (seed 003's "ddmmyyhh").
		case strings.Contains(name, "ddmmyyhh") || strings.Contains(name, "yymmddhh"):
			return 3600, "hour"
		case strings.Contains(name, "ddmmyy") || strings.Contains(name, "yymmdd") || strings.Contains(name, "mmddyy") ||
			strings.Contains(name, "time_bucket") || strings.Contains(name, "period"):
			return 86400, "day"
		case strings.Contains(name, "yyyymm"):
			return 30 * 86400, "month"
		case strings.Contains(name, "minute"):
			return 60, "minute"
		case strings.Contains(name, "hour"):
			return 3600, "hour"
		case strings.Contains(name, "week"):
			return 7 * 86400, "week"
		case strings.Contains(name, "month"):
			return 30 * 86400, "month"
		case strings.Contains(name, "year"):
			return 365 * 86400, "year"
		case strings.Contains(name, "day") || strings.Contains(name, "date") || c.Type.Kind == types.Date:
			return 86400, "day"
		}
	}
	return 0, ""
}

// TableEstimate is the sizing of one table: seed 000's formula, or what a
// live server measured (Measured set).
type TableEstimate struct {
	Table              string  `json:"table"`
	PartitionSizeBytes float64 `json:"partition_size_bytes"`
	RowsPerPartition   float64 `json:"rows_per_partition"`
	Bounded            bool    `json:"bounded"`
	RowBytes           int     `json:"row_bytes"`
	// Measured is set when the sizes come from the server's statistics
	// (system.size_estimates, system_views.cqld_table_histograms); the
	// formula's own estimate is then in EstimatedPartitionSizeBytes.
	Measured                    bool    `json:"measured"`
	EstimatedPartitionSizeBytes float64 `json:"estimated_partition_size_bytes,omitempty"`
	PartitionsCount             int64   `json:"partitions_count,omitempty"`
	PartitionsMeasured          int64   `json:"partitions_measured,omitempty"`
	MaxPartitionSizeBytes       float64 `json:"max_partition_size_bytes,omitempty"`
	P99PartitionSizeBytes       float64 `json:"p99_partition_size_bytes,omitempty"`
}

// Measured is what a live server reports of a table's partitions.
type Measured struct {
	// From system.size_estimates (Cassandra and cqld), summed over the
	// node's token ranges.
	PartitionsCount   int64 `yaml:"partitions_count"`
	MeanPartitionSize int64 `yaml:"mean_partition_size"`
	// From system_views.cqld_table_histograms (cqld only): histograms of
	// partitions read whole; zero when unavailable.
	PartitionsMeasured   int64 `yaml:"partitions_measured"`
	P50PartitionSize     int64 `yaml:"p50_partition_size"`
	P99PartitionSize     int64 `yaml:"p99_partition_size"`
	MaxPartitionSize     int64 `yaml:"max_partition_size"`
	MeanCellCount        int64 `yaml:"mean_cell_count"`
	MaxCellCount         int64 `yaml:"max_cell_count"`
	P99TombstonesPerRead int64 `yaml:"p99_tombstones_per_read"`
}

// known reports whether any partition size was measured.
func (m Measured) known() bool { return m.MeanPartitionSize > 0 || m.PartitionsMeasured > 0 }

// cellsPerRow is the number of stored cells of a full row (row marker and
// regular columns).
func cellsPerRow(t *schema.Table) float64 { return float64(len(t.Regulars) + 1) }

// measuredRows converts a measured cell count to rows.
func (e TableEstimate) measuredRows(t *schema.Table, cells float64) float64 {
	if cells <= 0 {
		return 0
	}
	if len(t.Clustering) == 0 {
		return 1
	}
	return cells / cellsPerRow(t)
}

// withMeasured replaces the estimate's sizes with measured ones.
func (e TableEstimate) withMeasured(t *schema.Table, m Measured) TableEstimate {
	e.EstimatedPartitionSizeBytes = e.PartitionSizeBytes
	e.Measured = true
	e.PartitionsCount = m.PartitionsCount
	e.PartitionsMeasured = m.PartitionsMeasured
	e.MaxPartitionSizeBytes = float64(m.MaxPartitionSize)
	e.P99PartitionSizeBytes = float64(m.P99PartitionSize)
	mean := float64(m.MeanPartitionSize)
	if mean == 0 {
		mean = float64(m.P50PartitionSize)
	}
	e.PartitionSizeBytes = mean
	if rows := e.measuredRows(t, float64(m.MeanCellCount)); rows > 0 {
		e.RowsPerPartition = rows
	} else if e.RowBytes > 0 && len(t.Clustering) > 0 {
		e.RowsPerPartition = mean / float64(e.RowBytes)
	} else {
		e.RowsPerPartition = 1
	}
	return e
}

// Estimate sizes a table's partitions. Rows per partition come from the
// workload, or from its write rate times the time bucket of the partition
// key; a table whose partitions grow with time and have no bucket is
// unbounded.
func Estimate(t *schema.Table, tw TableWorkload) TableEstimate {
	e := TableEstimate{Table: t.Keyspace + "." + t.Name, RowBytes: RowBytes(t, tw), Bounded: true}
	bucket, _ := bucketSeconds(t)
	switch {
	case tw.RowsPerPartition > 0:
		e.RowsPerPartition = tw.RowsPerPartition
	case tw.RowsPerSecondPerPartition > 0 && bucket > 0:
		e.RowsPerPartition = tw.RowsPerSecondPerPartition * float64(bucket)
	case tw.RowsPerSecondPerPartition > 0:
		e.Bounded = false
	case len(t.Clustering) == 0:
		e.RowsPerPartition = 1
	}
	if len(t.Clustering) == 0 {
		e.RowsPerPartition = 1
		e.Bounded = true
	}
	e.PartitionSizeBytes = e.RowsPerPartition*float64(e.RowBytes) + float64(StaticBytes(t, tw))
	return e
}
