package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/cqld/cqld/internal/mutation"
	"github.com/cqld/cqld/internal/schema"
	"github.com/google/uuid"
)

// Memory is the in-memory reference Engine. It implements the semantics in
// the most obvious way — a map of cells reconciled with mutation.Reconcile,
// tombstones kept as given and applied while reading, slices and range
// tombstones evaluated by comparing values with types.Compare rather than
// through the key encoding — so that differential tests can check the
// Pebble engine against it. It is not durable and not fast.
type Memory struct {
	mu     sync.Mutex
	tables map[[16]byte]map[string]*memPartition
	meta   map[string][]byte
}

var _ Engine = (*Memory)(nil)

// NewMemory returns an empty in-memory engine.
func NewMemory() *Memory {
	return &Memory{tables: map[[16]byte]map[string]*memPartition{}, meta: map[string][]byte{}}
}

type memPartition struct {
	key    []byte
	token  int64
	del    mutation.Deletion
	rts    []mutation.RangeTombstone
	rtKeys []string // the encoded range of each of rts (layout.md)
	static *memRow
	rows   map[string]*memRow
}

type memRow struct {
	clustering [][]byte // canonical (canonicalValue)
	// written holds the clustering as written (Value: appendWrittenValues)
	// by the newest update whose values were not canonical, as the Pebble
	// engine's slotWritten; hasWritten says whether there is one.
	written    mutation.Cell
	hasWritten bool
	marker     mutation.Liveness
	del        mutation.Deletion
	cells      map[string]mutation.Cell // by column id and path
}

func newMemRow(clustering [][]byte) *memRow {
	return &memRow{clustering: clustering, marker: mutation.NoLiveness, del: mutation.Live, cells: map[string]mutation.Cell{}}
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func cloneValues(vs [][]byte) [][]byte {
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = append([]byte{}, v...)
	}
	return out
}

func memRowKey(clustering [][]byte) string {
	var b []byte
	for _, v := range clustering {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return string(b)
}

// memCellKey is the key of a cell in its row: elements whose paths compare
// equal (set elements 1.5 and 1.50) are one cell.
func memCellKey(t *schema.Table, c *mutation.Cell) string {
	b := binary.BigEndian.AppendUint32(nil, c.Column)
	if c.Path != nil {
		b = append(b, 1)
		path := c.Path
		if col := t.ColumnByID(c.Column); col != nil {
			if cp, err := canonicalPath(col, nil, c.Path); err == nil {
				path = cp
			}
		}
		b = append(b, path...)
	}
	return string(b)
}

// Apply implements Engine.
func (m *Memory) Apply(ctx context.Context, t *schema.Table, updates ...*mutation.PartitionUpdate) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range updates {
		if u.TableID != [16]byte(t.ID) {
			return fmt.Errorf("storage: update for table %x applied to table %s", u.TableID, t.ID)
		}
		if u.Key == nil {
			return errors.New("storage: no partition key")
		}
	}
	for _, u := range updates {
		parts := m.tables[u.TableID]
		if parts == nil {
			parts = map[string]*memPartition{}
			m.tables[u.TableID] = parts
		}
		p := parts[string(u.Key)]
		if p == nil {
			p = &memPartition{key: cloneBytes(u.Key), token: u.Token, del: mutation.Live, rows: map[string]*memRow{}}
			parts[string(u.Key)] = p
		}
		p.del = mutation.MaxDeletion(p.del, u.Deletion)
		for _, rt := range u.RangeTombstones {
			// Tombstones over the same clustering range are one, as in the
			// Pebble engine (what Purge removes depends on it).
			r, err := sliceRange(t, rt.Slice)
			if err != nil {
				return err
			}
			k := string(appendRangeTombstoneKey(nil, r))
			if i := slices.Index(p.rtKeys, k); i >= 0 {
				p.rts[i].Deletion = mutation.MaxDeletion(p.rts[i].Deletion, rt.Deletion)
				continue
			}
			rt.Slice.Start.Values = cloneValues(rt.Slice.Start.Values)
			rt.Slice.End.Values = cloneValues(rt.Slice.End.Values)
			p.rts = append(p.rts, rt)
			p.rtKeys = append(p.rtKeys, k)
		}
		if u.Static != nil {
			if p.static == nil {
				p.static = newMemRow(nil)
			}
			memMergeRow(t, p.static, u.Static)
		}
		for i := range u.Rows {
			// Values that compare equal are one row: rows are keyed by
			// their canonical values.
			row := &u.Rows[i]
			canon := make([][]byte, len(row.Clustering))
			for j, v := range row.Clustering {
				cv, err := canonicalValue(t.Clustering[j], nil, v)
				if err != nil {
					return err
				}
				canon[j] = cloneBytes(cv)
			}
			k := memRowKey(canon)
			r := p.rows[k]
			if r == nil {
				r = newMemRow(canon)
				p.rows[k] = r
			}
			memMergeRow(t, r, row)
			if w, ok := writtenCell(row); ok && !sameValues(canon, row.Clustering) {
				w.Value = appendWrittenValues(nil, row.Clustering)
				if !r.hasWritten || mutation.Reconcile(&r.written, &w) == &w {
					r.written, r.hasWritten = w, true
				}
			}
		}
	}
	return nil
}

