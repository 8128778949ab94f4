package foreign

import (
	"bytes"
	"sort"
)

// Overlay is a transaction's view of an application's store: the
// writes of its statements are buffered here, in order, and reads see
// them merged over the store's keys (read-your-writes); nothing reaches
// the store until Commit applies them as one batch, which LevelDB and
// Pebble apply atomically. ROLLBACK drops the overlay; ROLLBACK TO
// SAVEPOINT truncates it to the Mark taken at the savepoint.
//
// An Overlay is used by one session at a time and is not safe for
// concurrent use. Its base store is not closed by Close.
type Overlay struct {
	base Store
	log  []KV          // the buffered writes, in order
	last map[string]KV // per key, its last write in log
}

var _ Store = (*Overlay)(nil)

// NewOverlay returns an empty overlay over base.
func NewOverlay(base Store) *Overlay {
	return &Overlay{base: base, last: map[string]KV{}}
}

// Empty reports whether no write is buffered.
func (o *Overlay) Empty() bool { return len(o.log) == 0 }

// Mark returns a point RollbackTo can return to.
func (o *Overlay) Mark() int { return len(o.log) }

// RollbackTo drops the writes buffered since mark.
func (o *Overlay) RollbackTo(mark int) {
	if mark >= len(o.log) {
		return
	}
	o.log = o.log[:mark]
	o.last = make(map[string]KV, len(o.log))
	for _, kv := range o.log {
		o.last[string(kv.Key)] = kv
	}
}

// Write buffers ops (Store's Write: applied in order, all or none — a
// buffer cannot fail).
func (o *Overlay) Write(ops []KV) error {
	for _, kv := range ops {
		kv = KV{Key: append([]byte{}, kv.Key...), Value: append([]byte{}, kv.Value...), Delete: kv.Delete}
		o.log = append(o.log, kv)
		o.last[string(kv.Key)] = kv
	}
	return nil
}

// Commit applies the buffered writes to the base store as one batch:
// the last write of each key, in key order. The overlay is empty
// afterwards whatever the outcome.
func (o *Overlay) Commit() error {
	if len(o.log) == 0 {
		return nil
	}
	ops := o.sorted(nil, nil)
	o.RollbackTo(0)
	return o.base.Write(ops)
}

// sorted returns the last write of each key in [lo, hi) (nil hi:
// unbounded), in key order.
func (o *Overlay) sorted(lo, hi []byte) []KV {
	out := make([]KV, 0, len(o.last))
	for _, kv := range o.last {
		if bytes.Compare(kv.Key, lo) >= 0 && (hi == nil || bytes.Compare(kv.Key, hi) < 0) {
			out = append(out, kv)
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Key, out[j].Key) < 0 })
	return out
}

// Get returns the buffered value of key, or the store's.
func (o *Overlay) Get(key []byte) ([]byte, bool, error) {
	if kv, ok := o.last[string(key)]; ok {
		if kv.Delete {
			return nil, false, nil
		}
		return append([]byte{}, kv.Value...), true, nil
	}
	return o.base.Get(key)
}

// NewIter merges the buffered writes in [lo, hi), as they are now, over
// an iterator of the store: a buffered key hides the store's, a
// buffered delete hides it altogether.
func (o *Overlay) NewIter(lo, hi []byte) (Iter, error) {
	it, err := o.base.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	return &mergeIter{base: it, buf: o.sorted(lo, hi)}, nil
}

// Close does nothing: the base store is not the overlay's to close.
func (o *Overlay) Close() error { return nil }

// mergeIter walks base and buf (sorted, unique keys) together.
type mergeIter struct {
	base    Iter
	baseOK  bool
	buf     []KV
	bi      int
	fromBuf bool // the current entry is buf[bi]
	key     []byte
	value   []byte
}

func (m *mergeIter) First() bool {
	m.baseOK = m.base.First()
	m.bi = 0
	return m.settle()
}

func (m *mergeIter) Next() bool {
	if m.fromBuf {
		// A buffered key equal to the store's current one hid it: step
		// both past it.
		if m.baseOK && bytes.Equal(m.base.Key(), m.buf[m.bi].Key) {
			m.baseOK = m.base.Next()
		}
		m.bi++
	} else {
		m.baseOK = m.base.Next()
	}
	return m.settle()
}

// settle positions on the smaller of the two heads, skipping buffered
// deletes (and the store keys they hide).
func (m *mergeIter) settle() bool {
	for {
		haveBuf := m.bi < len(m.buf)
		switch {
		case !haveBuf && !m.baseOK:
			m.key, m.value = nil, nil
			return false
		case haveBuf && (!m.baseOK || bytes.Compare(m.buf[m.bi].Key, m.base.Key()) <= 0):
			kv := m.buf[m.bi]
			if kv.Delete {
				if m.baseOK && bytes.Equal(m.base.Key(), kv.Key) {
					m.baseOK = m.base.Next()
				}
				m.bi++
				continue
			}
			m.fromBuf, m.key, m.value = true, kv.Key, kv.Value
			return true
		default:
			m.fromBuf, m.key, m.value = false, m.base.Key(), m.base.Value()
			return true
		}
	}
}

func (m *mergeIter) Key() []byte   { return m.key }
func (m *mergeIter) Value() []byte { return m.value }
func (m *mergeIter) Error() error  { return m.base.Error() }
func (m *mergeIter) Close() error  { return m.base.Close() }
