package schema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/types"
)

// User-defined types (Cassandra's UserType and Types).
//
// A keyspace holds its UDTs by name, each as a non-frozen types.Type of
// kind UDT (Keyspace, Name, FieldNames and the field types in Params).
// Columns and other types refer to a UDT by embedding a copy of its
// definition (frozen or not); when a type is altered, every type and
// table of the keyspace that refers to it is rebuilt with the new
// definition, so a published Schema is always consistent. Field positions
// never change (ALTER TYPE only adds fields at the end and renames), so
// stored values and field cells stay valid.

// Type returns the named user type of the keyspace (non-frozen), or nil.
func (k *Keyspace) Type(name string) *types.Type {
	if k == nil {
		return nil
	}
	return k.Types[name]
}

// TypeNames returns the names of the keyspace's user types, sorted.
func (k *Keyspace) TypeNames() []string {
	names := make([]string, 0, len(k.Types))
	for n := range k.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReferencesUDT reports whether t is, or contains, the user type name of
// keyspace ks.
func ReferencesUDT(t *types.Type, ks, name string) bool {
	if t == nil {
		return false
	}
	if t.Kind == types.UDT && t.Keyspace == ks && t.Name == name {
		return true
	}
	for _, p := range t.Params {
		if ReferencesUDT(p, ks, name) {
			return true
		}
	}
	return false
}

// TypesReferencing returns the names of the keyspace's types (other than
// name itself) whose fields refer to the user type name, sorted.
func (k *Keyspace) TypesReferencing(name string) []string {
	var out []string
	for _, tn := range k.TypeNames() {
		if tn == name {
			continue
		}
		for _, p := range k.Types[tn].Params {
			if ReferencesUDT(p, k.Name, name) {
				out = append(out, tn)
				break
			}
		}
	}
	return out
}

// TablesReferencing returns the names of the keyspace's tables with a
// column (or dropped column) of a type that refers to the user type name,
// sorted.
func (k *Keyspace) TablesReferencing(name string) []string {
	var out []string
	for _, tn := range k.TableNames() {
		if k.Tables[tn].IsView() {
			continue // a view's base table is listed
		}
		if tableReferences(k.Tables[tn], k.Name, name) {
			out = append(out, tn)
		}
	}
	return out
}

func tableReferences(t *Table, ks, name string) bool {
	for _, c := range t.Columns {
		if ReferencesUDT(c.Type, ks, name) {
			return true
		}
	}
	return false
}

// withTypes returns a copy of k whose types are defs; the types and
// tables referring to a changed type are rebuilt with the new definitions.
func (k *Keyspace) withTypes(defs map[string]*types.Type, changed string) *Keyspace {
	nk := *k
	nk.Types = make(map[string]*types.Type, len(defs))
	for n, t := range defs {
		nk.Types[n] = t
	}
	if changed == "" {
		return &nk
	}
	// Rebuild every type that refers (transitively) to the changed one.
	for _, n := range nk.TypeNames() {
		if n != changed && ReferencesUDT(nk.Types[n], k.Name, changed) {
			nk.Types[n] = refreshUDTs(nk.Types[n], k.Name, defs, true)
		}
	}
	nk.Tables = make(map[string]*Table, len(k.Tables))
	for n, t := range k.Tables {
		if !tableReferences(t, k.Name, changed) {
			nk.Tables[n] = t
			continue
		}
		cols := make([]*Column, len(t.Columns))
		for i, c := range t.Columns {
			cc := *c
			cc.Type = refreshUDTs(c.Type, k.Name, defs, false)
			cols[i] = &cc
		}
		nt := t.Altered(cols, t.Params, t.Dropped)
		nt.Virtual = t.Virtual
		nk.Tables[n] = nt
	}
	return &nk
}

// refreshUDTs returns t with every user type of keyspace ks replaced by
// its definition in defs (keeping each occurrence's frozenness). top
// keeps t's own definition when t is itself a UDT being refreshed.
func refreshUDTs(t *types.Type, ks string, defs map[string]*types.Type, top bool) *types.Type {
	if t == nil {
		return nil
	}
	src := t
	if t.Kind == types.UDT && t.Keyspace == ks && !top {
		if d := defs[t.Name]; d != nil {
			src = d
		}
	}
	nt := *src
	nt.Frozen = t.Frozen
	if len(src.Params) > 0 {
		nt.Params = make([]*types.Type, len(src.Params))
		for i, p := range src.Params {
			nt.Params[i] = refreshUDTs(p, ks, defs, false)
		}
	}
	if src.FieldNames != nil {
		nt.FieldNames = append([]string(nil), src.FieldNames...)
	}
	return &nt
}

// CreateType adds a user type (t must be a non-frozen UDT whose Keyspace
// names an existing keyspace). It reports false (and no error) when the
// type exists and ifNotExists is set.
func (m *Manager) CreateType(t *types.Type, ifNotExists bool) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		ks, ok := kss[t.Keyspace]
		if !ok {
			return false, cqlerr.Invalidf("Keyspace '%s' doesn't exist", t.Keyspace)
		}
		if IsSystemKeyspace(t.Keyspace) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", t.Keyspace)
		}
		if ks.Type(t.Name) != nil {
			if ifNotExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("A user type with name '%s' already exists", t.Name)
		}
		defs := map[string]*types.Type{}
		for n, d := range ks.Types {
			defs[n] = d
		}
		defs[t.Name] = t
		kss[t.Keyspace] = ks.withTypes(defs, "")
		return true, nil
	})
}

