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
	// timer runs timeout after the statement timeout; armed: it is set
	// for the running statement. Made by the first statement with a
	// timeout and reset by the next ones.
	timer *time.Timer
	armed bool
}

// startStatement returns a statement context registered for
// CancelRequest. Call done when the statement ends.
//
// It is not derived from the connection's context: a child would cost a
// lock of the parent and an entry in its children map at start and end
// of every statement. Instead every cancellation of the connection's
// context (conn.stop) cancels the registered statements first, with the
// cause a child would have had (context.Canceled) unless one was given
// before.
//
// A context that ended its statement uncancelled is reused by the next
// (conn.spareCtx): a context, its cancel function and a stmtCtx are
// three allocations, and nearly every statement ends uncancelled. Reuse
// is safe because nothing can cancel a context once done has
// unregistered it and stopped its timer before it fired; one that was
// cancelled, or whose timer fired, is released and never reused.
func (c *conn) startStatement() *stmtCtx {
	s := c.spareCtx
	c.spareCtx = nil
	if s == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		s = &stmtCtx{Context: ctx, c: c, cancel: cancel}
	}
	if d := c.statementTimeout(); d > 0 {
		if s.timer == nil {
			s.timer = time.AfterFunc(d, s.timeout)
		} else {
			s.timer.Reset(d)
		}
		s.armed = true
	}
	c.mu.Lock()
	c.mu.nextID++
	s.id = c.mu.nextID
	c.mu.running[s.id] = s.cancel
	c.mu.Unlock()
	if c.ctx.Err() != nil {
		s.cancel(context.Canceled) // the connection ended before: as a child of it
	}
	return s
}

// timeout cancels s for its statement timeout (timer's function).
func (s *stmtCtx) timeout() { s.cancel(errStatementTimout) }

// done unregisters s, then keeps it for the connection's next statement
// if it was never cancelled, else releases it.
func (s *stmtCtx) done() {
	reuse := true
	if s.armed {
		s.armed = false
		// A timer that fired may be cancelling s right now, after the
		// check below: such a context is not reused.
		reuse = s.timer.Stop()
	}
	s.c.mu.Lock()
	delete(s.c.mu.running, s.id)
	s.c.mu.Unlock()
	if reuse && s.Err() == nil {
		s.c.spareCtx = s
		return
	}
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

// cancelQuery cancels what c is running with 57014 "canceling statement
// due to user request". A CancelRequest with c's key and
// pg_cancel_backend(c's pid) (through backend.ConnInfo.Cancel) both end
// here.
func (c *conn) cancelQuery() { c.cancelRunning(errCanceledByUser) }

// terminate ends c as pg_terminate_backend asks: what runs is cancelled,
// and the connection's goroutine, at its next step (the cancelled
// statement's error, or the read it is blocked in, woken by the expired
// deadline), sends FATAL 57P01 and closes; closing the Session rolls back
// its transaction. Safe from any goroutine, c's own included.
func (c *conn) terminate() {
	c.terminating.Store(true)
	c.cancelRunning(errAdminShutdown)
	c.nc().SetReadDeadline(time.Now())
}

// cancelRunning cancels every statement context of c with cause.
func (c *conn) cancelRunning(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.mu.running {
		cancel(cause)
	}
}
