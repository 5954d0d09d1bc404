package advisor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
)

// Finding is one problem found, with its fix and the seed it comes from.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Table    string   `json:"table"`
	Query    string   `json:"query"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
	Seed     string   `json:"seed"`
}

// Report is the advisor's answer.
type Report struct {
	Findings []Finding       `json:"findings"`
	Tables   []TableEstimate `json:"tables"`
}

// Options tune an analysis.
type Options struct {
	// Measured holds partition statistics measured by a live server, by
	// "ks.table"; they replace the formula's estimates.
	Measured map[string]Measured
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

func (noData) CheckWrite(*schema.Table, query.Consistency) error { return nil }
func (noData) Snapshot(context.Context, string, *schema.Keyspace, *schema.Table, time.Duration, bool) error {
	return nil
}
func (noData) LockPartitions(context.Context, []query.PartitionRef) (func(), error) {
	return func() {}, nil
}

type noTokens struct{}

func (noTokens) Token([]byte) int64 { return 0 }

// index is a secondary index the schema declares.
type index struct {
	name, column string
	sai          bool
	stmt         string
}

// tableFacts is what the workload does to one table.
type tableFacts struct {
	selects, ttlWrites, deletes bool
	limitedReads                bool
	updatedColumns              map[string]string // column -> a query updating it
}

// analyzer holds one analysis.
type analyzer struct {
	ctx       context.Context
	schema    *schema.Manager
	exec      *query.Executor
	sess      *query.Session
	workload  *Workload
	opts      Options
	report    *Report
	indexes   map[string][]index // by "ks.table"
	views     map[string]bool    // "ks.view" of materialized views
	estimates map[string]TableEstimate
	facts     map[string]*tableFacts
	// queryFindings are added after the table findings.
	queryFindings []Finding
	inQueries     bool
}

// Analyze lints the schema scripts (CQL DDL) and the workload's queries.
func Analyze(ctx context.Context, scripts []string, wl *Workload) (*Report, error) {
	return AnalyzeWithOptions(ctx, scripts, wl, Options{})
}

// AnalyzeWithOptions is Analyze with measured statistics.
func AnalyzeWithOptions(ctx context.Context, scripts []string, wl *Workload, opts Options) (*Report, error) {
	if wl == nil {
		wl = &Workload{}
	}
	m, err := schema.NewManager(nil)
	if err != nil {
		return nil, err
	}
	a := &analyzer{ctx: ctx, schema: m, sess: &query.Session{}, workload: wl, opts: opts, report: &Report{},
		indexes: map[string][]index{}, views: map[string]bool{}, estimates: map[string]TableEstimate{},
		facts: map[string]*tableFacts{}}
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
	tables := a.userTables()
	for _, t := range tables {
		est := Estimate(t, a.tableWorkload(t))
		if ms, ok := a.measured(t); ok {
			est = est.withMeasured(t, ms)
		} else if ms, ok := a.opts.Measured[qualified(t)]; ok {
			est.PartitionsCount = ms.PartitionsCount // counted, but no size measured yet
		}
		a.estimates[qualified(t)] = est
	}
	a.inQueries = true
	a.checkQueries()
	a.inQueries = false
	for _, t := range tables {
		a.checkTable(t)
	}
	a.checkIndexes()
	for _, t := range tables {
		a.report.Tables = append(a.report.Tables, a.estimates[qualified(t)])
	}
	a.report.Findings = append(a.report.Findings, a.queryFindings...)
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

func qualified(t *schema.Table) string { return t.Keyspace + "." + t.Name }

func (a *analyzer) add(rule, table, q, msg, fix string) {
	a.addSev(rule, "", table, q, msg, fix)
}

// addSev adds a finding with a severity other than the rule's default.
func (a *analyzer) addSev(rule string, sev Severity, table, q, msg, fix string) {
	r, ok := Rules[rule]
	if !ok {
		panic("advisor: unknown rule " + rule) // a programming error
	}
	if sev == "" {
		sev = r.Severity
	}
	f := Finding{Rule: rule, Severity: sev, Table: table, Query: q, Message: msg, Fix: fix, Seed: r.Seed}
	if a.inQueries {
		a.queryFindings = append(a.queryFindings, f)
		return
	}
	a.report.Findings = append(a.report.Findings, f)
}

func (a *analyzer) applySchemaStatement(st cql.Statement) {
	switch x := st.(type) {
	case *cql.CreateIndex:
		a.createIndex(x)
		return
	case *cql.CreateMaterializedView:
		a.createView(x)
		return
	}
	text := cql.Format(st)
	res, err := a.exec.Query(a.ctx, a.sess, text, nil)
	if err != nil {
		msg := cqlerr.As(err).Message
		if strings.Contains(msg, "Cannot mix counter and non counter columns") {
			a.add("counter-mixed", tableName(st, a.sess.Keyspace), text, msg,
				"Move the counters to a table of their own keyed like this one (seed 000's user_stats), and update both.")
			return
		}
		a.add("invalid-statement", tableName(st, a.sess.Keyspace), text, msg,
			"Fix the statement: Cassandra refuses it with this error.")
		return
	}
	if res.Kind == query.SetKeyspaceResult {
		a.sess.Keyspace = res.Keyspace
	}
}

func tableName(st cql.Statement, ks string) string {
	if ct, ok := st.(*cql.CreateTable); ok {
		k := ct.Name.Keyspace
		if k == "" {
			k = ks
		}
		return k + "." + ct.Name.Name
	}
	return ""
}

func (a *analyzer) lookup(name cql.QualifiedName) *schema.Table {
	ks := name.Keyspace
	if ks == "" {
		ks = a.sess.Keyspace
	}
	return a.schema.Current().Table(ks, name.Name)
}

// createIndex records a secondary index. The query layer learns of it too
// when it supports indexes; the advisor keeps its own list either way.
func (a *analyzer) createIndex(ci *cql.CreateIndex) {
	text := cql.Format(ci)
	t := a.lookup(ci.Table)
	if t == nil {
		a.add("invalid-statement", "", text, fmt.Sprintf("Table '%s' doesn't exist", ci.Table.Name), "Create the table before its index.")
		return
	}
	if len(ci.Targets) == 0 {
		return
	}
	col := ci.Targets[0].Column
	if t.Column(col) == nil {
		a.add("invalid-statement", qualified(t), text, fmt.Sprintf("Undefined column name %s in table %s", col, qualified(t)), "Index a column of the table.")
		return
	}
	a.exec.Query(a.ctx, a.sess, text, nil) // best effort: an executor without indexes refuses it
	using := strings.ToLower(ci.Using)
	sai := strings.Contains(using, "sai") || strings.Contains(using, "storageattached")
	name := ci.Name.Name
	if name == "" {
		name = t.Name + "_" + col + "_idx"
	}
	a.indexes[qualified(t)] = append(a.indexes[qualified(t)], index{name: name, column: col, sai: sai, stmt: text})
}

// createView reports the view and declares it as a table (its columns and
// key), so that queries against it compile.
func (a *analyzer) createView(v *cql.CreateMaterializedView) {
	text := cql.Format(v)
	base := a.lookup(v.Select.Table)
	ks := v.Name.Keyspace
	if ks == "" {
		ks = a.sess.Keyspace
	}
	name := ks + "." + v.Name.Name
	baseName := v.Select.Table.Name
	if base != nil {
		baseName = qualified(base)
	}
	a.add("materialized-view-reliance", name, text,
		fmt.Sprintf("Materialized view %s of %s: Cassandra marks views experimental; they can lag or diverge from the base table and every base write costs a read-before-write.", name, baseName),
		"Create an ordinary table keyed for the query and write it from the application with the base table in a logged batch (seed 000's users_by_email).")
	a.views[name] = true
	if base == nil {
		return
	}
	var cols []cql.ColumnDef
	want := map[string]bool{}
	for _, s := range v.Select.Selectors {
		if c, ok := s.Expr.(*cql.ColumnSel); ok {
			want[c.Name] = true
		}
	}
	for _, k := range append(append([]string(nil), v.PartitionKey...), v.Clustering...) {
		want[k] = true
	}
	for _, c := range base.Columns {
		if !v.Select.Star && !want[c.Name] {
			continue
		}
		te, err := cql.ParseType(c.Type.String())
		if err != nil {
			return
		}
		cols = append(cols, cql.ColumnDef{Name: c.Name, Type: te})
	}
	ct := &cql.CreateTable{Name: cql.QualifiedName{Keyspace: ks, Name: v.Name.Name}, Columns: cols,
		PartitionKey: v.PartitionKey, Clustering: v.Clustering, ClusteringOrder: v.ClusteringOrder}
	a.exec.Query(a.ctx, a.sess, cql.Format(ct), nil)
}

func (a *analyzer) userTables() []*schema.Table { return a.schema.Current().UserTables() }

// tableWorkload finds a table's expectations by "ks.table" or "table".
func (a *analyzer) tableWorkload(t *schema.Table) TableWorkload {
	if tw, ok := a.workload.Tables[qualified(t)]; ok {
		return tw
	}
	return a.workload.Tables[t.Name]
}

func (a *analyzer) measured(t *schema.Table) (Measured, bool) {
	m, ok := a.opts.Measured[qualified(t)]
	return m, ok && m.known()
}

func (a *analyzer) fact(t *schema.Table) *tableFacts {
	f := a.facts[qualified(t)]
	if f == nil {
		f = &tableFacts{updatedColumns: map[string]string{}}
		a.facts[qualified(t)] = f
	}
	return f
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
