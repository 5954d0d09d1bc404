package storage

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cqld/cqld/internal/mutation"
)

// Each case applies a history of updates and checks one read, on both
// engines.
func TestSemantics(t *testing.T) {
	tbl := testTable()
	set := func(ts int64, elem string) mutation.Cell {
		c := live(colST, ts, 0)
		c.Path, c.Value = []byte(elem), []byte{}
		return c
	}
	entry := func(ts int64, k, v int32) mutation.Cell {
		c := live(colM, ts, v)
		c.Path = i32(k)
		return c
	}
	withRows := func(rows ...mutation.Row) *mutation.PartitionUpdate {
		u := update(tbl, 1)
		u.Rows = rows
		return u
	}
	for _, tc := range []struct {
		name    string
		updates []*mutation.PartitionUpdate
		cmd     func(*mutation.ReadCommand)
		want    string
	}{
		{
			name: "last write wins by timestamp, not arrival",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), mutation.NoLiveness, live(colV, 20, 2))),
				withRows(row(ck(1, "a"), mutation.NoLiveness, live(colV, 10, 1))),
			},
			want: "pk=1 token=-2000\n  [1 \"a\"] v=2@20\n",
		},
		{
			name: "timestamp tie: tombstone wins, then the larger value",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), mutation.NoLiveness, live(colV, 10, 1))),
				withRows(row(ck(1, "a"), mutation.NoLiveness, live(colV, 10, 5))),
				withRows(row(ck(1, "a"), mutation.NoLiveness, live(colV, 10, 3))),
				withRows(row(ck(2, "a"), mutation.NoLiveness, live(colV, 10, 1))),
				withRows(row(ck(2, "a"), mutation.NoLiveness, tomb(colV, 10, 50))),
			},
			want: "pk=1 token=-2000\n  [1 \"a\"] v=5@10\n",
		},
		{
			name: "row marker keeps an INSERTed row alive; UPDATEd row disappears with its last cell",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), marker(10), live(colV, 10, 1))),
				withRows(row(ck(2, "a"), mutation.NoLiveness, live(colV, 10, 1))),
				withRows(row(ck(1, "a"), mutation.NoLiveness, tomb(colV, 20, 50)),
					row(ck(2, "a"), mutation.NoLiveness, tomb(colV, 20, 50))),
			},
			want: "pk=1 token=-2000\n  [1 \"a\"] marker@10\n",
		},
		{
			name: "row deletion shadows cells and marker at or before its timestamp",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), marker(10), live(colV, 10, 1), entry(30, 1, 1))),
				withRows(mutation.Row{Clustering: ck(1, "a"), Marker: mutation.NoLiveness, Deletion: del(10)}),
			},
			want: "pk=1 token=-2000\n  [1 \"a\"] m[1]=1@30\n",
		},
		{
			name: "partition deletion shadows older rows and statics, newer writes survive",
			updates: []*mutation.PartitionUpdate{
				func() *mutation.PartitionUpdate {
					u := withRows(row(ck(1, "a"), marker(10)), row(ck(2, "b"), marker(30)))
					s := row(nil, mutation.NoLiveness, live(colS, 10, 7))
					u.Static = &s
					return u
				}(),
				func() *mutation.PartitionUpdate { u := update(tbl, 1); u.Deletion = del(20); return u }(),
			},
			want: "pk=1 token=-2000\n  [2 \"b\"] marker@30\n",
		},
		{
			name: "range tombstone over a clustering prefix, DESC component",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), marker(10)), row(ck(1, "b"), marker(10)), row(ck(1, "c"), marker(10)),
					row(ck(2, "a"), marker(10)), row(ck(0, "z"), marker(10))),
				func() *mutation.PartitionUpdate {
					// DELETE WHERE pk=1 AND ck1=1 AND ck2 < 'c' (DESC: from 'c' exclusive to the end of ck1=1)
					u := update(tbl, 1)
					u.RangeTombstones = []mutation.RangeTombstone{{
						Slice: mutation.Slice{
							Start: mutation.Bound{Values: ck(1, "c"), Inclusive: false},
							End:   mutation.Bound{Values: [][]byte{i32(1)}, Inclusive: true},
						},
						Deletion: del(10),
					}}
					return u
				}(),
			},
			want: "pk=1 token=-2000\n  [0 \"z\"] marker@10\n  [1 \"c\"] marker@10\n  [2 \"a\"] marker@10\n",
		},
		{
			name: "range tombstone does not shadow newer rows",
			updates: []*mutation.PartitionUpdate{
				func() *mutation.PartitionUpdate {
					u := update(tbl, 1)
					u.RangeTombstones = []mutation.RangeTombstone{{Slice: mutation.FullSlice, Deletion: del(10)}}
					return u
				}(),
				withRows(row(ck(1, "a"), marker(10)), row(ck(1, "b"), marker(11))),
			},
			want: "pk=1 token=-2000\n  [1 \"b\"] marker@11\n",
		},
		{
			name: "TTL: expired cells and markers read as absent",
			updates: []*mutation.PartitionUpdate{
				withRows(
					row(ck(1, "a"), mutation.Liveness{Timestamp: 10, TTL: 5, LocalDeletionTime: 999}, expiring(colV, 10, 1, 5, 999)),
					row(ck(2, "a"), mutation.Liveness{Timestamp: 10, TTL: 5, LocalDeletionTime: 1000}, expiring(colV, 10, 1, 5, 1000)),
					row(ck(3, "a"), mutation.Liveness{Timestamp: 10, TTL: 5, LocalDeletionTime: 1001}, expiring(colV, 10, 1, 5, 1001)),
				),
			},
			want: "pk=1 token=-2000\n  [3 \"a\"] marker@10/ttl5 v=1@10/ttl5\n",
		},
		{
			name: "static row once per partition, returned with no rows",
			updates: []*mutation.PartitionUpdate{
				func() *mutation.PartitionUpdate {
					u := update(tbl, 1)
					s := row(nil, mutation.NoLiveness, live(colS, 10, 7))
					u.Static = &s
					return u
				}(),
				func() *mutation.PartitionUpdate {
					u := update(tbl, 1)
					s := row(nil, mutation.NoLiveness, live(colS, 11, 8))
					u.Static = &s
					return u
				}(),
			},
			want: "pk=1 token=-2000\n  static s=8@11\n",
		},
		{
			name: "collection elements one cell each, sorted; collection deletion shadows older elements",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), mutation.NoLiveness,
					entry(10, 300, 1), entry(10, -5, 2), entry(10, 7, 3), set(10, "b"), set(10, "a"))),
				// st = {'c'}: collection deletion at 19, element at 20.
				withRows(row(ck(1, "a"), mutation.NoLiveness, tomb(colST, 19, 50), set(20, "c"))),
				// m[7] removed.
				withRows(row(ck(1, "a"), mutation.NoLiveness, func() mutation.Cell { c := tomb(colM, 11, 50); c.Path = i32(7); return c }())),
			},
			want: "pk=1 token=-2000\n  [1 \"a\"] m[-5]=2@10 m[300]=1@10 st[\"c\"]@20\n",
		},
		{
			name: "slices, reversed, per-partition limit",
			updates: []*mutation.PartitionUpdate{
				withRows(row(ck(1, "a"), marker(1)), row(ck(1, "b"), marker(1)), row(ck(2, "a"), marker(1)),
					row(ck(3, "a"), marker(1)), row(ck(4, "a"), marker(1))),
			},
			cmd: func(c *mutation.ReadCommand) {
				c.Slices = []mutation.Slice{
					{Start: mutation.Bound{Values: [][]byte{i32(1)}, Inclusive: true}, End: mutation.Bound{Values: [][]byte{i32(2)}, Inclusive: true}},
					{Start: mutation.Bound{Values: [][]byte{i32(4)}, Inclusive: true}, End: mutation.Bound{Inclusive: true}},
				}
				c.Reversed = true
				c.PerPartitionLimit = 3
			},
			want: "pk=1 token=-2000\n  [4 \"a\"] marker@1\n  [2 \"a\"] marker@1\n  [1 \"a\"] marker@1\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, e := range engines(t) {
				mustApply(t, e, tbl, tc.updates...)
				cmd := pointRead(tbl, 1)
				if tc.cmd != nil {
					tc.cmd(cmd)
				}
				if got := fmtPartitions(tbl, mustRead(t, e, tbl, cmd)); got != tc.want {
					t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, got, tc.want)
				}
			}
		})
	}
}

