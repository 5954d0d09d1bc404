package query

import (
	"context"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
	"github.com/cqld/cqld/internal/types"
)

// User-defined types: type resolution (Cassandra's CQL3Type.Raw.prepare)
// and CREATE / ALTER / DROP TYPE (CreateTypeStatement, AlterTypeStatement,
// DropTypeStatement), with Cassandra 5.0's rules and messages.

// typeResolver turns written types into types.Types, resolving user type
// names against the keyspace ks of the statement in schema s (nil s: no
// user types).
type typeResolver struct {
	s  *schema.Schema
	ks string
}

// resolveTypeIn resolves a written type for a statement on keyspace ks.
func resolveTypeIn(s *schema.Schema, te cql.TypeExpr, ks string) (*types.Type, error) {
	return typeResolver{s: s, ks: ks}.prepare(te, false)
}

// rawKind classifies a written type the way CQL3Type.Raw does.
type rawKind uint8

const (
	rawNative rawKind = iota
	rawCollection
	rawFrozen
	rawTuple
	rawVector
	rawUDT
	rawCustom
)

func kindOfRaw(te cql.TypeExpr) rawKind {
	if te.Custom != "" {
		return rawCustom
	}
	name := strings.ToLower(te.Name)
	if te.Keyspace == "" && len(te.Params) == 0 {
		if _, ok := types.NativeByName[name]; ok {
			return rawNative
		}
		if name == "empty" {
			return rawNative
		}
	}
	if len(te.Params) > 0 && te.Keyspace == "" {
		switch name {
		case "list", "set", "map":
			return rawCollection
		case "frozen":
			return rawFrozen
		case "tuple":
			return rawTuple
		case "vector":
			return rawVector
		}
	}
	return rawUDT
}

// isNonFrozenMulti reports whether a collection parameter is written as a
// type that would be multi-cell (a collection or UDT without frozen<>).
func isNonFrozenMulti(te cql.TypeExpr) (collection, udt bool) {
	switch kindOfRaw(te) {
	case rawCollection:
		return true, false
	case rawUDT:
		return false, true
	}
	return false, false
}

func isRawNative(te cql.TypeExpr, name string) bool {
	return kindOfRaw(te) == rawNative && strings.EqualFold(te.Name, name)
}

// rawString is the written type as Cassandra prints a CQL3Type.Raw.
func rawString(te cql.TypeExpr, frozen bool) string {
	if frozen {
		return "frozen<" + te.String() + ">"
	}
	return te.String()
}

