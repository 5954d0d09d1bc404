package query

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// Versions reported by system.local.
const (
	ReleaseVersion        = "5.0.4"
	CQLVersion            = "3.4.7"
	NativeProtocolVersion = "5"
	PartitionerClass      = "org.apache.cassandra.dht.Murmur3Partitioner"
)

// virtualRow accumulates the cells of one virtual row.
type virtualRow struct {
	t          *schema.Table
	clustering [][]byte
	cells      []mutation.Cell
}

func (r *virtualRow) set(name string, v []byte) *virtualRow {
	if v == nil {
		return r
	}
	c := r.t.Column(name)
	if c == nil {
		panic("query: unknown virtual column " + name) // a programming error in this file
	}
	r.cells = append(r.cells, mutation.Cell{Column: c.ID, Value: v, LocalDeletionTime: mutation.NoDeletion})
	return r
}

// virtualTable builds the partitions of a virtual table.
type virtualTable struct {
	t     *schema.Table
	parts map[string]*mutation.Partition
	e     *Executor
}

func (v *virtualTable) row(pk []byte, clustering ...[]byte) *virtualRow {
	part := v.parts[string(pk)]
	if part == nil {
		part = &mutation.Partition{Key: pk, Token: v.e.tokenOf(v.t, pk)}
		v.parts[string(pk)] = part
	}
	part.Rows = append(part.Rows, mutation.Row{Clustering: clustering, Marker: mutation.Liveness{Timestamp: 0, LocalDeletionTime: mutation.NoDeletion}, Deletion: mutation.Live})
	return &virtualRow{t: v.t, clustering: clustering}
}

func (v *virtualTable) add(pk []byte, r *virtualRow) {
	part := v.parts[string(pk)]
	sortCells(r.cells)
	part.Rows[len(part.Rows)-1].Cells = r.cells
}

func text(s string) []byte { return types.EncodeText(s) }

func textMap(m map[string]string) []byte {
	keys := make([][]byte, 0, len(m))
	vals := make([][]byte, 0, len(m))
	for _, k := range sortedKeys(m) {
		keys = append(keys, text(k))
		vals = append(vals, text(m[k]))
	}
	return types.EncodeMap(types.TextType, keys, vals)
}

func blobMap(m map[string][]byte) []byte {
	keys := make([][]byte, 0, len(m))
	vals := make([][]byte, 0, len(m))
	for _, k := range sortedKeys(m) {
		keys = append(keys, text(k))
		vals = append(vals, m[k])
	}
	return types.EncodeMap(types.TextType, keys, vals)
}