func TestRangeReadAndPaging(t *testing.T) {
	tbl := testTable()
	for name, e := range engines(t) {
		for pk := int32(0); pk < 20; pk++ {
			u := update(tbl, pk)
			u.Rows = []mutation.Row{row(ck(1, "a"), marker(1)), row(ck(2, "a"), marker(1))}
			mustApply(t, e, tbl, u)
		}
		full := &mutation.ReadCommand{TableID: tbl.ID, StartToken: -1 << 63, EndToken: -1 << 63, NowSec: 1000}
		all := mustRead(t, e, tbl, full)
		if len(all) != 20 {
			t.Fatalf("%s: %d partitions", name, len(all))
		}
		// Page through with a row limit, resuming after the last partition.
		var paged []mutation.Partition
		cmd := *full
		for {
			cmd.RowLimit = 3
			ps := mustRead(t, e, tbl, &cmd)
			if len(ps) == 0 {
				break
			}
			for _, p := range ps {
				if len(paged) > 0 && string(paged[len(paged)-1].Key) == string(p.Key) {
					continue
				}
				paged = append(paged, p)
			}
			last := ps[len(ps)-1]
			cmd.StartKey, cmd.StartToken, cmd.StartInclusive = last.Key, last.Token, false
		}
		if len(paged) != 20 {
			t.Fatalf("%s: paging returned %d partitions", name, len(paged))
		}
		for i := range all {
			if string(all[i].Key) != string(paged[i].Key) {
				t.Fatalf("%s: page order differs at %d", name, i)
			}
		}
		// (-2000, 0]: tokens -1000 and 0.
		ps := mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: -2000, EndToken: 0, NowSec: 1000})
		for _, p := range ps {
			if p.Token <= -2000 || p.Token > 0 {
				t.Fatalf("%s: token %d outside (-2000, 0]", name, p.Token)
			}
		}
		if len(ps) != 6 {
			t.Fatalf("%s: %d partitions in (-2000, 0]", name, len(ps))
		}
		// Wrapping range (2000, -2000].
		ps = mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: 2000, EndToken: -2000, NowSec: 1000, PartitionLimit: 100})
		if len(ps) == 0 || ps[0].Token != 3000 || ps[len(ps)-1].Token != -2000 {
			t.Fatalf("%s: wrapping range returned %s", name, fmtPartitions(tbl, ps))
		}
	}
}

