package tikv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"

	"github.com/kvsql/kvsql/kv"
)

// DefaultPrefix starts every key kvsql writes to a TiKV cluster, so the
// cluster can hold other data (or other kvsql stores, with other
// prefixes) beside it.
const DefaultPrefix = "kvsql\x00"

// Options configure an Engine.
type Options struct {
	// Prefix is prepended to every key; DefaultPrefix if empty. Two
	// engines with different prefixes never see each other's keys.
	Prefix string
	// ConflictRetries is how often a batch that lost a write conflict is
	// retried on a fresh timestamp before Commit returns kv.ErrConflict;
	// 0 means 32 (with backoff, about 1.5 s), negative means never.
	ConflictRetries int
}

// Engine is kv.Engine on a TiKV cluster through client-go's txnkv API. It
// is safe for concurrent use.
type Engine struct {
	store *tikv.KVStore
	// prefix starts every stored key; end is the first key after all of
	// them (the prefix incremented).
	prefix, end []byte
	retries     int
	closed      atomic.Bool
	// onClose releases what the opener built around the store (the mock
	// cluster of OpenMock); it runs after store.Close.
	onClose func()
	// afterCommit, if set, is called with the keys of every committed
	// batch (the mock uses it to split regions as data arrives).
	afterCommit func(keys [][]byte)
	// id names this engine in the owner key (owner.go).
	id string
	// owner is this engine's claim on the store: stop ends its renewal,
	// which closes done; both nil while not claimed. lost, once set, is
	// the error of every later claim and commit (owner.go).
	owner struct {
		sync.Mutex
		stop, done chan struct{}
		lost       error
	}
}

var _ kv.Engine = (*Engine)(nil)

// Open connects to the TiKV cluster whose PD endpoints are pdAddrs
// ("host:port").
func Open(pdAddrs []string, opts Options) (*Engine, error) {
	if len(pdAddrs) == 0 {
		return nil, errors.New("tikv: no PD address given (tikv://HOST:PORT,...)")
	}
	c, err := txnkv.NewClient(pdAddrs)
	if err != nil {
		return nil, fmt.Errorf("tikv: connecting to PD %v: %w", pdAddrs, err)
	}
	return newEngine(c.KVStore, opts), nil
}

func newEngine(store *tikv.KVStore, opts Options) *Engine {
	p := opts.Prefix
	if p == "" {
		p = DefaultPrefix
	}
	retries := opts.ConflictRetries
	if retries == 0 {
		retries = 32
	}
	return &Engine{store: store, prefix: []byte(p), end: prefixEnd([]byte(p)), retries: max(retries, 0), id: newID()}
}

// prefixEnd returns the first key after every key that starts with p.
// REQUIRES: p holds a byte below 0xff (DefaultPrefix does).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	panic("tikv: prefix of 0xff bytes only")
}

// Store returns the client-go store under the engine (tests and tools).
func (e *Engine) Store() *tikv.KVStore { return e.store }

// encodeKey returns the stored key of k: the prefix, then k.
func (e *Engine) encodeKey(k []byte) []byte {
	b := make([]byte, 0, len(e.prefix)+len(k))
	return append(append(b, e.prefix...), k...)
}

// bound encodes an iterator bound: nil (unbounded) becomes the start or
// the end of the prefix.
func (e *Engine) bound(k []byte, upper bool) []byte {
	if k == nil {
		if upper {
			return e.end
		}
		return e.prefix
	}
	return e.encodeKey(k)
}

// valueTag starts every stored value. TiKV cannot store an empty value
// (client-go refuses it: an empty value is how it marks a deletion), and
// kv allows one, so every value is stored one byte longer.
const valueTag = 0x01

func encodeValue(v []byte) []byte {
	b := make([]byte, 0, len(v)+1)
	return append(append(b, valueTag), v...)
}

// decodeValue returns the kv value of a stored value, sharing its bytes.
func decodeValue(v []byte) ([]byte, error) {
	if len(v) == 0 || v[0] != valueTag {
		return nil, fmt.Errorf("tikv: stored value %x does not start with the value tag: %w", v, kv.ErrCorruption)
	}
	return v[1:], nil
}

