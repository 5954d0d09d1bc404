package query

import (
	"testing"
	"time"

	"github.com/cqld/cqld/internal/types"
)

// TestListClockOrder: appended paths increase, prepended paths decrease
// below every earlier path, and both keep the order inside one call, even
// when the wall clock stands still or goes back.
func TestListClockOrder(t *testing.T) {
	c := newListClock()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.nowFn = func() time.Time { return now }
	var all [][]byte
	check := func(paths [][]byte) {
		for i := 1; i < len(paths); i++ {
			if types.Compare(types.TimeuuidType, paths[i-1], paths[i]) >= 0 {
				t.Fatalf("paths not increasing inside one call")
			}
		}
	}
	a := c.next(3, false)
	check(a)
	all = append(all, a...)
	now = now.Add(-time.Second) // clock goes back
	b := c.next(2, false)
	check(b)
	if types.Compare(types.TimeuuidType, b[0], a[2]) <= 0 {
		t.Fatal("append after a clock step back sorts before earlier appends")
	}
	all = append(all, b...)
	p1 := c.next(2, true)
	check(p1)
	if types.Compare(types.TimeuuidType, p1[1], all[0]) >= 0 {
		t.Fatal("prepend sorts after appended elements")
	}
	p2 := c.next(1, true)
	if types.Compare(types.TimeuuidType, p2[0], p1[0]) >= 0 {
		t.Fatal("second prepend sorts after the first")
	}
	for _, p := range append(append(all, p1...), p2...) {
		if err := types.Validate(types.TimeuuidType, p); err != nil {
			t.Fatalf("invalid timeuuid: %v", err)
		}
	}
}
