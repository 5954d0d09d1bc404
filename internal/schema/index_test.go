package schema

import (
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

func TestIndexesPersistAndDrop(t *testing.T) {
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
		{Name: "c", Type: types.IntType, Kind: Clustering, Position: 0, Desc: true},
		{Name: "v", Type: types.TextType, Kind: Regular, Position: -1},
		{Name: "Mixed Case", Type: types.SetOf(types.IntType, false), Kind: Regular, Position: -1},
	}, DefaultTableParams())
	if _, err := m.CreateTable(tbl, false); err != nil {
		t.Fatal(err)
	}
	ok := func(*Keyspace, *Table) error { return nil }
	if _, err := m.CreateIndex("app", "t", &Index{Column: "v"}, false, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex("app", "t", &Index{Column: "Mixed Case", Target: TargetValues, Custom: true, Class: SAIClass}, false, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex("app", "t", &Index{Name: "t_v_idx", Column: "c"}, false, ok); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("duplicate name: %v", err)
	}
	if changed, err := m.CreateIndex("app", "t", &Index{Column: "v"}, true, ok); err != nil || changed {
		t.Fatalf("equal index with IF NOT EXISTS: %v %v", changed, err)
	}
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	got := m2.Current().Table("app", "t")
	if len(got.Indexes) != 2 {
		t.Fatalf("reloaded %d indexes", len(got.Indexes))
	}
	v, mc := got.Indexes[1], got.Indexes[0] // sorted by name: t_Mixed..., t_v_idx
	if v.Name != "t_v_idx" || v.ID != IndexID(tbl.ID, "t_v_idx") || v.TargetString() != "v" || v.Kind() != "COMPOSITES" {
		t.Fatalf("reloaded %+v", v)
	}
	if mc.Name != "t_MixedCase_idx" || mc.TargetString() != `values("Mixed Case")` || !mc.SAI() || mc.Kind() != "CUSTOM" {
		t.Fatalf("reloaded %+v (%s)", mc, mc.TargetString())
	}
	it := v.Table(got)
	if len(it.PartitionKey) != 1 || len(it.Clustering) != 3 || !it.Clustering[2].Desc || it.ID != v.ID {
		t.Fatalf("index table %+v", it)
	}
	r, err := m2.DropIndex("app", "t_v_idx", false)
	if err != nil || r == nil || r.Index.Name != "t_v_idx" || len(m2.Current().Table("app", "t").Indexes) != 1 {
		t.Fatalf("drop: %+v %v", r, err)
	}
	if _, err := m2.DropIndex("app", "t_v_idx", false); !cqlerr.Is(err, cqlerr.Invalid) || !strings.HasSuffix(err.Error(), "Index 'app.t_v_idx' doesn't exist'") {
		t.Fatalf("drop missing: %v", err)
	}
}

func TestAlterSystemAuthPersists(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	repl := map[string]string{"class": SimpleStrategyClass, "replication_factor": "3"}
	if _, err := m.AlterKeyspace(SystemAuthKeyspace, false, func(old *Keyspace) (*Keyspace, error) {
		nk := *old
		nk.Replication = repl
		return &nk, nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AlterKeyspace(SystemKeyspace, false, func(old *Keyspace) (*Keyspace, error) { return old, nil }); err == nil {
		t.Fatal("ALTER KEYSPACE system accepted")
	}
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	ks := m2.Current().Keyspace(SystemAuthKeyspace)
	if ks.Replication["replication_factor"] != "3" || ks.Table("roles") == nil {
		t.Fatalf("system_auth after reload: %+v", ks.Replication)
	}
}

// TestIDsNotShared checks that a table created WITH ID cannot take the id
// an index stores its data under (it would read and overwrite the index),
// nor an index the id of such a table, nor a system table's.
func TestIDsNotShared(t *testing.T) {
	m, err := NewManager(memStore{})
	if err != nil {
		t.Fatal(err)
	}
	ks := &Keyspace{Name: "app", Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
	if _, err := m.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	table := func(name string, id uuid.UUID) *Table {
		return NewTable("app", name, id, []*Column{
			{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
			{Name: "v", Type: types.TextType, Kind: Regular, Position: -1},
		}, DefaultTableParams())
	}
	victim := table("victim", uuid.New())
	if _, err := m.CreateTable(victim, false); err != nil {
		t.Fatal(err)
	}
	ok := func(*Keyspace, *Table) error { return nil }
	if _, err := m.CreateIndex("app", "victim", &Index{Name: "vi", Column: "v"}, false, ok); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTable(table("thief", IndexID(victim.ID, "vi")), false); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("table on an index's id: %v", err)
	}
	if _, err := m.CreateTable(table("thief", SystemTableID(SystemAuthKeyspace, "roles")), false); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("table on a system table's id: %v", err)
	}
	// The other way round: a table already holds the id an index would get.
	if _, err := m.CreateTable(table("squatter", IndexID(victim.ID, "later")), false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateIndex("app", "victim", &Index{Name: "later", Column: "k"}, false, ok); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("index on a table's id: %v", err)
	}
}

// TestViewMasksFollowBase checks that a view's columns take their base
// table's masks (also for views kept from before views followed masks),
// without changing the keyspace they are derived from.
func TestViewMasksFollowBase(t *testing.T) {
	mask := &ColumnMask{Function: "mask_default"}
	cols := func(m *ColumnMask) []*Column {
		return []*Column{
			{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0, ID: 1},
			{Name: "v", Type: types.TextType, Kind: Regular, Position: -1, ID: 2, Mask: m},
		}
	}
	base := NewTable("app", "base", uuid.New(), cols(mask), DefaultTableParams())
	view := NewTable("app", "v", uuid.New(), cols(nil), DefaultTableParams())
	view.View = &ViewInfo{BaseID: base.ID, BaseName: "base"}
	k := &Keyspace{Name: "app", Tables: map[string]*Table{"base": base, "v": view}}
	got := k.withViewMasks()
	if m := got.Tables["v"].Column("v").Mask; !sameMask(m, mask) {
		t.Fatalf("view column mask %+v, want %+v", m, mask)
	}
	if k.Tables["v"].Column("v").Mask != nil {
		t.Fatal("withViewMasks changed the keyspace it was given")
	}
	if again := got.withViewMasks(); again != got {
		t.Fatal("in sync views were rebuilt")
	}
}
