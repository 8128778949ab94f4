package session

import (
	"context"
	"sync"

	"github.com/kvsql/kvsql/exec/eval"
)

// Advisory locks (pg_advisory_lock and the like), as PostgreSQL's: locks
// on application-chosen keys, held by a session until it unlocks them or
// ends, or (the xact forms) until its transaction ends. A session may
// hold a key many times (each hold is released by one unlock) and may
// hold a key both ways; an exclusive hold excludes other sessions' holds
// of any kind, a shared one their exclusive holds. A waiter waits until
// the key is free for it or its statement ends (cancel,
// statement_timeout: 57014). Migration tools (golang-migrate, Flyway,
// Rails) serialize on them.

// advisoryTable is the store's advisory locks, by key.
type advisoryTable struct {
	mu    sync.Mutex
	locks map[eval.AdvisoryKey]*advisoryLock
}

// advisoryLock is one key's holders. wake is closed, and replaced, when
// a hold is released.
type advisoryLock struct {
	excl   uint32 // the session holding it exclusively (0: none)
	nExcl  int
	shared map[uint32]int // sessions holding it shared, with their counts
	wake   chan struct{}
}

// advisoryHold is one hold of a key by session pid.
type advisoryHold struct {
	pid    uint32
	key    eval.AdvisoryKey
	shared bool
}

// acquire takes hold h, waiting while another session's hold conflicts
// unless try.
func (a *advisoryTable) acquire(ctx context.Context, h advisoryHold, try bool) (bool, error) {
	pid := h.pid
	for {
		a.mu.Lock()
		if a.locks == nil {
			a.locks = map[eval.AdvisoryKey]*advisoryLock{}
		}
		l := a.locks[h.key]
		if l == nil {
			l = &advisoryLock{shared: map[uint32]int{}, wake: make(chan struct{})}
			a.locks[h.key] = l
		}
		if l.grantable(pid, h.shared) {
			if h.shared {
				l.shared[pid]++
			} else {
				l.excl = pid
				l.nExcl++
			}
			a.mu.Unlock()
			return true, nil
		}
		wake := l.wake
		a.mu.Unlock()
		if try {
			return false, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false, eval.CancelError(ctx)
		}
	}
}

// grantable reports whether session pid may take a hold now.
func (l *advisoryLock) grantable(pid uint32, shared bool) bool {
	if l.excl != 0 && l.excl != pid {
		return false
	}
	if shared {
		return true
	}
	for holder := range l.shared {
		if holder != pid {
			return false
		}
	}
	return true
}

// release gives up hold h; false if its session had none.
func (a *advisoryTable) release(h advisoryHold) bool {
	pid := h.pid
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.locks[h.key]
	switch {
	case l == nil:
		return false
	case h.shared && l.shared[pid] > 0:
		if l.shared[pid]--; l.shared[pid] == 0 {
			delete(l.shared, pid)
		}
	case !h.shared && l.excl == pid:
		if l.nExcl--; l.nExcl == 0 {
			l.excl = 0
		}
	default:
		return false
	}
	close(l.wake)
	l.wake = make(chan struct{})
	if l.excl == 0 && len(l.shared) == 0 {
		delete(a.locks, h.key)
	}
	return true
}

// releaseAll gives up holds.
func (a *advisoryTable) releaseAll(holds []advisoryHold) {
	for _, h := range holds {
		a.release(h)
	}
}

// advisoryOps are eval.Advisory for one statement of s in t.
type advisoryOps struct {
	s *Session
	t *txn
}

func (o *advisoryOps) Lock(ctx context.Context, key eval.AdvisoryKey, shared, xact, try bool) (bool, error) {
	h := advisoryHold{pid: o.s.pid, key: key, shared: shared}
	ok, err := o.s.db.advisory.acquire(ctx, h, try)
	if !ok || err != nil {
		return ok, err
	}
	if xact {
		o.t.advisory = append(o.t.advisory, h)
	} else {
		o.s.advisory = append(o.s.advisory, h)
	}
	return true, nil
}

func (o *advisoryOps) Unlock(key eval.AdvisoryKey, shared bool) bool {
	h := advisoryHold{pid: o.s.pid, key: key, shared: shared}
	for i := len(o.s.advisory) - 1; i >= 0; i-- {
		if o.s.advisory[i] == h {
			o.s.advisory = append(o.s.advisory[:i], o.s.advisory[i+1:]...)
			return o.s.db.advisory.release(h)
		}
	}
	mode := "ExclusiveLock"
	if shared {
		mode = "ShareLock"
	}
	o.s.warn("you don't own a lock of type %s", mode)
	return false
}

func (o *advisoryOps) UnlockAll() {
	o.s.db.advisory.releaseAll(o.s.advisory)
	o.s.advisory = nil
}

// releaseTxnAdvisory gives up the advisory locks t took for itself (the
// xact forms), once t has ended.
func (db *DB) releaseTxnAdvisory(t *txn) {
	if len(t.advisory) > 0 {
		db.advisory.releaseAll(t.advisory)
		t.advisory = nil
	}
}