func TestRestart(t *testing.T) {
	tbl := testTable()
	dir := t.TempDir()
	p, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := update(tbl, 1)
	u.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, 42))}
	mustApply(t, p, tbl, u)
	if err := p.PutMeta("tokens", []byte("x")); err != nil {
		t.Fatal(err)
	}
	p = reopen(t, p, dir)
	defer p.Close()
	got := fmtPartitions(tbl, mustRead(t, p, tbl, pointRead(tbl, 1)))
	if want := "pk=1 token=-2000\n  [1 \"a\"] marker@1 v=42@1\n"; got != want {
		t.Fatalf("after restart got %q, want %q", got, want)
	}
	if v, err := p.GetMeta("tokens"); err != nil || string(v) != "x" {
		t.Fatalf("GetMeta = %q, %v", v, err)
	}
	if v, err := p.GetMeta("absent"); err != nil || v != nil {
		t.Fatalf("GetMeta(absent) = %q, %v", v, err)
	}
}

// TestGroupWindow checks when SyncGroup holds an fsync back (only while
// enough Applies are committing to share the next one) and that writes
// sharing windows are all durable.
func TestGroupWindow(t *testing.T) {
	g := &groupWindow{window: time.Millisecond}
	for n := int64(0); n <= groupSiblings+1; n++ {
		g.committing.Store(n)
		want := time.Duration(0)
		if n >= groupSiblings {
			want = time.Millisecond
		}
		if got := g.next(); got != want {
			t.Fatalf("%d committing: window %v, want %v", n, got, want)
		}
	}

	tbl := testTable()
	for _, o := range []Options{{SyncMode: SyncBatch, GroupWindow: time.Second}, {SyncMode: SyncGroup}} {
		p, err := Open(t.TempDir(), o)
		if err != nil {
			t.Fatal(err)
		}
		if p.group != nil {
			t.Fatalf("%v with window %v: fsyncs held back", o.SyncMode, o.GroupWindow)
		}
		_ = p.Close()
	}
	const window = 5 * time.Millisecond
	// On a file system that can lose what was not synced (a crash).
	const dir = "/db"
	fs := vfs.NewCrashableMem()
	p, err := Open(dir, Options{SyncMode: SyncGroup, GroupWindow: window, fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := int32(0); w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int32(0); i < 4; i++ {
				u := update(tbl, w*10+i)
				u.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, i))}
				if err := p.Apply(context.Background(), tbl, u); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if n := p.group.committing.Load(); n != 0 {
		t.Fatalf("%d Applies still counted as committing", n)
	}
	// The window reaches Pebble: with enough (pretended) siblings, syncs
	// are spaced by it, so three Applies in a row take at least two
	// windows. (A lower bound: a slow machine cannot break it.)
	p.group.committing.Add(groupSiblings)
	start := time.Now()
	for i := int32(0); i < 3; i++ {
		u := update(tbl, 100+i)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, i))}
		mustApply(t, p, tbl, u)
	}
	if took := time.Since(start); took < 2*window {
		t.Fatalf("three Applies with the window in force took %v, want at least %v", took, 2*window)
	}
	p.group.committing.Add(-groupSiblings)
	// Acknowledged means synced: a crash now keeps only what was synced
	// (nothing was flushed: every row is in the log alone).
	synced := fs.CrashClone(vfs.CrashCloneCfg{})
	_ = p.Close()
	p, err = Open(dir, Options{SyncMode: SyncGroup, GroupWindow: window, fs: synced})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for pk := int32(0); pk < 103; pk++ {
		want := 0
		if pk%10 < 4 && pk < 80 || pk >= 100 {
			want = 1
		}
		if ps := mustRead(t, p, tbl, pointRead(tbl, pk)); len(ps) != want {
			t.Fatalf("pk %d: %d partitions after restart, want %d", pk, len(ps), want)
		}
	}
}