func (r typeResolver) prepare(te cql.TypeExpr, frozen bool) (*types.Type, error) {
	name := strings.ToLower(te.Name)
	switch kindOfRaw(te) {
	case rawCustom:
		return &types.Type{Kind: types.Custom, Class: te.Custom}, nil
	case rawNative:
		if name == "empty" {
			return types.EmptyType, nil
		}
		return types.NativeByName[name], nil
	case rawFrozen:
		if len(te.Params) != 1 {
			return nil, cqlerr.Syntaxf("Invalid type %s: expected 1 type parameters", name)
		}
		inner := te.Params[0]
		if k := kindOfRaw(inner); k == rawNative || k == rawCustom {
			return nil, cqlerr.Invalidf("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", inner.String())
		}
		return r.prepare(inner, true)
	case rawCollection:
		return r.prepareCollection(te, name, frozen)
	case rawTuple:
		out := make([]*types.Type, len(te.Params))
		for i, p := range te.Params {
			if isRawNative(p, "counter") {
				return nil, cqlerr.Invalidf("Counters are not allowed inside tuples")
			}
			t, err := r.prepare(p, true)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return types.TupleOf(out...), nil
	case rawVector:
		if len(te.Params) != 1 {
			return nil, cqlerr.Syntaxf("Invalid type %s: expected 1 type parameters", name)
		}
		elem, err := r.prepare(te.Params[0], true)
		if err != nil {
			return nil, err
		}
		if te.Dimension <= 0 {
			return nil, cqlerr.Invalidf("vectors may only have positive dimensions; given %d", te.Dimension)
		}
		return &types.Type{Kind: types.Vector, Params: []*types.Type{elem}, Dimension: te.Dimension}, nil
	}
	return r.prepareUDT(te, frozen)
}

func (r typeResolver) prepareCollection(te cql.TypeExpr, name string, frozen bool) (*types.Type, error) {
	want := 1
	if name == "map" {
		want = 2
	}
	if len(te.Params) != want {
		return nil, cqlerr.Syntaxf("Invalid type %s: expected %d type parameters", name, want)
	}
	raw := rawString(te, frozen)
	values := te.Params[len(te.Params)-1]
	if !frozen {
		if coll, udt := isNonFrozenMulti(values); coll {
			return nil, cqlerr.Invalidf("Non-frozen collections are not allowed inside collections: %s", raw)
		} else if udt {
			return nil, cqlerr.Invalidf("Non-frozen UDTs are not allowed inside collections: %s", raw)
		}
	}
	if isRawNative(values, "counter") {
		return nil, cqlerr.Invalidf("Counters are not allowed inside collections: %s", raw)
	}
	if isRawNative(values, "duration") && name == "set" {
		return nil, cqlerr.Invalidf("Durations are not allowed inside sets: %s", raw)
	}
	if name == "map" {
		keys := te.Params[0]
		if isRawNative(keys, "counter") {
			return nil, cqlerr.Invalidf("Counters are not allowed inside collections: %s", raw)
		}
		if isRawNative(keys, "duration") {
			return nil, cqlerr.Invalidf("Durations are not allowed as map keys: %s", raw)
		}
		if !frozen {
			if coll, udt := isNonFrozenMulti(keys); coll {
				return nil, cqlerr.Invalidf("Non-frozen collections are not allowed inside collections: %s", raw)
			} else if udt {
				return nil, cqlerr.Invalidf("Non-frozen UDTs are not allowed inside collections: %s", raw)
			}
		}
	}
	ps := make([]*types.Type, len(te.Params))
	for i, p := range te.Params {
		t, err := r.prepare(p, frozen)
		if err != nil {
			return nil, err
		}
		ps[i] = t
	}
	switch name {
	case "list":
		return types.ListOf(ps[0], frozen), nil
	case "set":
		return types.SetOf(ps[0], frozen), nil
	}
	return types.MapOf(ps[0], ps[1], frozen), nil
}

func (r typeResolver) prepareUDT(te cql.TypeExpr, frozen bool) (*types.Type, error) {
	ks := r.ks
	if te.Keyspace != "" {
		if r.ks != "" && te.Keyspace != r.ks {
			return nil, cqlerr.Invalidf("Statement on keyspace %s cannot refer to a user type in keyspace %s; user types can only be used in the keyspace they are defined in", r.ks, te.Keyspace)
		}
		ks = te.Keyspace
	}
	var def *types.Type
	if r.s != nil {
		def = r.s.Keyspace(ks).Type(te.Name)
	}
	if def == nil {
		return nil, cqlerr.Invalidf("Unknown type %s.%s", ks, te.Name)
	}
	t := *def
	t.Frozen = frozen
	return &t, nil
}

// udtCQLName is UserType.getCqlTypeName: ks.name with each part quoted
// when needed.
func udtCQLName(ks, name string) string {
	return quoteIdentIfNeeded(ks) + "." + quoteIdentIfNeeded(name)
}

// checkFieldRaw applies CREATE TYPE's restrictions on a field type.
func checkFieldRaw(te cql.TypeExpr) error {
	if isRawNative(te, "counter") {
		return cqlerr.Invalidf("A user type cannot contain counters")
	}
	if kindOfRaw(te) == rawUDT {
		return cqlerr.Invalidf("A user type cannot contain non-frozen UDTs")
	}
	return nil
}

func (e *Executor) compileCreateType(c *compiled, st *cql.CreateType, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	name := st.Name.Name
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		s := e.cfg.Schema.Current()
		ks := s.Keyspace(ksName)
		if ks == nil {
			return nil, cqlerr.Invalidf("Keyspace '%s' doesn't exist", ksName)
		}
		if schema.IsSystemKeyspace(ksName) {
			return nil, cqlerr.New(cqlerr.Unauthorized, "%s keyspace is not user-modifiable.", ksName)
		}
		if ks.Type(name) != nil {
			if st.IfNotExists {
				return &Result{Kind: VoidResult}, nil
			}
			return nil, cqlerr.Invalidf("A user type with name '%s' already exists", name)
		}
		seen := map[string]bool{}
		for _, f := range st.Fields {
			if seen[f.Name] {
				return nil, cqlerr.Invalidf("Duplicate field name '%s' in type '%s'", f.Name, name)
			}
			seen[f.Name] = true
		}
		for _, f := range st.Fields {
			if err := checkFieldRaw(f.Type); err != nil {
				return nil, err
			}
		}
		t := &types.Type{Kind: types.UDT, Keyspace: ksName, Name: name, FieldNames: []string{}, Params: []*types.Type{}}
		for _, f := range st.Fields {
			ft, err := resolveTypeIn(s, f.Type, ksName)
			if err != nil {
				return nil, err
			}
			t.FieldNames = append(t.FieldNames, f.Name)
			t.Params = append(t.Params, ft)
		}
		changed, err := e.cfg.Schema.CreateType(t, st.IfNotExists)
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "CREATED", Target: "TYPE", Keyspace: ksName, Name: name}), nil
	}
	return nil
}

func fieldIndex(t *types.Type, name string) int {
	for i, f := range t.FieldNames {
		if f == name {
			return i
		}
	}
	return -1
}

