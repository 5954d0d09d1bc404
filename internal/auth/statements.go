package auth

import (
	"context"
	"sort"
	"strings"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

// Statement implements query.Security: the role and permission
// statements, with Cassandra's validation order (options, then the
// anonymous check, then existence, then permissions).
func (m *Manager) Statement(ctx context.Context, sess *query.Session, stmt cql.Statement) (*query.Result, error) {
	defer m.invalidate()
	switch st := stmt.(type) {
	case *cql.CreateRole:
		return m.createRole(ctx, sess, st.Name, st.IfNotExists, st.Options)
	case *cql.CreateUser:
		opts := []cql.RoleOption{{Kind: cql.RoleLogin, Bool: true}}
		if st.Password != nil {
			opts = append(opts, *st.Password)
		}
		if st.Superuser || st.NoSuperuser {
			opts = append(opts, cql.RoleOption{Kind: cql.RoleSuperuser, Bool: st.Superuser})
		}
		return m.createRole(ctx, sess, st.Name, st.IfNotExists, opts)
	case *cql.AlterRole:
		return m.alterRole(ctx, sess, st.Name, st.IfExists, st.Options)
	case *cql.AlterUser:
		var opts []cql.RoleOption
		if st.Password != nil {
			opts = append(opts, *st.Password)
		}
		if st.Superuser || st.NoSuperuser {
			opts = append(opts, cql.RoleOption{Kind: cql.RoleSuperuser, Bool: st.Superuser})
		}
		return m.alterRole(ctx, sess, st.Name, st.IfExists, opts)
	case *cql.DropRole:
		return m.dropRole(ctx, sess, st.Name, st.IfExists)
	case *cql.DropUser:
		return m.dropRole(ctx, sess, st.Name, st.IfExists)
	case *cql.GrantRole:
		return m.grantRole(ctx, sess, st.Role, st.Grantee, true)
	case *cql.RevokeRole:
		return m.grantRole(ctx, sess, st.Role, st.Revokee, false)
	case *cql.ListRoles:
		return m.listRoles(ctx, sess, st.Of, !st.NoRecursive, false)
	case *cql.ListUsers:
		return m.listRoles(ctx, sess, "", true, true)
	case *cql.GrantPermissions:
		return m.grantPermissions(ctx, sess, st.Permissions, st.Resource, st.Role, true)
	case *cql.RevokePermissions:
		return m.grantPermissions(ctx, sess, st.Permissions, st.Resource, st.Role, false)
	case *cql.ListPermissions:
		return m.listPermissions(ctx, sess, st)
	}
	return nil, cqlerr.NotImplemented(cql.StatementName(stmt))
}

var void = &query.Result{Kind: query.VoidResult}

// roleOptions is RoleOptions.validate plus the values.
type roleOptions struct {
	password, hashed   *string
	login, super       *bool
	datacenters, cidrs bool
	loginSet, superSet bool
}

func (m *Manager) parseOptions(opts []cql.RoleOption) (*roleOptions, error) {
	ro := &roleOptions{}
	for i := range opts {
		o := &opts[i]
		switch o.Kind {
		case cql.RolePassword:
			if !m.password {
				return nil, cqlerr.Invalidf("%s doesn't support PASSWORD", roleManagerClass)
			}
			ro.password = &o.Text
		case cql.RoleHashedPassword:
			if !m.password {
				return nil, cqlerr.Invalidf("%s doesn't support HASHED_PASSWORD", roleManagerClass)
			}
			ro.hashed = &o.Text
		case cql.RoleLogin:
			b := o.Bool
			ro.login = &b
		case cql.RoleSuperuser:
			b := o.Bool
			ro.super = &b
		case cql.RoleOptionsMap:
			return nil, cqlerr.Invalidf("%s doesn't support OPTIONS", roleManagerClass)
		default:
			// ACCESS TO DATACENTERS / FROM CIDRS: a single-node cluster
			// of one datacenter has nothing to restrict.
		}
	}
	if ro.password != nil && ro.hashed != nil {
		return nil, cqlerr.Invalidf("Options 'password' and 'hashed password' are mutually exclusive")
	}
	if ro.hashed != nil {
		if _, err := bcryptCost(*ro.hashed); err != nil {
			return nil, cqlerr.Invalidf("Invalid hashed password value. Please use jBcrypt.")
		}
	}
	return ro, nil
}

func (m *Manager) ensurePermission(ctx context.Context, sess *query.Session, perm, resource string) error {
	if !m.authz {
		return nil
	}
	return m.Authorize(ctx, sess, perm, resource)
}

func (m *Manager) createRole(ctx context.Context, sess *query.Session, name string, ifNotExists bool, opts []cql.RoleOption) (*query.Result, error) {
	ro, err := m.parseOptions(opts)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, cqlerr.Invalidf("Role name can't be an empty string")
	}
	if sess.User == "" {
		return nil, anonymous()
	}
	existing, err := m.loadRole(ctx, name)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		if ifNotExists {
			return void, nil
		}
		return nil, cqlerr.Invalidf("%s already exists", name)
	}
	if err := m.ensurePermission(ctx, sess, "CREATE", "roles"); err != nil {
		return nil, err
	}
	if ro.super != nil && *ro.super {
		if err := m.requireSuper(ctx, sess.User, "Only superusers can create a role with superuser status"); err != nil {
			return nil, err
		}
	}
	hash := query.Value{}
	switch {
	case ro.password != nil:
		h, err := hashPassword(*ro.password)
		if err != nil {
			return nil, cqlerr.Serverf("hashing password: %v", err)
		}
		hash = text(h)
	case ro.hashed != nil:
		hash = text(*ro.hashed)
	}
	if _, err := m.q(ctx, "INSERT INTO system_auth.roles (role, is_superuser, can_login, salted_hash) VALUES (?, ?, ?, ?)",
		text(name), boolValue(ro.super != nil && *ro.super), boolValue(ro.login != nil && *ro.login), hash); err != nil {
		return nil, err
	}
	m.Created(ctx, sess, "roles/"+name)
	return void, nil
}

