package index

import (
	"errors"

	"github.com/kvsql/kvsql/catalog"
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
// rw unchanged.
func Insert(rw kv.ReadWriter, t *catalog.Table, row []types.Datum) error {
	if err := checkRow(t, row); err != nil {
		return err
	}
	mk := masterKeyOfRow(nil, t, row)
	if !t.HiddenRowID { // hidden row ids come from a counter: never duplicate
		dup, err := exists(rw, mk)
		if err != nil {
			return err
		}
		if dup {
			return uniqueViolation(t, t.PrimaryKeyName, t.PrimaryKey, row)
		}
	}
	for _, idx := range t.Indexes {
		if err := checkUnique(rw, t, idx, row, nil); err != nil {
			return err
		}
	}
	if err := rw.Set(mk, masterValue(nil, t, row)); err != nil {
		return err
	}
	for _, idx := range t.Indexes {
		if err := putEntry(rw, t, idx, row); err != nil {
			return err
		}
	}
	return nil
}

// checkUnique returns 23505 if row's values in a unique index are taken by
// a row other than the one whose primary key bytes are self (nil: none).
func checkUnique(r kv.Reader, t *catalog.Table, idx *catalog.Index, row []types.Datum, self []byte) error {
	if idx.Form != catalog.FormUnique {
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
	if self != nil && sameKey(v, self) {
		return nil
	}
	return uniqueViolation(t, idx.Name, idx.Columns, row)
}

func putEntry(w kv.Writer, t *catalog.Table, idx *catalog.Index, row []types.Datum) error {
	key, value := entryKey(t, idx, row)
	if idx.Form == catalog.FormInverted {
		return addPK(w, key, value)
	}
	return w.Set(key, value)
}

func deleteEntry(rw kv.ReadWriter, t *catalog.Table, idx *catalog.Index, row []types.Datum) error {
	key, value := entryKey(t, idx, row)
	if idx.Form == catalog.FormInverted {
		return removePK(rw, key, value)
	}
	return rw.Delete(key)
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
// moves only the entries of indexes whose key changed (an UPDATE of an
// unindexed column reads no index); when the primary key changes the
// master record and every index entry move, and every unique index is
// checked.
func Update(rw kv.ReadWriter, t *catalog.Table, old, new []types.Datum) error {
	if err := checkRow(t, new); err != nil {
		return err
	}
	if len(old) != len(new) {
		return checkRow(t, old)
	}
	oldMK, newMK := masterKeyOfRow(nil, t, old), masterKeyOfRow(nil, t, new)
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
		if !m {
			ok, _ := entryKey(t, idx, old)
			nk, _ := entryKey(t, idx, new)
			m = !sameKey(ok, nk) // same key, same pk: the entry is still right
		}
		moved = append(moved, m)
	}
	self := appendRowPK(nil, t, old)
	for i, idx := range t.Indexes {
		if !moved[i] {
			continue
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
	if err := rw.Set(newMK, masterValue(nil, t, new)); err != nil {
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