// virtualPartitions generates the current content of a virtual table.
func (e *Executor) virtualPartitions(t *schema.Table) []mutation.Partition {
	s := e.cfg.Schema.Current()
	v := &virtualTable{t: t, parts: map[string]*mutation.Partition{}, e: e}
	addRow := func(pk []byte, fill func(r *virtualRow), clustering ...[]byte) {
		r := v.row(pk, clustering...)
		fill(r)
		v.add(pk, r)
	}
	switch t.Keyspace + "." + t.Name {
	case "system.local":
		info := LocalInfo{}
		if e.cfg.Node != nil {
			info = e.cfg.Node.Local()
		}
		tokens := make([][]byte, len(info.Tokens))
		for i, tok := range info.Tokens {
			tokens[i] = text(strconv.FormatInt(tok, 10))
		}
		addRow(text("local"), func(r *virtualRow) {
			r.set("bootstrapped", text("COMPLETED")).
				set("broadcast_address", info.ListenAddress).
				set("broadcast_port", types.EncodeInt(int32(info.ListenPort))).
				set("cluster_name", text(info.ClusterName)).
				set("cql_version", text(CQLVersion)).
				set("data_center", text(info.DataCenter)).
				set("gossip_generation", types.EncodeInt(info.GossipGeneration)).
				set("host_id", info.HostID[:]).
				set("listen_address", info.ListenAddress).
				set("listen_port", types.EncodeInt(int32(info.ListenPort))).
				set("native_protocol_version", text(NativeProtocolVersion)).
				set("partitioner", text(PartitionerClass)).
				set("rack", text(info.Rack)).
				set("release_version", text(info.ReleaseVersion)).
				set("rpc_address", info.RPCAddress).
				set("rpc_port", types.EncodeInt(int32(info.NativePort))).
				set("schema_version", s.Version[:]).
				set("tokens", types.EncodeSet(types.TextType, tokens))
		})
	case "system.peers", "system.peers_v2":
		// A cluster of one has no peers.
	case "system.IndexInfo":
		// SystemKeyspace.setIndexBuilt keys the row by keyspace (the
		// column's name is historical) and leaves value null.
		for _, tt := range s.Tables(false) {
			for _, ix := range tt.Indexes {
				addRow(text(tt.Keyspace), func(*virtualRow) {}, text(ix.Name))
			}
		}
	case "system.built_views":
		for _, v := range s.Tables(false) {
			if v.IsView() {
				addRow(text(v.Keyspace), func(r *virtualRow) {
					r.set("status_replicated", types.EncodeBoolean(true))
				}, text(v.Name))
			}
		}
	case "system.view_builds_in_progress":
		// Views are built before CREATE MATERIALIZED VIEW returns.
	case "system.size_estimates", "system.table_estimates", schema.SystemViews + ".cqld_table_histograms":
		e.addTableStatsRows(v, s, addRow)
	default:
		if t.Keyspace == schema.SystemViews {
			e.addSystemViewsRows(v, s, addRow)
		}
	case "system_schema.keyspaces":
		for _, name := range s.KeyspaceNames() {
			ks := s.Keyspaces[name]
			if ks.Virtual {
				continue
			}
			addRow(text(name), func(r *virtualRow) {
				r.set("durable_writes", types.EncodeBoolean(ks.DurableWrites)).
					set("replication", textMap(ks.Replication))
			})
		}
	case "system_schema.tables":
		for _, tt := range s.Tables(false) {
			if tt.IsView() {
				continue
			}
			addRow(text(tt.Keyspace), func(r *virtualRow) {
				setTableParams(r, tt)
				flags := [][]byte{text("compound")}
				if tt.IsCounter {
					flags = append(flags, text("counter"))
				}
				r.set("flags", types.EncodeSet(types.TextType, flags))
			}, text(tt.Name))
		}
	case "system_schema.columns", "system_virtual_schema.columns":
		for _, tt := range s.Tables(t.Keyspace == schema.SystemVirtualSchema) {
			cols := append([]*schema.Column(nil), tt.Columns...)
			sort.Slice(cols, func(i, j int) bool { return cols[i].Name < cols[j].Name })
			for _, c := range cols {
				addRow(text(tt.Keyspace), func(r *virtualRow) {
					r.set("clustering_order", text(c.ClusteringOrder())).
						set("column_name_bytes", []byte(c.Name)).
						set("kind", text(c.Kind.String())).
						set("position", types.EncodeInt(int32(c.Position))).
						set("type", text(c.Type.String()))
				}, text(tt.Name), text(c.Name))
			}
		}
	case "system_schema.column_masks":
		for _, tt := range s.Tables(false) {
			for _, c := range tt.Columns {
				if m := c.Mask; m != nil {
					addRow(text(tt.Keyspace), func(r *virtualRow) { setColumnMask(r, m) }, text(tt.Name), text(c.Name))
				}
			}
		}
	case "system_schema.views":
		for _, v := range s.Tables(false) {
			if !v.IsView() {
				continue
			}
			addRow(text(v.Keyspace), func(r *virtualRow) {
				setTableParams(r, v)
				r.set("base_table_id", v.View.BaseID[:]).
					set("base_table_name", text(v.View.BaseName)).
					set("include_all_columns", types.EncodeBoolean(v.View.IncludeAll)).
					set("where_clause", text(v.View.Where))
			}, text(v.Name))
		}
	case "system_schema.indexes":
		for _, tt := range s.Tables(false) {
			for _, ix := range tt.Indexes {
				addRow(text(tt.Keyspace), func(r *virtualRow) {
					r.set("kind", text(ix.Kind())).set("options", textMap(ix.SchemaOptions()))
				}, text(tt.Name), text(ix.Name))
			}
		}
	case "system_schema.dropped_columns":
		for _, tt := range s.Tables(false) {
			for _, d := range tt.Dropped {
				addRow(text(tt.Keyspace), func(r *virtualRow) {
					r.set("dropped_time", types.EncodeTimestampMillis(d.DroppedTime/1000)).
						set("kind", text(d.Kind.String())).
						set("type", text(d.Type.String()))
				}, text(tt.Name), text(d.Name))
			}
		}
	case "system_schema.types":
		for _, name := range s.KeyspaceNames() {
			ks := s.Keyspaces[name]
			if ks.Virtual {
				continue
			}
			for _, tn := range ks.TypeNames() {
				ut := ks.Types[tn]
				fieldNames := make([][]byte, len(ut.FieldNames))
				fieldTypes := make([][]byte, len(ut.Params))
				for i, f := range ut.FieldNames {
					fieldNames[i] = text(f)
				}
				for i, p := range ut.Params {
					fieldTypes[i] = text(p.String())
				}
				addRow(text(name), func(r *virtualRow) {
					r.set("field_names", types.EncodeList(fieldNames)).
						set("field_types", types.EncodeList(fieldTypes))
				}, text(tn))
			}
		}
	case "system_virtual_schema.keyspaces":
		for _, name := range s.KeyspaceNames() {
			if s.Keyspaces[name].Virtual {
				addRow(text(name), func(*virtualRow) {})
			}
		}
	case "system_virtual_schema.tables":
		for _, name := range s.KeyspaceNames() {
			ks := s.Keyspaces[name]
			if !ks.Virtual {
				continue
			}
			for _, tn := range ks.TableNames() {
				comment := ks.Tables[tn].Params.Comment
				addRow(text(name), func(r *virtualRow) { r.set("comment", text(comment)) }, text(tn))
			}
		}
	}
	out := make([]mutation.Partition, 0, len(v.parts))
	for _, p := range v.parts {
		sort.SliceStable(p.Rows, func(i, j int) bool {
			return t.CompareClustering(p.Rows[i].Clustering, p.Rows[j].Clustering) < 0
		})
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Token != out[j].Token {
			return out[i].Token < out[j].Token
		}
		return compareKeys(t, out[i].Key, out[j].Key) < 0
	})
	return out
}

