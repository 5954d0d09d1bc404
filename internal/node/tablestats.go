package node

import (
	"context"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
)

// tableStats implements query.TableStatsSource over the local engine:
// histograms come from the engine's per-table statistics (sampled on
// reads), partition counts from a scan of partition keys (static rows only,
// seeking from partition to partition), cached for countTTL (Cassandra
// refreshes size_estimates every few minutes too) and capped at countCap
// partitions per table, beyond which the count is extrapolated from the
// share of the token ring scanned. The scan is unmetered
// (ReadCommand.Unmetered): the tables' read metrics leave it out. A
// partition count kept by the engine itself would avoid the scan.
type tableStats struct {
	engine *storage.Pebble
	// limit caps the partitions counted per table (countCap when 0).
	limit int

	mu     sync.Mutex
	counts map[[16]byte]countEntry
}

type countEntry struct {
	at     time.Time
	tokens []int64 // sorted tokens of the partitions scanned
	capped bool    // the scan stopped at countCap
}

const (
	countTTL  = time.Minute
	countCap  = 1_000_000
	countPage = 10_000
)

func summary(h *storage.Histogram) query.HistogramSummary {
	// Percentiles are bucket upper bounds: never report more than the
	// largest value recorded.
	pct := func(p float64) int64 { return min(h.Percentile(p), h.Max) }
	s := query.HistogramSummary{Count: h.Count(), P50: pct(0.5), P75: pct(0.75), P95: pct(0.95), P99: pct(0.99), Max: h.Max}
	if s.Count > 0 {
		// Mean over bucket upper bounds (values above the last bucket count
		// as the maximum), as Cassandra's EstimatedHistogram.mean.
		var sum float64
		for i, off := range h.Offsets() {
			sum += float64(h.Counts[i]) * float64(off)
		}
		sum += float64(h.Overflow) * float64(h.Max)
		s.Mean = int64(math.Ceil(sum / float64(s.Count)))
		if s.Mean > s.Max {
			s.Mean = s.Max
		}
	}
	return s
}

// TableStatistics implements query.TableStatsSource.
func (s *tableStats) TableStatistics(t *schema.Table) query.TableStatistics {
	st := s.engine.TableStats(t.ID)
	return query.TableStatistics{
		Reads:             st.Reads,
		PartitionSize:     summary(&st.PartitionSize),
		CellCount:         summary(&st.CellCount),
		TombstonesPerRead: summary(&st.TombstonesPerRead),
	}
}

// PartitionCounts implements query.TableStatsSource.
func (s *tableStats) PartitionCounts(t *schema.Table, ends []int64) []int64 {
	e := s.scan(t)
	out := make([]int64, len(ends))
	if len(ends) == 0 {
		return out
	}
	last := int64(math.MinInt64)
	if n := len(e.tokens); n > 0 {
		last = e.tokens[n-1]
	}
	for _, tok := range e.tokens {
		// First end >= tok; past the last end the range wraps to 0.
		i := sort.Search(len(ends), func(i int) bool { return ends[i] >= tok })
		if i == len(ends) {
			i = 0
		}
		out[i]++
	}
	if e.capped && len(e.tokens) > 0 {
		// Extrapolate the unscanned part of the ring (tokens > last) with
		// the density of the scanned part.
		density := float64(len(e.tokens)) / math.Max(float64(last)-math.MinInt64, 1)
		unscanned := func(lo, hi float64) float64 { // of (lo, hi]
			return math.Max(0, hi-math.Max(lo, float64(last)))
		}
		n := len(ends)
		for i := range ends {
			w := 0.0
			if i == 0 {
				w = unscanned(float64(ends[n-1]), math.MaxInt64) + unscanned(math.MinInt64, float64(ends[0]))
			} else {
				w = unscanned(float64(ends[i-1]), float64(ends[i]))
			}
			out[i] += int64(w * density)
		}
	}
	return out
}

// scan counts the partitions of t (cached for countTTL).
func (s *tableStats) scan(t *schema.Table) countEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil {
		s.counts = map[[16]byte]countEntry{}
	}
	if e, ok := s.counts[t.ID]; ok && time.Since(e.at) < countTTL {
		return e
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e := countEntry{at: time.Now()}
	cmd := &mutation.ReadCommand{TableID: t.ID, StartToken: math.MinInt64, EndToken: math.MinInt64,
		StaticOnly: true, PartitionLimit: countPage, NowSec: time.Now().Unix(), Unmetered: true}
	if s.limit > 0 && s.limit < countPage {
		cmd.PartitionLimit = s.limit
	}
	for {
		parts, err := s.engine.Read(ctx, t, cmd)
		if err != nil {
			break
		}
		for _, p := range parts {
			e.tokens = append(e.tokens, p.Token)
		}
		if len(parts) < cmd.PartitionLimit {
			break
		}
		if limit := s.limit; len(e.tokens) >= countCap || limit > 0 && len(e.tokens) >= limit {
			e.capped = true
			break
		}
		lastPart := parts[len(parts)-1]
		cmd.StartToken, cmd.StartKey, cmd.StartInclusive = lastPart.Token, lastPart.Key, false
	}
	s.counts[t.ID] = e
	return e
}
