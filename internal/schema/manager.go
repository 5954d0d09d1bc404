package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/tracing"
	"github.com/google/uuid"
)

// Schema is one immutable version of the whole schema, system keyspaces
// included.
type Schema struct {
	Keyspaces map[string]*Keyspace
	Version   uuid.UUID
}

// Keyspace returns the named keyspace or nil.
func (s *Schema) Keyspace(name string) *Keyspace { return s.Keyspaces[name] }

// Table returns the named table or nil.
func (s *Schema) Table(ks, name string) *Table { return s.Keyspaces[ks].Table(name) }

// KeyspaceNames returns the keyspace names sorted.
func (s *Schema) KeyspaceNames() []string {
	names := make([]string, 0, len(s.Keyspaces))
	for n := range s.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// MetaStore is where the Manager persists the user schema. PutMeta must be
// durable when it returns.
type MetaStore interface {
	GetMeta(key string) ([]byte, error)
	PutMeta(key string, value []byte) error
}

const metaKey = "schema"

// Manager applies schema changes, one at a time, and publishes immutable
// versions.
type Manager struct {
	mu    sync.Mutex // serializes changes
	cur   atomic.Pointer[Schema]
	store MetaStore
	// pending are the removals not yet done (guarded by mu).
	pending []Removal
}

// NewManager loads the persisted schema (if any) and adds the system
// keyspaces.
func NewManager(store MetaStore) (*Manager, error) {
	m := &Manager{store: store}
	user := map[string]*Keyspace{}
	var sysRepl map[string]persistedKeyspace
	version := uuid.Nil
	if store != nil {
		b, err := store.GetMeta(metaKey)
		if err != nil {
			return nil, err
		}
		if b != nil {
			var p persistedSchema
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, fmt.Errorf("schema: decoding persisted schema: %w", err)
			}
			user, err = p.decode()
			if err != nil {
				return nil, err
			}
			sysRepl = p.SystemReplication
			version = p.Version
			if m.pending, err = p.decodeRemovals(); err != nil {
				return nil, err
			}
		}
	}
	if version == uuid.Nil {
		version = tracing.NewTimeUUID()
	}
	s := &Schema{Keyspaces: map[string]*Keyspace{}, Version: version}
	for n, ks := range SystemKeyspaces() {
		if r, ok := sysRepl[n]; ok && IsReplicatedSystemKeyspace(n) && r.Replication != nil {
			ks.Replication, ks.DurableWrites = r.Replication, r.DurableWrites
		}
		s.Keyspaces[n] = ks
	}
	for n, ks := range user {
		s.Keyspaces[n] = ks.withViewMasks()
	}
	m.cur.Store(s)
	return m, nil
}

// Current returns the current schema version. Never nil.
func (m *Manager) Current() *Schema { return m.cur.Load() }

// update runs fn on a shallow copy of the keyspace map and publishes the
// result when fn reports a change.
func (m *Manager) update(fn func(kss map[string]*Keyspace) (bool, error)) (bool, error) {
	return m.updateRemoving(func(kss map[string]*Keyspace) ([]Removal, bool, error) {
		changed, err := fn(kss)
		return nil, changed, err
	})
}

// updateRemoving is update for the changes that drop data: the removals fn
// returns are persisted with the new schema (see Removal).
func (m *Manager) updateRemoving(fn func(kss map[string]*Keyspace) ([]Removal, bool, error)) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.cur.Load()
	kss := make(map[string]*Keyspace, len(old.Keyspaces))
	for n, ks := range old.Keyspaces {
		kss[n] = ks
	}
	removals, changed, err := fn(kss)
	if err != nil || !changed {
		return false, err
	}
	for name, ks := range kss {
		if ks != old.Keyspaces[name] { // only what fn replaced can have changed
			kss[name] = ks.withViewMasks()
		}
	}
	next := &Schema{Keyspaces: kss, Version: tracing.NewTimeUUID()}
	pending := append(slices.Clip(m.pending), removals...)
	if err := m.persist(next, pending); err != nil {
		return false, err
	}
	m.pending = pending
	m.cur.Store(next)
	return true, nil
}