func memMergeRow(t *schema.Table, dst *memRow, src *mutation.Row) {
	dst.del = mutation.MaxDeletion(dst.del, src.Deletion)
	dst.marker = mutation.ReconcileLiveness(dst.marker, src.Marker)
	for i := range src.Cells {
		c := src.Cells[i]
		c.Value, c.Path = cloneBytes(c.Value), cloneBytes(c.Path)
		k := memCellKey(t, &c)
		if old, ok := dst.cells[k]; ok {
			// The newer write wins a complete tie, as in the Pebble
			// engine's merge: it decides how the element was written.
			c = *mutation.Reconcile(&c, &old)
		}
		dst.cells[k] = c
	}
}

func inSlice(t *schema.Table, c [][]byte, s mutation.Slice) bool {
	if n := len(s.Start.Values); n > 0 {
		cmp := t.CompareClustering(c, s.Start.Values)
		if cmp < 0 || (cmp == 0 && !s.Start.Inclusive) {
			return false
		}
	}
	if n := len(s.End.Values); n > 0 {
		cmp := t.CompareClustering(c, s.End.Values)
		if cmp > 0 || (cmp == 0 && !s.End.Inclusive) {
			return false
		}
	}
	return true
}

// Read implements Engine.
func (m *Memory) Read(ctx context.Context, t *schema.Table, cmd *mutation.ReadCommand) ([]mutation.Partition, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var parts []*memPartition
	for _, p := range m.tables[cmd.TableID] {
		if cmd.Key != nil {
			if bytes.Equal(p.key, cmd.Key) {
				parts = append(parts, p)
			}
		} else if memInRange(p, cmd) {
			parts = append(parts, p)
		}
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].token != parts[j].token {
			return parts[i].token < parts[j].token
		}
		return bytes.Compare(parts[i].key, parts[j].key) < 0
	})
	if cmd.Key == nil && memWraps(cmd) {
		// Ring order: the part after the start first, then the wrapped part.
		var first, second []*memPartition
		for _, p := range parts {
			if memAfterStart(p, cmd) {
				first = append(first, p)
			} else {
				second = append(second, p)
			}
		}
		parts = append(first, second...)
	}

	rowsLeft, partsLeft, perPart := math.MaxInt, math.MaxInt, math.MaxInt
	if cmd.RowLimit > 0 {
		rowsLeft = cmd.RowLimit
	}
	if cmd.PartitionLimit > 0 {
		partsLeft = cmd.PartitionLimit
	}
	if cmd.PerPartitionLimit > 0 {
		perPart = cmd.PerPartitionLimit
	}
	var out []mutation.Partition
	for _, p := range parts {
		if rowsLeft <= 0 || partsLeft <= 0 {
			break
		}
		res := mutation.Partition{Key: cloneBytes(p.key), Token: p.token}
		if t.HasStatics() && p.static != nil {
			if r, ok := memLiveRow(t, p.static, p.del, cmd.NowSec); ok {
				res.Static = &r
			}
		}
		var rows []mutation.Row
		for _, r := range p.rows {
			if !slices.ContainsFunc(cmd.Slices, func(s mutation.Slice) bool { return inSlice(t, r.clustering, s) }) && cmd.Slices != nil {
				continue
			}
			eff := p.del
			for _, rt := range p.rts {
				if inSlice(t, r.clustering, rt.Slice) {
					eff = mutation.MaxDeletion(eff, rt.Deletion)
				}
			}
			if lr, ok := memLiveRow(t, r, eff, cmd.NowSec); ok {
				rows = append(rows, lr)
			}
		}
		sort.Slice(rows, func(i, j int) bool {
			c := t.CompareClustering(rows[i].Clustering, rows[j].Clustering)
			if cmd.Reversed {
				return c > 0
			}
			return c < 0
		})
		budget := min(rowsLeft, perPart)
		if cmd.StaticOnly {
			budget = 1
		}
		hasLive := len(rows) > 0
		if len(rows) > budget {
			rows = rows[:budget]
		}
		if res.Static == nil && !hasLive {
			continue
		}
		partsLeft--
		if cmd.StaticOnly || len(rows) == 0 {
			rowsLeft--
		} else {
			res.Rows = rows
			rowsLeft -= len(rows)
		}
		out = append(out, res)
	}
	return out, nil
}

