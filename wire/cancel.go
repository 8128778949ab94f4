package wire

import (
	"context"
	"crypto/subtle"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

// The causes a statement's context is cancelled with; the client sees
// them as its error when the statement stops because of the cancellation.
var (
	errCanceledByUser  = pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
	errStatementTimout = pgerror.New(pgerror.QueryCanceled, "canceling statement due to statement timeout")
	errAdminShutdown   = pgerror.New(pgerror.AdminShutdown, "terminating connection due to administrator command")
	errConnectionLost  = pgerror.New(pgerror.Code("08006"), "connection to client lost")
)

// keyMatches compares a CancelRequest's secret in constant time.
func (c *conn) keyMatches(secret []byte) bool {
	return subtle.ConstantTimeCompare(secret, c.secret[:]) == 1
}

// stmtCtx is the context one statement (or one portal, across its
// Executes) runs under: CancelRequest and the statement timeout cancel it
// with a 57014 cause.
type stmtCtx struct {
	context.Context
	c      *conn
	id     int
	cancel context.CancelCauseFunc
	timer  *time.Timer
	peer   *time.Timer // runs checkPeer; REQUIRES: c.mu held to touch it
}

// startStatement derives a statement context from the connection's and
// registers it for CancelRequest. Call done when the statement ends.
func (c *conn) startStatement() *stmtCtx {
	ctx, cancel := context.WithCancelCause(c.ctx)
	s := &stmtCtx{Context: ctx, c: c, cancel: cancel}
	if d := c.statementTimeout(); d > 0 {
		s.timer = time.AfterFunc(d, func() { cancel(errStatementTimout) })
	}
	c.mu.Lock()
	c.mu.nextID++
	s.id = c.mu.nextID
	c.mu.running[s.id] = cancel
	s.peer = time.AfterFunc(peerCheckInterval, s.checkPeer)
	c.mu.Unlock()
	return s
}

// peerCheckInterval is how often a running statement checks that its
// client is still connected (PostgreSQL's client_connection_check_interval,
// which is off by default there).
const peerCheckInterval = 500 * time.Millisecond

// checkPeer runs every peerCheckInterval while the statement runs (a
// statement shorter than that costs one timer): it cancels the statement
// when its client has disconnected, so a query that writes nothing for a
// long time (a big sort or aggregation) stops at once and releases its
// memory and temporary files instead of running to its first write.
func (s *stmtCtx) checkPeer() {
	if s.Err() != nil {
		return
	}
	if peerClosed(s.c.nc()) {
		s.cancel(errConnectionLost)
		return
	}
	s.c.mu.Lock()
	s.peer.Reset(peerCheckInterval)
	s.c.mu.Unlock()
}

// done unregisters and releases the context.
func (s *stmtCtx) done() {
	if s.timer != nil {
		s.timer.Stop()
	}
	s.c.mu.Lock()
	delete(s.c.mu.running, s.id)
	s.peer.Stop()
	s.c.mu.Unlock()
	s.cancel(nil)
}

// explain turns an error that a cancellation caused into the
// cancellation's own error (57014 with PostgreSQL's wording), so that a
// Backend returning ctx.Err() or a wrapped context error still gives the
// client the right message.
func (s *stmtCtx) explain(err error) error {
	if err == nil || s.Err() == nil {
		return err
	}
	if cause := context.Cause(s); cause != nil {
		if code := pgerror.CodeOf(err); code == pgerror.Internal || code == pgerror.QueryCanceled {
			return cause
		}
	}
	return err
}

// cancelRunning cancels every statement context of c with cause.
func (c *conn) cancelRunning(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.mu.running {
		cancel(cause)
	}
}
