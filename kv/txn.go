package kv

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/google/btree"
)

// Txn is a transaction overlay over any Engine: reads see a snapshot taken
// by NewTxn with the Txn's own writes laid over it (read-your-writes), and
// writes are buffered in memory until Commit applies them as one Batch.
//
// Reads resolve a key in this order: the newest buffered write of the key
// (Set: its value; Delete: absent; Merge: the operands appended to what is
// below), else absent if a buffered DeleteRange covers the key, else the
// snapshot's value.
//
// Txn records what it reads (ReadSet) and writes (WriteSet) for a future
// commit-time serializability check; it does no conflict detection
// itself: Commit always applies the writes (last writer wins). The keys
// SetIfNew checks are read as well, but are kept as a mark on their
// buffered writes rather than as spans (txn_reads.go).
//
// A Txn is not safe for concurrent use. After Commit or Rollback every
// method returns ErrClosed, and its open iterators are closed.
type Txn struct {
	e    Engine
	snap Snapshot

	// buf holds the newest buffered point write of each key. Entries are
	// never modified once inserted (a write replaces the entry), so
	// iterators can read a Clone of buf while the Txn keeps writing.
	buf *btree.BTreeG[txnEntry]
	// tail is an ascending run of SetIfNew writes kept out of buf: a new
	// key just above the tail's last one, with no key of buf in between,
	// is appended here, which costs neither a duplicate lookup nor a
	// B-tree insert (a bulk load inserts its master keys in ascending
	// order; its other writes go to buf). Invariants: tail is strictly
	// ascending; no key is in both buf and tail; when hasNext, next is at
	// most the smallest key of buf above the tail's last one, and when
	// !hasNext buf has no key above it (so next may be stale low after a
	// removal, refusing appends that would be safe, never high). The tail
	// is never shared: View, NewIter and DeleteRange first move it into
	// buf (spill), so frozen buffers are B-trees only.
	tail    []txnEntry
	next    []byte
	hasNext bool
	// noTail: every write goes to buf (the differential test's reference).
	noTail bool
	// dels are the ranges deleted by this Txn. Invariant: no entry of buf
	// older than a DeleteRange lies inside it (DeleteRange drops them), so
	// an entry inside a deleted range is always newer than the deletion.
	dels spanList

	undo []undoRecord
	// ranges holds the undo data of each DeleteRange still in undo, in
	// order (each undoRange record owns the next one).
	ranges []rangeUndo
	reads  []KeySpan
	iters  map[*txnIter]struct{}
	done   bool
	// noReads: reads are not recorded (DiscardReads).
	noReads bool
	// marked: some entry of buf or tail may carry a read mark
	// (txn_reads.go).
	marked bool
	// slab is the block SetIfNew cuts keys and values from (cut).
	slab []byte
	// spare is the empty write buffer of an ended Txn, which Reopen
	// reuses.
	spare *btree.BTreeG[txnEntry]
	// size is the bytes (keys and values) of the point writes buffered so
	// far, writes undone by RollbackTo included: Commit's estimate of the
	// buffer's size against IngestThreshold.
	size int64
}

var _ ReadWriter = (*Txn)(nil)

// txnEntry is one buffered point write. kind is opSet, opDelete or
// opMerge; for opMerge, value is the concatenation of the operands.
type txnEntry struct {
	key  []byte
	kind opKind
	// read: SetIfNew wrote the entry, so key is also in the read set
	// (txn_reads.go). Only a SetIfNew entry has it.
	read  bool
	value []byte
}

func txnEntryLess(a, b txnEntry) bool { return bytes.Compare(a.key, b.key) < 0 }

func txnEntryKey(e txnEntry) []byte { return e.key }

func txnPivot(k []byte) txnEntry { return txnEntry{key: k} }

// undoRecord reverses one write: it is kept for every buffered write, so
// it is small (56 bytes; a bulk load keeps one per key). A point write
// restores the entry it replaced (what == undoRestore: key, kind, value)
// or removes key (undoRemove); a DeleteRange (undoRange) pops the top of
// Txn.ranges, which re-inserts the entries it dropped and restores the
// previous deleted-range list.
type undoRecord struct {
	key   []byte
	value []byte
	kind  opKind
	what  undoKind
}

