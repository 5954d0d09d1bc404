package admin

// Wire types of the admin API (JSON).

// Info is GET /nodetool/v1/info.
type Info struct {
	HostID      string `json:"host_id"`
	ClusterName string `json:"cluster_name"`
	// Address and RPCAddress are listen_address and rpc_address as Java
	// prints them (InetAddress.getHostAddress).
	Address               string  `json:"address"`
	StoragePort           int     `json:"storage_port"`
	RPCAddress            string  `json:"rpc_address"`
	NativeAddress         string  `json:"native_address"`
	ReleaseVersion        string  `json:"release_version"`
	NativeTransportActive bool    `json:"native_transport_active"`
	LoadBytes             uint64  `json:"load_bytes"`
	Generation            int32   `json:"generation"`
	UptimeSeconds         int64   `json:"uptime_seconds"`
	HeapUsedMB            float64 `json:"heap_used_mb"`
	HeapTotalMB           float64 `json:"heap_total_mb"`
	OffHeapMB             float64 `json:"off_heap_mb"`
	DataCenter            string  `json:"data_center"`
	Rack                  string  `json:"rack"`
	Tokens                []int64 `json:"tokens"`
	BlockCacheBytes       int64   `json:"block_cache_bytes"`
	BlockCacheCapacity    int64   `json:"block_cache_capacity"`
	BlockCacheHits        int64   `json:"block_cache_hits"`
	BlockCacheMisses      int64   `json:"block_cache_misses"`
	// The partition cache, shown as Cassandra's row cache.
	RowCacheEntries  int64 `json:"row_cache_entries"`
	RowCacheBytes    int64 `json:"row_cache_bytes"`
	RowCacheCapacity int64 `json:"row_cache_capacity"`
	RowCacheHits     int64 `json:"row_cache_hits"`
	RowCacheMisses   int64 `json:"row_cache_misses"`
}

// TableStats is one table of GET /nodetool/v1/tablestats.
type TableStats struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`

	SSTables         int     `json:"sstables"`
	SpaceUsedLive    uint64  `json:"space_used_live"`
	MaxSSTableBytes  uint64  `json:"max_sstable_bytes"`
	BloomFilterBytes uint64  `json:"bloom_filter_bytes"`
	CompressionRatio float64 `json:"compression_ratio"` // -1 without sstables
	// SnapshotsBytes is the size of the table's snapshots' sstables that
	// are no longer live.
	SnapshotsBytes int64 `json:"snapshots_bytes"`

	Partitions            int64   `json:"partitions"`
	MinPartitionBytes     int64   `json:"min_partition_bytes"`
	MaxPartitionBytes     int64   `json:"max_partition_bytes"`
	MeanPartitionBytes    int64   `json:"mean_partition_bytes"`
	DroppableTombstoneRat float64 `json:"droppable_tombstone_ratio"`

	ReadCount    int64 `json:"read_count"`
	ReadMicros   int64 `json:"read_micros"`
	WriteCount   int64 `json:"write_count"`
	WriteMicros  int64 `json:"write_micros"`
	SliceReads   int64 `json:"slice_reads"`
	LiveCells    int64 `json:"live_cells_total"`
	MaxLiveCells int64 `json:"max_live_cells"`
	Tombstones   int64 `json:"tombstones_total"`
	MaxTombstone int64 `json:"max_tombstones"`
}

// Histograms is GET /nodetool/v1/tablehistograms: one row per percentile
// (50%, 75%, 95%, 98%, 99%, Min, Max).
type Histograms struct {
	Keyspace string         `json:"keyspace"`
	Table    string         `json:"table"`
	Rows     []HistogramRow `json:"rows"`
}

// HistogramRow is one line of nodetool tablehistograms.
type HistogramRow struct {
	Percentile    string  `json:"percentile"`
	ReadLatency   float64 `json:"read_latency_micros"`
	WriteLatency  float64 `json:"write_latency_micros"`
	SSTables      float64 `json:"sstables"`
	PartitionSize int64   `json:"partition_size"`
	CellCount     int64   `json:"cell_count"`
}

// TraceProbability is GET and POST /nodetool/v1/traceprobability.
type TraceProbability struct {
	Probability float64 `json:"probability"`
}

type errorBody struct {
	Error string `json:"error"`
}

// Snapshots is GET /nodetool/v1/snapshots.
type Snapshots struct {
	Snapshots []SnapshotInfo `json:"snapshots"`
	// TrueDiskSpaceUsed is the size of the snapshots' sstables that are
	// no longer live, over the existing tables.
	TrueDiskSpaceUsed int64 `json:"true_disk_space_used"`
}

// SnapshotInfo is one snapshot of one table.
type SnapshotInfo struct {
	Tag        string `json:"tag"`
	Keyspace   string `json:"keyspace"`
	Table      string `json:"table"`
	TrueSize   int64  `json:"true_size"`
	SizeOnDisk int64  `json:"size_on_disk"`
	// CreatedAt and ExpiresAt are milliseconds since the epoch;
	// ExpiresAt is 0 without a TTL.
	CreatedAt int64 `json:"created_at"`
	ExpiresAt int64 `json:"expires_at,omitempty"`
	Ephemeral bool  `json:"ephemeral"`
}

// ImportResult is POST /nodetool/v1/import.
type ImportResult struct {
	// Failed lists the directories that could not be imported.
	Failed []string `json:"failed"`
}
