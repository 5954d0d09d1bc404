package advisor

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Finding is one problem found, with its fix and the seed it comes from.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Table    string   `json:"table,omitempty"`
	Query    string   `json:"query,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
	Seed     string   `json:"seed"`
}

// Report is the advisor's answer.
type Report struct {
	Findings []Finding       `json:"findings"`
	Tables   []TableEstimate `json:"tables"`
}

// noData is the coordinator of the advisor's executor: the advisor compiles
// statements against a schema and never reads or writes data.
type noData struct{}

func (noData) Mutate(context.Context, *schema.Table, query.Consistency, []*mutation.PartitionUpdate) error {
	return nil
}
func (noData) Read(context.Context, *schema.Table, query.Consistency, *mutation.ReadCommand) ([]mutation.Partition, error) {
	return nil, nil
}
func (noData) Truncate(context.Context, *schema.Table) error { return nil }
func (noData) LockPartitions(context.Context, []query.PartitionRef) (func(), error) {
	return func() {}, nil
}

type noTokens struct{}

func (noTokens) Token([]byte) int64 { return 0 }

// analyzer holds one analysis.
type analyzer struct {
	ctx      context.Context
	schema   *schema.Manager
	exec     *query.Executor
	sess     *query.Session
	workload *Workload
	report   *Report
}

// Analyze lints the schema scripts (CQL DDL) and the workload's queries.
func Analyze(ctx context.Context, scripts []string, wl *Workload) (*Report, error) {
	if wl == nil {
		wl = &Workload{}
	}
	m, err := schema.NewManager(nil)
	if err != nil {
		return nil, err
	}
	a := &analyzer{ctx: ctx, schema: m, sess: &query.Session{}, workload: wl, report: &Report{}}
	a.exec = query.New(query.Config{Schema: m, Coordinator: noData{}, Partitioner: noTokens{}})
	for _, src := range scripts {
		stmts, err := cql.ParseStatements(src)
		if err != nil {
			return nil, err
		}
		for _, st := range stmts {
			a.applySchemaStatement(st)
		}
	}
	for _, t := range a.userTables() {
		a.checkTable(t)
	}
	a.checkQueries()
	sort.SliceStable(a.report.Findings, func(i, j int) bool {
		fi, fj := a.report.Findings[i], a.report.Findings[j]
		if fi.Table != fj.Table {
			return fi.Table < fj.Table
		}
		return severityRank(fi.Severity) > severityRank(fj.Severity)
	})
	return a.report, nil
}

func severityRank(s Severity) int {
	switch s {
	case Error:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// AtLeast reports whether the report has a finding of severity s or worse.
func (r *Report) AtLeast(s Severity) bool {
	for _, f := range r.Findings {
		if severityRank(f.Severity) >= severityRank(s) {
			return true
		}
	}
	return false
}

func (a *analyzer) add(rule, table, q, msg, fix string) {
	r := Rules[rule]
	a.report.Findings = append(a.report.Findings, Finding{Rule: rule, Severity: r.Severity, Table: table, Query: q,
		Message: msg, Fix: fix, Seed: r.Seed})
}

func (a *analyzer) applySchemaStatement(st cql.Statement) {
	switch x := st.(type) {
	case *cql.Unsupported:
		a.unsupported(x.Feature)
		return
	case *cql.CreateIndex, *cql.CreateMaterializedView:
		a.unsupported(cql.StatementName(x))
		return
	}
	text := cql.Format(st)
	res, err := a.exec.Query(a.ctx, a.sess, text, nil)
	if err != nil {
		a.add("invalid-statement", "", text, cqlerr.As(err).Message,
			"Fix the statement: Cassandra refuses it with this error.")
		return
	}
	if res.Kind == query.SetKeyspaceResult {
		a.sess.Keyspace = res.Keyspace
	}
}

func (a *analyzer) unsupported(feature string) {
	switch {
	case strings.Contains(feature, "MATERIALIZED VIEW"):
		a.add("materialized-view-reliance", "", feature, "The model relies on a materialized view.",
			"Prefer a denormalized table written by the application (one table per query); views are experimental in Cassandra and lag their base table.")
	case strings.Contains(feature, "INDEX"):
		a.add("secondary-index", "", feature, "The model uses a secondary index as an access path.",
			"Index only columns of much lower cardinality than the table, never as the primary access path; otherwise add a table keyed for the query.")
	}
}

func (a *analyzer) userTables() []*schema.Table {
	s := a.schema.Current()
	var out []*schema.Table
	for _, ksName := range s.KeyspaceNames() {
		if schema.IsSystemKeyspace(ksName) {
			continue
		}
		ks := s.Keyspaces[ksName]
		for _, tn := range ks.TableNames() {
			out = append(out, ks.Tables[tn])
		}
	}
	return out
}

// tableWorkload finds a table's expectations by "ks.table" or "table".
func (a *analyzer) tableWorkload(t *schema.Table) TableWorkload {
	if tw, ok := a.workload.Tables[t.Keyspace+"."+t.Name]; ok {
		return tw
	}
	return a.workload.Tables[t.Name]
}

var lowCardinalityNames = []string{"status", "state", "type", "gender", "category", "flag", "active", "enabled", "country", "kind", "level", "priority"}

func (a *analyzer) checkTable(t *schema.Table) {
	name := t.Keyspace + "." + t.Name
	tw := a.tableWorkload(t)
	est := Estimate(t, tw)
	a.report.Tables = append(a.report.Tables, est)

	// Partition key cardinality (seed 001: a boolean key makes two
	// partitions; seed 000: status has only a few values).
	if len(t.PartitionKey) == 1 {
		pk := t.PartitionKey[0]
		low := pk.Type.Kind == types.Boolean
		for _, n := range lowCardinalityNames {
			if strings.EqualFold(pk.Name, n) || strings.HasSuffix(strings.ToLower(pk.Name), "_"+n) {
				low = true
			}
		}
		if tw.DistinctPartitionKeys > 0 {
			low = tw.DistinctPartitionKeys < 1000
		}
		if low {
			a.add("low-cardinality-partition-key", name, "",
				fmt.Sprintf("Partition key %s has few distinct values: all data lands in a handful of partitions and nodes.", pk.Name),
				"Choose a high-cardinality partition key (e.g. an id), or add a bucket column to the partition key (e.g. hash(id) % 10).")
		}
	}
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
			"The partition key is only a time period: every write of that period goes to one partition, a moving hot spot.",
			"Add a discriminating column to the partition key (e.g. the event type or a shard number: (hour, event_type) or (hour, shard)).")
	}
	// Timestamp alone as the clustering key (seed 003).
	if len(t.Clustering) == 1 && t.Clustering[0].Type.Kind == types.Timestamp {
		a.add("timestamp-clustering-collision", name, "",
			fmt.Sprintf("Clustering column %s is a timestamp alone: two writes in the same millisecond overwrite each other.", t.Clustering[0].Name),
			"Use a timeuuid clustering column, or add a unique column after the timestamp.")
	}
	// Growth and size (seed 000).
	if !est.Bounded {
		row := float64(est.RowBytes)
		perDay := tw.RowsPerSecondPerPartition * 86400 * row
		bucket := "day"
		if perDay > maxPartitionBytes {
			bucket = "hour"
		}
		a.add("unbounded-partition", name, "",
			fmt.Sprintf("Partitions grow without limit (%.4g rows/s per partition, no time bucket in the partition key): %s per day.",
				tw.RowsPerSecondPerPartition, humanBytes(perDay)),
			fmt.Sprintf("Add %s bucket to the partition key, e.g. PRIMARY KEY ((%s, %s), ...).", map[string]string{"day": "a day", "hour": "an hour"}[bucket], pkList(t), bucket))
	}
	if est.PartitionSizeBytes > maxPartitionBytes {
		a.add("partition-too-large", name, "",
			fmt.Sprintf("Estimated partition size %s (%.0f rows × %d B) is over 100 MB; aim for 10–100 MB.",
				humanBytes(est.PartitionSizeBytes), est.RowsPerPartition, est.RowBytes),
			"Split partitions with a smaller time bucket (hour instead of day) or another partition key column.")
	}
	if est.RowsPerPartition > maxRowsPerPartition {
		a.add("too-many-rows", name, "",
			fmt.Sprintf("%.0f rows per partition is over 100,000.", est.RowsPerPartition),
			"Bound partitions with a bucket in the partition key.")
	}
	for _, c := range append(append([]*schema.Column(nil), t.Regulars...), t.Statics...) {
		if c.Type.IsCollection() && tw.CollectionElements[c.Name] > 100 {
			a.add("large-collection", name, "",
				fmt.Sprintf("Collection %s is expected to hold %d elements; collections are read whole and are meant for small sets.", c.Name, tw.CollectionElements[c.Name]),
				"Model the elements as rows of a clustering column instead.")
		}
	}
}

func pkList(t *schema.Table) string {
	names := make([]string, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func humanBytes(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f KB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}