func boolValue(b bool) query.Value { return query.Value{B: types.EncodeBoolean(b)} }

func (m *Manager) alterRole(ctx context.Context, sess *query.Session, name string, ifExists bool, opts []cql.RoleOption) (*query.Result, error) {
	ro, err := m.parseOptions(opts)
	if err != nil {
		return nil, err
	}
	if len(opts) == 0 {
		return nil, cqlerr.Invalidf("ALTER [ROLE|USER] can't be empty")
	}
	if sess.User == "" {
		return nil, anonymous()
	}
	existing, err := m.loadRole(ctx, name)
	if err != nil {
		return nil, err
	}
	if existing == nil {
		return missingRole(name, ifExists)
	}
	super, err := m.isSuper(ctx, sess.User)
	if err != nil {
		return nil, err
	}
	if ro.super != nil {
		if name == sess.User {
			return nil, cqlerr.New(cqlerr.Unauthorized, "You aren't allowed to alter your own superuser status or that of a role granted to you")
		}
		if !super {
			return nil, cqlerr.New(cqlerr.Unauthorized, "Only superusers are allowed to alter superuser status")
		}
	}
	if !super {
		onlyOwnPassword := name == sess.User && ro.super == nil && ro.login == nil
		if !onlyOwnPassword {
			if err := m.ensurePermission(ctx, sess, "ALTER", "roles/"+name); err != nil {
				return nil, err
			}
		}
		if existing.super {
			return nil, cqlerr.New(cqlerr.Unauthorized, "Only superusers are allowed to alter a role with superuser status")
		}
	}
	if ro.super != nil {
		if _, err := m.q(ctx, "UPDATE system_auth.roles SET is_superuser = ? WHERE role = ?", boolValue(*ro.super), text(name)); err != nil {
			return nil, err
		}
	}
	if ro.login != nil {
		if _, err := m.q(ctx, "UPDATE system_auth.roles SET can_login = ? WHERE role = ?", boolValue(*ro.login), text(name)); err != nil {
			return nil, err
		}
	}
	var hash string
	switch {
	case ro.password != nil:
		if hash, err = hashPassword(*ro.password); err != nil {
			return nil, cqlerr.Serverf("hashing password: %v", err)
		}
	case ro.hashed != nil:
		hash = *ro.hashed
	}
	if hash != "" {
		if _, err := m.q(ctx, "UPDATE system_auth.roles SET salted_hash = ? WHERE role = ?", text(hash), text(name)); err != nil {
			return nil, err
		}
	}
	return void, nil
}

