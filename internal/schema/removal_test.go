package schema

import (
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// TestRemovalsPersist: each DROP persists the removal of its data with the
// schema change, the removal is pending across a reload until Removed, and
// the ids of pending data stay taken.
func TestRemovalsPersist(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		ks := &Keyspace{Name: name, Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
		if _, err := m.CreateKeyspace(ks, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.CreateType(udt("a", "pt", "x", types.IntType), false); err != nil {
		t.Fatal(err)
	}
	newTable := func(ks, name string) *Table {
		tbl := NewTable(ks, name, uuid.New(), []*Column{
			{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
			{Name: "v", Type: types.IntType, Kind: Regular, Position: -1},
		}, DefaultTableParams())
		if _, err := m.CreateTable(tbl, false); err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	t1, t2, t3 := newTable("a", "t1"), newTable("a", "t2"), newTable("b", "t3")
	ok := func(*Keyspace, *Table) error { return nil }
	for _, tn := range []string{"t1", "t2"} {
		if _, err := m.CreateIndex("a", tn, &Index{Column: "v"}, false, ok); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.DropTable("a", "t1", false, true); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DropIndex("a", "t2_v_idx", false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.DropKeyspace("b", false, false); err != nil {
		t.Fatal(err)
	}
	describe := func(rs []Removal) string {
		var out []string
		for _, r := range rs {
			s := r.name() + " " + r.Table.ID.String()
			if r.Snapshot {
				s += " snapshot"
			}
			if r.Keyspace.Types["pt"] != nil {
				s += " with pt"
			}
			out = append(out, s)
		}
		return strings.Join(out, "\n")
	}
	want := strings.Join([]string{
		"a.t1 " + t1.ID.String() + " snapshot with pt",
		"index a.t2_v_idx " + t2.ID.String() + " with pt",
		"b.t3 " + t3.ID.String(),
	}, "\n")
	if got := describe(m.PendingRemovals()); got != want {
		t.Fatalf("pending:\n%s\nwant:\n%s", got, want)
	}
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	rs := m2.PendingRemovals()
	if got := describe(rs); got != want {
		t.Fatalf("pending after a reload:\n%s\nwant:\n%s", got, want)
	}
	if ix := rs[1].Index; ix.ID != IndexID(t2.ID, "t2_v_idx") || ix.Table(rs[1].Table).ID != ix.ID {
		t.Fatalf("reloaded index %+v", ix)
	}
	// The dropped table's id and its index's are taken, as is the
	// dropped index's.
	for _, id := range []uuid.UUID{t1.ID, IndexID(t1.ID, "t1_v_idx"), IndexID(t2.ID, "t2_v_idx")} {
		tbl := NewTable("a", "again", id, []*Column{{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0}}, DefaultTableParams())
		if _, err := m2.CreateTable(tbl, false); err == nil || !strings.Contains(err.Error(), "still used by the data of dropped") {
			t.Fatalf("CREATE TABLE WITH ID %s: %v", id, err)
		}
	}
	if _, err := m2.CreateIndex("a", "t2", &Index{Column: "v"}, false, ok); err == nil || !strings.Contains(err.Error(), "index a.t2_v_idx, not yet removed") {
		t.Fatal("CREATE INDEX over the pending data of the dropped index")
	}
	if err := m2.Removed(rs[0], Removal{Table: t2, Index: &Index{Name: "t2_v_idx"}}); err != nil {
		t.Fatal(err)
	}
	m3, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := describe(m3.PendingRemovals()), "b.t3 "+t3.ID.String(); got != want {
		t.Fatalf("pending after Removed:\n%s\nwant:\n%s", got, want)
	}
	if m3.Current().Version != m2.Current().Version {
		t.Fatal("Removed changed the schema version")
	}
	if _, err := m3.CreateIndex("a", "t2", &Index{Column: "v"}, false, ok); err != nil {
		t.Fatal(err)
	}
}
