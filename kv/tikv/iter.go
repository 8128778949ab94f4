package tikv

import (
	"bytes"

	"github.com/kvsql/kvsql/kv"
)

// Scan batch sizes: a seek asks TiKV for a few pairs (point lookups
// through an iterator are common); an iterator that keeps moving the same
// way reopens its scan with big batches (it is probably a scan).
const (
	seekBatch = 16
	scanBatch = 1024
)

// scanner is what client-go's KVSnapshot.Iter and IterReverse return.
type scanner interface {
	Valid() bool
	Key() []byte
	Value() []byte
	Next() error
	Close()
}

// iter is kv.Iterator over one TiKV timestamp. client-go's scanners go
// one way only (Iter forward from a key to an upper bound, IterReverse
// backward from a key with no lower bound), so the iterator keeps one
// scanner for its current direction and opens another when it turns or
// seeks. Every scanner reads the same timestamp, so a turn sees exactly
// the keys the other direction saw.
type iter struct {
	e  *Engine
	ts uint64
	// lo and hi are the encoded bounds: [lo, hi).
	lo, hi []byte

	sc      scanner
	reverse bool // sc goes backward
	steps   int  // moves made on sc
	batch   int  // sc's batch size

	key, value []byte // the current pair, sharing the scanner's memory
	valid      bool
	err        error
	closed     bool
}

func (e *Engine) newIter(ts uint64, opts kv.IterOptions) *iter {
	return &iter{e: e, ts: ts, lo: e.bound(opts.LowerBound, false), hi: e.bound(opts.UpperBound, true)}
}

// open replaces the scanner: forward from the encoded key from
// (inclusive) to hi, or backward from before from.
func (it *iter) open(reverse bool, from []byte, batch int) bool {
	it.closeScanner()
	snap := it.e.store.GetSnapshot(it.ts)
	snap.SetScanBatchSize(batch)
	var err error
	if reverse {
		it.sc, err = snap.IterReverse(from)
	} else {
		it.sc, err = snap.Iter(from, it.hi)
	}
	if err != nil {
		return it.fail(err)
	}
	it.reverse, it.steps, it.batch = reverse, 0, batch
	return it.settle()
}

// settle reads the scanner's position into key and value.
func (it *iter) settle() bool {
	it.valid = false
	if !it.sc.Valid() {
		return false
	}
	k := it.sc.Key()
	if bytes.Compare(k, it.lo) < 0 || bytes.Compare(k, it.hi) >= 0 {
		return false // only a reverse scan can leave the bounds, at lo
	}
	v, err := decodeValue(it.sc.Value())
	if err != nil {
		return it.fail(err)
	}
	it.key, it.value, it.valid = k[len(it.e.prefix):], v, true
	return true
}

func (it *iter) fail(err error) bool {
	it.valid = false
	it.err = err
	return false
}

func (it *iter) closeScanner() {
	if it.sc != nil {
		it.sc.Close()
		it.sc = nil
	}
	it.valid = false
}

// seekGE positions at the first key >= the encoded key k.
func (it *iter) seekGE(k []byte) bool {
	if it.closed {
		return false
	}
	it.err = nil
	if bytes.Compare(k, it.lo) < 0 {
		k = it.lo
	}
	if bytes.Compare(k, it.hi) >= 0 {
		it.closeScanner()
		return false
	}
	return it.open(false, k, seekBatch)
}

// seekLT positions at the last key < the encoded key k.
func (it *iter) seekLT(k []byte) bool {
	if it.closed {
		return false
	}
	it.err = nil
	if bytes.Compare(k, it.hi) > 0 {
		k = it.hi
	}
	if bytes.Compare(k, it.lo) <= 0 {
		it.closeScanner()
		return false
	}
	return it.open(true, k, seekBatch)
}

// First implements kv.Iterator.
func (it *iter) First() bool { return it.seekGE(it.lo) }

// Last implements kv.Iterator.
func (it *iter) Last() bool { return it.seekLT(it.hi) }

// SeekGE implements kv.Iterator.
func (it *iter) SeekGE(key []byte) bool { return it.seekGE(it.e.encodeKey(key)) }

// SeekLT implements kv.Iterator.
func (it *iter) SeekLT(key []byte) bool { return it.seekLT(it.e.encodeKey(key)) }

// Next implements kv.Iterator.
func (it *iter) Next() bool { return it.move(false) }

// Prev implements kv.Iterator.
func (it *iter) Prev() bool { return it.move(true) }

// move steps one key backward or forward. A turn, or a scan that has
// used up its first small batch, reopens the scanner next to the current
// key.
func (it *iter) move(backward bool) bool {
	if it.closed || !it.valid {
		return false
	}
	it.steps++
	if it.reverse != backward || (it.steps >= it.batch && it.batch < scanBatch) {
		batch := scanBatch
		if it.reverse != backward {
			batch = seekBatch
		}
		cur := it.e.encodeKey(it.key)
		if backward {
			return it.open(true, cur, batch)
		}
		return it.open(false, append(cur, 0), batch) // the first key after cur
	}
	if err := it.sc.Next(); err != nil {
		return it.fail(err)
	}
	return it.settle()
}

// Valid implements kv.Iterator.
func (it *iter) Valid() bool { return !it.closed && it.valid }

// Key implements kv.Iterator.
func (it *iter) Key() []byte {
	if !it.Valid() {
		return nil
	}
	return it.key
}

// Value implements kv.Iterator.
func (it *iter) Value() []byte {
	if !it.Valid() {
		return nil
	}
	return it.value
}

// Error implements kv.Iterator.
func (it *iter) Error() error {
	if it.closed {
		return kv.ErrClosed
	}
	return it.err
}

// Close implements kv.Iterator.
// Visit implements kv.Iterator.
func (it *iter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	return kv.VisitEach(it, limit, fn)
}

func (it *iter) Close() error {
	if it.closed {
		return kv.ErrClosed
	}
	it.closeScanner()
	it.closed = true
	return nil
}