// AlterType replaces the definition of a user type with what fn returns
// (fn sees the current keyspace and type; returning the old type unchanged
// means no change) and rebuilds the types and tables using it. It reports
// false (and no error) when the type does not exist and ifExists is set,
// or when fn changed nothing.
func (m *Manager) AlterType(ksName, name string, ifExists bool, fn func(ks *Keyspace, old *types.Type) (*types.Type, error)) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		ks := kss[ksName]
		old := ks.Type(name)
		if old == nil {
			if ifExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("Type %s.%s doesn't exist", ksName, name)
		}
		if IsSystemKeyspace(ksName) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ksName)
		}
		nt, err := fn(ks, old)
		if err != nil {
			return false, err
		}
		if nt == old {
			return false, nil
		}
		defs := map[string]*types.Type{}
		for n, d := range ks.Types {
			defs[n] = d
		}
		defs[name] = nt
		kss[ksName] = ks.withTypes(defs, name)
		return true, nil
	})
}

// DropType removes a user type that no table or other type uses. It
// reports false (and no error) when the type does not exist and ifExists
// is set.
func (m *Manager) DropType(ksName, name string, ifExists bool) (bool, error) {
	return m.update(func(kss map[string]*Keyspace) (bool, error) {
		ks := kss[ksName]
		if ks.Type(name) == nil {
			if ifExists {
				return false, nil
			}
			return false, cqlerr.Invalidf("Type '%s.%s' doesn't exist", ksName, name)
		}
		if IsSystemKeyspace(ksName) {
			return false, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ksName)
		}
		if refs := ks.TypesReferencing(name); len(refs) > 0 {
			return false, cqlerr.Invalidf("Cannot drop user type '%s.%s' as it is still used by user types %s",
				ksName, name, strings.Join(refs, ", "))
		}
		if refs := ks.TablesReferencing(name); len(refs) > 0 {
			return false, cqlerr.Invalidf("Cannot drop user type '%s.%s' as it is still used by tables %s",
				ksName, name, strings.Join(refs, ", "))
		}
		defs := map[string]*types.Type{}
		for n, d := range ks.Types {
			if n != name {
				defs[n] = d
			}
		}
		kss[ksName] = ks.withTypes(defs, "")
		return true, nil
	})
}

