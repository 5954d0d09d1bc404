package auth

import "context"

// IsSuperuser is Cassandra's ClientState.isSuper, which exempts a client
// from the guardrails: true for every client when the authenticator does
// not require authentication, else whether the role is a superuser.
func (m *Manager) IsSuperuser(ctx context.Context, user string) bool {
	if !m.password {
		return true
	}
	ok, err := m.isSuper(ctx, user)
	return err == nil && ok
}
