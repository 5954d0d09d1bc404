package mutation

import "testing"

func TestReconcile(t *testing.T) {
	live := func(ts int64, v string) *Cell {
		return &Cell{Value: []byte(v), Timestamp: ts, LocalDeletionTime: NoDeletion}
	}
	tomb := func(ts, ldt int64) *Cell { return &Cell{Timestamp: ts, Tombstone: true, LocalDeletionTime: ldt} }
	for _, tc := range []struct {
		name string
		a, b *Cell
		want *Cell // pointer identity of the winner, checked both ways
	}{
		{"newer timestamp wins", live(2, "a"), live(1, "b"), nil},
		{"tombstone wins a tie", tomb(5, 100), live(5, "z"), nil},
		{"larger value wins a tie", live(5, "b"), live(5, "a"), nil},
		{"newer write beats older tombstone", live(6, "a"), tomb(5, 100), nil},
		{"later deletion time wins between tombstones", tomb(5, 200), tomb(5, 100), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reconcile(tc.a, tc.b); got != tc.a {
				t.Fatalf("Reconcile(a, b) = %+v, want a", got)
			}
			if got := Reconcile(tc.b, tc.a); got != tc.a {
				t.Fatalf("Reconcile(b, a) = %+v, want a (reconciliation must be symmetric)", got)
			}
		})
	}
}

func TestDeletionAndLiveness(t *testing.T) {
	d := Deletion{MarkedForDeleteAt: 10, LocalDeletionTime: 1}
	if !d.Deletes(10) || !d.Deletes(9) || d.Deletes(11) {
		t.Fatal("a deletion shadows data at or before its timestamp only")
	}
	if Live.Deletes(0) || !Live.IsLive() {
		t.Fatal("Live deletes nothing")
	}
	if !d.Supersedes(Live) || Live.Supersedes(d) {
		t.Fatal("Supersedes")
	}
	m := Liveness{Timestamp: 1, TTL: 10, LocalDeletionTime: 100}
	if !m.IsLive(99) || m.IsLive(100) || NoLiveness.IsLive(0) {
		t.Fatal("expiring row marker")
	}
	c := Cell{Timestamp: 1, TTL: 10, LocalDeletionTime: 100, Value: []byte{1}}
	if !c.IsLive(99) || c.IsLive(100) {
		t.Fatal("expiring cell")
	}
}

func TestCompositeKey(t *testing.T) {
	if got := CompositeKey([][]byte{{1, 2}}); string(got) != "\x01\x02" {
		t.Fatalf("a single-column key is the value itself, got %x", got)
	}
	key := CompositeKey([][]byte{{0, 0, 0, 1}, []byte("a")})
	if string(key) != "\x00\x04\x00\x00\x00\x01\x00\x00\x01a\x00" {
		t.Fatalf("composite layout: %x", key)
	}
	parts, err := SplitCompositeKey(key, 2)
	if err != nil || len(parts) != 2 || string(parts[1]) != "a" {
		t.Fatalf("split: %q %v", parts, err)
	}
	for _, bad := range [][]byte{key[:len(key)-1], append(append([]byte(nil), key...), 0), {0, 9, 1}} {
		if _, err := SplitCompositeKey(bad, 2); err == nil {
			t.Errorf("SplitCompositeKey(%x) succeeded", bad)
		}
	}
}