func TestDropTable(t *testing.T) {
	tbl := testTable()
	for name, e := range engines(t) {
		u := update(tbl, 1)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(1))}
		mustApply(t, e, tbl, u)
		if err := e.PutMeta("k", []byte("v")); err != nil {
			t.Fatal(err)
		}
		if err := e.DropTable(context.Background(), tbl.ID); err != nil {
			t.Fatal(err)
		}
		if ps := mustRead(t, e, tbl, pointRead(tbl, 1)); len(ps) != 0 {
			t.Fatalf("%s: data survived DropTable", name)
		}
		if v, _ := e.GetMeta("k"); string(v) != "v" {
			t.Fatalf("%s: DropTable removed metadata", name)
		}
	}
}

func TestStaticOnlyAndLimits(t *testing.T) {
	tbl := testTable()
	for name, e := range engines(t) {
		for pk := int32(0); pk < 5; pk++ {
			u := update(tbl, pk)
			if pk%2 == 0 {
				s := row(nil, mutation.NoLiveness, live(colS, 1, pk))
				u.Static = &s
			} else {
				u.Rows = []mutation.Row{row(ck(1, "a"), marker(1)), row(ck(2, "a"), marker(1))}
			}
			mustApply(t, e, tbl, u)
		}
		ps := mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: -1 << 63, EndToken: -1 << 63, StaticOnly: true, NowSec: 1})
		if len(ps) != 5 {
			t.Fatalf("%s: DISTINCT returned %d partitions", name, len(ps))
		}
		for _, p := range ps {
			if len(p.Rows) != 0 {
				t.Fatalf("%s: StaticOnly returned rows", name)
			}
		}
		ps = mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: -1 << 63, EndToken: -1 << 63, RowLimit: 4, NowSec: 1})
		n := 0
		for _, p := range ps {
			n += max(1, len(p.Rows))
		}
		if n != 4 {
			t.Fatalf("%s: RowLimit 4 returned %d rows:\n%s", name, n, fmtPartitions(tbl, ps))
		}
		if s := fmtPartitions(tbl, ps); !strings.Contains(s, "static") {
			t.Fatalf("%s: no static row in %s", name, s)
		}
	}
}

