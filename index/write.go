package index

import (
	"bytes"
	"errors"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// exists reports whether key has a value in r.
func exists(r kv.Reader, key []byte) (bool, error) {
	_, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Insert writes a new row (one value per t.Columns entry, the hidden row
// id included): its master record and an entry in every index.
//
// All checks happen BEFORE anything is written, through rw (which sees the
// statement's earlier writes): 23502 for a NULL in a NOT NULL column
// (primary-key columns are NOT NULL), 23505 for a duplicate primary key or
// a duplicate non-NULL value in a unique index. So a failed Insert leaves
// rw unchanged. A statement writing many rows should use an Inserter.
func Insert(rw kv.ReadWriter, t *catalog.Table, row []types.Datum) error {
	return NewInserter(rw, t).Insert(row)
}

// newKeyWriter is what an Inserter needs for its fast path; *kv.Txn has
// it. SnapshotLast tells which keys the snapshot cannot hold; SetIfNew
// then checks and writes such a key with one write-buffer operation.
type newKeyWriter interface {
	kv.ReadWriter
	SnapshotLast(lower, upper []byte) ([]byte, error)
	SetIfNew(key, value []byte) (bool, error)
	Savepoint() int
	RollbackTo(sp int) error
}

var _ newKeyWriter = (*kv.Txn)(nil)

// Inserter writes the rows of one statement into one table with Insert's
// contract, faster than a call of Insert per row:
//
//   - Over a kv.Txn, it learns once (on the second row) the last key the
//     transaction's snapshot holds in the master key space and in each
//     unique index. A key above it cannot be in the snapshot, so its
//     uniqueness check reads only the write buffer (kv.Txn.SetIfNew),
//     not the store. Rows arriving in key order into an empty table, or
//     past a table's end (COPY, ascending ids, serials), take this path;
//     other keys are checked with a Get as before. Either way the key is
//     in the transaction's read set, so a concurrent commit of the same
//     key still makes this transaction fail (40001).
//   - Keys and values are encoded into reused buffers (the kv writer
//     copies them).
//
// An Inserter must not outlive the statement: its knowledge of the
// snapshot is wrong once the kv.Txn moves to another one (Refresh). It is
// not safe for concurrent use.
type Inserter struct {
	rw kv.ReadWriter
	t  *catalog.Table
	// fast is rw when it supports the fast path, else nil.
	fast newKeyWriter
	// known: the snapshot bounds below have been read. masterLast is the
	// last snapshot key of the master space; uniqueLast[i] that of
	// t.Indexes[i] when it is unique. nil: the space is empty.
	known      bool
	masterLast []byte
	uniqueLast [][]byte

	l        *layout // t's, looked up once
	key, val []byte  // scratch encodings
	rows     int     // Insert calls so far
}

// NewInserter returns an Inserter writing rows of t through rw.
func NewInserter(rw kv.ReadWriter, t *catalog.Table) *Inserter {
	in := &Inserter{rw: rw, t: t, l: layoutOf(t)}
	in.fast, _ = rw.(newKeyWriter)
	return in
}

// Insert writes row as the package-level Insert does: a failed Insert
// (23502, 23505, or a storage error) leaves rw unchanged.
func (in *Inserter) Insert(row []types.Datum) error {
	t := in.t
	if err := checkRow(t, row); err != nil {
		return err
	}
	in.rows++
	// A one-row statement keeps to Gets: learning costs an iterator per
	// key space, more than the Gets it saves.
	if in.fast != nil && in.rows > 1 {
		if err := in.learn(); err != nil {
			return err
		}
		return in.insertFast(row)
	}
	mk := masterKeyOfRow(in.key[:0], t, row)
	in.key = mk
	if !t.HiddenRowID { // hidden row ids come from a counter: never duplicate
		dup, err := exists(in.rw, mk)
		if err != nil {
			return err
		}
		if dup {
			return uniqueViolation(t, t.PrimaryKeyName, t.PrimaryKey, row)
		}
	}
	for _, idx := range t.Indexes {
		if err := checkUnique(in.rw, t, idx, row, nil); err != nil {
			return err
		}
	}
	in.val = masterValueOf(in.val[:0], in.l, row)
	if in.fast != nil && !t.HiddenRowID {
		// SetIfNew, not Set: the key is known new, and a Set would be a
		// B-tree write above the kv.Txn's ascending tail that stops the
		// rows after it from being appended there (kv.Txn.SetIfNew).
		ok, err := in.fast.SetIfNew(mk, in.val)
		if err != nil {
			return err
		}
		if !ok {
			return uniqueViolation(t, t.PrimaryKeyName, t.PrimaryKey, row)
		}
	} else if err := in.rw.Set(mk, in.val); err != nil {
		return err
	}
	for _, idx := range t.Indexes {
		if err := in.putEntry(idx, row); err != nil {
			return err
		}
	}
	return nil
}

// learn reads the snapshot bounds once.
func (in *Inserter) learn() error {
	if in.known {
		return nil
	}
	t := in.t
	var err error
	if !t.HiddenRowID {
		lo := encoding.EncodeUvarintAsc(nil, t.ID)
		if in.masterLast, err = in.fast.SnapshotLast(lo, encoding.PrefixEnd(lo)); err != nil {
			return err
		}
	}
	in.uniqueLast = make([][]byte, len(t.Indexes))
	for i, idx := range t.Indexes {
		if idx.Form != catalog.FormUnique {
			continue
		}
		lo := encoding.EncodeUvarintAsc(nil, idx.ID)
		if in.uniqueLast[i], err = in.fast.SnapshotLast(lo, encoding.PrefixEnd(lo)); err != nil {
			return err
		}
	}
	in.known = true
	return nil
}

// insertFast checks and writes together, each key in turn, and rolls the
// row's writes back on a violation.
func (in *Inserter) insertFast(row []types.Datum) (err error) {
	t, w := in.t, in.fast
	sp := w.Savepoint()
	defer func() {
		if err != nil {
			if rerr := w.RollbackTo(sp); rerr != nil {
				err = rerr
			}
		}
	}()
	in.key = masterKeyOfRow(in.key[:0], t, row)
	in.val = masterValueOf(in.val[:0], in.l, row)
	if dup, err := in.putNew(in.key, in.val, !t.HiddenRowID, in.masterLast); err != nil || dup {
		if dup {
			err = uniqueViolation(t, t.PrimaryKeyName, t.PrimaryKey, row)
		}
		return err
	}
	for i, idx := range t.Indexes {
		if !t.Covers(idx, row) {
			continue
		}
		if idx.Form != catalog.FormUnique {
			if err := in.putEntry(idx, row); err != nil {
				return err
			}
			continue
		}
		key, anyNull := appendIndexValues(encoding.EncodeUvarintAsc(in.key[:0], idx.ID), idx, row)
		in.val = appendRowPK(in.val[:0], t, row)
		distinct := anyNull && !idx.NullsNotDistinct
		if distinct {
			// NULLs never conflict: the pk makes each such entry distinct.
			key = append(key, in.val...)
		}
		in.key = key
		in.val = appendIncluded(in.val, t, idx, row)
		if dup, err := in.putNew(key, in.val, !distinct, in.uniqueLast[i]); err != nil || dup {
			if dup {
				err = uniqueViolation(t, idx.Name, idx.Columns, row)
			}
			return err
		}
	}
	return nil
}

// putNew writes key → value in the fast path. With check, a key already
// present is not written and dup is true. A key above last (nil: the
// space is empty in the snapshot) is checked in the write buffer only.
func (in *Inserter) putNew(key, value []byte, check bool, last []byte) (dup bool, err error) {
	w := in.fast
	if !check {
		return false, w.Set(key, value)
	}
	if last == nil || bytes.Compare(key, last) > 0 {
		ok, err := w.SetIfNew(key, value)
		return err == nil && !ok, err
	}
	if dup, err = exists(w, key); err != nil || dup {
		return dup, err
	}
	return false, w.Set(key, value)
}

// putEntry writes row's entry in idx, encoding into the scratch buffers.
func (in *Inserter) putEntry(idx *catalog.Index, row []types.Datum) error {
	if idx.Form == catalog.FormKeyID && in.t.Covers(idx, row) {
		key, _ := appendIndexValues(encoding.EncodeUvarintAsc(in.key[:0], idx.ID), idx, row)
		in.key = appendRowPK(key, in.t, row)
		in.val = appendIncluded(in.val[:0], in.t, idx, row)
		return in.rw.Set(in.key, in.val)
	}
	return putEntry(in.rw, in.t, idx, row)
}

// checkUnique returns 23505 if row's values in a unique index are taken by
// a row other than the one whose primary key bytes are self (nil: none).
func checkUnique(r kv.Reader, t *catalog.Table, idx *catalog.Index, row []types.Datum, self []byte) error {
	if idx.Form != catalog.FormUnique || !t.Covers(idx, row) {
		return nil
	}
	key, _ := entryKey(t, idx, row)
	v, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if self != nil {
		pk, _, err := splitUniqueValue(t, idx, v)
		if err != nil {
			return err
		}
		if sameKey(pk, self) {
			return nil
		}
	}
	return uniqueViolation(t, idx.Name, idx.Columns, row)
}

func putEntry(w kv.Writer, t *catalog.Table, idx *catalog.Index, row []types.Datum) error {
	return entries(t, idx, row, func(key, value []byte) error {
		if idx.Form == catalog.FormInverted {
			return addPK(w, key, value)
		}
		return w.Set(key, value)
	})
}

func deleteEntry(rw kv.ReadWriter, t *catalog.Table, idx *catalog.Index, row []types.Datum) error {
	return entries(t, idx, row, func(key, value []byte) error {
		if idx.Form == catalog.FormInverted {
			return removePK(rw, key, value)
		}
		return rw.Delete(key)
	})
}

// Delete removes a row given in full (as read): its master record and
// every index entry.
func Delete(rw kv.ReadWriter, t *catalog.Table, row []types.Datum) error {
	if len(row) != len(t.Columns) {
		return checkRow(t, row)
	}
	if err := rw.Delete(masterKeyOfRow(nil, t, row)); err != nil {
		return err
	}
	for _, idx := range t.Indexes {
		if err := deleteEntry(rw, t, idx, row); err != nil {
			return err
		}
	}
	return nil
}

// Update replaces row old (as read) with new. It checks NOT NULL and
// uniqueness (against rows other than old) before writing. When the
// primary key is unchanged it rewrites the master value and checks and
// rewrites only the entries of indexes whose key or included values
// changed (an UPDATE of a column no index holds reads no index); when the primary key changes the
// master record and every index entry move, and every unique index is
// checked.
func Update(rw kv.ReadWriter, t *catalog.Table, old, new []types.Datum) error {
	_, err := UpdateBuf(rw, t, old, new, nil)
	return err
}

// UpdateBuf is Update building the master keys, the row's primary key
// and the new master value in buf, which it returns, grown, for the next
// call: an UPDATE run again and again (a prepared statement's kept
// tree) or over many rows allocates them once. rw copies what it is
// given (kv.Writer), so nothing keeps pointing into buf.
func UpdateBuf(rw kv.ReadWriter, t *catalog.Table, old, new []types.Datum, buf []byte) ([]byte, error) {
	if err := checkRow(t, new); err != nil {
		return buf, err
	}
	if len(old) != len(new) {
		return buf, checkRow(t, old)
	}
	// Each piece is a full slice expression of buf: appending the next
	// one writes past it (or into a new array), never over it.
	buf = masterKeyOfRow(buf[:0], t, old)
	oldMK := buf[:len(buf):len(buf)]
	buf = masterKeyOfRow(buf, t, new)
	newMK := buf[len(oldMK):len(buf):len(buf)]
	err := update(rw, t, old, new, oldMK, newMK, &buf)
	return buf, err
}

// update is UpdateBuf's work once the master keys are built; *buf holds
// them, and what it builds next is appended after them.
func update(rw kv.ReadWriter, t *catalog.Table, old, new []types.Datum, oldMK, newMK []byte, buf *[]byte) error {
	pkChanged := !sameKey(oldMK, newMK)
	if pkChanged {
		dup, err := exists(rw, newMK)
		if err != nil {
			return err
		}
		if dup {
			return uniqueViolation(t, t.PrimaryKeyName, t.PrimaryKey, new)
		}
	}
	var stack [8]bool
	moved := stack[:0]
	for _, idx := range t.Indexes {
		m := pkChanged
		switch {
		case m:
		case t.Covers(idx, old) != t.Covers(idx, new):
			m = true // the row enters or leaves a partial index
		case idx.Elements:
			c := idx.Columns[0]
			m = old[c] != new[c] // another array: its element entries move
		default:
			// Same key and same pk: the entry is still right, unless an
			// INCLUDE column's value changed (it is in the entry's value).
			ok, ov := entryKey(t, idx, old)
			nk, nv := entryKey(t, idx, new)
			m = !sameKey(ok, nk) || !bytes.Equal(ov, nv)
		}
		moved = append(moved, m)
	}
	var self []byte
	for i, idx := range t.Indexes {
		if !moved[i] {
			continue
		}
		if self == nil {
			n := len(*buf)
			*buf = appendRowPK(*buf, t, old)
			self = (*buf)[n:len(*buf):len(*buf)]
		}
		if err := checkUnique(rw, t, idx, new, self); err != nil {
			return err
		}
	}
	if pkChanged {
		if err := Delete(rw, t, old); err != nil {
			return err
		}
		if err := rw.Set(newMK, masterValue(nil, t, new)); err != nil {
			return err
		}
		for _, idx := range t.Indexes {
			if err := putEntry(rw, t, idx, new); err != nil {
				return err
			}
		}
		return nil
	}
	n := len(*buf)
	*buf = masterValue(*buf, t, new)
	if err := rw.Set(newMK, (*buf)[n:]); err != nil {
		return err
	}
	for i, idx := range t.Indexes {
		if !moved[i] {
			continue
		}
		if err := deleteEntry(rw, t, idx, old); err != nil {
			return err
		}
		if err := putEntry(rw, t, idx, new); err != nil {
			return err
		}
	}
	return nil
}
