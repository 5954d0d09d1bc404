package query

import (
	"context"
	"encoding/binary"
	"math"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/cqld/cqld/internal/types"
)

// Secondary indexes (CREATE INDEX, and CREATE CUSTOM INDEX ... USING 'sai').
//
// An index is a hidden table (schema.Index.Table): partition key = indexed
// value, clustering = (base token, base partition key, base clustering).
// Writes add entries before the base write (so an acknowledged row is
// always reachable through its index) and never delete entries; a reader
// fetches every candidate base row and applies the query's restrictions to
// it, which drops entries made stale by updates, deletes and TTLs.

// indexPlan is the index a SELECT reads its candidate rows from.
type indexPlan struct {
	ix  *schema.Index
	col *schema.Column
	// value (and mapKey for ENTRIES) evaluate the index partition to read.
	value, mapKey termFn
}

// legacyIndexName is the USING name of the built-in (non-custom) index
// (CassandraIndex.NAME), Cassandra 5.0's default_secondary_index.
const legacyIndexName = "legacy_local_table"

// indexBatch is how many index entries one index read fetches.
const indexBatch = 256

// indexFor returns the index of t that answers filter f, or nil. Storage
// -attached indexes also answer slices (sai reports that as rangeOnly: the
// query is allowed without ALLOW FILTERING but runs as a filtered scan).
func indexFor(t *schema.Table, f *rowFilter) (ix *schema.Index, rangeOnly bool) {
	if f.col == nil {
		return nil, false
	}
	for _, x := range t.IndexesOn(f.col.Name) {
		multi := f.col.Type.IsMultiCell()
		switch {
		case f.mapKey != nil:
			if x.Target == schema.TargetEntries {
				return x, false
			}
		case f.op == cql.OpContains:
			if multi && (x.Target == schema.TargetValues || x.Target == schema.TargetSimple) {
				return x, false
			}
		case f.op == cql.OpContainsKey:
			if x.Target == schema.TargetKeys {
				return x, false
			}
		case (f.op == cql.OpEq || f.op == cql.OpIn) && (f.in == nil || !f.in.isIN()):
			// IN (x) is x's equality (SingleColumnRelation).
			if !multi && (x.Target == schema.TargetSimple || x.Target == schema.TargetFull) {
				return x, false
			}
		case f.op == cql.OpLt || f.op == cql.OpLte || f.op == cql.OpGt || f.op == cql.OpGte:
			if !multi && x.SAI() && saiSupportsRange(f.col.Type) {
				return x, true
			}
		}
	}
	return nil, false
}

// saiSupportsRange reports whether a storage-attached index on a column of
// type t answers slices (IndexTermType.supports: not on the EQ-only types
// text, ascii, boolean and uuid, nor on literal terms such as frozen
// collections, nor on vectors, which only answer ANN).
func saiSupportsRange(t *types.Type) bool {
	switch t.Kind {
	case types.Text, types.Ascii, types.Boolean, types.UUID, types.Vector,
		types.List, types.Set, types.Map, types.Tuple, types.UDT:
		return false
	}
	return true
}

// chooseIndex picks the index a SELECT uses among its restrictions,
// preferring regular and static columns. It returns the plan (nil when no
// restriction is indexed, or only slices of storage-attached indexes are)
// and the set of filters that an index covers (they need no ALLOW
// FILTERING).
func chooseIndex(t *schema.Table, filters []rowFilter) (*indexPlan, map[*schema.Column]bool) {
	var best *indexPlan
	covered := map[*schema.Column]bool{}
	for i := range filters {
		f := &filters[i]
		ix, rangeOnly := indexFor(t, f)
		if ix == nil {
			continue
		}
		covered[f.col] = true
		if rangeOnly {
			continue
		}
		if best == nil || (best.col.IsPrimaryKey() && !f.col.IsPrimaryKey()) {
			best = &indexPlan{ix: ix, col: f.col, value: f.value, mapKey: f.mapKey}
			if f.in != nil {
				best.value = f.in.fns[0]
			}
		}
	}
	if len(covered) == 0 {
		return nil, nil
	}
	return best, covered
}