// TestWALDir checks that the write-ahead log lives in Options.WALDir and
// that writes only it holds survive moving it: after a crash (closed
// without a flush), Open with another WALDir (or none) replays the log left
// in the previous one.
func TestWALDir(t *testing.T) {
	tbl := testTable()
	dir, logs := t.TempDir(), t.TempDir()
	// Pebble records the directory and compares it at the next open, so a
	// relative one is refused rather than recorded.
	if p, err := Open(dir, Options{WALDir: "wal"}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		if p != nil {
			p.Close()
		}
		t.Fatalf("Open with a relative WALDir: %v", err)
	}
	logFiles := func(d string) []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(d, "*.log"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	write := func(p *Pebble, pk int32) {
		u := update(tbl, pk)
		u.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, pk))}
		mustApply(t, p, tbl, u)
	}
	check := func(p *Pebble, pks ...int32) {
		t.Helper()
		for _, pk := range pks {
			if ps := mustRead(t, p, tbl, pointRead(tbl, pk)); len(ps) != 1 {
				t.Fatalf("pk %d: %d partitions, want 1", pk, len(ps))
			}
		}
	}

	p, err := Open(dir, Options{WALDir: logs})
	if err != nil {
		t.Fatal(err)
	}
	write(p, 1)
	if len(logFiles(logs)) == 0 || len(logFiles(dir)) != 0 {
		t.Fatalf("logs in WALDir %v, in the data directory %v", logFiles(logs), logFiles(dir))
	}
	crash(t, p)

	// Back to the default (the data directory): the rows in logs replay.
	if p, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	check(p, 1)
	write(p, 2)
	crash(t, p)

	// And to a third directory.
	if p, err = Open(dir, Options{WALDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2)
	write(p, 3)
	crash(t, p)

	// The log directory named as the data directory, which was given
	// relative before and now absolute (with a trailing slash) and back:
	// one directory, each log replayed once.
	t.Chdir(filepath.Dir(dir))
	rel := filepath.Join(".", filepath.Base(dir))
	if p, err = Open(rel, Options{}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2, 3)
	write(p, 4)
	crash(t, p)
	if p, err = Open(rel, Options{WALDir: dir + "/"}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2, 3, 4)
	write(p, 5)
	crash(t, p)
	if p, err = Open(rel, Options{}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2, 3, 4, 5)
	write(p, 6)
	crash(t, p)

	// The data directory through a symbolic link to it, and back: the
	// same directory by another name, each log replayed once (not found
	// in it and again in the "previous" directory: "duplicate logIndex").
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if p, err = Open(dir, Options{WALDir: link}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2, 3, 4, 5, 6)
	write(p, 7)
	crash(t, p)
	if p, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	check(p, 1, 2, 3, 4, 5, 6, 7)
	write(p, 8)
	crash(t, p)

	// A separate log directory through a symbolic link, then by its own
	// name, then with the link removed: the name recorded is the one
	// configured, so the link can go once the configuration has.
	logs2 := t.TempDir()
	link2 := filepath.Join(t.TempDir(), "link2")
	if err := os.Symlink(logs2, link2); err != nil {
		t.Fatal(err)
	}
	if p, err = Open(dir, Options{WALDir: link2}); err != nil {
		t.Fatal(err)
	}
	write(p, 9)
	crash(t, p)
	if p, err = Open(dir, Options{WALDir: logs2}); err != nil {
		t.Fatal(err)
	}
	check(p, 9)
	write(p, 10)
	crash(t, p)
	if err := os.Remove(link2); err != nil {
		t.Fatal(err)
	}
	if p, err = Open(dir, Options{WALDir: logs2}); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	check(p, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	if logs := logFiles(logs2); len(logs) == 0 {
		t.Fatalf("no logs in %s", logs2)
	}
}

// TestRowPresize checks emitRow's sizing of a single-partition read's rows:
// room for what a small limit still allows at once (a LIMIT 50 slice grows
// once), and ordinary doubling for a driver's page (5000) or no limit,
// which must not reserve room for 64 rows in every small partition.
func TestRowPresize(t *testing.T) {
	tbl := testTable()
	p := openTest(t, Options{SyncMode: SyncPeriodic, PartitionCacheSize: -1})
	u := update(tbl, 1)
	for r := range int32(3) {
		u.Rows = append(u.Rows, row(ck(r, "a"), marker(1), live(colV, 1, r)))
	}
	mustApply(t, p, tbl, u)
	for _, c := range []struct {
		limit    int
		min, max int
	}{{0, 3, 8}, {5000, 3, 8}, {50, 50, 100}} {
		cmd := pointRead(tbl, 1)
		cmd.RowLimit = c.limit
		ps := mustRead(t, p, tbl, cmd)
		if len(ps) != 1 || len(ps[0].Rows) != 3 {
			t.Fatalf("limit %d: %d partitions", c.limit, len(ps))
		}
		if n := cap(ps[0].Rows); n < c.min || n > c.max {
			t.Errorf("limit %d: room for %d rows, want %d to %d", c.limit, n, c.min, c.max)
		}
	}
}

// TestEmptyPartitionKey checks that an empty partition key is a key like
// any other (a legacy index keeps the rows of empty values under one),
// next to the partitions it sorts between, in both engines; only a
// missing key is refused.
func TestEmptyPartitionKey(t *testing.T) {
	tbl := testTable()
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			// The empty key's token is the minimum (ring.Token).
			empty := &mutation.PartitionUpdate{TableID: tbl.ID, Key: []byte{}, Token: math.MinInt64, Deletion: mutation.Live}
			empty.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, 42))}
			other := update(tbl, 1)
			other.Rows = []mutation.Row{row(ck(1, "a"), marker(1), live(colV, 1, 1))}
			mustApply(t, e, tbl, empty, other)
			ps := mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, Key: []byte{}, Token: math.MinInt64, NowSec: 1000})
			if len(ps) != 1 || len(ps[0].Rows) != 1 || ps[0].Key == nil || len(ps[0].Key) != 0 {
				t.Fatalf("empty key: %+v", ps)
			}
			// A scan of the whole ring starts with it.
			ps = mustRead(t, e, tbl, &mutation.ReadCommand{TableID: tbl.ID, StartToken: math.MinInt64, EndToken: math.MinInt64, NowSec: 1000})
			if len(ps) != 2 || ps[0].Key == nil || len(ps[0].Key) != 0 {
				t.Fatalf("whole ring: %d partitions, want the empty key first and pk 1", len(ps))
			}
			if ps := mustRead(t, e, tbl, pointRead(tbl, 1)); len(ps) != 1 {
				t.Fatalf("pk 1 beside it: %d partitions", len(ps))
			}
			none := &mutation.PartitionUpdate{TableID: tbl.ID, Token: 7, Deletion: mutation.Live}
			if err := e.Apply(context.Background(), tbl, none); err == nil {
				t.Fatal("a missing key was applied")
			}
		})
	}
}
