package session

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
)

// Row locks: contended writers wait instead of failing.
//
// Before an UPDATE or DELETE writes a row it takes the row's lock (the
// master key's) in the store's lockTable; a transaction holds its locks
// until it commits or rolls back. A writer that finds a row locked by
// another transaction waits for that transaction to end, then restarts
// its statement: the statement's writes and reads are undone, the
// transaction's snapshot moves forward (txn.restart) and the statement
// runs again, now reading what the other transaction committed. A lock
// taken without waiting is still checked against the commits after the
// snapshot (DB.writtenSinceLocked): if one of them wrote the row, the
// statement restarts the same way. So two transactions incrementing one
// counter both commit, one after the other, where plain optimistic
// validation would have refused the second with 40001.
//
// Validation at commit (DB.commit) is unchanged and still guarantees
// serializability; the locks only turn the conflicts they can see into
// waits. The restart moves the snapshot only if everything the
// transaction read before the statement is unchanged at the new snapshot;
// otherwise the transaction is doomed and gets 40001 at once.
//
// Waiters queue per row in arrival order; a released lock is handed to
// the head of the queue, so a waiter is never overtaken and its restart
// runs holding the lock. A waiter holds no CPU: it blocks on its grant,
// its statement context (cancel, statement_timeout: 57014) and
// lock_timeout (55P03). A wait that would close a cycle of waiting transactions fails
// at once with 40P01 (deadlock detected): the transaction that would
// close the cycle is the one victim.

// errRestart ends a statement that must run again at a newer snapshot
// because a row it was about to write changed (or was locked) after the
// snapshot was taken. The session catches it; it reaches a client only
// from a path that cannot restart, as the 40001 it is.
var errRestart = pgerror.New(pgerror.SerializationFailure, "could not serialize access due to concurrent update")

// maxStatementRestarts bounds the restarts of one statement; past it the
// statement fails with 40001 (each restart follows another transaction's
// commit, so the bound is only reached under extreme contention).
const maxStatementRestarts = 1000

// lockTable maps each locked key to the transactions holding it and the
// queue of those waiting for it.
type lockTable struct {
	// waiters counts the statements waiting for a lock that have not
	// been granted it (DB.lockWaiters): a grant stops the count at once,
	// so a group-commit leader gathering (groupSync.gather) counts the
	// waiter as running from the moment it may run again.
	waiters *atomic.Int64
	mu      struct {
		sync.Mutex
		held map[string]*lockEntry
		// waiting counts the statements waiting for a lock.
		waiting int
	}
}

// lockEntry is one locked row: one exclusive holder or shared holders,
// and the waiters in arrival order. A released lock is handed to the
// waiters at the head of the queue (the first, or every shared one up to
// the first exclusive), so a waiter is never overtaken and each wait ends
// holding the lock.
type lockEntry struct {
	exclusive *txn
	shared    []*txn
	queue     []*lockWaiter
}

// lockWaiter is a statement waiting for a lockEntry.
type lockWaiter struct {
	t       *txn
	shared  bool
	granted chan struct{} // closed once the lock is t's
	// counted: w is still counted in lockTable.waiters. REQUIRES:
	// lockTable.mu.
	counted bool
}

// holds reports whether t holds e in a mode at least as strong as asked.
func (e *lockEntry) holds(t *txn, shared bool) bool {
	if e.exclusive == t {
		return true
	}
	return shared && slices.Contains(e.shared, t)
}

// compatible reports whether t may take e in the given mode now, given
// its holders (t's own shared hold does not block t's upgrade).
func (e *lockEntry) compatible(t *txn, shared bool) bool {
	if e.exclusive != nil {
		return e.exclusive == t
	}
	if shared {
		return true
	}
	return len(e.shared) == 0 || (len(e.shared) == 1 && e.shared[0] == t)
}

// take records t as a holder of e (key k) in the given mode.
// REQUIRES: lockTable.mu held, e.compatible(t, shared).
func (e *lockEntry) take(t *txn, k string, shared bool) {
	if !slices.Contains(e.shared, t) && e.exclusive != t {
		t.locks.keys = append(t.locks.keys, k)
	}
	if shared {
		e.shared = append(e.shared, t)
	} else {
		e.exclusive, e.shared = t, nil // taken, or upgraded from t's own share
	}
}

