package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// Config configures a Server. The zero value of every field but Addr has a
// usable default (see the field comments).
type Config struct {
	// Addr is the TCP address ListenAndServe listens on; default
	// DefaultAddr.
	Addr string
	// TLSConfig enables TLS: an SSLRequest is answered 'S' and the
	// connection is upgraded. nil answers 'N' (plaintext only).
	TLSConfig *tls.Config
	// Users maps user names to passwords. Empty means every user is
	// accepted without a password (trust). An empty password is refused
	// by NewServer: it would let anyone in who knows the user name.
	Users map[string]string
	// AuthMethod is "trust", "password" (cleartext), "md5" or
	// "scram-sha-256". Default: "trust" when Users is empty, else
	// "scram-sha-256".
	AuthMethod string
	// RequireTLS rejects plaintext startups (28000) when TLSConfig is set.
	RequireTLS bool
	// MaxMessageSize caps the length of one client message; a longer
	// declared length is rejected (54000) before anything is allocated and
	// the connection is closed. Default DefaultMaxMessageSize.
	MaxMessageSize int
	// StartupTimeout bounds the time from accept to the end of
	// authentication (PostgreSQL's authentication_timeout). Default 10s.
	StartupTimeout time.Duration
	// WriteTimeout bounds one write to a client; a client that does not
	// read for that long is disconnected. Default 60s.
	WriteTimeout time.Duration
	// CopyInline runs COPY FROM's CopySpec.Insert calls on the
	// connection's goroutine, between decoding batches, instead of beside
	// the decoding of the next batch (copyWriter). Tests compare the two.
	CopyInline bool
	// MaxConnections caps concurrent authenticated sessions; more get
	// 53300. Default 100.
	MaxConnections int
	// MaxStartupConnections caps connections that have not finished
	// authentication, counted apart from MaxConnections so that clients
	// that never answer the password challenge cannot lock real users
	// out; more get 53300 at once. Each is closed after StartupTimeout.
	// Default 2*MaxConnections+64.
	MaxStartupConnections int
	// Logger receives connection errors and recovered panics. Default
	// slog.Default().
	Logger *slog.Logger
	// ServerVersion is reported as server_version. Default
	// DefaultServerVersion.
	ServerVersion string
}

// Defaults for Config fields.
const (
	DefaultAddr           = "127.0.0.1:5433"
	DefaultMaxMessageSize = 64 << 20
	DefaultServerVersion  = "15.0 (kvsql)"
)

// ErrServerClosed is returned by Serve and ListenAndServe after Shutdown.
var ErrServerClosed = errors.New("wire: server closed")

// Server accepts PostgreSQL connections and runs one goroutine per
// connection against a Backend.
type Server struct {
	cfg     Config
	backend backend.Backend
	log     *slog.Logger
	auth    authenticator

	shutting atomic.Bool
	wg       sync.WaitGroup // one per live connection goroutine

	mu struct {
		sync.Mutex
		listeners map[net.Listener]struct{}
		conns     map[*conn]struct{}
		byPID     map[uint32]*conn // for CancelRequest
		sessions  int              // authenticated conns (counted)
		starting  int              // conns not yet authenticated (starting)
		addr      net.Addr
	}
}

// NewServer validates cfg, fills in defaults and returns a Server that
// serves b. It refuses trust authentication on an Addr that is not a
// loopback address, since that would let anyone on the network in.
func NewServer(cfg Config, b backend.Backend) (*Server, error) {
	if b == nil {
		return nil, errors.New("wire: nil Backend")
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = DefaultMaxMessageSize
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 100
	}
	if cfg.MaxStartupConnections <= 0 {
		cfg.MaxStartupConnections = 2*cfg.MaxConnections + 64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = DefaultServerVersion
	}
	if cfg.AuthMethod == "" {
		cfg.AuthMethod = "trust"
		if len(cfg.Users) > 0 {
			cfg.AuthMethod = "scram-sha-256"
		}
	}
	if cfg.RequireTLS && cfg.TLSConfig == nil {
		return nil, errors.New("wire: RequireTLS needs a TLSConfig")
	}
	auth, err := newAuthenticator(cfg.AuthMethod, cfg.Users)
	if err != nil {
		return nil, err
	}
	if cfg.AuthMethod == "trust" && !isLoopback(cfg.Addr) {
		return nil, fmt.Errorf("wire: refusing trust authentication on non-loopback address %q: anyone who can reach it could log in as any user; set Users and an AuthMethod, or listen on 127.0.0.1", cfg.Addr)
	}
	s := &Server{cfg: cfg, backend: b, log: cfg.Logger, auth: auth}
	s.mu.listeners = make(map[net.Listener]struct{})
	s.mu.conns = make(map[*conn]struct{})
	s.mu.byPID = make(map[uint32]*conn)
	return s, nil
}

