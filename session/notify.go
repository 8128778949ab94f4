package session

import (
	"slices"
	"sync"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
)

// LISTEN, UNLISTEN and NOTIFY (and pg_notify), as PostgreSQL has them:
// a notification goes to every session of the database listening on its
// channel, the sender's included, when the sender's transaction commits
// (at once in autocommit); one rolled back sends nothing. Within one
// transaction a notification equal to an earlier one (channel and
// payload) is sent once. LISTEN and UNLISTEN in a transaction block take
// effect when it commits. The wire layer hands a session's notifications
// to its client before ReadyForQuery and while the connection idles
// outside a transaction block (backend.Listener).

// maxPayload is PostgreSQL's limit on a payload (NOTIFY_PAYLOAD_MAX_LENGTH
// less its terminator): 22023 beyond it.
const maxPayload = 7999

// maxChannel is the longest channel name: an identifier's limit
// (NAMEDATALEN less its terminator).
const maxChannel = 63

// notifyHub is the database server's registry of listening sessions.
type notifyHub struct {
	mu        sync.Mutex
	listeners map[*listener]struct{}
}

// listener is one session's side of LISTEN: its channels and the
// notifications delivered to it that its client has not been sent.
type listener struct {
	database string
	mu       sync.Mutex
	channels map[string]bool
	queue    []backend.Notification
	wake     func()
}

// txnNotify is what a transaction block's LISTEN, UNLISTEN and NOTIFY
// leave for its commit: l is its session's listener, database its
// session's database.
type txnNotify struct {
	l        *listener
	database string
	ops      []listenOp
	notes    []backend.Notification
}

// listenOp is one LISTEN (add) or UNLISTEN (channel "" for all).
type listenOp struct {
	add     bool
	channel string
}

// listen applies one LISTEN or UNLISTEN to l.
func (h *notifyHub) listen(l *listener, op listenOp) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l.mu.Lock()
	switch {
	case op.add:
		l.channels[op.channel] = true
	case op.channel == "":
		clear(l.channels)
	default:
		delete(l.channels, op.channel)
	}
	n := len(l.channels)
	l.mu.Unlock()
	if h.listeners == nil {
		h.listeners = map[*listener]struct{}{}
	}
	if n > 0 {
		h.listeners[l] = struct{}{}
	} else {
		delete(h.listeners, l)
	}
}

// remove forgets l (its session ended).
func (h *notifyHub) remove(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.mu.Unlock()
}

// deliver queues notes for every listener of database on their
// channels and wakes those it gave any.
func (h *notifyHub) deliver(database string, notes []backend.Notification) {
	var wake []func()
	h.mu.Lock()
	for l := range h.listeners {
		if l.database != database {
			continue
		}
		l.mu.Lock()
		n := len(l.queue)
		for _, note := range notes {
			if l.channels[note.Channel] {
				l.queue = append(l.queue, note)
			}
		}
		if len(l.queue) > n && l.wake != nil {
			wake = append(wake, l.wake)
		}
		l.mu.Unlock()
	}
	h.mu.Unlock()
	for _, w := range wake {
		w()
	}
}

// Notifications implements backend.Listener.
func (s *Session) Notifications() []backend.Notification {
	l := s.listener
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.queue
	l.queue = nil
	return out
}

// Listening implements backend.Listener.
func (s *Session) Listening() bool {
	l := s.listener
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.channels) > 0
}

// SetWaker implements backend.Listener.
func (s *Session) SetWaker(wake func()) {
	l := s.ensureListener()
	l.mu.Lock()
	l.wake = wake
	l.mu.Unlock()
}

func (s *Session) ensureListener() *listener {
	if s.listener == nil {
		s.listener = &listener{database: s.database, channels: map[string]bool{}}
	}
	return s.listener
}

// notifyStmt runs LISTEN, UNLISTEN or NOTIFY, and CHECKPOINT.
func (s *Session) notifyStmt(n *parse.NotifyStmt) (backend.Result, error) {
	switch n.Op {
	case "checkpoint":
		// What PostgreSQL's checkpoint makes sure of: everything
		// committed is on stable storage (the engine's log synced).
		if !s.isSuperuser(s.db.Catalog(), s.user) {
			return nil, pgerror.New(pgerror.InsufficientPrivilege, "must be superuser or have privileges of pg_checkpoint to do CHECKPOINT")
		}
		if err := s.db.eng.Flush(); err != nil {
			return nil, err
		}
		return &staticResult{tag: "CHECKPOINT"}, nil
	case "listen", "unlisten":
		op := listenOp{add: n.Op == "listen", channel: n.Channel}
		if t := s.cur; t != nil {
			tn := s.txnNotify(t)
			tn.ops = append(tn.ops, op)
		} else {
			s.db.notify.listen(s.ensureListener(), op)
		}
		tag := "LISTEN"
		if !op.add {
			tag = "UNLISTEN"
		}
		return &staticResult{tag: tag}, nil
	}
	if err := s.notify(s.cur, n.Channel, n.Payload); err != nil {
		return nil, err
	}
	return &staticResult{tag: "NOTIFY"}, nil
}

// notify sends a notification from t, at its commit; with no t (an
// autocommit NOTIFY) at once.
func (s *Session) notify(t *txn, channel, payload string) error {
	if channel == "" {
		return pgerror.New(pgerror.InvalidParameterValue, "channel name cannot be empty")
	}
	if len(channel) > maxChannel {
		return pgerror.New(pgerror.InvalidParameterValue, "channel name too long")
	}
	if len(payload) > maxPayload {
		return pgerror.New(pgerror.InvalidParameterValue, "payload string too long")
	}
	note := backend.Notification{PID: s.pid, Channel: channel, Payload: payload}
	if t == nil {
		s.db.notify.deliver(s.database, []backend.Notification{note})
		return nil
	}
	tn := s.txnNotify(t)
	if !slices.Contains(tn.notes, note) {
		tn.notes = append(tn.notes, note)
	}
	return nil
}

// txnNotify is t's pending LISTEN work, made on first use.
func (s *Session) txnNotify(t *txn) *txnNotify {
	if t.notifyWork == nil {
		t.notifyWork = &txnNotify{l: s.ensureListener(), database: s.database}
	}
	return t.notifyWork
}

// notifyCommitted applies what a committed transaction left: its
// LISTENs and UNLISTENs, then its notifications.
func (db *DB) notifyCommitted(tn *txnNotify) {
	for _, op := range tn.ops {
		db.notify.listen(tn.l, op)
	}
	if len(tn.notes) > 0 {
		db.notify.deliver(tn.database, tn.notes)
	}
}

// Notify implements eval.Server: pg_notify(channel, payload), sent when
// the statement's transaction commits: a transaction block's at COMMIT,
// an autocommit statement's when the statement succeeds (one that fails
// sends nothing, as on PostgreSQL).
func (h *stmtHooks) Notify(channel, payload string) error {
	return h.s.notify(h.t, channel, payload)
}

// unlistenAll is UNLISTEN * for a session that ends.
func (s *Session) unlistenAll() {
	if s.listener != nil {
		s.db.notify.remove(s.listener)
	}
}
