package query

import (
	"context"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/schema"
)

// Security is the node's authentication and authorization (internal/auth
// implements it). A nil Security is Cassandra's default configuration:
// AllowAllAuthenticator and AllowAllAuthorizer (see ddl_roles.go).
type Security interface {
	// Authorize returns nil when the session's user holds perm on
	// resource or on one of its parents (a Cassandra resource name:
	// "data", "data/ks", "data/ks/table", "roles", "roles/r",
	// "functions", "functions/ks"), else an Unauthorized error.
	Authorize(ctx context.Context, sess *Session, perm string, resource string) error
	// Statement executes a role, user or permission statement.
	Statement(ctx context.Context, sess *Session, stmt cql.Statement) (*Result, error)
	// Created is called after sess created resource (a keyspace, table,
	// role...): Cassandra grants its creator every permission on it.
	Created(ctx context.Context, sess *Session, resource string)
	// Dropped is called after a keyspace or table was dropped: every
	// permission granted on it is revoked (Cassandra's revokeAllOn).
	Dropped(ctx context.Context, resource string)
}

// dropped tells the Security, if any, that a resource is gone.
func (e *Executor) dropped(ctx context.Context, resource string) {
	if e.cfg.Security != nil {
		e.cfg.Security.Dropped(ctx, resource)
	}
}

// permCheck is one permission a statement needs.
type permCheck struct {
	perm     string
	resource string
}

// DataResource is Cassandra's name of a keyspace or table resource
// ("data/ks" or "data/ks/table"; "data" for all keyspaces).
func DataResource(ks, table string) string {
	switch {
	case ks == "":
		return "data"
	case table == "":
		return "data/" + ks
	}
	return "data/" + ks + "/" + table
}

// readableSystemTable reports whether anyone may read ks.table without a
// grant: ClientState's READABLE_SYSTEM_RESOURCES, what drivers read on
// connect (system.local, peers, peers_v2, the schema tables and the
// virtual schema). The other tables of system and system_views (settings,
// clients, prepared statements with their literals, ...) need SELECT.
func readableSystemTable(ks, table string) bool {
	switch ks {
	case schema.SystemSchemaKeyspace, schema.SystemVirtualSchema:
		return true
	case schema.SystemKeyspace:
		return table == "local" || table == "peers" || table == "peers_v2"
	}
	return false
}

// requiredChecks lists the permissions stmt needs, as Cassandra's
// statements' authorize methods do. keyspace is the session's keyspace.
func requiredChecks(s *schema.Schema, stmt cql.Statement, keyspace string) []permCheck {
	ksOf := func(n cql.QualifiedName) string {
		if n.Keyspace != "" {
			return n.Keyspace
		}
		return keyspace
	}
	table := func(perm string, n cql.QualifiedName) []permCheck {
		ks := ksOf(n)
		if perm == "SELECT" && readableSystemTable(ks, n.Name) {
			return nil
		}
		return []permCheck{{perm, DataResource(ks, n.Name)}}
	}
	switch st := stmt.(type) {
	case *cql.Select:
		return table("SELECT", st.Table)
	case *cql.Insert:
		checks := table("MODIFY", st.Table)
		if st.IfNotExists {
			checks = append(checks, table("SELECT", st.Table)...)
		}
		return checks
	case *cql.Update:
		checks := table("MODIFY", st.Table)
		if st.IfExists || len(st.Conditions) > 0 {
			checks = append(checks, table("SELECT", st.Table)...)
		}
		return checks
	case *cql.Delete:
		checks := table("MODIFY", st.Table)
		if st.IfExists || len(st.Conditions) > 0 {
			checks = append(checks, table("SELECT", st.Table)...)
		}
		return checks
	case *cql.Batch:
		var checks []permCheck
		for _, inner := range st.Statements {
			checks = append(checks, requiredChecks(s, inner, keyspace)...)
		}
		return checks
	case *cql.Truncate:
		return table("MODIFY", st.Name)
	case *cql.CreateKeyspace:
		return []permCheck{{"CREATE", DataResource("", "")}}
	case *cql.AlterKeyspace:
		return []permCheck{{"ALTER", DataResource(st.Name, "")}}
	case *cql.DropKeyspace:
		return []permCheck{{"DROP", DataResource(st.Name, "")}}
	case *cql.CreateTable:
		return []permCheck{{"CREATE", DataResource(ksOf(st.Name), "")}}
	case *cql.AlterTable:
		return table("ALTER", st.Name)
	case *cql.DropTable:
		return table("DROP", st.Name)
	case *cql.CreateIndex:
		return table("ALTER", st.Table)
	case *cql.DropIndex:
		ks := ksOf(st.Name)
		if k := s.Keyspace(ks); k != nil {
			if ref := k.FindIndex(st.Name.Name); ref != nil {
				return []permCheck{{"ALTER", DataResource(ks, ref.Table.Name)}}
			}
		}
		return nil
	case *cql.CreateMaterializedView:
		return table("ALTER", cql.QualifiedName{Keyspace: ksOf(st.Name), Name: st.Select.Table.Name})
	case *cql.AlterMaterializedView, *cql.DropMaterializedView:
		var n cql.QualifiedName
		if a, ok := st.(*cql.AlterMaterializedView); ok {
			n = a.Name
		} else {
			n = st.(*cql.DropMaterializedView).Name
		}
		ks := ksOf(n)
		if v := s.Table(ks, n.Name); v != nil && v.IsView() {
			return []permCheck{{"ALTER", DataResource(ks, v.View.BaseName)}}
		}
		return nil
	case *cql.CreateType:
		return []permCheck{{"CREATE", DataResource(ksOf(st.Name), "")}}
	case *cql.AlterType:
		return []permCheck{{"ALTER", DataResource(ksOf(st.Name), "")}}
	case *cql.DropType:
		return []permCheck{{"DROP", DataResource(ksOf(st.Name), "")}}
	}
	return nil
}

// createdResource is the resource a successful DDL statement created (its
// creator gets every permission on it), or "".
func createdResource(stmt cql.Statement, keyspace string) string {
	switch st := stmt.(type) {
	case *cql.CreateKeyspace:
		return DataResource(st.Name, "")
	case *cql.CreateTable:
		ks := st.Name.Keyspace
		if ks == "" {
			ks = keyspace
		}
		return DataResource(ks, st.Name.Name)
	}
	return ""
}

// authorize runs the permission checks of a compiled statement.
func (e *Executor) authorize(ctx context.Context, sess *Session, c *compiled) error {
	if e.cfg.Security == nil || sess == nil || sess.Internal {
		return nil
	}
	for _, pc := range c.checks {
		if err := e.cfg.Security.Authorize(ctx, sess, pc.perm, pc.resource); err != nil {
			return err
		}
	}
	return nil
}
