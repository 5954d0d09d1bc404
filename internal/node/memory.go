package node

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// cacheDefault is min(ceiling, heap/div), at least floor, for the heap
// cassandra-env.sh picks by default on a machine with mem bytes of memory:
// max(min(mem/2, 1GiB), min(mem/4, 8GiB)). Unknown memory (0) gives the
// floor.
func cacheDefault(mem, ceiling, div, floor int64) int64 {
	if mem <= 0 {
		return floor
	}
	heap := max(min(mem/2, 1<<30), min(mem/4, 8<<30))
	return max(min(ceiling, heap/div), floor)
}

// defaultFileCacheSize is Cassandra's default file_cache_size:
// min(512MiB, heap/4), with the 64MiB floor the engine used before.
func defaultFileCacheSize(mem int64) int64 { return cacheDefault(mem, 512<<20, 4, 64<<20) }

// defaultPartitionCacheSize is the default partition_cache_size (cqld's
// own: the storage engine's cache of small partitions, storage/pcache.go):
// min(128MiB, heap/16), at least 16MiB. (A YCSB record of 1 KB takes
// 1,319 bytes of it, entry overhead included: 131.9 MB for the
// benchmark's 100,000 records. Each of the 32 shards holds 4 MiB, ~3,180
// records, against 3,125 +- 55 hashed to it, so a few shards evict a few
// and after each record has been read once nearly every read hits; the
// Go heap that holds the cache doubles before a collection:
// docs/benchmarks.md.)
func defaultPartitionCacheSize(mem int64) int64 { return cacheDefault(mem, 128<<20, 16, 16<<20) }

// defaultPreparedStatementsCacheSize is Cassandra's default
// prepared_statements_cache_size: max(10MiB, heap/256).
func defaultPreparedStatementsCacheSize(mem int64) int64 {
	return cacheDefault(mem, 1<<62, 256, 10<<20)
}

// physicalMemory returns the machine's memory in bytes (MemTotal of
// /proc/meminfo), lowered to the cgroup's memory limit when there is one;
// 0 when unknown.
func physicalMemory() int64 {
	var mem int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					mem = kb << 10
				}
				break
			}
		}
		f.Close()
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if lim, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && lim > 0 && (mem == 0 || lim < mem) {
			mem = lim
		}
		break
	}
	return mem
}
