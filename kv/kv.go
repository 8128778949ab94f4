// Package kv is kvsql's ordered key-value interface and its engines.
//
// Everything kvsql stores — rows, index entries, the catalog, counters — is
// a key and a value in one ordered keyspace. Keys compare with plain
// bytes.Compare, so any engine with byte-ordered keys can implement Engine:
// Pebble on disk (the default, see OpenPebble) and an in-memory B-tree
// (see NewMemory) are the two here; a distributed ordered store (TiKV's
// transactional API) could be a third.
//
// There are only a few types: Engine (the store), Reader (anything you can
// read: the engine, a Snapshot), Batch (writes applied atomically by
// Commit) and Iterator (a cursor over a bounded key range).
//
// # Merge
//
// Merge(key, operand) appends operand to the key's value without reading
// it: the value read back is the existing value (or nothing) followed by
// every operand merged since, in order — byte concatenation. Higher layers
// (the inverted-list index) give the concatenated bytes their meaning.
// Set and Delete replace or remove the whole value as usual.
//
// # Ownership
//
// Slices passed into the package may be reused by the caller as soon as
// the call returns. Slices returned by Get belong to the caller. Slices
// returned by Iterator.Key and Iterator.Value are valid only until the
// next positioning call or Close.
//
// # Caveats
//
// Iterators and snapshots hold resources until closed; an unclosed
// iterator in the Pebble engine pins memory and files.
package kv

import "errors"

// ErrNotFound is returned by Get when the key has no value.
var ErrNotFound = errors.New("kv: key not found")

// ErrClosed is returned by operations on a closed engine, batch or snapshot.
var ErrClosed = errors.New("kv: closed")

// Reader reads a consistent or live view of the store.
type Reader interface {
	// Get returns a copy of the value stored at key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// NewIter returns an iterator over keys in [opts.LowerBound,
	// opts.UpperBound). A nil bound is unbounded on that side. The
	// iterator starts unpositioned: call First, Last, SeekGE or SeekLT.
	NewIter(opts IterOptions) (Iterator, error)
}

// IterOptions bounds an iterator.
type IterOptions struct {
	LowerBound []byte // inclusive; nil means the first key
	UpperBound []byte // exclusive; nil means past the last key
}

// Writer holds the write operations shared by Engine (applied at once) and
// Batch (applied on Commit).
type Writer interface {
	Set(key, value []byte) error
	Delete(key []byte) error
	// DeleteRange removes every key in [start, end).
	DeleteRange(start, end []byte) error
	// Merge appends operand to the value at key (see the package doc).
	Merge(key, operand []byte) error
}

// Engine is an ordered key-value store. Its Reader methods see the latest
// committed state. Engine's methods are safe for concurrent use.
type Engine interface {
	Reader
	// NewBatch returns an empty write batch.
	NewBatch() Batch
	// NewSnapshot returns a read-only view frozen at the current state.
	NewSnapshot() Snapshot
	// Flush makes every write so far durable (a WAL sync for Pebble).
	Flush() error
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
// position.
type Iterator interface {
	First() bool
	Last() bool
	// SeekGE moves to the first key >= key.
	SeekGE(key []byte) bool
	// SeekLT moves to the last key < key.
	SeekLT(key []byte) bool
	Next() bool
	Prev() bool
	Valid() bool
	// Key and Value are valid until the next positioning call or Close.
	Key() []byte
	Value() []byte
	Error() error
	Close() error
}
