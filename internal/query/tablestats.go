package query

import (
	"math"
	"sort"
	"strconv"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// HistogramSummary summarises an estimated histogram (Cassandra's
// EstimatedHistogram: values are bucket upper bounds).
type HistogramSummary struct {
	Count                         int64
	Mean, P50, P75, P95, P99, Max int64
}

// TableStatistics is what this node's storage engine measured of a table's
// partitions: histograms sampled on reads (a partition's size and cell count
// are recorded when a read covers the whole partition).
type TableStatistics struct {
	Reads             int64
	PartitionSize     HistogramSummary // bytes stored
	CellCount         HistogramSummary
	TombstonesPerRead HistogramSummary
}

// TableStatsSource supplies per-table statistics for system.size_estimates,
// system.table_estimates and system_views.cqld_table_histograms. The node
// composes it from the storage engine (the query layer never touches
// storage).
type TableStatsSource interface {
	TableStatistics(t *schema.Table) TableStatistics
	// PartitionCounts returns the number of partitions of t stored on this
	// node in each token range (ends[i-1], ends[i]] of the sorted range
	// ends; range 0 wraps around from the last end. It may extrapolate for
	// very large tables.
	PartitionCounts(t *schema.Table, ends []int64) []int64
}

// localRanges returns this node's sorted token range ends (one range per
// token, each ending at the token, as Cassandra's local primary ranges).
func (e *Executor) localRanges() []int64 {
	var tokens []int64
	if e.cfg.Node != nil {
		tokens = append(tokens, e.cfg.Node.Local().Tokens...)
	}
	if len(tokens) == 0 {
		tokens = []int64{math.MinInt64}
	}
	sort.Slice(tokens, func(i, j int) bool { return tokens[i] < tokens[j] })
	return tokens
}

// addTableStatsRows fills the statistics tables. Without a statistics
// source (the advisor's offline executor, tests) they are empty.
//
//   - system.size_estimates (Cassandra's layout): one row per user table and
//     local token range (range_start, range_end], with partitions_count (the
//     partitions stored in the range) and mean_partition_size (bytes, from
//     the partition-size histogram).
//   - system.table_estimates: the same rows with range_type 'local_primary'
//     and 'primary' (one node: they are the same ranges).
//   - system_views.cqld_table_histograms (cqld-specific, the numbers of
//     nodetool tablehistograms): per user table, reads; partitions_measured
//     (partitions read whole, which is when a size is recorded); mean, p50,
//     p75, p95, p99 and max partition size in bytes; mean, p50, p99 and max
//     cells per partition; p50, p99 and max tombstones scanned per read.
//     Percentiles are histogram bucket bounds, capped at the maximum.
func (e *Executor) addTableStatsRows(v *virtualTable, s *schema.Schema, addRow func(pk []byte, fill func(r *virtualRow), clustering ...[]byte)) {
	src := e.cfg.TableStats
	if src == nil {
		return
	}
	big := func(n int64) []byte { return types.EncodeBigint(n) }
	switch v.t.Keyspace + "." + v.t.Name {
	case "system.size_estimates", "system.table_estimates":
		ends := e.localRanges()
		for _, t := range s.UserTables() {
			counts := src.PartitionCounts(t, ends)
			mean := src.TableStatistics(t).PartitionSize.Mean
			for i, end := range ends {
				start := ends[(i+len(ends)-1)%len(ends)]
				if len(ends) == 1 {
					start = end
				}
				n := int64(0)
				if i < len(counts) {
					n = counts[i]
				}
				fill := func(r *virtualRow) {
					r.set("mean_partition_size", big(mean)).set("partitions_count", big(n))
				}
				rs, re := text(strconv.FormatInt(start, 10)), text(strconv.FormatInt(end, 10))
				if v.t.Name == "size_estimates" {
					addRow(text(t.Keyspace), fill, text(t.Name), rs, re)
				} else {
					// One node: its local primary ranges are its primary ranges.
					for _, kind := range []string{"local_primary", "primary"} {
						addRow(text(t.Keyspace), fill, text(t.Name), text(kind), rs, re)
					}
				}
			}
		}
	case schema.SystemViews + ".cqld_table_histograms":
		for _, t := range s.UserTables() {
			st := src.TableStatistics(t)
			addRow(text(t.Keyspace), func(r *virtualRow) {
				ps, cc, ts := st.PartitionSize, st.CellCount, st.TombstonesPerRead
				r.set("reads", big(st.Reads)).
					set("partitions_measured", big(ps.Count)).
					set("mean_partition_size", big(ps.Mean)).
					set("p50_partition_size", big(ps.P50)).
					set("p75_partition_size", big(ps.P75)).
					set("p95_partition_size", big(ps.P95)).
					set("p99_partition_size", big(ps.P99)).
					set("max_partition_size", big(ps.Max)).
					set("mean_cell_count", big(cc.Mean)).
					set("p50_cell_count", big(cc.P50)).
					set("p99_cell_count", big(cc.P99)).
					set("max_cell_count", big(cc.Max)).
					set("p50_tombstones_per_read", big(ts.P50)).
					set("p99_tombstones_per_read", big(ts.P99)).
					set("max_tombstones_per_read", big(ts.Max))
			}, text(t.Name))
		}
	}
}
