package kv

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"
)

// pebbleIter adapts *pebble.Iterator to Iterator. Pebble's own Next after
// the iterator ran off the front restarts at the first key; the contract
// here is that Next and Prev on an invalid iterator return false, so both
// check validity first.
type pebbleIter struct {
	it     *pebble.Iterator
	closed bool
	// lower is the lower bound and seek the last seek key (a reused
	// buffer, valid when sought): what a corruption error names as read.
	lower, seek []byte
	sought      bool
	// home is the snapshot that takes the Pebble iterator back on Close
	// for its next NewIter (pebble_snapiter.go); nil: Close closes it.
	home *pebbleSnapshot
}

var _ Iterator = (*pebbleIter)(nil)

func newPebbleIter(r pebble.Reader, opts IterOptions) (*pebbleIter, error) {
	// Pebble keeps the bound slices for the iterator's life; copy them so
	// the caller may reuse theirs.
	lower := cloneBytes(opts.LowerBound)
	it, err := r.NewIter(&pebble.IterOptions{
		LowerBound: lower,
		UpperBound: cloneBytes(opts.UpperBound),
	})
	if err != nil {
		return nil, fmt.Errorf("kv: new iterator: %w", corruptionError(err, lower))
	}
	return &pebbleIter{it: it, lower: lower}, nil
}

func (i *pebbleIter) First() bool {
	i.sought = false
	return !i.closed && i.it.First()
}

func (i *pebbleIter) Last() bool {
	i.sought = false
	return !i.closed && i.it.Last()
}

func (i *pebbleIter) SeekGE(key []byte) bool {
	i.seek, i.sought = append(i.seek[:0], key...), true
	return !i.closed && i.it.SeekGE(key)
}

func (i *pebbleIter) SeekLT(key []byte) bool {
	i.seek, i.sought = append(i.seek[:0], key...), true
	return !i.closed && i.it.SeekLT(key)
}

func (i *pebbleIter) Next() bool {
	return !i.closed && i.it.Valid() && i.it.Next()
}

func (i *pebbleIter) Prev() bool {
	return !i.closed && i.it.Valid() && i.it.Prev()
}

func (i *pebbleIter) Valid() bool {
	return !i.closed && i.it.Valid()
}

func (i *pebbleIter) Key() []byte {
	if !i.Valid() {
		return nil
	}
	return i.it.Key()
}

// Value returns the current value. A value Pebble fails to read (an I/O
// error on a separated value) reads as nil and the error is reported by
// Error.
func (i *pebbleIter) Value() []byte {
	if !i.Valid() {
		return nil
	}
	v, err := i.it.ValueAndErr()
	if err != nil {
		return nil
	}
	return v
}

// Visit implements Iterator, stepping Pebble's iterator directly. A value
// Pebble fails to read stops the visit; Error reports it.
func (i *pebbleIter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	if i.closed {
		return 0, nil
	}
	it, n := i.it, 0
	for ok := it.Valid(); ok && n < limit; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return n, nil
		}
		if err := fn(it.Key(), v); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func (i *pebbleIter) Error() error {
	if i.closed {
		return ErrClosed
	}
	if err := i.it.Error(); err != nil {
		read := i.lower
		if i.sought {
			read = i.seek
		}
		return fmt.Errorf("kv: iterate: %w", corruptionError(err, read))
	}
	if i.it.Valid() {
		if _, err := i.it.ValueAndErr(); err != nil {
			return fmt.Errorf("kv: iterate: %w", corruptionError(err, i.it.Key()))
		}
	}
	return nil
}

func (i *pebbleIter) Close() error {
	if i.closed {
		return ErrClosed
	}
	i.closed = true
	if i.home != nil && i.home.keepRange(i.it) {
		return nil
	}
	if err := i.it.Close(); err != nil {
		return fmt.Errorf("kv: close iterator: %w", err)
	}
	return nil
}

// concatMerger is the Pebble merger behind Merge: byte concatenation of
// operands, oldest first, onto the base value. Its name is stored in the
// store's OPTIONS file; changing it makes existing stores unopenable.
var concatMerger = &pebble.Merger{
	Name: "kvsql.concat",
	Merge: func(_, value []byte) (pebble.ValueMerger, error) {
		m := &concatValueMerger{}
		m.newer = append(m.newer, value...)
		return m, nil
	},
}

// concatValueMerger accumulates operands. Pebble feeds them either all
// newest-to-oldest (MergeOlder, during reads) or all oldest-to-newest
// (MergeNewer); older operands are kept in a list and joined once in
// Finish to avoid re-copying the value on every prepend.
type concatValueMerger struct {
	newer []byte   // the first operand followed by every MergeNewer operand
	older [][]byte // MergeOlder operands, newest first
}

var _ pebble.ValueMerger = (*concatValueMerger)(nil)

func (m *concatValueMerger) MergeNewer(value []byte) error {
	m.newer = append(m.newer, value...)
	return nil
}

func (m *concatValueMerger) MergeOlder(value []byte) error {
	m.older = append(m.older, cloneBytes(value))
	return nil
}

func (m *concatValueMerger) Finish(bool) ([]byte, io.Closer, error) {
	if len(m.older) == 0 {
		return m.newer, nil, nil
	}
	n := len(m.newer)
	for _, o := range m.older {
		n += len(o)
	}
	out := make([]byte, 0, n)
	for j := len(m.older) - 1; j >= 0; j-- {
		out = append(out, m.older[j]...)
	}
	out = append(out, m.newer...)
	return out, nil, nil
}

// cloneBytes returns a copy of b, preserving nil.
func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// rangeNonEmpty reports whether [start, end) holds any key.
func rangeNonEmpty(start, end []byte) bool {
	return bytes.Compare(start, end) < 0
}
