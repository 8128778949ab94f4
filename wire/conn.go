package wire

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// conn is one client connection. Everything but mu is owned by the
// connection's goroutine (serve and what it calls).
type conn struct {
	srv *Server
	log *slog.Logger

	rd   *bufio.Reader // over the (possibly TLS) connection, after startup
	body []byte        // the last message body, reused
	hdr  [5]byte       // the last message header (readFrame)
	in   inbox         // the last Bind, Describe, Execute or Sync, reused
	wbuf []byte        // output not yet flushed

	pid    uint32
	secret [4]byte
	// counted: counted against MaxConnections; starting: counted against
	// MaxStartupConnections (not yet authenticated). REQUIRES: srv.mu
	// held to change either once the connection is tracked.
	counted  bool
	starting bool

	sess    backend.Session
	ctx     context.Context // cancelled when the connection ends
	stop    context.CancelFunc
	stmts   map[string]*prepared
	portals map[string]*portal
	// ignoreTillSync is set by an error in the extended protocol: the
	// messages up to the next Sync are discarded.
	ignoreTillSync bool
	// watch is the connection's client watch (watch.go), made by the
	// first statement and rearmed by each.
	watch *clientWatch
	// spareCtx is the uncancelled context of the last statement, which
	// the next one reuses (startStatement).
	spareCtx *stmtCtx
	// sparePortal is the unnamed portal the last Sync closed, which the
	// next Bind reuses (a pgx or pgbench -M prepared client binds one per
	// statement); nothing else refers to it.
	sparePortal *portal
	start       time.Time // accepted (pg_stat_activity.backend_start)
	// terminating is set by terminate (pg_terminate_backend), from any
	// goroutine: the connection ends with FATAL 57P01 at its next step.
	terminating atomic.Bool
	// notify is the wait for the client that notifications interrupt
	// (notify.go).
	notify notifyWait

	mu struct {
		sync.Mutex
		netConn net.Conn                        // swapped for the TLS conn at startup
		running map[int]context.CancelCauseFunc // statements that CancelRequest cancels
		nextID  int
	}
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, start: time.Now()}
	c.mu.netConn = nc
	c.mu.running = make(map[int]context.CancelCauseFunc)
	var b [8]byte
	rand.Read(b[:])
	// A positive int32, as PostgreSQL pids are; collisions only weaken
	// CancelRequest routing, and the secret still has to match.
	c.pid = binary.BigEndian.Uint32(b[:4])&0x7fffffff | 1
	copy(c.secret[:], b[4:])
	c.log = s.log.With("pid", c.pid, "remote", nc.RemoteAddr().String())
	ctx, stop := context.WithCancel(context.Background())
	c.ctx = ctx
	// Statement contexts are not children of ctx (startStatement), so
	// ending the connection cancels them itself; a cause given before
	// (kill, a failed write) wins. ctx first: a statement registered
	// after cancelRunning took the lock sees ctx cancelled.
	c.stop = func() {
		stop()
		c.cancelRunning(context.Canceled)
	}
	c.stmts = make(map[string]*prepared)
	c.portals = make(map[string]*portal)
	return c
}

// nc returns the current network connection (TLS after an upgrade).
func (c *conn) nc() net.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.netConn
}

// kill closes the network connection and cancels whatever runs; safe from
// any goroutine.
func (c *conn) kill() {
	c.cancelRunning(errAdminShutdown)
	c.stop()
	c.nc().Close()
}

// serve runs the connection to its end.
func (c *conn) serve() {
	defer c.srv.untrack(c)
	defer func() {
		if r := recover(); r != nil {
			// Only a bug in this package gets here (Backend calls are
			// guarded); keep the server alive.
			c.log.Error("wire: panic in connection", "panic", r, "stack", stack())
		}
		for name, p := range c.portals {
			c.closePortal(p)
			delete(c.portals, name)
		}
		if c.sess != nil {
			c.guard("Session.Close", func() error { return c.sess.Close() })
		}
		c.stop()
		c.nc().Close()
	}()
	if !c.startup() {
		return
	}
	c.loop()
}

