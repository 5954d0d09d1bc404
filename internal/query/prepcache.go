package query

import (
	"sync"
	"sync/atomic"
)

// preparedCache holds the prepared statements, bounded as Cassandra
// bounds its cache (prepared_statements_cache_size): by an estimate of
// their memory, the least recently used evicted first. An EXECUTE of an
// evicted statement gets UNPREPARED and the driver prepares it again.
//
// Recency is a logical clock bumped at each insertion: a lookup stamps
// its entry with the clock when the stamp differs, so that executions of
// a hot statement read shared memory and rarely write it.
type preparedCache struct {
	// limit is the bound in bytes; 0 means none.
	limit int64

	mu      sync.RWMutex
	entries map[[16]byte]*preparedEntry
	bytes   int64

	clock   atomic.Int64
	evicted atomic.Int64
}

// preparedOverhead estimates the memory of a compiled statement besides
// its query text (its plan, column specs and parsed tree).
const preparedOverhead = 2048

// preparedWeight estimates the memory of a cached statement.
func preparedWeight(query string) int64 { return preparedOverhead + 8*int64(len(query)) }

func newPreparedCache(limit int64) *preparedCache {
	return &preparedCache{limit: limit, entries: map[[16]byte]*preparedEntry{}}
}

// get returns the entry for id (nil when absent) and marks it used.
func (pc *preparedCache) get(id [16]byte) *preparedEntry {
	pc.mu.RLock()
	pe := pc.entries[id]
	pc.mu.RUnlock()
	if pe != nil {
		if now := pc.clock.Load(); pe.used.Load() != now {
			pe.used.Store(now)
		}
	}
	return pe
}

// fits reports whether an entry of weight w fits without evicting.
func (pc *preparedCache) fits(w int64) bool {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	return pc.limit == 0 || pc.bytes+w <= pc.limit
}

// put inserts or replaces the entry for id. It reports whether id was
// already cached and returns the ids it evicted to make room, least
// recently used first (never the new entry).
func (pc *preparedCache) put(id [16]byte, pe *preparedEntry) (known bool, evicted [][16]byte) {
	pe.weight = preparedWeight(pe.query)
	pe.used.Store(pc.clock.Add(1))
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if old, ok := pc.entries[id]; ok {
		known = true
		pc.bytes -= old.weight
	}
	pc.entries[id] = pe
	pc.bytes += pe.weight
	if pc.limit == 0 || pc.bytes <= pc.limit {
		return known, nil
	}
	// Usually one entry must go: find the least recently used by a scan
	// rather than sorting the cache under the lock.
	for pc.bytes > pc.limit {
		var oldest [16]byte
		found, least := false, int64(0)
		for k, e := range pc.entries {
			if u := e.used.Load(); k != id && (!found || u < least) {
				oldest, least, found = k, u, true
			}
		}
		if !found {
			break // the new entry alone is over the limit
		}
		pc.bytes -= pc.entries[oldest].weight
		delete(pc.entries, oldest)
		evicted = append(evicted, oldest)
	}
	pc.evicted.Add(int64(len(evicted)))
	return known, evicted
}

// remove drops the entries for ids that are still pe (a statement
// prepared again meanwhile stays).
func (pc *preparedCache) remove(ids map[[16]byte]*preparedEntry) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for id, pe := range ids {
		if pc.entries[id] == pe {
			pc.bytes -= pe.weight
			delete(pc.entries, id)
		}
	}
}

// snapshot returns the cached entries.
func (pc *preparedCache) snapshot() map[[16]byte]*preparedEntry {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	out := make(map[[16]byte]*preparedEntry, len(pc.entries))
	for k, v := range pc.entries {
		out[k] = v
	}
	return out
}

// size returns the number of cached statements.
func (pc *preparedCache) size() int {
	pc.mu.RLock()
	defer pc.mu.RUnlock()
	return len(pc.entries)
}

// PreparedCount returns the number of cached prepared statements.
func (e *Executor) PreparedCount() int { return e.prepared.size() }
