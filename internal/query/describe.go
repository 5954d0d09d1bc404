package query

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// Server-side DESCRIBE, as Cassandra 5.0's DescribeStatement executes it:
// every form answers rows (keyspace_name, type, name[, create_statement])
// computed from the current schema on the coordinator, paged by row offset
// with a paging state that pins the schema version.
//
// The CREATE statements follow Cassandra's SchemaElement.toCqlString
// (KeyspaceMetadata, TableMetadata.appendCqlTo, TableParams.appendCqlTo,
// IndexMetadata.appendCqlTo, ViewMetadata.appendCqlTo, UserType) byte for
// byte, including its CqlBuilder indentation.

// describePlan is a compiled DESCRIBE: everything is resolved when it runs,
// against the schema current then (Cassandra resolves at execution too).
type describePlan struct {
	st       *cql.Describe
	keyspace string // the session's keyspace ("" when none)
}

// The type column of element rows: SchemaElementType.toString().
const (
	elemKeyspace = "keyspace"
	elemTable    = "table"
	elemIndex    = "index"
	elemView     = "materialized_view"
	elemType     = "type"
)

// describeElement is one row of a DESCRIBE result.
type describeElement struct {
	keyspace, kind, name string // unquoted
	// create is the element's CQL (toCqlString(withInternals, false)).
	create func(withInternals bool) string
}

var (
	describeListColumns = []ColumnSpec{
		{Keyspace: "system", Table: "describe", Name: "keyspace_name", Type: types.TextType},
		{Keyspace: "system", Table: "describe", Name: "type", Type: types.TextType},
		{Keyspace: "system", Table: "describe", Name: "name", Type: types.TextType},
	}
	describeElementColumns = append(append([]ColumnSpec(nil), describeListColumns...),
		ColumnSpec{Keyspace: "system", Table: "describe", Name: "create_statement", Type: types.TextType})
	describeRangeOwnershipType = types.MapOf(types.TextType, types.ListOf(types.TextType, true), true)
)

// describeSchemaChanged is DescribeStatement.SCHEMA_CHANGED_WHILE_PAGING_MESSAGE.
const describeSchemaChanged = "The schema has changed since the previous page of the DESCRIBE statement result. " +
	"Please retry the DESCRIBE statement."

// describeResult is what a DESCRIBE form produces before paging.
type describeResult struct {
	columns []ColumnSpec
	rows    [][][]byte
}

// executeDescribe runs a DESCRIBE statement.
func (e *Executor) executeDescribe(p *describePlan, opts *Options) (*Result, error) {
	s := e.cfg.Schema.Current()
	offset, err := e.describeOffset(opts.PagingState, s.Version)
	if err != nil {
		return nil, err
	}
	r, err := e.describe(s, p)
	if err != nil {
		return nil, err
	}
	rows := r.rows
	if offset > int64(len(rows)) {
		offset = int64(len(rows))
	}
	rows = rows[offset:]
	res := &Result{Kind: RowsResult, Columns: r.columns}
	if opts.PageSize > 0 && len(rows) >= int(opts.PageSize) {
		rows = rows[:opts.PageSize]
		// As Cassandra: a full page always carries a paging state, even
		// when it is the last one (the next page is then empty).
		res.PagingState = e.describePagingState(offset+int64(opts.PageSize), s.Version)
	}
	res.Rows = rows
	return res, nil
}

func (e *Executor) releaseVersion() string {
	if e.cfg.Node != nil {
		if v := e.cfg.Node.Local().ReleaseVersion; v != "" {
			return v
		}
	}
	return ReleaseVersion
}

// describePagingState is Cassandra's: (short) 0x0001, (UTF) release
// version, (16 bytes) schema version, (long) offset of the next row.
func (e *Executor) describePagingState(next int64, version uuid.UUID) []byte {
	rv := e.releaseVersion()
	b := make([]byte, 0, 2+2+len(rv)+16+8)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.BigEndian.AppendUint16(b, uint16(len(rv)))
	b = append(b, rv...)
	b = append(b, version[:]...)
	return binary.BigEndian.AppendUint64(b, uint64(next))
}

