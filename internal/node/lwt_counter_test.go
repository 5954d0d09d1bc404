package node

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// Concurrency properties of the read-modify-write statements: lightweight
// transactions are linearizable per partition, counter increments are
// never lost.

func setupKS(t *testing.T, ex *query.Executor, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	all := append([]string{"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"}, stmts...)
	for _, s := range all {
		if _, err := ex.Query(ctx, &query.Session{}, s, &query.Options{Consistency: 1}); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func applied(t *testing.T, res *query.Result) bool {
	t.Helper()
	if res.Kind != query.RowsResult || len(res.Rows) == 0 || res.Columns[0].Name != "[applied]" {
		t.Fatalf("not a conditional result: %+v", res)
	}
	return res.Rows[0][0][0] == 1
}

func TestLWTInsertIfNotExistsRace(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	setupKS(t, ex, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)")
	ctx := context.Background()
	const racers = 64
	var wins atomic.Int32
	var winner atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int32) {
			defer wg.Done()
			res, err := ex.Query(ctx, &query.Session{}, "INSERT INTO ks.t (k, v) VALUES (1, ?) IF NOT EXISTS",
				&query.Options{Consistency: 1, SerialConsistency: uint16(query.Serial), Values: []query.Value{{B: types.EncodeInt(i)}}})
			if err != nil {
				t.Error(err)
				return
			}
			if applied(t, res) {
				wins.Add(1)
				winner.Store(i)
			} else if len(res.Columns) != 3 || len(res.Rows[0]) != 3 {
				t.Errorf("not applied result should carry the current row: %+v", res)
			}
		}(int32(i))
	}
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Fatalf("%d racers applied, want exactly 1", got)
	}
	res, err := ex.Query(ctx, &query.Session{}, "SELECT v FROM ks.t WHERE k = 1", &query.Options{Consistency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := types.DecodeInt(res.Rows[0][0]); v != winner.Load() {
		t.Fatalf("stored value %d, winner wrote %d", v, winner.Load())
	}
}

// TestLWTCompareAndSetRace: racing read + "SET v = old+1 IF v = old" loops
// never lose an applied update.
func TestLWTCompareAndSetRace(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	setupKS(t, ex, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)", "INSERT INTO ks.t (k, v) VALUES (1, 0)")
	ctx := context.Background()
	var appliedCount atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				res, err := ex.Query(ctx, &query.Session{}, "SELECT v FROM ks.t WHERE k = 1", &query.Options{Consistency: 1})
				if err != nil {
					t.Error(err)
					return
				}
				old, _ := types.DecodeInt(res.Rows[0][0])
				res, err = ex.Query(ctx, &query.Session{}, "UPDATE ks.t SET v = ? WHERE k = 1 IF v = ?",
					&query.Options{Consistency: 1, Values: []query.Value{{B: types.EncodeInt(old + 1)}, {B: types.EncodeInt(old)}}})
				if err != nil {
					t.Error(err)
					return
				}
				if applied(t, res) {
					appliedCount.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	res, err := ex.Query(ctx, &query.Session{}, "SELECT v FROM ks.t WHERE k = 1", &query.Options{Consistency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := types.DecodeInt(res.Rows[0][0]); v != appliedCount.Load() {
		t.Fatalf("value %d after %d applied increments", v, appliedCount.Load())
	}
}

func TestCounterConcurrentIncrements(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	setupKS(t, ex, "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)")
	ctx := context.Background()
	p, err := ex.Prepare(ctx, &query.Session{}, "UPDATE ks.c SET n = n + ? WHERE k = ?", "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Bound[0].Name != "n" || p.Bound[0].Type.Kind != types.Counter {
		t.Fatalf("bound spec %+v", p.Bound[0])
	}
	const goroutines, each = 16, 50
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := ex.Execute(ctx, &query.Session{}, p.ID, nil, &query.Options{Consistency: 1,
					Values: []query.Value{{B: types.EncodeBigint(2)}, {B: types.EncodeInt(1)}}})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	res, err := ex.Query(ctx, &query.Session{}, "SELECT n FROM ks.c WHERE k = 1", &query.Options{Consistency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := types.DecodeBigint(res.Rows[0][0]); v != 2*goroutines*each {
		t.Fatalf("counter = %d, want %d", v, 2*goroutines*each)
	}
}

// TestCollectionBindMarkers checks the bind specifications Cassandra gives
// collection operations and that bound values work.
func TestCollectionBindMarkers(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	setupKS(t, ex, "CREATE TABLE ks.c (k int PRIMARY KEY, s set<text>, m map<text, int>, l list<int>)")
	ctx := context.Background()
	sess := &query.Session{}
	run := func(q string, want []string, vals ...[]byte) {
		t.Helper()
		p, err := ex.Prepare(ctx, sess, q, "")
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(p.Bound) != len(want) {
			t.Fatalf("%s: %d markers, want %d", q, len(p.Bound), len(want))
		}
		for i, w := range want {
			if p.Bound[i].Name != w {
				t.Fatalf("%s: marker %d named %q, want %q", q, i, p.Bound[i].Name, w)
			}
		}
		vs := make([]query.Value, len(vals))
		for i, v := range vals {
			vs[i] = query.Value{B: v}
		}
		if _, err := ex.Execute(ctx, sess, p.ID, nil, &query.Options{Consistency: 1, Values: vs}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	txt := types.EncodeText
	one := types.EncodeInt(1)
	run("UPDATE ks.c SET s = s + ? WHERE k = ?", []string{"s", "k"}, types.EncodeSet(types.TextType, [][]byte{txt("a"), txt("b")}), one)
	run("UPDATE ks.c SET s = s - ? WHERE k = ?", []string{"s", "k"}, types.EncodeSet(types.TextType, [][]byte{txt("a")}), one)
	run("UPDATE ks.c SET m[?] = ? WHERE k = ?", []string{"key(m)", "value(m)", "k"}, txt("x"), types.EncodeInt(5), one)
	run("UPDATE ks.c SET m = m + ? WHERE k = ?", []string{"m", "k"}, types.EncodeMap(types.TextType, [][]byte{txt("y"), txt("z")}, [][]byte{types.EncodeInt(6), types.EncodeInt(7)}), one)
	run("DELETE m[?] FROM ks.c WHERE k = ?", []string{"key(m)", "k"}, txt("z"), one)
	run("UPDATE ks.c SET m = m - ? WHERE k = ?", []string{"m", "k"}, types.EncodeSet(types.TextType, [][]byte{txt("y")}), one)
	run("UPDATE ks.c SET l = ? WHERE k = ?", []string{"l", "k"}, types.EncodeList([][]byte{types.EncodeInt(1), types.EncodeInt(2)}), one)
	run("UPDATE ks.c SET l = l + ? WHERE k = ?", []string{"l", "k"}, types.EncodeList([][]byte{types.EncodeInt(3)}), one)
	run("UPDATE ks.c SET l = ? + l WHERE k = ?", []string{"l", "k"}, types.EncodeList([][]byte{types.EncodeInt(0)}), one)
	run("UPDATE ks.c SET l[?] = ? WHERE k = ?", []string{"idx(l)", "value(l)", "k"}, types.EncodeInt(1), types.EncodeInt(10), one)
	run("DELETE l[?] FROM ks.c WHERE k = ?", []string{"idx(l)", "k"}, types.EncodeInt(2), one)
	run("DELETE s[?] FROM ks.c WHERE k = ?", []string{"value(s)", "k"}, txt("nope"), one)
	p, err := ex.Prepare(ctx, sess, "UPDATE ks.c SET s = {} WHERE k = ? IF m[?] = ? AND l[?] = ?", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"k", "key(m)", "value(m)", "idx(l)", "value(l)"} {
		if p.Bound[i].Name != w {
			t.Fatalf("condition marker %d named %q, want %q", i, p.Bound[i].Name, w)
		}
	}
	res, err := ex.Query(ctx, sess, "SELECT s, m, l FROM ks.c WHERE k = 1", &query.Options{Consistency: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{
		types.Format(res.Columns[0].Type, res.Rows[0][0]),
		types.Format(res.Columns[1].Type, res.Rows[0][1]),
		types.Format(res.Columns[2].Type, res.Rows[0][2]),
	}
	want := []string{"{'b'}", "{'x': 5}", "[0, 10, 3]"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("column %d = %s, want %s", i, got[i], want[i])
		}
	}
}

// TestSerialConsistencyRules: SERIAL/LOCAL_SERIAL are accepted as the
// serial consistency of conditional writes and refused where Cassandra
// refuses them.
func TestSerialConsistencyRules(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	setupKS(t, ex, "CREATE TABLE ks.t (k int PRIMARY KEY, v int)", "CREATE TABLE ks.c (k int PRIMARY KEY, n counter)")
	ctx := context.Background()
	sess := &query.Session{}
	for _, sc := range []query.Consistency{0, query.Serial, query.LocalSerial} {
		res, err := ex.Query(ctx, sess, "UPDATE ks.t SET v = 1 WHERE k = 1 IF v = null",
			&query.Options{Consistency: uint16(query.Quorum), SerialConsistency: uint16(sc)})
		if err != nil {
			t.Fatalf("serial consistency %d: %v", sc, err)
		}
		applied(t, res)
	}
	for _, c := range []struct {
		q       string
		cl, scl query.Consistency
		want    string
	}{
		{"UPDATE ks.t SET v = 1 WHERE k = 1 IF v = 1", query.Serial, 0, "SERIAL is not supported as conditional update commit consistency"},
		{"UPDATE ks.t SET v = 1 WHERE k = 1 IF v = 1", query.One, query.Quorum, "Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL"},
		{"UPDATE ks.c SET n = n + 1 WHERE k = 1", query.Any, 0, "Consistency level ANY is not yet supported for counter table c"},
		{"UPDATE ks.t SET v = 1 WHERE k = 1", query.Serial, 0, "You must use conditional updates for serializable writes"},
	} {
		_, err := ex.Query(ctx, sess, c.q, &query.Options{Consistency: uint16(c.cl), SerialConsistency: uint16(c.scl)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s at %d/%d: got %v, want %q", c.q, c.cl, c.scl, err, c.want)
		}
	}
	// A SERIAL read sees the conditional write.
	res, err := ex.Query(ctx, sess, "SELECT v FROM ks.t WHERE k = 1", &query.Options{Consistency: uint16(query.Serial)})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := types.DecodeInt(res.Rows[0][0]); v != 1 {
		t.Fatalf("serial read: %d", v)
	}
}