type undoKind uint8

const (
	undoRemove undoKind = iota
	undoRestore
	undoRange
)

// undoPoint returns the record that reverses a point write of key that
// replaced prev (had: there was one).
func undoPoint(key []byte, prev txnEntry, had bool) undoRecord {
	if !had {
		return undoRecord{key: key, what: undoRemove}
	}
	return undoRecord{key: prev.key, value: prev.value, kind: prev.kind, what: undoRestore}
}

// rangeUndo is what reverses one DeleteRange.
type rangeUndo struct {
	dropped  []txnEntry
	prevDels spanList
}

// NewTxn starts a transaction over e, reading from a snapshot of e's
// current state.
func NewTxn(e Engine) *Txn {
	return NewTxnOn(e, e.NewSnapshot())
}

// NewTxnOn starts a transaction over e that reads from snap, which must
// be a snapshot of e (it may be shared with other readers: a Snapshot is
// safe for concurrent use). The Txn takes snap over: it closes snap when
// it ends or moves to another snapshot (Refresh), so a shared snapshot
// must count its users in Close.
func NewTxnOn(e Engine, snap Snapshot) *Txn {
	return &Txn{
		e:    e,
		snap: snap,
		buf:  btree.NewWithFreeListG(btreeDegree, txnEntryLess, txnFreeList),
	}
}

// txnFreeList recycles the buffer nodes of every Txn (a FreeListG is safe
// for concurrent use). A Txn of its own would allocate a fresh free list
// each time: a third of the bytes a short read-only Txn allocates.
var txnFreeList = btree.NewFreeListG[txnEntry](btree.DefaultFreeListSize)

// ErrItersOpen is returned by Refresh while an iterator of the Txn is
// open: an open iterator reads the old snapshot, so moving would mix two
// states in one statement.
var ErrItersOpen = errors.New("kv: refresh with open iterators")

// Refresh moves the Txn onto snap, a newer snapshot of the same engine,
// keeping its buffered writes, savepoints and read set: from now on reads
// see snap with the Txn's writes laid over it. The old snapshot is
// closed and snap is taken over as by NewTxnOn.
//
// Refresh checks nothing: the caller must know that every span of the
// read set holds the same data in snap as in the old snapshot (no commit
// between the two wrote into it), so the reads made so far are also the
// reads the Txn would make now. On error (the Txn is ended, or
// ErrItersOpen) the Txn is unchanged and snap is closed.
func (t *Txn) Refresh(snap Snapshot) error {
	if t.done {
		_ = snap.Close()
		return ErrClosed
	}
	if len(t.iters) > 0 {
		_ = snap.Close()
		return ErrItersOpen
	}
	old := t.snap
	t.snap = snap
	_ = old.Close() // a snapshot's Close has nothing to report that matters here
	return nil
}

// OpenIters returns the number of the Txn's iterators not yet closed
// (Refresh needs none).
func (t *Txn) OpenIters() int { return len(t.iters) }

// Get implements Reader, seeing the Txn's own writes. The key is added to
// the read set.
func (t *Txn) Get(key []byte) ([]byte, error) { return t.get(t.buf, t.tail, t.dels, key) }

