package wire

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/kvsql/kvsql/wire/backend"
)

// Notifications (LISTEN / NOTIFY). A session that implements
// backend.Listener has its notifications sent before each ReadyForQuery
// and, while the connection waits for the client outside a transaction
// block, as they arrive: the wait then peeks at the socket instead of
// reading a message, and a notification for the session interrupts the
// peek by moving its read deadline to now. A peek consumes nothing, so
// an interrupted one loses no byte of a message.

// notifyWait is a connection's side of that wait.
type notifyWait struct {
	mu   sync.Mutex
	idle bool // peeking, so wake may interrupt
}

// listener is the session's backend.Listener, or nil.
func (c *conn) listener() backend.Listener {
	l, _ := c.sess.(backend.Listener)
	return l
}

// startListening registers the connection's waker with its session.
func (c *conn) startListening() {
	if l := c.listener(); l != nil {
		c.guard("Session.SetWaker", func() error {
			l.SetWaker(c.wakeForNotification)
			return nil
		})
	}
}

// wakeForNotification interrupts the idle wait, if the connection is in
// it; any goroutine may call it.
func (c *conn) wakeForNotification() {
	c.notify.mu.Lock()
	defer c.notify.mu.Unlock()
	if c.notify.idle {
		c.nc().SetReadDeadline(time.Now())
	}
}

// sendNotifications buffers the session's pending notifications.
func (c *conn) sendNotifications() {
	l := c.listener()
	if l == nil {
		return
	}
	c.guard("Session.Notifications", func() error {
		for _, n := range l.Notifications() {
			c.send(&pgproto3.NotificationResponse{PID: n.PID, Channel: n.Channel, Payload: n.Payload})
		}
		return nil
	})
}

// awaitInput waits, outside a transaction block of a listening session,
// until the client has sent something, sending notifications meanwhile.
// It returns at once otherwise; an error is the connection's read error.
func (c *conn) awaitInput() error {
	l := c.listener()
	if l == nil || c.rd.Buffered() > 0 {
		return nil
	}
	for {
		// Listening is a lock and a length: called bare, as this runs
		// before every read of a session that ever listened.
		if !l.Listening() {
			return nil
		}
		idle := false
		c.guard("Session.TxnStatus", func() error {
			idle = c.sess.TxnStatus() == 'I'
			return nil
		})
		if !idle {
			return nil
		}
		c.setIdle(true)
		c.sendNotifications()
		if len(c.wbuf) > 0 {
			c.setIdle(false)
			if err := c.flush(); err != nil {
				return err
			}
			continue
		}
		// pg_terminate_backend and Server.Shutdown set their flag, then
		// the read deadline, which setIdle(false) clears: a flag set
		// before this check is seen here, one set after it has its
		// deadline wake the peek.
		if c.stopping() {
			c.setIdle(false)
			return errAdminShutdown
		}
		_, err := c.rd.Peek(1)
		c.setIdle(false)
		if c.stopping() {
			return errAdminShutdown
		}
		var ne net.Error
		if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
			return err
		}
		// Woken: a notification came. Loop to send it.
	}
}

// stopping reports whether the connection is to end (57P01).
func (c *conn) stopping() bool { return c.terminating.Load() || c.srv.shutting.Load() }

// setIdle ends (or marks) the idle wait; leaving it clears any deadline
// a wake set, so the message read next runs without one.
func (c *conn) setIdle(idle bool) {
	c.notify.mu.Lock()
	c.notify.idle = idle
	c.notify.mu.Unlock()
	if !idle {
		c.nc().SetReadDeadline(time.Time{})
	}
}
