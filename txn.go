package kvsql

import (
	"bytes"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// txn is one transaction: a kv.Txn overlay (its writes, read-your-writes,
// its read set), the catalog as the transaction sees it, and its
// savepoints.
type txn struct {
	db      *DB
	kv      *kv.Txn
	snapSeq uint64
	// cat is the catalog the transaction sees: the committed one at
	// begin, plus its own DDL (catChanged).
	cat        *catalog.Catalog
	catChanged bool
	explicit   bool
	failed     bool
	savepoints []savepoint
	rowDelta   map[uint64]int64
}

type savepoint struct {
	name       string
	mark       int
	cat        *catalog.Catalog
	catChanged bool
}

func spansIntersect(a, b kv.KeySpan) bool {
	// [a.Start, a.End) and [b.Start, b.End); a nil End is unbounded.
	if a.End != nil && bytes.Compare(b.Start, a.End) >= 0 {
		return false
	}
	if b.End != nil && bytes.Compare(a.Start, b.End) >= 0 {
		return false
	}
	return true
}

// mark returns a point to roll the transaction back to (statement
// atomicity inside an explicit transaction).
func (t *txn) mark() savepoint {
	return savepoint{mark: t.kv.Savepoint(), cat: t.cat, catChanged: t.catChanged}
}

func (t *txn) rollbackTo(sp savepoint) error {
	if err := t.kv.RollbackTo(sp.mark); err != nil {
		return pgerror.Wrap(err, pgerror.Internal)
	}
	t.cat, t.catChanged = sp.cat, sp.catChanged
	return nil
}

func (t *txn) addRows(tableID uint64, n int64) {
	if t.rowDelta == nil {
		t.rowDelta = map[uint64]int64{}
	}
	t.rowDelta[tableID] += n
}

// setCatalog installs a catalog changed by DDL in this transaction.
func (t *txn) setCatalog(c *catalog.Catalog) {
	t.cat, t.catChanged = c, true
}
