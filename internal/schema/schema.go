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
	// clustering columns, then static and regular columns by name.
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

	byName map[string]*Column
	byID   map[uint32]*Column
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
		case Static:
			t.Statics = append(t.Statics, c)
		default:
			t.Regulars = append(t.Regulars, c)
		}
		if c.Type.Kind == types.Counter {
			t.IsCounter = true
		}
	}
	sort.Slice(t.PartitionKey, func(i, j int) bool { return t.PartitionKey[i].Position < t.PartitionKey[j].Position })
	sort.Slice(t.Clustering, func(i, j int) bool { return t.Clustering[i].Position < t.Clustering[j].Position })
	sort.Slice(t.Statics, func(i, j int) bool { return t.Statics[i].Name < t.Statics[j].Name })
	sort.Slice(t.Regulars, func(i, j int) bool { return t.Regulars[i].Name < t.Regulars[j].Name })
	t.Columns = t.Columns[:0]
	t.Columns = append(t.Columns, t.PartitionKey...)
	t.Columns = append(t.Columns, t.Clustering...)
	rest := append(append([]*Column(nil), t.Statics...), t.Regulars...)
	sort.Slice(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	t.Columns = append(t.Columns, rest...)
}

// Column returns the named column or nil.
func (t *Table) Column(name string) *Column { return t.byName[name] }

// ColumnByID returns the column with the given storage id or nil.
func (t *Table) ColumnByID(id uint32) *Column { return t.byID[id] }

// HasStatics reports whether the table has static columns.
func (t *Table) HasStatics() bool { return len(t.Statics) > 0 }

// Keyspace is an immutable keyspace definition with its tables.
type Keyspace struct {
	Name string
	// Replication as system_schema.keyspaces.replication shows it, with the
	// full class name, e.g. {"class": "org.apache.cassandra.locator.SimpleStrategy",
	// "replication_factor": "1"}.
	Replication   map[string]string
	DurableWrites bool
	Tables        map[string]*Table
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