func memWraps(cmd *mutation.ReadCommand) bool {
	return cmd.EndToken != math.MinInt64 &&
		(cmd.StartToken > cmd.EndToken || (cmd.StartKey == nil && cmd.StartToken == cmd.EndToken))
}

func memAfterStart(p *memPartition, cmd *mutation.ReadCommand) bool {
	if cmd.StartKey != nil {
		if p.token != cmd.StartToken {
			return p.token > cmd.StartToken
		}
		c := bytes.Compare(p.key, cmd.StartKey)
		return c > 0 || (c == 0 && cmd.StartInclusive)
	}
	// From the minimum token: the start of the ring, the empty key's.
	return p.token > cmd.StartToken || cmd.StartToken == math.MinInt64
}

func memInRange(p *memPartition, cmd *mutation.ReadCommand) bool {
	before := cmd.EndToken == math.MinInt64 || p.token <= cmd.EndToken
	if memWraps(cmd) {
		return memAfterStart(p, cmd) || p.token <= cmd.EndToken
	}
	return memAfterStart(p, cmd) && before
}

// memLiveRow returns the live part of r under the deletion eff.
func memLiveRow(t *schema.Table, r *memRow, eff mutation.Deletion, now int64) (mutation.Row, bool) {
	eff = mutation.MaxDeletion(eff, r.del)
	cells := make([]mutation.Cell, 0, len(r.cells))
	for _, c := range r.cells {
		if t.ColumnByID(c.Column) != nil {
			cells = append(cells, c)
		}
	}
	sort.Slice(cells, func(i, j int) bool {
		a, b := &cells[i], &cells[j]
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if (a.Path == nil) != (b.Path == nil) {
			return a.Path == nil
		}
		return comparePaths(t.ColumnByID(a.Column), a.Path, b.Path) < 0
	})
	// Collection deletions: a tombstone without a path on a column.
	colDel := map[uint32]int64{}
	for _, c := range cells {
		if c.Path == nil && c.Tombstone {
			colDel[c.Column] = c.Timestamp
		}
	}
	var live []mutation.Cell
	for _, c := range cells {
		if !c.IsLive(now) || eff.Deletes(c.Timestamp) {
			continue
		}
		if ts, ok := colDel[c.Column]; ok && c.Path != nil && c.Timestamp <= ts {
			continue
		}
		c.Value, c.Path = cloneBytes(c.Value), cloneBytes(c.Path)
		if c.Value == nil {
			c.Value = []byte{}
		}
		live = append(live, c)
	}
	markerLive := r.marker.IsLive(now) && !eff.Deletes(r.marker.Timestamp)
	if len(live) == 0 && !markerLive {
		return mutation.Row{}, false
	}
	out := mutation.Row{Clustering: cloneValues(r.clustering), Marker: mutation.NoLiveness, Deletion: mutation.Live, Cells: live}
	if r.clustering == nil {
		out.Clustering = nil
	}
	if r.hasWritten && r.written.IsLive(now) && !eff.Deletes(r.written.Timestamp) {
		vs, _ := decodeWrittenValues(r.written.Value, len(r.clustering))
		out.Clustering = cloneValues(vs)
	}
	if markerLive {
		out.Marker = r.marker
	}
	if out.Cells == nil {
		out.Cells = []mutation.Cell{}
	}
	return out, true
}

