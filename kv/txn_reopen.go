package kv

import (
	"errors"

	"github.com/google/btree"
)

// Reopen starts t again, as NewTxnOn(e, snap) would with t's engine e,
// reusing t's memory: a session that runs one short read-only
// transaction after another (autocommit queries) makes none of the
// Txn's allocations per transaction. t must have ended (Commit or
// Rollback); its iterators were closed then, and a Close of one of
// them later still reports ErrClosed without touching the reopened Txn.
// On error (t has not ended) t is unchanged and snap is closed.
func (t *Txn) Reopen(snap Snapshot) error {
	if !t.done {
		_ = snap.Close()
		return errReopenLive
	}
	buf := t.spare
	if buf == nil {
		buf = btree.NewWithFreeListG(btreeDegree, txnEntryLess, txnFreeList)
	}
	*t = Txn{e: t.e, snap: snap, buf: buf, noTail: t.noTail}
	return nil
}

var errReopenLive = errors.New("kv: Reopen of a transaction that has not ended")
