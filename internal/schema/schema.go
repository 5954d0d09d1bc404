package schema

import (
	"sort"

	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// ColumnKind is the role of a column in its table, spelled as
// system_schema.columns.kind spells it.
type ColumnKind uint8

const (
	PartitionKey ColumnKind = iota
	Clustering
	Static
	Regular
)

func (k ColumnKind) String() string {
	switch k {
	case PartitionKey:
		return "partition_key"
	case Clustering:
		return "clustering"
	case Static:
		return "static"
	default:
		return "regular"
	}
}

// Column is one column of a table.
type Column struct {
	Name string
	Type *types.Type
	Kind ColumnKind
	// Position is the index within the partition key or clustering; -1 for
	// static and regular columns (as system_schema.columns.position).
	Position int
	// Desc is true for a clustering column in DESC order.
	Desc bool
	// ID identifies the column in storage keys. Stable for the life of the
	// table; never reused after a column is dropped.
	ID uint32
	// Mask is the column's dynamic data mask (MASKED WITH), or nil.
	Mask *ColumnMask
}

// ColumnMask is a masking function partially applied to a column: the
// column's value is its first argument, Args (serialized values of types
// ArgTypes; nil for null) the others (system_schema.column_masks).
type ColumnMask struct {
	Function string   `json:"function"` // a native masking function, e.g. "mask_inner"
	ArgTypes []string `json:"arg_types,omitempty"`
	Args     [][]byte `json:"args,omitempty"`
}

// ClusteringOrder returns "asc", "desc" or "none" as system_schema shows it.
func (c *Column) ClusteringOrder() string {
	if c.Kind != Clustering {
		return "none"
	}
	if c.Desc {
		return "desc"
	}
	return "asc"
}

// IsPrimaryKey reports whether c is a partition key or clustering column.
func (c *Column) IsPrimaryKey() bool { return c.Kind == PartitionKey || c.Kind == Clustering }

// Table is an immutable table definition.
type Table struct {
	Keyspace string
	Name     string
	ID       uuid.UUID
	// Columns in Cassandra's "SELECT *" order: partition key columns,
	// clustering columns, static columns by name, then regular columns by
	// name.
	Columns      []*Column
	PartitionKey []*Column
	Clustering   []*Column
	Statics      []*Column
	Regulars     []*Column
	Params       TableParams
	// Virtual tables (system_schema, system.local, ...) are served by the
	// node itself, not by storage.
	Virtual bool
	// IsCounter marks a counter table.
	IsCounter bool
	// NextColumnID is the id the next added column gets.
	NextColumnID uint32
	// Dropped are the columns dropped by ALTER TABLE ... DROP, by name
	// (system_schema.dropped_columns). Cells of a re-added column written
	// at or before its drop time are never read (CellDropped).
	Dropped map[string]*DroppedColumn
	// Indexes are the table's secondary indexes, sorted by name.
	Indexes []*Index
	// View is set when the table is a materialized view; Views names the
	// materialized views of a base table.
	View  *ViewInfo
	Views []string

	byName map[string]*Column
	byID   map[uint32]*Column
	// shadow maps the id of a live column re-added after a drop to the
	// drop time: its older cells belong to the dropped column.
	shadow map[uint32]int64
	// canonicalizes: a clustering column's type has values that its key
	// encoding decodes to another form (types.KeyMayCanonicalize).
	canonicalizes bool
}

// DroppedColumn is a row of system_schema.dropped_columns.
type DroppedColumn struct {
	Name string
	Type *types.Type
	Kind ColumnKind // Static or Regular
	// DroppedTime is the drop timestamp in microseconds.
	DroppedTime int64
	// ID is the storage id the column had; a compatible re-add reuses it.
	ID uint32
}

// CellDropped reports whether a cell of column id written at ts belongs to
// a dropped incarnation of the column (Cassandra skips such cells when it
// reads them).
func (t *Table) CellDropped(id uint32, ts int64) bool {
	if len(t.shadow) == 0 {
		return false
	}
	d, ok := t.shadow[id]
	return ok && ts <= d
}

// HasDroppedShadows reports whether some live column was re-added after a
// drop (so that CellDropped can be true).
func (t *Table) HasDroppedShadows() bool { return len(t.shadow) > 0 }

// Altered returns a new version of t with the given columns (any order;
// columns with ID 0 get fresh ids), params and dropped columns. The table
// keeps its id and its counter flag.
func (t *Table) Altered(cols []*Column, params TableParams, dropped map[string]*DroppedColumn) *Table {
	// Copy everything (indexes, views, ...), then replace what changes.
	cp := *t
	nt := &cp
	nt.Params, nt.Dropped = params, dropped
	nt.Columns = nil
	for _, c := range cols {
		if c.ID >= nt.NextColumnID {
			nt.NextColumnID = c.ID + 1
		}
	}
	for _, c := range cols {
		if c.ID == 0 {
			c.ID = nt.NextColumnID
			nt.NextColumnID++
		}
	}
	nt.init(cols)
	nt.IsCounter = nt.IsCounter || t.IsCounter
	return nt
}

// TableParams are the WITH options of a table, with Cassandra 5.0 defaults.
type TableParams struct {
	Comment                 string
	AdditionalWritePolicy   string
	BloomFilterFPChance     float64
	Caching                 map[string]string
	CDC                     bool
	Compaction              map[string]string
	Compression             map[string]string
	CRCCheckChance          float64
	DefaultTimeToLive       int32
	Extensions              map[string][]byte
	GCGraceSeconds          int32
	MaxIndexInterval        int32
	MemtableFlushPeriodInMs int32
	MinIndexInterval        int32
	ReadRepair              string
	SpeculativeRetry        string
	Memtable                string
	AllowAutoSnapshot       bool
	Incremental             bool
}

// DefaultTableParams returns Cassandra 5.0's defaults.
func DefaultTableParams() TableParams {
	return TableParams{
		AdditionalWritePolicy: "99p",
		BloomFilterFPChance:   0.01,
		Caching:               map[string]string{"keys": "ALL", "rows_per_partition": "NONE"},
		Compaction: map[string]string{
			"class":         "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
			"max_threshold": "32",
			"min_threshold": "4",
		},
		Compression: map[string]string{
			"chunk_length_in_kb": "16",
			"class":              "org.apache.cassandra.io.compress.LZ4Compressor",
		},
		CRCCheckChance:    1.0,
		Extensions:        map[string][]byte{},
		GCGraceSeconds:    864000,
		MaxIndexInterval:  2048,
		MinIndexInterval:  128,
		ReadRepair:        "BLOCKING",
		SpeculativeRetry:  "99p",
		Memtable:          "default",
		AllowAutoSnapshot: true,
		Incremental:       true, // incremental_backups (TableParams.Builder)
	}
}

// NewTable builds a table from its columns (any order) and computes the
// derived lists. Columns with ID 0 get fresh ids.
func NewTable(keyspace, name string, id uuid.UUID, cols []*Column, params TableParams) *Table {
	t := &Table{Keyspace: keyspace, Name: name, ID: id, Params: params, NextColumnID: 1}
	for _, c := range cols {
		if c.ID >= t.NextColumnID {
			t.NextColumnID = c.ID + 1
		}
	}
	for _, c := range cols {
		if c.ID == 0 {
			c.ID = t.NextColumnID
			t.NextColumnID++
		}
	}
	t.init(cols)
	return t
}

func (t *Table) init(cols []*Column) {
	t.PartitionKey, t.Clustering, t.Statics, t.Regulars = nil, nil, nil, nil
	t.canonicalizes = false
	t.byName = make(map[string]*Column, len(cols))
	t.byID = make(map[uint32]*Column, len(cols))
	for _, c := range cols {
		t.byName[c.Name] = c
		t.byID[c.ID] = c
		switch c.Kind {
		case PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case Clustering:
			t.Clustering = append(t.Clustering, c)
			t.canonicalizes = t.canonicalizes || types.KeyMayCanonicalize(c.Type)
		case Static:
			t.Statics = append(t.Statics, c)
		default:
			t.Regulars = append(t.Regulars, c)
		}
		if c.Type.Kind == types.Counter {
			t.IsCounter = true
		}
	}
	t.shadow = nil
	for _, d := range t.Dropped {
		if c := t.byName[d.Name]; c != nil && c.ID == d.ID {
			if t.shadow == nil {
				t.shadow = map[uint32]int64{}
			}
			t.shadow[c.ID] = d.DroppedTime
		}
	}
	sort.Slice(t.PartitionKey, func(i, j int) bool { return t.PartitionKey[i].Position < t.PartitionKey[j].Position })
	sort.Slice(t.Clustering, func(i, j int) bool { return t.Clustering[i].Position < t.Clustering[j].Position })
	sort.Slice(t.Statics, func(i, j int) bool { return t.Statics[i].Name < t.Statics[j].Name })
	sort.Slice(t.Regulars, func(i, j int) bool { return t.Regulars[i].Name < t.Regulars[j].Name })
	t.Columns = t.Columns[:0]
	t.Columns = append(t.Columns, t.PartitionKey...)
	t.Columns = append(t.Columns, t.Clustering...)
	// Cassandra's select order: statics by name, then regulars by name
	// (RegularAndStaticColumns.selectOrderIterator).
	t.Columns = append(t.Columns, t.Statics...)
	t.Columns = append(t.Columns, t.Regulars...)
}

// Column returns the named column or nil.
func (t *Table) Column(name string) *Column { return t.byName[name] }

// ColumnByID returns the column with the given storage id or nil.
func (t *Table) ColumnByID(id uint32) *Column { return t.byID[id] }

// HasStatics reports whether the table has static columns.
func (t *Table) HasStatics() bool { return len(t.Statics) > 0 }

// ClusteringMayCanonicalize reports whether some clustering column's values
// may be written in another form than the one their key encoding decodes
// to (types.KeyMayCanonicalize), which storage then keeps apart.
func (t *Table) ClusteringMayCanonicalize() bool { return t.canonicalizes }

// Keyspace is an immutable keyspace definition with its tables.
type Keyspace struct {
	Name string
	// Replication as system_schema.keyspaces.replication shows it, with the
	// full class name, e.g. {"class": "org.apache.cassandra.locator.SimpleStrategy",
	// "replication_factor": "1"}.
	Replication   map[string]string
	DurableWrites bool
	Tables        map[string]*Table
	// Types are the keyspace's user-defined types by name (types.go).
	Types map[string]*types.Type
	// Virtual keyspaces (system_virtual_schema, ...) are listed in
	// system_virtual_schema, not in system_schema.
	Virtual bool
}

// Table returns the named table or nil.
func (k *Keyspace) Table(name string) *Table {
	if k == nil {
		return nil
	}
	return k.Tables[name]
}

// TableNames returns the table names sorted.
func (k *Keyspace) TableNames() []string {
	names := make([]string, 0, len(k.Tables))
	for n := range k.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CompareClustering compares two clustering prefixes in clustering order
// (DESC columns inverted) over their common length.
func (t *Table) CompareClustering(a, b [][]byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		c := types.Compare(t.Clustering[i].Type, a[i], b[i])
		if t.Clustering[i].Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// Tables returns the tables (views included) of the keyspaces whose
// Virtual flag is virtual, by keyspace then table name.
func (s *Schema) Tables(virtual bool) []*Table {
	var out []*Table
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		if ks.Virtual != virtual {
			continue
		}
		for _, tn := range ks.TableNames() {
			out = append(out, ks.Tables[tn])
		}
	}
	return out
}

// UserTables returns the tables (views included) of the keyspaces users
// created, by keyspace then table name.
func (s *Schema) UserTables() []*Table {
	var out []*Table
	for _, t := range s.Tables(false) {
		if !IsSystemKeyspace(t.Keyspace) {
			out = append(out, t)
		}
	}
	return out
}