// persist writes schema s with the removals still pending; m.mu is held.
func (m *Manager) persist(s *Schema, pending []Removal) error {
	if m.store == nil {
		return nil
	}
	p := encodeSchema(s)
	p.Removals = encodeRemovals(pending)
	b, err := json.Marshal(p)
	if err != nil {
		return cqlerr.Serverf("schema: encoding: %v", err)
	}
	if err := m.store.PutMeta(metaKey, b); err != nil {
		return cqlerr.Serverf("schema: persisting: %v", err)
	}
	return nil
}

// IsSystemKeyspace reports whether name is one of the keyspaces cqld owns.
func IsSystemKeyspace(name string) bool {
	_, ok := systemKeyspaceNames[name]
	return ok
}

// IsVirtualKeyspace reports whether name is one of Cassandra's virtual
// keyspaces (system_views, system_virtual_schema), whose tables cqld
// serves as Cassandra serves virtual tables. (cqld also serves system and
// system_schema itself, but Cassandra stores those.)
func IsVirtualKeyspace(name string) bool {
	return name == SystemViews || name == SystemVirtualSchema
}

// protectSystem is Cassandra's ClientState.preventSystemKSSchemaModification
// for a schema change (perm CREATE, ALTER or DROP) of keyspace ks, or of
// its table when table is set: the local system keyspaces are not
// user-modifiable; the replicated ones (system_auth, system_distributed,
// system_traces) only allow ALTER KEYSPACE.
func protectSystem(ks, perm, table string) error {
	if IsReplicatedSystemKeyspace(ks) {
		if table != "" {
			return cqlerr.New(cqlerr.Unauthorized, "Cannot %s <table %s.%s>", perm, ks, table)
		}
		if perm == "ALTER" {
			return nil
		}
		return cqlerr.New(cqlerr.Unauthorized, "Cannot %s <keyspace %s>", perm, ks)
	}
	if IsSystemKeyspace(ks) {
		return cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ks)
	}
	return nil
}

// CreateKeyspace adds a keyspace. It reports false (and no error) when the
// keyspace exists and ifNotExists is set.
func (m *Manager) CreateKeyspace(ks *Keyspace, ifNotExists bool) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		if _, ok := kss[ks.Name]; ok {
			if ifNotExists {
				return false, nil
			}
			return false, cqlerr.KeyspaceExists(ks.Name)
		}
		if ks.Tables == nil {
			ks.Tables = map[string]*Table{}
		}
		kss[ks.Name] = ks
		return true, nil
	})
}

// AlterKeyspace replaces the replication and durable_writes of a keyspace.
func (m *Manager) AlterKeyspace(name string, ifExists bool, fn func(old *Keyspace) (*Keyspace, error)) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		old, ok := kss[name]
		if !ok {
			if ifExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", name)
		}
		// The replicated system keyspaces (system_auth, system_distributed,
		// system_traces) take ALTER KEYSPACE, as in Cassandra: operators
		// raise system_auth's replication factor that way.
		if IsSystemKeyspace(name) && !IsReplicatedSystemKeyspace(name) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", name)
		}
		nks, err := fn(old)
		if err != nil {
			return false, err
		}
		nks.Tables = old.Tables
		nks.Types = old.Types
		kss[name] = nks
		return true, nil
	})
}

// DropKeyspace removes a keyspace and returns its definition (nil when it
// did not exist and ifExists is set) and the removals of its tables' data,
// which snapshot each table first when snapshot is set and the table
// allows it.
func (m *Manager) DropKeyspace(name string, ifExists, snapshot bool) (*Keyspace, []Removal, error) {
	var dropped *Keyspace
	var removals []Removal
	_, err := m.updateRemoving(func(kss map[string]*Keyspace) ([]Removal, bool, error) {
		ks, ok := kss[name]
		if !ok {
			if ifExists {
				return nil, false, nil
			}
			return nil, false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", name)
		}
		if err := protectSystem(name, "DROP", ""); err != nil {
			return nil, false, err
		}
		delete(kss, name)
		dropped = ks
		for _, tn := range ks.TableNames() {
			t := ks.Tables[tn]
			removals = append(removals, Removal{Keyspace: ks, Table: t, Snapshot: t.AutoSnapshot(snapshot)})
		}
		return removals, true, nil
	})
	return dropped, removals, err
}

