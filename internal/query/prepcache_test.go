package query

import "testing"

func TestPreparedCacheEvictsLeastRecentlyUsed(t *testing.T) {
	w := preparedWeight("q")
	pc := newPreparedCache(3 * w)
	id := func(b byte) [16]byte { return [16]byte{b} }
	for b := byte(1); b <= 3; b++ {
		if known, ev := pc.put(id(b), &preparedEntry{query: "q"}); known || ev != nil {
			t.Fatalf("put %d: known %v evicted %v", b, known, ev)
		}
	}
	// 1 is used after 2 was inserted: 2 is now the least recently used.
	if pc.get(id(1)) == nil {
		t.Fatal("1 missing")
	}
	_, ev := pc.put(id(4), &preparedEntry{query: "q"})
	if len(ev) != 1 || ev[0] != id(2) {
		t.Fatalf("evicted %v, want [2]", ev)
	}
	if pc.get(id(2)) != nil || pc.get(id(1)) == nil || pc.size() != 3 || pc.evicted.Load() != 1 {
		t.Fatalf("after eviction: size %d evicted %d", pc.size(), pc.evicted.Load())
	}
	// Replacing an entry is not an insertion: nothing is evicted.
	if known, ev := pc.put(id(4), &preparedEntry{query: "q"}); !known || ev != nil {
		t.Fatalf("replace: known %v evicted %v", known, ev)
	}
	if pc.fits(w) {
		t.Fatal("a full cache fits another entry")
	}
	// An entry larger than the whole cache stays alone.
	big := string(make([]byte, 4*w))
	if _, ev := pc.put(id(5), &preparedEntry{query: big}); len(ev) != 3 || pc.size() != 1 {
		t.Fatalf("big entry: evicted %v size %d", ev, pc.size())
	}
}