// indexKey evaluates the index partition key of the plan's restriction.
func (ip *indexPlan) indexKey(vals []Value) ([]byte, error) {
	v, unset, err := ip.value(vals)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, cqlerr.Invalidf("Unsupported unset value for column %s", ip.col.Name)
	}
	if v == nil {
		return nil, cqlerr.Invalidf("Unsupported null value for column %s", ip.col.Name)
	}
	if !ip.ix.SAI() && len(v) > 0xFFFF {
		// CassandraIndex.validate(ReadCommand): the value is the index's
		// partition key (a write refuses 65,535 bytes already,
		// validateIndexedValue; a read only more).
		return nil, cqlerr.Invalidf("Index expression values may not be larger than 64K")
	}
	if ip.mapKey == nil {
		if a := analyzer(ip.ix, ip.col); a != nil {
			return a(v), nil
		}
		return v, nil
	}
	k, unset, err := ip.mapKey(vals)
	if err != nil {
		return nil, err
	}
	if unset || k == nil {
		return nil, cqlerr.Invalidf("Invalid null or unset map key for column %s", ip.col.Name)
	}
	return mutation.CompositeKey([][]byte{k, v}), nil
}

func encodeToken(tok int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(tok))
}

// readIndex is read for a SELECT answered by a secondary index: it walks
// the index partition from ps and reads each candidate base row.
func (r *reader) readIndex(ps *pagingState, want int) ([]outRow, *pagingState, error) {
	p := r.p
	t := p.table
	ip := p.index
	if ts := tracing.FromContext(r.ctx); ts != nil { // every page, as executeLocally
		ts.Add(tracing.ReadThread, "Executing read on "+t.Keyspace+"."+t.Name+" using index "+ip.ix.Name)
	}
	it := ip.ix.Table(t)
	perPartition := ip.ix.PerPartition(t)
	key, err := ip.indexKey(r.vals)
	if err != nil {
		return nil, nil, err
	}
	// Entries outside the token restriction are not candidates.
	inRange := func(int64) bool { return true }
	if p.tokenLower != nil || p.tokenUpper != nil {
		if inRange, err = p.tokenRange(r.vals); err != nil {
			return nil, nil, err
		}
	}
	var rows []outRow
	// curKey/inCur count the rows returned for the current base partition
	// (PER PARTITION LIMIT and paging inside a partition).
	var curKey []byte
	var inCur int32
	var start mutation.Bound
	if ps != nil {
		tok := r.e.cfg.Partitioner.Token(ps.partitionKey)
		curKey, inCur = ps.partitionKey, ps.inPartition
		start = mutation.Bound{Values: [][]byte{encodeToken(tok), ps.partitionKey}}
		if ps.clustering != nil {
			if perPartition {
				// Finish the partition the previous page stopped in.
				slices := r.slices
				if slices == nil {
					slices = []mutation.Slice{mutation.FullSlice}
				}
				if slices = slicesAfter(t, slices, ps.clustering, p.reversed); len(slices) > 0 {
					var next *pagingState
					rows, next, err = r.indexCandidate(rows, ps.partitionKey, tok, slices, ps.inPartition, want)
					if err != nil || next != nil {
						return rows, next, err
					}
				}
			} else {
				start.Values = append(start.Values, ps.clustering...)
			}
		}
	}
	for {
		cmd := &mutation.ReadCommand{TableID: it.ID, Key: key, Token: r.e.cfg.Partitioner.Token(key),
			NowSec: r.nowSec, RowLimit: indexBatch,
			Slices: []mutation.Slice{{Start: start, End: mutation.Bound{Inclusive: true}}}}
		if len(start.Values) == 0 {
			cmd.Slices = []mutation.Slice{mutation.FullSlice}
		}
		parts, err := r.e.cfg.Coordinator.Read(r.ctx, it, r.cl, cmd)
		if err != nil {
			return nil, nil, err
		}
		n := 0
		for pi := range parts {
			for _, entry := range parts[pi].Rows {
				n++
				if len(entry.Clustering) < 2 || len(entry.Clustering[0]) != 8 {
					return nil, nil, cqlerr.Serverf("corrupt index entry in %s", ip.ix.Name)
				}
				tok := int64(binary.BigEndian.Uint64(entry.Clustering[0]))
				bkey := entry.Clustering[1]
				ck := entry.Clustering[2:]
				start = mutation.Bound{Values: entry.Clustering}
				if !inRange(tok) {
					continue
				}
				if string(bkey) != string(curKey) {
					curKey, inCur = bkey, 0
				}
				if inCur >= r.perPartition {
					continue
				}
				var slices []mutation.Slice
				if perPartition {
					slices = r.slices
				} else {
					if r.slices != nil && !inSlices(t, r.slices, ck) {
						continue
					}
					slices = []mutation.Slice{{Start: mutation.Bound{Values: ck, Inclusive: true}, End: mutation.Bound{Values: ck, Inclusive: true}}}
				}
				before := len(rows)
				var next *pagingState
				if !perPartition && t.HasStatics() && isEmptyClustering(ck) {
					rows, next, err = r.staticEntry(rows, bkey, tok, slices, inCur, want)
				} else {
					rows, next, err = r.indexCandidate(rows, bkey, tok, slices, inCur, want)
				}
				if err != nil {
					return nil, nil, err
				}
				inCur += int32(len(rows) - before)
				if next != nil {
					return rows, next, nil
				}
			}
		}
		if n < indexBatch {
			return rows, nil, nil
		}
	}
}

