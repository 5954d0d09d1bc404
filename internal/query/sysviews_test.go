package query

import (
	"math"
	"net"
	"sort"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
)

// TestLocalTokenOrder: system_views' tokens keep the key order, and no key
// gets the minimum token, which a full range read excludes (the inet ::1
// has eight zero bytes first).
func TestLocalTokenOrder(t *testing.T) {
	views := schema.SystemKeyspaces()[schema.SystemViews]
	clients := views.Tables["clients"]
	keys := [][]byte{net.IPv6loopback, net.ParseIP("127.0.0.1").To4(), net.ParseIP("10.0.0.1").To4(), net.ParseIP("::2")}
	for _, k := range keys {
		if localToken(clients, k) == math.MinInt64 {
			t.Errorf("%v has the minimum token", net.IP(k))
		}
	}
	sorted := append([][]byte(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool {
		ti, tj := localToken(clients, sorted[i]), localToken(clients, sorted[j])
		if ti != tj {
			return ti < tj
		}
		return compareKeys(clients, sorted[i], sorted[j]) < 0
	})
	want := []string{"::1", "::2", "10.0.0.1", "127.0.0.1"}
	for i, k := range sorted {
		if net.IP(k).String() != want[i] {
			t.Fatalf("order %v, want %v", sorted, want)
		}
	}
	// Composite keys order by their components' values, not by their
	// encoding (which puts a component's length first).
	disk := views.Tables["disk_usage"]
	a := mutation.CompositeKey([][]byte{[]byte("keyspace10"), []byte("t")})
	b := mutation.CompositeKey([][]byte{[]byte("keyspace2"), []byte("t")})
	if localToken(disk, a) != localToken(disk, b) || compareKeys(disk, a, b) >= 0 {
		t.Fatal("keyspace10 does not sort before keyspace2")
	}
}
