package schema

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// Removal is dropped data the node has still to remove: a table or view of
// a DROP (with its indexes; snapshotted first under auto_snapshot), or the
// index of a DROP INDEX. The schema change that drops the data persists its
// removal with it, and the node marks it Removed once the data is gone:
// when the node stops in between, the removal is still pending at the next
// start, which finishes it. Until then the ids stay taken (a table created
// WITH ID one of them would see the old data).
type Removal struct {
	// Keyspace is the keyspace as it was before the drop (its user types
	// go into the table's snapshot).
	Keyspace *Keyspace
	// Table is the dropped table or view, or for an index the table it
	// was on, as it was before the drop.
	Table *Table
	// Index is the dropped index; nil when the table itself was dropped.
	Index *Index
	// Snapshot is set when the data is to be snapshotted before its
	// removal (auto_snapshot as it was at the drop, and the table's
	// allow_auto_snapshot): a removal finished at a later start keeps
	// to it whatever the configuration says then.
	Snapshot bool
}

// AutoSnapshot reports whether the table's data is snapshotted before a
// TRUNCATE or a DROP discards it, with auto_snapshot set to enabled: both
// it and the table's allow_auto_snapshot must be.
func (t *Table) AutoSnapshot(enabled bool) bool { return enabled && t.Params.AllowAutoSnapshot }

// ids returns the storage ids of the data to remove.
func (r Removal) ids() []uuid.UUID {
	if r.Index != nil {
		return []uuid.UUID{r.Index.ID}
	}
	ids := []uuid.UUID{r.Table.ID}
	for _, ix := range r.Table.Indexes {
		ids = append(ids, ix.ID)
	}
	return ids
}

// name is the dropped table's or index's qualified name.
func (r Removal) name() string {
	if r.Index != nil {
		return "index " + r.Table.Keyspace + "." + r.Index.Name
	}
	return r.Table.Keyspace + "." + r.Table.Name
}

func (r Removal) same(o Removal) bool {
	return r.Table.ID == o.Table.ID && (r.Index == nil) == (o.Index == nil) &&
		(r.Index == nil || r.Index.Name == o.Index.Name)
}

// PendingRemovals returns the removals not yet done, oldest first.
func (m *Manager) PendingRemovals() []Removal {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.pending)
}

// Removed records that the data of rs is gone, in one write. The schema
// does not change.
func (m *Manager) Removed(rs ...Removal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	pending := slices.DeleteFunc(slices.Clone(m.pending), func(p Removal) bool {
		return slices.ContainsFunc(rs, p.same)
	})
	if len(pending) == len(m.pending) {
		return nil
	}
	if err := m.persist(m.cur.Load(), pending); err != nil {
		return err
	}
	m.pending = pending
	return nil
}

// persistedRemoval is a Removal: its keyspace holds the one table.
type persistedRemoval struct {
	Keyspace persistedKeyspace `json:"keyspace"`
	Index    string            `json:"index,omitempty"`
	Snapshot bool              `json:"snapshot,omitempty"`
}

func encodeRemovals(rs []Removal) []persistedRemoval {
	var out []persistedRemoval
	for _, r := range rs {
		pr := persistedRemoval{Keyspace: oneTable(r.Keyspace, r.Table), Snapshot: r.Snapshot}
		if r.Index != nil {
			pr.Index = r.Index.Name
		}
		out = append(out, pr)
	}
	return out
}

func (p *persistedSchema) decodeRemovals() ([]Removal, error) {
	var out []Removal
	for _, pr := range p.Removals {
		ks, t, err := decodeOneTable(pr.Keyspace)
		if err != nil {
			return nil, fmt.Errorf("schema: pending removal: %w", err)
		}
		r := Removal{Keyspace: ks, Table: t, Snapshot: pr.Snapshot}
		if pr.Index != "" {
			i := slices.IndexFunc(t.Indexes, func(ix *Index) bool { return ix.Name == pr.Index })
			if i < 0 {
				return nil, fmt.Errorf("schema: pending removal: no index %s on %s.%s", pr.Index, t.Keyspace, t.Name)
			}
			r.Index = t.Indexes[i]
		}
		out = append(out, r)
	}
	return out, nil
}
