package advisor

// Severity of a finding.
type Severity string

const (
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Seed documents, by file name (what findings cite).
const (
	seedConcepts  = "000_758ac974c12676ad.txt" // data modeling concepts, sizing formula
	seedLayout    = "001_d2092406c5fe83e1.txt" // data layout, partition key choice
	seedLogical   = "002_9456e66e2e8d68a8.txt" // logical model, Chebotko, queue anti-pattern
	seedPractices = "003_6641ac8c651a874b.txt" // best practices part 2
	seedMethod    = "004_dc6475e47b2cfcc5.txt" // methodical approach, log_messages example
)

// Rule is one check with a stable id.
type Rule struct {
	ID       string
	Severity Severity
	Seed     string
}

// Rules, by id. Ids are an interface: tools and tests match on them.
var Rules = map[string]Rule{
	"partition-key-missing":            {"partition-key-missing", Error, seedConcepts},
	"clustering-skipped":               {"clustering-skipped", Error, seedConcepts},
	"range-not-last":                   {"range-not-last", Error, seedConcepts},
	"allow-filtering":                  {"allow-filtering", Warning, seedConcepts},
	"missing-column":                   {"missing-column", Error, seedLogical},
	"low-cardinality-partition-key":    {"low-cardinality-partition-key", Warning, seedLayout},
	"unbounded-partition":              {"unbounded-partition", Warning, seedConcepts},
	"partition-too-large":              {"partition-too-large", Warning, seedConcepts},
	"partition-size-borderline":        {"partition-size-borderline", Info, seedConcepts},
	"too-many-rows":                    {"too-many-rows", Warning, seedConcepts},
	"hot-partition":                    {"hot-partition", Warning, seedPractices},
	"timestamp-clustering-collision":   {"timestamp-clustering-collision", Info, seedPractices},
	"sort-order-mismatch":              {"sort-order-mismatch", Info, seedConcepts},
	"secondary-index-high-cardinality": {"secondary-index-high-cardinality", Warning, seedMethod},
	"secondary-index":                  {"secondary-index", Info, seedMethod},
	"materialized-view-reliance":       {"materialized-view-reliance", Warning, seedMethod},
	"queue-pattern":                    {"queue-pattern", Warning, seedLogical},
	"deletes-without-ttl":              {"deletes-without-ttl", Info, seedLogical},
	"large-collection":                 {"large-collection", Warning, seedConcepts},
	"counter-sequence":                 {"counter-sequence", Warning, seedPractices},
	"unsupported-statement":            {"unsupported-statement", Info, seedConcepts},
	"invalid-statement":                {"invalid-statement", Error, seedConcepts},
}
