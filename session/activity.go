package session

import (
	"context"
	"errors"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/wire/backend"
)

// Sessions and what they are doing: the registry behind pg_stat_activity,
// pg_cancel_backend and pg_terminate_backend.
//
// Every open Session is registered with its DB under its process ID: the
// one the wire server sent the client in BackendKeyData
// (backend.ConnInfo.PID), or a counter's for a session opened in process.
// A session's activity (state, query, times) is updated by its own
// goroutine around each statement and read by any session that lists
// pg_stat_activity, so it has its own lock.
//
// Cancelling goes through the connection when there is one
// (ConnInfo.Cancel, the path a CancelRequest takes too), else through the
// context of the statement the session runs. Terminating a connection is
// the wire server's job (ConnInfo.Terminate); an in-process session is
// cancelled and refuses its later statements with 57P01.

// errCanceled and errTerminated are the causes statements are cancelled
// with, as PostgreSQL words them.
var (
	errCanceled   = pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
	errTerminated = pgerror.New(pgerror.AdminShutdown, "terminating connection due to administrator command")
)

// activity is what pg_stat_activity shows of one session, with the means
// to cancel its statement.
type activity struct {
	mu          sync.Mutex
	state       string // "" until the first statement: "idle"
	query       string
	queryStart  time.Time
	stateChange time.Time
	xactStart   time.Time
	// running holds the cancel functions of the statements whose results
	// are open, by beginStatement's id: usually one, more when the client
	// interleaves portals (a suspended one stays open).
	running map[uint64]context.CancelCauseFunc // nil values: the connection cancels (connCancels)
	nextID  uint64
	// copy and createIndex are the progress of a running COPY or index
	// build (progress.go), nil when none runs.
	copy        *planner.CopyProgress
	createIndex *planner.IndexProgress
	vacuum      *planner.VacuumProgress
	cluster     *planner.ClusterProgress
	analyze     *planner.AnalyzeProgress
}

// registry is a DB's sessions by process ID.
type registry struct {
	mu    sync.Mutex
	byPID map[uint32]*Session
}

// register gives s its process ID and lists it.
func (db *DB) register(s *Session) {
	r := &db.sessions
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byPID == nil {
		r.byPID = map[uint32]*Session{}
	}
	if s.conn != nil {
		s.pid = s.conn.PID
	} else {
		// In-process sessions count up from 1; the wire's process IDs
		// are random, so skip one that is taken.
		for s.pid = db.nextPID.Add(1); r.byPID[s.pid] != nil || s.pid == 0; s.pid = db.nextPID.Add(1) {
		}
	}
	r.byPID[s.pid] = s
}

// unregister removes s (Close) and tells pg_terminate_backend's waiters.
func (db *DB) unregister(s *Session) {
	r := &db.sessions
	r.mu.Lock()
	if r.byPID[s.pid] == s {
		delete(r.byPID, s.pid)
	}
	r.mu.Unlock()
	s.goneOnce.Do(func() { close(s.gone) })
}

// session returns the session with process ID pid, or nil.
func (db *DB) session(pid int32) *Session {
	r := &db.sessions
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byPID[uint32(pid)]
}

// Activity lists every open session as pg_stat_activity shows it, in
// the order they started.
func (db *DB) Activity() []planner.BackendActivity {
	r := &db.sessions
	r.mu.Lock()
	all := make([]*Session, 0, len(r.byPID))
	for _, s := range r.byPID {
		all = append(all, s)
	}
	r.mu.Unlock()
	out := make([]planner.BackendActivity, 0, len(all))
	for _, s := range all {
		out = append(out, s.activityRow())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].BackendStart.Equal(out[j].BackendStart) {
			return out[i].BackendStart.Before(out[j].BackendStart)
		}
		return out[i].PID < out[j].PID
	})
	return out
}

// activityRow is s's pg_stat_activity row; safe from any goroutine.
func (s *Session) activityRow() planner.BackendActivity {
	a := planner.BackendActivity{PID: int32(s.pid), Database: s.database, User: s.user,
		ClientPort: -1, BackendStart: s.start}
	if s.conn != nil {
		if host, port, err := net.SplitHostPort(s.conn.RemoteAddr.String()); err == nil {
			a.ClientAddr = host
			a.ClientPort, _ = strconv.Atoi(port)
		}
	}
	s.mu.Lock()
	a.ApplicationName = s.settings["application_name"]
	s.mu.Unlock()
	s.act.mu.Lock()
	a.State, a.Query = s.act.state, s.act.query
	a.QueryStart, a.StateChange, a.XactStart = s.act.queryStart, s.act.stateChange, s.act.xactStart
	a.Copy = copyOf(s.act.copy)
	a.CreateIndex = copyOf(s.act.createIndex)
	a.Vacuum = copyOf(s.act.vacuum)
	a.Cluster = copyOf(s.act.cluster)
	a.Analyze = copyOf(s.act.analyze)
	s.act.mu.Unlock()
	if a.State == "" {
		a.State, a.StateChange = "idle", s.start
	}
	return a
}

