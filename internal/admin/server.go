package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/cqld/cqld/internal/node"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/storage"
	"github.com/cqld/cqld/internal/types"
	"github.com/google/uuid"
)

// apiPrefix is the path prefix of the admin API.
const apiPrefix = "/nodetool/v1/"

// Register mounts the admin API on the node's admin port.
func Register(n *node.Node) {
	s := &server{n: n}
	n.HandleAdmin("GET "+apiPrefix+"info", s.handle(s.info))
	n.HandleAdmin("GET "+apiPrefix+"tablestats", s.handle(s.tablestats))
	n.HandleAdmin("GET "+apiPrefix+"tablehistograms", s.handle(s.tablehistograms))
	n.HandleAdmin("POST "+apiPrefix+"flush", s.handle(s.flush))
	n.HandleAdmin("POST "+apiPrefix+"compact", s.handle(s.compact))
	n.HandleAdmin("POST "+apiPrefix+"garbagecollect", s.handle(s.garbagecollect))
	n.HandleAdmin("POST "+apiPrefix+"drain", s.handle(s.drain))
	n.HandleAdmin("GET "+apiPrefix+"traceprobability", s.handle(s.getTraceProbability))
	n.HandleAdmin("POST "+apiPrefix+"traceprobability", s.handle(s.setTraceProbability))
	n.HandleAdmin("POST "+apiPrefix+"snapshot", s.handle(s.takeSnapshot))
	n.HandleAdmin("GET "+apiPrefix+"snapshots", s.handle(s.listSnapshots))
	n.HandleAdmin("POST "+apiPrefix+"clearsnapshot", s.handle(s.clearSnapshot))
	n.HandleAdmin("POST "+apiPrefix+"import", s.handle(s.importSnapshot))
	n.HandleAdmin("GET "+apiPrefix+"ring", s.handle(s.ring))
	n.HandleAdmin("GET "+apiPrefix+"endpoints", s.handle(s.endpoints))
}

func (s *server) getTraceProbability(*http.Request) (any, error) {
	return &TraceProbability{Probability: s.n.TraceProbability()}, nil
}

// setTraceProbability takes the probability as the query parameter
// probability, between 0 and 1.
func (s *server) setTraceProbability(r *http.Request) (any, error) {
	p, err := strconv.ParseFloat(r.URL.Query().Get("probability"), 64)
	if err != nil || !(p >= 0 && p <= 1) {
		return nil, badRequest("Trace probability must be between 0 and 1")
	}
	s.n.SetTraceProbability(p)
	return nil, nil
}

type server struct{ n *node.Node }

// apiError is an error with an HTTP status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func (s *server) handle(fn func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		v, err := fn(r)
		if err != nil {
			status := http.StatusInternalServerError
			if ae, ok := err.(*apiError); ok {
				status = ae.status
			}
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(errorBody{Error: err.Error()})
			return
		}
		if v == nil {
			v = struct{}{}
		}
		_ = json.NewEncoder(w).Encode(v)
	})
}