func (m *Manager) dropRole(ctx context.Context, sess *query.Session, name string, ifExists bool) (*query.Result, error) {
	if sess.User == "" {
		return nil, anonymous()
	}
	existing, err := m.loadRole(ctx, name)
	if err != nil {
		return nil, err
	}
	if existing == nil {
		return missingRole(name, ifExists)
	}
	if name == sess.User {
		return nil, cqlerr.Invalidf("Cannot DROP primary role for current login")
	}
	if err := m.ensurePermission(ctx, sess, "DROP", "roles/"+name); err != nil {
		return nil, err
	}
	if existing.super {
		if err := m.requireSuper(ctx, sess.User, "Only superusers can drop a role with superuser status"); err != nil {
			return nil, err
		}
	}
	// Memberships in both directions, permissions held, then the role.
	members, err := m.q(ctx, "SELECT member FROM system_auth.role_members WHERE role = ?", text(name))
	if err != nil {
		return nil, err
	}
	for _, r := range members.Rows {
		if _, err := m.q(ctx, "UPDATE system_auth.roles SET member_of = member_of - ? WHERE role = ?",
			textSet(name), query.Value{B: r[0]}); err != nil {
			return nil, err
		}
	}
	for _, parent := range existing.memberOf {
		if _, err := m.q(ctx, "DELETE FROM system_auth.role_members WHERE role = ? AND member = ?", text(parent), text(name)); err != nil {
			return nil, err
		}
	}
	held, err := m.q(ctx, "SELECT resource FROM system_auth.role_permissions WHERE role = ?", text(name))
	if err != nil {
		return nil, err
	}
	for _, r := range held.Rows {
		if _, err := m.q(ctx, "DELETE FROM system_auth.resource_role_permissons_index WHERE resource = ? AND role = ?", query.Value{B: r[0]}, text(name)); err != nil {
			return nil, err
		}
	}
	for _, stmt := range []string{
		"DELETE FROM system_auth.role_members WHERE role = ?",
		"DELETE FROM system_auth.role_permissions WHERE role = ?",
		"DELETE FROM system_auth.roles WHERE role = ?",
	} {
		if _, err := m.q(ctx, stmt, text(name)); err != nil {
			return nil, err
		}
	}
	if err := m.revokeAllOn(ctx, "roles/"+name); err != nil {
		return nil, err
	}
	return void, nil
}

func textSet(s ...string) query.Value {
	vals := make([][]byte, len(s))
	for i, x := range s {
		vals[i] = types.EncodeText(x)
	}
	return query.Value{B: types.EncodeSet(types.TextType, vals)}
}

