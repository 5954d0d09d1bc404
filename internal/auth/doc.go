// Package auth is cqld's authentication and authorization, with
// Cassandra's PasswordAuthenticator, CassandraAuthorizer and
// CassandraRoleManager semantics: roles (with login, superuser, bcrypt
// password hashes and role membership), permissions on data, role and
// function resources, and the CQL statements that manage them (CREATE /
// ALTER / DROP ROLE and USER, GRANT / REVOKE, LIST ROLES / USERS /
// PERMISSIONS).
//
// State lives in the system_auth tables, as in Cassandra, read and written
// through the query executor with an internal session; a short-lived cache
// (Cassandra's roles_validity and permissions_validity, 2 s) keeps the
// per-request checks off the storage engine.
//
// With Cassandra's defaults (AllowAllAuthenticator, AllowAllAuthorizer) the
// node runs without a Manager; the query layer then answers role and
// permission statements as Cassandra does for anonymous clients.
package auth
