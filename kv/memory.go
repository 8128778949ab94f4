package kv

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// btreeDegree is the B-tree's minimum degree: nodes hold up to 2*degree-1
// items. 32 keeps nodes near a few cache lines of item headers.
const btreeDegree = 32

// memItem is one key and its value in the memory engine. Items are never
// modified once in a tree (a write replaces the item), which is what lets
// frozen clones share them.
type memItem struct {
	key, value []byte
}

func memItemLess(a, b memItem) bool { return bytes.Compare(a.key, b.key) < 0 }

func memItemKey(it memItem) []byte { return it.key }

func memPivot(k []byte) memItem { return memItem{key: k} }

// memEngine is the Engine on an in-memory google/btree.
//
// Readers that need a stable view (iterators, snapshots) get a frozen
// copy-on-write clone of the tree: cloning is O(1), and the writer copies
// shared nodes on its next writes. The frozen clone is cached until the
// next write, so readers between two writes share one clone.
type memEngine struct {
	mu struct {
		sync.RWMutex
		tree   *btree.BTreeG[memItem]
		frozen *btree.BTreeG[memItem] // clone of tree; nil after a write
		closed bool
	}
}

var _ Engine = (*memEngine)(nil)

// NewMemory returns an empty in-memory Engine with the same semantics as
// the Pebble engine. Its contents are lost when it is closed.
func NewMemory() Engine {
	e := &memEngine{}
	e.mu.tree = btree.NewG(btreeDegree, memItemLess)
	return e
}

// Get implements Reader.
func (e *memEngine) Get(key []byte) ([]byte, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.mu.closed {
		return nil, ErrClosed
	}
	return treeGet(e.mu.tree, key)
}

func treeGet(t *btree.BTreeG[memItem], key []byte) ([]byte, error) {
	it, ok := t.Get(memPivot(key))
	if !ok {
		return nil, ErrNotFound
	}
	return copyValue(it.value), nil
}

// frozen returns a clone of the tree that no one will ever write.
func (e *memEngine) frozen() (*btree.BTreeG[memItem], error) {
	e.mu.RLock()
	f, closed := e.mu.frozen, e.mu.closed
	e.mu.RUnlock()
	if closed {
		return nil, ErrClosed
	}
	if f != nil {
		return f, nil
	}
	// Clone modifies the source tree (it gets a new copy-on-write
	// context), so it needs the write lock.
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.closed {
		return nil, ErrClosed
	}
	if e.mu.frozen == nil {
		e.mu.frozen = e.mu.tree.Clone()
	}
	return e.mu.frozen, nil
}

// NewIter implements Reader. The iterator reads the state at NewIter.
func (e *memEngine) NewIter(opts IterOptions) (Iterator, error) {
	t, err := e.frozen()
	if err != nil {
		return nil, err
	}
	return newMemIter(t, opts), nil
}

// NewSnapshot implements Engine.
func (e *memEngine) NewSnapshot() Snapshot {
	t, err := e.frozen()
	if err != nil {
		return closedSnapshot{}
	}
	return &memSnapshot{tree: t}
}

// Set implements Writer.
func (e *memEngine) Set(key, value []byte) error {
	return e.apply(memOp{kind: opSet, key: cloneKey(key), value: copyValue(value)})
}

// Delete implements Writer.
func (e *memEngine) Delete(key []byte) error {
	return e.apply(memOp{kind: opDelete, key: cloneKey(key)})
}

// DeleteRange implements Writer.
func (e *memEngine) DeleteRange(start, end []byte) error {
	return e.apply(memOp{kind: opDeleteRange, key: cloneKey(start), value: cloneKey(end)})
}

// Merge implements Writer.
func (e *memEngine) Merge(key, operand []byte) error {
	return e.apply(memOp{kind: opMerge, key: cloneKey(key), value: copyValue(operand)})
}

func (e *memEngine) apply(ops ...memOp) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.closed {
		return ErrClosed
	}
	for _, op := range ops {
		e.applyLocked(op)
	}
	return nil
}

