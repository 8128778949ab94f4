package kv

import (
	"bytes"

	"github.com/google/btree"
)

// Window sizes of treeCursor: a seek fetches a few items (point lookups
// through an iterator are common); a Next or Prev that runs off the window
// fetches more (it is probably a scan).
const (
	seekWindow = 8
	scanWindow = 64
)

// treeCursor is a bidirectional cursor over a B-tree that nobody writes
// while the cursor is in use (a frozen clone). google/btree only offers
// callback iteration, so the cursor copies a window of consecutive items
// into buf and refills it from the tree, by key, when Next or Prev leaves
// the window. Each refill costs one O(log n) descent.
//
// Invariant: buf holds consecutive in-bounds items of the tree in ascending
// order; the cursor is valid iff 0 <= pos < len(buf).
type treeCursor[T any] struct {
	tree  *btree.BTreeG[T]
	key   func(T) []byte // the key of an item
	pivot func([]byte) T // an item with the given key, for searches
	lower []byte         // inclusive; nil is unbounded
	upper []byte         // exclusive; nil is unbounded
	buf   []T
	pos   int
}

func (c *treeCursor[T]) valid() bool { return c.pos >= 0 && c.pos < len(c.buf) }

// item returns the current item. REQUIRES: valid.
func (c *treeCursor[T]) item() T { return c.buf[c.pos] }

func (c *treeCursor[T]) invalidate() {
	c.buf = c.buf[:0]
	c.pos = -1
}

func (c *treeCursor[T]) first() bool { return c.seekGE(c.lower) }

func (c *treeCursor[T]) last() bool { return c.seekLT(c.upper) }

// seekGE positions at the first item with key >= k (clamped to the bounds).
func (c *treeCursor[T]) seekGE(k []byte) bool {
	if c.lower != nil && bytes.Compare(k, c.lower) < 0 {
		k = c.lower
	}
	c.fillForward(k, false, seekWindow)
	return c.valid()
}

// seekLT positions at the last item with key < k (clamped to the bounds).
// A nil k means past the last key.
func (c *treeCursor[T]) seekLT(k []byte) bool {
	if c.upper != nil && (k == nil || bytes.Compare(k, c.upper) > 0) {
		k = c.upper
	}
	c.fillBackward(k, seekWindow)
	return c.valid()
}

func (c *treeCursor[T]) next() bool {
	if !c.valid() {
		return false
	}
	if c.pos+1 < len(c.buf) {
		c.pos++
		return true
	}
	c.fillForward(c.key(c.buf[c.pos]), true, scanWindow)
	return c.valid()
}

func (c *treeCursor[T]) prev() bool {
	if !c.valid() {
		return false
	}
	if c.pos > 0 {
		c.pos--
		return true
	}
	c.fillBackward(c.key(c.buf[c.pos]), scanWindow)
	return c.valid()
}

// fillForward loads up to n items with key >= from (> from if exclusive)
// and below the upper bound, and positions at the first.
func (c *treeCursor[T]) fillForward(from []byte, exclusive bool, n int) {
	// from may alias an item in buf; the items themselves are not
	// modified, only the slots of buf, and from is read before reuse.
	start := c.pivot(from)
	c.buf = c.buf[:0]
	c.pos = 0
	c.tree.AscendGreaterOrEqual(start, func(it T) bool {
		k := c.key(it)
		if exclusive && bytes.Equal(k, from) {
			return true
		}
		if c.upper != nil && bytes.Compare(k, c.upper) >= 0 {
			return false
		}
		c.buf = append(c.buf, it)
		return len(c.buf) < n
	})
}

// fillBackward loads up to n items with key < before (every key if before
// is nil) and at or above the lower bound, and positions at the last.
func (c *treeCursor[T]) fillBackward(before []byte, n int) {
	c.buf = c.buf[:0]
	visit := func(it T) bool {
		k := c.key(it)
		if before != nil && bytes.Compare(k, before) >= 0 {
			return true
		}
		if c.lower != nil && bytes.Compare(k, c.lower) < 0 {
			return false
		}
		c.buf = append(c.buf, it)
		return len(c.buf) < n
	}
	if before == nil {
		c.tree.Descend(visit)
	} else {
		c.tree.DescendLessOrEqual(c.pivot(before), visit)
	}
	// Collected newest-key first; the window is kept ascending.
	for i, j := 0, len(c.buf)-1; i < j; i, j = i+1, j-1 {
		c.buf[i], c.buf[j] = c.buf[j], c.buf[i]
	}
	c.pos = len(c.buf) - 1
}
