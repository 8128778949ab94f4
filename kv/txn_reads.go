package kv

import "bytes"

// The read set of a Txn is two parts:
//
//   - reads (ReadSpans): a span per Get and per iterator, in the order
//     they were made;
//   - the read marks of buffered writes: SetIfNew checks that its key is
//     absent and writes it, so the key it read is the key it wrote. The
//     write's entry carries the read (txnEntry.read) instead of a span
//     being appended, so a bulk load of n rows keeps no n read spans that
//     validation would then copy, sort and merge.
//
// Invariant: every key SetIfNew read is in reads or is the key of a
// marked entry of buf or tail. A marked entry that leaves the buffer
// (overwritten by another write, dropped by DeleteRange, undone by
// RollbackTo) first moves its read into reads (keepRead), so reads made
// since a savepoint stay in the read set as RollbackTo promises.
// Entries are never modified in place (iterators share them), so marks
// are only ever set on new entries and cleared by replacing them.

// keepRead moves the read mark of e, an entry leaving the buffer, into
// reads.
func (t *Txn) keepRead(e txnEntry) {
	if e.read {
		t.reads = append(t.reads, pointSpan(e.key))
	}
}

// unmarkReads clears every read mark (DiscardReads): the buffer's marked
// entries are replaced by unmarked copies.
func (t *Txn) unmarkReads() {
	if !t.marked {
		return
	}
	for i := range t.tail {
		t.tail[i].read = false // the tail is never shared
	}
	var marked []txnEntry
	t.buf.Ascend(func(e txnEntry) bool {
		if e.read {
			marked = append(marked, e)
		}
		return true
	})
	for _, e := range marked {
		e.read = false
		t.buf.ReplaceOrInsert(e)
	}
	t.marked = false
}

// ReadSpans returns the read set without the keys of marked writes (see
// ReadSet): the spans of Gets, iterators and refused SetIfNew calls, and
// of SetIfNew writes since undone or overwritten. A validation checks
// these spans and MarkedReadIn. The caller must not modify them.
func (t *Txn) ReadSpans() []KeySpan { return t.reads }

// MarkedReadIn reports whether a span of spans holds the key of a write
// of this Txn that carries a read mark (SetIfNew): with ReadSpans, it
// tells whether another transaction's write set meets this Txn's read
// set. It costs a seek per span into the write buffer, plus a step per
// buffered key inside a span; a Txn with no marked write answers at
// once.
func (t *Txn) MarkedReadIn(spans []KeySpan) bool {
	if t.done || !t.marked {
		return false
	}
	for _, s := range spans {
		if t.markedIn(s) {
			return true
		}
	}
	return false
}

// markedIn reports whether s holds the key of a marked entry.
func (t *Txn) markedIn(s KeySpan) bool {
	return t.entryIn(s, func(e txnEntry) bool { return e.read })
}

// OverwritesIn reports whether a span of spans meets OverwriteSet: a
// range this Txn deleted, or the key of a buffered Set or Delete. It
// answers what merging OverwriteSet and searching it answers (a READ
// COMMITTED validation), without building the set: a seek per span into
// the write buffer, plus a step per buffered Merge inside a span.
func (t *Txn) OverwritesIn(spans []KeySpan) bool {
	if t.done {
		return false
	}
	for _, s := range spans {
		if t.dels.overlaps(s) || t.entryIn(s, func(e txnEntry) bool { return e.kind != opMerge }) {
			return true
		}
	}
	return false
}

// WritesIn reports whether a span of spans meets WriteSet: a range this
// Txn deleted, or the key of any buffered write. Like OverwritesIn it
// costs a seek per span into the write buffer.
func (t *Txn) WritesIn(spans []KeySpan) bool {
	if t.done {
		return false
	}
	for _, s := range spans {
		if t.dels.overlaps(s) || t.entryIn(s, func(txnEntry) bool { return true }) {
			return true
		}
	}
	return false
}

// entryIn reports whether s holds the key of a buffered entry (tail or
// B-tree) for which match is true.
func (t *Txn) entryIn(s KeySpan, match func(e txnEntry) bool) bool {
	inSpan := func(k []byte) bool { return s.End == nil || bytes.Compare(k, s.End) < 0 }
	// The tail: from the first key at or after s.Start.
	lo, hi := 0, len(t.tail)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(t.tail[m].key, s.Start) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for _, e := range t.tail[lo:] {
		if !inSpan(e.key) {
			break
		}
		if match(e) {
			return true
		}
	}
	found := false
	t.buf.AscendGreaterOrEqual(txnPivot(s.Start), func(e txnEntry) bool {
		if !inSpan(e.key) {
			return false
		}
		found = match(e)
		return !found
	})
	return found
}