// applyLocked applies one write. The op's slices are owned by the engine.
// REQUIRES: mu held for writing.
func (e *memEngine) applyLocked(op memOp) {
	e.mu.frozen = nil
	t := e.mu.tree
	switch op.kind {
	case opSet:
		t.ReplaceOrInsert(memItem{key: op.key, value: op.value})
	case opDelete:
		t.Delete(memPivot(op.key))
	case opDeleteRange:
		if !rangeNonEmpty(op.key, op.value) {
			return
		}
		var doomed [][]byte
		t.AscendRange(memPivot(op.key), memPivot(op.value), func(it memItem) bool {
			doomed = append(doomed, it.key)
			return true
		})
		for _, k := range doomed {
			t.Delete(memPivot(k))
		}
	case opMerge:
		v := op.value
		if old, ok := t.Get(memPivot(op.key)); ok {
			// A fresh slice: the old one may be shared with frozen clones.
			v = make([]byte, 0, len(old.value)+len(op.value))
			v = append(append(v, old.value...), op.value...)
		}
		t.ReplaceOrInsert(memItem{key: op.key, value: v})
	}
}

// NewBatch implements Engine.
func (e *memEngine) NewBatch() Batch {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.mu.closed {
		return closedBatch{}
	}
	return &memBatch{e: e}
}

// Flush implements Engine; memory has nothing to make durable.
func (e *memEngine) Flush() error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.mu.closed {
		return ErrClosed
	}
	return nil
}

// Compact implements Engine: a B-tree has nothing to reorganize.
func (e *memEngine) Compact(start, end []byte) error {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.mu.closed {
		return ErrClosed
	}
	return nil
}

// Close implements Engine. Snapshots and iterators still open keep
// working on the state they froze.
func (e *memEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.closed {
		return ErrClosed
	}
	e.mu.closed = true
	e.mu.tree, e.mu.frozen = nil, nil
	return nil
}

// opKind names a buffered write, in memory batches and Txn buffers.
type opKind uint8

const (
	opSet opKind = iota + 1
	opDelete
	opDeleteRange
	opMerge
)

// memOp is one write of a memory batch. For opDeleteRange, key is the
// start and value the end of the range.
type memOp struct {
	kind       opKind
	key, value []byte
}

// memBatch is a Batch of the memory engine: writes are recorded and
// applied under one lock acquisition by Commit, so no reader sees part of
// a batch.
type memBatch struct {
	e         *memEngine
	ops       []memOp
	committed bool
	closed    bool
}

var _ Batch = (*memBatch)(nil)

func (b *memBatch) usable() error {
	if b.closed {
		return ErrClosed
	}
	if b.committed {
		return errBatchCommitted
	}
	return nil
}

func (b *memBatch) add(op memOp) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.ops = append(b.ops, op)
	return nil
}

// Set implements Writer.
func (b *memBatch) Set(key, value []byte) error {
	return b.add(memOp{kind: opSet, key: cloneKey(key), value: copyValue(value)})
}

// Delete implements Writer.
func (b *memBatch) Delete(key []byte) error {
	return b.add(memOp{kind: opDelete, key: cloneKey(key)})
}

// DeleteRange implements Writer. An empty range is not recorded (and not
// counted), as in Pebble.
func (b *memBatch) DeleteRange(start, end []byte) error {
	if !rangeNonEmpty(start, end) {
		return b.usable()
	}
	return b.add(memOp{kind: opDeleteRange, key: cloneKey(start), value: cloneKey(end)})
}

// Merge implements Writer.
func (b *memBatch) Merge(key, operand []byte) error {
	return b.add(memOp{kind: opMerge, key: cloneKey(key), value: copyValue(operand)})
}

// Commit implements Batch. sync is irrelevant in memory.
func (b *memBatch) Commit(bool) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.committed = true
	return b.e.apply(b.ops...)
}

// Count implements Batch.
func (b *memBatch) Count() int { return len(b.ops) }

// Close implements Batch.
func (b *memBatch) Close() error {
	if b.closed {
		return ErrClosed
	}
	b.closed = true
	b.ops = nil
	return nil
}

// memSnapshot reads a frozen clone; it needs no lock.
type memSnapshot struct {
	tree   *btree.BTreeG[memItem]
	closed atomic.Bool
}

var _ Snapshot = (*memSnapshot)(nil)

// Get implements Reader.
func (s *memSnapshot) Get(key []byte) ([]byte, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return treeGet(s.tree, key)
}

// NewIter implements Reader.
func (s *memSnapshot) NewIter(opts IterOptions) (Iterator, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return newMemIter(s.tree, opts), nil
}

// Close implements Snapshot.
func (s *memSnapshot) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	return nil
}

// copyValue copies v into a non-nil slice, so an empty value reads back
// as present-and-empty.
func copyValue(v []byte) []byte {
	return append(make([]byte, 0, len(v)), v...)
}

// cloneKey copies a key; a nil key becomes the empty key.
func cloneKey(k []byte) []byte { return copyValue(k) }