func (e *Executor) describeOffset(ps []byte, version uuid.UUID) (int64, error) {
	if ps == nil {
		return 0, nil
	}
	invalid := cqlerr.Invalidf("Invalid paging state.")
	if len(ps) < 2 {
		return 0, invalid
	}
	if binary.BigEndian.Uint16(ps) != 1 {
		return 0, cqlerr.Invalidf("Incompatible paging state")
	}
	ps = ps[2:]
	if len(ps) < 2 || len(ps) < 2+int(binary.BigEndian.Uint16(ps)) {
		return 0, invalid
	}
	n := int(binary.BigEndian.Uint16(ps))
	got := string(ps[2 : 2+n])
	ps = ps[2+n:]
	if rv := e.releaseVersion(); got != rv {
		return 0, cqlerr.Invalidf("The server version of the paging state %s is different from the one of the server %s", got, rv)
	}
	if len(ps) != 16+8 {
		return 0, invalid
	}
	if !bytes.Equal(ps[:16], version[:]) {
		return 0, cqlerr.Invalidf("%s", describeSchemaChanged)
	}
	off := int64(binary.BigEndian.Uint64(ps[16:]))
	if off < 0 {
		return 0, invalid
	}
	return off, nil
}

// describe resolves the statement and builds all its rows.
func (e *Executor) describe(s *schema.Schema, p *describePlan) (*describeResult, error) {
	st := p.st
	switch st.Kind {
	case cql.DescribeCluster:
		return e.describeCluster(s, p.keyspace), nil
	case cql.DescribeKeyspaces:
		var els []describeElement
		for _, ks := range sortedKeyspaces(s) {
			els = append(els, keyspaceElement(ks))
		}
		return listRows(els), nil
	case cql.DescribeTables, cql.DescribeTypes, cql.DescribeFunctions, cql.DescribeAggregates:
		var kss []*schema.Keyspace
		if p.keyspace == "" {
			kss = sortedKeyspaces(s)
		} else {
			ks, err := describeKeyspace(s, p.keyspace)
			if err != nil {
				return nil, err
			}
			kss = []*schema.Keyspace{ks}
		}
		var els []describeElement
		for _, ks := range kss {
			switch st.Kind {
			case cql.DescribeTables:
				for _, t := range keyspaceTables(ks) {
					els = append(els, tableElement(ks, t))
				}
			case cql.DescribeTypes:
				var ts []describeElement
				for _, n := range ks.TypeNames() {
					ts = append(ts, typeElement(ks, ks.Types[n]))
				}
				sortElements(ts)
				els = append(els, ts...)
			}
			// No user-defined function or aggregate can exist
			// (ddl_functions.go): their listings are empty.
		}
		return listRows(els), nil
	case cql.DescribeSchema:
		var els []describeElement
		for _, ks := range sortedKeyspaces(s) {
			if !st.Full && schema.IsSystemKeyspace(ks.Name) {
				continue
			}
			els = append(els, keyspaceElements(ks, false)...)
		}
		return elementRows(els, st.WithInternals), nil
	case cql.DescribeGeneric:
		return e.describeGeneric(s, p)
	}
	// The forms naming one element.
	ksName := st.Name.Keyspace
	if ksName == "" {
		ksName = p.keyspace
	}
	if ksName == "" {
		return nil, cqlerr.Invalidf("No keyspace specified and no current keyspace")
	}
	ks, err := describeKeyspace(s, ksName)
	if err != nil {
		return nil, err
	}
	name := st.Name.Name
	var els []describeElement
	switch st.Kind {
	case cql.DescribeKeyspace:
		els = keyspaceElements(ks, st.Only)
	case cql.DescribeTable:
		els, err = describeTable(ks, name)
	case cql.DescribeIndex:
		els, err = describeIndex(ks, name)
	case cql.DescribeView:
		els, err = describeView(ks, name)
	case cql.DescribeType:
		ut := ks.Type(name)
		if ut == nil {
			return nil, cqlerr.Invalidf("User defined type '%s' not found in '%s'", name, ks.Name)
		}
		els = []describeElement{typeElement(ks, ut)}
	case cql.DescribeFunction:
		return nil, cqlerr.Invalidf("User defined function '%s' not found in '%s'", name, ks.Name)
	case cql.DescribeAggregate:
		return nil, cqlerr.Invalidf("User defined aggregate '%s' not found in '%s'", name, ks.Name)
	default:
		return nil, cqlerr.Serverf("internal error: unknown DESCRIBE form %d", st.Kind)
	}
	if err != nil {
		return nil, err
	}
	return elementRows(els, st.WithInternals), nil
}