// waitsFor are the transactions a waiter at queue position pos waits for:
// the holders and the waiters ahead of it.
func (e *lockEntry) waitsFor(t *txn, pos int) []*txn {
	var out []*txn
	if e.exclusive != nil && e.exclusive != t {
		out = append(out, e.exclusive)
	}
	for _, x := range e.shared {
		if x != t {
			out = append(out, x)
		}
	}
	for _, w := range e.queue[:pos] {
		if w.t != t {
			out = append(out, w.t)
		}
	}
	return out
}

// grantLocked hands e to the waiters at the head of its queue that can
// take it now, and refreshes what the rest wait for.
// REQUIRES: lockTable.mu held.
func (lt *lockTable) grantLocked(k string, e *lockEntry) {
	for len(e.queue) > 0 {
		w := e.queue[0]
		if !e.compatible(w.t, w.shared) {
			break
		}
		e.take(w.t, k, w.shared)
		w.t.locks.waitingFor = nil
		if w.counted {
			w.counted = false
			lt.waiters.Add(-1)
		}
		close(w.granted)
		e.queue = e.queue[1:]
	}
	for i, w := range e.queue {
		w.t.locks.waitingFor = e.waitsFor(w.t, i)
	}
	if e.exclusive == nil && len(e.shared) == 0 && len(e.queue) == 0 {
		delete(lt.mu.held, k)
	}
}

// txnLocks is a transaction's part of the lock table, written under
// lockTable.mu.
type txnLocks struct {
	keys []string // the keys t holds
	// waitingFor are the transactions t waits for (deadlock detection).
	waitingFor []*txn
}

func (lt *lockTable) init(waiters *atomic.Int64) {
	lt.waiters = waiters
	lt.mu.held = map[string]*lockEntry{}
}

// lockOptions are a session's lock settings.
type lockOptions struct {
	timeout time.Duration // lock_timeout; 0: wait forever
}

