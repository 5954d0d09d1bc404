package transport

import (
	"bytes"

	"github.com/cqld/cqld/internal/cqlerr"
)

// Authentication (spec 4.1.2, 4.2.3, 4.2.7): with an authenticator the
// STARTUP answer is AUTHENTICATE naming its class; the client answers with
// AUTH_RESPONSE carrying a SASL PLAIN token ("authzid\0user\0password"),
// and the server ends the exchange with AUTH_SUCCESS or a BadCredentials
// error. Queries are refused until then.

const opAuthSuccess = 0x10

// handleAuthResponse checks one AUTH_RESPONSE.
func (c *conn) handleAuthResponse(req *request) {
	stream := req.hdr.stream
	if !c.authPending {
		c.sendError(stream, cqlerr.Protocolf("Unexpected message AUTH_RESPONSE: authentication is not in progress"))
		return
	}
	r := reader{b: req.body}
	token := r.bytes()
	if r.err != nil {
		c.sendError(stream, cqlerr.Protocolf("Invalid AUTH_RESPONSE message: %v", r.err))
		return
	}
	parts := bytes.Split(token, []byte{0})
	if len(parts) == 2 {
		parts = append([][]byte{nil}, parts...)
	}
	if len(parts) != 3 || len(parts[1]) == 0 {
		c.sendError(stream, &cqlerr.Error{Code: cqlerr.BadCredentials, Message: "Authentication ID must not be null"})
		return
	}
	if len(parts[2]) == 0 {
		c.sendError(stream, &cqlerr.Error{Code: cqlerr.BadCredentials, Message: "Password must not be null"})
		return
	}
	user, err := c.srv.cfg.Authenticator.Authenticate(c.ctx, string(parts[1]), string(parts[2]))
	if err != nil {
		e, ok := err.(*cqlerr.Error)
		if !ok {
			e = &cqlerr.Error{Code: cqlerr.BadCredentials, Message: err.Error()}
		}
		c.sendError(stream, e)
		return
	}
	c.sessMu.Lock()
	c.sess.User = user
	c.sessMu.Unlock()
	c.authPending = false
	c.ready = true
	c.stage.Store(stageReady)
	bp := c.startFrame(stream, opAuthSuccess)
	*bp = appendBytes(*bp, nil)
	c.finishFrame(bp, true)
	c.queue(outItem{buf: bp})
}
