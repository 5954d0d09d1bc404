package schema

import (
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

type memStore map[string][]byte

func (m memStore) GetMeta(k string) ([]byte, error) { return m[k], nil }
func (m memStore) PutMeta(k string, v []byte) error { m[k] = v; return nil }

func TestManagerPersistsAndVersions(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	v0 := m.Current().Version
	if m.Current().Table("system", "local") == nil || m.Current().Table("system_schema", "columns") == nil {
		t.Fatal("system tables missing")
	}
	ks := &Keyspace{Name: "app", Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
	if _, err := m.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateKeyspace(ks, false); !cqlerr.Is(err, cqlerr.AlreadyExists) {
		t.Fatalf("duplicate keyspace: %v", err)
	}
	if changed, err := m.CreateKeyspace(ks, true); err != nil || changed {
		t.Fatalf("IF NOT EXISTS: %v %v", changed, err)
	}
	tbl := NewTable("app", "t", uuid.New(), []*Column{
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
		{Name: "c", Type: types.TimestampType, Kind: Clustering, Position: 0, Desc: true},
		{Name: "v", Type: types.MapOf(types.TextType, types.IntType, false), Kind: Regular, Position: -1},
		{Name: "s", Type: types.TextType, Kind: Static, Position: -1},
	}, DefaultTableParams())
	if _, err := m.CreateTable(tbl, false); err != nil {
		t.Fatal(err)
	}
	if m.Current().Version == v0 {
		t.Fatal("schema version did not change")
	}
	// Reload from the store: same tables, same column ids, same version.
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	got := m2.Current().Table("app", "t")
	if got == nil || got.ID != tbl.ID || m2.Current().Version != m.Current().Version {
		t.Fatalf("reloaded table %+v", got)
	}
	for _, c := range tbl.Columns {
		gc := got.Column(c.Name)
		if gc == nil || gc.ID != c.ID || !gc.Type.Equal(c.Type) || gc.Kind != c.Kind || gc.Desc != c.Desc {
			t.Fatalf("column %s reloaded as %+v", c.Name, gc)
		}
	}
	// SELECT * order: partition key, clustering, then the rest by name.
	var names []string
	for _, c := range got.Columns {
		names = append(names, c.Name)
	}
	if want := "k c s v"; joined(names) != want {
		t.Fatalf("column order %q, want %q", joined(names), want)
	}
	if _, err := m2.DropTable("app", "t", false, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m2.DropKeyspace("system", false, false); !cqlerr.Is(err, cqlerr.Unauthorized) {
		t.Fatalf("dropping a system keyspace: %v", err)
	}
}

func joined(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestSystemTableID(t *testing.T) {
	// Cassandra's TableId.forSystemTable("system", "local").
	if got := SystemTableID("system", "local").String(); got != "7ad54392-bcdd-35a6-8417-4e047860b377" {
		t.Fatalf("system.local id = %s", got)
	}
}

// TestColumnOrderStaticsFirst checks Cassandra's SELECT * order: statics by
// name come before regulars by name, whatever the names.
func TestColumnOrderStaticsFirst(t *testing.T) {
	tbl := NewTable("app", "t", uuid.New(), []*Column{
		{Name: "a", Type: types.IntType, Kind: Regular, Position: -1},
		{Name: "z", Type: types.IntType, Kind: Static, Position: -1},
		{Name: "c", Type: types.IntType, Kind: Clustering, Position: 0},
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
		{Name: "b", Type: types.IntType, Kind: Static, Position: -1},
	}, DefaultTableParams())
	var names []string
	for _, c := range tbl.Columns {
		names = append(names, c.Name)
	}
	if want := "k c b z a"; joined(names) != want {
		t.Fatalf("column order %q, want %q", joined(names), want)
	}
}

// TestAlterTableDroppedColumnsPersist checks that dropped columns, the
// re-added column's shadow and a counter table's flag survive a reload.
func TestAlterTableDroppedColumnsPersist(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	ks := &Keyspace{Name: "app", Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
	if _, err := m.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	tbl := NewTable("app", "t", uuid.New(), []*Column{
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
		{Name: "v", Type: types.IntType, Kind: Regular, Position: -1},
	}, DefaultTableParams())
	cnt := NewTable("app", "cnt", uuid.New(), []*Column{
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
		{Name: "n", Type: types.CounterType, Kind: Regular, Position: -1},
	}, DefaultTableParams())
	for _, x := range []*Table{tbl, cnt} {
		if _, err := m.CreateTable(x, false); err != nil {
			t.Fatal(err)
		}
	}
	v := tbl.Column("v")
	drop := func(t0 *Table, name string, ts int64) func(*Keyspace, *Table) (*Table, error) {
		return func(_ *Keyspace, old *Table) (*Table, error) {
			c := old.Column(name)
			var cols []*Column
			for _, x := range old.Columns {
				if x.Name != name {
					cols = append(cols, x)
				}
			}
			d := map[string]*DroppedColumn{name: {Name: name, Type: c.Type, Kind: c.Kind, DroppedTime: ts, ID: c.ID}}
			return old.Altered(cols, old.Params, d), nil
		}
	}
	if _, err := m.AlterTable("app", "t", false, drop(tbl, "v", 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AlterTable("app", "cnt", false, drop(cnt, "n", 100)); err != nil {
		t.Fatal(err)
	}
	// Re-add v with its old id.
	if _, err := m.AlterTable("app", "t", false, func(_ *Keyspace, old *Table) (*Table, error) {
		cols := append(append([]*Column(nil), old.Columns...), &Column{Name: "v", Type: types.IntType, Kind: Regular, Position: -1, ID: v.ID})
		return old.Altered(cols, old.Params, old.Dropped), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AlterTable("app", "nosuch", false, nil); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("missing table: %v", err)
	}
	if changed, err := m.AlterTable("app", "nosuch", true, nil); err != nil || changed {
		t.Fatalf("missing table IF EXISTS: %v %v", changed, err)
	}
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	got := m2.Current().Table("app", "t")
	if d := got.Dropped["v"]; d == nil || d.DroppedTime != 100 || d.ID != v.ID || !d.Type.Equal(types.IntType) || d.Kind != Regular {
		t.Fatalf("dropped column reloaded as %+v", d)
	}
	if !got.CellDropped(v.ID, 100) || got.CellDropped(v.ID, 101) || !got.HasDroppedShadows() {
		t.Fatal("re-added column's shadow lost")
	}
	if gc := m2.Current().Table("app", "cnt"); !gc.IsCounter || gc.Column("n") != nil {
		t.Fatalf("counter table reloaded as counter=%v", gc.IsCounter)
	}
}
