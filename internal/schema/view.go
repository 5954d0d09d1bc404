package schema

import (
	"bytes"
	"slices"
	"sort"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/google/uuid"
)

// ViewInfo marks a table as a materialized view of a base table. A view is
// stored like a table (it is in its keyspace's Tables, under its own name,
// and is read like one); the query layer keeps it up to date on every write
// of the base table.
type ViewInfo struct {
	BaseID   uuid.UUID
	BaseName string
	// IncludeAll is SELECT * (include_all_columns).
	IncludeAll bool
	// Where is the view's WHERE clause as CQL text (where_clause).
	Where string
}

// IsView reports whether t is a materialized view.
func (t *Table) IsView() bool { return t.View != nil }

// WithViews returns a copy of t that lists the given dependent views.
func (t *Table) WithViews(names []string) *Table {
	nt := *t
	nt.Views = append([]string(nil), names...)
	sort.Strings(nt.Views)
	return &nt
}

// CreateView adds view v of base table v.View.BaseName. It reports false
// (and no error) when the view exists and ifNotExists is set. validate runs
// under the schema lock with the current base table.
func (m *Manager) CreateView(v *Table, ifNotExists bool, validate func(base *Table) error) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		k, ok := kss[v.Keyspace]
		if !ok {
			return false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", v.Keyspace)
		}
		if IsSystemKeyspace(v.Keyspace) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", v.Keyspace)
		}
		base := k.Tables[v.View.BaseName]
		if base == nil || base.IsView() {
			if base != nil {
				return false, cqlerr.Invalidf("Materialized views cannot be created against other materialized views")
			}
			return false, cqlerr.Invalidf("Base table '%s' doesn't exist", v.View.BaseName)
		}
		if old := k.Tables[v.Name]; old != nil {
			if !old.IsView() {
				return false, cqlerr.Invalidf("Cannot create materialized view '%s' - a table with the same name already exists", v.Name)
			}
			if ifNotExists {
				return false, nil
			}
			return false, cqlerr.TableExists(v.Keyspace, v.Name)
		}
		if err := validate(base); err != nil {
			return false, err
		}
		if err := m.checkIDFree(kss, v.ID); err != nil {
			return false, err
		}
		v.View.BaseID = base.ID
		nk := k.withTable(v.Name, v)
		nk = nk.withTable(base.Name, base.WithViews(append(base.Views, v.Name)))
		kss[v.Keyspace] = nk
		return true, nil
	})
}

// DropView removes a materialized view and returns the removal of its
// data (nil when it did not exist and ifExists is set), which snapshots
// it first when snapshot is set and the view allows it.
func (m *Manager) DropView(ks, name string, ifExists, snapshot bool) (*Removal, error) {
	var dropped *Removal
	_, err := m.updateRemoving(func(kss map[string]*Keyspace) ([]Removal, bool, error) {
		// DropViewStatement.apply: a missing keyspace is a missing view.
		k, v, err := findView(kss, ks, name)
		if err != nil {
			if ifExists {
				return nil, false, nil
			}
			return nil, false, err
		}
		nk := k.withTable(name, nil)
		if base := nk.Tables[v.View.BaseName]; base != nil {
			var keep []string
			for _, n := range base.Views {
				if n != name {
					keep = append(keep, n)
				}
			}
			nk = nk.withTable(base.Name, base.WithViews(keep))
		}
		kss[ks] = nk
		dropped = &Removal{Keyspace: k, Table: v, Snapshot: v.AutoSnapshot(snapshot)}
		return []Removal{*dropped}, true, nil
	})
	return dropped, err
}

// AlterView replaces the parameters of a materialized view.
func (m *Manager) AlterView(ks, name string, ifExists bool, params func(old TableParams) (TableParams, error)) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		// AlterViewStatement.apply: a missing keyspace is a missing view.
		k, v, err := findView(kss, ks, name)
		if err != nil {
			if ifExists {
				return false, nil
			}
			return false, err
		}
		p, err := params(v.Params)
		if err != nil {
			return false, err
		}
		nv := *v
		nv.Params = p
		kss[ks] = k.withTable(name, &nv)
		return true, nil
	})
}

// findView returns a view and its keyspace; a missing keyspace is a missing
// view (Drop/AlterViewStatement.apply).
func findView(kss map[string]*Keyspace, ks, name string) (*Keyspace, *Table, error) {
	k := kss[ks]
	if k != nil {
		if v := k.Tables[name]; v != nil && v.IsView() {
			return k, v, nil
		}
	}
	return nil, nil, cqlerr.Invalidf("Materialized view '%s.%s' doesn't exist", ks, name)
}

// withViewMasks returns k with every view's column masks equal to its base
// table's: a view's columns are copies of the base's, masks included. The
// manager applies it in every schema update and on load, so a view follows
// CREATE VIEW, ALTER ... MASKED WITH / DROP MASKED and ADD on its base in
// the same update as the base, and views persisted before they followed
// masks get them too. Without it a role without UNMASK reads masked
// columns in clear through a view.
func (k *Keyspace) withViewMasks() *Keyspace {
	out := k
	for name, v := range k.Tables {
		if !v.IsView() {
			continue
		}
		base := k.Tables[v.View.BaseName]
		if base == nil {
			continue
		}
		var cols []*Column
		for i, c := range v.Columns {
			bc := base.Column(c.Name)
			if bc == nil || sameMask(c.Mask, bc.Mask) {
				continue
			}
			if cols == nil {
				cols = make([]*Column, len(v.Columns))
				for j, vc := range v.Columns {
					cc := *vc
					cols[j] = &cc
				}
			}
			cols[i].Mask = bc.Mask
		}
		if cols != nil {
			out = out.withTable(name, v.Altered(cols, v.Params, v.Dropped))
		}
	}
	return out
}

func sameMask(a, b *ColumnMask) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Function == b.Function && slices.Equal(a.ArgTypes, b.ArgTypes) &&
		slices.EqualFunc(a.Args, b.Args, bytes.Equal)
}
