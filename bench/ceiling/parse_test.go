package ceiling

import (
	"net"
	"testing"

	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

func TestParseTableBody(t *testing.T) {
	def, err := parseTableBody(`sensor_id text, day date, reading_time timestamp, temperature double,
		PRIMARY KEY ((sensor_id, day), reading_time)`)
	if err != nil {
		t.Fatal(err)
	}
	if len(def.cols) != 4 || len(def.pk) != 2 || def.pk[0] != 0 || def.pk[1] != 1 ||
		len(def.ck) != 1 || def.ck[0] != 2 || def.cols[1].typ != types.DateType {
		t.Fatalf("def = %+v", def)
	}
	def, err = parseTableBody("y_id text PRIMARY KEY, field0 blob")
	if err != nil {
		t.Fatal(err)
	}
	if len(def.pk) != 1 || def.pk[0] != 0 || len(def.ck) != 0 {
		t.Fatalf("def = %+v", def)
	}
	if _, err := parseTableBody("a frozen<list<int>> PRIMARY KEY"); err == nil {
		t.Error("non-native type accepted")
	}
}

// TestSliceOrder checks clustering order with negative values and the
// bounds of a slice.
func TestSliceOrder(t *testing.T) {
	h := newHandler(net.IPv4(127, 0, 0, 1))
	run := func(cql string, vals ...[]byte) *query.Result {
		t.Helper()
		st, err := h.parse(cql, "")
		if err != nil {
			t.Fatal(err)
		}
		qv := make([]query.Value, len(vals))
		for i, v := range vals {
			qv[i] = query.Value{B: v}
		}
		res, err := h.run(st, qv)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	run("CREATE TABLE ks.w (pk bigint, ck bigint, v blob, PRIMARY KEY (pk, ck))")
	for _, ck := range []int64{5, -3, 0, 2, -10, 7} {
		run("INSERT INTO ks.w (pk, ck, v) VALUES (?, ?, ?)", types.EncodeBigint(1), types.EncodeBigint(ck), []byte("x"))
	}
	res := run("SELECT ck FROM ks.w WHERE pk = ? AND ck > ? LIMIT 3", types.EncodeBigint(1), types.EncodeBigint(-3))
	var got []int64
	for _, r := range res.Rows {
		v, _ := types.DecodeBigint(r[0])
		got = append(got, v)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 5 {
		t.Fatalf("slice = %v, want [0 2 5]", got)
	}
	res = run("SELECT ck FROM ks.w WHERE pk = ? AND ck <= ?", types.EncodeBigint(1), types.EncodeBigint(0))
	if len(res.Rows) != 3 {
		t.Fatalf("ck <= 0 returned %d rows, want 3", len(res.Rows))
	}
}
