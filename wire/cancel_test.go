package wire

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// timeoutSession is a backend.Session that only answers the statement
// timeout (conn.statementTimeout); nothing else of it is called here.
type timeoutSession struct {
	backend.Session
	d *time.Duration
}

func (s timeoutSession) StatementTimeout() time.Duration { return *s.d }

// stmtTestConn is a connection with no network behind it: enough for
// startStatement, done and cancelQuery.
func stmtTestConn(timeout *time.Duration) *conn {
	c := &conn{log: slog.New(slog.DiscardHandler), ctx: context.Background(), sess: timeoutSession{d: timeout}}
	c.mu.running = make(map[int]context.CancelCauseFunc)
	return c
}

// TestStatementContextReuse: a statement context that ended uncancelled
// is the next statement's, and nothing of the old statement (a cancel, a
// timer) reaches the next; a cancelled or timed-out one is never reused.
func TestStatementContextReuse(t *testing.T) {
	var timeout time.Duration
	c := stmtTestConn(&timeout)

	s1 := c.startStatement()
	s1.done()
	s2 := c.startStatement()
	if s2 != s1 {
		t.Fatal("an uncancelled statement context was not reused")
	}
	if len(c.mu.running) != 1 {
		t.Fatalf("%d statements registered, want 1", len(c.mu.running))
	}
	c.cancelQuery()
	if !pgerror.HasCode(context.Cause(s2), pgerror.QueryCanceled) {
		t.Fatalf("cancelled statement's cause: %v", context.Cause(s2))
	}
	s2.done()
	s3 := c.startStatement()
	if s3 == s2 || s3.Err() != nil {
		t.Fatalf("after a cancelled statement: reused %v, err %v", s3 == s2, s3.Err())
	}
	s3.done()
	c.cancelQuery() // between statements: cancels nothing registered
	s4 := c.startStatement()
	if s4 != s3 || s4.Err() != nil {
		t.Fatalf("a CancelRequest between statements reached the next: reused %v, err %v", s4 == s3, s4.Err())
	}
	s4.done()

	// A timeout that did not fire is stopped: the next statement, with
	// no timeout, outlives it.
	timeout = 20 * time.Millisecond
	s5 := c.startStatement()
	s5.done()
	timeout = 0
	s6 := c.startStatement()
	if s6 != s5 {
		t.Fatal("a context whose timer was stopped was not reused")
	}
	time.Sleep(40 * time.Millisecond)
	if err := s6.Err(); err != nil {
		t.Fatalf("the previous statement's timeout cancelled the next: %v", context.Cause(s6))
	}
	s6.done()

	// A timeout that fired: the statement fails with 57014, its context
	// is not reused.
	timeout = time.Millisecond
	s7 := c.startStatement()
	select {
	case <-s7.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the statement timeout did not fire")
	}
	if err := s7.explain(errors.New("stopped")); err != errStatementTimout {
		t.Fatalf("timed-out statement's error: %v", err)
	}
	s7.done()
	timeout = 0
	s8 := c.startStatement()
	if s8 == s7 || s8.Err() != nil {
		t.Fatalf("after a timeout: reused %v, err %v", s8 == s7, s8.Err())
	}
	s8.done()

	// Two statements at once (two portals) have two contexts.
	a := c.startStatement()
	b := c.startStatement()
	if a == b {
		t.Fatal("two running statements share a context")
	}
	a.done()
	b.done()
	if len(c.mu.running) != 0 {
		t.Fatalf("%d statements still registered", len(c.mu.running))
	}

	// The connection ended: a new statement starts cancelled.
	ctx, stop := context.WithCancel(context.Background())
	c.ctx = ctx
	stop()
	s9 := c.startStatement()
	if s9.Err() == nil {
		t.Fatal("a statement of an ended connection is not cancelled")
	}
	s9.done()
}

// BenchmarkStatementContext is the wire's per-statement context: made,
// registered for CancelRequest, released; with no statement timeout and
// with one.
func BenchmarkStatementContext(b *testing.B) {
	for _, d := range []time.Duration{0, time.Minute} {
		b.Run("timeout="+d.String(), func(b *testing.B) {
			timeout := d
			c := stmtTestConn(&timeout)
			b.ReportAllocs()
			for range b.N {
				s := c.startStatement()
				if s.Err() != nil {
					b.Fatal("cancelled")
				}
				s.done()
			}
		})
	}
}