// indexCandidate reads one base partition (or row) found through an index
// and appends its matching rows.
func (r *reader) indexCandidate(rows []outRow, key []byte, tok int64, slices []mutation.Slice, already int32, want int) ([]outRow, *pagingState, error) {
	if slices != nil && len(slices) == 0 {
		return rows, nil, nil
	}
	cmd := &mutation.ReadCommand{Key: key, Token: tok, Slices: slices, PerPartitionLimit: r.partitionLimit(already)}
	parts, err := r.fetch(cmd)
	if err != nil {
		return nil, nil, err
	}
	for j := range parts {
		part := &parts[j]
		if len(part.Rows) == 0 && !r.p.index.ix.PerPartition(r.p.table) {
			continue // the row is gone: a stale entry
		}
		var next *pagingState
		rows, next, err = r.collect(rows, part, already, want)
		if err != nil || next != nil {
			return rows, next, err
		}
	}
	return rows, nil, nil
}

// staticEntry reads the base partition of a primary-key index entry whose
// clustering values are all empty: the entry of a row with that clustering,
// or of the partition's static row (indexUpdates), which is a result when
// the partition has no row at all. exact selects the entry's row.
func (r *reader) staticEntry(rows []outRow, key []byte, tok int64, exact []mutation.Slice, already int32, want int) ([]outRow, *pagingState, error) {
	parts, err := r.fetch(&mutation.ReadCommand{Key: key, Token: tok, Slices: exact})
	if err != nil {
		return nil, nil, err
	}
	if len(parts) == 0 || len(parts[0].Rows) == 0 {
		if r.slices != nil {
			return rows, nil, nil // restricted clusterings select no static-only row
		}
		if parts, err = r.fetch(&mutation.ReadCommand{Key: key, Token: tok, PerPartitionLimit: 1}); err != nil {
			return nil, nil, err
		}
		if len(parts) == 0 || len(parts[0].Rows) > 0 {
			return rows, nil, nil // the rows have entries of their own
		}
	}
	return r.collect(rows, &parts[0], already, want)
}

