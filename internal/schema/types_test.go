package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

func udt(ks, name string, fields ...any) *types.Type {
	t := &types.Type{Kind: types.UDT, Keyspace: ks, Name: name}
	for i := 0; i < len(fields); i += 2 {
		t.FieldNames = append(t.FieldNames, fields[i].(string))
		t.Params = append(t.Params, fields[i+1].(*types.Type))
	}
	return t
}

func frozen(t *types.Type) *types.Type {
	c := *t
	c.Frozen = true
	return &c
}

// TestUserTypesLifecycle creates, alters, persists, reloads and drops
// user types, checking that tables and types using an altered type follow
// it and that drops are refused while the type is used.
func TestUserTypesLifecycle(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	ks := &Keyspace{Name: "app", Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
	if _, err := m.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	phone := udt("app", "phone", "code", types.IntType, "number", types.TextType)
	if _, err := m.CreateType(phone, false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateType(phone, false); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("duplicate type: %v", err)
	}
	if changed, err := m.CreateType(phone, true); err != nil || changed {
		t.Fatalf("IF NOT EXISTS: %v %v", changed, err)
	}
	if _, err := m.CreateType(udt("nope", "x"), false); !cqlerr.Is(err, cqlerr.Invalid) {
		t.Fatalf("type in a missing keyspace: %v", err)
	}
	cur := m.Current().Keyspace("app")
	addr := udt("app", "address", "street", types.TextType,
		"phones", types.MapOf(types.TextType, frozen(cur.Type("phone")), false))
	if _, err := m.CreateType(addr, false); err != nil {
		t.Fatal(err)
	}
	cur = m.Current().Keyspace("app")
	tbl := NewTable("app", "users", uuid.New(), []*Column{
		{Name: "id", Type: types.IntType, Kind: PartitionKey, Position: 0},
		{Name: "home", Type: frozen(cur.Type("address")), Kind: Regular, Position: -1},
		{Name: "p", Type: cur.Type("phone"), Kind: Regular, Position: -1},
	}, DefaultTableParams())
	if _, err := m.CreateTable(tbl, false); err != nil {
		t.Fatal(err)
	}
	if got := m.Current().Table("app", "users").Column("home").Type.String(); got != "frozen<address>" {
		t.Fatalf("home type %q", got)
	}

	// Rename a field of phone: the address type and both columns follow.
	_, err = m.AlterType("app", "phone", false, func(ks *Keyspace, old *types.Type) (*types.Type, error) {
		nt := *old
		nt.FieldNames = []string{"country_code", "number"}
		return &nt, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(s *Schema) {
		t.Helper()
		k := s.Keyspace("app")
		inAddr := k.Type("address").Params[1].Params[1]
		if inAddr.FieldNames[0] != "country_code" || !inAddr.Frozen {
			t.Fatalf("address.phones not refreshed: %+v", inAddr)
		}
		tb := k.Table("users")
		if f := tb.Column("p").Type.FieldNames[0]; f != "country_code" {
			t.Fatalf("users.p not refreshed: %s", f)
		}
		home := tb.Column("home").Type
		if !home.Frozen || home.Params[1].Params[1].FieldNames[0] != "country_code" {
			t.Fatalf("users.home not refreshed: %+v", home)
		}
		if names := k.TypeNames(); strings.Join(names, ",") != "address,phone" {
			t.Fatalf("types %v", names)
		}
	}
	check(m.Current())
	if _, err := m.AlterType("app", "nope", false, nil); err == nil || !strings.Contains(err.Error(), "Type app.nope doesn't exist") {
		t.Fatalf("altering a missing type: %v", err)
	}

	// Reload from the persisted form.
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	check(m2.Current())
	if m2.Current().Table("app", "users").ID != tbl.ID {
		t.Fatal("table id changed")
	}

	// Drops are refused while the type is used.
	if _, err := m2.DropType("app", "phone", false); err == nil || !strings.Contains(err.Error(), "still used by user types address") {
		t.Fatalf("dropping phone: %v", err)
	}
	if _, err := m2.DropType("app", "address", false); err == nil || !strings.Contains(err.Error(), "still used by tables users") {
		t.Fatalf("dropping address: %v", err)
	}
	if _, err := m2.DropTable("app", "users", false, false); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"address", "phone"} {
		if _, err := m2.DropType("app", n, false); err != nil {
			t.Fatal(err)
		}
	}
	if changed, err := m2.DropType("app", "phone", true); err != nil || changed {
		t.Fatalf("DROP IF EXISTS: %v %v", changed, err)
	}
	if len(m2.Current().Keyspace("app").Types) != 0 {
		t.Fatal("types left")
	}
}

// TestOldSchemaWithoutTypes decodes a persisted schema written before user
// types existed.
func TestOldSchemaWithoutTypes(t *testing.T) {
	old := `{"format":1,"version":"` + uuid.New().String() + `","keyspaces":[{"name":"app",
		"replication":{"class":"org.apache.cassandra.locator.SimpleStrategy","replication_factor":"1"},
		"durable_writes":true,"tables":[{"name":"t","id":"` + uuid.New().String() + `",
		"columns":[{"name":"k","type":"int","kind":0,"position":0,"id":1}],"params":{},"next_column_id":2}]}]}`
	var p persistedSchema
	if err := json.Unmarshal([]byte(old), &p); err != nil {
		t.Fatal(err)
	}
	kss, err := p.decode()
	if err != nil {
		t.Fatal(err)
	}
	if kss["app"].Table("t") == nil || len(kss["app"].Types) != 0 {
		t.Fatalf("decoded %+v", kss["app"])
	}
}

// TestDroppedUDTColumnSurvivesTypeDrop persists a dropped column of a user
// type whose type is then dropped: the column's type is kept expanded to
// a tuple, so the schema still loads.
func TestDroppedUDTColumnSurvivesTypeDrop(t *testing.T) {
	store := memStore{}
	m, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	ks := &Keyspace{Name: "app", Replication: map[string]string{"class": SimpleStrategyClass, "replication_factor": "1"}, DurableWrites: true}
	if _, err := m.CreateKeyspace(ks, false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateType(udt("app", "pt", "x", types.IntType), false); err != nil {
		t.Fatal(err)
	}
	pt := m.Current().Keyspace("app").Type("pt")
	tbl := NewTable("app", "t", uuid.New(), []*Column{
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0},
	}, DefaultTableParams())
	tbl = tbl.Altered(tbl.Columns, tbl.Params, map[string]*DroppedColumn{
		"v": {Name: "v", Type: frozen(pt), Kind: Regular, DroppedTime: 1, ID: 9},
	})
	if _, err := m.CreateTable(tbl, false); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DropType("app", "pt", false); err != nil {
		t.Fatal(err)
	}
	m2, err := NewManager(store)
	if err != nil {
		t.Fatal(err)
	}
	d := m2.Current().Table("app", "t").Dropped["v"]
	if d == nil || d.Type.String() != "frozen<tuple<int>>" {
		t.Fatalf("dropped column %+v", d)
	}
}

// TestMarshalTable: a table's definition survives MarshalTable and
// UnmarshalTable with its user types, column ids and dropped columns.
func TestMarshalTable(t *testing.T) {
	addr := udt("ks", "addr", "street", types.TextType, "zip", types.IntType)
	ks := &Keyspace{Name: "ks", Types: map[string]*types.Type{"addr": addr}}
	tbl := NewTable("ks", "t", uuid.MustParse("6f1c7a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"), []*Column{
		{Name: "k", Type: types.IntType, Kind: PartitionKey, Position: 0, ID: 1},
		{Name: "c", Type: types.TextType, Kind: Clustering, Position: 0, Desc: true, ID: 2},
		{Name: "a", Type: frozen(addr), Kind: Regular, Position: -1, ID: 7},
		{Name: "m", Type: addr, Kind: Static, Position: -1, ID: 4},
	}, DefaultTableParams())
	tbl = tbl.Altered(tbl.Columns, tbl.Params, map[string]*DroppedColumn{
		"gone": {Name: "gone", Type: types.IntType, Kind: Regular, DroppedTime: 1234, ID: 5}})
	b, err := MarshalTable(ks, tbl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalTable(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != tbl.ID || got.Keyspace != "ks" || got.Name != "t" || len(got.Columns) != len(tbl.Columns) || got.Dropped["gone"] == nil {
		t.Fatalf("UnmarshalTable: %+v", got)
	}
	for _, c := range tbl.Columns {
		g := got.Column(c.Name)
		if g == nil || g.ID != c.ID || g.Kind != c.Kind || g.Desc != c.Desc || !g.Type.Equal(c.Type) || g.Type.Frozen != c.Type.Frozen {
			t.Errorf("column %s: got %+v, want %+v", c.Name, g, c)
		}
	}
	if f := got.Column("a").Type.FieldNames; len(f) != 2 || f[1] != "zip" {
		t.Errorf("user type fields: %v", f)
	}
	if _, err := UnmarshalTable([]byte(`{"name": "ks", "tables": []}`)); err == nil {
		t.Error("a definition without a table was accepted")
	}
}
