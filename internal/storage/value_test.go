package storage

import (
	"math/rand/v2"
	"testing"

	"github.com/cqld/cqld/internal/mutation"
)

// TestNewerWins checks the merge operator's decision against the
// reconciliation rules on decoded values, for random cells, markers and
// deletions with colliding timestamps.
func TestNewerWins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cell := func() []byte {
		c := mutation.Cell{Timestamp: int64(rng.IntN(4)) - 2, LocalDeletionTime: mutation.NoDeletion}
		switch rng.IntN(3) {
		case 0:
			c.Tombstone, c.LocalDeletionTime = true, int64(rng.IntN(3))
		case 1:
			c.TTL, c.LocalDeletionTime, c.Value = int32(1+rng.IntN(2)), int64(rng.IntN(3)), []byte{byte(rng.IntN(3))}
		default:
			c.Value = []byte{byte(rng.IntN(3))}
		}
		return appendCellValue(nil, &c, nil)
	}
	marker := func() []byte {
		l := mutation.Liveness{Timestamp: int64(rng.IntN(4)) - 2, LocalDeletionTime: mutation.NoDeletion}
		if rng.IntN(2) == 0 {
			l.TTL, l.LocalDeletionTime = int32(1+rng.IntN(2)), int64(rng.IntN(3))
		}
		return appendMarkerValue(nil, l)
	}
	deletion := func() []byte {
		return appendDeletionValue(nil, mutation.Deletion{MarkedForDeleteAt: int64(rng.IntN(4)) - 2, LocalDeletionTime: int64(rng.IntN(3))})
	}
	for i := 0; i < 20000; i++ {
		gen := []func() []byte{cell, marker, deletion}[i%3]
		a, b := gen(), gen()
		if got, want := newerWins(a, b), newerWinsTie(a, b); got != want {
			t.Fatalf("newerWins(%x, %x) = %v, decoded rules say %v", a, b, got, want)
		}
	}
}
