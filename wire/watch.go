package wire

import (
	"bufio"
	"errors"
	"net"
	"time"
)

// watchDelay is how long a statement runs before its connection is
// watched: shorter ones end before a vanished client would matter, and
// pay no goroutine and no deadline changes.
const watchDelay = 50 * time.Millisecond

// clientWatch notices, while a statement runs, that its client has gone
// (closed the socket, crashed, was killed), and then cancels the
// statement and marks the connection dead at once. Without it a query
// that sends nothing for a long time — a count(*) over a huge join —
// kept a core busy until it ended by itself, as a PostgreSQL backend does
// until it next writes (or client_connection_check_interval fires).
//
// It reads ahead from the connection: nothing else reads while a
// statement runs (COPY FROM, which does, is not watched). What it reads —
// messages the client pipelined — stays in the connection's buffer for
// the loop.
//
// A connection keeps one clientWatch and rearms its timer for every
// statement, so that a statement that ends within watchDelay — nearly
// all of them — costs a timer reset and stop, and no allocation.
type clientWatch struct {
	c     *conn
	timer *time.Timer
	// done receives one value each time the watching goroutine ends.
	// Every firing of timer runs one goroutine, and stop, finding the
	// timer fired, takes that one value, so the next statement starts
	// with done empty.
	done chan struct{}
}

// watchClient starts watching c for the running statement; call stop
// before reading from c again.
func (c *conn) watchClient() *clientWatch {
	w := c.watch
	if w == nil {
		w = &clientWatch{c: c, done: make(chan struct{}, 1)}
		w.timer = time.AfterFunc(watchDelay, w.run)
		c.watch = w
		return w
	}
	w.timer.Reset(watchDelay)
	return w
}

// run blocks in a read ahead until the client sends more, the socket
// fails, or stop expires the read deadline.
func (w *clientWatch) run() {
	defer func() { w.done <- struct{}{} }()
	for {
		_, err := w.c.rd.Peek(w.c.rd.Buffered() + 1)
		switch {
		case err == nil:
			continue // the client pipelined more: alive; keep watching
		case errors.Is(err, bufio.ErrBufferFull):
			return // a full buffer of pipelined messages: stop watching
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return // stop (or Shutdown, or terminate) expired the deadline
		}
		// EOF, a reset, a closed connection: nobody will read the result.
		w.c.log.Debug("wire: client gone during a statement; cancelling it", "err", err)
		w.c.cancelRunning(errConnectionLost)
		w.c.stop()
		w.c.nc().Close()
		return
	}
}

// stop ends the watch and waits for its goroutine, if it started, so
// that the caller owns the reader again.
func (w *clientWatch) stop() {
	if w.timer.Stop() {
		return // never started
	}
	nc := w.c.nc()
	nc.SetReadDeadline(time.Now())
	<-w.done
	if !w.c.terminating.Load() {
		nc.SetReadDeadline(time.Time{})
	}
}
