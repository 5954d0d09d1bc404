package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
	"golang.org/x/crypto/bcrypt"
)

// Class names as cassandra.yaml and the AUTHENTICATE message spell them.
const (
	PasswordAuthenticatorClass = "org.apache.cassandra.auth.PasswordAuthenticator"
	roleManagerClass           = "org.apache.cassandra.auth.CassandraRoleManager"
)

// Config selects the authenticator and authorizer (cassandra.yaml's
// authenticator and authorizer; short or fully qualified class names).
type Config struct {
	Authenticator string
	Authorizer    string
	// Validity is how long cached roles and permissions are used
	// (roles_validity / permissions_validity; default 2 s).
	Validity time.Duration
}

// Normalize returns the short class name of a configured authenticator or
// authorizer ("PasswordAuthenticator", "AllowAllAuthorizer", ...).
func Normalize(class string) string {
	class = strings.TrimSpace(class)
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		class = class[i+1:]
	}
	return class
}

// Validate checks the classes.
func (c Config) Validate() error {
	switch Normalize(c.Authenticator) {
	case "", "AllowAllAuthenticator", "PasswordAuthenticator":
	default:
		return fmt.Errorf("unsupported authenticator %q (AllowAllAuthenticator or PasswordAuthenticator)", c.Authenticator)
	}
	switch Normalize(c.Authorizer) {
	case "", "AllowAllAuthorizer", "CassandraAuthorizer":
	default:
		return fmt.Errorf("unsupported authorizer %q (AllowAllAuthorizer or CassandraAuthorizer)", c.Authorizer)
	}
	return nil
}

// Enabled reports whether the configuration needs a Manager (anything but
// Cassandra's AllowAll defaults).
func (c Config) Enabled() bool {
	return Normalize(c.Authenticator) == "PasswordAuthenticator" || Normalize(c.Authorizer) == "CassandraAuthorizer"
}

// Executor runs the Manager's queries of system_auth.
type Executor interface {
	Query(ctx context.Context, sess *query.Session, cql string, opts *query.Options) (*query.Result, error)
}

// Manager implements query.Security.
type Manager struct {
	cfg      Config
	exec     Executor
	log      *slog.Logger
	password bool // PasswordAuthenticator
	authz    bool // CassandraAuthorizer
	internal query.Session

	mu    sync.Mutex
	cache map[string]*cachedRole
}

type cachedRole struct {
	at    time.Time
	info  *roleInfo
	perms map[string]map[string]bool // resource -> permissions, over the role and its parents
	super bool                       // the role or an inherited role is a superuser
}

var _ query.Security = (*Manager)(nil)

// New returns a Manager; call Setup once the node serves queries.
func New(cfg Config, exec Executor, log *slog.Logger) *Manager {
	if cfg.Validity == 0 {
		cfg.Validity = 2 * time.Second
	}
	return &Manager{
		cfg: cfg, exec: exec, log: log,
		password: Normalize(cfg.Authenticator) == "PasswordAuthenticator",
		authz:    Normalize(cfg.Authorizer) == "CassandraAuthorizer",
		internal: query.Session{Internal: true},
		cache:    map[string]*cachedRole{},
	}
}

// SetExecutor sets the executor (the node creates the Manager before the
// executor that calls it).
func (m *Manager) SetExecutor(exec Executor) { m.exec = exec }

// RequireAuthentication reports whether clients must log in.
func (m *Manager) RequireAuthentication() bool { return m.password }

// AuthenticatorClass is the class named in the AUTHENTICATE message.
func (m *Manager) AuthenticatorClass() string { return PasswordAuthenticatorClass }

// Setup creates Cassandra's default superuser, cassandra/cassandra, when no
// role exists yet.
func (m *Manager) Setup(ctx context.Context) error {
	res, err := m.q(ctx, "SELECT role FROM system_auth.roles LIMIT 1")
	if err != nil {
		return err
	}
	if len(res.Rows) > 0 {
		return nil
	}
	hash, err := hashPassword("cassandra")
	if err != nil {
		return err
	}
	if _, err := m.q(ctx, "INSERT INTO system_auth.roles (role, is_superuser, can_login, salted_hash) VALUES (?, true, true, ?)",
		text("cassandra"), text(hash)); err != nil {
		return err
	}
	m.log.Info("created default superuser role 'cassandra'")
	return nil
}

