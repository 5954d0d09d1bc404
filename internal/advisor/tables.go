package advisor

import (
	"fmt"
	"strings"

	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Column-name heuristics, used when the workload says nothing about a
// column's cardinality.
var lowCardinalityNames = []string{"status", "state", "type", "gender", "category", "flag", "active", "enabled",
	"country", "kind", "level", "priority", "size", "color", "colour", "year"}

var highCardinalityNames = []string{"id", "email", "phone", "username", "uuid", "timestamp", "time", "at"}

var currencyNames = []string{"price", "amount", "total", "cost", "balance", "money", "salary", "fee", "spent", "revenue"}

var sequenceNames = []string{"seq", "sequence", "next_id", "id", "ids", "serial", "auto_increment", "autoincrement"}

var orderedNames = []string{"time", "date", "day", "hour", "month", "year", "at", "timestamp", "price", "amount",
	"count", "number", "num", "score", "rank", "version", "seq"}

// nameIs reports whether name is one of words or ends with "_"+word.
func nameIs(name string, words []string) bool {
	n := strings.ToLower(name)
	for _, w := range words {
		if n == w || strings.HasSuffix(n, "_"+w) {
			return true
		}
	}
	return false
}

// cardinality of a column: -1 low, +1 high, 0 unknown.
func cardinality(c *schema.Column, tw TableWorkload) int {
	if n, ok := tw.DistinctValues[c.Name]; ok {
		if n < 1000 {
			return -1
		}
		return 1
	}
	switch c.Type.Kind {
	case types.Boolean:
		return -1
	case types.UUID, types.Timeuuid, types.Timestamp:
		return 1
	}
	switch {
	case nameIs(c.Name, lowCardinalityNames):
		return -1
	case nameIs(c.Name, highCardinalityNames):
		return 1
	}
	return 0
}

// identifying reports whether a column looks like an identifier.
func identifying(c *schema.Column) bool {
	k := c.Type.Kind
	return k == types.UUID || k == types.Timeuuid ||
		nameIs(c.Name, []string{"id", "key", "number", "code", "no", "email", "username", "name", "sku"})
}

func isTimeKind(k types.Kind) bool {
	return k == types.Timestamp || k == types.Timeuuid
}

// isTimeSeries reports whether rows are ordered by time inside partitions.
func isTimeSeries(t *schema.Table) bool {
	return len(t.Clustering) > 0 && isTimeKind(t.Clustering[0].Type.Kind)
}

func (a *analyzer) checkTable(t *schema.Table) {
	name := qualified(t)
	tw := a.tableWorkload(t)
	est := a.estimates[name]
	facts := a.fact(t)
	ms, measured := a.measured(t)

	// Time-only partition keys (seed 003's "ddmmyyhh").
	timeOnly := true
	for _, c := range t.PartitionKey {
		k := c.Type.Kind
		_, bucketName := bucketSeconds(&schema.Table{PartitionKey: []*schema.Column{c}})
		if !(k == types.Date || k == types.Timestamp || k == types.Time || bucketName != "" && (k == types.Text || k == types.Int || k == types.Bigint)) {
			timeOnly = false
		}
	}
	if timeOnly {
		a.add("hot-partition", name, "",
			fmt.Sprintf("The partition key (%s) is only a time period: every write of that period goes to one partition, a moving hot spot (seed 003's \"ddmmyyhh\").", pkList(t)),
			"Add a discriminating column to the partition key (e.g. the event type or a shard number: (hour, event_type) or (hour, shard)).")
	}
	// Partition key cardinality (seed 001: a boolean key makes two
	// partitions; seed 000: status has only a few values).
	low := true
	for _, c := range t.PartitionKey {
		if cardinality(c, tw) >= 0 {
			low = false
		}
	}
	if tw.DistinctPartitionKeys > 0 {
		low = tw.DistinctPartitionKeys < 1000
	}
	if low {
		a.add("low-cardinality-partition-key", name, "",
			fmt.Sprintf("Partition key (%s) has few distinct values: all data lands in a handful of partitions and nodes, unevenly.", pkList(t)),
			"Choose a high-cardinality partition key (e.g. an id), or add a bucket column to the partition key (e.g. hash(id) % 10).")
	}
	// Timestamp alone as the clustering key (seed 003).
	if len(t.Clustering) == 1 && t.Clustering[0].Type.Kind == types.Timestamp {
		a.add("timestamp-clustering-collision", name, "",
			fmt.Sprintf("Clustering column %s is a timestamp alone: two writes in the same millisecond overwrite each other.", t.Clustering[0].Name),
			"Use a timeuuid clustering column, or add a unique column after the timestamp.")
	}
	a.checkUniqueKey(t)
	for _, c := range t.Clustering {
		k := c.Type.Kind
		if (k == types.Text || k == types.Ascii || k == types.Blob) && nameIs(c.Name, orderedNames) {
			a.add("string-sorted-clustering", name, "",
				fmt.Sprintf("Clustering column %s is %s but holds ordered values: rows sort as strings/bytes (\"10\" before \"9\"), so ranges and ORDER BY go wrong.", c.Name, c.Type),
				"Declare the clustering column with its real type (timestamp, date, int, decimal...).")
		}
	}

	// Growth and size (seed 000).
	bucket, _ := bucketSeconds(t)
	unbounded := true
	switch {
	case !est.Bounded:
		row := float64(est.RowBytes)
		perDay := tw.RowsPerSecondPerPartition * 86400 * row
		b := "day"
		if perDay > maxPartitionBytes {
			b = "hour"
		}
		a.add("unbounded-partition", name, "",
			fmt.Sprintf("Partitions grow without limit (%.4g rows/s per partition, no time bucket in the partition key): %s per day.",
				tw.RowsPerSecondPerPartition, humanBytes(perDay)),
			fmt.Sprintf("Add %s bucket to the partition key, e.g. PRIMARY KEY ((%s, %s), ...).", map[string]string{"day": "a day", "hour": "an hour"}[b], pkList(t), b))
	case isTimeSeries(t) && bucket == 0 && t.Params.DefaultTimeToLive == 0 && !facts.ttlWrites &&
		tw.RowsPerPartition == 0 && tw.RowsPerSecondPerPartition == 0 && !measured:
		a.addSev("unbounded-partition", Info, name, "",
			fmt.Sprintf("Rows are clustered by time (%s) with no time bucket in the partition key and no TTL: each partition likely grows forever.", t.Clustering[0].Name),
			fmt.Sprintf("Give rows_per_second_per_partition in the workload to size it, or add a time bucket sized from the rate: PRIMARY KEY ((%s, day), ...), or month for slow growth (seed 004's client_updates).", pkList(t)))
		est.Bounded = false
		a.estimates[name] = est
	default:
		unbounded = false
	}
	size, rows := est.PartitionSizeBytes, est.RowsPerPartition
	what := "Estimated"
	if measured && ms.MaxPartitionSize > 0 {
		size, what = float64(ms.MaxPartitionSize), "Measured largest"
		if rpc := est.measuredRows(t, float64(ms.MaxCellCount)); rpc > 0 {
			rows = rpc
		}
	} else if measured {
		what = "Measured mean"
	}
	if size > maxPartitionBytes {
		a.add("partition-too-large", name, "",
			fmt.Sprintf("%s partition size %s (%.0f rows × %d B) is over 100 MB; aim for 10–100 MB.",
				what, humanBytes(size), rows, est.RowBytes),
			"Split partitions with a smaller time bucket (hour instead of day) or another partition key column.")
	}
	if rows > maxRowsPerPartition {
		a.add("too-many-rows", name, "",
			fmt.Sprintf("%.0f rows per partition is over 100,000.", rows),
			"Bound partitions with a bucket in the partition key.")
	}
	if measured && ms.PartitionsMeasured >= 10 && ms.P50PartitionSize > 0 &&
		ms.MaxPartitionSize > 10*ms.P50PartitionSize && ms.MaxPartitionSize > targetPartitionBytes {
		a.add("uneven-partitions", name, "",
			fmt.Sprintf("Measured partition sizes are very uneven: median %s, largest %s.", humanBytes(float64(ms.P50PartitionSize)), humanBytes(float64(ms.MaxPartitionSize))),
			"Find the skewed keys and spread them: add a bucket (time period or hash) to the partition key (seed 004's client_updates example).")
	}
	if measured && ms.P99TombstonesPerRead > 1000 {
		a.add("tombstone-heavy-reads", name, "",
			fmt.Sprintf("Reads scan many tombstones: %d per read at the 99th percentile (Cassandra warns at 1,000).", ms.P99TombstonesPerRead),
			"Stop deleting rows inside live partitions: expire data with TTL, or bucket by time and drop whole partitions.")
	}

	// Columns.
	for _, c := range append(append([]*schema.Column(nil), t.Regulars...), t.Statics...) {
		if c.Type.IsCollection() && tw.CollectionElements[c.Name] > 100 {
			a.add("large-collection", name, "",
				fmt.Sprintf("Collection %s is expected to hold %d elements; collections are read whole and are meant for small sets (~100 elements).", c.Name, tw.CollectionElements[c.Name]),
				"Model the elements as rows of a clustering column in a separate table.")
		}
		if n := tw.AvgValueBytes[c.Name]; n > maxValueBytes {
			a.add("large-value", name, "",
				fmt.Sprintf("Values of %s average %s: a value is read whole into memory; keep values to a few MB.", c.Name, humanBytes(float64(n))),
				"Split large objects into chunks (rows of a clustering column) or store them outside the database with a reference.")
		}
	}
	for _, c := range t.Columns {
		if c.Type.Kind == types.UDT && !c.Type.Frozen {
			a.add("udt-not-frozen", name, "",
				fmt.Sprintf("Column %s is a non-frozen UDT: each field is a separate cell, and field updates are the pattern seed 000 advises against.", c.Name),
				fmt.Sprintf("Declare it frozen<%s> and write the value whole.", c.Type))
		}
		if (c.Type.Kind == types.Float || c.Type.Kind == types.Double) && nameIs(c.Name, currencyNames) {
			a.add("float-for-currency", name, "",
				fmt.Sprintf("Column %s looks like money but is %s: binary floating point cannot represent cents exactly.", c.Name, c.Type),
				"Use decimal (or bigint cents).")
		}
		if c.Type.Kind == types.Counter && nameIs(c.Name, sequenceNames) {
			a.add("counter-sequence", name, "",
				fmt.Sprintf("Counter %s looks like a sequence or id generator: counters are not sequences, concurrent increments hand out duplicate numbers.", c.Name),
				"Use timeuuid (or uuid) surrogate keys; counters are for counting.")
		}
	}

	// TTL (seed 003: decide it up front; seed 004: TWCS, gc_grace_seconds).
	timeSeries := isTimeSeries(t) || bucket > 0 && len(t.Clustering) > 0 && t.Clustering[0].Type.Kind == types.Date
	if timeSeries && !t.IsCounter && !unbounded &&
		t.Params.DefaultTimeToLive == 0 && !facts.ttlWrites {
		a.add("time-series-without-ttl", name, "",
			"Time-series rows are written without a TTL: unless the history is kept forever, purging it later means reading and deleting every row.",
			"Decide the retention up front: WITH default_time_to_live = N (or USING TTL on writes); keep no TTL only for data kept forever.")
	}
	if t.Params.DefaultTimeToLive > 0 {
		var tips []string
		if !strings.Contains(t.Params.Compaction["class"], "TimeWindowCompactionStrategy") {
			tips = append(tips, "use TimeWindowCompactionStrategy so whole SSTables expire together")
		}
		if !facts.deletes && t.Params.GCGraceSeconds >= 864000 {
			tips = append(tips, "lower gc_grace_seconds, since data is removed only by TTL")
		}
		if len(tips) > 0 {
			a.add("ttl-table-tuning", name, "",
				fmt.Sprintf("The table expires its data (default_time_to_live = %d): %s.", t.Params.DefaultTimeToLive, strings.Join(tips, "; ")),
				"WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1} AND gc_grace_seconds = 10800 (keep it above your repair interval when you also delete).")
		}
	}
	if len(a.workload.Queries) > 0 && !facts.selects && a.workloadSelects() {
		a.add("table-without-query", name, "",
			"No query of the workload reads this table.",
			"Design tables from the queries: drop the table, or add the query it serves to the workload.")
	}
}

// checkUniqueKey looks for identifiers left out of the primary key (seed
// 002/003: no unique constraint, an upsert silently overwrites).
func (a *analyzer) checkUniqueKey(t *schema.Table) {
	var keyID bool
	times, others := 0, 0
	for _, c := range append(append([]*schema.Column(nil), t.PartitionKey...), t.Clustering...) {
		if identifying(c) {
			keyID = true
		}
	}
	for _, c := range t.Clustering {
		if isTimeKind(c.Type.Kind) {
			times++
		} else {
			others++
		}
	}
	if keyID || (times > 0 && others > 0) {
		return // an identifier, or seed 004's time + type alternate key
	}
	for _, c := range t.Regulars {
		if c.Type.Kind == types.UUID || c.Type.Kind == types.Timeuuid || nameIs(c.Name, []string{"id"}) {
			a.add("key-not-unique", qualified(t), "",
				fmt.Sprintf("%s identifies a row but is not in the primary key (%s): two rows with equal keys silently overwrite each other.", c.Name, keyColumns(t)),
				fmt.Sprintf("Add %s as the last clustering column.", c.Name))
			return
		}
	}
}

func keyColumns(t *schema.Table) string {
	var names []string
	for _, c := range append(append([]*schema.Column(nil), t.PartitionKey...), t.Clustering...) {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

func (a *analyzer) workloadSelects() bool {
	for _, f := range a.facts {
		if f.selects {
			return true
		}
	}
	return false
}

// checkIndexes checks each secondary index's cardinality and updates.
func (a *analyzer) checkIndexes() {
	for _, t := range a.userTables() {
		name := qualified(t)
		tw := a.tableWorkload(t)
		for _, ix := range a.indexes[name] {
			c := t.Column(ix.column)
			card := cardinality(c, tw)
			switch {
			case ix.sai:
				// Storage-attached indexes handle high cardinality; their
				// queries are checked like the others.
			case card > 0:
				a.add("secondary-index-high-cardinality", name, ix.stmt,
					fmt.Sprintf("Index %s is on %s, a high-cardinality column: each lookup asks every node for a handful of rows.", ix.name, ix.column),
					fmt.Sprintf("Create a table partitioned by %s instead, written with the base table in a logged batch.", ix.column))
			case card == 0:
				a.add("secondary-index", name, ix.stmt,
					fmt.Sprintf("Index %s on %s: its cardinality is unknown; an index suits columns of much lower cardinality than the table.", ix.name, ix.column),
					fmt.Sprintf("Give distinct_values: {%s: N} in the workload; above a few thousand values prefer a table keyed by %s.", ix.column, ix.column))
			}
			if q, ok := a.fact(t).updatedColumns[ix.column]; ok {
				a.add("secondary-index-frequent-updates", name, q,
					fmt.Sprintf("The workload updates the indexed column %s: every change rewrites index entries on the node that holds the row.", ix.column),
					"Index columns whose values rarely change, or keep a table keyed by this column and update it in the same logged batch.")
			}
		}
	}
}
