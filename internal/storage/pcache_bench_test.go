package storage

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// BenchmarkPartitionCacheHit looks up partitions of a cache the size of
// YCSB's data set (100,000 partitions of ~1.3 KB, all cached) from
// GOMAXPROCS goroutines, zipfian as YCSB picks them: the cost of a hit
// (hash, shard lock, index, eviction bookkeeping) on CPU caches that mostly
// miss. ns/op is wall time: with -cpu 2, half of a hit's CPU time.
func BenchmarkPartitionCacheHit(b *testing.B) {
	const n = 100_000
	c := newPartitionCache(192 << 20)
	var bld pcBuilder
	for i := range 11 {
		bld.add([]byte{0x02, 0x02, 0, 0, 0, byte(i)}, bytes.Repeat([]byte{'v'}, 109))
	}
	pps := make([][]byte, n)
	for i := range pps {
		pp := binary.BigEndian.AppendUint64(bytes.Repeat([]byte{0x01}, 17), rand.Uint64())
		pp = append(binary.BigEndian.AppendUint64(pp, uint64(i)), 0, 1)
		pps[i] = pp
		h := c.hash(pp)
		s := c.shard(h)
		s.mu.Lock()
		s.put(h, pp, &bld)
		s.mu.Unlock()
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		z := rand.NewZipf(rand.New(rand.NewPCG(rand.Uint64(), 1)), 1.01, 1, n-1)
		for pb.Next() {
			if _, ok, _ := c.lookup(pps[z.Uint64()]); !ok {
				b.Error("miss") // Fatal only from the benchmark's goroutine
				return
			}
		}
	})
}
