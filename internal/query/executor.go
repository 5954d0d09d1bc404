package query

import (
	"context"
	"crypto/md5"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Config wires an Executor.
type Config struct {
	Schema      *schema.Manager
	Coordinator Coordinator
	Partitioner Partitioner
	Node        NodeInfo
	// TableStats, when set, answers system.size_estimates and the other
	// statistics tables (tablestats.go).
	TableStats TableStatsSource
	Logger     *slog.Logger
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// OnSchemaChange, when set, is called after every successful schema
	// change (for events pushed to clients, and to drop data of dropped
	// tables).
	OnSchemaChange func(*SchemaChange)
	// Batch guardrails (cassandra.yaml batch_size_warn_threshold,
	// batch_size_fail_threshold in bytes, and
	// unlogged_batch_across_partitions_warn_threshold); 0 means
	// Cassandra's default, negative disables.
	BatchSizeWarnThreshold                     int64
	BatchSizeFailThreshold                     int64
	UnloggedBatchAcrossPartitionsWarnThreshold int
	// Security authenticates and authorizes; nil is Cassandra's default
	// (AllowAllAuthenticator, AllowAllAuthorizer).
	Security Security
	// MaterializedViewsEnabled is cassandra.yaml's
	// materialized_views_enabled (false by default, as in Cassandra 5.0).
	MaterializedViewsEnabled bool
	// DefaultSecondaryIndex is default_secondary_index, the
	// implementation of CREATE INDEX without USING ("" or
	// legacy_local_table: the legacy index). RequireIndexImplementation
	// is default_secondary_index_enabled set to false: CREATE INDEX then
	// needs USING.
	DefaultSecondaryIndex      string
	RequireIndexImplementation bool
	// UserDefinedFunctionsEnabled is user_defined_functions_enabled.
	UserDefinedFunctionsEnabled bool
	// DefaultKeyspaceRF is default_keyspace_rf: the replication factor of
	// a keyspace whose replication does not give one (0 means 1, the
	// default).
	DefaultKeyspaceRF int
	// DynamicDataMaskingEnabled is dynamic_data_masking_enabled (false
	// by default, as in Cassandra 5.0). cqld does not implement masking:
	// MASKED WITH is refused either way, with Cassandra's message when
	// disabled.
	DynamicDataMaskingEnabled bool
	// Guardrails are cassandra.yaml's guardrails (guardrails.go).
	Guardrails Guardrails
	// TraceTTL is trace_type_query_ttl in seconds: how long the rows of
	// a traced request live (0: they do not expire; the node's default
	// is one day).
	TraceTTL int32
	// Runtime, when set, answers the system_views tables (sysviews.go).
	Runtime RuntimeSource
	// PersistPreparedStatements keeps prepared statements in
	// system.prepared_statements (prepared.go).
	PersistPreparedStatements bool
	// PreparedStatementsCacheSize bounds the prepared statements cache,
	// in (estimated) bytes (prepared_statements_cache_size); 0 means no
	// bound.
	PreparedStatementsCacheSize int64
	// AutoSnapshot is auto_snapshot: TRUNCATE, DROP TABLE, DROP
	// MATERIALIZED VIEW and DROP KEYSPACE snapshot each table before its
	// data goes, unless the table's allow_auto_snapshot is false (the
	// node's default is true, as Cassandra's). AutoSnapshotTTL is
	// auto_snapshot_ttl: how long those snapshots live (0: until cleared).
	AutoSnapshot    bool
	AutoSnapshotTTL time.Duration
}

// Executor executes CQL statements. Safe for concurrent use.
type Executor struct {
	cfg    Config
	now    func() time.Time
	lastTS atomic.Int64
	// metrics are system_views.cql_metrics' counters.
	metrics cqlMetrics

	prepared *preparedCache

	views viewFilters
	// guardrailsOn is set when any guardrail is configured (guardrails.go).
	guardrailsOn bool
}

type preparedEntry struct {
	query    string
	keyspace string
	// weight and used are the cache's (prepcache.go).
	weight int64
	used   atomic.Int64
	// cur is the compiled statement; recompiled (under mu) when the schema
	// version it was compiled against is replaced. Executions read it
	// without locking: every EXECUTE of a hot statement used to take mu.
	mu  sync.Mutex
	cur atomic.Pointer[compiled]
}

func newPreparedEntry(query, keyspace string, c *compiled) *preparedEntry {
	pe := &preparedEntry{query: query, keyspace: keyspace}
	pe.cur.Store(c)
	return pe
}

// New returns an Executor.
func New(cfg Config) *Executor {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Executor{cfg: cfg, now: cfg.Now, prepared: newPreparedCache(cfg.PreparedStatementsCacheSize)}
	e.guardrailsOn = cfg.Guardrails.active()
	if e.now == nil {
		e.now = time.Now
	}
	return e
}

// timestamp returns a server-side write timestamp in microseconds, strictly
// increasing within this node like Cassandra's ClientState.
func (e *Executor) timestamp() int64 {
	now := e.now().UnixMicro()
	for {
		last := e.lastTS.Load()
		ts := now
		if ts <= last {
			ts = last + 1
		}
		if e.lastTS.CompareAndSwap(last, ts) {
			return ts
		}
	}
}

func (e *Executor) keyspaceFor(sess *Session, opts *Options) string {
	if opts != nil && opts.Keyspace != "" {
		return opts.Keyspace
	}
	if sess == nil {
		return ""
	}
	return sess.Keyspace
}

// Query parses and executes one statement.
func (e *Executor) Query(ctx context.Context, sess *Session, query string, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	defer e.beginTrace(ctx, "Execute CQL3 query", queryTraceParams(query, opts))()
	c, err := e.parseAndCompile(ctx, query, e.keyspaceFor(sess, opts))
	if err != nil {
		return nil, err
	}
	if err := bind(c, opts); err != nil {
		return nil, err
	}
	// QueryProcessor.process counts a statement once its values are
	// bound; the node's own queries are not counted.
	if sess == nil || !sess.Internal {
		e.metrics.regularExecuted.Add(1)
	}
	return e.run(ctx, sess, c, opts)
}

// parseAndCompile parses and compiles one statement, as
// QueryProcessor.getStatement traces it.
func (e *Executor) parseAndCompile(ctx context.Context, query, keyspace string) (*compiled, error) {
	ts := tracing.FromContext(ctx)
	if ts != nil {
		ts.Add(tracing.RequestThread, "Parsing "+query)
	}
	stmt, err := cql.Parse(query)
	if err != nil {
		return nil, err
	}
	if ts != nil {
		ts.Add(tracing.RequestThread, "Preparing statement")
	}
	return e.compile(stmt, keyspace)
}

// bind checks the bound values against the statement's markers and puts
// named values in marker order.
func bind(c *compiled, opts *Options) error {
	if got, want := len(opts.Values), len(c.bound); got != want {
		return cqlerr.Invalidf("There were %d markers(?) in CQL but %d bound variables", want, got)
	}
	return bindNames(c, opts)
}

// bindNames reorders named values into marker order.
func bindNames(c *compiled, opts *Options) error {
	if opts.Names == nil {
		return nil
	}
	vals := make([]Value, len(c.bound))
	for i, spec := range c.bound {
		found := false
		for j, n := range opts.Names {
			if n == spec.Name && j < len(opts.Values) {
				vals[i] = opts.Values[j]
				found = true
				break
			}
		}
		if !found {
			return cqlerr.Invalidf("No value for bound variable %s", spec.Name)
		}
	}
	opts.Values, opts.Names = vals, nil
	return nil
}

// preparedID is Cassandra's statement id: MD5 of keyspace + query.
func preparedID(keyspace, query string) [16]byte {
	return md5.Sum([]byte(keyspace + query))
}

// Prepare compiles a statement and caches it.
func (e *Executor) Prepare(ctx context.Context, sess *Session, query string, keyspace string) (*Prepared, error) {
	if keyspace == "" && sess != nil {
		keyspace = sess.Keyspace
	}
	defer e.beginTrace(ctx, "Preparing CQL3 query", func() map[string]string { return map[string]string{"query": query} })()
	return e.prepare(ctx, query, keyspace, e.cfg.PersistPreparedStatements)
}

// prepare compiles and caches a statement; persist writes a statement new
// to the cache to system.prepared_statements (prepared.go).
func (e *Executor) prepare(ctx context.Context, query, keyspace string, persist bool) (*Prepared, error) {
	c, err := e.parseAndCompile(ctx, query, keyspace)
	if err != nil {
		return nil, err
	}
	id := preparedID(keyspace, query)
	p := &Prepared{ID: id[:], Bound: c.bound, PKIndexes: c.pkIndexes, Columns: c.resultColumns()}
	known, evicted := e.prepared.put(id, newPreparedEntry(query, keyspace, c))
	if persist && !known {
		e.persistPrepared(ctx, id, keyspace, query)
	}
	if persist && len(evicted) > 0 {
		// QueryProcessor's eviction listener deletes an evicted
		// statement's row.
		keys := make([][]byte, len(evicted))
		for i := range evicted {
			keys[i] = evicted[i][:]
		}
		e.removePersistedPrepared(ctx, keys)
	}
	return p, nil
}

// lookupPrepared returns the compiled statement for id and its query
// string, recompiling it when the schema changed under it.
func (e *Executor) lookupPrepared(id []byte) (*compiled, string, error) {
	var key [16]byte
	if len(id) != 16 {
		return nil, "", &cqlerr.Error{Code: cqlerr.Unprepared, ID: id,
			Message: "Prepared query with ID " + hexString(id) + " not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)"}
	}
	copy(key[:], id)
	pe := e.prepared.get(key)
	if pe == nil {
		return nil, "", &cqlerr.Error{Code: cqlerr.Unprepared, ID: id,
			Message: "Prepared query with ID " + hexString(id) + " not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)"}
	}
	if c := pe.cur.Load(); c.schemaVersion == e.cfg.Schema.Current().Version {
		return c, pe.query, nil
	}
	c, err := e.recompile(pe)
	if err != nil {
		return nil, "", err
	}
	return c, pe.query, nil
}

// recompile returns pe's statement compiled against the current schema,
// compiling it again when the schema changed since.
func (e *Executor) recompile(pe *preparedEntry) (*compiled, error) {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	if c := pe.cur.Load(); c.schemaVersion == e.cfg.Schema.Current().Version {
		return c, nil
	}
	c, err := e.parseAndCompile(context.Background(), pe.query, pe.keyspace)
	if err != nil {
		return nil, err
	}
	pe.cur.Store(c)
	return c, nil
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2+2*len(b))
	out = append(out, '0', 'x')
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// Execute runs a prepared statement.
func (e *Executor) Execute(ctx context.Context, sess *Session, id []byte, resultMetadataID []byte, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	c, query, err := e.lookupPrepared(id)
	if err == nil {
		// Values are bound before the trace records them, as
		// ExecuteMessage prepares its options before traceQuery.
		err = bind(c, opts)
	}
	if err == nil {
		e.metrics.preparedExecuted.Add(1) // processPrepared, once bound
	}
	// Begun even when the statement is unknown: the client has the
	// session id, and Cassandra's stopSession writes the session then.
	defer e.beginTrace(ctx, "Execute CQL3 prepared query", executeTraceParams(query, c, opts))()
	if err != nil {
		return nil, err
	}
	return e.run(ctx, sess, c, opts)
}

// Batch executes a BATCH request: all its modifications are grouped by
// partition and applied together.
func (e *Executor) Batch(ctx context.Context, sess *Session, b *BatchRequest) (*Result, error) {
	var all []*modifyPlan
	var allOpts []*Options
	var gwarns []string
	// BatchMessage.traceQuery: no query strings, no values.
	defer e.beginTrace(ctx, "Execute batch of CQL3 queries", func() map[string]string { return optionParams(&b.Options) })()
	if Consistency(b.Options.Consistency) == NodeLocal {
		// A batch is not intercepted as a statement is: Cassandra's
		// ConsistencyLevel.blockFor fails on the level.
		return nil, cqlerr.Serverf("Invalid consistency level: NODE_LOCAL")
	}
	guard := e.guardrailsApply(ctx, sess)
	for i, bs := range b.Statements {
		var c *compiled
		if bs.ID != nil {
			cc, _, err := e.lookupPrepared(bs.ID)
			if err != nil {
				return nil, err
			}
			c = cc
		} else {
			cc, err := e.parseAndCompile(ctx, bs.Query, e.keyspaceFor(sess, &b.Options))
			if err != nil {
				return nil, err
			}
			c = cc
		}
		if c.modify == nil {
			return nil, cqlerr.Invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		}
		if err := e.authorize(ctx, sess, c); err != nil {
			return nil, err
		}
		o := b.Options
		o.Values, o.Names = bs.Values, bs.Names
		if len(o.Values) != len(c.bound) {
			return nil, cqlerr.Invalidf("There were %d markers(?) in CQL but %d bound variables", len(c.bound), len(o.Values))
		}
		if err := bindNames(c, &o); err != nil {
			return nil, err
		}
		if guard {
			w, err := e.guardBatchStatement(c, &o, i == 0)
			if err != nil {
				return nil, err
			}
			gwarns = append(gwarns, w...)
		}
		all = append(all, c.modify)
		allOpts = append(allOpts, &o)
	}
	res, err := e.executeBatchResult(ctx, cql.BatchType(b.Type), all, allOpts, &b.Options)
	if res != nil && len(gwarns) > 0 {
		res.Warnings = append(gwarns, res.Warnings...)
	}
	return res, err
}

// run executes a compiled statement.
func (e *Executor) run(ctx context.Context, sess *Session, c *compiled, opts *Options) (res *Result, err error) {
	if err := e.authorize(ctx, sess, c); err != nil {
		return nil, err
	}
	if e.guardrailsApply(ctx, sess) {
		cc, gw, err := e.checkGuardrails(ctx, c, opts)
		if err != nil {
			return nil, err
		}
		c = cc
		if len(gw) > 0 {
			defer func() {
				if res != nil {
					res.Warnings = append(gw, res.Warnings...)
				}
			}()
		}
	}
	if Consistency(opts.Consistency) == NodeLocal {
		// QueryProcessor.processNodeLocalStatement, without
		// -Dcassandra.enable_nodelocal_queries=true.
		return nil, cqlerr.Invalidf("NODE_LOCAL consistency level is highly dangerous and should be used only for debugging purposes")
	}
	if c.created != "" {
		defer func() {
			if err == nil && res != nil && res.Kind == SchemaChangeResult {
				e.cfg.Security.Created(ctx, sess, c.created)
			}
		}()
	}
	switch {
	case c.security != nil:
		return e.cfg.Security.Statement(ctx, sess, c.security)
	case c.sel != nil:
		if e.selectMasked(ctx, sess, c.sel.table) {
			ctx = withMasking(ctx)
		}
		// Storage adds client warnings (tombstone_warn_threshold) to
		// the request's collector.
		ctx, warns := cqlerr.WithWarnings(ctx)
		res, err := e.executeSelect(ctx, c, opts)
		if w := warns.List(); res != nil && len(w) > 0 {
			res.Warnings = append(res.Warnings, w...)
		}
		return res, err
	case c.modify != nil:
		return e.executeModify(ctx, c, opts)
	case c.batch != nil:
		return e.executeBatchPlan(ctx, c.batch, opts)
	case c.ddl != nil:
		return c.ddl(ctx, e)
	case c.describe != nil:
		return e.executeDescribe(c.describe, opts)
	case c.use != "":
		if sess != nil {
			sess.Keyspace = c.use
		}
		return &Result{Kind: SetKeyspaceResult, Keyspace: c.use}, nil
	}
	return nil, cqlerr.Serverf("internal error: empty compiled statement")
}

func (e *Executor) schemaChanged(sc *SchemaChange) *Result {
	if sc.Change == "DROPPED" || sc.Change == "UPDATED" && sc.Target == "TABLE" {
		table := ""
		if sc.Target == "TABLE" {
			table = sc.Name
		}
		e.invalidatePrepared(context.Background(), sc.Keyspace, table)
	}
	if e.cfg.OnSchemaChange != nil {
		e.cfg.OnSchemaChange(sc)
	}
	return &Result{Kind: SchemaChangeResult, SchemaChange: sc}
}

// compiled is a statement resolved against one schema version.
type compiled struct {
	schemaVersion [16]byte
	// schema is the version the statement was compiled against (for
	// user type lookups).
	schema    *schema.Schema
	bound     []ColumnSpec
	pkIndexes []uint16

	sel    *selectPlan
	modify *modifyPlan
	batch  *batchPlan
	ddl    func(ctx context.Context, e *Executor) (*Result, error)
	use    string
	// describe is a DESCRIBE statement (describe.go).
	describe *describePlan
	// security is a role or permission statement run by Config.Security.
	security cql.Statement
	// checks are the permissions the statement needs (with a Security);
	// created is the resource its success creates (security.go).
	checks  []permCheck
	created string
	// stmt and keyspace are the statement as parsed and the session's
	// keyspace (for guardrails.go).
	stmt     cql.Statement
	keyspace string
	// part is the partitioner, for token() used as a value (terms.go).
	part Partitioner
}

func (c *compiled) resultColumns() []ColumnSpec {
	if c.sel == nil {
		return nil
	}
	return c.sel.resultColumns
}

// compile resolves stmt against the current schema.
func (e *Executor) compile(stmt cql.Statement, keyspace string) (*compiled, error) {
	s := e.cfg.Schema.Current()
	c := &compiled{schemaVersion: s.Version, schema: s, stmt: stmt, keyspace: keyspace, part: e.cfg.Partitioner}
	var err error
	switch st := stmt.(type) {
	case *cql.Select:
		err = e.compileSelect(c, s, st, keyspace)
	case *cql.Insert:
		err = e.compileInsert(c, s, st, keyspace)
	case *cql.Update:
		err = e.compileUpdate(c, s, st, keyspace)
	case *cql.Delete:
		err = e.compileDelete(c, s, st, keyspace)
	case *cql.Batch:
		err = e.compileBatchStatement(c, s, st, keyspace)
	case *cql.Use:
		if s.Keyspace(st.Keyspace) == nil {
			return nil, cqlerr.Invalidf("Keyspace '%s' does not exist", st.Keyspace)
		}
		c.use = st.Keyspace
	case *cql.CreateKeyspace:
		err = e.compileCreateKeyspace(c, st)
	case *cql.AlterKeyspace:
		err = e.compileAlterKeyspace(c, st)
	case *cql.DropKeyspace:
		c.ddl = func(ctx context.Context, e *Executor) (*Result, error) { return e.dropKeyspace(ctx, st) }
	case *cql.CreateTable:
		err = e.compileCreateTable(c, st, keyspace)
	case *cql.DropTable:
		err = e.compileDropTable(c, st, keyspace)
	case *cql.CreateType:
		err = e.compileCreateType(c, st, keyspace)
	case *cql.AlterType:
		err = e.compileAlterType(c, st, keyspace)
	case *cql.DropType:
		err = e.compileDropType(c, st, keyspace)
	case *cql.AlterTable:
		err = e.compileAlterTable(c, st, keyspace)
	case *cql.Truncate:
		err = e.compileTruncate(c, s, st, keyspace)
	case *cql.CreateIndex:
		err = e.compileCreateIndex(c, s, st, keyspace)
	case *cql.DropIndex:
		err = e.compileDropIndex(c, st, keyspace)
	case *cql.CreateMaterializedView:
		err = e.compileCreateView(c, s, st, keyspace)
	case *cql.DropMaterializedView:
		err = e.compileDropView(c, st, keyspace)
	case *cql.AlterMaterializedView:
		err = e.compileAlterView(c, st, keyspace)
	case *cql.CreateFunction:
		err = e.compileCreateFunction(c, st)
	case *cql.CreateAggregate:
		err = e.compileCreateAggregate(c, s, st, keyspace)
	case *cql.DropFunction:
		err = e.compileDropFunction(c, s, "Function", st.Name, st.IfExists, st.ArgsSpecified, st.ArgTypes, keyspace)
	case *cql.DropAggregate:
		err = e.compileDropFunction(c, s, "Aggregate", st.Name, st.IfExists, st.ArgsSpecified, st.ArgTypes, keyspace)
	case *cql.CreateTrigger:
		err = e.compileCreateTrigger(c, s, st, keyspace)
	case *cql.DropTrigger:
		err = e.compileDropTrigger(c, st, keyspace)
	case *cql.CreateRole, *cql.AlterRole, *cql.DropRole, *cql.CreateUser, *cql.AlterUser, *cql.DropUser,
		*cql.GrantPermissions, *cql.RevokePermissions, *cql.GrantRole, *cql.RevokeRole,
		*cql.ListPermissions, *cql.ListRoles, *cql.ListUsers, *cql.AddIdentity, *cql.DropIdentity:
		if e.cfg.Security == nil {
			return nil, compileSecurity(stmt)
		}
		c.security = stmt
	case *cql.Describe:
		c.describe = &describePlan{st: st, keyspace: keyspace}
	default:
		return nil, cqlerr.NotImplemented(cql.StatementName(stmt))
	}
	if err != nil {
		return nil, err
	}
	if e.cfg.Security != nil {
		c.checks = requiredChecks(s, stmt, keyspace)
		c.created = createdResource(stmt, keyspace)
	}
	return c, nil
}

// resolveTable finds a table for a DML statement or TRUNCATE, refusing a
// missing one as Schema.validateTable does (4.0+; "unconfigured table" was
// 3.x's text).
func resolveTable(s *schema.Schema, name cql.QualifiedName, keyspace string) (*schema.Table, error) {
	ks := name.Keyspace
	if ks == "" {
		ks = keyspace
	}
	if ks == "" {
		return nil, cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	k := s.Keyspace(ks)
	if k == nil {
		return nil, cqlerr.Invalidf("keyspace %s does not exist", ks)
	}
	t := k.Table(name.Name)
	if t == nil {
		return nil, cqlerr.Invalidf("table %s does not exist", name.Name)
	}
	return t, nil
}

// columnOf finds a column or fails with Cassandra's message.
func columnOf(t *schema.Table, name string) (*schema.Column, error) {
	c := t.Column(name)
	if c == nil {
		return nil, cqlerr.Invalidf("Undefined column name %s in table %s.%s", quoteIdentIfNeeded(name), t.Keyspace, t.Name)
	}
	return c, nil
}

// quoteIdentIfNeeded quotes identifiers the way Cassandra prints them in
// messages (ColumnIdentifier.toCQLString).
func quoteIdentIfNeeded(name string) string { return cql.MaybeQuote(name) }

// spec returns the bind/result spec of a column.
func spec(t *schema.Table, name string, typ *types.Type) ColumnSpec {
	return ColumnSpec{Keyspace: t.Keyspace, Table: t.Name, Name: name, Type: typ}
}