// hashPassword is Cassandra's bcrypt with 2^10 rounds.
func hashPassword(pw string) (string, error) {
	if len(pw) > 72 {
		// bcrypt reads at most 72 bytes; Cassandra's jBCrypt silently
		// truncates the same way.
		pw = pw[:72]
	}
	b, err := bcrypt.GenerateFromPassword([]byte(pw), 10)
	return string(b), err
}

// Authenticate checks a SASL PLAIN login and returns the role name.
func (m *Manager) Authenticate(ctx context.Context, user, password string) (string, error) {
	bad := &cqlerr.Error{Code: cqlerr.BadCredentials, Message: fmt.Sprintf("Provided username %s and/or password are incorrect", user)}
	info, err := m.loadRole(ctx, user)
	if err != nil {
		return "", err
	}
	if info == nil || info.hash == "" {
		return "", bad
	}
	pw := []byte(password)
	if len(pw) > 72 {
		pw = pw[:72]
	}
	if bcrypt.CompareHashAndPassword([]byte(info.hash), pw) != nil {
		return "", bad
	}
	if !info.login {
		return "", &cqlerr.Error{Code: cqlerr.BadCredentials, Message: fmt.Sprintf("%s is not permitted to log in", user)}
	}
	return user, nil
}

// ---------------------------------------------------------------------------
// Roles in system_auth.

type roleInfo struct {
	name     string
	login    bool
	super    bool
	memberOf []string
	hash     string
}

func text(s string) query.Value { return query.Value{B: types.EncodeText(s)} }

func (m *Manager) q(ctx context.Context, stmt string, vals ...query.Value) (*query.Result, error) {
	return m.exec.Query(ctx, &m.internal, stmt, &query.Options{Consistency: uint16(query.One), Values: vals})
}

func (m *Manager) loadRole(ctx context.Context, name string) (*roleInfo, error) {
	res, err := m.q(ctx, "SELECT role, can_login, is_superuser, member_of, salted_hash FROM system_auth.roles WHERE role = ?", text(name))
	if err != nil {
		return nil, err
	}
	if len(res.Rows) == 0 {
		return nil, nil
	}
	row := res.Rows[0]
	info := &roleInfo{name: name, login: boolOf(row[1]), super: boolOf(row[2]), hash: string(row[4])}
	if row[3] != nil {
		elems, err := types.DecodeCollection(row[3])
		if err != nil {
			return nil, cqlerr.Serverf("corrupt system_auth.roles row for %s: %v", name, err)
		}
		for _, e := range elems {
			info.memberOf = append(info.memberOf, string(e))
		}
	}
	return info, nil
}

func boolOf(b []byte) bool { return len(b) == 1 && b[0] != 0 }

// allRoles returns every role name, sorted.
func (m *Manager) allRoles(ctx context.Context) ([]string, error) {
	res, err := m.q(ctx, "SELECT role FROM system_auth.roles")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(res.Rows))
	for _, r := range res.Rows {
		out = append(out, string(r[0]))
	}
	sort.Strings(out)
	return out, nil
}

