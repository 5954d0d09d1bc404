package bench

import (
	"math/rand/v2"
	"testing"
)

func TestScrambledZipfian(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const items = 1000
	z := newScrambledZipfian(items)
	counts := make(map[int64]int)
	for i := 0; i < 100_000; i++ {
		n := z.next(r)
		if n < 0 || n >= items {
			t.Fatalf("draw %d outside [0, %d)", n, items)
		}
		counts[n]++
	}
	// Skewed: the most popular item gets far more than a uniform share (100).
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	if top < 1000 {
		t.Errorf("most popular item drawn %d times of 100000; not zipfian", top)
	}
}

func TestSkewedLatest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	acked := newAckedCounter(100)
	s := &skewedLatest{acked: acked, z: newZipfian(101, 0)}
	for i := 0; i < 50; i++ {
		n := acked.take()
		if i%7 != 3 { // leave a gap: records after it are not all acknowledged
			acked.ack(n)
		}
	}
	last := acked.last()
	if last != 102 { // 100, 101, 102 acked; 103 not
		t.Fatalf("last acknowledged = %d, want 102", last)
	}
	newest := 0
	for i := 0; i < 10_000; i++ {
		n := s.next(r)
		if n < 0 || n > last {
			t.Fatalf("latest draw %d outside [0, %d]", n, last)
		}
		if n == last {
			newest++
		}
	}
	if newest < 1000 {
		t.Errorf("newest record drawn %d times of 10000; not skewed to the latest", newest)
	}
}

func TestYCSBKey(t *testing.T) {
	seen := make(map[string]bool)
	for n := int64(0); n < 10_000; n++ {
		if fnv64(n) < 0 {
			t.Fatalf("fnv64(%d) negative", n)
		}
		k := ycsbKey(n)
		if seen[k] {
			t.Fatalf("record %d shares key %s", n, k)
		}
		seen[k] = true
	}
}