// get is Get over a given buffer, tail and deleted ranges: the Txn's own,
// or a TxnView's frozen copies (with no tail).
func (t *Txn) get(buf *btree.BTreeG[txnEntry], tail []txnEntry, dels spanList, key []byte) ([]byte, error) {
	if t.done {
		return nil, ErrClosed
	}
	if !t.noReads {
		t.reads = append(t.reads, pointSpan(key))
	}
	ent, ok := lookup(buf, tail, key)
	if !ok {
		if dels.covers(key) {
			return nil, ErrNotFound
		}
		return t.snap.Get(key)
	}
	switch ent.kind {
	case opSet:
		return copyValue(ent.value), nil
	case opDelete:
		return nil, ErrNotFound
	default: // opMerge
		var base []byte
		var err error
		if !dels.covers(key) {
			base, err = t.snap.Get(key)
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		return append(append(make([]byte, 0, len(base)+len(ent.value)), base...), ent.value...), nil
	}
}

// NewIter implements Reader. The iterator merges the snapshot with the
// Txn's writes as they are at NewIter; later writes of the Txn are not
// seen by it. The bounds are added to the read set.
func (t *Txn) NewIter(opts IterOptions) (Iterator, error) {
	if t.done {
		return nil, ErrClosed
	}
	t.spill()
	return t.newIter(t.buf, t.dels, opts)
}

// newIter is NewIter over a given buffer and deleted ranges (see get).
func (t *Txn) newIter(buf *btree.BTreeG[txnEntry], dels spanList, opts IterOptions) (Iterator, error) {
	if t.done {
		return nil, ErrClosed
	}
	lower, upper := cloneBytes(opts.LowerBound), cloneBytes(opts.UpperBound)
	if !t.noReads {
		t.reads = append(t.reads, KeySpan{Start: lower, End: upper})
	}
	si, err := t.snap.NewIter(IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	var tree *btree.BTreeG[txnEntry]
	if buf != nil {
		tree = buf.Clone()
	} else { // a view of an empty buffer (View)
		tree = btree.NewWithFreeListG(btreeDegree, txnEntryLess, txnFreeList)
	}
	it := &txnIter{
		t:    t,
		snap: si,
		buf: treeCursor[txnEntry]{
			tree:  tree,
			key:   txnEntryKey,
			pivot: txnPivot,
			lower: lower,
			upper: upper,
			pos:   -1,
		},
		dels: dels,
	}
	it.snapOnly = it.buf.tree.Len() == 0 && len(it.dels) == 0
	if pi, ok := si.(*pebbleIter); ok && it.snapOnly {
		it.raw = pi.it
	}
	if t.iters == nil {
		t.iters = make(map[*txnIter]struct{})
	}
	t.iters[it] = struct{}{}
	return it, nil
}

// Set implements Writer.
func (t *Txn) Set(key, value []byte) error {
	return t.put(txnEntry{key: cloneKey(key), kind: opSet, value: copyValue(value)})
}

// Delete implements Writer.
func (t *Txn) Delete(key []byte) error {
	return t.put(txnEntry{key: cloneKey(key), kind: opDelete})
}

// Merge implements Writer. Merging onto a buffered Set or Delete becomes a
// Set of the result; merging onto a buffered Merge concatenates the
// operands (concatenation is associative, so one Merge of both operands
// equals two Merges).
func (t *Txn) Merge(key, operand []byte) error {
	if t.done {
		return ErrClosed
	}
	ent := txnEntry{key: cloneKey(key), kind: opMerge, value: copyValue(operand)}
	if prev, ok := lookup(t.buf, t.tail, key); ok {
		// New slices only: prev may be shared with iterators and undo.
		switch prev.kind {
		case opSet, opMerge:
			ent.kind = prev.kind
			ent.value = append(append(make([]byte, 0, len(prev.value)+len(operand)), prev.value...), operand...)
		case opDelete:
			ent.kind = opSet
		}
	}
	return t.put(ent)
}

// put buffers a point write and records how to undo it.
func (t *Txn) put(ent txnEntry) error {
	if t.done {
		return ErrClosed
	}
	prev, had := t.insert(ent)
	t.keepRead(prev)
	t.undo = append(grow(t.undo), undoPoint(ent.key, prev, had))
	t.size += int64(len(ent.key) + len(ent.value))
	return nil
}

// lookup finds key's buffered write in buf or tail.
func lookup(buf *btree.BTreeG[txnEntry], tail []txnEntry, key []byte) (txnEntry, bool) {
	if i, ok := tailFind(tail, key); ok {
		return tail[i], true
	}
	if buf == nil { // a view of an empty buffer (View)
		return txnEntry{}, false
	}
	return buf.Get(txnPivot(key))
}

// grow makes room for one more element in s, doubling a full one:
// append grows large slices by a quarter, so the undo log and the tail
// of a bulk load were copied over and over.
func grow[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 64))
}