// rolesOf returns role and, when recursive, every role it inherits from.
func (m *Manager) rolesOf(ctx context.Context, role string, recursive bool) ([]*roleInfo, error) {
	seen := map[string]bool{}
	var out []*roleInfo
	var walk func(name string, depth int) error
	walk = func(name string, depth int) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		info, err := m.loadRole(ctx, name)
		if err != nil || info == nil {
			return err
		}
		out = append(out, info)
		if !recursive && depth > 0 {
			return nil
		}
		for _, p := range info.memberOf {
			if err := walk(p, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(role, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// role returns the cached view of a login role: its inherited roles'
// superuser status and permissions.
func (m *Manager) role(ctx context.Context, name string) (*cachedRole, error) {
	m.mu.Lock()
	c := m.cache[name]
	m.mu.Unlock()
	if c != nil && time.Since(c.at) < m.cfg.Validity {
		return c, nil
	}
	roles, err := m.rolesOf(ctx, name, true)
	if err != nil {
		return nil, err
	}
	c = &cachedRole{at: time.Now(), perms: map[string]map[string]bool{}}
	if len(roles) > 0 {
		c.info = roles[0]
	}
	for _, r := range roles {
		if r.super {
			c.super = true
		}
		res, err := m.q(ctx, "SELECT resource, permissions FROM system_auth.role_permissions WHERE role = ?", text(r.name))
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows {
			set := c.perms[string(row[0])]
			if set == nil {
				set = map[string]bool{}
				c.perms[string(row[0])] = set
			}
			if row[1] != nil {
				elems, err := types.DecodeCollection(row[1])
				if err != nil {
					return nil, cqlerr.Serverf("corrupt system_auth.role_permissions row: %v", err)
				}
				for _, e := range elems {
					set[string(e)] = true
				}
			}
		}
	}
	m.mu.Lock()
	m.cache[name] = c
	m.mu.Unlock()
	return c, nil
}

func (m *Manager) invalidate() {
	m.mu.Lock()
	m.cache = map[string]*cachedRole{}
	m.mu.Unlock()
}

// ---------------------------------------------------------------------------
// Authorization.

func anonymous() error {
	return cqlerr.New(cqlerr.Unauthorized, "You have to be logged in and not anonymous to perform this request")
}

// Authorize implements query.Security.
func (m *Manager) Authorize(ctx context.Context, sess *query.Session, perm string, resource string) error {
	if !m.authz || sess.Internal {
		return nil
	}
	if sess.User == "" {
		return anonymous()
	}
	ok, err := m.has(ctx, sess.User, perm, resource)
	if err != nil || ok {
		return err
	}
	return cqlerr.New(cqlerr.Unauthorized, "User %s has no %s permission on %s or any of its parents", sess.User, perm, resourceString(resource))
}

// has reports whether user holds perm on resource or a parent.
func (m *Manager) has(ctx context.Context, user, perm, resource string) (bool, error) {
	c, err := m.role(ctx, user)
	if err != nil {
		return false, err
	}
	if c.super {
		return true, nil
	}
	for r := resource; r != ""; r = parentResource(r) {
		if c.perms[r][perm] {
			return true, nil
		}
	}
	return false, nil
}

func (m *Manager) isSuper(ctx context.Context, user string) (bool, error) {
	if user == "" {
		return false, nil
	}
	c, err := m.role(ctx, user)
	if err != nil {
		return false, err
	}
	return c.super, nil
}

// Created implements query.Security: the creator of a keyspace, table or
// role gets every permission that applies to it.
func (m *Manager) Created(ctx context.Context, sess *query.Session, resource string) {
	if !m.authz || sess.User == "" || sess.Internal {
		return
	}
	if err := m.grant(ctx, sess.User, resource, applicable(resource)); err != nil {
		m.log.Warn("granting permissions to the creator", "user", sess.User, "resource", resource, "err", err)
	}
}

func (m *Manager) grant(ctx context.Context, role, resource string, perms []string) error {
	vals := make([][]byte, len(perms))
	for i, p := range perms {
		vals[i] = types.EncodeText(p)
	}
	set := query.Value{B: types.EncodeSet(types.TextType, vals)}
	if _, err := m.q(ctx, "UPDATE system_auth.role_permissions SET permissions = permissions + ? WHERE role = ? AND resource = ?",
		set, text(role), text(resource)); err != nil {
		return err
	}
	if _, err := m.q(ctx, "INSERT INTO system_auth.resource_role_permissons_index (resource, role) VALUES (?, ?)",
		text(resource), text(role)); err != nil {
		return err
	}
	m.invalidate()
	return nil
}

// ---------------------------------------------------------------------------
// Resources (Cassandra's names and printed forms).

var allPermissions = []string{"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE", "EXECUTE", "UNMASK", "SELECT_MASKED"}

// applicable is the set of permissions a resource supports, in
// Cassandra's order.
func applicable(resource string) []string {
	parts := strings.Split(resource, "/")
	switch parts[0] {
	case "data":
		if len(parts) <= 2 {
			return []string{"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "UNMASK", "SELECT_MASKED"}
		}
		return []string{"ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE", "UNMASK", "SELECT_MASKED"}
	case "roles":
		if len(parts) == 1 {
			return []string{"CREATE", "ALTER", "DROP", "AUTHORIZE", "DESCRIBE"}
		}
		return []string{"ALTER", "DROP", "AUTHORIZE"}
	case "functions":
		if len(parts) <= 2 {
			return []string{"CREATE", "ALTER", "DROP", "AUTHORIZE", "EXECUTE"}
		}
		return []string{"ALTER", "DROP", "AUTHORIZE", "EXECUTE"}
	}
	return nil
}

func parentResource(r string) string {
	if i := strings.LastIndexByte(r, '/'); i >= 0 {
		return r[:i]
	}
	return ""
}

// resourceString prints a resource as Cassandra does in messages and LIST
// PERMISSIONS.
func resourceString(r string) string {
	parts := strings.Split(r, "/")
	switch parts[0] {
	case "data":
		switch len(parts) {
		case 1:
			return "<all keyspaces>"
		case 2:
			return "<keyspace " + parts[1] + ">"
		}
		if parts[2] == "*" {
			return "<all tables in " + parts[1] + ">"
		}
		return "<table " + parts[1] + "." + parts[2] + ">"
	case "roles":
		if len(parts) == 1 {
			return "<all roles>"
		}
		return "<role " + parts[1] + ">"
	case "functions":
		switch len(parts) {
		case 1:
			return "<all functions>"
		case 2:
			return "<all functions in " + parts[1] + ">"
		}
		return "<function " + parts[1] + "." + parts[2] + ">"
	}
	return r
}

// resourceOf converts a statement's resource to its name.
func resourceOf(r cql.Resource, keyspace string) (string, error) {
	ks := r.Keyspace
	switch r.Kind {
	case cql.ResourceAllKeyspaces:
		return "data", nil
	case cql.ResourceKeyspace:
		return "data/" + r.Keyspace, nil
	case cql.ResourceTable:
		if ks == "" {
			ks = keyspace
		}
		if ks == "" {
			return "", cqlerr.Invalidf("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
		}
		return "data/" + ks + "/" + r.Name, nil
	case cql.ResourceAllTablesInKeyspace:
		return "data/" + r.Keyspace + "/*", nil
	case cql.ResourceAllRoles:
		return "roles", nil
	case cql.ResourceRole:
		return "roles/" + r.Name, nil
	case cql.ResourceAllFunctions:
		return "functions", nil
	case cql.ResourceAllFunctionsInKeyspace:
		return "functions/" + r.Keyspace, nil
	case cql.ResourceFunction:
		if ks == "" {
			ks = keyspace
		}
		args := make([]string, len(r.ArgTypes))
		for i, t := range r.ArgTypes {
			args[i] = t.String()
		}
		return "functions/" + ks + "/" + r.Name + "[" + strings.Join(args, "^") + "]", nil
	}
	return "", cqlerr.Invalidf("MBean resources are not supported by cqld (it has no JMX)")
}

func bcryptCostOf(hash []byte) (int, error) { return bcrypt.Cost(hash) }

// Dropped implements query.Security: revokes every permission on resource.
func (m *Manager) Dropped(ctx context.Context, resource string) {
	if err := m.revokeAllOn(ctx, resource); err != nil {
		m.log.Warn("revoking permissions on a dropped resource", "resource", resource, "err", err)
	}
}

func (m *Manager) revokeAllOn(ctx context.Context, resource string) error {
	res, err := m.q(ctx, "SELECT role FROM system_auth.resource_role_permissons_index WHERE resource = ?", text(resource))
	if err != nil {
		return err
	}
	for _, r := range res.Rows {
		if _, err := m.q(ctx, "DELETE FROM system_auth.role_permissions WHERE role = ? AND resource = ?", query.Value{B: r[0]}, text(resource)); err != nil {
			return err
		}
	}
	if _, err := m.q(ctx, "DELETE FROM system_auth.resource_role_permissons_index WHERE resource = ?", text(resource)); err != nil {
		return err
	}
	m.invalidate()
	return nil
}
