package schema

import (
	"crypto/md5"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// IndexTarget says which part of a column an index covers.
type IndexTarget uint8

// The targets of CREATE INDEX: the column itself (a simple column, or the
// values of a non-frozen collection), VALUES(c), KEYS(c), ENTRIES(c) and
// FULL(c) of a frozen collection.
const (
	TargetSimple IndexTarget = iota
	TargetValues
	TargetKeys
	TargetEntries
	TargetFull
)

// String is the target's function name in system_schema.indexes options.
func (t IndexTarget) String() string {
	switch t {
	case TargetValues:
		return "values"
	case TargetKeys:
		return "keys"
	case TargetEntries:
		return "keys_and_values"
	case TargetFull:
		return "full"
	}
	return "simple"
}

// SAIClass is the class name of Cassandra 5.0's storage-attached index.
const SAIClass = "org.apache.cassandra.index.sai.StorageAttachedIndex"

// Index is a secondary index on one column of a table.
//
// cqld stores a local index the way Cassandra's legacy secondary index does:
// as a hidden table whose partition key is the indexed value and whose
// clustering is the base row's token, partition key and clustering, so that
// an index lookup returns base rows in the order of a table scan. Entries
// are written before the base write and are never deleted eagerly: readers
// check every candidate row against the base table, so a stale entry is
// harmless.
type Index struct {
	Name   string
	Column string
	Target IndexTarget
	// Custom is set for CREATE CUSTOM INDEX and USING; Class is then the
	// index class (SAIClass for 'sai' and 'StorageAttachedIndex').
	Custom  bool
	Class   string
	Options map[string]string
	// ID is the storage id of the index's hidden table.
	ID uuid.UUID

	once  sync.Once
	table *Table
}

// SAI reports whether the index is a storage-attached index (it also
// answers range restrictions, see the query layer).
func (ix *Index) SAI() bool { return ix.Custom && ix.Class == SAIClass }

// TargetString is the "target" option of system_schema.indexes: the column
// name (quoted when needed), wrapped in the target function when there is
// one.
func (ix *Index) TargetString() string {
	col := cql.MaybeQuote(ix.Column)
	switch ix.Target {
	case TargetValues:
		return "values(" + col + ")"
	case TargetKeys:
		return "keys(" + col + ")"
	case TargetEntries:
		return "entries(" + col + ")"
	case TargetFull:
		return "full(" + col + ")"
	}
	return col
}

// Kind is the kind column of system_schema.indexes.
func (ix *Index) Kind() string {
	if ix.Custom {
		return "CUSTOM"
	}
	return "COMPOSITES"
}

// SchemaOptions is the options column of system_schema.indexes.
func (ix *Index) SchemaOptions() map[string]string {
	out := map[string]string{"target": ix.TargetString()}
	if ix.Custom {
		out["class_name"] = ix.Class
		for k, v := range ix.Options {
			out[k] = v
		}
	}
	return out
}

// Index table column names.
const (
	IndexValueColumn = "value"
	IndexTokenColumn = "token"
	IndexKeyColumn   = "partition_key"
)

// PerPartition reports whether the index has one entry per base partition
// (an index on a static column) rather than one per row.
func (ix *Index) PerPartition(base *Table) bool {
	c := base.Column(ix.Column)
	return c != nil && c.Kind == Static
}

// Table returns the hidden table that stores the index of base: partition
// key "value" (blob), clustering "token" (bigint), "partition_key" (blob),
// then base's clustering columns unless the index is per partition.
func (ix *Index) Table(base *Table) *Table {
	ix.once.Do(func() {
		cols := []*Column{
			{Name: IndexValueColumn, Type: types.BlobType, Kind: PartitionKey, ID: 1},
			{Name: IndexTokenColumn, Type: types.BigintType, Kind: Clustering, Position: 0, ID: 2},
			{Name: IndexKeyColumn, Type: types.BlobType, Kind: Clustering, Position: 1, ID: 3},
		}
		if !ix.PerPartition(base) {
			for i, c := range base.Clustering {
				cols = append(cols, &Column{Name: "base_" + c.Name, Type: c.Type,
					Kind: Clustering, Position: 2 + i, Desc: c.Desc, ID: uint32(4 + i)})
			}
		}
		params := DefaultTableParams()
		params.GCGraceSeconds = base.Params.GCGraceSeconds
		ix.table = NewTable(base.Keyspace, base.Name+"."+ix.Name, ix.ID, cols, params)
	})
	return ix.table
}

// IndexID is the storage id of an index: derived from its table and name
// so that it is stable across restarts without being persisted separately.
func IndexID(table uuid.UUID, name string) uuid.UUID {
	h := md5.Sum(append(table[:], name...))
	h[6] = h[6]&0x0f | 0x30 // version 3 (name-based, MD5)
	h[8] = h[8]&0x3f | 0x80
	return uuid.UUID(h)
}

var nonWord = regexp.MustCompile(`\W`)

// DefaultIndexName is Cassandra's generated name: table_column_idx without
// non-word characters, made unique in the keyspace with _1, _2, ...
func (k *Keyspace) DefaultIndexName(table, column string) string {
	base := nonWord.ReplaceAllString(table+"_"+column+"_idx", "")
	name := base
	for i := 1; k.FindIndex(name) != nil; i++ {
		name = base + "_" + itoa(i)
	}
	return name
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// FindIndex returns the table holding the named index and the index, or
// nil.
func (k *Keyspace) FindIndex(name string) *IndexRef {
	for _, tn := range k.TableNames() {
		t := k.Tables[tn]
		for _, ix := range t.Indexes {
			if ix.Name == name {
				return &IndexRef{Table: t, Index: ix}
			}
		}
	}
	return nil
}

// IndexRef is an index with its table.
type IndexRef struct {
	Table *Table
	Index *Index
}

// WithIndexes returns a copy of t with the given indexes (sorted by name).
func (t *Table) WithIndexes(ixs []*Index) *Table {
	nt := *t
	nt.Indexes = append([]*Index(nil), ixs...)
	sort.Slice(nt.Indexes, func(i, j int) bool { return nt.Indexes[i].Name < nt.Indexes[j].Name })
	return &nt
}

// IndexesOn returns the indexes of t on column name.
func (t *Table) IndexesOn(name string) []*Index {
	var out []*Index
	for _, ix := range t.Indexes {
		if ix.Column == name {
			out = append(out, ix)
		}
	}
	return out
}

// CreateIndex adds ix to table ks.table. It reports false (and no error)
// when an index of that name, or an equal index, exists and ifNotExists is
// set. validate runs under the schema lock on the current table.
func (m *Manager) CreateIndex(ks, table string, ix *Index, ifNotExists bool, validate func(*Keyspace, *Table) error) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		k, ok := kss[ks]
		if !ok {
			return false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", ks)
		}
		t := k.Tables[table]
		if t == nil {
			return false, cqlerr.Invalidf("Table '%s' doesn't exist", table)
		}
		if IsSystemKeyspace(ks) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ks)
		}
		if ix.Name != "" && k.FindIndex(ix.Name) != nil {
			if ifNotExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("Index '%s' already exists", ix.Name)
		}
		if err := validate(k, t); err != nil {
			return false, err
		}
		if ix.Name == "" {
			ix.Name = k.DefaultIndexName(table, ix.Column)
		}
		for _, o := range t.Indexes {
			if o.Column == ix.Column && o.Target == ix.Target && o.Custom == ix.Custom && o.Class == ix.Class {
				if ifNotExists {
					return false, nil
				}
				return false, cqlerr.Invalidf("Index %s is a duplicate of existing index %s", ix.Name, o.Name)
			}
		}
		ix.ID = IndexID(t.ID, ix.Name)
		if err := m.checkIDFree(kss, ix.ID); err != nil {
			return false, err // a table created WITH ID holds it
		}
		kss[ks] = k.withTable(table, t.WithIndexes(append(t.Indexes, ix)))
		return true, nil
	})
}

