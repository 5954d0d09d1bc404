package transport

import (
	"maps"
	"net"

	"github.com/cqld/cqld/internal/query"
)

// Connection stages, as ConnectionStage names them in
// system_views.clients.
const (
	stageEstablished = iota
	stageAuthenticating
	stageReady
)

var stageNames = [...]string{"established", "authenticating", "ready"}

// anonymousUser is AuthenticatedUser.ANONYMOUS_USER's name: the user of
// every connection when the authenticator requires no login.
const anonymousUser = "anonymous"

// Clients returns the native-protocol connections that sent STARTUP, for
// system_views.clients (which orders them).
func (s *Server) Clients() []query.ClientInfo {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	authRequired := s.cfg.Authenticator != nil && s.cfg.Authenticator.RequireAuthentication()
	out := make([]query.ClientInfo, 0, len(conns))
	for _, c := range conns {
		a, ok := c.nc.RemoteAddr().(*net.TCPAddr)
		if !ok || !c.listed.Load() {
			continue
		}
		ci := query.ClientInfo{
			Address:  c.clientIP(),
			Port:     a.Port,
			Hostname: a.IP.String(),
			Stage:    stageNames[c.stage.Load()],
			// Set before the STARTUP that listed the connection, never
			// after: listed's load orders this read after the write.
			ProtocolVersion: int(c.version),
			Requests:        c.requests.Load(),
		}
		c.sessMu.Lock()
		ci.Username, ci.Keyspace = c.sess.User, c.sess.Keyspace
		ci.Options = maps.Clone(c.startup)
		c.sessMu.Unlock()
		if ci.Username == "" && !authRequired {
			ci.Username = anonymousUser
		}
		out = append(out, ci)
	}
	return out
}