// emptyClustering returns n empty clustering values.
func emptyClustering(n int) [][]byte {
	ck := make([][]byte, n)
	for i := range ck {
		ck[i] = []byte{}
	}
	return ck
}

// isEmptyClustering reports whether ck is clustering values, all empty.
func isEmptyClustering(ck [][]byte) bool {
	for _, v := range ck {
		if len(v) > 0 {
			return false
		}
	}
	return len(ck) > 0
}

// indexUpdates returns the index entries of a base write (nil when t has no
// index).
func indexUpdates(t *schema.Table, ups []*mutation.PartitionUpdate) map[*schema.Index][]*mutation.PartitionUpdate {
	if len(t.Indexes) == 0 {
		return nil
	}
	out := map[*schema.Index][]*mutation.PartitionUpdate{}
	for _, ix := range t.Indexes {
		col := t.Column(ix.Column)
		if col == nil {
			continue
		}
		it := ix.Table(t)
		entries := map[string]*mutation.PartitionUpdate{}
		add := func(value []byte, up *mutation.PartitionUpdate, ck [][]byte, live mutation.Liveness) {
			if value == nil || live.Timestamp == mutation.NoTimestamp {
				return
			}
			pu := entries[string(value)]
			if pu == nil {
				pu = &mutation.PartitionUpdate{TableID: it.ID, Key: value, Deletion: mutation.Live}
				entries[string(value)] = pu
			}
			clustering := append([][]byte{encodeToken(up.Token), up.Key}, ck...)
			pu.Rows = append(pu.Rows, mutation.Row{Clustering: clustering, Marker: live, Deletion: mutation.Live})
		}
		for _, up := range ups {
			switch col.Kind {
			case schema.PartitionKey:
				comps, err := mutation.SplitCompositeKey(up.Key, len(t.PartitionKey))
				if err != nil || col.Position >= len(comps) {
					continue
				}
				for i := range up.Rows {
					add(comps[col.Position], up, up.Rows[i].Clustering, rowLiveness(&up.Rows[i]))
				}
				if up.Static != nil {
					// A partition with only a static row is a result of the
					// index too (as in a filtered scan): its entry has empty
					// clustering values (readIndex's staticEntry).
					add(comps[col.Position], up, emptyClustering(len(t.Clustering)), rowLiveness(up.Static))
				}
			case schema.Clustering:
				for i := range up.Rows {
					row := &up.Rows[i]
					if col.Position < len(row.Clustering) {
						add(row.Clustering[col.Position], up, row.Clustering, rowLiveness(row))
					}
				}
			case schema.Static:
				if up.Static != nil {
					for _, c := range up.Static.Cells {
						if c.Column == col.ID {
							for _, v := range indexedValues(ix, col, &c) {
								add(v, up, nil, cellLiveness(&c))
							}
						}
					}
				}
			default:
				for i := range up.Rows {
					row := &up.Rows[i]
					for ci := range row.Cells {
						c := &row.Cells[ci]
						if c.Column == col.ID {
							for _, v := range indexedValues(ix, col, c) {
								add(v, up, row.Clustering, cellLiveness(c))
							}
						}
					}
				}
			}
		}
		for _, pu := range entries {
			pu.Token = 0 // set by the caller's partitioner
			out[ix] = append(out[ix], pu)
		}
	}
	return out
}

// indexedValues are the index partition keys a live cell contributes.
func indexedValues(ix *schema.Index, col *schema.Column, c *mutation.Cell) [][]byte {
	if c.Tombstone || c.Value == nil {
		return nil
	}
	if !col.Type.IsMultiCell() {
		if a := analyzer(ix, col); a != nil {
			return [][]byte{a(c.Value)}
		}
		return [][]byte{c.Value}
	}
	if c.Path == nil {
		return nil
	}
	switch col.Type.Kind {
	case types.Set:
		return [][]byte{c.Path}
	case types.List:
		return [][]byte{c.Value}
	case types.Map:
		switch ix.Target {
		case schema.TargetKeys:
			return [][]byte{c.Path}
		case schema.TargetEntries:
			return [][]byte{mutation.CompositeKey([][]byte{c.Path, c.Value})}
		default:
			return [][]byte{c.Value}
		}
	}
	return nil
}