// DropIndex removes the named index and returns the removal of its data,
// with the table it was on as it was; nil when it did not exist and
// ifExists is set.
func (m *Manager) DropIndex(ks, name string, ifExists bool) (dropped *Removal, err error) {
	_, err = m.updateRemoving(func(kss map[string]*Keyspace) ([]Removal, bool, error) {
		k, ok := kss[ks]
		if !ok {
			if ifExists {
				return nil, false, nil
			}
			// DropIndexStatement looks the index up in the keyspace: a
			// missing keyspace is a missing index.
			return nil, false, cqlerr.Invalidf("Index '%s.%s' doesn't exist'", ks, name)
		}
		r := k.FindIndex(name)
		if r == nil {
			if ifExists {
				return nil, false, nil
			}
			// Cassandra's message, stray quote included.
			return nil, false, cqlerr.Invalidf("Index '%s.%s' doesn't exist'", ks, name)
		}
		var keep []*Index
		for _, ix := range r.Table.Indexes {
			if ix.Name != name {
				keep = append(keep, ix)
			}
		}
		nt := r.Table.WithIndexes(keep)
		kss[ks] = k.withTable(nt.Name, nt)
		dropped = &Removal{Keyspace: k, Table: r.Table, Index: r.Index}
		return []Removal{*dropped}, true, nil
	})
	return dropped, err
}

