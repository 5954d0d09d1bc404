package query

import (
	"github.com/cqld/cqld/internal/cql"
	"github.com/cqld/cqld/internal/cqlerr"
)

// Roles, users and permissions on a node with Cassandra 5.0's default
// security configuration: authenticator AllowAllAuthenticator, authorizer
// AllowAllAuthorizer, role_manager CassandraRoleManager. Clients are then
// anonymous, and every role or permission statement ends, after option
// validation, in Cassandra's ensureNotAnonymous check. cqld has no
// PasswordAuthenticator yet (see the issue notes); these answers are the
// ones Cassandra gives with the defaults.

const (
	anonymousMessage = "You have to be logged in and not anonymous to perform this request"
	roleManagerClass = "org.apache.cassandra.auth.CassandraRoleManager"
)

func anonymous() error { return cqlerr.New(cqlerr.Unauthorized, "%s", anonymousMessage) }

// validateRoleOptions is RoleOptions.validate with CassandraRoleManager's
// options under AllowAllAuthenticator (LOGIN and SUPERUSER only).
func validateRoleOptions(opts []cql.RoleOption) error {
	for _, o := range opts {
		var name string
		switch o.Kind {
		case cql.RolePassword:
			name = "PASSWORD"
		case cql.RoleHashedPassword:
			name = "HASHED_PASSWORD"
		case cql.RoleOptionsMap:
			name = "OPTIONS"
		default:
			continue
		}
		return cqlerr.Invalidf("%s doesn't support %s", roleManagerClass, name)
	}
	return nil
}

// compileSecurity answers the role, user and permission statements: an
// option error, or the anonymous client's Unauthorized.
func compileSecurity(stmt cql.Statement) error {
	switch st := stmt.(type) {
	case *cql.CreateRole:
		if err := validateRoleOptions(st.Options); err != nil {
			return err
		}
		if st.Name == "" {
			return cqlerr.Invalidf("Role name can't be an empty string")
		}
	case *cql.AlterRole:
		if err := validateRoleOptions(st.Options); err != nil {
			return err
		}
		if len(st.Options) == 0 {
			return cqlerr.Invalidf("ALTER [ROLE|USER] can't be empty")
		}
	case *cql.CreateUser:
		if st.Password != nil {
			if err := validateRoleOptions([]cql.RoleOption{*st.Password}); err != nil {
				return err
			}
		}
		if st.Name == "" {
			return cqlerr.Invalidf("Role name can't be an empty string")
		}
	case *cql.AlterUser:
		if st.Password != nil {
			if err := validateRoleOptions([]cql.RoleOption{*st.Password}); err != nil {
				return err
			}
		}
		if !st.Superuser && !st.NoSuperuser {
			return cqlerr.Invalidf("ALTER [ROLE|USER] can't be empty")
		}
	}
	return anonymous()
}
