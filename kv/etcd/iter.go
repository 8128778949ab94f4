package etcd

import (
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kvsql/kvsql/kv"
)

// Page sizes of an iterator: the first page is small (a point lookup by
// SeekGE reads one key), later ones grow to maxPage as a scan goes on.
const (
	firstPage = 16
	maxPage   = 1024
)

// iter is a kv.Iterator over one revision. It holds one page: a run of
// consecutive keys of the range, fetched forward (ascending, from a key)
// or backward (descending, below a key) with WithRange, WithLimit and
// WithRev, and kept in ascending order. Moving inside the page costs
// nothing; moving past either end fetches the next page that way.
type iter struct {
	e        *Engine
	rev      int64
	lo, hi   []byte // bounds; hi nil is unbounded
	page     []kvPair
	pos      int
	valid    bool
	atEnd    bool // the page reaches hi: no key follows its last
	atStart  bool // the page reaches lo: no key precedes its first
	pageSize int64
	err      error
	closed   bool
	release  func()
}

var _ kv.Iterator = (*iter)(nil)

func newIter(e *Engine, rev int64, opts kv.IterOptions, release func()) *iter {
	it := &iter{e: e, rev: rev, pageSize: firstPage, release: release}
	if opts.LowerBound != nil {
		it.lo = clone(opts.LowerBound)
	}
	if opts.UpperBound != nil {
		it.hi = clone(opts.UpperBound)
	}
	return it
}

// grow doubles the page size up to maxPage.
func (it *iter) grow() { it.pageSize = min(it.pageSize*2, maxPage) }

// fetchForward loads the page of keys >= from (clamped to the bounds).
func (it *iter) fetchForward(from []byte) bool {
	if it.closed {
		it.err = kv.ErrClosed
		return it.invalidate()
	}
	if string(from) < string(it.lo) {
		from = it.lo
	}
	if it.hi != nil && string(from) >= string(it.hi) {
		return it.invalidate()
	}
	a, err := it.e.readPage(it.rev, readKey{from: it.e.key(from), end: it.e.end(it.hi), limit: it.pageSize})
	if err != nil {
		it.err = err
		return it.invalidate()
	}
	it.grow()
	it.page = a.page
	it.atEnd, it.atStart = !a.more, false
	it.pos = 0
	it.valid = len(it.page) > 0
	return it.valid
}

// fetchBackward loads the page of keys < before (nil: the upper bound),
// clamped to the bounds.
func (it *iter) fetchBackward(before []byte) bool {
	if it.closed {
		it.err = kv.ErrClosed
		return it.invalidate()
	}
	if before == nil || (it.hi != nil && string(before) > string(it.hi)) {
		before = it.hi
	}
	if before != nil && string(before) <= string(it.lo) {
		return it.invalidate()
	}
	a, err := it.e.readPage(it.rev, readKey{from: it.e.key(it.lo), end: it.e.end(before), limit: it.pageSize, desc: true})
	if err != nil {
		it.err = err
		return it.invalidate()
	}
	it.grow()
	n := len(a.page)
	it.page = a.page
	it.atStart, it.atEnd = !a.more, false
	it.pos = n - 1
	it.valid = n > 0
	return it.valid
}

// readPage answers one page read at rev, from the read cache or from the
// cluster; the page is in ascending key order whatever the direction.
func (e *Engine) readPage(rev int64, k readKey) (readAnswer, error) {
	if a, ok := e.cache.get(rev, k); ok {
		return a, nil
	}
	opts := []clientv3.OpOption{clientv3.WithRange(k.end), clientv3.WithLimit(k.limit)}
	if k.desc {
		opts = append(opts, clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend))
	}
	resp, err := e.rangeAt(rev, k.from, opts...)
	if err != nil {
		return readAnswer{}, err
	}
	a := readAnswer{page: make([]kvPair, len(resp.Kvs)), more: resp.More}
	for i, kv := range resp.Kvs {
		j := i
		if k.desc {
			j = len(resp.Kvs) - 1 - i
		}
		// Capped: an append by one reader of a shared page must not
		// write into what follows.
		a.page[j] = kvPair{kv.Key[len(e.data):len(kv.Key):len(kv.Key)], kv.Value[:len(kv.Value):len(kv.Value)]}
	}
	e.cache.put(rev, k, a)
	return a, nil
}

func (it *iter) invalidate() bool {
	it.valid, it.page = false, nil
	return false
}

func (it *iter) reset() {
	it.err = nil
	it.pageSize = firstPage
}

// First implements kv.Iterator.
func (it *iter) First() bool {
	it.reset()
	return it.fetchForward(it.lo)
}

// Last implements kv.Iterator.
func (it *iter) Last() bool {
	it.reset()
	return it.fetchBackward(nil)
}

// SeekGE implements kv.Iterator.
func (it *iter) SeekGE(key []byte) bool {
	it.reset()
	return it.fetchForward(key)
}

// SeekLT implements kv.Iterator.
func (it *iter) SeekLT(key []byte) bool {
	it.reset()
	if it.hi != nil && string(key) > string(it.hi) {
		key = it.hi
	}
	return it.fetchBackward(clone(key))
}

// Next implements kv.Iterator.
func (it *iter) Next() bool {
	if !it.valid || it.closed {
		return it.invalidate()
	}
	if it.pos+1 < len(it.page) {
		it.pos++
		return true
	}
	if it.atEnd {
		return it.invalidate()
	}
	after := append(clone(it.page[it.pos].key), 0)
	return it.fetchForward(after)
}

// Prev implements kv.Iterator.
func (it *iter) Prev() bool {
	if !it.valid || it.closed {
		return it.invalidate()
	}
	if it.pos > 0 {
		it.pos--
		return true
	}
	if it.atStart {
		return it.invalidate()
	}
	return it.fetchBackward(clone(it.page[it.pos].key))
}

// Valid implements kv.Iterator.
func (it *iter) Valid() bool { return it.valid }

// Key implements kv.Iterator.
func (it *iter) Key() []byte {
	if !it.valid {
		return nil
	}
	return it.page[it.pos].key
}

// Value implements kv.Iterator. A present empty value is non-nil.
func (it *iter) Value() []byte {
	if !it.valid {
		return nil
	}
	if v := it.page[it.pos].value; v != nil {
		return v
	}
	return []byte{}
}

// Error implements kv.Iterator.
func (it *iter) Error() error { return it.err }

// Close implements kv.Iterator.
// Visit implements kv.Iterator.
func (it *iter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	return kv.VisitEach(it, limit, fn)
}

func (it *iter) Close() error {
	if it.closed {
		return kv.ErrClosed
	}
	it.closed = true
	it.valid, it.page = false, nil
	it.release()
	return nil
}
