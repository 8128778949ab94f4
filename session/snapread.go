package session

import (
	"sync"

	"github.com/kvsql/kvsql/kv"
)

// An autocommit query (a SELECT with no row locks and no volatile
// routine, outside a transaction block) runs in a read-only transaction
// (DB.beginRead) whose kv.Txn never buffers a write: its reads would
// pass through an empty write buffer to the shared snapshot, and each
// would be recorded in a read set that is never validated. The query's
// operators read the snapshot directly instead (exec.Ctx.Read =
// &txn.snapRead): a point read is the snapshot's Get and nothing more,
// and a range scan iterates the snapshot's own iterator, not one merged
// with the empty buffer. What they see is unchanged: the same snapshot,
// which holds every commit acknowledged before the statement began.
//
// The kv.Txn closed the iterators a statement left open when it ended,
// before its snapshot; snapReader keeps that guarantee for the
// iterators it hands out (closeIters, from DB.rollback).

// A session runs one autocommit query after another, and each used to
// allocate its transaction: the txn, its snapshot reference, the kv.Txn
// and its write buffer (five allocations, a seventh of a prepared point
// select's CPU in the session). Session.endRead keeps the ended
// transaction of the last one and the next beginRead reopens it
// (kv.Txn.Reopen). Reuse is safe because nothing uses a read
// transaction once its query's result is closed: the result ends it,
// a kept operator tree's executor context is cleared then
// (queryResult.env), and its iterators are closed. Two queries open at
// once (two portals) do not share one: the spare is taken, so the second
// makes a new transaction.

// beginRead is DB.beginRead reusing the session's spare transaction.
func (s *Session) beginRead() *txn {
	t := s.spareRead
	s.spareRead = nil
	return s.db.beginRead(t)
}

// endRead ends t, a transaction of beginRead, and keeps it for the next
// (not on the differential test's reference path, noSnapRead).
func (s *Session) endRead(t *txn) {
	s.db.rollback(t)
	if !s.noSnapRead {
		s.spareRead = t
	}
}

// snapReader reads a read-only transaction's snapshot directly, keeping
// the iterators it opened until they are closed. It is safe for
// concurrent use (a parallel scan opens iterators from its workers), as
// the snapshot is.
type snapReader struct {
	snap kv.Snapshot
	mu   struct {
		sync.Mutex
		open []*snapReadIter // REQUIRES: mu held
		done bool
	}
}

var _ kv.Reader = (*snapReader)(nil)

// Get implements kv.Reader.
func (r *snapReader) Get(key []byte) ([]byte, error) { return r.snap.Get(key) }

// NewIter implements kv.Reader.
func (r *snapReader) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.done {
		return nil, kv.ErrClosed
	}
	it, err := r.snap.NewIter(opts)
	if err != nil {
		return nil, err
	}
	ri := &snapReadIter{Iterator: it, r: r}
	r.mu.open = append(r.mu.open, ri)
	return ri, nil
}

// closeIters closes every iterator still open and refuses new ones: the
// transaction is ending, and its snapshot closes next.
func (r *snapReader) closeIters() {
	r.mu.Lock()
	open := r.mu.open
	r.mu.open, r.mu.done = nil, true
	r.mu.Unlock()
	for _, it := range open {
		_ = it.Iterator.Close() // the statement is over: nothing reads the error
	}
}

// forget drops it from the open iterators and reports whether it was
// there (not yet closed by closeIters).
func (r *snapReader) forget(it *snapReadIter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, o := range r.mu.open {
		if o == it {
			last := len(r.mu.open) - 1
			r.mu.open[i] = r.mu.open[last]
			r.mu.open[last] = nil
			r.mu.open = r.mu.open[:last]
			return true
		}
	}
	return false
}

// snapReadIter is an iterator of a snapReader.
type snapReadIter struct {
	kv.Iterator
	r *snapReader
}

// Close implements kv.Iterator. An iterator closed already by
// closeIters reports kv.ErrClosed, as a second Close does.
func (i *snapReadIter) Close() error {
	if !i.r.forget(i) {
		return kv.ErrClosed
	}
	return i.Iterator.Close()
}
