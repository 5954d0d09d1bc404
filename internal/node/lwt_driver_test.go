package node

import (
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestDriverCASAndCollections runs a conditional insert, a conditional
// batch, counters and collections through gocql.
func TestDriverCASAndCollections(t *testing.T) {
	_, s := driverNode(t,
		"CREATE TABLE ks.t (k int, c int, v text, tags set<text>, PRIMARY KEY (k, c))",
		"CREATE TABLE ks.cnt (k int PRIMARY KEY, n counter)",
	)
	m := map[string]interface{}{}
	ok, err := s.Query("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a') IF NOT EXISTS").SerialConsistency(gocql.LocalSerial).MapScanCAS(m)
	if err != nil || !ok {
		t.Fatalf("first insert: applied=%v err=%v", ok, err)
	}
	m = map[string]interface{}{}
	ok, err = s.Query("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'b') IF NOT EXISTS").MapScanCAS(m)
	if err != nil || ok || m["v"] != "a" {
		t.Fatalf("second insert: applied=%v err=%v current=%v", ok, err, m)
	}
	b := s.Batch(gocql.LoggedBatch)
	b.Query("UPDATE ks.t SET v = ? WHERE k = 1 AND c = 1 IF v = ?", "c", "a")
	b.Query("UPDATE ks.t SET tags = tags + ? WHERE k = 1 AND c = 1", []string{"x", "y"})
	ok, _, err = s.MapExecuteBatchCAS(b, map[string]interface{}{})
	if err != nil || !ok {
		t.Fatalf("conditional batch: applied=%v err=%v", ok, err)
	}
	if err := s.Query("UPDATE ks.t SET tags = tags - ? WHERE k = 1 AND c = 1", []string{"x"}).Exec(); err != nil {
		t.Fatal(err)
	}
	var v string
	var tags []string
	if err := s.Query("SELECT v, tags FROM ks.t WHERE k = 1 AND c = 1").Scan(&v, &tags); err != nil {
		t.Fatal(err)
	}
	if v != "c" || len(tags) != 1 || tags[0] != "y" {
		t.Fatalf("got v=%q tags=%v", v, tags)
	}
	for i := 0; i < 3; i++ {
		if err := s.Query("UPDATE ks.cnt SET n = n + ? WHERE k = ?", int64(2), 1).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var cnt int64
	if err := s.Query("SELECT n FROM ks.cnt WHERE k = 1").Scan(&cnt); err != nil || cnt != 6 {
		t.Fatalf("counter = %d, %v", cnt, err)
	}
}
