package session_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestListenNotify: a session listening on a channel receives, while it
// idles, what other sessions NOTIFY on it (and pg_notify): from an
// autocommit statement at once, from a transaction block at its commit,
// once for equal notifications, never from one rolled back. LISTEN in a
// block rolled back does not listen; UNLISTEN stops; DISCARD ALL
// unlistens. Bad channels and payloads are 22023.
func TestListenNotify(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	var bPID uint32
	if err := b.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&bPID); err != nil {
		t.Fatal(err)
	}
	next := func() *pgconn.Notification {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err := a.WaitForNotification(wctx)
		if err != nil {
			t.Fatalf("waiting for a notification: %v", err)
		}
		return n
	}
	want := func(channel, payload string) {
		t.Helper()
		n := next()
		if n.Channel != channel || n.Payload != payload || n.PID != bPID {
			t.Fatalf("got %q %q from %d, want %q %q from %d", n.Channel, n.Payload, n.PID, channel, payload, bPID)
		}
	}
	mustExec(t, a, "LISTEN jobs", "LISTEN marks")

	// a idles in WaitForNotification while b notifies.
	sent := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		_, err := b.Exec(ctx, "NOTIFY jobs, 'first'")
		sent <- err
	}()
	want("jobs", "first")
	if err := <-sent; err != nil {
		t.Fatal(err)
	}

	mustExec(t, b, "SELECT pg_notify('jobs', 'by function')")
	want("jobs", "by function")
	// An autocommit statement that fails sends nothing.
	if _, err := b.Exec(ctx, "SELECT pg_notify('jobs', 'failed'), 1/g FROM generate_series(0, 1) g"); err == nil {
		t.Fatal("1/g at g = 0 did not fail")
	}
	mustExec(t, b, "SELECT pg_notify('jobs', 'after failed')")
	want("jobs", "after failed")

	mustExec(t, b, "BEGIN", "NOTIFY jobs, 'dropped'", "ROLLBACK")
	mustExec(t, b, "BEGIN", "SAVEPOINT s", "NOTIFY jobs, 'undone'", "LISTEN undone", "ROLLBACK TO SAVEPOINT s", "NOTIFY jobs, 'kept'", "COMMIT")
	want("jobs", "kept")
	mustExec(t, b, "BEGIN", "NOTIFY jobs, 'twice'", "NOTIFY jobs, 'twice'", "SELECT pg_notify('jobs', 'other')", "COMMIT")
	want("jobs", "twice")
	want("jobs", "other")

	// LISTEN in a block that rolls back does not listen.
	mustExec(t, a, "BEGIN", "LISTEN never", "ROLLBACK")
	mustExec(t, b, "NOTIFY never, 'x'", "NOTIFY marks, 'after never'")
	want("marks", "after never")

	mustExec(t, a, "UNLISTEN jobs")
	mustExec(t, b, "NOTIFY jobs, 'unheard'", "NOTIFY marks, 'after unlisten'")
	want("marks", "after unlisten")

	mustExec(t, a, "DISCARD ALL", "LISTEN marks2")
	mustExec(t, b, "NOTIFY marks, 'unheard'", "NOTIFY marks2, 'after discard'")
	want("marks2", "after discard")

	for _, bad := range []string{"SELECT pg_notify('', 'x')", "SELECT pg_notify(NULL, 'x')", "NOTIFY jobs, '" + strings.Repeat("x", 8000) + "'"} {
		_, err := b.Exec(ctx, bad)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22023" {
			t.Errorf("%.40s: %v, want 22023", bad, err)
		}
	}
}

// TestInetServerAndClientAddr: inet_server_addr/port name the server's
// end of the connection and inet_client_addr/port the client's; in
// process they are NULL, as PostgreSQL's are over a Unix socket.
func TestInetServerAndClientAddr(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	var server, client string
	var sport, cport int
	if err := conn.QueryRow(ctx, "SELECT host(inet_server_addr()), inet_server_port(), host(inet_client_addr()), inet_client_port()").Scan(&server, &sport, &client, &cport); err != nil {
		t.Fatal(err)
	}
	local := conn.PgConn().Conn().LocalAddr().(*net.TCPAddr)
	if server != "127.0.0.1" || sport != ts.Addr.Port || client != local.IP.String() || cport != local.Port {
		t.Fatalf("server %s:%d client %s:%d, want 127.0.0.1:%d and %s", server, sport, client, cport, ts.Addr.Port, local)
	}
	db, err := session.Open(session.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Exec(ctx, "SELECT inet_server_addr() IS NULL AND inet_client_port() IS NULL")
	if err != nil || !res[0].Rows[0][0].Bool() {
		t.Fatalf("in process: %v %v, want NULLs", res, err)
	}
}

// TestListenerEndsOnTerminateAndShutdown: a connection that LISTENs and
// idles (its read is a peek that notifications interrupt) still ends at
// once with 57P01 when pg_terminate_backend or the server's shutdown
// wakes it.
func TestListenerEndsOnTerminateAndShutdown(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	ended := func(conn *pgx.Conn) <-chan error {
		done := make(chan error, 1)
		go func() {
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := conn.WaitForNotification(wctx)
			done <- err
		}()
		return done
	}
	want57P01 := func(what string, done <-chan error) {
		t.Helper()
		err := <-done
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P01" {
			t.Fatalf("%s: the listener got %v, want 57P01", what, err)
		}
	}
	a := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	other := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, a, "LISTEN jobs")
	var pid uint32
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := ended(a)
	time.Sleep(50 * time.Millisecond) // a is idle in its wait
	if _, err := other.Exec(ctx, "SELECT pg_terminate_backend($1)", int64(pid)); err != nil {
		t.Fatal(err)
	}
	want57P01("pg_terminate_backend", done)

	b := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, b, "LISTEN jobs")
	done = ended(b)
	time.Sleep(50 * time.Millisecond)
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	go func() { _ = ts.Srv.Shutdown(sctx) }()
	want57P01("Shutdown", done)
}
