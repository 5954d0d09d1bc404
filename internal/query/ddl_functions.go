package query

import (
	"context"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/schema"
)

// User-defined functions, aggregates and triggers run Java code in
// Cassandra. Cassandra 5.0 ships with user_defined_functions_enabled:
// false and loads triggers only from classes on its classpath, so its
// answers to these statements on a default node are errors, reproduced
// here exactly: no function, aggregate or trigger can exist on a cqld node.

func keyspaceOf(name cql.QualifiedName, keyspace string) (string, error) {
	if name.Keyspace != "" {
		return name.Keyspace, nil
	}
	if keyspace == "" {
		return "", cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
	}
	return keyspace, nil
}

func typeList(ts []cql.TypeExpr) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

func (e *Executor) compileCreateFunction(c *compiled, st *cql.CreateFunction) error {
	if st.IfNotExists && st.OrReplace {
		return cqlerr.Invalidf("Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	if !e.cfg.UserDefinedFunctionsEnabled {
		return cqlerr.Invalidf("User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable")
	}
	if !strings.EqualFold(st.Language, "java") {
		return cqlerr.Invalidf("Currently only Java UDFs are available in Cassandra. For more information - CASSANDRA-18252 and CASSANDRA-17281")
	}
	return cqlerr.NotImplemented("Java user-defined functions")
}

func (e *Executor) compileCreateAggregate(c *compiled, s *schema.Schema, st *cql.CreateAggregate, keyspace string) error {
	if st.IfNotExists && st.OrReplace {
		return cqlerr.Invalidf("Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	ks, err := keyspaceOf(st.Name, keyspace)
	if err != nil {
		return err
	}
	if err := checkUnfrozenArgs(st.ArgTypes); err != nil {
		return err
	}
	if explicitlyFrozen(st.StateType) {
		return cqlerr.Invalidf("State type '%s' cannot be frozen; remove frozen<> modifier from '%s'", st.StateType, st.StateType)
	}
	if s.Keyspace(ks) == nil {
		return cqlerr.Invalidf("Keyspace '%s' doesn't exist", ks)
	}
	// The argument and state types are prepared before the state function
	// is looked up (unknown types, user types of another keyspace).
	args := append([]cql.TypeExpr{st.StateType}, st.ArgTypes...)
	for _, t := range args[1:] {
		if _, err := resolveTypeIn(s, t, ks); err != nil {
			return err
		}
	}
	if _, err := resolveTypeIn(s, st.StateType, ks); err != nil {
		return err
	}
	return cqlerr.Invalidf("State function %s.%s(%s) doesn't exist", ks, st.StateFunc, typeList(args))
}

// explicitlyFrozen reports whether a written type is frozen<...> of anything
// but a tuple or a vector (CQL3Type.Raw: !isImplicitlyFrozen() &&
// isFrozen(); tuples and vectors are always frozen).
func explicitlyFrozen(t cql.TypeExpr) bool {
	if kindOfRaw(t) != rawFrozen || len(t.Params) != 1 {
		return false
	}
	k := kindOfRaw(t.Params[0])
	return k != rawTuple && k != rawVector
}

// checkUnfrozenArgs refuses a frozen argument type of a function or
// aggregate, as CREATE and DROP FUNCTION/AGGREGATE do.
func checkUnfrozenArgs(ts []cql.TypeExpr) error {
	for _, t := range ts {
		if explicitlyFrozen(t) {
			return cqlerr.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", t, t)
		}
	}
	return nil
}

// compileDropFunction answers DROP FUNCTION and DROP AGGREGATE (what is
// "Function" or "Aggregate").
// No function or aggregate exists, so IF EXISTS makes a no-op once the
// argument types are checked (frozen ones refused, every one prepared), as
// DropFunctionStatement/DropAggregateStatement.apply check them first.
func (e *Executor) compileDropFunction(c *compiled, s *schema.Schema, what string, name cql.QualifiedName, ifExists, argsSpecified bool, argTypes []cql.TypeExpr, keyspace string) error {
	ks, err := keyspaceOf(name, keyspace)
	if err != nil {
		return err
	}
	full := ks + "." + name.Name
	if argsSpecified {
		full += "(" + typeList(argTypes) + ")"
	}
	if s.Keyspace(ks) != nil {
		if err := checkUnfrozenArgs(argTypes); err != nil {
			return err
		}
		for _, t := range argTypes {
			if _, err := resolveTypeIn(s, t, ks); err != nil {
				return err
			}
		}
	}
	if ifExists {
		c.ddl = func(context.Context, *Executor) (*Result, error) { return &Result{Kind: VoidResult}, nil }
		return nil
	}
	return cqlerr.Invalidf("%s '%s' doesn't exist", what, full)
}

func (e *Executor) compileCreateTrigger(c *compiled, s *schema.Schema, st *cql.CreateTrigger, keyspace string) error {
	ks, err := keyspaceOf(st.Table, keyspace)
	if err != nil {
		return err
	}
	k := s.Keyspace(ks)
	if k == nil {
		return cqlerr.Invalidf("Keyspace '%s' doesn't exist", ks)
	}
	t := k.Table(st.Table.Name)
	if t == nil {
		return cqlerr.Invalidf("Table '%s' doesn't exist", st.Table.Name)
	}
	if t.IsView() {
		return cqlerr.Invalidf("Cannot CREATE TRIGGER for a materialized view")
	}
	return cqlerr.Invalidf("Trigger class '%s' couldn't be loaded", st.Class)
}

func (e *Executor) compileDropTrigger(c *compiled, st *cql.DropTrigger, keyspace string) error {
	ks, err := keyspaceOf(st.Table, keyspace)
	if err != nil {
		return err
	}
	if st.IfExists {
		c.ddl = func(context.Context, *Executor) (*Result, error) { return &Result{Kind: VoidResult}, nil }
		return nil
	}
	return cqlerr.Invalidf("Trigger '%s' on '%s.%s' doesn't exist", st.Name, ks, st.Table.Name)
}