// ---------------------------------------------------------------------------
// Persistence of user types: each type as its field names and field type
// strings (as system_schema.types shows them); types and columns refer to
// user types by name and are resolved against the keyspace's definitions.

type persistedType struct {
	Name       string   `json:"name"`
	FieldNames []string `json:"field_names"`
	FieldTypes []string `json:"field_types"`
}

func encodeTypes(ks *Keyspace) []persistedType {
	var out []persistedType
	for _, n := range ks.TypeNames() {
		t := ks.Types[n]
		pt := persistedType{Name: n, FieldNames: append([]string(nil), t.FieldNames...)}
		for _, p := range t.Params {
			pt.FieldTypes = append(pt.FieldTypes, p.String())
		}
		out = append(out, pt)
	}
	return out
}

// typeDecoder resolves the persisted user types of one keyspace.
type typeDecoder struct {
	ks    string
	raw   map[string]*persistedType
	done  map[string]*types.Type
	doing map[string]bool
}

func newTypeDecoder(ks string, pts []persistedType) *typeDecoder {
	d := &typeDecoder{ks: ks, raw: map[string]*persistedType{}, done: map[string]*types.Type{}, doing: map[string]bool{}}
	for i := range pts {
		d.raw[pts[i].Name] = &pts[i]
	}
	return d
}

// resolve returns the definition of a user type by name (as written in a
// type string: possibly "ks.name").
func (d *typeDecoder) resolve(name string) (*types.Type, error) {
	if i := strings.IndexByte(name, '.'); i >= 0 && name[:i] == d.ks {
		name = name[i+1:]
	}
	if t, ok := d.done[name]; ok {
		return t, nil
	}
	pt, ok := d.raw[name]
	if !ok {
		return nil, fmt.Errorf("unknown type %s.%s", d.ks, name)
	}
	if d.doing[name] {
		return nil, fmt.Errorf("circular type %s.%s", d.ks, name)
	}
	d.doing[name] = true
	defer delete(d.doing, name)
	if len(pt.FieldNames) != len(pt.FieldTypes) {
		return nil, fmt.Errorf("type %s.%s: %d field names for %d field types", d.ks, name, len(pt.FieldNames), len(pt.FieldTypes))
	}
	t := &types.Type{Kind: types.UDT, Keyspace: d.ks, Name: name, FieldNames: append([]string(nil), pt.FieldNames...)}
	for _, fs := range pt.FieldTypes {
		ft, err := d.parse(fs)
		if err != nil {
			return nil, fmt.Errorf("type %s.%s: %w", d.ks, name, err)
		}
		t.Params = append(t.Params, ft)
	}
	d.done[name] = t
	return t, nil
}

// parse parses a type string that may name user types of the keyspace.
func (d *typeDecoder) parse(s string) (*types.Type, error) {
	return types.ParseTypeStringWith(s, d.resolve)
}

func (d *typeDecoder) all() (map[string]*types.Type, error) {
	out := make(map[string]*types.Type, len(d.raw))
	for n := range d.raw {
		t, err := d.resolve(n)
		if err != nil {
			return nil, err
		}
		out[n] = t
	}
	return out, nil
}

// ExpandUDTs returns t with every user type replaced by a tuple of its
// field types (Cassandra's AbstractType.expandUserTypes), as dropped
// columns keep their type: the user type may be dropped later.
func ExpandUDTs(t *types.Type) *types.Type {
	if t == nil {
		return nil
	}
	if t.Kind != types.UDT && len(t.Params) == 0 {
		return t
	}
	nt := *t
	if len(t.Params) > 0 {
		nt.Params = make([]*types.Type, len(t.Params))
		for i, p := range t.Params {
			nt.Params[i] = ExpandUDTs(p)
		}
	}
	if t.Kind == types.UDT {
		return types.TupleOf(nt.Params...)
	}
	return &nt
}