// describeGeneric resolves DESCRIBE [ks.]name: a keyspace (when
// unqualified), then a table, an index, a materialized view, in this order.
func (e *Executor) describeGeneric(s *schema.Schema, p *describePlan) (*describeResult, error) {
	st := p.st
	name := st.Name.Name
	ksName := st.Name.Keyspace
	if ksName == "" {
		if ks := s.Keyspace(name); ks != nil {
			return elementRows(keyspaceElements(ks, false), st.WithInternals), nil
		}
		ksName = p.keyspace
		if ksName == "" {
			ksName = name
		}
	}
	ks, err := describeKeyspace(s, ksName)
	if err != nil {
		return nil, err
	}
	var els []describeElement
	switch t := ks.Table(name); {
	case t != nil && !t.IsView():
		els, err = describeTable(ks, name)
	case ks.FindIndex(name) != nil:
		els, err = describeIndex(ks, name)
	case t != nil:
		els, err = describeView(ks, name)
	default:
		return nil, cqlerr.Invalidf("'%s' not found in keyspace '%s'", name, ks.Name)
	}
	if err != nil {
		return nil, err
	}
	return elementRows(els, st.WithInternals), nil
}

func describeKeyspace(s *schema.Schema, name string) (*schema.Keyspace, error) {
	ks := s.Keyspace(name)
	if ks == nil {
		return nil, cqlerr.Invalidf("'%s' not found in keyspaces", name)
	}
	return ks, nil
}

func describeTable(ks *schema.Keyspace, name string) ([]describeElement, error) {
	t := ks.Table(name)
	if t == nil || t.IsView() {
		return nil, cqlerr.Invalidf("Table '%s' not found in keyspace '%s'", name, ks.Name)
	}
	return append([]describeElement{tableElement(ks, t)}, indexElements(ks, t)...), nil
}

func describeIndex(ks *schema.Keyspace, name string) ([]describeElement, error) {
	ref := ks.FindIndex(name)
	if ref == nil {
		return nil, cqlerr.Invalidf("Table for existing index '%s' not found in '%s'", name, ks.Name)
	}
	return []describeElement{indexElement(ks, ref.Table, ref.Index)}, nil
}

func describeView(ks *schema.Keyspace, name string) ([]describeElement, error) {
	v := ks.Table(name)
	if v == nil || !v.IsView() {
		return nil, cqlerr.Invalidf("Materialized view '%s' not found in '%s'", name, ks.Name)
	}
	return []describeElement{viewElement(ks, v)}, nil
}

// listRows builds the rows of a listing (no create_statement).
func listRows(els []describeElement) *describeResult {
	r := &describeResult{columns: describeListColumns}
	for _, el := range els {
		r.rows = append(r.rows, [][]byte{text(maybeQuote(el.keyspace)), text(el.kind), text(maybeQuote(el.name))})
	}
	return r
}

// elementRows builds the rows of an element description.
func elementRows(els []describeElement, withInternals bool) *describeResult {
	r := &describeResult{columns: describeElementColumns}
	for _, el := range els {
		r.rows = append(r.rows, [][]byte{text(maybeQuote(el.keyspace)), text(el.kind), text(maybeQuote(el.name)),
			text(el.create(withInternals))})
	}
	return r
}

