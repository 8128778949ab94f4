package tikv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/txnkv/transaction"

	"github.com/kvsql/kvsql/kv"
)

type opKind uint8

const (
	opSet opKind = iota + 1
	opDelete
	opDeleteRange
	opMerge
)

// op is one buffered write; for opDeleteRange key is the start and value
// the end of the range. Both are copies owned by the batch.
type op struct {
	kind       opKind
	key, value []byte
}

var errBatchCommitted = errors.New("tikv: batch already committed")

// batch is kv.Batch: its writes are buffered here and committed as one
// Percolator transaction (two-phase commit across every region the keys
// fall in), so after Commit all of them are visible and before it none.
type batch struct {
	e         *Engine
	ops       []op
	committed bool
	closed    bool
}

func (b *batch) usable() error {
	switch {
	case b.closed:
		return kv.ErrClosed
	case b.committed:
		return errBatchCommitted
	case b.e.closed.Load():
		return kv.ErrClosed
	}
	return nil
}

func (b *batch) add(o op) error {
	if err := b.usable(); err != nil {
		return err
	}
	if o.kind == opDeleteRange && bytes.Compare(o.key, o.value) >= 0 {
		return nil // an empty range removes nothing and is not counted
	}
	o.key = bytes.Clone(o.key)
	if o.key == nil {
		o.key = []byte{}
	}
	if o.kind != opDelete {
		o.value = append(make([]byte, 0, len(o.value)), o.value...)
	}
	b.ops = append(b.ops, o)
	return nil
}

// Set implements kv.Writer.
func (b *batch) Set(key, value []byte) error {
	return b.add(op{kind: opSet, key: key, value: value})
}

// Delete implements kv.Writer.
func (b *batch) Delete(key []byte) error { return b.add(op{kind: opDelete, key: key}) }

// DeleteRange implements kv.Writer. TiKV's transactional API has no range
// tombstone: Commit scans the range at the transaction's start timestamp
// and deletes each key in the same transaction, so the deletion is atomic
// with the rest of the batch and invisible to older snapshots. (The raw
// UnsafeDestroyRange would be one call, but it removes every MVCC version
// outside any transaction: older snapshots would see the data vanish and
// a concurrent writer's keys could be lost.)
func (b *batch) DeleteRange(start, end []byte) error {
	return b.add(op{kind: opDeleteRange, key: start, value: end})
}

// Merge implements kv.Writer. TiKV has no merge operator: Commit reads
// the key's value at the transaction's start timestamp (one BatchGet for
// every merged key of the batch) and writes the concatenation. TiKV's
// write-conflict check then guarantees nobody changed the key in between;
// if somebody did, the whole batch is retried on a fresh timestamp.
func (b *batch) Merge(key, operand []byte) error {
	return b.add(op{kind: opMerge, key: key, value: operand})
}

// Count implements kv.Batch.
func (b *batch) Count() int { return len(b.ops) }

// Close implements kv.Batch.
func (b *batch) Close() error {
	if b.closed {
		return kv.ErrClosed
	}
	b.closed = true
	b.ops = nil
	return nil
}

// Commit implements kv.Batch. sync changes nothing: a TiKV commit is
// durable when it returns.
//
// A batch that loses a write conflict (another client committed one of
// its keys after its start timestamp) is retried on a fresh timestamp: a
// Batch is a list of writes to apply, not a comparison, so applying it
// later is what the caller asked for. After Options.ConflictRetries
// retries Commit returns an error wrapping kv.ErrConflict, and nothing of
// the batch is visible. A commit whose outcome client-go cannot tell
// (the primary key's commit RPC failed without an answer) returns an
// error that says so: it may or may not have been applied.
func (b *batch) Commit(bool) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.committed = true
	if len(b.ops) == 0 {
		return nil
	}
	if err := b.e.claimForCommit(); err != nil {
		return err
	}
	var err error
	for attempt := 0; ; attempt++ {
		var keys [][]byte
		keys, err = b.commitOnce()
		if err == nil {
			if b.e.afterCommit != nil {
				b.e.afterCommit(keys)
			}
			return nil
		}
		if !retryable(err) || attempt >= b.e.retries {
			break
		}
		time.Sleep(conflictBackoff(attempt))
	}
	return mapCommitError(err)
}

// conflictBackoff is the pause before retry attempt+1: exponential from
// 1 ms, capped at 64 ms, with jitter so that writers contending for one
// key (concurrent merges) spread out.
func conflictBackoff(attempt int) time.Duration {
	d := time.Millisecond << min(attempt, 6)
	return d/2 + rand.N(d)
}