func (e *Executor) compileAlterType(c *compiled, st *cql.AlterType, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	name := st.Name.Name
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		s := e.cfg.Schema.Current()
		changed, err := e.cfg.Schema.AlterType(ksName, name, st.IfExists, func(ks *schema.Keyspace, old *types.Type) (*types.Type, error) {
			cqlName := udtCQLName(ksName, name)
			switch st.Op {
			case cql.AlterTypeAlterField:
				return nil, cqlerr.Invalidf("Altering field types is no longer supported")
			case cql.AlterTypeAddField:
				if fieldIndex(old, st.Field) >= 0 {
					if st.IfFieldExists {
						return old, nil
					}
					return nil, cqlerr.Invalidf("Cannot add field %s to type %s: a field with name %s already exists", st.Field, cqlName, st.Field)
				}
				ft, err := resolveTypeIn(s, st.Type, ksName)
				if err != nil {
					return nil, err
				}
				if schema.ReferencesUDT(ft, ksName, name) {
					return nil, cqlerr.Invalidf("Cannot add new field %s of type %s to user type %s as it would create a circular reference", st.Field, st.Type.String(), cqlName)
				}
				var inPK []string
				for _, tn := range ks.TableNames() {
					t := ks.Tables[tn]
					for _, col := range t.PartitionKey {
						if schema.ReferencesUDT(col.Type, ksName, name) {
							inPK = append(inPK, udtCQLName(ksName, tn))
							break
						}
					}
				}
				if len(inPK) > 0 {
					return nil, cqlerr.Invalidf("Cannot add new field %s of type %s to user type %s as the type is being used in partition key by the following tables: %s",
						st.Field, st.Type.String(), cqlName, strings.Join(inPK, ", "))
				}
				if err := checkFieldRaw(st.Type); err != nil {
					return nil, err
				}
				nt := *old
				nt.FieldNames = append(append([]string(nil), old.FieldNames...), st.Field)
				nt.Params = append(append([]*types.Type(nil), old.Params...), ft)
				return &nt, nil
			case cql.AlterTypeRenameField:
				names := append([]string(nil), old.FieldNames...)
				renamed := false
				for _, rn := range st.Renames {
					i := fieldIndex(old, rn.From)
					if i < 0 {
						if !st.IfFieldExists {
							return nil, cqlerr.Invalidf("Unkown field %s in user type %s", rn.From, cqlName)
						}
						continue
					}
					names[i] = rn.To
					renamed = true
				}
				for i, n := range names {
					for j := i + 1; j < len(names); j++ {
						if names[j] == n {
							// Cassandra's format has two %s for three arguments.
							return nil, cqlerr.Invalidf("Duplicate field name %s in type %s", n, ksName)
						}
					}
				}
				if !renamed {
					return old, nil
				}
				nt := *old
				nt.FieldNames = names
				return &nt, nil
			}
			return nil, cqlerr.Serverf("internal error: unknown ALTER TYPE operation")
		})
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		res := e.schemaChanged(&SchemaChange{Change: "UPDATED", Target: "TYPE", Keyspace: ksName, Name: name})
		// The tables using the type changed too: drivers hear about them
		// as Cassandra's schema listeners tell them.
		if e.cfg.OnSchemaChange != nil {
			for _, tn := range e.cfg.Schema.Current().Keyspace(ksName).TablesReferencing(name) {
				e.cfg.OnSchemaChange(&SchemaChange{Change: "UPDATED", Target: "TABLE", Keyspace: ksName, Name: tn})
			}
		}
		return res, nil
	}
	return nil
}

func (e *Executor) compileDropType(c *compiled, st *cql.DropType, keyspace string) error {
	ksName, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	name := st.Name.Name
	c.ddl = func(ctx context.Context, e *Executor) (*Result, error) {
		changed, err := e.cfg.Schema.DropType(ksName, name, st.IfExists)
		if err != nil {
			return nil, err
		}
		if !changed {
			return &Result{Kind: VoidResult}, nil
		}
		return e.schemaChanged(&SchemaChange{Change: "DROPPED", Target: "TYPE", Keyspace: ksName, Name: name}), nil
	}
	return nil
}

// checkUDTColumn applies CREATE TABLE's rule on non-frozen UDT columns.
func checkUDTColumn(t *types.Type) error {
	if t.Kind == types.UDT && t.IsMultiCell() {
		for _, f := range t.Params {
			if f.IsMultiCell() {
				return cqlerr.Invalidf("Non-frozen UDTs with nested non-frozen collections are not supported")
			}
		}
	}
	return nil
}

// typeReferencesDuration is AbstractType.referencesDuration: t is, or
// contains (in a collection, tuple or UDT), a duration.
func typeReferencesDuration(t *types.Type) bool {
	if t.Kind == types.Duration {
		return true
	}
	for _, p := range t.Params {
		if typeReferencesDuration(p) {
			return true
		}
	}
	return false
}