func cellLiveness(c *mutation.Cell) mutation.Liveness {
	return mutation.Liveness{Timestamp: c.Timestamp, TTL: c.TTL, LocalDeletionTime: c.LocalDeletionTime}
}

// rowLiveness is how long a primary-key index entry of a written row lives:
// its row marker, or else its newest live cell.
func rowLiveness(row *mutation.Row) mutation.Liveness {
	if row.Marker.Timestamp != mutation.NoTimestamp {
		return row.Marker
	}
	best := mutation.Liveness{Timestamp: mutation.NoTimestamp}
	for i := range row.Cells {
		c := &row.Cells[i]
		if !c.Tombstone && c.Timestamp > best.Timestamp {
			best = cellLiveness(c)
		}
	}
	return best
}

// mutate writes updates of table t at cl, with its indexes and views.
func (e *Executor) mutate(ctx context.Context, t *schema.Table, cl Consistency, ups []*mutation.PartitionUpdate) error {
	if len(t.Views) > 0 {
		if views := e.viewsOf(t); len(views) > 0 {
			return e.mutateWithViews(ctx, t, views, cl, ups)
		}
	}
	return e.mutateTable(ctx, t, cl, ups)
}

// mutateTable writes updates of table t at cl, index entries first: once
// the base write is acknowledged, every index that should find the row
// does.
func (e *Executor) mutateTable(ctx context.Context, t *schema.Table, cl Consistency, ups []*mutation.PartitionUpdate) error {
	iups, err := prepareWrites(t, ups)
	if err != nil {
		return err
	}
	if len(iups) > 0 {
		// Index entries are written untraced: Cassandra updates an index
		// inside the base table's write, which traces only the base
		// table.
		ictx := tracing.Without(ctx)
		for ix, ius := range iups {
			for _, pu := range ius {
				pu.Token = e.cfg.Partitioner.Token(pu.Key)
			}
			if err := e.cfg.Coordinator.Mutate(ictx, ix.Table(t), cl, ius); err != nil {
				return err
			}
		}
	}
	return e.cfg.Coordinator.Mutate(ctx, t, cl, ups)
}

// prepareWrites checks the updates of t that the storage or an index would
// refuse, before anything is written, and builds their index updates.
func prepareWrites(t *schema.Table, ups []*mutation.PartitionUpdate) (map[*schema.Index][]*mutation.PartitionUpdate, error) {
	if err := validateVectorWrites(t, ups); err != nil {
		return nil, err
	}
	iups := indexUpdates(t, ups)
	return iups, checkIndexedValues(t, iups)
}

// checkIndexedValues refuses index entries a legacy index cannot hold,
// before anything is written (CassandraIndex.validateIndexedValue: the
// value is the index's partition key, at most 64 KiB - 1).
func checkIndexedValues(t *schema.Table, iups map[*schema.Index][]*mutation.PartitionUpdate) error {
	for ix, ius := range iups {
		if ix.SAI() {
			continue
		}
		for _, pu := range ius {
			if len(pu.Key) >= 0xFFFF {
				return cqlerr.Invalidf("Cannot index value of size %d for index %s on %s.%s(%s) (maximum allowed size=%d)",
					len(pu.Key), ix.Name, t.Keyspace, t.Name, ix.Column, 0xFFFF)
			}
		}
	}
	return nil
}

// truncate removes the data of t, of its indexes and of its views.
func (e *Executor) truncate(ctx context.Context, t *schema.Table) error {
	for _, v := range e.viewsOf(t) {
		if err := e.cfg.Coordinator.Truncate(ctx, v); err != nil {
			return err
		}
	}
	return e.truncateTable(ctx, t)
}