// lessName is SchemaElement.NAME_COMPARATOR (case-insensitive), with the
// exact name as a tie-break for a stable order.
func lessName(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

func sortElements(els []describeElement) {
	sort.SliceStable(els, func(i, j int) bool { return lessName(els[i].name, els[j].name) })
}

func sortedKeyspaces(s *schema.Schema) []*schema.Keyspace {
	out := make([]*schema.Keyspace, 0, len(s.Keyspaces))
	for _, ks := range s.Keyspaces {
		out = append(out, ks)
	}
	sort.Slice(out, func(i, j int) bool { return lessName(out[i].Name, out[j].Name) })
	return out
}

// keyspaceTables returns the keyspace's tables (not its views) in
// NAME_COMPARATOR order.
func keyspaceTables(ks *schema.Keyspace) []*schema.Table {
	var out []*schema.Table
	for _, t := range ks.Tables {
		if !t.IsView() {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return lessName(out[i].Name, out[j].Name) })
	return out
}

// keyspaceElements is DescribeStatement.getKeyspaceElements: the keyspace,
// then (unless only) its types in dependency order, functions, aggregates,
// and each table followed by its indexes and views.
func keyspaceElements(ks *schema.Keyspace, only bool) []describeElement {
	els := []describeElement{keyspaceElement(ks)}
	if only {
		return els
	}
	for _, ut := range sortedTypes(ks) {
		els = append(els, typeElement(ks, ut))
	}
	for _, t := range keyspaceTables(ks) {
		els = append(els, tableElement(ks, t))
		els = append(els, indexElements(ks, t)...)
		var views []describeElement
		for _, vn := range t.Views {
			if v := ks.Table(vn); v != nil && v.IsView() {
				views = append(views, viewElement(ks, v))
			}
		}
		sortElements(views)
		els = append(els, views...)
	}
	return els
}

// sortedTypes is Types.sortedStream: the types by name, each preceded by
// the types it uses.
func sortedTypes(ks *schema.Keyspace) []*types.Type {
	roots := make([]*types.Type, 0, len(ks.Types))
	for _, n := range ks.TypeNames() {
		roots = append(roots, ks.Types[n])
	}
	return typesUsed(ks, roots)
}

// typesUsed returns the definitions of ks's user types that the roots
// are or use, each preceded by the types it uses.
func typesUsed(ks *schema.Keyspace, roots []*types.Type) []*types.Type {
	var out []*types.Type
	seen := map[string]bool{}
	var add func(t *types.Type)
	add = func(t *types.Type) {
		for _, p := range t.Params {
			add(p)
		}
		if t.Kind == types.UDT && t.Keyspace == ks.Name && !seen[t.Name] {
			seen[t.Name] = true
			if def := ks.Type(t.Name); def != nil {
				out = append(out, def)
			}
		}
	}
	for _, t := range roots {
		add(t)
	}
	return out
}

func indexElements(ks *schema.Keyspace, t *schema.Table) []describeElement {
	var els []describeElement
	for _, ix := range t.Indexes {
		els = append(els, indexElement(ks, t, ix))
	}
	sortElements(els)
	return els
}

func keyspaceElement(ks *schema.Keyspace) describeElement {
	return describeElement{keyspace: ks.Name, kind: elemKeyspace, name: ks.Name,
		create: func(bool) string { return keyspaceCQL(ks) }}
}

func tableElement(ks *schema.Keyspace, t *schema.Table) describeElement {
	return describeElement{keyspace: ks.Name, kind: elemTable, name: t.Name,
		create: func(internals bool) string { return tableCQL(ks, t, internals) }}
}

func indexElement(ks *schema.Keyspace, t *schema.Table, ix *schema.Index) describeElement {
	return describeElement{keyspace: ks.Name, kind: elemIndex, name: ix.Name,
		create: func(bool) string { return indexCQL(t, ix) }}
}

func viewElement(ks *schema.Keyspace, v *schema.Table) describeElement {
	return describeElement{keyspace: ks.Name, kind: elemView, name: v.Name,
		create: func(internals bool) string { return viewCQL(v, internals) }}
}

func typeElement(ks *schema.Keyspace, ut *types.Type) describeElement {
	return describeElement{keyspace: ks.Name, kind: elemType, name: ut.Name,
		create: func(bool) string { return typeCQL(ks, ut) }}
}

// ---------------------------------------------------------------------------
// CQL text of each element.

// maybeQuote is ColumnIdentifier.maybeQuote.
func maybeQuote(s string) string { return cql.MaybeQuote(s) }

func qualified(ks, name string) string { return maybeQuote(ks) + "." + maybeQuote(name) }

func singleQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// cqlMap is CqlBuilder.append(Map): entries by key, keys quoted, values
// quoted when quote.
func cqlMap(m map[string]string, quote bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(singleQuoted(k))
		b.WriteString(": ")
		if quote {
			b.WriteString(singleQuoted(m[k]))
		} else {
			b.WriteString(m[k])
		}
	}
	b.WriteByte('}')
	return b.String()
}