func (m *Manager) grantRole(ctx context.Context, sess *query.Session, role, grantee string, grant bool) (*query.Result, error) {
	if sess.User == "" {
		return nil, anonymous()
	}
	for _, r := range []string{role, grantee} {
		info, err := m.loadRole(ctx, r)
		if err != nil {
			return nil, err
		}
		if info == nil {
			return nil, cqlerr.Invalidf("%s doesn't exist", r)
		}
	}
	if err := m.ensurePermission(ctx, sess, "AUTHORIZE", "roles/"+role); err != nil {
		return nil, err
	}
	if grant {
		for _, pair := range [][2]string{{grantee, role}, {role, grantee}} {
			roles, err := m.rolesOf(ctx, pair[0], true)
			if err != nil {
				return nil, err
			}
			for _, r := range roles {
				if r.name == pair[1] {
					return nil, cqlerr.Invalidf("%s is a member of %s", pair[0], pair[1])
				}
			}
		}
		if _, err := m.q(ctx, "UPDATE system_auth.roles SET member_of = member_of + ? WHERE role = ?", textSet(role), text(grantee)); err != nil {
			return nil, err
		}
		_, err := m.q(ctx, "INSERT INTO system_auth.role_members (role, member) VALUES (?, ?)", text(role), text(grantee))
		return void, err
	}
	info, err := m.loadRole(ctx, grantee)
	if err != nil {
		return nil, err
	}
	member := false
	for _, p := range info.memberOf {
		member = member || p == role
	}
	if !member {
		return nil, cqlerr.Invalidf("%s is not a member of %s", grantee, role)
	}
	if _, err := m.q(ctx, "UPDATE system_auth.roles SET member_of = member_of - ? WHERE role = ?", textSet(role), text(grantee)); err != nil {
		return nil, err
	}
	_, err = m.q(ctx, "DELETE FROM system_auth.role_members WHERE role = ? AND member = ?", text(role), text(grantee))
	return void, err
}

func (m *Manager) listRoles(ctx context.Context, sess *query.Session, of string, recursive, users bool) (*query.Result, error) {
	if sess.User == "" {
		return nil, anonymous()
	}
	if of != "" {
		info, err := m.loadRole(ctx, of)
		if err != nil {
			return nil, err
		}
		if info == nil {
			return nil, cqlerr.Invalidf("%s doesn't exist", of)
		}
	}
	canDescribe := true
	if m.authz {
		ok, err := m.has(ctx, sess.User, "DESCRIBE", "roles")
		if err != nil {
			return nil, err
		}
		canDescribe = ok
	}
	var names []string
	switch {
	case canDescribe && of == "":
		all, err := m.allRoles(ctx)
		if err != nil {
			return nil, err
		}
		names = all
	default:
		target := of
		if target == "" {
			target = sess.User
		} else if !canDescribe {
			mine, err := m.rolesOf(ctx, sess.User, true)
			if err != nil {
				return nil, err
			}
			granted := false
			for _, r := range mine {
				granted = granted || r.name == of
			}
			if !granted {
				return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view roles granted to %s ", of)
			}
		}
		roles, err := m.rolesOf(ctx, target, recursive)
		if err != nil {
			return nil, err
		}
		for _, r := range roles {
			names = append(names, r.name)
		}
		sort.Strings(names)
	}
	if len(names) == 0 {
		return void, nil
	}
	spec := func(name string, t *types.Type) query.ColumnSpec {
		return query.ColumnSpec{Keyspace: "system_auth", Table: "roles", Name: name, Type: t}
	}
	res := &query.Result{Kind: query.RowsResult}
	if users {
		res.Columns = []query.ColumnSpec{spec("name", types.TextType), spec("super", types.BooleanType), spec("datacenters", types.TextType)}
	} else {
		res.Columns = []query.ColumnSpec{spec("role", types.TextType), spec("super", types.BooleanType), spec("login", types.BooleanType),
			spec("options", types.MapOf(types.TextType, types.TextType, false)), spec("datacenters", types.TextType)}
	}
	for _, n := range names {
		info, err := m.loadRole(ctx, n)
		if err != nil {
			return nil, err
		}
		if info == nil {
			continue
		}
		if users {
			if !info.login {
				continue
			}
			res.Rows = append(res.Rows, [][]byte{types.EncodeText(n), types.EncodeBoolean(info.super), types.EncodeText("ALL")})
			continue
		}
		res.Rows = append(res.Rows, [][]byte{types.EncodeText(n), types.EncodeBoolean(info.super), types.EncodeBoolean(info.login),
			types.EncodeMap(types.TextType, nil, nil), types.EncodeText("ALL")})
	}
	return res, nil
}