// truncateTable removes the data of t and of its indexes.
func (e *Executor) truncateTable(ctx context.Context, t *schema.Table) error {
	for _, ix := range t.Indexes {
		if err := e.cfg.Coordinator.Truncate(ctx, ix.Table(t)); err != nil {
			return err
		}
	}
	return e.cfg.Coordinator.Truncate(ctx, t)
}

// ---------------------------------------------------------------------------
// CREATE INDEX / DROP INDEX.

func (e *Executor) compileCreateIndex(c *compiled, s *schema.Schema, st *cql.CreateIndex, keyspace string) error {
	ksName := st.Table.Keyspace
	if ksName == "" {
		ksName = st.Name.Keyspace
	}
	if ksName == "" {
		ksName = keyspace
	}
	if ksName == "" {
		return cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	if st.Name.Keyspace != "" && st.Name.Keyspace != ksName {
		return cqlerr.Invalidf("Keyspace name '%s' doesn't match index name '%s'", ksName, st.Table.Name)
	}
	using := st.Using
	if using == "" {
		// CreateIndexStatement.Raw.prepare: the configured default, for
		// CUSTOM indexes too.
		if e.cfg.RequireIndexImplementation {
			return cqlerr.Invalidf("Must specify index implementation via USING")
		}
		using = e.cfg.DefaultSecondaryIndex
	}
	custom := st.Custom || using != ""
	if !st.Custom && strings.EqualFold(using, legacyIndexName) {
		// The built-in index named explicitly: created as without USING
		// (CreateIndexStatement.Raw.prepare clears the custom class).
		using, custom = "", false
	}
	ix := &schema.Index{Name: st.Name.Name, Custom: custom}
	if custom {
		if using == "" {
			return cqlerr.Invalidf("CUSTOM index requires specifying the index class")
		}
		switch strings.ToLower(using) {
		case "sai", "storageattachedindex", strings.ToLower(schema.SAIClass):
			ix.Class = schema.SAIClass
		case "org.apache.cassandra.index.sasi.sasiindex":
			// Cassandra 5.0's default (sasi_indexes_enabled: false).
			return cqlerr.Invalidf("SASI indexes are disabled. Enable in cassandra.yaml to use.")
		default:
			return cqlerr.Invalidf("Unable to find custom indexer class '%s'", using)
		}
		opts := map[string]string{}
		for _, prop := range st.Properties {
			if !strings.EqualFold(prop.Name, "options") {
				return cqlerr.Syntaxf("Unknown property '%s'", prop.Name)
			}
			m, err := propertyMap(prop)
			if err != nil {
				return err
			}
			// Checked against the column in validate
			// (schema.ValidateSAIOptions).
			for k, v := range m {
				opts[k] = v
			}
		}
		if len(opts) > 0 {
			ix.Options = opts
		}
	} else if len(st.Properties) > 0 {
		return cqlerr.Invalidf("Cannot specify options for a non-CUSTOM index")
	}
	if len(st.Targets) == 0 {
		return cqlerr.Invalidf("Only CUSTOM indexes can be created without specifying a target column")
	}
	targets := make([]*schema.Index, len(st.Targets))
	seen := map[string]bool{}
	for i, tg := range st.Targets {
		if len(st.Targets) > 1 {
			if !custom {
				return cqlerr.Invalidf("Only CUSTOM indexes support multiple columns")
			}
			if seen[tg.Column] {
				return cqlerr.Invalidf("Duplicate column '%s' in index target list", tg.Column)
			}
			seen[tg.Column] = true
		}
		targets[i] = &schema.Index{Column: tg.Column}
		switch tg.Kind {
		case cql.IndexValues:
			targets[i].Target = schema.TargetValues
		case cql.IndexKeys:
			targets[i].Target = schema.TargetKeys
		case cql.IndexEntries:
			targets[i].Target = schema.TargetEntries
		case cql.IndexFull:
			targets[i].Target = schema.TargetFull
		}
	}
	ix.Column, ix.Target = targets[0].Column, targets[0].Target
	vectorIndex := false
	validate := func(k *schema.Keyspace, t *schema.Table) error {
		if t.IsCounter {
			return cqlerr.Invalidf("Secondary indexes on counter tables aren't supported")
		}
		if t.IsView() {
			return cqlerr.Invalidf("Secondary indexes on materialized views aren't supported")
		}
		// CreateIndexStatement.validateIndexTarget, for every target.
		for _, tg := range targets {
			if t.Column(tg.Column) == nil {
				return cqlerr.Invalidf("Column '%s' doesn't exist", tg.Column)
			}
			if custom && (len(tg.Column) > 48 || !validName.MatchString(tg.Column)) {
				return cqlerr.Invalidf("Column '%s' is longer than the permissible name length of 48 characters or contains non-alphanumeric-underscore characters", tg.Column)
			}
		}
		if len(targets) > 1 {
			// StorageAttachedIndex.validateOptions, the only custom class.
			names := make([]string, len(targets))
			for i, tg := range targets {
				names[i] = tg.TargetString()
			}
			return cqlerr.Invalidf("A storage-attached index cannot be created over multiple columns: %s", strings.Join(names, ","))
		}
		col := t.Column(ix.Column)
		typ := col.Type
		if referencesDuration(typ) {
			switch {
			case typ.IsCollection():
				return cqlerr.Invalidf("Secondary indexes are not supported on collections containing durations")
			case typ.Kind == types.Tuple:
				return cqlerr.Invalidf("Secondary indexes are not supported on tuples containing durations")
			case typ.Kind == types.UDT:
				return cqlerr.Invalidf("Secondary indexes are not supported on UDTs containing durations")
			}
			return cqlerr.Invalidf("Secondary indexes are not supported on duration columns")
		}
		if col.Kind == schema.PartitionKey && len(t.PartitionKey) == 1 {
			return cqlerr.Invalidf("Cannot create secondary index on the only partition key column %s", col.Name)
		}
		frozenColl := typ.IsCollection() && typ.Frozen
		if frozenColl && ix.Target != schema.TargetFull {
			return cqlerr.Invalidf("Cannot create %s() index on frozen column %s. Frozen collections are immutable and must be fully indexed by using the 'full(%s)' modifier", targetName(ix.Target), col.Name, col.Name)
		}
		if !frozenColl && ix.Target == schema.TargetFull {
			return cqlerr.Invalidf("full() indexes can only be created on frozen collections")
		}
		if !typ.IsCollection() && ix.Target != schema.TargetSimple {
			return cqlerr.Invalidf("Cannot create %s() index on %s. Non-collection columns only support simple indexes", targetName(ix.Target), col.Name)
		}
		if !(typ.Kind == types.Map && typ.IsMultiCell()) && (ix.Target == schema.TargetKeys || ix.Target == schema.TargetEntries) {
			return cqlerr.Invalidf("Cannot create index on %s of column %s with non-map type", targetName(ix.Target), col.Name)
		}
		if typ.Kind == types.UDT && typ.IsMultiCell() {
			return cqlerr.Invalidf("Cannot create index on non-frozen UDT column %s", col.Name)
		}
		if ix.Target == schema.TargetSimple && typ.IsMultiCell() {
			ix.Target = schema.TargetValues
		}
		if ix.SAI() {
			vector, err := schema.ValidateSAIOptions(ix.Options, col, ix.Target, t.Indexes)
			if err != nil {
				return err
			}
			vectorIndex = vector
		}
		return nil
	}
	tableName := st.Table.Name
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		changed, err := e.cfg.Schema.CreateIndex(ksName, tableName, ix, st.IfNotExists, validate)
		if err != nil || !changed {
			if err != nil {
				return nil, err
			}
			return &Result{Kind: VoidResult}, nil
		}
		t := e.cfg.Schema.Current().Table(ksName, tableName)
		if err := e.buildIndex(ctx, t, ix); err != nil {
			return nil, err
		}
		res := e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: ksName, Name: tableName})
		if vectorIndex {
			res.Warnings = append(res.Warnings, schema.VectorUsageWarning)
		}
		return res, nil
	}
	return nil
}