// DropTable implements Engine.
func (m *Memory) DropTable(ctx context.Context, id uuid.UUID) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tables, [16]byte(id))
	return nil
}

// GetMeta implements Engine.
func (m *Memory) GetMeta(key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneBytes(m.meta[key]), nil
}

// PutMeta implements Engine.
func (m *Memory) PutMeta(key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.meta[key] = append([]byte{}, value...)
	return nil
}

// Flush implements Engine.
func (m *Memory) Flush() error { return nil }

// Close implements Engine.
func (m *Memory) Close() error { return nil }

// Purge implements the Pebble engine's Purge rules (purge.go) directly on
// the reconciled maps: the differential test checks that both engines purge
// the same deletions.
func (m *Memory) Purge(ctx context.Context, t *schema.Table, nowSec int64) (PurgeStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var st PurgeStats
	gcBefore := nowSec - int64(t.Params.GCGraceSeconds)
	if gcBefore <= 0 {
		return st, nil
	}
	d := purgeDecider{t: t, now: nowSec, gcBefore: gcBefore}
	parts := m.tables[[16]byte(t.ID)]
	for k, p := range parts {
		st.Partitions++
		d.reset(0)
		if p.static != nil {
			memPurgeRow(&d, &st, p.static, p.del)
		}
		for rk, r := range p.rows {
			eff := p.del
			for _, rt := range p.rts {
				if inSlice(t, r.clustering, rt.Slice) {
					eff = mutation.MaxDeletion(eff, rt.Deletion)
				}
			}
			memPurgeRow(&d, &st, r, eff)
			if r.del.IsLive() && r.marker.Timestamp == mutation.NoTimestamp && len(r.cells) == 0 && !r.hasWritten {
				delete(p.rows, rk)
			}
		}
		if !p.del.IsLive() && d.purgeableDeletion(p.del) == purgeTombstone {
			p.del = mutation.Live
			st.Tombstones++
		}
		for i := 0; i < len(p.rts); i++ {
			if d.purgeableDeletion(p.rts[i].Deletion) == purgeTombstone {
				p.rts = slices.Delete(p.rts, i, i+1)
				p.rtKeys = slices.Delete(p.rtKeys, i, i+1)
				st.Tombstones++
				i--
			}
		}
		if p.del.IsLive() && len(p.rts) == 0 && len(p.rows) == 0 &&
			(p.static == nil || (p.static.del.IsLive() && len(p.static.cells) == 0)) {
			delete(parts, k)
		}
	}
	return st, nil
}

func memPurgeRow(d *purgeDecider, st *PurgeStats, r *memRow, eff mutation.Deletion) {
	d.startRow(nil)
	d.eff = mutation.MaxDeletion(eff, r.del)
	if !r.del.IsLive() && d.purgeableDeletion(r.del) == purgeTombstone {
		r.del = mutation.Live
		st.Tombstones++
	}
	count := func(a purgeAction) {
		if a == purgeTombstone {
			st.Tombstones++
		} else {
			st.Shadowed++
		}
	}
	if l := r.marker; l.Timestamp != mutation.NoTimestamp {
		a := purgeKeep
		if d.eff.Deletes(l.Timestamp) {
			a = purgeShadowed
		} else if l.TTL != 0 && !l.IsLive(d.now) && l.LocalDeletionTime-int64(l.TTL) < d.gcBefore {
			a = purgeTombstone
		}
		if a != purgeKeep {
			r.marker = mutation.NoLiveness
			count(a)
		}
	}
	// Collection tombstones (no path) before their column's elements, as
	// in key order.
	keys := make([]string, 0, len(r.cells))
	for k := range r.cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := r.cells[keys[i]], r.cells[keys[j]]
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Path == nil && b.Path != nil
	})
	for _, k := range keys {
		c := r.cells[k]
		if a := d.decideCell(c.Column, c.Path != nil, &c); a != purgeKeep {
			delete(r.cells, k)
			count(a)
		}
	}
	// The clustering as written goes as a cell does (purgeDecider's
	// slotWritten).
	if r.hasWritten {
		if a := d.decideCell(deadColumn, false, &r.written); a != purgeKeep {
			r.written, r.hasWritten = mutation.Cell{}, false
			count(a)
		}
	}
}