// isLoopback reports whether addr's host is a loopback name or address.
// An empty host (all interfaces) is not loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListenAndServe listens on Config.Addr and serves until Shutdown.
func (s *Server) ListenAndServe() error {
	l, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Addr is the address of the most recent listener passed to Serve, or nil.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.addr
}

// Serve accepts connections on l until Shutdown or a permanent accept
// error; it closes l before returning. It returns ErrServerClosed after
// Shutdown.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.shutting.Load() {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.mu.listeners[l] = struct{}{}
	s.mu.addr = l.Addr()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.mu.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()

	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.shutting.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("wire: accept error; retrying", "err", err, "delay", backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		c := newConn(s, nc)
		switch s.track(c) {
		case trackShutdown:
			nc.Close()
		case trackFull:
			go s.refuseBusy(nc)
		default:
			go c.serve()
		}
	}
}

// trackResult is what track decided about a new connection.
type trackResult int

const (
	trackOK trackResult = iota
	trackShutdown
	trackFull // MaxStartupConnections reached
)

// track registers c as a starting (unauthenticated) connection. The cap
// on starting connections bounds the goroutines that clients who never
// authenticate can hold, without touching MaxConnections.
func (s *Server) track(c *conn) trackResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutting.Load() {
		return trackShutdown
	}
	if s.mu.starting >= s.cfg.MaxStartupConnections {
		return trackFull
	}
	s.mu.starting++
	c.starting = true
	s.mu.conns[c] = struct{}{}
	s.mu.byPID[c.pid] = c
	s.wg.Add(1)
	return trackOK
}

// refuseBusy answers a connection over MaxStartupConnections with 53300
// and closes it, as PostgreSQL answers one over max_connections.
func (s *Server) refuseBusy(nc net.Conn) {
	defer nc.Close()
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	buf, err := errorResponse(pgerror.New(pgerror.TooManyConnections, "sorry, too many clients already"), "FATAL").Encode(nil)
	if err == nil {
		nc.Write(buf)
	}
}

// untrack removes c; it is the last thing a connection goroutine does.
func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.mu.conns, c)
	delete(s.mu.byPID, c.pid)
	if c.counted {
		s.mu.sessions--
	}
	if c.starting {
		s.mu.starting--
	}
	s.mu.Unlock()
	s.wg.Done()
}

// admit moves an authenticated c from the starting connections to the
// sessions counted against MaxConnections; false means 53300.
func (s *Server) admit(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.starting {
		s.mu.starting--
		c.starting = false
	}
	if s.mu.sessions >= s.cfg.MaxConnections {
		return false
	}
	s.mu.sessions++
	c.counted = true
	return true
}

// Shutdown stops accepting connections, ends idle ones (with a 57P01
// FATAL error), lets running statements finish and waits for every
// connection to end. When ctx is done first, the remaining connections are
// closed forcibly (their running statements are cancelled) and ctx's error
// is returned once they have ended.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutting.Store(true)
	for l := range s.mu.listeners {
		l.Close()
	}
	// A connection blocked reading its next message wakes up, sees
	// s.shutting and says goodbye; one running a statement sees it when it
	// next reads.
	for c := range s.mu.conns {
		c.nc().SetReadDeadline(time.Now())
	}
	s.mu.Unlock()

	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	for c := range s.mu.conns {
		c.kill()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

// cancel handles a CancelRequest: it cancels the running statement of the
// connection with the given key. A wrong key does nothing (and, as in
// PostgreSQL, nothing is reported to the requester).
func (s *Server) cancel(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.mu.byPID[pid]
	s.mu.Unlock()
	if c == nil || !c.keyMatches(secret) {
		return
	}
	c.cancelQuery()
}