// tables resolves the keyspace and table query parameters as nodetool does:
// no keyspace means every keyspace, no table every table of the keyspace.
// Virtual keyspaces and tables (served by the node, not stored) are left
// out.
func (s *server) tables(r *http.Request) ([]*schema.Table, error) {
	q := r.URL.Query()
	ksName := q.Get("keyspace")
	names := q["table"]
	sc := s.n.Schema().Current()
	var out []*schema.Table
	if ksName == "" {
		if len(names) > 0 {
			return nil, badRequest("a table needs a keyspace")
		}
		for _, t := range sc.Tables(false) {
			if !t.Virtual {
				out = append(out, t)
			}
		}
		return out, nil
	}
	ks := sc.Keyspace(ksName)
	if ks == nil {
		return nil, badRequest("Keyspace [%s] does not exist.", ksName)
	}
	if len(names) == 0 {
		names = ks.TableNames()
	}
	for _, tn := range names {
		t := ks.Table(tn)
		if t == nil {
			return nil, badRequest("Unknown keyspace/cf pair (%s.%s)", ksName, tn)
		}
		if !t.Virtual && !ks.Virtual {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *server) info(r *http.Request) (any, error) {
	local := s.n.Local()
	e := s.n.Engine()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := e.Metrics()
	info := &Info{
		HostID:                uuid.UUID(local.HostID).String(),
		ClusterName:           local.ClusterName,
		Address:               types.JavaHostAddress(local.ListenAddress),
		StoragePort:           local.ListenPort,
		RPCAddress:            types.JavaHostAddress(local.RPCAddress),
		NativeAddress:         s.n.NativeAddr().String(),
		ReleaseVersion:        local.ReleaseVersion,
		NativeTransportActive: !s.n.Drained(),
		LoadBytes:             m.DiskSpaceUsage(),
		Generation:            local.GossipGeneration,
		UptimeSeconds:         int64(time.Since(s.n.StartTime()).Seconds()),
		HeapUsedMB:            float64(ms.HeapAlloc) / (1 << 20),
		HeapTotalMB:           float64(ms.HeapSys) / (1 << 20),
		OffHeapMB:             float64(m.BlockCache.Size+int64(m.MemTable.Size)) / (1 << 20),
		DataCenter:            local.DataCenter,
		Rack:                  local.Rack,
		Tokens:                append([]int64(nil), local.Tokens...),
		BlockCacheBytes:       m.BlockCache.Size,
		BlockCacheHits:        m.BlockCache.Hits,
		BlockCacheMisses:      m.BlockCache.Misses,
	}
	pc := e.PartitionCacheStats()
	info.RowCacheEntries, info.RowCacheBytes, info.RowCacheCapacity = pc.Entries, pc.Bytes, pc.Capacity
	info.RowCacheHits, info.RowCacheMisses = pc.Hits, pc.Misses
	sort.Slice(info.Tokens, func(i, j int) bool { return info.Tokens[i] < info.Tokens[j] })
	return info, nil
}

func (s *server) tablestats(r *http.Request) (any, error) {
	ts, err := s.tables(r)
	if err != nil {
		return nil, err
	}
	e := s.n.Engine()
	out := make([]TableStats, 0, len(ts))
	for _, t := range ts {
		disk, err := e.TableDiskStats(t.ID)
		if err != nil {
			return nil, err
		}
		sum, err := e.ScanPartitions(r.Context(), t)
		if err != nil {
			return nil, err
		}
		st := e.TableStats(t.ID)
		row := TableStats{
			Keyspace: t.Keyspace, Table: t.Name,
			SSTables: disk.SSTables, SpaceUsedLive: disk.LiveBytes, MaxSSTableBytes: disk.MaxSSTableBytes,
			BloomFilterBytes: disk.FilterBytes, CompressionRatio: -1,
			Partitions:        sum.Partitions,
			MinPartitionBytes: sum.Size.Min(), MaxPartitionBytes: sum.Size.MaxBucket(),
			ReadCount: st.Read.Ops, ReadMicros: st.Read.Micros, WriteCount: st.Write.Ops, WriteMicros: st.Write.Micros,
			// Per read command, from bucket bounds (so that the mean
			// never exceeds the maximum), as TableStatsHolder reads
			// liveScannedHistogram and tombstoneScannedHistogram.
			SliceReads: st.RowsPerRead.Count(), MaxLiveCells: st.RowsPerRead.MaxBucket(),
			LiveCells: histogramSum(&st.RowsPerRead), Tombstones: histogramSum(&st.TombstonesPerRead),
			MaxTombstone:   st.TombstonesPerRead.MaxBucket(),
			SnapshotsBytes: s.n.Snapshots().TrueSnapshotsSize(t),
		}
		if disk.RawDataBytes > 0 {
			row.CompressionRatio = float64(disk.DataBytes) / float64(disk.RawDataBytes)
		}
		if sum.Partitions > 0 {
			row.MeanPartitionBytes = sum.TotalSize / sum.Partitions
		}
		if sum.Entries > 0 {
			row.DroppableTombstoneRat = float64(sum.Tombstones) / float64(sum.Entries)
		}
		out = append(out, row)
	}
	return out, nil
}

// histogramSum estimates the sum of the recorded values from the bucket
// upper bounds (the histograms keep counts, not sums), as
// EstimatedHistogram's mean does; values past the last bucket count as
// the maximum.
func histogramSum(h *storage.Histogram) int64 {
	var sum int64
	off := h.Offsets()
	for i, c := range h.Counts {
		sum += c * off[i]
	}
	return sum + h.Overflow*h.Max
}

func (s *server) tablehistograms(r *http.Request) (any, error) {
	q := r.URL.Query()
	if q.Get("keyspace") == "" || len(q["table"]) != 1 {
		return nil, badRequest("tablehistograms requires keyspace and table name arguments")
	}
	ts, err := s.tables(r)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, badRequest("Unknown keyspace/cf pair (%s.%s)", q.Get("keyspace"), q["table"][0])
	}
	t := ts[0]
	e := s.n.Engine()
	sum, err := e.ScanPartitions(r.Context(), t)
	if err != nil {
		return nil, err
	}
	st := e.TableStats(t.ID)
	h := &Histograms{Keyspace: t.Keyspace, Table: t.Name}
	for _, p := range []struct {
		name string
		q    float64
	}{{"50%", 0.5}, {"75%", 0.75}, {"95%", 0.95}, {"98%", 0.98}, {"99%", 0.99}} {
		h.Rows = append(h.Rows, HistogramRow{Percentile: p.name,
			ReadLatency: float64(st.Read.Latency.Percentile(p.q)), WriteLatency: float64(st.Write.Latency.Percentile(p.q)),
			PartitionSize: sum.Size.Percentile(p.q), CellCount: sum.Cells.Percentile(p.q)})
	}
	h.Rows = append(h.Rows,
		HistogramRow{Percentile: "Min", ReadLatency: float64(st.Read.Latency.Min()), WriteLatency: float64(st.Write.Latency.Min()),
			PartitionSize: sum.Size.Min(), CellCount: sum.Cells.Min()},
		HistogramRow{Percentile: "Max", ReadLatency: float64(st.Read.Latency.MaxBucket()), WriteLatency: float64(st.Write.Latency.MaxBucket()),
			PartitionSize: sum.Size.MaxBucket(), CellCount: sum.Cells.MaxBucket()})
	return h, nil
}

func (s *server) flush(r *http.Request) (any, error) {
	if _, err := s.tables(r); err != nil {
		return nil, err
	}
	// Pebble's memtables are shared by all tables: flushing one flushes all.
	return nil, s.n.Engine().Flush()
}

func (s *server) compact(r *http.Request) (any, error) {
	ts, err := s.tables(r)
	if err != nil {
		return nil, err
	}
	e := s.n.Engine()
	if r.URL.Query().Get("keyspace") == "" {
		if err := e.Flush(); err != nil {
			return nil, err
		}
		return nil, e.Compact(r.Context())
	}
	return nil, compactTables(r.Context(), e, ts)
}

func compactTables(ctx context.Context, e *storage.Pebble, ts []*schema.Table) error {
	if err := e.Flush(); err != nil {
		return err
	}
	for _, t := range ts {
		if err := e.CompactTable(ctx, t.ID); err != nil {
			return err
		}
	}
	return nil
}

// garbagecollect purges the tombstones older than gc_grace_seconds (with
// what they shadow) and compacts the tables, so the space is freed.
func (s *server) garbagecollect(r *http.Request) (any, error) {
	ts, err := s.tables(r)
	if err != nil {
		return nil, err
	}
	e := s.n.Engine()
	now := time.Now().Unix()
	for _, t := range ts {
		if _, err := e.Purge(r.Context(), t, now); err != nil {
			return nil, err
		}
	}
	return nil, compactTables(r.Context(), e, ts)
}

func (s *server) drain(r *http.Request) (any, error) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	return nil, s.n.Drain(ctx)
}