// permissionsFor expands ALL and checks the permissions apply to resource.
func permissionsFor(p cql.Permissions, resource string) ([]string, error) {
	app := applicable(resource)
	if p.All {
		return app, nil
	}
	ok := map[string]bool{}
	for _, a := range app {
		ok[a] = true
	}
	var bad []string
	for _, n := range p.Names {
		if !ok[n] {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		return nil, cqlerr.Invalidf("Resource type %s does not support the requested permissions: %s", resourceType(resource), strings.Join(bad, ", "))
	}
	return p.Names, nil
}

func resourceType(r string) string {
	switch strings.SplitN(r, "/", 2)[0] {
	case "roles":
		return "RoleResource"
	case "functions":
		return "FunctionResource"
	}
	return "DataResource"
}

// resourceExists checks data and role resources.
func (m *Manager) resourceExists(ctx context.Context, resource string) (bool, error) {
	parts := strings.Split(resource, "/")
	switch parts[0] {
	case "data":
		if len(parts) == 1 {
			return true, nil
		}
		res, err := m.q(ctx, "SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", text(parts[1]))
		if err != nil || len(res.Rows) == 0 || len(parts) == 2 || parts[2] == "*" {
			return err == nil && len(res.Rows) > 0, err
		}
		res, err = m.q(ctx, "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", text(parts[1]), text(parts[2]))
		if err != nil {
			return false, err
		}
		if len(res.Rows) > 0 {
			return true, nil
		}
		res, err = m.q(ctx, "SELECT view_name FROM system_schema.views WHERE keyspace_name = ? AND view_name = ?", text(parts[1]), text(parts[2]))
		return err == nil && len(res.Rows) > 0, err
	case "roles":
		if len(parts) == 1 {
			return true, nil
		}
		info, err := m.loadRole(ctx, parts[1])
		return info != nil, err
	}
	return true, nil
}

func (m *Manager) grantPermissions(ctx context.Context, sess *query.Session, p cql.Permissions, r cql.Resource, role string, grant bool) (*query.Result, error) {
	if sess.User == "" {
		return nil, anonymous()
	}
	info, err := m.loadRole(ctx, role)
	if err != nil {
		return nil, err
	}
	if info == nil {
		return nil, cqlerr.Invalidf("Role %s doesn't exist", role)
	}
	resource, err := resourceOf(r, sess.Keyspace)
	if err != nil {
		return nil, err
	}
	if ok, err := m.resourceExists(ctx, resource); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return nil, cqlerr.Invalidf("Resource %s doesn't exist", resourceString(resource))
	}
	perms, err := permissionsFor(p, resource)
	if err != nil {
		return nil, err
	}
	if !m.authz {
		op := "GRANT"
		if !grant {
			op = "REVOKE"
		}
		return nil, cqlerr.Invalidf("%s operation is not supported by AllowAllAuthorizer", op)
	}
	if err := m.Authorize(ctx, sess, "AUTHORIZE", resource); err != nil {
		return nil, err
	}
	if super, err := m.isSuper(ctx, sess.User); err != nil || !super {
		if err != nil {
			return nil, err
		}
		for _, perm := range perms {
			if ok, err := m.has(ctx, sess.User, perm, resource); err != nil || !ok {
				if err != nil {
					return nil, err
				}
				return nil, cqlerr.New(cqlerr.Unauthorized, "User %s has no %s permission on %s or any of its parents", sess.User, perm, resourceString(resource))
			}
		}
	}
	if grant {
		return void, m.grant(ctx, role, resource, perms)
	}
	if _, err := m.q(ctx, "UPDATE system_auth.role_permissions SET permissions = permissions - ? WHERE role = ? AND resource = ?",
		textSet(perms...), text(role), text(resource)); err != nil {
		return nil, err
	}
	return void, nil
}