// CreateTable adds a table to its keyspace.
func (m *Manager) CreateTable(t *Table, ifNotExists bool) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		ks, ok := kss[t.Keyspace]
		if !ok {
			return false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", t.Keyspace)
		}
		if err := protectSystem(t.Keyspace, "CREATE", ""); err != nil {
			return false, err
		}
		if _, ok := ks.Tables[t.Name]; ok {
			if ifNotExists {
				return false, nil
			}
			return false, cqlerr.TableExists(t.Keyspace, t.Name)
		}
		if err := m.checkIDFree(kss, t.ID); err != nil {
			return false, err
		}
		kss[t.Keyspace] = ks.withTable(t.Name, t)
		return true, nil
	})
}

// checkIDFree refuses an id under which a table, view or index of the
// schema (system tables included) stores its data, or dropped data not yet
// removed lies: an id given WITH ID must not read or overwrite another's
// data. m.mu is held.
func (m *Manager) checkIDFree(kss map[string]*Keyspace, id uuid.UUID) error {
	for _, r := range m.pending {
		if slices.Contains(r.ids(), id) {
			return cqlerr.Invalidf("Table id %s is still used by the data of dropped %s, not yet removed", id, r.name())
		}
	}
	for _, k := range kss {
		for _, o := range k.Tables {
			if o.ID == id {
				return cqlerr.Invalidf("Table id %s is already used by %s.%s", id, o.Keyspace, o.Name)
			}
			for _, ix := range o.Indexes {
				if ix.ID == id {
					return cqlerr.Invalidf("Table id %s is already used by index %s.%s", id, o.Keyspace, ix.Name)
				}
			}
		}
	}
	return nil
}

// DropTable removes a table and returns the removal of its data (nil when
// it did not exist and ifExists is set), which snapshots it first when
// snapshot is set and the table allows it.
func (m *Manager) DropTable(ksName, name string, ifExists, snapshot bool) (*Removal, error) {
	var dropped *Removal
	_, err := m.updateRemoving(func(kss map[string]*Keyspace) ([]Removal, bool, error) {
		ks, ok := kss[ksName]
		if !ok {
			if ifExists {
				return nil, false, nil
			}
			return nil, false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", ksName)
		}
		t, ok := ks.Tables[name]
		if !ok {
			if ifExists {
				return nil, false, nil
			}
			return nil, false, cqlerr.Invalidf("Table '%s.%s' doesn't exist", ksName, name)
		}
		if err := protectSystem(ksName, "DROP", name); err != nil {
			return nil, false, err
		}
		if t.IsView() {
			return nil, false, cqlerr.Invalidf("Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead.")
		}
		if len(t.Views) > 0 {
			// Cassandra's message prints the keyspace where it means the views.
			return nil, false, cqlerr.Invalidf("Cannot drop a table when materialized views still depend on it (%s)", ksName)
		}
		kss[ksName] = ks.withTable(name, nil)
		dropped = &Removal{Keyspace: ks, Table: t, Snapshot: t.AutoSnapshot(snapshot)}
		return []Removal{*dropped}, true, nil
	})
	return dropped, err
}

// AlterTable replaces a table by fn's result. fn returns nil (and no error)
// when nothing changes; AlterTable then reports false. A missing table is an
// error unless ifExists is set.
func (m *Manager) AlterTable(ksName, name string, ifExists bool, fn func(ks *Keyspace, old *Table) (*Table, error)) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		ks := kss[ksName]
		t := ks.Table(name)
		if t == nil {
			if ifExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("Table '%s.%s' doesn't exist", ksName, name)
		}
		if err := protectSystem(ksName, "ALTER", name); err != nil {
			return false, err
		}
		if t.Virtual {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ksName)
		}
		nt, err := fn(ks, t)
		if err != nil || nt == nil {
			return false, err
		}
		kss[ksName] = ks.withTable(name, nt)
		return true, nil
	})
}

func sortedDropped(m map[string]*DroppedColumn) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// withTable returns a copy of ks with table name set to t (removed if nil).
func (k *Keyspace) withTable(name string, t *Table) *Keyspace {
	nk := *k
	nk.Tables = make(map[string]*Table, len(k.Tables)+1)
	for n, tt := range k.Tables {
		nk.Tables[n] = tt
	}
	if t == nil {
		delete(nk.Tables, name)
	} else {
		nk.Tables[name] = t
	}
	return &nk
}

