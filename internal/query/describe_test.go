package query

import (
	"context"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// tableParametersCql is DescribeStatementTest.tableParametersCql (the
// defaults of Cassandra 5.0).
const tableParametersCql = "additional_write_policy = '99p'\n" +
	"    AND allow_auto_snapshot = true\n" +
	"    AND bloom_filter_fp_chance = 0.01\n" +
	"    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n" +
	"    AND cdc = false\n" +
	"    AND comment = ''\n" +
	"    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '4'}\n" +
	"    AND compression = {'chunk_length_in_kb': '16', 'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}\n" +
	"    AND memtable = 'default'\n" +
	"    AND crc_check_chance = 1.0\n" +
	"    AND default_time_to_live = 0\n" +
	"    AND extensions = {}\n" +
	"    AND gc_grace_seconds = 864000\n" +
	"    AND incremental_backups = true\n" +
	"    AND max_index_interval = 2048\n" +
	"    AND memtable_flush_period_in_ms = 0\n" +
	"    AND min_index_interval = 128\n" +
	"    AND read_repair = 'BLOCKING'\n" +
	"    AND speculative_retry = '99p';"

func describeKs() *schema.Keyspace {
	return &schema.Keyspace{Name: "ks", Replication: map[string]string{"class": schema.SimpleStrategyClass, "replication_factor": "1"},
		DurableWrites: true, Tables: map[string]*schema.Table{}}
}

// DescribeStatementTest.testDescribeTableWithInternals: the id, then the
// dropped column history (drop, then re-add).
func TestDescribeTableWithInternals(t *testing.T) {
	id := uuid.MustParse("5a1c395e-b41f-11e5-9f22-ba0be0483c18")
	cols := []*schema.Column{
		{Name: "pk1", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "pk2", Type: types.IntType, Kind: schema.PartitionKey, Position: 1},
		{Name: "c", Type: types.IntType, Kind: schema.Clustering, Position: 0},
		{Name: "s", Type: types.DecimalType, Kind: schema.Static, Position: -1},
		{Name: "v1", Type: types.TextType, Kind: schema.Regular, Position: -1},
		{Name: "v2", Type: types.IntType, Kind: schema.Regular, Position: -1},
		{Name: "v3", Type: types.IntType, Kind: schema.Regular, Position: -1},
	}
	ks := describeKs()
	tbl := schema.NewTable("ks", "t", id, cols, schema.DefaultTableParams())
	create := "CREATE TABLE ks.t (\n" +
		"    pk1 text,\n" +
		"    pk2 int,\n" +
		"    c int,\n" +
		"    s decimal static,\n" +
		"    v1 text,\n" +
		"    v2 int,\n" +
		"    v3 int,\n" +
		"    PRIMARY KEY ((pk1, pk2), c)\n" +
		") WITH ID = 5a1c395e-b41f-11e5-9f22-ba0be0483c18\n" +
		"    AND CLUSTERING ORDER BY (c ASC)\n" +
		"    AND " + tableParametersCql
	if got := tableCQL(ks, tbl, true); got != create {
		t.Fatalf("got\n%s\nwant\n%s", got, create)
	}
	drop := "ALTER TABLE ks.t DROP v3 USING TIMESTAMP 1589286942065000;"
	dropped := map[string]*schema.DroppedColumn{"v3": {Name: "v3", Type: types.IntType, Kind: schema.Regular, DroppedTime: 1589286942065000}}
	tbl = tbl.Altered(cols[:6], tbl.Params, dropped)
	if got, want := tableCQL(ks, tbl, true), create+"\n"+drop; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	tbl = tbl.Altered(append(cols[:6:6], &schema.Column{Name: "v3", Type: types.IntType, Kind: schema.Regular, Position: -1}), tbl.Params, dropped)
	if got, want := tableCQL(ks, tbl, true), create+"\n"+drop+"\nALTER TABLE ks.t ADD v3 int;"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// DescribeStatementTest.testPrimaryKeyPositionWithAndWithoutInternals.
func TestDescribePrimaryKeyPositionWithAndWithoutInternals(t *testing.T) {
	id := uuid.MustParse("5a1c395e-b41f-11e5-9f22-ba0be0483c18")
	cols := []*schema.Column{
		{Name: "pk", Type: types.TextType, Kind: schema.PartitionKey, Position: 0},
		{Name: "v1", Type: types.TextType, Kind: schema.Regular, Position: -1},
		{Name: "v2", Type: types.IntType, Kind: schema.Regular, Position: -1},
	}
	ks := describeKs()
	dropped := map[string]*schema.DroppedColumn{"v3": {Name: "v3", Type: types.IntType, Kind: schema.Regular, DroppedTime: 1589286942065000}}
	tbl := schema.NewTable("ks", "t", id, cols, schema.DefaultTableParams()).Altered(cols, schema.DefaultTableParams(), dropped)
	want := "CREATE TABLE ks.t (\n" +
		"    pk text PRIMARY KEY,\n" +
		"    v1 text,\n" +
		"    v2 int,\n" +
		"    v3 int\n" +
		") WITH ID = 5a1c395e-b41f-11e5-9f22-ba0be0483c18\n" +
		"    AND " + tableParametersCql + "\n" +
		"ALTER TABLE ks.t DROP v3 USING TIMESTAMP 1589286942065000;"
	if got := tableCQL(ks, tbl, true); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	want = "CREATE TABLE ks.t (\n" +
		"    pk text PRIMARY KEY,\n" +
		"    v1 text,\n" +
		"    v2 int\n" +
		") WITH " + tableParametersCql
	if got := tableCQL(ks, tbl, false); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

type fakeNode struct{ info LocalInfo }

func (f fakeNode) Local() LocalInfo { return f.info }

func TestDescribeClusterRangeOwnership(t *testing.T) {
	m, err := schema.NewManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateKeyspace(describeKs(), false); err != nil {
		t.Fatal(err)
	}
	e := New(Config{Schema: m, Node: fakeNode{LocalInfo{ClusterName: "Test Cluster", ListenAddress: []byte{127, 0, 0, 1},
		ListenPort: 7000, Tokens: []int64{-5, 100, 20}}}})
	ctx := context.Background()
	res, err := e.Query(ctx, &Session{}, "DESCRIBE CLUSTER", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 3 || len(res.Rows) != 1 || string(res.Rows[0][1]) != "Murmur3Partitioner" {
		t.Fatalf("without keyspace: %+v", res)
	}
	for _, ks := range []string{"system", "system_auth", "system_views"} {
		res, err = e.Query(ctx, &Session{Keyspace: ks}, "DESC CLUSTER", nil)
		if err != nil || len(res.Columns) != 3 {
			t.Fatalf("with system keyspace %s: %+v %v", ks, res, err)
		}
	}
	res, err = e.Query(ctx, &Session{Keyspace: "ks"}, "DESCRIBE CLUSTER", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Columns) != 4 || res.Columns[3].Name != "range_ownership" ||
		res.Columns[3].Type.String() != "frozen<map<text, frozen<list<text>>>>" {
		t.Fatalf("columns: %+v", res.Columns)
	}
	got := types.Format(res.Columns[3].Type, res.Rows[0][3])
	want := "{'-5': ['/127.0.0.1:7000'], '100': ['/127.0.0.1:7000'], '20': ['/127.0.0.1:7000']}"
	if got != want {
		t.Fatalf("range_ownership %s, want %s", got, want)
	}
}

func TestDescribePaging(t *testing.T) {
	m, err := schema.NewManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Schema: m})
	ctx := context.Background()
	var names []string
	opts := &Options{PageSize: 3}
	pages := 0
	for {
		res, err := e.Query(ctx, &Session{}, "DESCRIBE KEYSPACES", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range res.Rows {
			names = append(names, string(r[2]))
		}
		if res.PagingState == nil {
			break
		}
		opts = &Options{PageSize: 3, PagingState: res.PagingState}
	}
	// 7 system keyspaces: pages of 3, 3 and 1.
	if pages != 3 || len(names) != 7 || names[0] != "system" || names[6] != "system_virtual_schema" {
		t.Fatalf("%d pages: %v", pages, names)
	}

	// A schema change between pages fails the next page.
	res, err := e.Query(ctx, &Session{}, "DESCRIBE KEYSPACES", &Options{PageSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateKeyspace(describeKs(), false); err != nil {
		t.Fatal(err)
	}
	_, err = e.Query(ctx, &Session{}, "DESCRIBE KEYSPACES", &Options{PageSize: 1, PagingState: res.PagingState})
	if e := cqlerr.As(err); e == nil || e.Code != cqlerr.Invalid || e.Message != describeSchemaChanged {
		t.Fatalf("schema change while paging: %v", err)
	}

	// Tampered paging states are errors, never panics.
	for _, ps := range [][]byte{{}, {0}, {0, 2}, {0, 1, 0, 9, 'x'}, {0, 1, 0, 1, 'x'}, append([]byte{0, 1, 0, 5}, "5.0.4"...)} {
		if _, err := e.Query(ctx, &Session{}, "DESCRIBE KEYSPACES", &Options{PageSize: 1, PagingState: ps}); err == nil {
			t.Fatalf("paging state %v accepted", ps)
		}
	}
}

func TestDescribeHelpers(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "Test": `"Test"`, "token": `"token"`, "desc": `"desc"`, "a b": `"a b"`,
		`q"q`: `"q""q"`, "key": "key", "_x": `"_x"`, "x1_": "x1_"} {
		if got := maybeQuote(in); got != want {
			t.Errorf("maybeQuote(%q) = %s, want %s", in, got, want)
		}
	}
	// java.util.HashMap order of a copied 4-entry map (capacity 8): the
	// spread String.hashCode of "dc1", "dc2", "dc3" falls in buckets 3, 2, 5.
	repl := map[string]string{"class": schema.NetworkTopologyClass, "dc1": "1", "dc2": "2", "dc3": "3"}
	if got, want := replicationCQL(repl), "{'class': 'NetworkTopologyStrategy', 'dc2': '2', 'dc1': '1', 'dc3': '3'}"; got != want {
		t.Errorf("replication %s, want %s", got, want)
	}
	if got, want := replicationCQL(map[string]string{"class": "com.example.Custom", "a": "b"}), "{'class': 'com.example.Custom', 'a': 'b'}"; got != want {
		t.Errorf("replication %s, want %s", got, want)
	}
}

// DESCRIBE FULL SCHEMA adds the system keyspaces (virtual ones as
// comments) to DESCRIBE SCHEMA.
func TestDescribeFullSchema(t *testing.T) {
	m, err := schema.NewManager(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateKeyspace(describeKs(), false); err != nil {
		t.Fatal(err)
	}
	e := New(Config{Schema: m})
	ctx := context.Background()
	res, err := e.Query(ctx, &Session{}, "DESCRIBE SCHEMA", nil)
	if err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "ks" {
		t.Fatalf("DESCRIBE SCHEMA: %+v %v", res, err)
	}
	res, err = e.Query(ctx, &Session{}, "DESCRIBE FULL SCHEMA", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	var local, views string
	for _, r := range res.Rows {
		kinds[string(r[0])+"/"+string(r[1])]++
		switch string(r[0]) + "." + string(r[2]) {
		case "system.local":
			local = string(r[3])
		case "system_views.system_views":
			views = string(r[3])
		}
	}
	if kinds["ks/keyspace"] != 1 || kinds["system/table"] == 0 || kinds["system_schema/table"] == 0 || kinds["system_views/keyspace"] != 1 {
		t.Fatalf("elements: %v", kinds)
	}
	if !strings.HasPrefix(local, "CREATE TABLE system.local (\n    key text PRIMARY KEY,\n") {
		t.Errorf("system.local: %s", local)
	}
	if !strings.HasPrefix(views, "/*\nWarning: Keyspace system_views is a virtual keyspace") {
		t.Errorf("system_views: %s", views)
	}
}