// tailFind returns the index of key in tail, if it is there.
func tailFind(tail []txnEntry, key []byte) (int, bool) {
	n := len(tail)
	if n == 0 || bytes.Compare(key, tail[0].key) < 0 || bytes.Compare(key, tail[n-1].key) > 0 {
		return 0, false
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(tail[m].key, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n && bytes.Equal(tail[lo].key, key)
}

// appendable reports whether key may be appended to a non-empty tail:
// it is above the tail's last key and below every key of buf above that.
func (t *Txn) appendable(key []byte) bool {
	return bytes.Compare(key, t.tail[len(t.tail)-1].key) > 0 && (!t.hasNext || bytes.Compare(key, t.next) < 0)
}

// insert buffers ent in buf, replacing the write of its key if there is
// one (returned); a write over a tail entry first moves the tail into
// buf.
func (t *Txn) insert(ent txnEntry) (prev txnEntry, had bool) {
	if _, ok := tailFind(t.tail, ent.key); ok {
		t.spill()
	}
	return t.treeInsert(ent)
}

// treeInsert inserts ent into buf, keeping next.
func (t *Txn) treeInsert(ent txnEntry) (txnEntry, bool) {
	if n := len(t.tail); n > 0 && bytes.Compare(ent.key, t.tail[n-1].key) > 0 && (!t.hasNext || bytes.Compare(ent.key, t.next) < 0) {
		t.next, t.hasNext = ent.key, true
	}
	return t.buf.ReplaceOrInsert(ent)
}

// spill moves the tail into buf (the keys are not in buf, so nothing is
// replaced).
func (t *Txn) spill() {
	if len(t.tail) == 0 {
		return
	}
	for _, e := range t.tail {
		t.buf.ReplaceOrInsert(e)
	}
	clear(t.tail)
	t.tail = t.tail[:0]
	t.next, t.hasNext = nil, false
}

// ascend calls fn on every buffered point write in key order (buf and
// tail merged) until fn returns false.
func (t *Txn) ascend(fn func(e txnEntry) bool) {
	tail := t.tail
	stopped := false
	t.buf.Ascend(func(e txnEntry) bool {
		for len(tail) > 0 && bytes.Compare(tail[0].key, e.key) < 0 {
			if !fn(tail[0]) {
				stopped = true
				return false
			}
			tail = tail[1:]
		}
		if !fn(e) {
			stopped = true
			return false
		}
		return true
	})
	if stopped {
		return
	}
	for _, e := range tail {
		if !fn(e) {
			return
		}
	}
}

// DeleteRange implements Writer: buffered writes in [start, end) are
// dropped and the range hides the snapshot's keys in it. Commit applies
// it as a DeleteRange before the point writes.
func (t *Txn) DeleteRange(start, end []byte) error {
	if t.done {
		return ErrClosed
	}
	if !rangeNonEmpty(start, end) {
		return nil
	}
	start, end = cloneKey(start), cloneKey(end)
	t.spill()
	var dropped []txnEntry
	t.buf.AscendRange(txnPivot(start), txnPivot(end), func(e txnEntry) bool {
		dropped = append(dropped, e)
		return true
	})
	for i, e := range dropped {
		t.buf.Delete(e)
		t.keepRead(e)
		dropped[i].read = false // its read is kept in reads now
	}
	t.undo = append(t.undo, undoRecord{what: undoRange})
	t.ranges = append(t.ranges, rangeUndo{dropped: dropped, prevDels: t.dels})
	t.dels = t.dels.add(start, end)
	return nil
}

// Savepoint returns a marker of the writes so far, for RollbackTo.
func (t *Txn) Savepoint() int { return len(t.undo) }

// errBadSavepoint is returned by RollbackTo for a marker that is not (or
// no longer) valid.
var errBadSavepoint = errors.New("kv: invalid savepoint")

// RollbackTo undoes every write made after Savepoint returned sp. The
// savepoint stays valid (it may be rolled back to again); savepoints
// taken after it become invalid. Reads made since sp stay in the read
// set (those of undone SetIfNew writes are moved into ReadSpans).
func (t *Txn) RollbackTo(sp int) error {
	if t.done {
		return ErrClosed
	}
	if sp < 0 || sp > len(t.undo) {
		return fmt.Errorf("%w: %d (have %d writes)", errBadSavepoint, sp, len(t.undo))
	}
	for i := len(t.undo) - 1; i >= sp; i-- {
		u := t.undo[i]
		switch u.what {
		case undoRange:
			r := t.ranges[len(t.ranges)-1]
			for _, e := range r.dropped {
				t.treeInsert(e)
			}
			t.dels = r.prevDels
			t.ranges[len(t.ranges)-1] = rangeUndo{}
			t.ranges = t.ranges[:len(t.ranges)-1]
		case undoRestore:
			if cur, ok := t.treeInsert(txnEntry{key: u.key, kind: u.kind, value: u.value}); ok {
				t.keepRead(cur)
			}
		default:
			// Undo runs newest first, so a key still in the tail is its
			// last entry: every write after it is already undone.
			if n := len(t.tail); n > 0 && bytes.Equal(t.tail[n-1].key, u.key) {
				t.keepRead(t.tail[n-1])
				t.tail[n-1] = txnEntry{}
				t.tail = t.tail[:n-1]
			} else if cur, ok := t.buf.Delete(txnPivot(u.key)); ok {
				t.keepRead(cur)
			}
		}
		t.undo[i] = undoRecord{}
	}
	t.undo = t.undo[:sp]
	return nil
}

// Commit applies every buffered write to the engine as one Batch (see
// Batch.Commit for sync) and ends the Txn. A Txn that wrote nothing
// commits without touching the engine. If the batch fails, nothing was
// applied; the Txn is ended either way.
//
// A buffer of IngestThreshold bytes or more, with no DeleteRange, is
// applied by Ingest instead when the engine is an Ingester: the buffer is
// already in key order, so it streams into sstables with no further sort,
// and the writes skip the engine's write-ahead log and memtable. That
// commit is durable when it returns, whatever sync says.
func (t *Txn) Commit(sync bool) error {
	if t.done {
		return ErrClosed
	}
	defer t.finish()
	if t.buf.Len() == 0 && len(t.tail) == 0 && len(t.dels) == 0 {
		return nil
	}
	if ing, ok := t.e.(Ingester); ok && len(t.dels) == 0 && t.size >= IngestThreshold {
		return ing.Ingest(t.ingestInto)
	}
	b := t.e.NewBatch()
	defer b.Close()
	if err := t.fill(b); err != nil {
		return err
	}
	return b.Commit(sync)
}

// CommitSyncLater is Commit with the sync split off: it applies the
// writes and, when the engine's batches are SyncLaterBatches, starts
// their sync and returns wait, which returns once they are durable (or
// with the sync's error). Otherwise (another engine, or a write set big
// enough to be ingested) it commits unsynced and wait is nil: the caller
// syncs (Engine.Flush) as after Commit(false). The transaction is
// finished either way; wait must be called exactly once when not nil.
func (t *Txn) CommitSyncLater() (wait func() error, err error) {
	if t.done {
		return nil, ErrClosed
	}
	defer t.finish()
	if t.buf.Len() == 0 && len(t.tail) == 0 && len(t.dels) == 0 {
		return nil, nil
	}
	if ing, ok := t.e.(Ingester); ok && len(t.dels) == 0 && t.size >= IngestThreshold {
		return nil, ing.Ingest(t.ingestInto) // durable when it returns
	}
	b := t.e.NewBatch()
	sb, ok := b.(SyncLaterBatch)
	if !ok {
		defer b.Close()
		if err := t.fill(b); err != nil {
			return nil, err
		}
		return nil, b.Commit(false)
	}
	// b is closed here unless wait takes it over (also when the engine
	// panics: Pebble reports a failed WAL write so).
	handed := false
	defer func() {
		if !handed {
			b.Close()
		}
	}()
	if err := t.fill(b); err != nil {
		return nil, err
	}
	w, err := sb.CommitSyncLater()
	if err != nil {
		return nil, err
	}
	handed = true
	return func() error {
		err := w()
		b.Close()
		return err
	}, nil
}

// fill writes the buffer into b: range deletions first (every buffered
// entry inside a range is newer than it), then the entries in key order.
func (t *Txn) fill(b Batch) error {
	for _, s := range t.dels {
		if err := b.DeleteRange(s.Start, s.End); err != nil {
			return err
		}
	}
	var err error
	t.ascend(func(e txnEntry) bool {
		switch e.kind {
		case opSet:
			err = b.Set(e.key, e.value)
		case opDelete:
			err = b.Delete(e.key)
		case opMerge:
			err = b.Merge(e.key, e.value)
		}
		return err == nil
	})
	return err
}

// ingestInto writes the buffer, in key order, into w (Commit by Ingest).
func (t *Txn) ingestInto(w SortedWriter) error {
	var err error
	t.ascend(func(e txnEntry) bool {
		switch e.kind {
		case opSet:
			err = w.Set(e.key, e.value)
		case opDelete:
			err = w.Delete(e.key)
		case opMerge:
			err = w.Merge(e.key, e.value)
		}
		return err == nil
	})
	return err
}

// Rollback discards every buffered write and ends the Txn. Rolling back
// an ended Txn does nothing.
func (t *Txn) Rollback() {
	if !t.done {
		t.finish()
	}
}

// finish closes the Txn's iterators and snapshot and drops its buffer.
func (t *Txn) finish() {
	t.done = true
	for it := range t.iters {
		_ = it.Close()
	}
	_ = t.snap.Close()
	if t.buf.Len() == 0 {
		// Nothing to free: kept for Reopen. Cleared, an empty tree
		// shares no node with the clones iterators read.
		t.buf.Clear(false)
		t.spare = t.buf
	}
	t.buf = nil
	t.tail, t.next = nil, nil
	t.marked, t.slab = false, nil
	t.undo = nil
	t.ranges = nil
}

// DiscardReads stops (on) or resumes (off) recording reads; turning it
// on also forgets the reads recorded so far. A transaction that is never
// validated against its reads (READ COMMITTED checks only its writes)
// saves a span per key it reads: a bulk load reads every key it inserts.
func (t *Txn) DiscardReads(on bool) {
	t.noReads = on
	if on {
		t.RollbackReads(0)
		t.unmarkReads()
	}
}

// ReadMark returns a marker of the read set so far, for RollbackReads.
func (t *Txn) ReadMark() int { return len(t.reads) }

// RollbackReads forgets the reads recorded after ReadMark returned mark.
// Only a caller that also undid every effect of those reads may call it:
// the session restarts a statement after a lock wait, rolling back its
// writes (RollbackTo) and its reads, so that its earlier, stale reads do
// not fail the transaction's validation.
func (t *Txn) RollbackReads(mark int) {
	if mark >= 0 && mark < len(t.reads) {
		clear(t.reads[mark:])
		t.reads = t.reads[:mark]
	}
}

// ReadSet returns the key spans the Txn has read: one point span per Get
// and per key SetIfNew checked, and the bounds of each iterator (whatever
// part of them it visited). Spans may repeat and overlap. The caller must
// not modify them. It is ReadSpans followed by the keys of the writes
// SetIfNew marked, built on each call: validation uses ReadSpans and
// MarkedReadIn instead.
func (t *Txn) ReadSet() []KeySpan {
	if !t.marked {
		return t.reads
	}
	out := slices.Clone(t.reads)
	t.ascend(func(e txnEntry) bool {
		if e.read {
			out = append(out, pointSpan(e.key))
		}
		return true
	})
	return out
}

// WriteSet returns the key spans the Txn would write if it committed now:
// its deleted ranges followed by one point span per buffered key, in key
// order. Writes undone by RollbackTo are not included.
func (t *Txn) WriteSet() []KeySpan {
	w, _ := t.writeSets(false)
	return w
}

// OverwriteSet returns the spans this Txn overwrites: its deleted ranges
// and the keys of its buffered Sets and Deletes, not its Merges (merge
// operands commute with other transactions' writes). Another transaction
// that commits a write into one of them conflicts with this one
// (write-write). The spans are in key order when the Txn deleted no
// range, else the ranges come first.
func (t *Txn) OverwriteSet() []KeySpan {
	_, o := t.WriteSets()
	return o
}

// WriteSets returns WriteSet and OverwriteSet, built in one pass over the
// buffer: commit needs both. The two share their spans' bytes, which are
// cut from a few large blocks rather than allocated per key (a bulk load
// commits hundreds of thousands of keys). The caller must not modify
// them.
func (t *Txn) WriteSets() (writes, overwrites []KeySpan) { return t.writeSets(true) }

// writeSets is WriteSets, with overwrites only when over is set (a
// SERIALIZABLE commit does not need them).
func (t *Txn) writeSets(over bool) (writes, overwrites []KeySpan) {
	if t.done {
		return nil, nil
	}
	n := len(t.dels) + t.buf.Len() + len(t.tail)
	writes = make([]KeySpan, 0, n)
	writes = append(writes, t.dels...)
	if over {
		overwrites = make([]KeySpan, 0, n)
		overwrites = append(overwrites, t.dels...)
	}
	// The first slab is no bigger than the buffer's keys can need (t.size
	// counts keys and values): a short transaction's few keys would
	// otherwise cost a 64 KiB allocation per commit.
	slab := make([]byte, 0, min(spanSlab, t.size+int64(t.buf.Len()+len(t.tail))))
	t.ascend(func(e txnEntry) bool {
		need := len(e.key) + 1
		if cap(slab)-len(slab) < need {
			slab = make([]byte, 0, max(spanSlab, need))
		}
		at := len(slab)
		slab = append(append(slab, e.key...), 0)
		sp := KeySpan{Start: slab[at : at+need-1 : at+need-1], End: slab[at : at+need : at+need]}
		writes = append(writes, sp)
		if over && e.kind != opMerge {
			overwrites = append(overwrites, sp)
		}
		return true
	})
	return writes, overwrites
}

// spanSlab is the size of the blocks WriteSets cuts its spans from.
const spanSlab = 64 << 10

// Len returns the number of buffered writes that Commit would apply:
// buffered keys plus deleted ranges.
func (t *Txn) Len() int {
	if t.done {
		return 0
	}
	return t.buf.Len() + len(t.tail) + len(t.dels)
}

// SnapshotLast returns the greatest key the Txn's snapshot holds in
// [lower, upper), or nil if it holds none there. It ignores the Txn's
// own writes and adds nothing to the read set: it is a hint. A key of the
// span above the returned one is absent from the snapshot, so only the
// write buffer can hold it (see SetIfNew); a caller relying on such a
// key's absence must still read it (Get or SetIfNew record the read).
// The hint holds until the Txn moves to another snapshot (Refresh).
func (t *Txn) SnapshotLast(lower, upper []byte) ([]byte, error) {
	if t.done {
		return nil, ErrClosed
	}
	it, err := t.snap.NewIter(IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	var last []byte
	if it.Last() {
		last = cloneBytes(it.Key())
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return last, nil
}

// SetIfNew is an insert for a key the caller knows is absent from the
// Txn's snapshot (above SnapshotLast of its span): it buffers a Set of
// key to value unless the write buffer holds key (a buffered Set or
// Merge), and reports whether it wrote. When it does not write, the Txn
// is unchanged but for the read set. The snapshot is not read; key is
// added to the read set as by Get, so a commit that writes key after the
// snapshot still conflicts with this Txn.
//
// It costs one buffer operation where Get then Set cost a buffer lookup,
// a snapshot read and a buffer insert; key and value share one
// allocation. The read is a mark on the written entry, not a span
// (txn_reads.go): a bulk load would otherwise keep, sort and merge a
// span per row.
func (t *Txn) SetIfNew(key, value []byte) (bool, error) {
	if t.done {
		return false, ErrClosed
	}
	// Key and value are cut from the Txn's slab: entries are never
	// modified, so they may share it.
	n := len(key)
	b := t.cut(n + len(value))
	copy(b, key)
	copy(b[n:], value)
	k := b[:n:n]
	ent := txnEntry{key: k, kind: opSet, value: b[n:len(b):len(b)]}
	if !t.noReads {
		ent.read, t.marked = true, true
	}
	var prev txnEntry
	var had bool
	if t.tailNew(ent) {
		// Appended to the tail: no B-tree insert.
	} else {
		prev, had = t.treeInsert(ent)
		if had && prev.kind != opDelete {
			t.buf.ReplaceOrInsert(prev) // a duplicate: put the old entry back
			if !t.noReads {
				t.reads = append(t.reads, pointSpan(k)) // the read stays
			}
			return false, nil
		}
	}
	t.undo = append(grow(t.undo), undoPoint(k, prev, had))
	t.size += int64(len(b))
	return true, nil
}

// cut returns n bytes for a SetIfNew's key and value, cut from a block
// of the Txn's (a bulk load's per-row allocation was a tenth of its
// buffer's cost). Blocks start small, so a short transaction does not
// pay for a large one, and double up to slabMax; a write larger than a
// quarter of that gets its own allocation. Cut bytes are never
// reused: a block lives as long as an entry in it.
func (t *Txn) cut(n int) []byte {
	if n > slabMax/4 {
		return make([]byte, n)
	}
	if cap(t.slab)-len(t.slab) < n {
		size := min(slabMax, max(2*cap(t.slab), 128))
		for size < n {
			size *= 2
		}
		t.slab = make([]byte, 0, size)
	}
	at := len(t.slab)
	t.slab = t.slab[:at+n]
	return t.slab[at : at+n : at+n]
}

// slabMax is the largest block cut hands out from.
const slabMax = 64 << 10

// tailNew appends ent, a SetIfNew, to the tail if it may go there, and
// reports whether it did. A key in the tail is not appended (SetIfNew's
// duplicate check then finds it in buf, where a key under a Delete is
// first moved). Starting an empty tail costs one lookup in buf, for the
// key and the next key above it.
func (t *Txn) tailNew(ent txnEntry) bool {
	if t.noTail {
		return false
	}
	if len(t.tail) > 0 {
		if t.appendable(ent.key) {
			t.tail = append(grow(t.tail), ent)
			return true
		}
		if _, ok := tailFind(t.tail, ent.key); ok {
			t.spill()
		}
		return false
	}
	var succ txnEntry
	found := false
	t.buf.AscendGreaterOrEqual(txnPivot(ent.key), func(e txnEntry) bool {
		succ, found = e, true
		return false
	})
	if found && bytes.Equal(succ.key, ent.key) {
		return false
	}
	t.tail = append(grow(t.tail), ent)
	t.next, t.hasNext = succ.key, found
	return true
}

// TxnView reads a Txn as it was when View was called: the snapshot with
// the Txn's writes up to then laid over it; writes made later are not
// seen. A statement reads through one (PostgreSQL's command counter): its
// queries and subqueries see the state at the statement's start, never
// the rows the statement itself writes, while its constraint checks read
// the Txn itself. Reads through a view are recorded in the Txn's read
// set, and its iterators count as the Txn's (OpenIters). A view is valid
// until the Txn ends; it follows the Txn onto a newer snapshot (Refresh)
// with the writes it froze.
type TxnView struct {
	t    *Txn
	buf  *btree.BTreeG[txnEntry]
	dels spanList
}

var _ Reader = (*TxnView)(nil)

// View returns a TxnView of t as it is now. It costs a copy-on-write
// clone of the write buffer (constant time), or nothing when the buffer
// is empty, as at the first statement of every transaction: the view's
// nil buffer reads as empty (lookup, newIter).
func (t *Txn) View() *TxnView {
	if !t.done {
		t.spill()
	}
	if t.buf == nil || t.buf.Len() == 0 {
		return &TxnView{t: t, dels: t.dels}
	}
	return &TxnView{t: t, buf: t.buf.Clone(), dels: t.dels}
}

// Get implements Reader.
func (v *TxnView) Get(key []byte) ([]byte, error) { return v.t.get(v.buf, nil, v.dels, key) }

// NewIter implements Reader.
func (v *TxnView) NewIter(opts IterOptions) (Iterator, error) {
	return v.t.newIter(v.buf, v.dels, opts)
}
