package snapshot

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

func testTable(name string, id uuid.UUID) (*schema.Keyspace, *schema.Table) {
	t := schema.NewTable("ks", name, id, []*schema.Column{
		{Name: "k", Type: types.IntType, Kind: schema.PartitionKey, Position: 0, ID: 1},
		{Name: "v", Type: types.IntType, Kind: schema.Regular, Position: -1, ID: 2},
	}, schema.DefaultTableParams())
	ks := &schema.Keyspace{Name: "ks", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"},
		DurableWrites: true, Tables: map[string]*schema.Table{name: t}}
	return ks, t
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func write(t *testing.T, e storage.Engine, tbl *schema.Table, k, v int32, ts int64) {
	t.Helper()
	u := &mutation.PartitionUpdate{TableID: tbl.ID, Key: i32(k), Token: int64(k), Deletion: mutation.Live,
		Rows: []mutation.Row{{Marker: mutation.Liveness{Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}, Deletion: mutation.Live,
			Cells: []mutation.Cell{{Column: 2, Value: i32(v), Timestamp: ts, LocalDeletionTime: mutation.NoDeletion}}}}}
	if err := e.Apply(context.Background(), tbl, u); err != nil {
		t.Fatal(err)
	}
}

// values reads the table's k -> v.
func values(t *testing.T, e storage.Engine, tbl *schema.Table) map[int32]int32 {
	t.Helper()
	ps, err := e.Read(context.Background(), tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: -1 << 63, EndToken: -1 << 63, NowSec: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int32{}
	for _, p := range ps {
		for _, r := range p.Rows {
			out[int32(binary.BigEndian.Uint32(p.Key))] = int32(binary.BigEndian.Uint32(r.Cells[0].Value))
		}
	}
	return out
}

type fixture struct {
	dir    string
	engine *storage.Pebble
	m      *Manager
	now    time.Time
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{dir: t.TempDir(), now: time.Date(2026, 11, 25, 10, 0, 0, 123e6, time.UTC)}
	var err error
	f.engine, err = storage.Open(f.dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.engine.Close() })
	f.m = New(Options{DataDir: f.dir, Engine: f.engine, Now: func() time.Time { return f.now },
		SchemaCQL: func(ks *schema.Keyspace, t *schema.Table) []string {
			return []string{"CREATE TABLE IF NOT EXISTS " + ks.Name + "." + t.Name + " (...);"}
		}})
	return f
}

func TestTakeListClear(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ks, a := testTable("a", uuid.MustParse("11111111-2222-4333-8444-555555555555"))
	_, b := testTable("b", uuid.MustParse("21111111-2222-4333-8444-555555555555"))
	ks.Tables["b"] = b
	write(t, f.engine, a, 1, 10, 1)
	write(t, f.engine, b, 1, 20, 1)

	if err := f.m.Take(ctx, Request{Tag: "one", Tables: []Table{{ks, a}, {ks, b}}}); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Hour)
	if err := f.m.Take(ctx, Request{Tag: "two", Tables: []Table{{ks, a}}, TTL: 2 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	var ee *ExistsError
	if err := f.m.Take(ctx, Request{Tag: "two", Tables: []Table{{ks, b}, {ks, a}}}); !errors.As(err, &ee) || err.Error() != "Snapshot two already exists." {
		t.Fatalf("a taken tag: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.m.tableDir(b), "two")); err == nil {
		t.Fatal("a refused snapshot was taken of another table")
	}

	infos := f.m.List()
	var got []string
	for _, in := range infos {
		exp := "-"
		if !in.ExpiresAt.IsZero() {
			exp = Instant(in.ExpiresAt)
		}
		got = append(got, in.Tag+" "+in.Keyspace+"."+in.Table+" "+Instant(in.CreatedAt)+" "+exp)
		if in.SizeOnDisk <= in.TrueSize || in.TrueSize <= 0 {
			t.Errorf("%s %s: size on disk %d, true size %d: the sstables are live", in.Tag, in.Table, in.SizeOnDisk, in.TrueSize)
		}
	}
	want := []string{
		"one ks.a 2026-11-25T10:00:00.123Z -",
		"one ks.b 2026-11-25T10:00:00.123Z -",
		"two ks.a 2026-11-25T11:00:00.123Z 2026-11-25T13:00:00.123Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("List:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var mf map[string]any
	raw, err := os.ReadFile(filepath.Join(infos[2].Dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &mf); err != nil {
		t.Fatal(err)
	}
	if mf["created_at"] != "2026-11-25T11:00:00.123Z" || mf["expires_at"] != "2026-11-25T13:00:00.123Z" || mf["ephemeral"] != false || len(mf["files"].([]any)) == 0 {
		t.Fatalf("manifest.json: %s", raw)
	}
	if cql, err := os.ReadFile(filepath.Join(infos[0].Dir, schemaName)); err != nil || string(cql) != "CREATE TABLE IF NOT EXISTS ks.a (...);\n" {
		t.Fatalf("schema.cql: %q, %v", cql, err)
	}
	if n := f.m.TrueSnapshotsSize(a); n != 0 {
		t.Fatalf("TrueSnapshotsSize with live sstables: %d", n)
	}

	// Expiry, then clearing by tag and by age.
	f.now = f.now.Add(2 * time.Hour)
	if n, err := f.m.ClearExpired(); err != nil || n != 1 {
		t.Fatalf("ClearExpired: %d, %v", n, err)
	}
	if n, err := f.m.Clear("one", []string{"other"}, time.Time{}); err != nil || n != 0 {
		t.Fatalf("Clear of another keyspace: %d, %v", n, err)
	}
	if n, err := f.m.Clear("", nil, f.now.Add(-4*time.Hour)); err != nil || n != 0 {
		t.Fatalf("Clear older than the snapshots: %d, %v", n, err)
	}
	if n, err := f.m.Clear("", []string{"ks"}, f.now); err != nil || n != 2 {
		t.Fatalf("Clear: %d, %v", n, err)
	}
	if infos := f.m.List(); len(infos) != 0 {
		t.Fatalf("left: %+v", infos)
	}
	if _, err := os.Stat(filepath.Join(f.dir, dirName, "ks")); !os.IsNotExist(err) {
		t.Fatalf("the keyspace directory stayed: %v", err)
	}
}

// TestRestoreAfterDrop is the reason for auto_snapshot: a table dropped
// after a snapshot comes back from it, recreated under a new id.
func TestRestoreAfterDrop(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ks, a := testTable("a", uuid.MustParse("11111111-2222-4333-8444-555555555555"))
	for k := int32(0); k < 100; k++ {
		write(t, f.engine, a, k, k*10, 1)
	}
	if err := f.m.Take(ctx, Request{Tag: "dropped-1-a", Tables: []Table{{ks, a}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.engine.DropTable(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	// Once Pebble has deleted the sstables the drop compacted away (in
	// the background), none of the snapshot's files is live.
	var infos []Info
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		infos = f.m.List()
		if len(infos) == 1 && infos[0].TrueSize == infos[0].SizeOnDisk || time.Now().After(deadline) {
			break
		}
	}
	if len(infos) != 1 || infos[0].TrueSize != infos[0].SizeOnDisk {
		t.Fatalf("after the drop: %+v", infos)
	}
	if n := f.m.TrueSnapshotsSize(a); n == 0 {
		t.Fatal("TrueSnapshotsSize: the dropped table's sstables are no longer live")
	}
	_, again := testTable("a", uuid.MustParse("31111111-2222-4333-8444-555555555555"))
	write(t, f.engine, again, 5, -1, 2) // newer than the snapshot's
	if _, err := f.m.Import(ctx, infos[0].Dir, again); err != nil {
		t.Fatal(err)
	}
	got := values(t, f.engine, again)
	if len(got) != 100 || got[5] != -1 || got[99] != 990 {
		t.Fatalf("restored %d rows: 5=%d 99=%d", len(got), got[5], got[99])
	}

	for _, dir := range []string{f.dir, filepath.Join(f.dir, "nowhere")} {
		if _, err := f.m.Import(ctx, dir, again); err == nil || !strings.Contains(err.Error(), "is not a snapshot directory") {
			t.Fatalf("importing %s: %v", dir, err)
		}
	}
}

// TestUnfinishedSnapshot: what a crash leaves of a snapshot being taken is
// not listed, and goes at the next start; the engine reopens beside the
// snapshots.
func TestUnfinishedSnapshot(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ks, a := testTable("a", uuid.MustParse("11111111-2222-4333-8444-555555555555"))
	write(t, f.engine, a, 1, 1, 1)
	if err := f.m.Take(ctx, Request{Tag: "t", Tables: []Table{{ks, a}}}); err != nil {
		t.Fatal(err)
	}
	// A complete-looking snapshot under a temporary name.
	tmp := filepath.Join(f.m.tableDir(a), tmpPrefix+"123")
	if err := os.CopyFS(tmp, os.DirFS(filepath.Join(f.m.tableDir(a), "t"))); err != nil {
		t.Fatal(err)
	}
	if infos := f.m.List(); len(infos) != 1 {
		t.Fatalf("listed: %+v", infos)
	}
	if err := f.engine.Close(); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.engine, err = storage.Open(f.dir, storage.Options{}); err != nil {
		t.Fatal(err)
	}
	New(Options{DataDir: f.dir, Engine: f.engine})
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the unfinished snapshot stayed: %v", err)
	}
	if got := values(t, f.engine, a); got[1] != 1 {
		t.Fatalf("after reopening: %v", got)
	}
}

func TestCheckTag(t *testing.T) {
	for tag, want := range map[string]string{
		"":       "You must supply a snapshot name.",
		"a/b":    "Snapshot name cannot contain /",
		"..":     `Invalid snapshot name ".."`,
		".tmp-x": `Invalid snapshot name ".tmp-x"`,
		"ok-1":   "",
	} {
		err := CheckTag(tag)
		if (err == nil) != (want == "") || err != nil && err.Error() != want {
			t.Errorf("CheckTag(%q) = %v, want %q", tag, err, want)
		}
	}
}

// TestRemoveKeepsImports: a snapshot being imported is not removed by
// clearsnapshot or expiry; a snapshot whose manifest is unreadable is still
// listed and can be cleared.
func TestRemoveKeepsImports(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	ks, a := testTable("a", uuid.MustParse("11111111-2222-4333-8444-555555555555"))
	for _, tag := range []string{"busy", "broken"} {
		if err := f.m.Take(ctx, Request{Tag: tag, Tables: []Table{{ks, a}}}); err != nil {
			t.Fatal(err)
		}
	}
	busy := filepath.Join(f.m.tableDir(a), "busy")
	f.m.importing[busy] = 1
	broken := filepath.Join(f.m.tableDir(a), "broken")
	if err := os.WriteFile(filepath.Join(broken, manifestName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if infos := f.m.List(); len(infos) != 2 || infos[0].Tag != "broken" || infos[0].CreatedAt.IsZero() {
		t.Fatalf("listed: %+v", infos)
	}
	if n, err := f.m.Clear("", nil, time.Time{}); err != nil || n != 1 {
		t.Fatalf("Clear: %d, %v", n, err)
	}
	if infos := f.m.List(); len(infos) != 1 || infos[0].Tag != "busy" {
		t.Fatalf("left: %+v", infos)
	}
	delete(f.m.importing, busy)
	if n, err := f.m.Clear("busy", nil, time.Time{}); err != nil || n != 1 {
		t.Fatalf("Clear after the import: %d, %v", n, err)
	}
}
