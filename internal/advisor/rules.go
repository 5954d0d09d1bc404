package advisor

import "sort"

// Severity of a finding.
type Severity string

const (
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Seed documents, by file name (what findings cite).
const (
	seedConcepts  = "000_758ac974c12676ad.txt" // data modeling concepts, sizing formula, do/don't lists
	seedLayout    = "001_d2092406c5fe83e1.txt" // data layout, partition key choice, product/category
	seedLogical   = "002_9456e66e2e8d68a8.txt" // logical model, Chebotko, queue anti-pattern
	seedPractices = "003_6641ac8c651a874b.txt" // best practices part 2 (eBay)
	seedMethod    = "004_dc6475e47b2cfcc5.txt" // methodical approach, log_messages example
)

// Rule is one check with a stable id.
type Rule struct {
	ID       string
	Severity Severity // default severity; a finding may be milder (see its text)
	Seed     string
	// Practice is the seed's own statement the rule checks.
	Practice string
}

// Rules, by id. Ids are an interface: tools and tests match on them.
var Rules = map[string]Rule{}

func rule(id string, sev Severity, seed, practice string) {
	Rules[id] = Rule{ID: id, Severity: sev, Seed: seed, Practice: practice}
}

func init() {
	// Queries against their table (the query layer's restriction analysis).
	rule("partition-key-missing", Error, seedConcepts, "Partition key required: without it, Cassandra does not know which node to ask")
	rule("clustering-skipped", Error, seedConcepts, "Clustering columns in order: they form a composite key, columns cannot be skipped")
	rule("range-not-last", Error, seedConcepts, "Range queries only on the last (restricted) clustering column")
	rule("allow-filtering", Warning, seedConcepts, "Don't use ALLOW FILTERING in production")
	rule("missing-column", Error, seedConcepts, "All columns needed by the query are present")
	rule("sort-order-mismatch", Info, seedConcepts, "Sort order matches query requirements")
	rule("in-many-partitions", Warning, seedLayout, "Minimise the number of partitions (and nodes) a query reads")
	rule("wide-partition-read", Info, seedPractices, "Wide rows, but not too wide: read a slice or a page, not an unbounded partition")
	rule("count-instead-of-counter", Info, seedConcepts, "Pre-compute aggregations: maintain a counter instead of SELECT COUNT(*)")
	rule("secondary-index-primary-access", Warning, seedConcepts, "Don't use secondary indexes as the primary access pattern")
	rule("table-without-query", Info, seedConcepts, "Start with queries: one table per query pattern")
	// Writes of the workload.
	rule("multi-table-write-without-batch", Warning, seedConcepts, "Use (logged) batches for atomic multi-table writes")
	rule("unlogged-batch-multi-table", Warning, seedConcepts, "A logged batch ensures all-or-nothing across denormalized tables")
	rule("queue-pattern", Warning, seedLogical, "Don't use Cassandra as a queue")
	rule("deletes-without-ttl", Warning, seedConcepts, "Don't perform frequent deletes: use TTL instead")
	rule("counter-not-idempotent", Info, seedPractices, "Design the data model such that operations are idempotent")
	rule("udt-field-update", Warning, seedConcepts, "Don't update individual UDT fields (use FROZEN)")
	rule("collection-growth", Info, seedConcepts, "Collections are for small sets (~100 elements); consider a separate table")
	rule("secondary-index-frequent-updates", Info, seedMethod, "Be aware of the frequency of updates of the indexed value")
	// Tables.
	rule("low-cardinality-partition-key", Warning, seedLayout, "Choose partition keys with high cardinality: a boolean or category key makes a few huge partitions")
	rule("hot-partition", Warning, seedPractices, "Choose the proper row key: a time period alone (\"ddmmyyhh\") is a moving hot spot")
	rule("unbounded-partition", Warning, seedConcepts, "Partitions should not grow forever: add a time bucket")
	rule("partition-too-large", Warning, seedConcepts, "Keep partitions bounded (target 10-100 MB)")
	rule("too-many-rows", Warning, seedConcepts, "Keep partitions bounded (over 100,000 rows is too wide)")
	rule("uneven-partitions", Warning, seedMethod, "Extremely large and/or very unevenly sized partitions cause issues")
	rule("tombstone-heavy-reads", Warning, seedLogical, "Deleted items are tombstones that reads must scan past")
	rule("timestamp-clustering-collision", Info, seedPractices, "Don't use timestamp alone as a column key: prefer timeuuid")
	rule("key-not-unique", Info, seedLogical, "Make sure the primary key defines a unique data element, or rows are silently overwritten")
	rule("manual-composite-key", Info, seedPractices, "Favor built-in composite types over manual construction (\"a|b\" strings)")
	rule("string-sorted-clustering", Info, seedPractices, "Use the proper comparator: a clustering column sorts by its type")
	rule("large-collection", Warning, seedConcepts, "Don't store large collections (> 100 elements)")
	rule("large-value", Warning, seedPractices, "Limit the size of a column value to a few MB")
	rule("udt-not-frozen", Info, seedConcepts, "FROZEN UDTs are stored as a single blob; don't update individual fields")
	rule("float-for-currency", Warning, seedConcepts, "Money: DECIMAL, never FLOAT")
	rule("time-series-without-ttl", Info, seedPractices, "Decide on the proper TTL up front; use TTL for temporary data")
	rule("ttl-table-tuning", Info, seedMethod, "Time-series data: TimeWindowCompactionStrategy; lower gc_grace_seconds when deleting only by TTL")
	rule("counter-sequence", Warning, seedPractices, "Don't use counters to generate surrogate keys: prefer timeuuid")
	rule("counter-mixed", Error, seedConcepts, "Counters live in their own tables (user_stats): they cannot be mixed with other columns")
	rule("secondary-index-high-cardinality", Warning, seedMethod, "Index only columns of significantly lower cardinality than the table")
	rule("secondary-index", Info, seedMethod, "A secondary index is an alternative to a denormalized table; mind its cardinality")
	rule("materialized-view-reliance", Warning, seedConcepts, "Don't rely on Cassandra materialized views: denormalize manually")
	// Statements.
	rule("invalid-statement", Error, seedConcepts, "Cassandra refuses the statement")
}

// RuleIDs returns the ids of every rule, sorted.
func RuleIDs() []string {
	ids := make([]string, 0, len(Rules))
	for id := range Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
