package backend

import (
	"context"
	"net"
	"time"
)

// ConnInfo describes the client connection a Session serves. The server
// puts it in the context it passes to NewSession (WithConnInfo); an engine
// shows it in pg_stat_activity and calls its functions for
// pg_cancel_backend and pg_terminate_backend. A Session opened without it
// (in process) has no connection to stop.
type ConnInfo struct {
	// PID is the process ID sent to the client in BackendKeyData: what a
	// CancelRequest names, pg_backend_pid() returns and pg_stat_activity
	// lists.
	PID uint32
	// RemoteAddr is the client's address (client_addr, client_port);
	// LocalAddr the server's end (inet_server_addr).
	RemoteAddr, LocalAddr net.Addr
	// Start is when the connection was accepted (backend_start).
	Start time.Time
	// Cancel cancels the statement the connection is running, if any, as
	// a CancelRequest does: it fails with 57014 "canceling statement due
	// to user request". Safe from any goroutine; it does not wait.
	Cancel func()
	// Terminate ends the connection: a running statement is cancelled,
	// the client gets FATAL 57P01 "terminating connection due to
	// administrator command", and the Session is closed (its transaction
	// rolled back). Safe from any goroutine, including the connection's
	// own; it does not wait.
	Terminate func()
}

type connInfoKey struct{}

// WithConnInfo returns ctx carrying ci.
func WithConnInfo(ctx context.Context, ci *ConnInfo) context.Context {
	return context.WithValue(ctx, connInfoKey{}, ci)
}

// ConnInfoFrom returns the ConnInfo in ctx, or nil.
func ConnInfoFrom(ctx context.Context) *ConnInfo {
	ci, _ := ctx.Value(connInfoKey{}).(*ConnInfo)
	return ci
}