// keyspaceCQL is KeyspaceMetadata.toCqlString.
func keyspaceCQL(ks *schema.Keyspace) string {
	if ks.Virtual {
		return "/*\nWarning: Keyspace " + maybeQuote(ks.Name) + " is a virtual keyspace and cannot be recreated with CQL.\n" +
			"Structure, for reference:\nVIRTUAL KEYSPACE " + maybeQuote(ks.Name) + ";\n*/"
	}
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE ")
	b.WriteString(maybeQuote(ks.Name))
	b.WriteString(" WITH replication = ")
	b.WriteString(replicationCQL(ks.Replication))
	b.WriteString("  AND durable_writes = ")
	b.WriteString(strconv.FormatBool(ks.DurableWrites))
	b.WriteByte(';')
	return b.String()
}

// replicationCQL is ReplicationParams.appendCqlTo: the class (its simple
// name for Cassandra's own strategies), then the options in the order of
// the Java HashMap that holds them.
func replicationCQL(repl map[string]string) string {
	class := repl["class"]
	if rest, ok := strings.CutPrefix(class, "org.apache.cassandra.locator."); ok && !strings.Contains(rest, ".") {
		class = rest
	}
	var keys []string
	for k := range repl {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	keys = javaHashMapOrder(keys, len(repl))
	var b strings.Builder
	b.WriteString("{'class': ")
	b.WriteString(singleQuoted(class))
	for _, k := range keys {
		b.WriteString(", ")
		b.WriteString(singleQuoted(k))
		b.WriteString(": ")
		b.WriteString(singleQuoted(repl[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// javaHashMapOrder returns keys in the iteration order of a java.util.HashMap
// built by copying a map of size entries (new HashMap<>(map)): by bucket of
// the spread String.hashCode, ties by key.
func javaHashMapOrder(keys []string, size int) []string {
	capacity := 1
	for t := int(float32(size)/0.75 + 1); capacity < t; capacity <<= 1 {
	}
	bucket := func(s string) int {
		var h int32
		for _, r := range s {
			if r >= 0x10000 {
				hi, lo := 0xD800+((r-0x10000)>>10), 0xDC00+((r-0x10000)&0x3FF)
				h = 31*h + hi
				h = 31*h + lo
				continue
			}
			h = 31*h + r
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(capacity-1))
	}
	out := append([]string(nil), keys...)
	sort.Slice(out, func(i, j int) bool {
		bi, bj := bucket(out[i]), bucket(out[j])
		if bi != bj {
			return bi < bj
		}
		return out[i] < out[j]
	})
	return out
}

// columnCQL is ColumnMetadata.appendCqlTo.
func columnCQL(name string, t *types.Type, static bool) string {
	s := maybeQuote(name) + " " + t.String()
	if static {
		s += " static"
	}
	return s
}

// createOrder is TableMetadata.allColumnsInCreateOrder: partition key,
// clustering, then static and regular columns, each group with its simple
// columns before its multi-cell ones, by name.
func createOrder(t *schema.Table) []*schema.Column {
	out := append([]*schema.Column(nil), t.PartitionKey...)
	out = append(out, t.Clustering...)
	for _, group := range [][]*schema.Column{t.Statics, t.Regulars} {
		g := append([]*schema.Column(nil), group...)
		sort.SliceStable(g, func(i, j int) bool {
			ci, cj := g[i].Type.IsMultiCell(), g[j].Type.IsMultiCell()
			if ci != cj {
				return !ci
			}
			return g[i].Name < g[j].Name
		})
		out = append(out, g...)
	}
	return out
}

// primaryKeyCQL is TableMetadata.appendPrimaryKey (without its newline).
func primaryKeyCQL(t *schema.Table) string {
	var b strings.Builder
	b.WriteString("PRIMARY KEY (")
	if len(t.PartitionKey) > 1 {
		b.WriteByte('(')
		for i, c := range t.PartitionKey {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(maybeQuote(c.Name))
		}
		b.WriteByte(')')
	} else if len(t.PartitionKey) == 1 {
		b.WriteString(maybeQuote(t.PartitionKey[0].Name))
	}
	for _, c := range t.Clustering {
		b.WriteString(", ")
		b.WriteString(maybeQuote(c.Name))
	}
	b.WriteByte(')')
	return b.String()
}

// tableOptionsCQL is TableMetadata.appendTableOptions: the text after
// "WITH ", its continuation lines indented by four spaces.
func tableOptionsCQL(t *schema.Table, internals, virtual bool) string {
	const nl = "\n    AND "
	var b strings.Builder
	if internals {
		b.WriteString("ID = ")
		b.WriteString(t.ID.String())
		b.WriteString(nl)
	}
	if len(t.Clustering) > 0 {
		b.WriteString("CLUSTERING ORDER BY (")
		for i, c := range t.Clustering {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(maybeQuote(c.Name))
			if c.Desc {
				b.WriteString(" DESC")
			} else {
				b.WriteString(" ASC")
			}
		}
		b.WriteByte(')')
		b.WriteString(nl)
	}
	p := t.Params
	if virtual {
		b.WriteString("comment = " + singleQuoted(p.Comment) + ";")
		return b.String()
	}
	exts := make(map[string]string, len(p.Extensions))
	for k, v := range p.Extensions {
		exts[k] = "0x" + hex.EncodeToString(v)
	}
	opts := []string{
		"additional_write_policy = " + singleQuoted(p.AdditionalWritePolicy),
		"allow_auto_snapshot = " + strconv.FormatBool(p.AllowAutoSnapshot),
		"bloom_filter_fp_chance = " + types.JavaDouble(p.BloomFilterFPChance, 64),
		"caching = " + cqlMap(p.Caching, true),
		"cdc = " + strconv.FormatBool(p.CDC),
		"comment = " + singleQuoted(p.Comment),
		"compaction = " + cqlMap(p.Compaction, true),
		"compression = " + cqlMap(p.Compression, true),
		"memtable = " + singleQuoted(p.Memtable),
		"crc_check_chance = " + types.JavaDouble(p.CRCCheckChance, 64),
	}
	if !t.IsView() {
		opts = append(opts, "default_time_to_live = "+strconv.Itoa(int(p.DefaultTimeToLive)))
	}
	opts = append(opts,
		"extensions = "+cqlMap(exts, false),
		"gc_grace_seconds = "+strconv.Itoa(int(p.GCGraceSeconds)),
		"incremental_backups = "+strconv.FormatBool(p.Incremental),
		"max_index_interval = "+strconv.Itoa(int(p.MaxIndexInterval)),
		"memtable_flush_period_in_ms = "+strconv.Itoa(int(p.MemtableFlushPeriodInMs)),
		"min_index_interval = "+strconv.Itoa(int(p.MinIndexInterval)),
		"read_repair = "+singleQuoted(p.ReadRepair),
		"speculative_retry = "+singleQuoted(p.SpeculativeRetry),
	)
	b.WriteString(strings.Join(opts, nl))
	b.WriteByte(';')
	return b.String()
}

// tableCQL is TableMetadata.toCqlString: WITH INTERNALS adds the table id
// and the history of dropped columns.
func tableCQL(ks *schema.Keyspace, t *schema.Table, internals bool) string {
	// cqld serves the tables of the system keyspaces itself, but only the
	// tables of virtual keyspaces are virtual in Cassandra.
	virtual := ks.Virtual
	var b strings.Builder
	keyword := "CREATE"
	name := qualified(t.Keyspace, t.Name)
	if virtual {
		b.WriteString("/*\nWarning: Table " + name + " is a virtual table and cannot be recreated with CQL.\nStructure, for reference:\n")
		keyword = "VIRTUAL"
	}
	b.WriteString(keyword + " TABLE " + name + " (\n")
	dropped := internals && !virtual && len(t.Dropped) > 0
	droppedNames := sortedDroppedNames(t)
	single := len(t.PartitionKey) == 1 && len(t.Clustering) == 0
	cols := createOrder(t)
	for i, c := range cols {
		if dropped && t.Dropped[c.Name] != nil {
			continue
		}
		b.WriteString("    " + columnCQL(c.Name, c.Type, c.Kind == schema.Static))
		if c.Mask != nil {
			b.WriteString(" MASKED WITH " + maskString(c.Mask))
		}
		if single && c.Kind == schema.PartitionKey {
			b.WriteString(" PRIMARY KEY")
		}
		// Cassandra tests iter.hasNext() on the full column list, so a
		// re-added (skipped) last column still leaves a comma.
		if !single || dropped || i < len(cols)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	if dropped {
		for _, n := range droppedNames {
			d := t.Dropped[n]
			b.WriteString("    " + columnCQL(d.Name, d.Type, d.Kind == schema.Static))
			if !single {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
	}
	if !single {
		b.WriteString("    " + primaryKeyCQL(t) + "\n")
	}
	b.WriteString(") WITH ")
	b.WriteString(tableOptionsCQL(t, internals, virtual))
	if virtual {
		b.WriteString("\n*/")
	}
	if dropped {
		for _, n := range droppedNames {
			d := t.Dropped[n]
			b.WriteString("\nALTER TABLE " + name + " DROP " + maybeQuote(d.Name) + " USING TIMESTAMP " +
				strconv.FormatInt(d.DroppedTime, 10) + ";")
			if c := t.Column(d.Name); c != nil {
				b.WriteString("\nALTER TABLE " + name + " ADD " + columnCQL(c.Name, c.Type, c.Kind == schema.Static) + ";")
			}
		}
	}
	return b.String()
}

// sortedDroppedNames orders the dropped columns as Cassandra's HashMap
// keyed by the name bytes iterates them (ByteBuffer.hashCode buckets).
func sortedDroppedNames(t *schema.Table) []string {
	names := make([]string, 0, len(t.Dropped))
	for n := range t.Dropped {
		names = append(names, n)
	}
	capacity := 16
	for float64(len(names)) > 0.75*float64(capacity) {
		capacity <<= 1
	}
	bucket := func(s string) int {
		h := int32(1)
		for i := len(s) - 1; i >= 0; i-- {
			h = 31*h + int32(int8(s[i]))
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(capacity-1))
	}
	sort.Slice(names, func(i, j int) bool {
		bi, bj := bucket(names[i]), bucket(names[j])
		if bi != bj {
			return bi < bj
		}
		return names[i] < names[j]
	})
	return names
}

// indexCQL is IndexMetadata.toCqlString.
func indexCQL(t *schema.Table, ix *schema.Index) string {
	opts := ix.SchemaOptions()
	target := opts["target"]
	if !ix.Custom {
		return "CREATE INDEX " + maybeQuote(ix.Name) + " ON " + qualified(t.Keyspace, t.Name) + " (" + target + ");"
	}
	class := opts["class_name"]
	delete(opts, "target")
	delete(opts, "class_name")
	s := "CREATE CUSTOM INDEX " + maybeQuote(ix.Name) + " ON " + qualified(t.Keyspace, t.Name) + " (" + target + ") USING " +
		singleQuoted(class)
	if len(opts) > 0 {
		s += " WITH OPTIONS = " + cqlMap(opts, true)
	}
	return s + ";"
}

// viewCQL is ViewMetadata.toCqlString.
func viewCQL(v *schema.Table, internals bool) string {
	var b strings.Builder
	b.WriteString("CREATE MATERIALIZED VIEW " + qualified(v.Keyspace, v.Name) + " AS\n    SELECT ")
	if v.View.IncludeAll {
		b.WriteByte('*')
	} else {
		for i, c := range v.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(maybeQuote(c.Name))
		}
	}
	b.WriteString("\n    FROM " + qualified(v.Keyspace, v.View.BaseName))
	b.WriteString("\n    WHERE " + v.View.Where)
	b.WriteString("\n    " + primaryKeyCQL(v) + "\n WITH ")
	b.WriteString(tableOptionsCQL(v, internals, false))
	return b.String()
}

// typeCQL is UserType.toCqlString.
func typeCQL(ks *schema.Keyspace, ut *types.Type) string {
	var b strings.Builder
	b.WriteString("CREATE TYPE " + qualified(ks.Name, ut.Name) + " (\n")
	for i, f := range ut.FieldNames {
		b.WriteString("    " + maybeQuote(f) + " " + ut.Params[i].String())
		if i < len(ut.FieldNames)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(");")
	return b.String()
}

// ---------------------------------------------------------------------------
// DESCRIBE CLUSTER

// describeCluster answers the cluster name, the partitioner and the snitch
// (Cassandra's default, the dynamic snitch), and, when the session uses a
// non-system keyspace, the owner of each token range (by its end token).
func (e *Executor) describeCluster(s *schema.Schema, useKs string) *describeResult {
	info := LocalInfo{}
	if e.cfg.Node != nil {
		info = e.cfg.Node.Local()
	}
	cols := []ColumnSpec{
		{Keyspace: "system", Table: "describe", Name: "cluster", Type: types.TextType},
		{Keyspace: "system", Table: "describe", Name: "partitioner", Type: types.TextType},
		{Keyspace: "system", Table: "describe", Name: "snitch", Type: types.TextType},
	}
	row := [][]byte{
		text(info.ClusterName),
		text(strings.TrimPrefix(PartitionerClass, "org.apache.cassandra.dht.")),
		text("DynamicEndpointSnitch"),
	}
	if useKs != "" && !schema.IsSystemKeyspace(useKs) {
		cols = append(cols, ColumnSpec{Keyspace: "system", Table: "describe", Name: "range_ownership", Type: describeRangeOwnershipType})
		endpoint := []byte(text(endpointString(info.ListenAddress, info.ListenPort)))
		keys := make([][]byte, len(info.Tokens))
		vals := make([][]byte, len(info.Tokens))
		for i, tok := range info.Tokens {
			keys[i] = text(strconv.FormatInt(tok, 10))
			vals[i] = types.EncodeList([][]byte{endpoint})
		}
		row = append(row, types.EncodeMap(types.TextType, keys, vals))
	}
	return &describeResult{columns: cols, rows: [][][]byte{row}}
}

// endpointString is InetAddressAndPort.toString for an address without a
// host name: "/127.0.0.1:7000", "/[::1]:7000".
func endpointString(addr []byte, port int) string {
	if len(addr) != 4 && len(addr) != 16 {
		return "/" + ":" + strconv.Itoa(port)
	}
	ip := net.IP(addr)
	if ip4 := ip.To4(); ip4 != nil && len(addr) == 4 {
		return "/" + ip4.String() + ":" + strconv.Itoa(port)
	}
	// Java spells IPv6 in full, without "::" compression.
	var parts []string
	for i := 0; i < 16; i += 2 {
		parts = append(parts, strconv.FormatUint(uint64(binary.BigEndian.Uint16(addr[i:])), 16))
	}
	return "/[" + strings.Join(parts, ":") + "]:" + strconv.Itoa(port)
}

// SnapshotSchemaCQL returns the statements of a snapshot's schema.cql
// (SchemaCQLHelper.reCreateStatementsForSchemaCql): the user types t uses,
// innermost first, t itself with its id and dropped columns, and its
// indexes, each IF NOT EXISTS, so that running the file recreates the
// table a snapshot can be imported into.
func SnapshotSchemaCQL(ks *schema.Keyspace, t *schema.Table) []string {
	var out []string
	roots := make([]*types.Type, 0, len(t.Columns))
	for _, c := range t.Columns {
		roots = append(roots, c.Type)
	}
	for _, def := range typesUsed(ks, roots) {
		out = append(out, ifNotExists(typeCQL(ks, def), "CREATE TYPE "))
	}
	if t.IsView() {
		return append(out, ifNotExists(viewCQL(t, true), "CREATE MATERIALIZED VIEW "))
	}
	out = append(out, ifNotExists(tableCQL(ks, t, true), "CREATE TABLE "))
	for _, ix := range t.Indexes {
		s := indexCQL(t, ix)
		if ix.Custom {
			out = append(out, ifNotExists(s, "CREATE CUSTOM INDEX "))
		} else {
			out = append(out, ifNotExists(s, "CREATE INDEX "))
		}
	}
	return out
}

// ifNotExists inserts IF NOT EXISTS after the statement's leading keyword.
func ifNotExists(stmt, keyword string) string {
	if rest, ok := strings.CutPrefix(stmt, keyword); ok {
		return keyword + "IF NOT EXISTS " + rest
	}
	return stmt
}