// commitOnce runs the batch as one optimistic transaction and returns the
// keys it wrote.
func (b *batch) commitOnce() (keys [][]byte, err error) {
	ctx := context.Background()
	txn, err := b.e.store.Begin()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = txn.Rollback()
		}
	}()
	if err := b.e.checkOwner(ctx, txn); err != nil {
		return nil, err
	}
	merged, err := b.mergeBases(ctx, txn)
	if err != nil {
		return nil, err
	}
	for _, o := range b.ops {
		k := b.e.encodeKey(o.key)
		switch o.kind {
		case opSet:
			err = txn.Set(k, encodeValue(o.value))
			merged.set(o.key, o.value, true)
		case opDelete:
			err = txn.Delete(k)
			merged.set(o.key, nil, false)
		case opMerge:
			v := merged.append(o.key, o.value)
			err = txn.Set(k, encodeValue(v))
		case opDeleteRange:
			err = b.deleteRange(txn, o.key, o.value)
			merged.deleteRange(o.key, o.value)
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, o.key)
	}
	return keys, txn.Commit(ctx)
}

// deleteRange deletes every key in [start, end) that txn sees: the
// snapshot's keys and those the batch wrote before.
func (b *batch) deleteRange(txn *transaction.KVTxn, start, end []byte) error {
	it, err := txn.Iter(b.e.encodeKey(start), b.e.encodeKey(end))
	if err != nil {
		return err
	}
	var doomed [][]byte
	for it.Valid() {
		doomed = append(doomed, bytes.Clone(it.Key()))
		if err := it.Next(); err != nil {
			it.Close()
			return err
		}
	}
	it.Close()
	for _, k := range doomed {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// mergeBases reads, in one BatchGet at the transaction's start timestamp,
// the current value of every key the batch merges into.
func (b *batch) mergeBases(ctx context.Context, txn *transaction.KVTxn) (*mergeState, error) {
	st := &mergeState{vals: map[string][]byte{}}
	var keys [][]byte
	for _, o := range b.ops {
		if o.kind == opMerge {
			keys = append(keys, b.e.encodeKey(o.key))
		}
	}
	if len(keys) == 0 {
		return st, nil
	}
	got, err := txn.GetSnapshot().BatchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	for k, v := range got {
		d, err := decodeValue(v)
		if err != nil {
			return nil, err
		}
		st.vals[k[len(b.e.prefix):]] = d
	}
	// Keys the snapshot lacks start absent; record them so set/append
	// know the key is tracked.
	for _, k := range keys {
		uk := string(k[len(b.e.prefix):])
		if _, ok := st.vals[uk]; !ok {
			st.vals[uk] = nil
		}
	}
	return st, nil
}

// mergeState follows, while the batch's writes are applied in order, the
// value of each key the batch merges into (nil: absent).
type mergeState struct {
	vals map[string][]byte
}

func (m *mergeState) set(key, value []byte, present bool) {
	if _, tracked := m.vals[string(key)]; !tracked {
		return
	}
	if !present {
		m.vals[string(key)] = nil
		return
	}
	m.vals[string(key)] = value
}

// append merges operand into key and returns the new value.
func (m *mergeState) append(key, operand []byte) []byte {
	old := m.vals[string(key)]
	v := make([]byte, 0, len(old)+len(operand))
	v = append(append(v, old...), operand...)
	m.vals[string(key)] = v
	return v
}

func (m *mergeState) deleteRange(start, end []byte) {
	for k := range m.vals {
		if k >= string(start) && k < string(end) {
			m.vals[k] = nil
		}
	}
}

// retryable reports whether err means the transaction lost to another
// one and nothing of it was committed.
func retryable(err error) bool {
	var latch *tikverr.ErrWriteConflictInLatch
	var again *tikverr.ErrRetryable
	return tikverr.IsErrWriteConflict(err) || errors.As(err, &latch) || errors.As(err, &again) ||
		errors.Is(err, tikverr.ErrLockWaitTimeout) || errors.Is(err, tikverr.ErrResolveLockTimeout)
}

// mapCommitError turns a failed commit into kv's errors.
func mapCommitError(err error) error {
	var tooLarge *tikverr.ErrTxnTooLarge
	var entry *tikverr.ErrEntryTooLarge
	switch {
	case errNotOwner(err):
		return err
	case retryable(err):
		return fmt.Errorf("tikv: %w (%v)", kv.ErrConflict, err)
	case errors.As(err, &tooLarge), errors.As(err, &entry):
		return fmt.Errorf("tikv: %w (%v)", kv.ErrTooLarge, err)
	case tikverr.IsErrorUndetermined(err):
		return fmt.Errorf("tikv: the commit's outcome is unknown (the primary key's commit got no answer), it may or may not have been applied: %w", err)
	}
	return fmt.Errorf("tikv: commit: %w", err)
}