func setTableParams(r *virtualRow, t *schema.Table) {
	p := t.Params
	r.set("additional_write_policy", text(p.AdditionalWritePolicy)).
		set("allow_auto_snapshot", types.EncodeBoolean(p.AllowAutoSnapshot)).
		set("bloom_filter_fp_chance", types.EncodeDouble(p.BloomFilterFPChance)).
		set("caching", textMap(p.Caching)).
		set("cdc", types.EncodeBoolean(p.CDC)).
		set("comment", text(p.Comment)).
		set("compaction", textMap(p.Compaction)).
		set("compression", textMap(p.Compression)).
		set("crc_check_chance", types.EncodeDouble(p.CRCCheckChance)).
		set("default_time_to_live", types.EncodeInt(p.DefaultTimeToLive)).
		set("extensions", blobMap(p.Extensions)).
		set("gc_grace_seconds", types.EncodeInt(p.GCGraceSeconds)).
		set("id", t.ID[:]).
		set("incremental_backups", types.EncodeBoolean(p.Incremental)).
		set("max_index_interval", types.EncodeInt(p.MaxIndexInterval)).
		set("memtable", text(p.Memtable)).
		set("memtable_flush_period_in_ms", types.EncodeInt(p.MemtableFlushPeriodInMs)).
		set("min_index_interval", types.EncodeInt(p.MinIndexInterval)).
		set("read_repair", text(p.ReadRepair)).
		set("speculative_retry", text(p.SpeculativeRetry))
}

// virtualRead applies a read command to a virtual table, with the same
// semantics the storage engines implement.
func (e *Executor) virtualRead(t *schema.Table, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	all := e.virtualPartitions(t)
	var out []mutation.Partition
	rows := 0
	for _, p := range all {
		if cmd.Key != nil {
			if !bytes.Equal(p.Key, cmd.Key) {
				continue
			}
		} else {
			if p.Token < cmd.StartToken || p.Token > cmd.EndToken {
				continue
			}
			if p.Token == cmd.StartToken {
				if cmd.StartKey == nil {
					continue
				}
				c := compareKeys(t, p.Key, cmd.StartKey)
				if c < 0 || (c == 0 && !cmd.StartInclusive) {
					continue
				}
			}
		}
		var kept []mutation.Row
		for _, r := range p.Rows {
			if cmd.Slices == nil || inSlices(t, cmd.Slices, r.Clustering) {
				kept = append(kept, r)
			}
		}
		if cmd.Reversed {
			for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
				kept[i], kept[j] = kept[j], kept[i]
			}
		}
		if cmd.PerPartitionLimit > 0 && len(kept) > cmd.PerPartitionLimit {
			kept = kept[:cmd.PerPartitionLimit]
		}
		if cmd.RowLimit > 0 && rows+len(kept) > cmd.RowLimit {
			kept = kept[:cmd.RowLimit-rows]
		}
		if len(kept) == 0 {
			continue
		}
		rows += len(kept)
		p.Rows = kept
		out = append(out, p)
		if (cmd.RowLimit > 0 && rows >= cmd.RowLimit) || (cmd.PartitionLimit > 0 && len(out) >= cmd.PartitionLimit) {
			break
		}
	}
	return out, nil
}

// inSlices reports whether clustering c is inside one of the slices.
func inSlices(t *schema.Table, slices []mutation.Slice, c [][]byte) bool {
	for _, s := range slices {
		if len(s.Start.Values) > 0 {
			cmp := t.CompareClustering(c, s.Start.Values)
			if cmp < 0 || (cmp == 0 && !s.Start.Inclusive) {
				continue
			}
		}
		if len(s.End.Values) > 0 {
			cmp := t.CompareClustering(c, s.End.Values)
			if cmp > 0 || (cmp == 0 && !s.End.Inclusive) {
				continue
			}
		}
		return true
	}
	return false
}

// setColumnMask fills a system_schema.column_masks row.
func setColumnMask(r *virtualRow, m *schema.ColumnMask) {
	var argTypes, argValues, argNulls [][]byte
	for i, v := range m.Args {
		argTypes = append(argTypes, text(m.ArgTypes[i]))
		argNulls = append(argNulls, types.EncodeBoolean(v == nil))
		s := ""
		if t, err := types.ParseTypeString(m.ArgTypes[i]); err == nil && v != nil {
			s = types.Format(t, v)
		}
		argValues = append(argValues, text(s))
	}
	r.set("function_keyspace", text("system")).
		set("function_name", text(m.Function)).
		set("function_argument_types", types.EncodeList(argTypes)).
		set("function_argument_values", types.EncodeList(argValues)).
		set("function_argument_nulls", types.EncodeList(argNulls))
}
