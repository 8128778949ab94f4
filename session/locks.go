package session

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
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
// A waiter holds no CPU: it blocks on the holder's done channel, its
// statement context (cancel, statement_timeout: 57014) and lock_timeout
// (55P03). A wait that would close a cycle of waiting transactions fails
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

// lockTable maps each locked key to the transactions holding it.
type lockTable struct {
	mu struct {
		sync.Mutex
		held map[string]*lockEntry
		// waiting counts the statements waiting for a lock.
		waiting int
	}
}

// lockEntry is one locked row: one exclusive holder, or shared holders.
type lockEntry struct {
	exclusive *txn
	shared    []*txn
}

// holds reports whether t holds e in a mode at least as strong as asked.
func (e *lockEntry) holds(t *txn, shared bool) bool {
	if e.exclusive == t {
		return true
	}
	return shared && slices.Contains(e.shared, t)
}

// blockers are the other transactions whose hold on e conflicts with t
// taking it (shared or not).
func (e *lockEntry) blockers(t *txn, shared bool) []*txn {
	if e.exclusive != nil {
		return []*txn{e.exclusive}
	}
	if shared {
		return nil
	}
	var out []*txn
	for _, x := range e.shared {
		if x != t {
			out = append(out, x)
		}
	}
	return out
}

// txnLocks is a transaction's part of the lock table, written under
// lockTable.mu.
type txnLocks struct {
	keys []string
	// done is closed when the transaction ends and its locks are gone;
	// made with the first lock.
	done chan struct{}
	// waitingFor are the transactions this one waits for.
	waitingFor []*txn
}

func (lt *lockTable) init() { lt.mu.held = map[string]*lockEntry{} }

// lockOptions are a session's lock settings.
type lockOptions struct {
	timeout time.Duration // lock_timeout; 0: wait forever
}

// acquireLock takes key's lock for t in mode, waiting while other
// transactions hold a conflicting lock. It returns true when t holds the
// lock and no commit after t's snapshot wrote key; false when SKIP LOCKED
// leaves the row out; errRestart when the statement must run again
// (after a wait, or because key changed since the snapshot); 55P03, 40P01
// or 57014 when it cannot wait.
func (db *DB) acquireLock(ctx context.Context, t *txn, tbl *catalog.Table, key []byte, mode planner.RowLock, opt lockOptions) (bool, error) {
	lt := &db.locks
	lt.mu.Lock()
	e := lt.mu.held[string(key)]
	if e != nil && e.holds(t, mode.Shared) {
		lt.mu.Unlock()
		return true, nil // held since an earlier statement: nobody wrote it since
	}
	var blockers []*txn
	if e != nil {
		blockers = e.blockers(t, mode.Shared)
	}
	if len(blockers) == 0 {
		k := string(key)
		switch {
		case e == nil:
			e = &lockEntry{}
			lt.mu.held[k] = e
			t.locks.keys = append(t.locks.keys, k)
		case !slices.Contains(e.shared, t):
			t.locks.keys = append(t.locks.keys, k)
		}
		if mode.Shared {
			e.shared = append(e.shared, t)
		} else {
			e.exclusive, e.shared = t, nil // taken, or upgraded from t's own share
		}
		if t.locks.done == nil {
			t.locks.done = make(chan struct{})
		}
		lt.mu.Unlock()
		if db.writtenSince(key, t.snapSeq) {
			return false, errRestart
		}
		return true, nil
	}
	switch mode.Wait {
	case planner.LockSkip:
		lt.mu.Unlock()
		return false, nil
	case planner.LockNoWait:
		lt.mu.Unlock()
		return false, pgerror.Newf(pgerror.LockNotAvailable, "could not obtain lock on row in relation %q", tbl.Name)
	}
	if h := lt.cycleLocked(t, blockers); h != nil {
		lt.mu.Unlock()
		db.stats.deadlocks.Add(1)
		e := pgerror.New(pgerror.DeadlockDetected, "deadlock detected")
		e.Detail = "Process " + itoa(int64(t.pid)) + " waits for a row of relation \"" + tbl.Name + "\" locked by process " +
			itoa(int64(h.pid)) + ", which waits, directly or not, for process " + itoa(int64(t.pid)) + "."
		e.Hint = "See server log for query details."
		return false, e
	}
	t.locks.waitingFor = blockers
	lt.mu.waiting++
	done := blockers[0].locks.done
	lt.mu.Unlock()
	db.stats.lockWaits.Add(1)

	var timeout <-chan time.Time
	if opt.timeout > 0 {
		tm := time.NewTimer(opt.timeout)
		defer tm.Stop()
		timeout = tm.C
	}
	var err error
	select {
	case <-done:
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
	t.locks.waitingFor = nil
	lt.mu.waiting--
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

// releaseLocks drops every lock t holds and wakes its waiters. Called
// once t has committed (its writes applied) or rolled back.
func (db *DB) releaseLocks(t *txn) {
	if t.locks.done == nil {
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
		if e.exclusive == nil && len(e.shared) == 0 {
			delete(lt.mu.held, k)
		}
	}
	close(t.locks.done)
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