// now returns a fresh timestamp from PD's oracle: a snapshot at it sees
// every commit acknowledged before the call.
func (e *Engine) now() (uint64, error) {
	if e.closed.Load() {
		return 0, kv.ErrClosed
	}
	ts, err := e.store.CurrentTimestamp(oracle.GlobalTxnScope)
	if err != nil {
		return 0, fmt.Errorf("tikv: getting a timestamp from PD: %w", err)
	}
	return ts, nil
}

// Get implements kv.Reader at a fresh timestamp.
func (e *Engine) Get(key []byte) ([]byte, error) {
	ts, err := e.now()
	if err != nil {
		return nil, err
	}
	return e.getAt(e.store.GetSnapshot(ts), key)
}

func (e *Engine) getAt(s *txnsnapshot.KVSnapshot, key []byte) ([]byte, error) {
	v, err := s.Get(context.Background(), e.encodeKey(key))
	if err != nil {
		if tikverr.IsErrNotFound(err) {
			return nil, kv.ErrNotFound
		}
		return nil, fmt.Errorf("tikv: get: %w", err)
	}
	d, err := decodeValue(v)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(d), nil
}

// NewIter implements kv.Reader: the iterator reads at a fresh timestamp.
func (e *Engine) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	ts, err := e.now()
	if err != nil {
		return nil, err
	}
	return e.newIter(ts, opts), nil
}

// NewSnapshot implements kv.Engine: a snapshot is a start timestamp.
// TiKV keeps the versions it needs until the GC safepoint passes it (see
// Compact).
func (e *Engine) NewSnapshot() kv.Snapshot {
	ts, err := e.now()
	if err != nil {
		return &snapshot{err: err}
	}
	return &snapshot{e: e, ts: ts, snap: e.store.GetSnapshot(ts)}
}

// Set implements kv.Writer as a one-write transaction.
func (e *Engine) Set(key, value []byte) error {
	return e.single(op{kind: opSet, key: key, value: value})
}

// Delete implements kv.Writer as a one-write transaction.
func (e *Engine) Delete(key []byte) error { return e.single(op{kind: opDelete, key: key}) }

// DeleteRange implements kv.Writer as one transaction deleting every key
// in the range (see batch.DeleteRange).
func (e *Engine) DeleteRange(start, end []byte) error {
	return e.single(op{kind: opDeleteRange, key: start, value: end})
}

// Merge implements kv.Writer as a one-write transaction.
func (e *Engine) Merge(key, operand []byte) error {
	return e.single(op{kind: opMerge, key: key, value: operand})
}

func (e *Engine) single(o op) error {
	b := e.NewBatch()
	defer b.Close()
	if err := b.(*batch).add(o); err != nil {
		return err
	}
	return b.Commit(false)
}

// NewBatch implements kv.Engine.
func (e *Engine) NewBatch() kv.Batch { return &batch{e: e} }

// Flush implements kv.Engine. A TiKV commit is durable when it returns
// (replicated through Raft to a majority and written to their logs), so
// there is nothing to flush.
func (e *Engine) Flush() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	return nil
}

// Compact implements kv.Engine and does nothing: TiKV compacts its
// RocksDB on its own, and old MVCC versions go only when the cluster's GC
// safepoint passes them, which the cluster's GC worker advances (kvsql
// does not: another client's snapshot may still need them).
func (e *Engine) Compact(start, end []byte) error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	return nil
}

// Close implements kv.Engine.
func (e *Engine) Close() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	e.release()
	if e.closed.Swap(true) {
		return kv.ErrClosed
	}
	err := e.store.Close()
	if e.onClose != nil {
		e.onClose()
	}
	return err
}

// snapshot is kv.Snapshot at one TiKV timestamp.
type snapshot struct {
	e      *Engine
	ts     uint64
	snap   *txnsnapshot.KVSnapshot
	err    error // set when the snapshot could not be taken
	closed atomic.Bool
}

func (s *snapshot) usable() error {
	if s.err != nil {
		return s.err
	}
	if s.closed.Load() || s.e.closed.Load() {
		return kv.ErrClosed
	}
	return nil
}

// Get implements kv.Reader.
func (s *snapshot) Get(key []byte) ([]byte, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.e.getAt(s.snap, key)
}

// NewIter implements kv.Reader.
func (s *snapshot) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.e.newIter(s.ts, opts), nil
}

// Close implements kv.Snapshot.
func (s *snapshot) Close() error {
	if s.closed.Swap(true) {
		return kv.ErrClosed
	}
	return nil
}
