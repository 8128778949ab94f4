package kv

import (
	"bytes"

	"github.com/cockroachdb/pebble/v2"
)

// A snapshot's range iterators are reused. Building a Pebble iterator
// stack (pebble.Snapshot.NewIter: a merging iterator over the memtables
// and one level iterator per level, then the first seek's table loads)
// was about a third of a short autocommit range read, such as
// "SELECT ... WHERE chat_id = $1 ORDER BY id DESC LIMIT 10" on the
// session's shared snapshot. A closed iterator of the snapshot goes back
// to it instead (up to maxSnapIters idle), and the next NewIter gives it
// new bounds with pebble.Iterator.SetBounds, which keeps the level
// iterators' open tables where they still overlap.
//
// The contract kept (Pebble v2's Iterator.SetBounds):
//   - SetBounds copies the bounds into the iterator's own buffers (two,
//     alternating, so internal iterators may compare old and new), so the
//     caller's slices are free when it returns.
//   - SetBounds invalidates the iterator; it must be positioned again by
//     First, Last, SeekGE or SeekLT. pebbleIter's Next, Prev, Key, Value
//     and Visit check Valid first, which is false until then.
//   - Bounds are never inverted. Pebble clamps a seek key to the bounds
//     (a key under the lower bound becomes the lower bound, one over the
//     upper becomes the upper); with lower > upper a seek past the upper
//     bound lands under the lower one, which is outside every level's
//     bounds (its invariant checks fail: "lower bound violation"), and an
//     iterator left in that state answered wrongly under its next bounds.
//     kv's contract makes such a range empty, so emptyRange turns it into
//     [lower, lower), which Pebble handles, for fresh and reused
//     iterators alike.
//   - An iterator in error is closed, not kept; one iterator is used by
//     one goroutine at a time (it is idle in the list or owned by one
//     pebbleIter), and the snapshot closes the idle ones when it closes.
//     An iterator closed after its snapshot is closed, not kept.
//
// TestSnapshotIterReuseMatchesFresh compares reused iterators with fresh
// ones on random stores and bounds under Pebble's invariant checks
// (-race builds).

// NewIter implements Reader, reusing an idle iterator of the snapshot
// when there is one.
func (s *pebbleSnapshot) NewIter(opts IterOptions) (Iterator, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	opts.UpperBound = emptyRange(opts.LowerBound, opts.UpperBound)
	s.mu.Lock()
	var it *pebble.Iterator
	if n := len(s.mu.ranges); n > 0 {
		it = s.mu.ranges[n-1]
		s.mu.ranges[n-1] = nil
		s.mu.ranges = s.mu.ranges[:n-1]
	}
	s.mu.Unlock()
	if it == nil {
		pi, err := newPebbleIter(s.s, opts)
		if err != nil {
			return nil, err
		}
		pi.home = s
		return pi, nil
	}
	it.SetBounds(opts.LowerBound, opts.UpperBound)
	return &pebbleIter{it: it, lower: cloneBytes(opts.LowerBound), home: s}, nil
}

// keepRange takes back it, a range iterator of s that its user closed,
// for a later NewIter. It reports false when it was not kept (s is
// closed, has enough idle iterators, or it is in error): the caller
// closes it.
func (s *pebbleSnapshot) keepRange(it *pebble.Iterator) bool {
	if it.Error() != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() || len(s.mu.ranges) >= maxSnapIters {
		return false
	}
	s.mu.ranges = append(s.mu.ranges, it)
	return true
}

// emptyRange returns the upper bound to give Pebble for the range
// [lower, upper): upper itself, or lower when the range is inverted
// (lower > upper), which keeps it empty without inverted bounds.
func emptyRange(lower, upper []byte) []byte {
	if lower != nil && upper != nil && bytes.Compare(lower, upper) > 0 {
		return lower
	}
	return upper
}