// ---------------------------------------------------------------------------
// Persistence. The persisted form is JSON: small, readable in a debugger,
// and versioned by the Format field.

type persistedSchema struct {
	Format    int                 `json:"format"`
	Version   uuid.UUID           `json:"version"`
	Keyspaces []persistedKeyspace `json:"keyspaces"`
	// SystemReplication keeps ALTER KEYSPACE of the replicated system
	// keyspaces (system_auth, ...), whose tables are cqld's own.
	SystemReplication map[string]persistedKeyspace `json:"system_replication,omitempty"`
	// Removals are the pending removals of dropped data.
	Removals []persistedRemoval `json:"removals,omitempty"`
}

type persistedKeyspace struct {
	Name          string            `json:"name"`
	Replication   map[string]string `json:"replication"`
	DurableWrites bool              `json:"durable_writes"`
	Tables        []persistedTable  `json:"tables"`
	// Types are the user-defined types (absent in older schemas).
	Types []persistedType `json:"types,omitempty"`
}

type persistedTable struct {
	Name         string            `json:"name"`
	ID           uuid.UUID         `json:"id"`
	Columns      []persistedColumn `json:"columns"`
	Params       TableParams       `json:"params"`
	NextColumnID uint32            `json:"next_column_id"`
	Indexes      []persistedIndex  `json:"indexes,omitempty"`
	View         *ViewInfo         `json:"view,omitempty"`
	Views        []string          `json:"views,omitempty"`
	// Counter keeps the counter flag of a counter table whose counter
	// columns were all dropped. Absent in older schemas.
	Counter bool               `json:"counter,omitempty"`
	Dropped []persistedDropped `json:"dropped,omitempty"`
}

type persistedDropped struct {
	Name        string     `json:"name"`
	Type        string     `json:"type"`
	Kind        ColumnKind `json:"kind"`
	DroppedTime int64      `json:"dropped_time"`
	ID          uint32     `json:"id"`
}

type persistedColumn struct {
	Name     string      `json:"name"`
	Type     string      `json:"type"`
	Kind     ColumnKind  `json:"kind"`
	Position int         `json:"position"`
	Desc     bool        `json:"desc,omitempty"`
	ID       uint32      `json:"id"`
	Mask     *ColumnMask `json:"mask,omitempty"`
}

func encodeSchema(s *Schema) *persistedSchema {
	p := &persistedSchema{Format: 1, Version: s.Version}
	for _, name := range s.KeyspaceNames() {
		ks := s.Keyspaces[name]
		if IsSystemKeyspace(name) {
			if IsReplicatedSystemKeyspace(name) {
				if p.SystemReplication == nil {
					p.SystemReplication = map[string]persistedKeyspace{}
				}
				p.SystemReplication[name] = persistedKeyspace{Name: name, Replication: ks.Replication, DurableWrites: ks.DurableWrites}
			}
			continue
		}
		pk := persistedKeyspace{Name: ks.Name, Replication: ks.Replication, DurableWrites: ks.DurableWrites,
			Types: encodeTypes(ks)}
		for _, tn := range ks.TableNames() {
			pk.Tables = append(pk.Tables, encodeTable(ks.Tables[tn]))
		}
		p.Keyspaces = append(p.Keyspaces, pk)
	}
	return p
}

func encodeTable(t *Table) persistedTable {
	pt := persistedTable{Name: t.Name, ID: t.ID, Params: t.Params, NextColumnID: t.NextColumnID,
		Indexes: encodeIndexes(t), View: t.View, Views: t.Views, Counter: t.IsCounter}
	for _, dn := range sortedDropped(t.Dropped) {
		d := t.Dropped[dn]
		pt.Dropped = append(pt.Dropped, persistedDropped{Name: d.Name, Type: ExpandUDTs(d.Type).String(), Kind: d.Kind,
			DroppedTime: d.DroppedTime, ID: d.ID})
	}
	for _, c := range t.Columns {
		pt.Columns = append(pt.Columns, persistedColumn{Name: c.Name, Type: c.Type.String(),
			Kind: c.Kind, Position: c.Position, Desc: c.Desc, ID: c.ID, Mask: c.Mask})
	}
	return pt
}

