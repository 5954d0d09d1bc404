package storage

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// Per-table statistics (nodetool tablehistograms, tablestats, guardrails,
// the advisor), sampled on reads: every read records the tombstones it
// scanned and the live cells it returned, and every read that covers a whole
// partition (no clustering restriction, no limit reached) records that
// partition's stored size and cell count. The cost is a few atomic adds per
// read; nothing is read for the sake of statistics. Cassandra computes its
// partition histograms at flush and compaction instead: ours describe the
// partitions the workload reads.

// histogramBuckets is the number of buckets of a Histogram (Cassandra's
// EstimatedHistogram for cell counts uses 114, enough for 2^30-scale values).
const histogramBuckets = 114

// histogramOffsets are Cassandra's EstimatedHistogram bucket offsets: 1, 2,
// 3, ... each the previous times 1.2 rounded (at least previous + 1).
var histogramOffsets = func() [histogramBuckets]int64 {
	var o [histogramBuckets]int64
	last := int64(1)
	o[0] = last
	for i := 1; i < histogramBuckets; i++ {
		next := int64(math.Round(float64(last) * 1.2))
		if next == last {
			next++
		}
		o[i] = next
		last = next
	}
	return o
}()

// Histogram is a snapshot of an estimated histogram: Counts[i] values were
// <= Offsets[i] (and > Offsets[i-1]); Overflow values exceeded the last
// offset.
type Histogram struct {
	Counts   [histogramBuckets]int64
	Overflow int64
	Max      int64
}

// Min returns the bucket upper bound of the smallest recorded value (0
// when empty).
func (h *Histogram) Min() int64 {
	for i, c := range h.Counts {
		if c > 0 {
			return histogramOffsets[i]
		}
	}
	if h.Overflow > 0 {
		return h.Max
	}
	return 0
}

// MaxBucket returns the bucket upper bound of the largest recorded value,
// as Cassandra reports maxima (0 when empty).
func (h *Histogram) MaxBucket() int64 {
	if h.Overflow > 0 {
		return h.Max
	}
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			return histogramOffsets[i]
		}
	}
	return 0
}

// Offsets returns the bucket upper bounds.
func (h *Histogram) Offsets() []int64 { return histogramOffsets[:] }

// Count returns the number of recorded values.
func (h *Histogram) Count() int64 {
	n := h.Overflow
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Percentile returns the bucket upper bound under which a fraction p
// (0..1) of the values fall, as Cassandra's EstimatedHistogram.percentile
// (0 when empty; Max when in the overflow bucket).
func (h *Histogram) Percentile(p float64) int64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	target := int64(math.Ceil(float64(n) * p))
	if target < 1 {
		target = 1
	}
	var cum int64
	for i, c := range h.Counts {
		cum += c
		if cum >= target {
			return histogramOffsets[i]
		}
	}
	return h.Max
}

type atomicHistogram struct {
	counts   [histogramBuckets]atomic.Int64
	overflow atomic.Int64
	max      atomic.Int64
}