func targetName(t schema.IndexTarget) string {
	switch t {
	case schema.TargetValues:
		return "values"
	case schema.TargetKeys:
		return "keys"
	case schema.TargetEntries:
		return "entries"
	case schema.TargetFull:
		return "full"
	}
	return "simple"
}

func referencesDuration(t *types.Type) bool {
	if t.Kind == types.Duration {
		return true
	}
	for _, p := range t.Params {
		if referencesDuration(p) {
			return true
		}
	}
	return false
}

// buildIndex indexes the existing rows of t (Cassandra builds new indexes
// in the background; cqld builds them before CREATE INDEX returns, so that
// a query right after it sees every row).
func (e *Executor) buildIndex(ctx context.Context, t *schema.Table, ix *schema.Index) error {
	ctx = tracing.Without(ctx) // Cassandra's build runs apart from the request
	only := t.WithIndexes([]*schema.Index{ix})
	return e.scanPartitions(ctx, t, func(parts []mutation.Partition) error {
		ups := make([]*mutation.PartitionUpdate, 0, len(parts))
		for i := range parts {
			p := &parts[i]
			ups = append(ups, &mutation.PartitionUpdate{TableID: t.ID, Key: p.Key, Token: p.Token,
				Deletion: mutation.Live, Static: p.Static, Rows: p.Rows})
		}
		for _, ius := range indexUpdates(only, ups) {
			for _, pu := range ius {
				pu.Token = e.cfg.Partitioner.Token(pu.Key)
			}
			if err := e.cfg.Coordinator.Mutate(ctx, ix.Table(t), NodeLocal, ius); err != nil {
				return err
			}
		}
		return nil
	})
}

