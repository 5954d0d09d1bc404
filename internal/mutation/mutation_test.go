package mutation

import (
	"math/rand/v2"
	"testing"
)

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

// cassandraResolveRegular is a line-by-line port of Cassandra's
// Cells.resolveRegular (5.0), which returns its left argument on a tie.
func cassandraResolveRegular(left, right *Cell) *Cell {
	if left.Timestamp != right.Timestamp {
		if left.Timestamp > right.Timestamp {
			return left
		}
		return right
	}
	lExpOrTomb := left.LocalDeletionTime != NoDeletion
	rExpOrTomb := right.LocalDeletionTime != NoDeletion
	if lExpOrTomb || rExpOrTomb {
		if lExpOrTomb != rExpOrTomb {
			if lExpOrTomb {
				return left
			}
			return right
		}
		lTomb, rTomb := left.TTL == 0, right.TTL == 0
		if lTomb != rTomb {
			if lTomb {
				return left
			}
			return right
		}
		if left.LocalDeletionTime != right.LocalDeletionTime {
			if left.LocalDeletionTime > right.LocalDeletionTime {
				return left
			}
			return right
		}
	}
	if compareBytes(left.Value, right.Value) >= 0 {
		return left
	}
	return right
}

// randomCell returns a well-formed cell from small domains, so that ties of
// every kind are frequent.
func randomCell(r *rand.Rand) *Cell {
	c := &Cell{Column: 1, Timestamp: int64(r.IntN(3)), LocalDeletionTime: NoDeletion}
	switch r.IntN(3) {
	case 0: // tombstone
		c.Tombstone = true
		c.LocalDeletionTime = int64(100 + r.IntN(3))
	case 1: // expiring
		c.TTL = int32(1 + r.IntN(3))
		c.LocalDeletionTime = int64(100 + r.IntN(3))
		c.Value = []byte{byte(r.IntN(3) * 0x7f)}
	default:
		c.Value = []byte{byte(r.IntN(3) * 0x7f)}
		if r.IntN(4) == 0 {
			c.Value = c.Value[:0] // empty value
		}
	}
	return c
}

func sameCell(a, b *Cell) bool {
	return a.Timestamp == b.Timestamp && a.Tombstone == b.Tombstone && a.TTL == b.TTL &&
		a.LocalDeletionTime == b.LocalDeletionTime && string(a.Value) == string(b.Value)
}

// TestReconcileProperties checks over random cells that Reconcile is
// commutative and associative (by content: the merge operator and the
// memory engine see operands in different orders and groupings) and that it
// agrees with Cassandra's resolveRegular except on the one tie Cassandra
// breaks by argument order.
func TestReconcileProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		a, b, c := randomCell(r), randomCell(r), randomCell(r)
		ab, ba := Reconcile(a, b), Reconcile(b, a)
		if !sameCell(ab, ba) {
			t.Fatalf("not commutative:\na=%+v\nb=%+v\nReconcile(a,b)=%+v Reconcile(b,a)=%+v", a, b, ab, ba)
		}
		if l, r := Reconcile(Reconcile(a, b), c), Reconcile(a, Reconcile(b, c)); !sameCell(l, r) {
			t.Fatalf("not associative:\na=%+v\nb=%+v\nc=%+v\n(ab)c=%+v a(bc)=%+v", a, b, c, l, r)
		}
		if ab != a && ab != b {
			t.Fatal("Reconcile returned a new cell")
		}
		want := cassandraResolveRegular(a, b)
		onlyTTLDiffers := a.TTL != b.TTL && a.Timestamp == b.Timestamp && a.LocalDeletionTime == b.LocalDeletionTime &&
			a.Tombstone == b.Tombstone && string(a.Value) == string(b.Value)
		if !sameCell(ab, want) && !onlyTTLDiffers {
			t.Fatalf("differs from Cassandra:\na=%+v\nb=%+v\ngot %+v want %+v", a, b, ab, want)
		}
	}
}

func TestReconcileCassandraTies(t *testing.T) {
	live := &Cell{Value: []byte{9}, Timestamp: 5, LocalDeletionTime: NoDeletion}
	expiring := &Cell{Value: []byte{1}, Timestamp: 5, TTL: 10, LocalDeletionTime: 50}
	laterExpiring := &Cell{Value: []byte{0}, Timestamp: 5, TTL: 20, LocalDeletionTime: 60}
	tomb := &Cell{Timestamp: 5, Tombstone: true, LocalDeletionTime: 10}
	for _, tc := range []struct {
		name      string
		win, lose *Cell
	}{
		{"expiring beats live on a tie whatever the values", expiring, live},
		{"tombstone beats expiring", tomb, laterExpiring},
		{"later expiry beats larger value", laterExpiring, expiring},
	} {
		if Reconcile(tc.win, tc.lose) != tc.win || Reconcile(tc.lose, tc.win) != tc.win {
			t.Errorf("%s", tc.name)
		}
	}
}
