package node

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// TestIndexANN checks vector search against a top-k computed here: random
// vectors in several partitions, with updates and deletes, queried with
// each similarity function, alone and with a partition key or an indexed
// column restriction. It also checks the top-k rules that the logic tests
// cannot show: warnings, consistency levels and the absence of paging.
func TestIndexANN(t *testing.T) {
	n := startTestNode(t, filepath.Join(t.TempDir(), "data"))
	defer stopTestNode(t, n)
	ex := n.Executor()
	ctx := context.Background()
	sess := &query.Session{Keyspace: "ks"}
	run := func(q string, opts *query.Options) *query.Result {
		t.Helper()
		if opts == nil {
			opts = &query.Options{Consistency: 1}
		}
		res, err := ex.Query(ctx, sess, q, opts)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
	fns := map[string]string{"cos": "cosine", "dot": "dot_product", "euc": "euclidean"}
	type row struct {
		p, c, g int
		v       [3]float32
	}
	rng := rand.New(rand.NewSource(7))
	rows := map[[2]int]row{}
	randVec := func() [3]float32 {
		var v [3]float32
		for i := range v {
			// Multiples of 1/8 avoid zero vectors and keep literals exact.
			v[i] = float32(rng.Intn(15)-7)/8 + 0.0625
		}
		return v
	}
	lit := func(v [3]float32) string {
		return fmt.Sprintf("[%g, %g, %g]", v[0], v[1], v[2])
	}
	for tbl, fn := range fns {
		run(fmt.Sprintf("CREATE TABLE %s (p int, c int, g int, v vector<float, 3>, PRIMARY KEY (p, c))", tbl), nil)
		run(fmt.Sprintf("CREATE CUSTOM INDEX ON %s (v) USING 'sai' WITH OPTIONS = {'similarity_function': '%s'}", tbl, fn), nil)
		run(fmt.Sprintf("CREATE CUSTOM INDEX ON %s (g) USING 'sai'", tbl), nil)
	}
	for i := 0; i < 300; i++ {
		r := row{p: rng.Intn(6), c: rng.Intn(20), g: rng.Intn(3), v: randVec()}
		k := [2]int{r.p, r.c}
		var stmt string
		if rng.Intn(8) == 0 {
			stmt = fmt.Sprintf("DELETE FROM %%s WHERE p = %d AND c = %d", r.p, r.c)
			delete(rows, k)
		} else {
			stmt = fmt.Sprintf("INSERT INTO %%s (p, c, g, v) VALUES (%d, %d, %d, %s)", r.p, r.c, r.g, lit(r.v))
			rows[k] = r
		}
		for tbl := range fns {
			run(fmt.Sprintf(stmt, tbl), nil)
		}
	}
	score := func(fn string, x, y [3]float32) float64 {
		var dot, nx, ny, d float64
		for i := range x {
			a, b := float64(x[i]), float64(y[i])
			dot += a * b
			nx += a * a
			ny += b * b
			d += (a - b) * (a - b)
		}
		switch fn {
		case "euclidean":
			return 1 / (1 + d)
		case "dot_product":
			return (1 + dot) / 2
		}
		return (1 + dot/math.Sqrt(nx*ny)) / 2
	}
	for q := 0; q < 40; q++ {
		qv := randVec()
		limit := 1 + rng.Intn(12)
		for tbl, fn := range fns {
			where, keep := "", func(row) bool { return true }
			switch q % 3 {
			case 1:
				p := rng.Intn(6)
				where, keep = fmt.Sprintf(" WHERE p = %d", p), func(r row) bool { return r.p == p }
			case 2:
				g := rng.Intn(3)
				where, keep = fmt.Sprintf(" WHERE g = %d", g), func(r row) bool { return r.g == g }
			}
			stmt := fmt.Sprintf("SELECT p, c FROM %s%s ORDER BY v ANN OF %s LIMIT %d", tbl, where, lit(qv), limit)
			res := run(stmt, &query.Options{Consistency: 1, PageSize: 3})
			if res.PagingState != nil {
				t.Fatalf("%s: paged", stmt)
			}
			var want []row
			for _, r := range rows {
				if keep(r) {
					want = append(want, r)
				}
			}
			sort.Slice(want, func(i, j int) bool { return score(fn, qv, want[i].v) > score(fn, qv, want[j].v) })
			if len(want) > limit {
				want = want[:limit]
			}
			if len(res.Rows) != len(want) {
				t.Fatalf("%s: %d rows, want %d", stmt, len(res.Rows), len(want))
			}
			for i, r := range want {
				gp, _ := types.DecodeInt(res.Rows[i][0])
				gc, _ := types.DecodeInt(res.Rows[i][1])
				got := rows[[2]int{int(gp), int(gc)}]
				// Equal scores may come in either order: compare scores.
				if math.Abs(score(fn, qv, got.v)-score(fn, qv, r.v)) > 1e-5 {
					t.Fatalf("%s: row %d is (%d, %d) with score %v, want score %v (%d, %d)", stmt, i, gp, gc,
						score(fn, qv, got.v), score(fn, qv, r.v), r.p, r.c)
				}
			}
			if limit > 3 && !hasWarning(res, "Top-K queries do not support paging and the page size is set to 3") {
				t.Errorf("%s: no page size warning in %q", stmt, res.Warnings)
			}
		}
	}

	res := run("SELECT p FROM cos ORDER BY v ANN OF [1, 0, 0] LIMIT 2", &query.Options{Consistency: 6}) // LOCAL_QUORUM
	if !hasWarning(res, "Consistency level LOCAL_QUORUM was requested. Downgrading the consistency level to LOCAL_ONE.") {
		t.Errorf("no consistency warning: %q", res.Warnings)
	}
	res = run("SELECT p FROM cos ORDER BY v ANN OF [1, 0, 0] LIMIT 2", &query.Options{Consistency: 4}) // QUORUM
	if !hasWarning(res, "Consistency level QUORUM was requested. Downgrading the consistency level to ONE.") {
		t.Errorf("no consistency warning: %q", res.Warnings)
	}
	_, err := ex.Query(ctx, sess, "SELECT p FROM cos ORDER BY v ANN OF [1, 0, 0] LIMIT 2", &query.Options{Consistency: 8})
	if err == nil || !strings.Contains(err.Error(), "Top-K queries can only be run with consistency level ONE/LOCAL_ONE. Consistency level SERIAL was used.") {
		t.Errorf("SERIAL: %v", err)
	}
}

func hasWarning(res *query.Result, part string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