// loop reads and dispatches messages until Terminate, a fatal error or
// shutdown.
func (c *conn) loop() {
	for {
		if c.srv.shutting.Load() || c.terminating.Load() {
			c.fatal(errAdminShutdown)
			return
		}
		// Flush before blocking: a client that pipelines without Flush
		// still sees its results, and nothing is written twice.
		if c.rd.Buffered() == 0 && len(c.wbuf) > 0 {
			if c.flush() != nil {
				return
			}
		}
		// idle_in_transaction_session_timeout: a read deadline while a
		// transaction is open and nothing is buffered.
		idle := time.Duration(0)
		if c.sess != nil && c.rd.Buffered() == 0 {
			idle = c.idleInTransactionTimeout()
		}
		if idle > 0 {
			c.nc().SetReadDeadline(time.Now().Add(idle))
			if c.terminating.Load() {
				// terminate's expired deadline may just have been
				// replaced: leave now.
				c.fatal(errAdminShutdown)
				return
			}
		}
		var err error
		if idle == 0 {
			err = c.awaitInput() // notify.go
		}
		var msg pgproto3.FrontendMessage
		if err == nil {
			msg, err = c.receive()
		}
		if idle > 0 {
			c.nc().SetReadDeadline(time.Time{})
		}
		if err != nil {
			var ne net.Error
			if c.terminating.Load() {
				c.fatal(errAdminShutdown)
				return
			}
			if idle > 0 && errors.As(err, &ne) && ne.Timeout() {
				c.fatal(pgerror.New(pgerror.IdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout"))
				return
			}
			c.readFailed(err)
			return
		}
		if c.ignoreTillSync {
			switch msg.(type) {
			case *pgproto3.Sync, *pgproto3.Terminate:
			default:
				continue
			}
		}
		switch m := msg.(type) {
		case *pgproto3.Query:
			c.simpleQuery(m.String)
			c.readyForQuery()
		case *pgproto3.Parse:
			c.extended(c.parse(m))
		case *pgproto3.Bind:
			c.extended(c.bind(m))
		case *pgproto3.Describe:
			c.extended(c.describe(m))
		case *pgproto3.Execute:
			c.extended(c.execute(m))
		case *pgproto3.Close:
			c.extended(c.closeObject(m))
		case *pgproto3.Sync:
			c.ignoreTillSync = false
			c.sync()
			c.readyForQuery()
		case *pgproto3.Flush:
			if c.flush() != nil {
				return
			}
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// Left over from a COPY FROM STDIN that failed; PostgreSQL
			// ignores them too.
		case *pgproto3.Terminate:
			return
		default:
			c.fatal(pgerror.Newf(pgerror.ProtocolViolation, "unexpected message type %T", msg))
			return
		}
		if c.closed() {
			return
		}
	}
}

// extended reports an extended-protocol error and starts discarding
// messages until Sync.
func (c *conn) extended(err error) {
	if err != nil {
		c.statementError(err)
		c.ignoreTillSync = true
	}
}

// statementError sends err, the outcome of a statement or of an
// extended-protocol message, and tells the session, whose transaction
// block (if any) is now failed.
//
// A connection being terminated (pg_terminate_backend) instead says
// FATAL 57P01, whatever stopped its statement, and is marked closed.
func (c *conn) statementError(err error) {
	if c.terminating.Load() {
		c.fatal(errAdminShutdown)
		c.stop()
		return
	}
	if c.sess != nil {
		c.sendNotices() // raised before the error, as PostgreSQL sends them
	}
	c.sendError(err)
	if c.sess != nil {
		c.guard("Session.Fail", func() error { c.sess.Fail(err); return nil })
	}
}

// readyForQuery sends the session's changed settings and ReadyForQuery,
// then flushes.
func (c *conn) readyForQuery() {
	status := byte('I')
	if c.sess != nil {
		c.sendNotices()
		c.guard("Session.ChangedSettings", func() error {
			for k, v := range c.sess.ChangedSettings() {
				c.send(&pgproto3.ParameterStatus{Name: k, Value: v})
			}
			return nil
		})
		c.guard("Session.TxnStatus", func() error {
			status = c.sess.TxnStatus()
			return nil
		})
		if status == 'I' {
			// As PostgreSQL: not inside a transaction block.
			c.sendNotifications() // notify.go
		}
		if d, ok := c.sess.(backend.Deallocator); ok && d.DeallocatedAll() {
			for name := range c.stmts {
				if name != "" {
					delete(c.stmts, name)
				}
			}
		}
	}
	c.wbuf = appendReadyForQuery(c.wbuf, status)
	c.flush()
}

// readFailed reports why reading the next message failed, when the client
// can still hear it.
func (c *conn) readFailed(err error) {
	var pe *pgerror.Error
	switch {
	case errors.As(err, &pe):
		c.fatal(pe)
	case c.srv.shutting.Load(), c.terminating.Load():
		c.fatal(pgerror.New(pgerror.AdminShutdown, "terminating connection due to administrator command"))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
	default:
		c.log.Debug("wire: read failed", "err", err)
	}
}

// closed reports whether the connection has been marked dead by a failed
// write or by kill.
func (c *conn) closed() bool { return c.ctx.Err() != nil }

// style is how the session's settings shape values' text (TimeZone,
// IntervalStyle, extra_float_digits), each PostgreSQL's default when the
// session does not say.
func (c *conn) style() eval.Style {
	st := eval.Style{Loc: c.location()}
	if z, ok := c.sess.(interface{ IntervalStyle() types.IntervalStyle }); ok {
		st.Interval = z.IntervalStyle()
	}
	if z, ok := c.sess.(interface{ FloatDigits() int }); ok {
		st.FloatDigits = z.FloatDigits()
	}
	return st
}

// location is the session's time zone when the session has one
// (timestamptz text is shown and read in it), else UTC.
func (c *conn) location() *time.Location {
	if z, ok := c.sess.(interface{ Location() *time.Location }); ok {
		return z.Location()
	}
	return time.UTC
}
