package kv

import (
	"bytes"

	"github.com/cockroachdb/pebble/v2"
)

// txnIter merges two sorted sources — the snapshot's iterator and a
// cursor over a clone of the Txn's buffer — into one view, hiding
// snapshot keys covered by the Txn's deleted ranges and keys whose newest
// buffered write is a Delete.
//
// Moving forward, both children sit at or after the current key (each at
// its smallest key >= it); moving backward, at or before it. A change of
// direction re-seeks both children around the current key, which is
// copied into key for that purpose.
type txnIter struct {
	t    *Txn
	snap Iterator
	buf  treeCursor[txnEntry]
	dels spanList

	dir    int // +1 forward, -1 backward, 0 unpositioned or exhausted
	valid  bool
	key    []byte // copy of the current key
	value  []byte // the current value; may alias a child or valBuf
	valBuf []byte
	closed bool
	err    error
	// snapOnly is set when the buffer clone and the deleted ranges were
	// empty at creation: they stay so for the iterator's life, so every
	// move is the snapshot iterator's own (the common read-only scan
	// pays no merging).
	snapOnly bool
	// raw is the Pebble iterator under snap when snapOnly and snap is a
	// Pebble one: Next steps it directly, without the two interface calls
	// and the validity checks of snap's Next, Key and Value on every row
	// of a scan (kv's BenchmarkScanFloor). It is what snap's own methods
	// would call; snap stays the owner (Close, Error).
	raw *pebble.Iterator
}

// fromSnap takes the snapshot iterator's position as the current one.
func (i *txnIter) fromSnap(ok bool) bool {
	i.valid = ok
	if !ok {
		i.dir = 0
		i.err = i.snap.Error()
		return false
	}
	i.key, i.value = i.snap.Key(), i.snap.Value()
	return true
}

var _ Iterator = (*txnIter)(nil)

func (i *txnIter) First() bool {
	if !i.ok() {
		return false
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.First())
	}
	i.snap.First()
	i.buf.first()
	return i.settle(+1)
}

func (i *txnIter) Last() bool {
	if !i.ok() {
		return false
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.Last())
	}
	i.snap.Last()
	i.buf.last()
	return i.settle(-1)
}

func (i *txnIter) SeekGE(key []byte) bool {
	if !i.ok() {
		return false
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.SeekGE(key))
	}
	i.snap.SeekGE(key)
	i.buf.seekGE(key)
	return i.settle(+1)
}

func (i *txnIter) SeekLT(key []byte) bool {
	if !i.ok() {
		return false
	}
	if key == nil {
		key = []byte{} // for the cursor nil means past the end
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.SeekLT(key))
	}
	i.snap.SeekLT(key)
	i.buf.seekLT(key)
	return i.settle(-1)
}

func (i *txnIter) Next() bool {
	if !i.ok() || !i.valid {
		return false
	}
	if i.raw != nil {
		return i.nextRaw()
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.Next())
	}
	if i.dir < 0 {
		// Children sit at or before key; bring them to key or after.
		i.snap.SeekGE(i.key)
		i.buf.seekGE(i.key)
	}
	i.stepChildren(+1)
	return i.settle(+1)
}

func (i *txnIter) Prev() bool {
	if !i.ok() || !i.valid {
		return false
	}
	if i.snapOnly {
		return i.fromSnap(i.snap.Prev())
	}
	if i.dir > 0 {
		// Children sit at or after key; SeekLT puts them strictly
		// before it, which is where Prev wants them.
		i.snap.SeekLT(i.key)
		i.buf.seekLT(i.key)
	} else {
		i.stepChildren(-1)
	}
	return i.settle(-1)
}

// nextRaw is Next of a snapOnly iterator on Pebble (see raw). A value
// Pebble fails to read ends the iteration with the error, where snap's
// Value would read as nil until Error reports it.
func (i *txnIter) nextRaw() bool {
	if !i.raw.Next() {
		return i.fromSnap(false)
	}
	v, err := i.raw.ValueAndErr()
	if err != nil {
		return i.fromSnap(false)
	}
	i.key, i.value = i.raw.Key(), v
	return true
}