func bucketOf(v int64) int {
	// Binary search the first offset >= v.
	lo, hi := 0, histogramBuckets
	for lo < hi {
		m := (lo + hi) / 2
		if histogramOffsets[m] >= v {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func (h *atomicHistogram) add(v int64) {
	if i := bucketOf(v); i < histogramBuckets {
		h.counts[i].Add(1)
	} else {
		h.overflow.Add(1)
	}
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

func (h *atomicHistogram) snapshot() Histogram {
	var s Histogram
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
	}
	s.Overflow, s.Max = h.overflow.Load(), h.max.Load()
	return s
}

// Stats is a snapshot of a table's statistics.
type Stats struct {
	// Reads is the number of reads (each partition of a range read counts
	// as one).
	Reads int64
	// PartitionSize is the stored size in bytes (keys and values) of
	// partitions read in full; CellCount their stored cell count (cells,
	// markers and tombstones).
	PartitionSize Histogram
	CellCount     Histogram
	// TombstonesPerRead counts the tombstones each read command scanned
	// (ReadInfo.TombstonesScanned), RowsPerRead the live rows it returned:
	// Cassandra's tombstoneScannedHistogram and liveScannedHistogram.
	TombstonesPerRead Histogram
	RowsPerRead       Histogram
	// Read times single-partition read commands, Scan range read
	// commands and Write Applies (reads and scans sampled, see
	// readSampleEvery; their counts are exact).
	Read, Scan, Write TimerSnapshot
}

type tableStats struct {
	reads                    atomic.Int64
	size, cells              atomicHistogram
	tombstonesRead, rowsRead atomicHistogram

	// point and scan time single-partition and range reads, write
	// Applies.
	point, scan, write Timer
}

// Timer counts operations and records the latencies of those timed
// (storage's reads and writes, the coordinator's).
type Timer struct {
	ops, timed, micros atomic.Int64
	hist               atomicHistogram
}

// TimerSnapshot is what a Timer counted: Ops operations, the latencies in
// microseconds of those timed, and the estimated total of all latencies.
type TimerSnapshot struct {
	Ops     int64
	Latency Histogram
	Micros  int64
}

// readSampleEvery: one read in readSampleEvery of a table is timed for
// the latency statistics (the first one always): reading the clock twice
// was ~3% of a cached point read. Read counts stay exact; the latency
// histogram holds the samples and the mean is theirs.
const readSampleEvery = 8

// StartSampled counts an operation and, when it is one of the one in
// readSampleEvery that are timed, returns its start time (the zero time
// otherwise); StopSampled records it.
func (l *Timer) StartSampled() time.Time {
	if l.ops.Add(1)%readSampleEvery != 1 {
		return time.Time{}
	}
	return time.Now()
}

// StopSampled records the latency of an operation StartSampled timed.
func (l *Timer) StopSampled(start time.Time) {
	if !start.IsZero() {
		l.recordTimed(time.Since(start))
	}
}

func (l *Timer) recordTimed(d time.Duration) {
	us := d.Microseconds()
	l.timed.Add(1)
	l.micros.Add(us)
	l.hist.add(us)
}

// Record counts an operation and records its latency.
func (l *Timer) Record(d time.Duration) {
	l.ops.Add(1)
	l.recordTimed(d)
}

// Snapshot returns what the timer counted. Micros is estimated from the
// timed operations.
func (l *Timer) Snapshot() TimerSnapshot {
	micros, timed, ops := l.micros.Load(), l.timed.Load(), l.ops.Load()
	if timed > 0 && timed != ops {
		micros = int64(float64(micros) * float64(ops) / float64(timed))
	}
	return TimerSnapshot{Ops: ops, Latency: l.hist.snapshot(), Micros: micros}
}

type tableStatsMap struct{ m sync.Map } // [16]byte -> *tableStats

func (s *tableStatsMap) get(id [16]byte) *tableStats {
	if v, ok := s.m.Load(id); ok {
		return v.(*tableStats)
	}
	v, _ := s.m.LoadOrStore(id, &tableStats{})
	return v.(*tableStats)
}

// TableStats returns the statistics of the table with the given id since
// the engine was opened.
func (p *Pebble) TableStats(id uuid.UUID) Stats {
	v, ok := p.stats.m.Load([16]byte(id))
	if !ok {
		return Stats{}
	}
	ts := v.(*tableStats)
	return Stats{
		Reads:             ts.reads.Load(),
		PartitionSize:     ts.size.snapshot(),
		CellCount:         ts.cells.snapshot(),
		TombstonesPerRead: ts.tombstonesRead.snapshot(),
		RowsPerRead:       ts.rowsRead.snapshot(),
		Read:              ts.point.Snapshot(),
		Scan:              ts.scan.Snapshot(),
		Write:             ts.write.Snapshot(),
	}
}

// partitionScan counts what a read of one partition scanned.
type partitionScan struct {
	bytes, cells, tombstones int64
}

func (ts *tableStats) record(s *partitionScan, whole bool) {
	ts.reads.Add(1)
	if whole {
		ts.size.add(s.bytes)
		ts.cells.add(s.cells)
	}
}