// acquireLock takes key's lock for t in mode, queueing behind others
// while they hold or wait for it. It returns true when t holds the lock
// and no commit after t's snapshot wrote key; false when SKIP LOCKED
// leaves the row out; errRestart when the statement must run again at a
// newer snapshot (after a wait, which ends with t holding the lock, or
// because key changed since the snapshot); 55P03, 40P01 or 57014 when the
// wait fails.
func (db *DB) acquireLock(ctx context.Context, t *txn, tbl *catalog.Table, key []byte, mode planner.RowLock, opt lockOptions) (bool, error) {
	lt := &db.locks
	k := string(key)
	lt.mu.Lock()
	e := lt.mu.held[k]
	if e != nil && e.holds(t, mode.Shared) {
		lt.mu.Unlock()
		return true, nil // held since an earlier statement: nobody wrote it since
	}
	if e == nil {
		e = &lockEntry{}
		lt.mu.held[k] = e
	}
	if len(e.queue) == 0 && e.compatible(t, mode.Shared) {
		e.take(t, k, mode.Shared)
		lt.mu.Unlock()
		if db.writtenSince(key, t.snapSeq) {
			return false, errRestart
		}
		return true, nil
	}
	switch mode.Wait {
	case planner.LockSkip, planner.LockNoWait:
		if e.exclusive == nil && len(e.shared) == 0 && len(e.queue) == 0 {
			delete(lt.mu.held, k)
		}
		lt.mu.Unlock()
		if mode.Wait == planner.LockSkip {
			return false, nil
		}
		return false, pgerror.Newf(pgerror.LockNotAvailable, "could not obtain lock on row in relation %q", tbl.Name)
	}
	blockers := e.waitsFor(t, len(e.queue))
	if h := lt.cycleLocked(t, blockers); h != nil {
		lt.mu.Unlock()
		db.stats.deadlocks.Add(1)
		e := pgerror.New(pgerror.DeadlockDetected, "deadlock detected")
		e.Detail = "Process " + itoa(int64(t.pid)) + " waits for a row of relation \"" + tbl.Name + "\" locked by process " +
			itoa(int64(h.pid)) + ", which waits, directly or not, for process " + itoa(int64(t.pid)) + "."
		e.Hint = "See server log for query details."
		return false, e
	}
	w := &lockWaiter{t: t, shared: mode.Shared, granted: make(chan struct{}), counted: true}
	e.queue = append(e.queue, w)
	t.locks.waitingFor = blockers
	lt.mu.waiting++
	lt.waiters.Add(1)
	lt.mu.Unlock()
	db.stats.lockWaits.Add(1)
	db.sync.nudge() // no longer running (groupSync.gather)

	var timeout <-chan time.Time
	if opt.timeout > 0 {
		tm := time.NewTimer(opt.timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var err error
	select {
	case <-w.granted:
		err = errRestart
	case <-ctx.Done():
		err = context.Cause(ctx)
		if pgerror.CodeOf(err) == "" || errors.Is(err, context.Canceled) {
			err = pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
		}
	case <-timeout:
		e := pgerror.New(pgerror.LockNotAvailable, "canceling statement due to lock timeout")
		e.Detail = "while waiting for a row of relation \"" + tbl.Name + "\""
		err = e
	}
	lt.mu.Lock()
	lt.mu.waiting--
	if w.counted {
		w.counted = false
		lt.waiters.Add(-1)
	}
	if i := slices.Index(e.queue, w); i >= 0 {
		// Gave up before the grant: leave the queue; those behind may now
		// be first. (Granted meanwhile: t holds the lock until it ends.)
		e.queue = slices.Delete(e.queue, i, i+1)
		t.locks.waitingFor = nil
		lt.grantLocked(k, e)
	}
	lt.mu.Unlock()
	return false, err
}

// cycleLocked returns a blocker through which t would wait for itself,
// or nil: a depth-first walk of the waits-for graph from blockers.
// REQUIRES: lt.mu held.
func (lt *lockTable) cycleLocked(t *txn, blockers []*txn) *txn {
	seen := map[*txn]bool{}
	var reaches func(x *txn) bool
	reaches = func(x *txn) bool {
		if x == t {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		for _, y := range x.locks.waitingFor {
			if reaches(y) {
				return true
			}
		}
		return false
	}
	for _, b := range blockers {
		if reaches(b) {
			return b
		}
	}
	return nil
}

// releaseLocks drops every lock t holds and hands each to its next
// waiters. Called once t has committed (its writes applied) or rolled
// back.
func (db *DB) releaseLocks(t *txn) {
	if len(t.locks.keys) == 0 {
		return
	}
	lt := &db.locks
	lt.mu.Lock()
	for _, k := range t.locks.keys {
		e := lt.mu.held[k]
		if e == nil {
			continue
		}
		if e.exclusive == t {
			e.exclusive = nil
		}
		if i := slices.Index(e.shared, t); i >= 0 {
			e.shared = slices.Delete(e.shared, i, i+1)
		}
		lt.grantLocked(k, e)
	}
	t.locks = txnLocks{}
	lt.mu.Unlock()
}

// writtenSince reports whether a commit after seq wrote key (true also
// when the commit log no longer reaches back to seq).
func (db *DB) writtenSince(key []byte, seq uint64) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	if seq < db.mu.horizon {
		return true
	}
	first := sort.Search(len(db.mu.log), func(i int) bool { return db.mu.log[i].seq > seq })
	for _, c := range db.mu.log[first:] {
		if spansContain(c.writes, key) {
			return true
		}
	}
	return false
}

// restart prepares t to run a statement again after errRestart: it moves
// t's snapshot to the newest state if everything t read before the
// statement is unchanged there, and fails with 40001 otherwise (t is
// doomed: the statement would write on top of reads that are stale).
// The caller has rolled back the statement's writes and reads.
func (t *txn) restart() error {
	if !t.registered {
		return errRestart
	}
	if t.kv.OpenIters() > 0 {
		return pgerror.New(pgerror.Internal, "restarting a statement with open iterators")
	}
	return t.moveSnapshot(true)
}

// spansContain reports whether key lies in one of spans (sorted by
// Start, as a commit log entry's writes are).
func spansContain(spans []kv.KeySpan, key []byte) bool {
	end := append(append(make([]byte, 0, len(key)+1), key...), 0)
	return spansOverlap(spans, []kv.KeySpan{{Start: key, End: end}})
}

// LockStats describes the row locks of a store right now.
type LockStats struct {
	// Held is the number of locked rows; Waiting the number of statements
	// waiting for one.
	Held, Waiting int
	// Waits and Deadlocks count since Open.
	Waits, Deadlocks uint64
}

// LockStats returns the state of the store's row locks.
func (db *DB) LockStats() LockStats {
	lt := &db.locks
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return LockStats{Held: len(lt.mu.held), Waiting: lt.mu.waiting,
		Waits: db.stats.lockWaits.Load(), Deadlocks: db.stats.deadlocks.Load()}
}