// Visit implements Iterator. A snapOnly iterator on Pebble steps the
// Pebble iterator directly (nextRaw); any other through VisitEach.
func (i *txnIter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	if i.raw == nil || i.closed {
		return VisitEach(i, limit, fn)
	}
	i.err = nil
	n := 0
	for n < limit && i.valid {
		if err := fn(i.key, i.value); err != nil {
			return n, err
		}
		n++
		i.nextRaw()
	}
	return n, nil
}

// stepChildren moves each child that sits at the current key one step in
// direction dir.
func (i *txnIter) stepChildren(dir int) {
	atSnap := i.snap.Valid() && bytes.Equal(i.snap.Key(), i.key)
	atBuf := i.buf.valid() && bytes.Equal(i.buf.item().key, i.key)
	if atSnap {
		if dir > 0 {
			i.snap.Next()
		} else {
			i.snap.Prev()
		}
	}
	if atBuf {
		if dir > 0 {
			i.buf.next()
		} else {
			i.buf.prev()
		}
	}
}

// settle makes the nearer child key in direction dir the current key,
// skipping keys that resolve to absent. It leaves the children in place
// (stepChildren moves them on the next call).
func (i *txnIter) settle(dir int) bool {
	i.dir = dir
	i.valid = false
	for {
		sv, bv := i.snap.Valid(), i.buf.valid()
		if !sv {
			if err := i.snap.Error(); err != nil {
				i.err = err
				return false
			}
		}
		if !sv && !bv {
			i.dir = 0
			return false
		}
		var c int // <0: snapshot key comes first in direction dir
		switch {
		case !bv:
			c = -1
		case !sv:
			c = 1
		default:
			c = bytes.Compare(i.snap.Key(), i.buf.item().key) * dir
		}
		if c < 0 {
			// A snapshot key with no buffered write.
			k := i.snap.Key()
			if !i.dels.covers(k) {
				i.key = append(i.key[:0], k...)
				i.value = i.snap.Value()
				i.valid = true
				return true
			}
			i.moveSnap(dir)
			continue
		}
		ent := i.buf.item()
		var base []byte
		if c == 0 && ent.kind == opMerge && !i.dels.covers(ent.key) {
			base = i.snap.Value()
		}
		if ent.kind != opDelete {
			i.key = append(i.key[:0], ent.key...)
			if ent.kind == opMerge && len(base) > 0 {
				i.valBuf = append(append(i.valBuf[:0], base...), ent.value...)
				i.value = i.valBuf
			} else {
				i.value = ent.value
			}
			i.valid = true
			return true
		}
		// A buffered Delete hides this key in both children.
		if c == 0 {
			i.moveSnap(dir)
		}
		if dir > 0 {
			i.buf.next()
		} else {
			i.buf.prev()
		}
	}
}

func (i *txnIter) moveSnap(dir int) {
	if dir > 0 {
		i.snap.Next()
	} else {
		i.snap.Prev()
	}
}

// ok reports whether the iterator can be positioned.
func (i *txnIter) ok() bool {
	if i.closed {
		return false
	}
	i.err = nil
	return true
}

func (i *txnIter) Valid() bool { return !i.closed && i.valid }

func (i *txnIter) Key() []byte {
	if !i.Valid() {
		return nil
	}
	return i.key
}

func (i *txnIter) Value() []byte {
	if !i.Valid() {
		return nil
	}
	return i.value
}

func (i *txnIter) Error() error {
	if i.closed {
		return ErrClosed
	}
	return i.err
}

func (i *txnIter) Close() error {
	if i.closed {
		return ErrClosed
	}
	i.closed = true
	i.valid = false
	delete(i.t.iters, i)
	i.buf.invalidate()
	i.buf.tree = nil
	return i.snap.Close()
}