// MarshalTable encodes the definition of table t of keyspace ks, with the
// keyspace's user types, as the node persists its schema (a snapshot's
// record of the table its data was written with).
func MarshalTable(ks *Keyspace, t *Table) ([]byte, error) {
	pk := oneTable(ks, t)
	return json.MarshalIndent(&pk, "", "  ")
}

// UnmarshalTable decodes what MarshalTable wrote.
func UnmarshalTable(b []byte) (*Table, error) {
	var pk persistedKeyspace
	if err := json.Unmarshal(b, &pk); err != nil {
		return nil, fmt.Errorf("schema: table definition: %w", err)
	}
	_, t, err := decodeOneTable(pk)
	return t, err
}

// oneTable is keyspace ks persisted with its user types and table t alone.
func oneTable(ks *Keyspace, t *Table) persistedKeyspace {
	return persistedKeyspace{Name: ks.Name, Replication: ks.Replication, DurableWrites: ks.DurableWrites,
		Types: encodeTypes(ks), Tables: []persistedTable{encodeTable(t)}}
}

// decodeOneTable decodes what oneTable encoded.
func decodeOneTable(pk persistedKeyspace) (*Keyspace, *Table, error) {
	if len(pk.Tables) != 1 {
		return nil, nil, fmt.Errorf("schema: table definition: %d tables", len(pk.Tables))
	}
	kss, err := (&persistedSchema{Keyspaces: []persistedKeyspace{pk}}).decode()
	if err != nil {
		return nil, nil, err
	}
	ks := kss[pk.Name]
	return ks, ks.Tables[pk.Tables[0].Name], nil
}

func (p *persistedSchema) decode() (map[string]*Keyspace, error) {
	out := map[string]*Keyspace{}
	for _, pk := range p.Keyspaces {
		ks := &Keyspace{Name: pk.Name, Replication: pk.Replication, DurableWrites: pk.DurableWrites,
			Tables: map[string]*Table{}}
		udts := newTypeDecoder(pk.Name, pk.Types)
		if len(pk.Types) > 0 {
			defs, err := udts.all()
			if err != nil {
				return nil, fmt.Errorf("schema: keyspace %s: %w", pk.Name, err)
			}
			ks.Types = defs
		}
		for _, pt := range pk.Tables {
			cols := make([]*Column, 0, len(pt.Columns))
			for _, pc := range pt.Columns {
				typ, err := udts.parse(pc.Type)
				if err != nil {
					return nil, fmt.Errorf("schema: column %s.%s.%s: %w", pk.Name, pt.Name, pc.Name, err)
				}
				cols = append(cols, &Column{Name: pc.Name, Type: typ, Kind: pc.Kind, Position: pc.Position,
					Desc: pc.Desc, ID: pc.ID, Mask: pc.Mask})
			}
			var dropped map[string]*DroppedColumn
			for _, pd := range pt.Dropped {
				typ, err := udts.parse(pd.Type)
				if err != nil {
					return nil, fmt.Errorf("schema: dropped column %s.%s.%s: %w", pk.Name, pt.Name, pd.Name, err)
				}
				if dropped == nil {
					dropped = map[string]*DroppedColumn{}
				}
				dropped[pd.Name] = &DroppedColumn{Name: pd.Name, Type: typ, Kind: pd.Kind, DroppedTime: pd.DroppedTime, ID: pd.ID}
			}
			t := NewTable(pk.Name, pt.Name, pt.ID, cols, pt.Params)
			if dropped != nil {
				t = t.Altered(t.Columns, t.Params, dropped)
			}
			t.IsCounter = t.IsCounter || pt.Counter
			if pt.NextColumnID > t.NextColumnID {
				t.NextColumnID = pt.NextColumnID
			}
			decodeIndexes(t, pt.Indexes)
			t.View, t.Views = pt.View, pt.Views
			ks.Tables[t.Name] = t
		}
		out[ks.Name] = ks
	}
	return out, nil
}

// IsReplicatedSystemKeyspace reports whether name is one of the system
// keyspaces Cassandra replicates (system_auth, system_distributed,
// system_traces): their tables take writes and TRUNCATE, and only
// ALTER KEYSPACE of their schema.
func IsReplicatedSystemKeyspace(name string) bool {
	switch name {
	case SystemAuthKeyspace, SystemDistributed, SystemTracesKeyspace:
		return true
	}
	return false
}
