package kv

import "errors"

// ErrNotFound is returned by Get when the key has no value.
var ErrNotFound = errors.New("kv: key not found")

// ErrClosed is returned by operations on a closed engine, batch or snapshot.
var ErrClosed = errors.New("kv: closed")

// ErrNotCommitted marks a Batch.Commit error after which the engine stays
// usable: the store could not be reached, or refused the batch (too large,
// out of quota), and none of the batch is visible to the engine's readers.
// A distributed engine that lost its answer (the outcome is unknown)
// returns it too, and settles the outcome before its next Commit: if the
// batch turns out applied after all, that later Commit fails with
// ErrLateCommit. Pebble and memory never return it (their failed commits
// may have left part of a batch in the WAL buffer).
var ErrNotCommitted = errors.New("kv: batch not committed")

// ErrLateCommit is returned by Batch.Commit (or a direct write) of a
// distributed engine when an earlier commit whose outcome was unknown
// (reported with ErrNotCommitted) turned out applied once the store
// answered again. The batch of this call was not applied; the earlier one
// is now visible to new snapshots. A caller that keeps its own record of
// commits (validation, a catalog cache) must treat the earlier batch as a
// commit it never recorded: anything read before it may be stale. The
// engine stays usable.
var ErrLateCommit = errors.New("kv: an earlier commit whose outcome was unknown turned out applied")

// Claimer is implemented by an engine that other processes can open too
// (a distributed store). Claim makes this process the store's only
// writer, or fails (SQLSTATE 55006) naming the process that is; it is
// called by the SQL layer when it opens the store to serve it. A read-only
// user (kvsql check) does not claim; an engine whose writes need the claim
// takes it at its first commit.
type Claimer interface {
	Claim() error
}

// ErrConflict is returned by Batch.Commit (or a direct write) of an engine
// that other clients write too (a distributed store) when a concurrent
// commit won and retrying did not help: nothing of the batch was applied,
// and the caller may try again.
var ErrConflict = errors.New("kv: write conflict with a concurrent commit")

// ErrTooLarge is returned by Batch.Commit of an engine that bounds the
// size of one atomic commit when the batch is over it: nothing of the
// batch was applied.
var ErrTooLarge = errors.New("kv: batch too large for one atomic commit")

// Reader reads a consistent or live view of the store.
//
// A Reader that is also safe for concurrent use says so (Engine and
// Snapshot are; Txn is not).
type Reader interface {
	// Get returns a copy of the value stored at key, or ErrNotFound. A key
	// that holds an empty value is found and returns a non-nil empty slice.
	Get(key []byte) ([]byte, error)
	// NewIter returns an iterator over keys in [opts.LowerBound,
	// opts.UpperBound). A nil bound is unbounded on that side. The
	// iterator starts unpositioned: call First, Last, SeekGE or SeekLT.
	// The bounds are copied; the caller may reuse them.
	NewIter(opts IterOptions) (Iterator, error)
}

// IterOptions bounds an iterator.
type IterOptions struct {
	LowerBound []byte // inclusive; nil means the first key
	UpperBound []byte // exclusive; nil means past the last key
}

// Writer holds the write operations shared by Engine (applied at once),
// Batch (applied on Commit) and Txn (applied on Txn.Commit). Keys and
// values are copied; the caller may reuse them when the call returns.
type Writer interface {
	// Set makes value the whole value of key.
	Set(key, value []byte) error
	// Delete removes key; deleting an absent key is not an error.
	Delete(key []byte) error
	// DeleteRange removes every key in [start, end). An empty or inverted
	// range (start >= end) removes nothing.
	DeleteRange(start, end []byte) error
	// Merge appends operand to the value at key (see the package doc). On
	// an absent key the value becomes operand, so Merge(k, nil) on an
	// absent key creates k with an empty value.
	Merge(key, operand []byte) error
}

// ReadWriter is anything that can be both read and written: an Engine
// (which writes immediately) or a Txn (which buffers its writes).
type ReadWriter interface {
	Reader
	Writer
}

// Engine is an ordered key-value store. Its Reader methods see the latest
// committed state; its Writer methods apply each write at once, unsynced
// (use a Batch to group writes, and Flush or Batch.Commit(true) for
// durability). Engine's methods are safe for concurrent use.
type Engine interface {
	Reader
	Writer
	// NewBatch returns an empty write batch.
	NewBatch() Batch
	// NewSnapshot returns a read-only view frozen at the current state.
	NewSnapshot() Snapshot
	// Flush makes every write so far durable (a WAL sync for Pebble).
	Flush() error
	// Compact reorganizes the storage of keys in [start, end) for reading
	// (Pebble: a manual compaction, so a freshly loaded range is not read
	// through many overlapping files). An engine with nothing to
	// reorganize does nothing. It may take long; it changes no data.
	Compact(start, end []byte) error
	// Close releases the engine. Open iterators, snapshots and batches
	// must be closed first.
	Close() error
}

