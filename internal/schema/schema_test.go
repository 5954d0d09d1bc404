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
	if _, err := m2.DropTable("app", "t", false); err != nil {
		t.Fatal(err)
	}
	if _, err := m2.DropKeyspace("system", false); !cqlerr.Is(err, cqlerr.Unauthorized) {
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