// BuildIndexes indexes the rows of table t for each of its indexes
// (after nodetool import merged data in beside the write path; entries the
// import made stale are dropped by index reads, as stale entries are).
func (e *Executor) BuildIndexes(ctx context.Context, t *schema.Table) error {
	for _, ix := range t.Indexes {
		if err := e.buildIndex(ctx, t, ix); err != nil {
			return err
		}
	}
	return nil
}

// scanPartitions calls fn with batches of the live partitions of t, in
// token order.
func (e *Executor) scanPartitions(ctx context.Context, t *schema.Table, fn func([]mutation.Partition) error) error {
	nowSec := e.now().Unix()
	var startKey []byte
	startTok := int64(math.MinInt64)
	for {
		cmd := &mutation.ReadCommand{TableID: t.ID, StartToken: startTok, EndToken: math.MaxInt64,
			StartKey: startKey, PartitionLimit: rangeBatch, NowSec: nowSec, Unmetered: true}
		parts, err := e.cfg.Coordinator.Read(ctx, t, NodeLocal, cmd)
		if err != nil {
			return err
		}
		if err := fn(dropShadowed(t, parts)); err != nil {
			return err
		}
		if len(parts) < rangeBatch {
			return nil
		}
		startKey, startTok = parts[len(parts)-1].Key, parts[len(parts)-1].Token
	}
}

func (e *Executor) compileDropIndex(c *compiled, st *cql.DropIndex, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		r, err := e.cfg.Schema.DropIndex(ksName, st.Name.Name, st.IfExists)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return &Result{Kind: VoidResult}, nil
		}
		// A DROP INDEX takes no snapshot: removeDropped returns no error.
		_ = e.removeDropped(ctx, *r)
		return e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: ksName, Name: r.Table.Name}), nil
	}
	return nil
}