func (m *Manager) listPermissions(ctx context.Context, sess *query.Session, st *cql.ListPermissions) (*query.Result, error) {
	if sess.User == "" {
		return nil, anonymous()
	}
	if st.Of != "" {
		info, err := m.loadRole(ctx, st.Of)
		if err != nil {
			return nil, err
		}
		if info == nil {
			return nil, cqlerr.Invalidf("%s doesn't exist", st.Of)
		}
	}
	var resource string
	if st.Resource != nil {
		var err error
		if resource, err = resourceOf(*st.Resource, sess.Keyspace); err != nil {
			return nil, err
		}
		if ok, err := m.resourceExists(ctx, resource); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			return nil, cqlerr.Invalidf("%s doesn't exist", resourceString(resource))
		}
	}
	if !m.authz {
		return nil, cqlerr.Invalidf("LIST PERMISSIONS operation is not supported by AllowAllAuthorizer")
	}
	super, err := m.isSuper(ctx, sess.User)
	if err != nil {
		return nil, err
	}
	if !super && st.Of != sess.User {
		if st.Of == "" {
			return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view everyone's permissions")
		}
		if ok, err := m.has(ctx, sess.User, "DESCRIBE", "roles"); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			return nil, cqlerr.New(cqlerr.Unauthorized, "You are not authorized to view %s's permissions", st.Of)
		}
	}
	var roles []string
	if st.Of != "" {
		rs, err := m.rolesOf(ctx, st.Of, !st.NoRecursive)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			roles = append(roles, r.name)
		}
	} else {
		if roles, err = m.allRoles(ctx); err != nil {
			return nil, err
		}
	}
	wanted := map[string]bool{}
	if !st.Permissions.All {
		for _, n := range st.Permissions.Names {
			wanted[n] = true
		}
	}
	// The resource and, unless NORECURSIVE, its parents.
	inScope := func(r string) bool {
		if resource == "" {
			return true
		}
		for x := resource; x != ""; x = parentResource(x) {
			if x == r {
				return true
			}
			if st.NoRecursive {
				break
			}
		}
		return false
	}
	type row struct{ role, resource, perm string }
	var rows []row
	for _, role := range roles {
		res, err := m.q(ctx, "SELECT resource, permissions FROM system_auth.role_permissions WHERE role = ?", text(role))
		if err != nil {
			return nil, err
		}
		for _, r := range res.Rows {
			if !inScope(string(r[0])) || r[1] == nil {
				continue
			}
			elems, err := types.DecodeCollection(r[1])
			if err != nil {
				return nil, cqlerr.Serverf("corrupt system_auth.role_permissions: %v", err)
			}
			have := map[string]bool{}
			for _, e := range elems {
				have[string(e)] = true
			}
			for _, p := range allPermissions {
				if have[p] && (len(wanted) == 0 || wanted[p]) {
					rows = append(rows, row{role, string(r[0]), p})
				}
			}
		}
	}
	if len(rows) == 0 {
		return void, nil
	}
	spec := func(name string) query.ColumnSpec {
		return query.ColumnSpec{Keyspace: "system_auth", Table: "permissions", Name: name, Type: types.TextType}
	}
	out := &query.Result{Kind: query.RowsResult, Columns: []query.ColumnSpec{spec("role"), spec("username"), spec("resource"), spec("permission")}}
	for _, r := range rows {
		out.Rows = append(out.Rows, [][]byte{types.EncodeText(r.role), types.EncodeText(r.role),
			types.EncodeText(resourceString(r.resource)), types.EncodeText(r.perm)})
	}
	return out, nil
}

// bcryptCost validates a jBcrypt hash.
func bcryptCost(hash string) (int, error) {
	return bcryptCostOf([]byte(hash))
}

// missingRole answers a statement on a role that does not exist: nothing
// with IF EXISTS, else Cassandra's "r doesn't exist".
func missingRole(name string, ifExists bool) (*query.Result, error) {
	if ifExists {
		return void, nil
	}
	return nil, cqlerr.Invalidf("%s doesn't exist", name)
}

// requireSuper fails with Unauthorized msg unless user is a superuser.
func (m *Manager) requireSuper(ctx context.Context, user, msg string) error {
	ok, err := m.isSuper(ctx, user)
	if err != nil {
		return err
	}
	if !ok {
		return cqlerr.New(cqlerr.Unauthorized, "%s", msg)
	}
	return nil
}