// Batch collects writes and applies them atomically: after Commit every
// write is visible, before it none is. Reading a Batch is not supported
// (its Get and NewIter are not part of the interface); read the engine or a
// snapshot. A Batch is not safe for concurrent use.
type Batch interface {
	Writer
	// Commit applies the batch. With sync, Commit returns only after the
	// writes are durable. A batch cannot be committed twice.
	Commit(sync bool) error
	// Count is the number of operations in the batch.
	Count() int
	// Close releases the batch; closing an uncommitted batch discards it.
	Close() error
}

// SyncLaterBatch is a Batch that can be applied with its sync started
// but not awaited: CommitSyncLater applies the writes (readers of the
// engine see them at once, as after Commit(false)) and starts making
// them durable; wait returns once they are, or with the sync's error.
// Close only after wait has returned. Engines whose syncs cannot be
// split so do not implement it (Txn.CommitSyncLater then commits
// unsynced).
type SyncLaterBatch interface {
	Batch
	CommitSyncLater() (wait func() error, err error)
}

// SyncStarter is an Engine whose WAL sync can be started without being
// awaited: StartSync requests a sync of every write so far (what Flush
// makes durable) and returns at once; wait returns once it is done, or
// with its error, and must be called exactly once. The caller can do
// other work while the disk syncs (group commit releases old snapshots
// there). Engines that cannot split a sync so do not implement it.
type SyncStarter interface {
	StartSync() (wait func() error, err error)
}

// Snapshot is a read-only, point-in-time view of the engine: later writes
// are invisible to it. Close it when done.
type Snapshot interface {
	Reader
	Close() error
}

// Iterator walks keys in ascending order within its bounds.
//
// Positioning methods (First, Last, SeekGE, SeekLT, Next, Prev) return
// whether the iterator is now at a key; Valid reports the same. After a
// positioning method returns false, check Error: false with a nil error
// means the iterator left its bounds. Next and Prev require a valid
// position; called on an invalid iterator they return false. Direction
// may change at any time: Next after Prev returns the key after the
// current one, exactly as if the iterator had always moved forward.
//
// An iterator reads a consistent view fixed when it was created (for an
// Engine, the state at NewIter; for a Snapshot, the snapshot): writes made
// while it is open are not seen by it.
//
// An Iterator is not safe for concurrent use.
type Iterator interface {
	// First moves to the first key within the bounds.
	First() bool
	// Last moves to the last key within the bounds.
	Last() bool
	// SeekGE moves to the first key >= key within the bounds; a key below
	// the lower bound behaves as the lower bound.
	SeekGE(key []byte) bool
	// SeekLT moves to the last key < key within the bounds; a key above
	// the upper bound behaves as the upper bound.
	SeekLT(key []byte) bool
	// Next moves to the following key.
	Next() bool
	// Prev moves to the preceding key.
	Prev() bool
	// Valid reports whether the iterator is at a key.
	Valid() bool
	// Key and Value are valid until the next positioning call or Close.
	// The caller must not modify them.
	Key() []byte
	Value() []byte
	// Visit calls fn with the current key and value and then with each
	// following entry, moving forward, until fn has accepted limit
	// entries, the iterator leaves its bounds or fails, or fn returns an
	// error, which Visit returns. It reports how many entries fn
	// accepted (returned nil for); the iterator is then at the entry
	// after the last one accepted, or at the one fn refused. On an
	// unpositioned or exhausted iterator fn is not called. key and value
	// are valid only during the call. Fewer than limit entries and a nil
	// error means the iterator is no longer valid: check Error. A batch
	// scan steps through a range this way with one call per entry
	// instead of Next, Key and Value through the interface (VisitEach is
	// the plain form for engines with no faster one).
	Visit(limit int, fn func(key, value []byte) error) (int, error)
	// Error returns the error that stopped the iterator, if any.
	Error() error
	// Close releases the iterator. Closing twice returns ErrClosed;
	// positioning a closed iterator returns false with Error ErrClosed.
	Close() error
}

// VisitEach is Iterator.Visit through it's Valid, Key, Value and Next: the
// implementation of an iterator with no faster way to step.
func VisitEach(it Iterator, limit int, fn func(key, value []byte) error) (int, error) {
	n := 0
	for n < limit && it.Valid() {
		if err := fn(it.Key(), it.Value()); err != nil {
			return n, err
		}
		n++
		it.Next()
	}
	return n, nil
}
