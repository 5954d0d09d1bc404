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
	for _, t := range st.ArgTypes {
		if t.Name == "frozen" {
			return cqlerr.Invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", t, t)
		}
	}
	if st.StateType.Name == "frozen" {
		return cqlerr.Invalidf("State type '%s' cannot be frozen; remove frozen<> modifier from '%s'", st.StateType, st.StateType)
	}
	if s.Keyspace(ks) == nil {
		return cqlerr.Invalidf("Keyspace '%s' doesn't exist", ks)
	}
	args := append([]cql.TypeExpr{st.StateType}, st.ArgTypes...)
	return cqlerr.Invalidf("State function %s.%s(%s) doesn't exist", ks, st.StateFunc, typeList(args))
}

// compileDropFunction answers DROP FUNCTION and DROP AGGREGATE (what is
// "Function" or "Aggregate").
func (e *Executor) compileDropFunction(c *compiled, what string, name cql.QualifiedName, ifExists, argsSpecified bool, argTypes []cql.TypeExpr, keyspace string) error {
	ks, err := keyspaceOf(name, keyspace)
	if err != nil {
		return err
	}
	full := ks + "." + name.Name
	if argsSpecified {
		full += "(" + typeList(argTypes) + ")"
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