type persistedIndex struct {
	Name    string            `json:"name"`
	Column  string            `json:"column"`
	Target  IndexTarget       `json:"target"`
	Custom  bool              `json:"custom,omitempty"`
	Class   string            `json:"class,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

func encodeIndexes(t *Table) []persistedIndex {
	var out []persistedIndex
	for _, ix := range t.Indexes {
		out = append(out, persistedIndex{Name: ix.Name, Column: ix.Column, Target: ix.Target,
			Custom: ix.Custom, Class: ix.Class, Options: ix.Options})
	}
	return out
}

func decodeIndexes(t *Table, p []persistedIndex) {
	for _, pi := range p {
		t.Indexes = append(t.Indexes, &Index{Name: pi.Name, Column: pi.Column, Target: pi.Target,
			Custom: pi.Custom, Class: pi.Class, Options: pi.Options, ID: IndexID(t.ID, pi.Name)})
	}
}

// SimilarityFunction is the similarity_function option of a storage
// -attached vector index, upper-cased as Cassandra's IndexWriterConfig
// reads it (COSINE when unset).
func (ix *Index) SimilarityFunction() string {
	if f, ok := ix.Options[saiSimilarityFunction]; ok {
		return strings.ToUpper(f)
	}
	return "COSINE"
}

// TextAnalysis is the non-tokenizing analysis of a storage-attached index
// (Cassandra's NonTokenizingOptions): values are lower-cased, then
// NFC-normalised, then folded to ASCII, as the options ask.
type TextAnalysis struct {
	CaseInsensitive, Normalize, ASCII bool
}

// Analysis returns the analysis a storage-attached index applies to the
// values it indexes and to the values it is queried with; ok is false when
// it applies none (all of case_sensitive, normalize and ascii at their
// defaults, as NonTokenizingOptions.hasNonDefaultOptions decides), or when
// the index is not a storage-attached index on a text or ascii column.
func (ix *Index) Analysis(col *Column) (a TextAnalysis, ok bool) {
	if !ix.SAI() || col == nil || col.Type.IsMultiCell() ||
		(col.Type.Kind != types.Text && col.Type.Kind != types.Ascii) || !hasNonDefaultAnalysis(ix.Options) {
		return a, false
	}
	a.CaseInsensitive = strings.EqualFold(ix.Options[saiCaseSensitive], "false")
	a.Normalize = strings.EqualFold(ix.Options[saiNormalize], "true")
	a.ASCII = strings.EqualFold(ix.Options[saiASCII], "true")
	return a, a.CaseInsensitive || a.Normalize || a.ASCII
}

// Options of StorageAttachedIndex (Cassandra 5.0's VALID_OPTIONS, without
// target and class_name, which CREATE INDEX sets).
const (
	saiCaseSensitive       = "case_sensitive"
	saiNormalize           = "normalize"
	saiASCII               = "ascii"
	saiSimilarityFunction  = "similarity_function"
	saiMaxNodeConnections  = "maximum_node_connections"
	saiConstructionBeam    = "construction_beam_width"
	saiOptimizeFor         = "optimize_for"
	saiIndexTargetOption   = "target"
	saiIndexClassOption    = "class_name"
	saiCustomParamsSetting = "SAI_VECTOR_ALLOW_CUSTOM_PARAMETERS"
)

var saiValidOptions = map[string]bool{
	saiIndexTargetOption: true, saiIndexClassOption: true, saiMaxNodeConnections: true,
	saiConstructionBeam: true, saiSimilarityFunction: true, saiOptimizeFor: true,
	saiCaseSensitive: true, saiNormalize: true, saiASCII: true,
}

// VectorUsageWarning is the client warning of CREATE INDEX on a vector
// column (StorageAttachedIndex.VECTOR_USAGE_WARNING).
const VectorUsageWarning = "SAI ANN indexes on vector columns are experimental and are not recommended for production use.\n" +
	"They don't yet support SELECT queries with:\n" +
	" * Consistency level higher than ONE/LOCAL_ONE.\n" +
	" * Paging.\n" +
	" * No LIMIT clauses.\n" +
	" * PER PARTITION LIMIT clauses.\n" +
	" * GROUP BY clauses.\n" +
	" * Aggregation functions.\n" +
	" * Filters on columns without a SAI index."

// hasNonDefaultAnalysis is NonTokenizingOptions.hasNonDefaultOptions: an
// analysis option is set to anything but its default (compared as text,
// without parsing).
func hasNonDefaultAnalysis(opts map[string]string) bool {
	nonDefault := func(name, def string) bool {
		v, ok := opts[name]
		return ok && !strings.EqualFold(v, def)
	}
	return nonDefault(saiCaseSensitive, "true") || nonDefault(saiNormalize, "false") || nonDefault(saiASCII, "false")
}

// ValidateSAIOptions checks the OPTIONS of a storage-attached index on col
// with target as Cassandra 5.0 does (IndexMetadata.validateCustomIndexOptions,
// StorageAttachedIndex.validateOptions, AbstractAnalyzer.fromOptions,
// NonTokenizingOptions.fromMap, IndexWriterConfig.fromOptions), others being
// the indexes already on the table. It reports whether the index is a
// vector index (whose creation warns with VectorUsageWarning).
func ValidateSAIOptions(opts map[string]string, col *Column, target IndexTarget, others []*Index) (vector bool, err error) {
	var unknown []string
	for k := range opts {
		if !saiValidOptions[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return false, cqlerr.ConfigErrorf("Properties specified [%s] are not understood by StorageAttachedIndex", strings.Join(unknown, ", "))
	}
	for _, o := range others {
		// An equal index is a duplicate (CreateIndex's error, checked first
		// in Cassandra).
		if o.SAI() && o.Column == col.Name && o.Target == target && !maps.Equal(o.Options, opts) {
			return false, cqlerr.Invalidf("Cannot create more than one storage-attached index on the same column: %s", col.Name)
		}
	}
	var analysis []string
	for _, k := range []string{saiASCII, saiCaseSensitive, saiNormalize} {
		if v, ok := opts[k]; ok {
			analysis = append(analysis, "'"+k+"': '"+strings.ReplaceAll(v, "'", "''")+"'")
		}
	}
	if col.IsPrimaryKey() && len(analysis) > 0 {
		return false, cqlerr.Invalidf("Analysis options are not supported on primary key columns, but found {%s}", strings.Join(analysis, ", "))
	}
	if len(analysis) > 0 {
		// AbstractAnalyzer.fromOptions: any analysis option, even at its
		// default, needs text or ascii terms, and NonTokenizingOptions.fromMap
		// validates the booleans.
		if tt := indexTermType(col.Type, target); tt.Kind != types.Text && tt.Kind != types.Ascii {
			return false, cqlerr.Invalidf("CQL type %s cannot be analyzed.", tt)
		}
		for _, k := range []string{saiCaseSensitive, saiNormalize, saiASCII} {
			v, ok := opts[k]
			switch {
			case !ok:
			case v == "":
				return false, cqlerr.Invalidf("Empty value for boolean option '%s'", k)
			case !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false"):
				return false, cqlerr.Invalidf("Illegal value for boolean option '%s': %s", k, v)
			}
		}
	}
	typ := col.Type
	isVector := typ.Kind == types.Vector
	_, hasMax := opts[saiMaxNodeConnections]
	_, hasBeam := opts[saiConstructionBeam]
	_, hasSim := opts[saiSimilarityFunction]
	_, hasOpt := opts[saiOptimizeFor]
	if hasMax || hasBeam || hasSim || hasOpt {
		if !isVector {
			return false, cqlerr.Invalidf("CQL type %s cannot have vector options", indexTermType(typ, target))
		}
		if hasMax {
			return false, cqlerr.Invalidf("Maximum node connections cannot be set without enabling %s", saiCustomParamsSetting)
		}
		if hasBeam {
			return false, cqlerr.Invalidf("Construction beam width cannot be set without enabling %s", saiCustomParamsSetting)
		}
		if hasSim {
			switch f := strings.ToUpper(opts[saiSimilarityFunction]); f {
			case "EUCLIDEAN", "DOT_PRODUCT", "COSINE":
			default:
				return false, cqlerr.Invalidf("Similarity function %s was not recognized for index null. Valid values are: EUCLIDEAN, DOT_PRODUCT, COSINE", f)
			}
		}
		if hasOpt {
			switch f := strings.ToUpper(opts[saiOptimizeFor]); f {
			case "LATENCY", "RECALL":
			default:
				return false, cqlerr.Invalidf("optimize_for '%s' was not recognized for index null. Valid values are: LATENCY, RECALL", f)
			}
		}
	}
	if !typ.IsMultiCell() && typ.Kind == types.Blob {
		return false, cqlerr.Invalidf("Unsupported type: blob")
	}
	if isVector {
		if typ.Params[0].Kind != types.Float {
			return false, cqlerr.Invalidf("SAI ANN indexes are only allowed on vector columns with float elements")
		}
		if typ.Dimension == 1 && (!hasSim || strings.EqualFold(opts[saiSimilarityFunction], "cosine")) {
			return false, cqlerr.Invalidf("Cosine similarity is not supported for single-dimension vectors")
		}
		return true, nil
	}
	return false, nil
}

// indexTermType is the type of the terms an index on a column of type typ
// with target indexes (IndexTermType; the value type for a map's
// entries).
func indexTermType(typ *types.Type, target IndexTarget) *types.Type {
	if typ.IsMultiCell() && len(typ.Params) > 0 {
		switch {
		case typ.Kind == types.Map && target == TargetKeys:
			return typ.Params[0]
		case typ.Kind == types.Map:
			return typ.Params[1]
		default:
			return typ.Params[0]
		}
	}
	return typ
}

// TermsLiteral is TypeUtil.isLiteral of the terms of the storage-attached
// index ix on col (system_views.sai_column_indexes' is_string): text,
// ascii, booleans, and composite (a map's entries) or frozen values.
func (ix *Index) TermsLiteral(col *Column) bool {
	if ix.Target == TargetEntries {
		return true
	}
	tt := indexTermType(col.Type, ix.Target)
	switch tt.Kind {
	case types.Text, types.Ascii, types.Boolean, types.Tuple:
		return true
	case types.Vector:
		return false
	}
	return tt.Frozen
}

// AnalyzerName is the toString of the analyzer of the storage-attached
// index ix on col (AbstractAnalyzer.fromOptions): a NonTokenizingAnalyzer
// when a text index sets one of its options, NoOpAnalyzer otherwise.
func (ix *Index) AnalyzerName(col *Column) string {
	opt := func(name string) (string, bool) {
		v, ok := ix.Options[name]
		return strings.ToLower(v), ok
	}
	cs, hasCS := opt(saiCaseSensitive)
	norm, hasNorm := opt(saiNormalize)
	ascii, hasASCII := opt(saiASCII)
	tt := indexTermType(col.Type, ix.Target)
	if ix.Target == TargetEntries || (tt.Kind != types.Text && tt.Kind != types.Ascii) || !(hasCS || hasNorm || hasASCII) {
		return "NoOpAnalyzer{}"
	}
	return "NonTokenizingAnalyzer{caseSensitive=" + strconv.FormatBool(cs != "false") +
		", normalized=" + strconv.FormatBool(norm == "true") + ", ascii=" + strconv.FormatBool(ascii == "true") + "}"
}
