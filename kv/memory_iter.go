package kv

import "github.com/google/btree"

// memIter is the Iterator of the memory engine: a treeCursor over a frozen
// clone of the tree, so concurrent writes to the engine never disturb it.
type memIter struct {
	c      treeCursor[memItem]
	closed bool
}

var _ Iterator = (*memIter)(nil)

func newMemIter(t *btree.BTreeG[memItem], opts IterOptions) *memIter {
	return &memIter{c: treeCursor[memItem]{
		tree:  t,
		key:   memItemKey,
		pivot: memPivot,
		lower: cloneBytes(opts.LowerBound),
		upper: cloneBytes(opts.UpperBound),
		pos:   -1,
	}}
}

func (i *memIter) First() bool { return !i.closed && i.c.first() }
func (i *memIter) Last() bool  { return !i.closed && i.c.last() }

func (i *memIter) SeekGE(key []byte) bool { return !i.closed && i.c.seekGE(key) }

// SeekLT implements Iterator. The cursor reads a nil key as "past the
// end"; for callers nil is the empty key, below which there is nothing.
func (i *memIter) SeekLT(key []byte) bool {
	if key == nil {
		key = []byte{}
	}
	return !i.closed && i.c.seekLT(key)
}

func (i *memIter) Next() bool  { return !i.closed && i.c.next() }
func (i *memIter) Prev() bool  { return !i.closed && i.c.prev() }
func (i *memIter) Valid() bool { return !i.closed && i.c.valid() }

// Visit implements Iterator.
func (i *memIter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	return VisitEach(i, limit, fn)
}

func (i *memIter) Key() []byte {
	if !i.Valid() {
		return nil
	}
	return i.c.item().key
}

func (i *memIter) Value() []byte {
	if !i.Valid() {
		return nil
	}
	return i.c.item().value
}

func (i *memIter) Error() error {
	if i.closed {
		return ErrClosed
	}
	return nil
}

func (i *memIter) Close() error {
	if i.closed {
		return ErrClosed
	}
	i.closed = true
	i.c.invalidate()
	i.c.tree = nil
	return nil
}
