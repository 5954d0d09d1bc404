package node

import (
	"errors"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestCellMetadataTTL checks ttl() of set and map elements and slices
// (Cassandra 5.0, CASSANDRA-8877) through the driver, with element keys
// and slice bounds bound as markers. TTLs count down, so each is checked
// to lie within a minute below the TTL written (WritetimeOrTTLTest's
// assertTTL); the writetime cases are golden in logic/writetime_elements.
func TestCellMetadataTTL(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.t (k int PRIMARY KEY, s set<int>, m map<int, int>, fm frozen<map<int, int>>)",
		"INSERT INTO ks.t (k, s, m) VALUES (1, {1}, {1: 10}) USING TIMESTAMP 1",
		"INSERT INTO ks.t (k, fm) VALUES (1, {1: 10, 2: 20}) USING TIMESTAMP 1 AND TTL 30000",
		"UPDATE ks.t USING TIMESTAMP 2 AND TTL 20000 SET s = s + {2}, m = m + {2: 20} WHERE k = 1",
	)
	within := func(what string, got *int, want int) {
		t.Helper()
		switch {
		case want == 0 && got != nil:
			t.Errorf("%s = %d, want null", what, *got)
		case want != 0 && got == nil:
			t.Errorf("%s = null, want %d", what, want)
		case want != 0 && (*got > want || *got <= want-60):
			t.Errorf("%s = %d, want within a minute below %d", what, *got, want)
		}
	}
	for _, key := range []int{0, 1, 2} {
		var sTTL, mTTL, fmTTL *int
		if err := s.Query("SELECT ttl(s[?]), ttl(m[?]), ttl(fm[?]) FROM ks.t WHERE k = 1", key, key, key).
			Scan(&sTTL, &mTTL, &fmTTL); err != nil {
			t.Fatal(err)
		}
		want := 0
		if key == 2 {
			want = 20000
		}
		within("ttl(s[key])", sTTL, want)
		within("ttl(m[key])", mTTL, want)
		// The frozen map is one cell: a present key answers with its TTL.
		fmWant := 30000
		if key == 0 {
			fmWant = 0
		}
		within("ttl(fm[key])", fmTTL, fmWant)
	}
	for _, tc := range []struct {
		lo, hi int
		want   []int // 0: an element without a TTL
	}{
		{0, 0, nil},
		{0, 1, []int{0}},
		{0, 5, []int{0, 20000}},
		{2, 5, []int{20000}},
	} {
		var ttls []*int
		if err := s.Query("SELECT ttl(s[?..?]) FROM ks.t WHERE k = 1", tc.lo, tc.hi).Scan(&ttls); err != nil {
			t.Fatal(err)
		}
		if len(ttls) != len(tc.want) {
			t.Fatalf("ttl(s[%d..%d]) has %d elements, want %d", tc.lo, tc.hi, len(ttls), len(tc.want))
		}
		for i, w := range tc.want {
			within("ttl(s[lo..hi]) element", ttls[i], w)
		}
	}
	// A null key or slice bound is refused when the query starts
	// (ElementsSelector), even where no row matches; an unset slice bound
	// is no bound.
	for _, tc := range []struct {
		q    string
		args []any
		want string
	}{
		{"SELECT writetime(m[?]) FROM ks.t WHERE k = 1", []any{nil}, "Invalid null value for element selection on m"},
		{"SELECT m[?] FROM ks.t WHERE k = 99", []any{nil}, "Invalid null value for element selection on m"},
		{"SELECT ttl(s[?..?]) FROM ks.t WHERE k = 1", []any{0, nil}, "Invalid null value for slice selection on s"},
	} {
		var v any
		err := s.Query(tc.q, tc.args...).Scan(&v)
		var rerr gocql.RequestError
		if !errors.As(err, &rerr) || rerr.Code() != 0x2200 || rerr.Message() != tc.want {
			t.Errorf("%s with %v: %v, want Invalid %q", tc.q, tc.args, err, tc.want)
		}
	}
	var ttls []*int
	if err := s.Query("SELECT ttl(s[?..?]) FROM ks.t WHERE k = 1", 2, gocql.UnsetValue).Scan(&ttls); err != nil || len(ttls) != 1 {
		t.Errorf("ttl(s[2..unset]): %v, %d elements, want 1", err, len(ttls))
	}
}
