package testkit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/wire"
)

// Server is a wire server over a session.DB on a loopback port, shut down
// (and its DB closed) when the test ends.
type Server struct {
	DB   *session.DB
	Srv  *wire.Server
	Addr *net.TCPAddr
}

// StartServer serves db (a fresh in-memory store when nil) on a random
// loopback port; mod, if not nil, adjusts the server's Config. The
// server's log is discarded unless mod sets a Logger.
func StartServer(t testing.TB, db *session.DB, mod func(*wire.Config)) *Server {
	t.Helper()
	if db == nil {
		var err error
		if db, err = session.Open(session.Options{Memory: true}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := wire.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := wire.NewServer(cfg, db)
	if err != nil {
		_ = db.Close()
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = db.Close()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = l.Close()
		<-done
		_ = db.Close()
	})
	return &Server{DB: db, Srv: srv, Addr: l.Addr().(*net.TCPAddr)}
}

// URL is a connection URL for user tester on the default database.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://tester@127.0.0.1:%d/kvsql?sslmode=disable", s.Addr.Port)
}

// Connect opens a pgx connection in the given query execution mode whose
// context cancellation sends a CancelRequest (not pgx's default of closing
// the socket), so a cancelled statement leaves the connection usable. It
// is closed at the end of the test.
func (s *Server) Connect(t testing.TB, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// FreeAddr returns a loopback address whose port is free right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