// beginStatement marks s active running sql and returns the context the
// statement runs under — cancelled by pg_cancel_backend and
// pg_terminate_backend for a session without a connection — and an id
// for endStatement, to be called when the statement's result is closed.
func (s *Session) beginStatement(ctx context.Context, sql string) (context.Context, uint64) {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	s.mu.Lock()
	s.notices = nil // the wire server took them; in process nobody reads them
	s.mu.Unlock()
	now := time.Now()
	if s.cur == nil {
		s.act.xactStart = now // the statement's own, or BEGIN's
	}
	s.act.state, s.act.query, s.act.queryStart, s.act.stateChange = "active", sql, now, now
	// A session whose connection cancels and terminates for it
	// (ConnInfo.Cancel and Terminate: the wire server's statement
	// context, which its statement timeout and a lost client cancel too)
	// runs the statement under that context: a second cancellable
	// context would cost an allocation and a goroutine-safe registration
	// per statement and nobody would cancel it. Its entry in running is
	// nil then.
	var cancel context.CancelCauseFunc
	if !s.connCancels() {
		ctx, cancel = context.WithCancelCause(ctx)
		if s.terminated.Load() {
			cancel(errTerminated)
		}
	}
	if s.act.running == nil {
		s.act.running = map[uint64]context.CancelCauseFunc{}
	}
	s.act.nextID++
	s.act.running[s.act.nextID] = cancel
	return ctx, s.act.nextID
}

// endStatement releases statement id; when none is left running, s is
// idle (in its transaction, if one is open).
func (s *Session) endStatement(id uint64) {
	status := s.TxnStatus()
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	if cancel, ok := s.act.running[id]; ok {
		if cancel != nil {
			cancel(nil)
		}
		delete(s.act.running, id)
	}
	if len(s.act.running) > 0 {
		return
	}
	s.act.stateChange = time.Now()
	switch status {
	case 'T':
		s.act.state = "idle in transaction"
	case 'E':
		s.act.state = "idle in transaction (aborted)"
	default:
		s.act.state = "idle"
		s.act.xactStart = time.Time{}
	}
}

// cancelCause is the error a cancelled statement context stands for: its
// cause when that is a PostgreSQL error (57014 from pg_cancel_backend or
// a CancelRequest, 57P01, a statement timeout), else 57014.
func cancelCause(ctx context.Context) error {
	var pe *pgerror.Error
	if cause := context.Cause(ctx); errors.As(cause, &pe) {
		return cause
	}
	return errCanceled
}

// failedIdle shows an idle session whose transaction block just failed
// as such: the wire server reports a statement's error (Fail) after its
// Result is closed.
func (s *Session) failedIdle() {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	if len(s.act.running) == 0 && s.act.state == "idle in transaction" {
		s.act.state = "idle in transaction (aborted)"
	}
}

// cancelStatement cancels s's running statements with cause, as a
// CancelRequest cancels every statement context of a connection.
func (s *Session) cancelStatement(cause error) {
	s.act.mu.Lock()
	defer s.act.mu.Unlock()
	for _, cancel := range s.act.running {
		if cancel != nil {
			cancel(cause)
		}
	}
}

// connCancels reports whether s's connection cancels and terminates its
// statements (pg_cancel_backend and pg_terminate_backend go there).
func (s *Session) connCancels() bool {
	return s.conn != nil && s.conn.Cancel != nil && s.conn.Terminate != nil
}

// Notices implements backend.Noticer.
func (s *Session) Notices() []backend.Notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.notices
	s.notices = nil
	return out
}

// warn raises a WARNING (01000) for the client.
func (s *Session) warn(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notices = append(s.notices, backend.Notice{Severity: "WARNING", Err: pgerror.Newf(pgerror.Warning, format, args...)})
}

// backends implements eval.Backends over the DB's registry for the
// statements of session s (which gets the warnings).
type backends struct {
	db *DB
	s  *Session
}

// notFound answers a pid that is no session, with PostgreSQL's warning.
func (b backends) notFound(pid int32) bool {
	b.s.warn("PID %d is not a PostgreSQL backend process", pid)
	return false
}

// Cancel is pg_cancel_backend.
func (b backends) Cancel(pid int32) bool {
	s := b.db.session(pid)
	if s == nil {
		return b.notFound(pid)
	}
	if s.conn != nil && s.conn.Cancel != nil {
		s.conn.Cancel()
	} else {
		s.cancelStatement(errCanceled)
	}
	return true
}

// Terminate is pg_terminate_backend: it signals the session and, with a
// timeout, waits that long for it to be gone.
func (b backends) Terminate(pid int32, timeout time.Duration) bool {
	s := b.db.session(pid)
	if s == nil {
		return b.notFound(pid)
	}
	if s.conn != nil && s.conn.Terminate != nil {
		s.conn.Terminate()
	} else {
		s.terminated.Store(true)
		s.cancelStatement(errTerminated)
	}
	if timeout <= 0 {
		return true
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.gone:
		return true
	case <-t.C:
		b.s.warn("backend with PID %d did not terminate within %d milliseconds", pid, timeout.Milliseconds())
		return false
	}
}

// connInfo returns the connection NewSession's ctx describes, or nil.
func connInfo(ctx context.Context) *backend.ConnInfo { return backend.ConnInfoFrom(ctx) }

// notice raises a NOTICE for the client; err carries its SQLSTATE and
// message (the parser's 42622 for a truncated identifier).
func (s *Session) notice(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notices = append(s.notices, backend.Notice{Severity: "NOTICE", Err: err})
}

// copyOf is a copy of *p, or nil.
func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
